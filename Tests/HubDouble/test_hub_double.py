"""Tests for hub_double.py: real HTTP against the double started as a subprocess, plus a few direct unit tests.

Run from the repository root:  python3 -m unittest discover -s Tests/HubDouble
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from urllib.parse import quote

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hub_double  # noqa: E402

SCRIPT = os.path.join(HERE, "hub_double.py")

# A published test vector (fake key, used as UTF-8 text)
VECTOR_KEY = "Y2hhbmdlLW1lLXRoaXMtaXMtYS10ZXN0LWtleS0wMTI="
VECTOR_HOST = "contoso-test.servicebus.windows.net"
V1 = ("SharedAccessSignature sr=https%3A%2F%2Fcontoso-test.servicebus.windows.net%2F"
      "&sig=WK8jpQW%2Bj6zw0R2VUJsGpiFLxngz%2BMul7g%2BMkkR8ahI%3D&se=1700000000&skn=DefaultFullSharedAccessSignature")
V2 = ("SharedAccessSignature sr=https%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub"
      "&sig=sBwNOu50vAx7rWYQJwgGD8p7LGgLyNiSSTO8DcRj2Yg%3D&se=1700000000&skn=DefaultFullSharedAccessSignature")
V2_PYR_ORDER = ("SharedAccessSignature sig=sBwNOu50vAx7rWYQJwgGD8p7LGgLyNiSSTO8DcRj2Yg%3D&se=1700000000"
                "&skn=DefaultFullSharedAccessSignature&sr=https%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub")
V3 = ("SharedAccessSignature sr=http%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub%2fmessages%2f"
      "&sig=yQR8oVCPU35v%2F7tHCGeV9XAtnoTn%2Bakep6z%2Fc8%2FTY6Y%3D&se=1893456000&skn=DefaultFullSharedAccessSignature")
V3_NET_ESCAPES = V3.replace("yQR8oVCPU35v%2F7tHCGeV9XAtnoTn%2Bakep6z%2Fc8%2FTY6Y%3D",
                            "yQR8oVCPU35v%2f7tHCGeV9XAtnoTn%2bakep6z%2fc8%2fTY6Y%3d")
W1 = ("SharedAccessSignature sr=https%3A%2F%2Fcontoso-test.servicebus.windows.net%2FMyHub"
      "&sig=GFqFQkE8M%2BL3GmPOd%2BU%2BycCelmxD1sAca8Btkw28TpM%3D&se=1700000000&skn=DefaultFullSharedAccessSignature")
N1_SIG = "q0KvqhQOK2PMVopKyi0Y90FJOPJeo37OJbn+ZCwUAgc="

FULL = "DefaultFullSharedAccessSignature"
LISTEN = "DefaultListenSharedAccessSignature"
FULL_KEY = "full-key-for-tests-0123456789abcdef="
LISTEN_KEY = "listen-key-for-tests-0123456789abc="

FRENCH = '{"aps":{"alert":"$(News_French)"},"inAppMessage":"$(News_French)"}'
MANDARIN = '{"message":{"notification":{"title":"$(News_Mandarin)"},"data":{"inAppMessage":"$(News_Mandarin)"}}}'
ENGLISH = '{"aps":{"alert":"$(News_English)"},"inAppMessage":"$(News_English)"}'
OLD_APP = '{"aps":{"alert":"$(messageParam)"}}'

STORY = {
    "News_English": "Breaking World News in English!",
    "News_French": "Breaking World News in French!",
    "News_Mandarin": "Breaking World News in Mandarin!",
    "messageParam": "Breaking World News!",
}

XML_401 = re.compile(r"^<Error><Code>401</Code><Detail>[^<]+\.TrackingId:[0-9a-f-]{36}_G0,TimeStamp:"
                     r"\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d\d:\d\d [AP]M</Detail></Error>$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def make_token(key, resource, se, key_name=FULL, upper_hex=True, lowercase=True):
    """Our own SAS builder for the tests."""
    text = resource.lower() if lowercase else resource
    sr = quote(text, safe="")
    if not upper_hex:
        sr = re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), sr)
    mac = hmac.new(key.encode("utf-8"), (sr + "\n" + str(se)).encode("utf-8"), hashlib.sha256).digest()
    sig = quote(base64.b64encode(mac).decode("ascii"), safe="")
    return f"SharedAccessSignature sr={sr}&sig={sig}&se={se}&skn={quote(key_name, safe='')}"


def installation(installation_id, platform, tags, templates):
    return {
        "installationId": installation_id,
        "platform": platform,
        "pushChannel": "channel-" + installation_id,
        "tags": tags,
        "templates": {name: {"body": body, "tags": []} for name, body in templates.items()},
    }


def seed_installations():
    return [
        installation("french-phone", "apns", ["World"], {"localizednewsTemplate": FRENCH}),
        installation("mandarin-phone", "fcmv1", ["Sports"], {"localizednewsTemplate": MANDARIN}),
        installation("old-app", "apns", ["World"], {"genericTemplate": OLD_APP}),
        installation("english-phone", "apns", ["Politics", "Business"], {"localizednewsTemplate": ENGLISH}),
    ]


class HubProcess:
    """The double as a subprocess on an ephemeral port."""

    def __init__(self, config, extra_args=()):
        self.directory = tempfile.TemporaryDirectory(prefix="hub-double-test-")
        self.config_path = os.path.join(self.directory.name, "config.json")
        with open(self.config_path, "w", encoding="utf-8") as handle:
            json.dump(config, handle)
        self.process = subprocess.Popen(
            [sys.executable, SCRIPT, "--config", self.config_path, "--port", "0", *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ready, _, _ = select.select([self.process.stdout], [], [], 15)
        line = self.process.stdout.readline().decode("utf-8") if ready else ""
        match = re.fullmatch(r"LISTENING (\d+)\n", line)
        if not match:
            self.process.kill()
            _, err = self.process.communicate()
            self.directory.cleanup()
            raise RuntimeError(f"the hub double did not start: {line!r} {err.decode('utf-8', 'replace')}")
        self.port = int(match.group(1))

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        out, err = self.process.communicate(timeout=10)
        self.directory.cleanup()
        return self.process.returncode, out.decode("utf-8"), err.decode("utf-8")


class HubTestCase(unittest.TestCase):
    hub = "newsgen-test"
    tier = "standard"
    extra_args = ()

    @classmethod
    def config(cls):
        return {
            "hub": cls.hub,
            "tier": cls.tier,
            "rules": [
                {"name": FULL, "key": FULL_KEY, "rights": ["Listen", "Manage", "Send"]},
                {"name": LISTEN, "key": LISTEN_KEY, "rights": ["Listen"]},
            ],
            "installations": seed_installations(),
            "clock_skew_seconds": 0,
        }

    @classmethod
    def setUpClass(cls):
        cls.double = HubProcess(cls.config(), cls.extra_args)
        cls.port = cls.double.port

    @classmethod
    def tearDownClass(cls):
        code, out, err = cls.double.stop()
        assert code == 0, (code, err)
        assert out == "", out  # only the LISTENING line (already read) ever reaches stdout
        assert err == "", err

    def setUp(self):
        status, _, _ = self.call("POST", "/_control/reset")
        self.assertEqual(status, 200)

    # -- HTTP helpers ----------------------------------------------------------------------------------------

    def connect(self, timeout=10):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def call(self, method, path, body=None, headers=None, conn=None, timeout=10):
        own = conn is None
        conn = conn or self.connect(timeout)
        try:
            if isinstance(body, (dict, list)):
                body = json.dumps(body)
            if isinstance(body, str):
                body = body.encode("utf-8")
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            if own:
                conn.close()

    def control(self, path, body=None):
        method = "GET" if body is None else "POST"
        status, _, data = self.call(method, "/_control/" + path, body)
        self.assertEqual(status, 200, data)
        return json.loads(data)

    def token(self, key=FULL_KEY, key_name=FULL, resource=None, se=None):
        resource = resource or f"https://127.0.0.1:{self.port}/"
        return make_token(key, resource, se or int(time.time()) + 3600, key_name)

    def send(self, properties=None, tags=None, auth=None, path=None, content_type="application/json;charset=utf-8",
             fmt="template", extra=None, conn=None, timeout=10):
        headers = {"Authorization": auth if auth is not None else self.token()}
        if content_type is not None:
            headers["Content-Type"] = content_type
        if fmt is not None:
            headers["ServiceBusNotification-Format"] = fmt
        if tags is not None:
            headers["ServiceBusNotification-Tags"] = tags
        headers.update(extra or {})
        body = properties if isinstance(properties, (bytes, str)) else json.dumps(STORY if properties is None
                                                                                     else properties)
        return self.call("POST", path or f"/{self.hub}/messages/?api-version=2020-06", body, headers, conn, timeout)

    def delivered(self):
        return {(d["installationId"], d["template"]): d["payload"] for d in self.control("deliveries")}

    def assert_401(self, status, headers, body, wording=None):
        self.assertEqual(status, 401)
        self.assertEqual(headers["content-type"], "application/xml; charset=utf-8")
        text = body.decode("utf-8")
        self.assertRegex(text, XML_401)
        if wording:
            self.assertIn(wording, text)


class SasVectorTests(HubTestCase):
    """§12.1: V1/V2/V3/W1 verify, N1/N3/N4/N5 and malformed tokens are rejected with 401."""

    hub = "myhub"
    extra_args = ("--now", "1690000000")

    @classmethod
    def config(cls):
        config = super().config()
        config["rules"][0]["key"] = VECTOR_KEY
        return config

    def vector_send(self, auth, path="/myhub/messages/?api-version=2020-06", host=VECTOR_HOST):
        return self.send(auth=auth, path=path, extra={"Host": host})

    def test_signing_function_reproduces_the_vectors(self):
        mac = hmac.new(b"mysecretkey", b"mydata", hashlib.sha256).digest()
        self.assertEqual(base64.b64encode(mac).decode(), "u0JTQtSbhCo8r7+Yr/RNiJOs7/VwDireHAXovvLBbXo=")
        self.assertEqual(hub_double.sign(VECTOR_KEY, "https%3A%2F%2Fcontoso-test.servicebus.windows.net%2F",
                                         "1700000000"), "WK8jpQW+j6zw0R2VUJsGpiFLxngz+Mul7g+MkkR8ahI=")
        self.assertEqual(hub_double.sign(VECTOR_KEY, "https%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub",
                                         "1700000000"), "sBwNOu50vAx7rWYQJwgGD8p7LGgLyNiSSTO8DcRj2Yg=")
        self.assertEqual(make_token(VECTOR_KEY, f"https://{VECTOR_HOST}/", 1700000000), V1)
        self.assertEqual(make_token(VECTOR_KEY, f"https://{VECTOR_HOST}/MyHub", 1700000000, upper_hex=False), V2)

    def test_v1_js_style_namespace_audience(self):
        status, headers, body = self.vector_send(V1)
        self.assertEqual((status, body), (201, b""))
        self.assertEqual(len(self.control("deliveries")), 4)  # no tag header: every template registration

    def test_v2_hub_audience_lowercase_hex_in_both_field_orders(self):
        for token in (V2, V2_PYR_ORDER):
            with self.subTest(token=token[:40]):
                status, _, body = self.vector_send(token, path="/MyHub/messages?api-version=2020-06")
                self.assertEqual((status, body), (201, b""))

    def test_v3_dotnet_style_request_path_with_trailing_slash_signed(self):
        for token in (V3, V3_NET_ESCAPES):
            status, _, body = self.vector_send(token, path="/myhub/messages?api-version=2020-06")
            self.assertEqual((status, body), (201, b""))
            status, _, _ = self.vector_send(token, path="/myhub/messages/?api-version=2020-06")
            self.assertEqual(status, 201)

    def test_w1_raw_sr_is_signed_not_a_normalized_one(self):
        status, _, _ = self.vector_send(W1, path="/MyHub/messages?api-version=2020-06")
        self.assertEqual(status, 201)

    def test_field_names_are_case_insensitive(self):
        token = V1.replace("sr=", "SR=").replace("&sig=", "&Sig=")
        self.assertEqual(self.vector_send(token)[0], 201)

    def test_n1_base64_decoded_key_is_rejected(self):
        token = V1.replace("WK8jpQW%2Bj6zw0R2VUJsGpiFLxngz%2BMul7g%2BMkkR8ahI%3D", quote(N1_SIG, safe=""))
        self.assert_401(*self.vector_send(token), wording="InvalidSignature: The token has an invalid signature..")
        self.assertEqual(self.control("deliveries"), [])

    def test_n3_expired_token_is_rejected(self):
        for now in (1700000000, 1700000001):
            self.control("clock", {"now": now})
            self.assert_401(*self.vector_send(V1), wording="ExpiredToken")
        self.control("clock", {"now": 1699999999})
        self.assertEqual(self.vector_send(V1)[0], 201)

    def test_clock_skew_moves_the_hub_clock(self):
        self.control("clock", {"now": 1690000000, "skew_seconds": 10000000})
        self.assert_401(*self.vector_send(V1), wording="ExpiredToken")

    def test_n4_token_for_another_namespace_or_hub_is_rejected(self):
        for resource in ("https://other-ns.servicebus.windows.net/", f"https://{VECTOR_HOST}/otherhub",
                         f"https://{VECTOR_HOST}/myhubx", f"https://{VECTOR_HOST}/myhub/messages/extra",
                         f"https://{VECTOR_HOST}/myhub/installations"):
            with self.subTest(resource=resource):
                token = make_token(VECTOR_KEY, resource, 1700000000)
                self.assert_401(*self.vector_send(token), wording="InvalidAudience")
        self.assertEqual(self.control("deliveries"), [])
        # and the host must be the one the request went to
        self.assert_401(*self.vector_send(V1, host=f"127.0.0.1:{self.port}"), wording="InvalidAudience")

    def test_scheme_and_port_of_the_audience_are_handled(self):
        for resource in (f"sb://{VECTOR_HOST}/myhub", f"http://{VECTOR_HOST}/myhub/messages?api-version=2020-06"):
            with self.subTest(resource=resource):
                self.assertEqual(self.vector_send(make_token(VECTOR_KEY, resource, 1700000000))[0], 201)
        local = make_token(VECTOR_KEY, f"https://127.0.0.1:{self.port}/myhub", 1700000000)
        self.assertEqual(self.vector_send(local, host=f"127.0.0.1:{self.port}")[0], 201)
        wrong_port = make_token(VECTOR_KEY, f"https://127.0.0.1:{self.port + 1}/myhub", 1700000000)
        self.assert_401(*self.vector_send(wrong_port, host=f"127.0.0.1:{self.port}"), wording="InvalidAudience")

    def test_n5_listen_rule_name_with_full_key_signature_is_rejected(self):
        token = V1.replace("skn=DefaultFullSharedAccessSignature", "skn=DefaultListenSharedAccessSignature")
        self.assert_401(*self.vector_send(token), wording="InvalidSignature")
        self.assertEqual(self.control("deliveries"), [])

    def test_malformed_or_missing_tokens_are_rejected(self):
        cases = {
            "no header": None,
            "bearer": "Bearer abc",
            "lowercase scheme": V1.replace("SharedAccessSignature", "sharedaccesssignature"),
            "no sig": re.sub(r"&sig=[^&]*", "", V1),
            "no se": re.sub(r"&se=[^&]*", "", V1),
            "unknown key name": V1.replace("skn=DefaultFullSharedAccessSignature", "skn=RootManageSharedAccessKey"),
            "sig with + turned into a space": V1.replace("%2B", "%20"),
            "duplicate field": V1 + "&se=1800000000",
        }
        for name, token in cases.items():
            with self.subTest(name):
                headers = {"Host": VECTOR_HOST, "Content-Type": "application/json",
                           "ServiceBusNotification-Format": "template"}
                if token is not None:
                    headers["Authorization"] = token
                self.assert_401(*self.call("POST", "/myhub/messages?api-version=2020-06", json.dumps(STORY), headers))
        self.assertEqual(self.control("deliveries"), [])

    def test_unencoded_plus_and_slash_in_sig_are_taken_literally(self):
        raw = V3.replace("%2F", "/").replace("%2B", "+")  # PY-R leaves "/" unencoded; "+" must never become " "
        self.assertEqual(self.vector_send(raw, path="/myhub/messages?api-version=2020-06")[0], 201)

    def test_listen_key_cannot_send_403_with_empty_body(self):
        token = make_token(LISTEN_KEY, f"https://{VECTOR_HOST}/myhub", 1700000000, key_name=LISTEN)
        status, headers, body = self.vector_send(token)
        self.assertEqual((status, body), (403, b""))
        self.assertEqual(headers["content-length"], "0")
        self.assertRegex(headers["trackingid"], UUID)
        self.assertIn("x-ms-correlation-request-id", headers)
        self.assertEqual(self.control("deliveries"), [])


class SeedScenarioTests(HubTestCase):
    def test_world_story_reaches_the_french_phone_and_the_old_app_only(self):
        status, headers, body = self.send(tags="World")
        self.assertEqual((status, body), (201, b""))
        self.assertEqual(self.delivered(), {
            ("french-phone", "localizednewsTemplate"): {
                "aps": {"alert": "Breaking World News in French!"}, "inAppMessage": "Breaking World News in French!"},
            ("old-app", "genericTemplate"): {"aps": {"alert": "Breaking World News!"}},
        })

    def test_or_expression_reaches_both_categories(self):
        self.assertEqual(self.send(tags="World || Politics")[0], 201)
        self.assertEqual(sorted(self.delivered()), [("english-phone", "localizednewsTemplate"),
                                                    ("french-phone", "localizednewsTemplate"),
                                                    ("old-app", "genericTemplate")])
        self.assertEqual(self.delivered()[("english-phone", "localizednewsTemplate")]["aps"]["alert"],
                         "Breaking World News in English!")

    def test_sports_story_reaches_the_mandarin_phone_with_its_fcm_template(self):
        self.send(tags="Sports")
        self.assertEqual(self.delivered(), {("mandarin-phone", "localizednewsTemplate"): {
            "message": {"notification": {"title": "Breaking World News in Mandarin!"},
                        "data": {"inAppMessage": "Breaking World News in Mandarin!"}}}})

    def test_broadcast_reaches_every_template(self):
        self.send(tags=None)
        self.assertEqual(len(self.delivered()), 4)

    def test_system_tags_and_template_names_select(self):
        cases = {
            "$InstallationId:{mandarin-phone}": [("mandarin-phone", "localizednewsTemplate")],
            "genericTemplate": [("old-app", "genericTemplate")],
            "localizednewsTemplate && !Sports": [("english-phone", "localizednewsTemplate"),
                                                 ("french-phone", "localizednewsTemplate")],
            "(World || Sports) && !genericTemplate": [("french-phone", "localizednewsTemplate"),
                                                      ("mandarin-phone", "localizednewsTemplate")],
            "world": [],  # tags match case-sensitively
            "Technology": [],
        }
        for expression, expected in cases.items():
            with self.subTest(expression):
                self.control("reset", {})
                self.assertEqual(self.send(tags=expression)[0], 201)
                self.assertEqual(sorted(self.delivered()), expected)

    def test_success_response_headers(self):
        status, headers, body = self.send(tags="World")
        self.assertEqual(status, 201)
        self.assertEqual(body, b"")
        self.assertEqual(headers["content-type"], "application/xml; charset=utf-8")
        self.assertEqual(headers["content-length"], "0")
        self.assertRegex(headers["trackingid"], UUID)
        self.assertRegex(headers["x-ms-correlation-request-id"], UUID)
        match = re.fullmatch(rf"http://127\.0\.0\.1:{self.port}/newsgen-test/messages/([0-9a-f]{{32}}-\d{{14}}-\d+-1)"
                             r"\?api-version=2020-06", headers["location"])
        self.assertIsNotNone(match, headers["location"])
        self.assertEqual({d["notificationId"] for d in self.control("deliveries")}, {match.group(1)})

    def test_client_tracking_id_is_echoed(self):
        _, headers, _ = self.send(tags="World", extra={"TrackingId": "1b4e28ba-2fa1-11d2-883f-0016d3cca427"})
        self.assertEqual(headers["trackingid"], "1b4e28ba-2fa1-11d2-883f-0016d3cca427")

    def test_path_without_trailing_slash_and_hub_name_case(self):
        self.assertEqual(self.send(tags="World", path="/newsgen-test/messages?api-version=2020-06")[0], 201)
        self.assertEqual(self.send(tags="World", path="/NewsGen-Test/messages?api-version=2020-06")[0], 201)
        self.assertEqual(len(self.control("deliveries")), 4)

    def test_requests_are_recorded(self):
        self.send(tags="World", extra={"apns-push-type": "alert"})
        [record] = self.control("requests")
        self.assertEqual(record["method"], "POST")
        self.assertEqual(record["path"], "/newsgen-test/messages/")
        self.assertEqual(record["query"], {"api-version": "2020-06"})
        self.assertEqual(record["headers"]["servicebusnotification-format"], "template")
        self.assertEqual(record["headers"]["servicebusnotification-tags"], "World")
        self.assertEqual(json.loads(record["body"]), STORY)
        self.assertEqual(record["status"], 201)
        self.assertIsInstance(record["time"], float)
        delivery = self.control("deliveries")[0]
        self.assertEqual(delivery["headers"], {"apns-push-type": "alert"})
        self.assertEqual(delivery["platform"], "apns")
        self.assertIn("$InstallationId:{french-phone}", delivery["tags"])
        self.assertIn("localizednewsTemplate", delivery["tags"])

    def test_test_send_returns_an_outcome(self):
        status, headers, body = self.send(tags="genericTemplate",
                                          path="/newsgen-test/messages?api-version=2020-06&test")
        self.assertEqual(status, 201)
        self.assertEqual(body.decode(), (
            '<NotificationOutcome xmlns="http://schemas.microsoft.com/netservices/2010/10/servicebus/connect" '
            'xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Success>1</Success><Failure>0</Failure><Results>'
            "<RegistrationResult><ApplicationPlatform>apple</ApplicationPlatform><PnsHandle>channel-old-app"
            "</PnsHandle><RegistrationId>old-app/genericTemplate</RegistrationId><Outcome>The Notification was "
            "successfully sent to the Push Notification System</Outcome></RegistrationResult></Results>"
            "</NotificationOutcome>"))

    def test_test_sends_reach_at_most_ten_and_are_throttled_to_ten_a_minute(self):
        many = [installation(f"editor-{n}", "apns", ["newsroom"], {"t": OLD_APP}) for n in range(12)]
        self.call("POST", "/_control/installations", many)
        status, _, body = self.send(tags="newsroom", path="/newsgen-test/messages?api-version=2020-06&test=true")
        self.assertEqual(status, 201)
        self.assertIn("<Success>10</Success>", body.decode())
        self.assertEqual(body.decode().count("<RegistrationResult>"), 10)
        for _ in range(9):
            self.assertEqual(self.send(tags="newsroom", path="/newsgen-test/messages?api-version=2020-06&test")[0], 201)
        status, headers, _ = self.send(tags="newsroom", path="/newsgen-test/messages?api-version=2020-06&test")
        self.assertEqual(status, 429)
        self.assertTrue(1 <= int(headers["retry-after"]) <= 61)
        # Real sends are not throttled by the test-send limit.
        self.assertEqual(self.send(tags="newsroom")[0], 201)
        self.assertEqual(len([d for d in self.control("deliveries") if d["test"]]), 100)

    def test_template_headers_and_expiry_are_rendered_per_delivery(self):
        phone = installation("iphone", "apns", ["World"], {})
        phone["templates"] = {"t": {"body": OLD_APP, "expiry": "$(apnsExpiration)", "headers": {
            "apns-collapse-id": "$(collapseId)", "apns-expiration": "$(apnsExpiration)",
            "apns-priority": "10", "apns-push-type": "alert"}}}
        self.call("POST", "/_control/installations", phone)
        properties = dict(STORY, collapseId="quake", apnsExpiration="1795975200")
        self.assertEqual(self.send(properties, tags="$InstallationId:{iphone}", extra={"apns-push-type": "background",
                                                                                    "apns-topic": "x"})[0], 201)
        [delivery] = self.control("deliveries")
        self.assertEqual(delivery["headers"], {"apns-push-type": "alert", "apns-topic": "x", "apns-collapse-id": "quake",
                                               "apns-expiration": "1795975200", "apns-priority": "10"})
        self.assertEqual(delivery["expiry"], "1795975200")
        self.assertEqual(delivery["payload"], {"aps": {"alert": "Breaking World News!"}})

    def test_template_headers_are_validated_at_registration(self):
        path = "/newsgen-test/installations/bad?api-version=2020-06"
        auth = {"Authorization": self.token(LISTEN_KEY, LISTEN), "Content-Type": "application/json"}
        cases = [
            ("apns", {"x-custom": "1"}, "must be named apns-*"),
            ("apns", {"apns-priority": "high"}, "apns-priority must be a byte"),
            ("apns", {"apns-expiration": "tomorrow"}, "apns-expiration must be whole seconds"),
            ("apns", {"apns-collapse-id": "$(a) x"}, "bad"),
            ("fcmv1", {"apns-priority": "10"}, "FCM templates carry no headers"),
        ]
        for platform, headers, message in cases:
            body = installation("bad", platform, [], {})
            body["templates"] = {"t": {"body": OLD_APP, "headers": headers}}
            status, _, data = self.call("PUT", path, body, auth)
            self.assertEqual(status, 400, (headers, data))
            if message != "bad":
                self.assertIn(message, data.decode())
        good = installation("bad", "apns", [], {})
        good["templates"] = {"t": {"body": OLD_APP, "headers": {"apns-priority": "$(apnsPriority)", "apns-expiration": "0"}}}
        self.assertEqual(self.call("PUT", path, good, auth)[0], 200)
        status, _, data = self.call("GET", path, None, auth)
        self.assertEqual(json.loads(data)["templates"]["t"]["headers"], {"apns-priority": "$(apnsPriority)",
                                                                         "apns-expiration": "0"})

    def telemetry(self, notification_id, auth=None, query="?api-version=2020-06"):
        return self.call("GET", f"/newsgen-test/messages/{notification_id}{query}", None,
                         {"Authorization": auth if auth is not None else self.token(), "x-ms-version": "2020-06"})

    def test_telemetry_of_a_send_counts_each_platform(self):
        status, headers, _ = self.send(tags="World || Sports")
        notification_id = headers["location"].split("?")[0].rsplit("/", 1)[1]
        status, headers, body = self.telemetry(notification_id)
        self.assertEqual(status, 200, body)
        self.assertEqual(headers["content-type"], "application/xml; charset=utf-8")
        text = body.decode()
        self.assertTrue(text.startswith('<NotificationDetails xmlns="http://schemas.microsoft.com/netservices/2010/10/servicebus/connect"'))
        self.assertIn(f"<NotificationId>{notification_id}</NotificationId>", text)
        self.assertIn("<State>Completed</State>", text)
        self.assertIn("<ApnsOutcomeCounts><Outcome><Name>Success</Name><Count>2</Count></Outcome></ApnsOutcomeCounts>", text)
        self.assertIn("<FcmV1OutcomeCounts><Outcome><Name>Success</Name><Count>1</Count></Outcome></FcmV1OutcomeCounts>", text)
        self.assertIn("<TargetPlatforms>apple,fcmv1</TargetPlatforms>", text)
        self.assertIn("<NotificationBody>{", text)
        # No registration matched: the hub says so.
        _, headers, _ = self.send(tags="Nobody")
        nobody = headers["location"].split("?")[0].rsplit("/", 1)[1]
        self.assertIn("<State>NoTargetFound</State>", self.telemetry(nobody)[2].decode())

    def test_telemetry_errors_as_the_hub_answers_them(self):
        status, _, body = self.telemetry("0123456789abcdef-unknown")
        self.assertEqual(status, 404)
        self.assertIn("Telemetry does not exist", body.decode())
        self.assertEqual(self.telemetry("x", query="")[0], 400)
        self.assertEqual(self.telemetry("x", auth="SharedAccessSignature sr=a&sig=b&se=1&skn=c")[0], 401)
        status, _, body = self.telemetry("x", auth=self.token(LISTEN_KEY, LISTEN))
        self.assertEqual((status, body), (403, b""))
        self.assertEqual(self.call("DELETE", "/newsgen-test/messages/x?api-version=2020-06", None,
                                   {"Authorization": self.token()})[0], 405)

    def test_telemetry_is_missing_while_processing_and_can_be_set(self):
        self.call("POST", "/_control/telemetry", {"delay_ms": 400})
        _, headers, _ = self.send(tags="World")
        notification_id = headers["location"].split("?")[0].rsplit("/", 1)[1]
        self.assertEqual(self.telemetry(notification_id)[0], 404)
        time.sleep(0.5)
        self.assertEqual(self.telemetry(notification_id)[0], 200)
        self.call("POST", "/_control/telemetry", {"notificationId": notification_id, "state": "Abandoned",
                                                   "outcomes": {"apns": {"Success": 1, "WrongToken": 1}}})
        text = self.telemetry(notification_id)[2].decode()
        self.assertIn("<State>Abandoned</State>", text)
        self.assertIn("<Outcome><Name>WrongToken</Name><Count>1</Count></Outcome>", text)
        status, _, _ = self.call("POST", "/_control/telemetry", {"notificationId": "x", "outcomes": {"apns": {"a": "1"}}})
        self.assertEqual(status, 400)

    def test_installations_crud_with_the_listen_key(self):
        listen = self.token(LISTEN_KEY, LISTEN)
        path = "/newsgen-test/installations/new-phone?api-version=2020-06"
        body = installation("new-phone", "apns", ["Science"], {"localizednewsTemplate": FRENCH})
        status, headers, data = self.call("PUT", path, body, {"Authorization": listen,
                                                               "Content-Type": "application/json"})
        self.assertEqual((status, data, headers["content-type"]), (200, b"", "application/xml; charset=utf-8"))
        status, _, data = self.call("GET", path, None, {"Authorization": listen})
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(data), {
            "installationId": "new-phone", "pushChannel": "channel-new-phone", "pushChannelExpired": False,
            "platform": "apns", "expirationTime": "9999-12-31T23:59:59.9999999Z", "tags": ["Science"],
            "templates": {"localizednewsTemplate": {"body": FRENCH, "tags": ["localizednewsTemplate"]}}})
        self.send(tags="Science")
        self.assertEqual(list(self.delivered()), [("new-phone", "localizednewsTemplate")])
        self.assertEqual(self.call("DELETE", path, None, {"Authorization": listen})[0], 204)
        status, headers, data = self.call("GET", path, None, {"Authorization": listen})
        self.assertEqual(status, 404)
        self.assertRegex(data.decode(), r"^<Error><Code>404</Code><Detail>Installation not found\.TrackingId:")
        self.assertEqual(self.call("DELETE", path, None, {"Authorization": listen})[0], 204)

    def test_installation_put_validation(self):
        full = self.token()
        path = "/newsgen-test/installations/p1?api-version=2020-06"
        bad = {
            "id mismatch": installation("p2", "apns", [], {}),
            "bad template": installation("p1", "apns", [], {"t": '{"aps":{"alert":"{\'n=\' + #(c)}"}}'}),
            "bad tag": installation("p1", "apns", ["has space"], {}),
            "bad platform": installation("p1", "symbian", [], {}),
            "not json": "{",
        }
        for name, body in bad.items():
            with self.subTest(name):
                status, _, data = self.call("PUT", path, body, {"Authorization": full})
                self.assertEqual(status, 400, data)
        self.assertEqual(self.call("PUT", path, {"installationId": "p1", "platform": "apns", "pushChannel": "x"},
                                   {"Authorization": full})[0], 200)
        self.assertEqual(self.call("PUT", path, installation("p1", "apns", [], {}),
                                   {"Authorization": "SharedAccessSignature sr=x&sig=y&se=1&skn=z"})[0], 401)

    def test_control_installations_add_and_replace(self):
        self.control("installations", [installation("french-phone", "apns", ["Sports"], {"localizednewsTemplate": FRENCH})])
        self.send(tags="World")
        self.assertEqual(list(self.delivered()), [("old-app", "genericTemplate")])
        self.control("reset", {})  # back to the config's installations
        self.send(tags="World")
        self.assertEqual(len(self.delivered()), 2)


class ValidationTests(HubTestCase):
    def assert_400(self, response, detail=None):
        status, headers, body = response
        self.assertEqual(status, 400, body)
        self.assertRegex(body.decode(), r"^<Error><Code>400</Code><Detail>.+TrackingId:")
        if detail:
            self.assertIn(detail, body.decode())

    def test_bad_requests(self):
        cases = {
            "no api-version": dict(path="/newsgen-test/messages"),
            "empty api-version": dict(path="/newsgen-test/messages?api-version="),
            "no format": dict(fmt=None),
            "native format": dict(fmt="apple"),
            "no content type": dict(content_type=None),
            "text content type": dict(content_type="text/plain"),
            "latin-1 charset": dict(content_type="application/json; charset=iso-8859-1"),
            "not json": dict(properties="{"),
            "array body": dict(properties="[]"),
            "number value": dict(properties={"News_English": 3}),
            "object value": dict(properties={"News_English": {"x": "y"}}),
            "duplicate key": dict(properties='{"a":"1","a":"2"}'),
            "case-duplicate key": dict(properties='{"a":"1","A":"2"}'),
            "not utf-8": dict(properties=b'{"a":"\xff"}'),
            "dangling and": dict(tags="World &&"),
            "single bar": dict(tags="World | Politics"),
            "unclosed paren": dict(tags="(World || Politics"),
            "empty tag header": dict(tags=" "),
            "bad tag characters": dict(tags="World*"),
            "21 or-tags": dict(tags="||".join(f"t{i}" for i in range(21))),
            "7 tags with and": dict(tags="a && b && c && d && e && f && g"),
            "7 tags with not": dict(tags="a || b || c || d || e || f || !g"),
        }
        for name, kwargs in cases.items():
            with self.subTest(name):
                self.assert_400(self.send(**kwargs))
        self.assertEqual(self.control("deliveries"), [])

    def test_tag_limits_accept_the_maximum(self):
        self.assertEqual(self.send(tags="||".join(["World"] + [f"t{i}" for i in range(19)]))[0], 201)
        self.assertEqual(self.send(tags="World && !b || c && d || e && f")[0], 201)
        self.assertEqual(self.send(tags="(World)")[0], 201)
        self.assertEqual(len(self.control("deliveries")), 6)

    def test_other_accepted_content_types(self):
        for content_type in ("application/json", "application/json; charset=UTF-8", "Application/JSON;charset=utf-8"):
            self.assertEqual(self.send(tags="World", content_type=content_type)[0], 201)

    def test_413_above_64_kb(self):
        padding = 65536 - len(json.dumps({"messageParam": ""}))
        exact = json.dumps({"messageParam": "x" * padding})
        self.assertEqual(len(exact.encode()), 65536)
        self.assertEqual(self.send(properties=exact, tags="genericTemplate")[0], 201)
        status, headers, body = self.send(properties=json.dumps({"messageParam": "x" * (padding + 1)}))
        self.assertEqual(status, 413)
        self.assertIn("<Code>413</Code>", body.decode())
        self.assertEqual(len(self.control("deliveries")), 1)

    def test_413_comes_after_auth_and_rights(self):
        big = json.dumps({"messageParam": "x" * 70000})
        self.assertEqual(self.send(properties=big, auth="SharedAccessSignature sr=a&sig=b&se=1&skn=c")[0], 401)
        self.assertEqual(self.send(properties=big, auth=self.token(LISTEN_KEY, LISTEN))[0], 403)

    def test_unknown_paths_and_methods(self):
        self.assertEqual(self.send(path="/other-hub/messages?api-version=2020-06")[0], 404)
        status, headers, _ = self.call("GET", "/newsgen-test/messages?api-version=2020-06")
        self.assertEqual((status, headers["allow"]), (405, "POST"))
        self.assertEqual(self.call("GET", "/_control/nothing")[0], 404)


class TemplateVectorTests(HubTestCase):
    """§12.2 T1-T16 through real sends; T17 rejected at registration."""

    VECTORS = [
        ("t1", '{"aps":{"alert":"$(message)"}}', {"message": "Hello!"}, {"aps": {"alert": "Hello!"}}),
        ("t2", FRENCH, STORY, {"aps": {"alert": "Breaking World News in French!"},
                               "inAppMessage": "Breaking World News in French!"}),
        ("t2b", FRENCH.replace("French", "Mandarin"), STORY, {"aps": {"alert": "Breaking World News in Mandarin!"},
                                                              "inAppMessage": "Breaking World News in Mandarin!"}),
        ("t3", FRENCH, {"News_English": "Hello"}, {"aps": {"alert": ""}, "inAppMessage": ""}),
        ("t4", '{"aps":{"alert":"$(news_french)"}}', {"News_French": "Bonjour"}, {"aps": {"alert": "Bonjour"}}),
        ("t5", '{"aps":{"alert":".(title, 20)"}}', {"title": "This is the title line"},
         {"aps": {"alert": "This is the title..."}}),
        ("t6", '{"aps":{"alert":"$(title, 20)"}}', {"title": "This is the title line"},
         {"aps": {"alert": "This is the title li"}}),
        ("t7", '{"aps":{"alert":"$(m)","badge":"#(badge)"}}', {"m": "x", "badge": "40"},
         {"aps": {"alert": "x", "badge": 40}}),
        ("t8", '{"aps":{"badge":"#(badge)"}}', {"badge": "forty"}, {"aps": {"badge": "forty"}}),
        ("t9", '{"aps":{"badge":"#(badge)"}}', {"badge": "007"}, {"aps": {"badge": "007"}}),
        ("t10", '{"aps":{"alert":"{\'Hi, \' + $(name)}"}}', {"name": "Bob"}, {"aps": {"alert": "Hi, Bob"}}),
        ("t11", '{"aps":{"alert":"{$(prop) + \' - \' + $(prop2)}"}}', {"prop": "a", "prop2": "b"},
         {"aps": {"alert": "a - b"}}),
        ("t12", '{"aps":{"alert":"Some other text. $(message)"}}', {"message": "hi"},
         {"aps": {"alert": "Some other text. $(message)"}}),
        ("t13", '{"aps":{"alert":"$(m)"}}', {"m": 'He said "hi"\nbye'}, {"aps": {"alert": 'He said "hi"\nbye'}}),
        ("t14", '{"aps":{"alert":".(title, 30)"}}', {"title": "This is the title line"},
         {"aps": {"alert": "This is the title line"}}),
        ("t15", '{"aps":{"alert":"{\'It\'\'s \' + $(x)}"}}', {"x": "ok"}, {"aps": {"alert": "It's ok"}}),
        ("t16", '{"a":"%(q)"}', {"q": "a b&c/é"}, {"a": "a%20b%26c%2F%C3%A9"}),
        ("extra-number", '{"n":"#(n)","f":"#(f)","list":["$(n)", 3, true, null]}', {"n": "12", "f": "1.5e3"},
         {"n": 12, "f": 1500.0, "list": ["12", 3, True, None]}),
        ("extra-empty-clip", '{"a":"$(t, 0)","b":".(t, 2)","c":"#(missing)"}', {"t": "abcdef"},
         {"a": "", "b": "..", "c": ""}),
    ]

    def test_vectors_through_real_sends(self):
        self.control("installations", [
            installation(name, "apns", [], {"tpl": body}) for name, body, _, _ in self.VECTORS])
        for name, _, properties, expected in self.VECTORS:
            with self.subTest(name):
                before = len(self.control("deliveries"))
                status, _, body = self.send(properties=properties, tags="$InstallationId:{" + name + "}")
                self.assertEqual(status, 201, body)
                deliveries = self.control("deliveries")[before:]
                self.assertEqual([(d["installationId"], d["payload"]) for d in deliveries], [(name, expected)])
                self.assertEqual(json.loads(deliveries[0]["payloadText"]), expected)

    def test_t17_and_other_invalid_templates_are_refused_at_registration(self):
        for body in ('{"aps":{"alert":"{\'n=\' + #(c)}"}}', '{"a":"$body"}', '{"a":"$(x) "}', '{"a":".(x)"}',
                     '{"a":"#(x, 3)"}', '{"a":"$(bad-name)"}', '{"a":"{$(x)"}', '{"a":"{\'open + $(x)}"}',
                     '"just a string"'):
            with self.subTest(body):
                status, _, data = self.call("POST", "/_control/installations",
                                            [installation("x", "apns", [], {"tpl": body})])
                self.assertEqual(status, 400, data)
                self.assertIn("error", json.loads(data))


class FaultTests(HubTestCase):
    def test_429_with_retry_after_then_normal(self):
        self.control("faults", [{"status": 429, "headers": {"Retry-After": "1"}}])
        status, headers, body = self.send(tags="World")
        self.assertEqual(status, 429)
        self.assertEqual(headers["retry-after"], "1")
        self.assertIn("<Code>429</Code>", body.decode())
        self.assertEqual(self.control("deliveries"), [])
        self.assertEqual(self.send(tags="World")[0], 201)
        self.assertEqual(len(self.control("deliveries")), 2)
        requests = self.control("requests")
        self.assertEqual([(r["status"], r["fault"]) for r in requests], [(429, True), (201, False)])

    def test_503_twice_with_custom_body_and_legacy_403_throttle(self):
        self.control("faults", [{"status": 503, "body": "busy", "times": 2},
                                {"status": 403, "headers": {"Retry-After": "2"}, "body": ""}])
        self.assertEqual(self.send()[0:3:2], (503, b"busy"))
        self.assertEqual(self.send()[0:3:2], (503, b"busy"))
        status, headers, body = self.send()
        self.assertEqual((status, headers["retry-after"], body), (403, "2", b""))
        self.assertEqual(self.send(tags="World")[0], 201)
        self.assertEqual(self.control("stats")["pendingFaults"], 0)

    def test_drop_closes_the_connection_without_a_response(self):
        self.control("faults", [{"drop": True}])
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionResetError)):
            self.send(tags="World")
        [record] = self.control("requests")
        self.assertEqual((record["status"], record["dropped"]), (None, True))
        self.assertEqual(self.control("deliveries"), [])
        self.assertEqual(self.send(tags="World")[0], 201)

    def test_delay_makes_the_client_time_out(self):
        self.control("faults", [{"status": 201, "delay_ms": 1500}])
        started = time.monotonic()
        with self.assertRaises(socket.timeout):
            self.send(tags="World", timeout=0.4)
        self.assertLess(time.monotonic() - started, 1.4)
        time.sleep(1.3)
        self.assertEqual(self.control("deliveries"), [])  # a faulted request delivers nothing

    def test_delay_only_fault_still_delivers(self):
        self.control("faults", [{"delay_ms": 300}])
        started = time.monotonic()
        self.assertEqual(self.send(tags="World")[0], 201)
        self.assertGreaterEqual(time.monotonic() - started, 0.3)
        self.assertEqual(len(self.control("deliveries")), 2)

    def test_latency_applies_to_every_data_plane_request(self):
        self.control("latency", {"ms": 250})
        started = time.monotonic()
        self.send(tags="World")
        self.call("GET", "/newsgen-test/installations/x?api-version=2020-06", None, {"Authorization": self.token()})
        self.assertGreaterEqual(time.monotonic() - started, 0.5)

    def test_bad_fault_lists_are_refused(self):
        for body in ([{"status": "429"}], [{"times": 0, "status": 500}], [{}], [{"status": 500, "drop": 1}]):
            status, _, _ = self.call("POST", "/_control/faults", body)
            self.assertEqual(status, 400)


class ConnectionTests(HubTestCase):
    def test_keep_alive_reuses_one_connection(self):
        conn = self.connect()
        try:
            for _ in range(3):
                status, headers, _ = self.send(tags="World", conn=conn)
                self.assertEqual(status, 201)
                self.assertNotIn("connection", headers)
        finally:
            conn.close()
        stats = self.control("stats")
        self.assertEqual((stats["connections"], stats["requests"]), (1, 3))
        self.assertEqual(len({r["connection"] for r in self.control("requests")}), 1)
        self.send(tags="World")
        self.assertEqual(self.control("stats")["connections"], 2)

    def test_chunked_request_body(self):
        conn = self.connect()
        try:
            conn.request("POST", "/newsgen-test/messages?api-version=2020-06",
                         body=iter([b'{"messageParam":', b'"chunked"}']), encode_chunked=True,
                         headers={"Authorization": self.token(), "Content-Type": "application/json",
                                  "ServiceBusNotification-Format": "template",
                                  "ServiceBusNotification-Tags": "genericTemplate"})
            response = conn.getresponse()
            response.read()
            self.assertEqual(response.status, 201)
            self.assertEqual(self.send(tags="World", conn=conn)[0], 201)  # still in step after a chunked body
        finally:
            conn.close()
        first = self.control("deliveries")[0]
        self.assertEqual((first["installationId"], first["payload"]), ("old-app", {"aps": {"alert": "chunked"}}))
        self.assertEqual(self.control("stats")["connections"], 1)

    def test_error_responses_keep_the_connection_usable(self):
        conn = self.connect()
        try:
            self.assertEqual(self.send(tags="World &&", conn=conn)[0], 400)
            self.assertEqual(self.send(auth="x", conn=conn)[0], 401)
            self.control("faults", [{"status": 429, "headers": {"Retry-After": "1"}}])
            self.assertEqual(self.send(conn=conn)[0], 429)
            self.assertEqual(self.send(tags="World", conn=conn)[0], 201)
        finally:
            conn.close()
        self.assertEqual(self.control("stats")["connections"], 1)


class FreeTierTests(HubTestCase):
    tier = "free"

    def test_no_telemetry_on_free_tier(self):
        status, _, body = self.call("GET", "/newsgen-test/messages/anything?api-version=2020-06", None,
                                    {"Authorization": self.token()})
        self.assertEqual(status, 403)
        self.assertIn("not enabled for your SKU", body.decode())

    def test_no_location_on_free_tier(self):
        status, headers, _ = self.send(tags="World")
        self.assertEqual(status, 201)
        self.assertNotIn("location", headers)
        self.assertRegex(headers["trackingid"], UUID)
        self.assertEqual(len(self.control("deliveries")), 2)


class CommandLineTests(unittest.TestCase):
    def run_double(self, *args, config=None):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "c.json")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(config if config is not None else json.dumps(HubTestCase.config()))
            return subprocess.run([sys.executable, SCRIPT, "--config", path, *args], capture_output=True,
                                  text=True, timeout=20)

    def test_refuses_any_other_bind_address(self):
        for host in ("0.0.0.0", "localhost", "::1"):
            result = self.run_double("--host", host)
            self.assertEqual((result.returncode, result.stdout), (2, ""))
            self.assertIn("127.0.0.1 only", result.stderr)

    def test_bad_configs_are_explained(self):
        cases = {
            "{": "invalid JSON",
            json.dumps({"hub": "h", "rules": []}): "'rules'",
            json.dumps({"hub": "h", "tier": "premium", "rules": [{"name": "a", "key": "k", "rights": []}]}): "'tier'",
            json.dumps({"hub": "h", "rules": [{"name": "a", "key": "k", "rights": ["Write"]}]}): "'rights'",
        }
        for text, wording in cases.items():
            with self.subTest(text):
                result = self.run_double(config=text)
                self.assertEqual((result.returncode, result.stdout), (2, ""))
                self.assertIn(wording, result.stderr)

    def test_sigint_stops_cleanly_and_secrets_are_never_printed(self):
        double = HubProcess(HubTestCase.config(), ("--verbose",))
        conn = http.client.HTTPConnection("127.0.0.1", double.port, timeout=10)
        token = make_token(FULL_KEY, f"https://127.0.0.1:{double.port}/", int(time.time()) + 600)
        conn.request("POST", "/newsgen-test/messages?api-version=2020-06", json.dumps(STORY),
                     {"Authorization": token, "Content-Type": "application/json",
                      "ServiceBusNotification-Format": "template"})
        self.assertEqual(conn.getresponse().status, 201)
        conn.close()
        code, out, err = double.stop(signal.SIGINT)
        self.assertEqual((code, out), (0, ""))
        self.assertIn("POST /newsgen-test/messages -> 201", err)
        for secret in (FULL_KEY, LISTEN_KEY, token.split("sig=")[1].split("&")[0]):
            self.assertNotIn(secret, err)


class UnitTests(unittest.TestCase):
    def test_tag_expression_vectors(self):
        cases = [
            ("(follows_RedSox || follows_Cardinals) && location_Boston", {"follows_RedSox", "location_Boston"}, True),
            ("(follows_RedSox || follows_Cardinals) && location_Boston", {"follows_Cardinals"}, False),
            ("location_Boston && !follows_Cardinals", {"location_Boston"}, True),
            ("location_Boston && !follows_Cardinals", {"location_Boston", "follows_Cardinals"}, False),
            ("abc||def", {"def"}, True),
            ("$InstallationId:{abc-123}", {"$InstallationId:{abc-123}"}, True),
            ("a || b && c", {"b"}, False),
            ("a || b && c", {"a"}, True),
            ("a || b", {"a"}, True),
            ("!!a", {"a"}, True),
            ("!(a || b)", {"c"}, True),
        ]
        for text, tags, expected in cases:
            with self.subTest(text=text, tags=tags):
                self.assertEqual(hub_double.TagExpression(text).matches(tags), expected)

    def test_tag_expression_limits(self):
        hub_double.TagExpression("||".join(f"t{i}" for i in range(20)))
        hub_double.TagExpression("a && b && c && d && e && f")
        for text in ("||".join(f"t{i}" for i in range(21)), "a && b && c && d && e && f && g", "a b", "()", "a)"):
            with self.subTest(text):
                with self.assertRaises(hub_double.InputError):
                    hub_double.TagExpression(text)

    def test_render_keeps_keys_and_non_strings(self):
        template = hub_double.parse_device_template('{"$(k)":"$(v)","n":1.5,"b":false}', "test")
        self.assertEqual(hub_double.render_template(template, {"V": "x"}), {"$(k)": "x", "n": 1.5, "b": False})

    def test_default_value_syntax(self):
        template = hub_double.parse_device_template('{"a":"$(p:{none \\\\} here})","b":"$(q:{d})"}', "test")
        self.assertEqual(hub_double.render_template(template, {"q": "given"}), {"a": "none } here", "b": "given"})

    def test_scope_matching(self):
        segments = ["myhub", "messages"]
        self.assertTrue(hub_double.scope_matches("https%3A%2F%2Fns.example%2F", "ns.example", segments))
        self.assertTrue(hub_double.scope_matches("https%3A%2F%2Fns.example%2FMyHub%2F", "NS.example", segments))
        self.assertTrue(hub_double.scope_matches("https%3A%2F%2Fns.example", "ns.example:443", segments))
        self.assertFalse(hub_double.scope_matches("https%3A%2F%2Fns.example%3A444", "ns.example:443", segments))
        self.assertFalse(hub_double.scope_matches("https%3A%2F%2Fns.example%2Fmyhu", "ns.example", segments))
        self.assertFalse(hub_double.scope_matches("", "ns.example", segments))


if __name__ == "__main__":
    unittest.main()
