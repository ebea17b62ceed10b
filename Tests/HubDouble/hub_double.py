#!/usr/bin/env python3
"""A local test double of an Azure Notification Hubs hub, for newsgen's end-to-end tests.

It speaks the REST data plane that `newsgen publish` uses (template sends, installations) on 127.0.0.1 only,
verifies SharedAccessSignature tokens the way the live service must (as Microsoft's public Notification Hubs REST
reference describes sends, installations, tags, templates and errors), renders every matching device
template and records the result, and offers an unauthenticated control plane under /_control/ through which
tests read what happened and inject faults.

Usage:  python3 hub_double.py --config CONFIG.json [--port 0] [--now EPOCH] [--verbose]

Standard library only. Nothing but the line "LISTENING <port>" is written to stdout; with --verbose one line
per request goes to stderr (never a header value, key or signature).
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import hashlib
import hmac
import json
import math
import re
import signal
import socket
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, quote, unquote, unquote_to_bytes, urlsplit

LOOPBACK = "127.0.0.1"
MAX_SEND_BODY = 65536  # bytes; larger template sends get 413
MAX_READ_BODY = 8 * 1024 * 1024
MAX_TEST_SENDS_PER_MINUTE = 10  # debug sends (`test` flag) per minute
MAX_TEST_DELIVERIES = 10  # a debug send reaches at most this many registrations  # anything larger is refused without reading it
KNOWN_RIGHTS = ("Listen", "Manage", "Send")
KNOWN_PLATFORMS = ("apns", "fcmv1", "gcm", "wns", "mpns", "adm", "baidu", "browser", "xiaomi")
TIERS = ("free", "basic", "standard")
# Telemetry's per-platform element names (<ApnsOutcomeCounts>, …) and TargetPlatforms names.
PLATFORM_ELEMENTS = {"apns": "Apns", "fcmv1": "FcmV1", "gcm": "Gcm", "wns": "Wns", "mpns": "Mpns", "adm": "Adm",
                     "baidu": "Baidu", "browser": "Browser", "xiaomi": "Xiaomi"}
PLATFORM_NAMES = {"apns": "apple", "fcmv1": "fcmv1", "gcm": "gcm", "wns": "windows", "mpns": "windowsphone"}
XML_CONTENT_TYPE = "application/xml; charset=utf-8"
JSON_CONTENT_TYPE = "application/json; charset=utf-8"


# ---------------------------------------------------------------------------------------------------------------
# Strict JSON helpers
# ---------------------------------------------------------------------------------------------------------------


class InputError(ValueError):
    """Something a client sent (or a config file holds) is not acceptable; the message says what and why."""


def _reject_constant(name: str):
    raise InputError(f"{name} is not valid JSON")


def _pairs_without_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise InputError(f"the JSON object has the key {json.dumps(key)} twice")
        result[key] = value
    return result


def strict_json_loads(text: str):
    """json.loads without NaN/Infinity and without duplicate object keys."""
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_pairs_without_duplicates)
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}") from None


# ---------------------------------------------------------------------------------------------------------------
# Tags and tag expressions
# ---------------------------------------------------------------------------------------------------------------

TAG_RE = re.compile(r"^(\$(InstallationId|UserId):\{[-_@#.:=\w]+\}|[-_@#.:\w]+)$")
MAX_TAG_LENGTH = 120
MAX_TAGS_PER_INSTALLATION = 60
MAX_TAGS_OR_ONLY = 20
MAX_TAGS_OTHERWISE = 6


def check_tag(tag, where: str) -> str:
    if not isinstance(tag, str):
        raise InputError(f"{where}: a tag must be a string, not {json.dumps(tag)}")
    if len(tag) > MAX_TAG_LENGTH:
        raise InputError(f"{where}: the tag {tag[:40]!r}… is longer than {MAX_TAG_LENGTH} characters")
    if not TAG_RE.match(tag):
        raise InputError(
            f"{where}: the tag {tag!r} has characters a tag cannot have; allowed are letters, digits and "
            "_ @ # . : - (or the system forms $InstallationId:{id} and $UserId:{id})")
    return tag


class TagExpression:
    """A parsed ServiceBusNotification-Tags value. `&&` binds tighter than `||`; `!` is prefix; parentheses group."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = self._tokenize(text)
        self.position = 0
        if not self.tokens:
            raise InputError("the ServiceBusNotification-Tags header is empty; omit it to broadcast")
        self.tree = self._parse_or()
        if self.position != len(self.tokens):
            kind, value = self.tokens[self.position]
            raise InputError(f"unexpected {value!r} in the tag expression {text!r}")
        tag_count = sum(1 for kind, _ in self.tokens if kind == "tag")
        or_only = all(kind in ("tag", "or", "(", ")") for kind, _ in self.tokens)
        limit = MAX_TAGS_OR_ONLY if or_only else MAX_TAGS_OTHERWISE
        if tag_count > limit:
            rule = "only ||" if or_only else "&& or !"
            raise InputError(
                f"the tag expression has {tag_count} tags; an expression with {rule} may have at most {limit}")
        self.tag_count = tag_count

    @staticmethod
    def _tokenize(text: str):
        tokens = []
        i = 0
        while i < len(text):
            c = text[i]
            if c.isspace():
                i += 1
            elif text.startswith("&&", i):
                tokens.append(("and", "&&"))
                i += 2
            elif text.startswith("||", i):
                tokens.append(("or", "||"))
                i += 2
            elif c in "&|":
                raise InputError(f"a single {c!r} at offset {i} of the tag expression {text!r}; use {c * 2}")
            elif c in "!()":
                tokens.append((c if c != "!" else "not", c))
                i += 1
            else:
                j = i
                while j < len(text) and not text[j].isspace() and text[j] not in "&|!()":
                    j += 1
                tokens.append(("tag", check_tag(text[i:j], "ServiceBusNotification-Tags")))
                i = j
        return tokens

    def _peek(self):
        return self.tokens[self.position][0] if self.position < len(self.tokens) else None

    def _parse_or(self):
        node = self._parse_and()
        while self._peek() == "or":
            self.position += 1
            node = ("or", node, self._parse_and())
        return node

    def _parse_and(self):
        node = self._parse_unary()
        while self._peek() == "and":
            self.position += 1
            node = ("and", node, self._parse_unary())
        return node

    def _parse_unary(self):
        kind = self._peek()
        if kind == "not":
            self.position += 1
            return ("not", self._parse_unary())
        if kind == "(":
            self.position += 1
            node = self._parse_or()
            if self._peek() != ")":
                raise InputError(f"a '(' is not closed in the tag expression {self.text!r}")
            self.position += 1
            return node
        if kind == "tag":
            value = self.tokens[self.position][1]
            self.position += 1
            return ("tag", value)
        found = "the end" if kind is None else repr(self.tokens[self.position][1])
        raise InputError(f"expected a tag, '!' or '(' but found {found} in the tag expression {self.text!r}")

    def matches(self, tags) -> bool:
        def evaluate(node):
            op = node[0]
            if op == "tag":
                return node[1] in tags
            if op == "not":
                return not evaluate(node[1])
            if op == "and":
                return evaluate(node[1]) and evaluate(node[2])
            return evaluate(node[1]) or evaluate(node[2])

        return evaluate(self.tree)


# ---------------------------------------------------------------------------------------------------------------
# Device template language
# ---------------------------------------------------------------------------------------------------------------

EXPRESSION_STARTS = "$.%#{"
NAME_RE = re.compile(r"[A-Za-z0-9_]+")
NUMBER_RE = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
MAX_PROPERTY_NAME = 120


class _ExpressionParser:
    """Parses one JSON string value of a device template into a list of parts:
    ("lit", text) | ("prop", kind, name, n, default) where kind is one of "$", ".", "%", "#"."""

    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def fail(self, why: str):
        raise InputError(f"template expression {self.text!r}: {why} (at offset {self.i})")

    def skip_space(self):
        while self.i < len(self.text) and self.text[self.i] in " \t":
            self.i += 1

    def parse(self):
        if self.text[0] == "{":
            parts = self.parse_composite()
        else:
            parts = [self.parse_property()]
            if self.i != len(self.text):
                self.fail("text after a single expression; concatenate with {... + '...'} instead")
        return parts

    def parse_composite(self):
        if not self.text.endswith("}") or len(self.text) < 2:
            self.fail("a composite expression must end with '}'")
        self.i = 1
        parts = []
        while True:
            self.skip_space()
            if self.i >= len(self.text) - 1:
                self.fail("expected an expression or a quoted literal")
            c = self.text[self.i]
            if c in "'\"":
                parts.append(self.parse_literal(c))
            elif c == "#":
                self.fail("'#(prop)' is not allowed inside a composite expression")
            elif c in "$.%":
                parts.append(self.parse_property())
            else:
                self.fail(f"unexpected {c!r}; expected $(…), .(…), %(…) or a quoted literal")
            self.skip_space()
            if self.i == len(self.text) - 1:  # the closing '}'
                return parts
            if self.text[self.i] != "+":
                self.fail("expected '+' between the parts of a composite expression")
            self.i += 1

    def parse_literal(self, quote_char: str):
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.text):
                self.fail("a quoted literal is not closed")
            c = self.text[self.i]
            if c == quote_char:
                if self.i + 1 < len(self.text) and self.text[self.i + 1] == quote_char:
                    out.append(quote_char)
                    self.i += 2
                    continue
                self.i += 1
                return ("lit", "".join(out))
            out.append(c)
            self.i += 1

    def parse_property(self):
        kind = self.text[self.i]
        if kind not in "$.%#":
            self.fail("expected $(…), .(…), %(…) or #(…)")
        self.i += 1
        if self.i >= len(self.text) or self.text[self.i] != "(":
            self.fail(f"'{kind}' must be followed by '(' (forms like $body are not supported)")
        self.i += 1
        self.skip_space()
        match = NAME_RE.match(self.text, self.i)
        if not match:
            self.fail("expected a property name made of ASCII letters, digits and '_'")
        name = match.group(0)
        if len(name) > MAX_PROPERTY_NAME:
            self.fail(f"property names are at most {MAX_PROPERTY_NAME} characters")
        self.i = match.end()
        default = None
        if kind == "$" and self.text.startswith(":{", self.i):
            self.i += 2
            chars = []
            while True:
                if self.i >= len(self.text):
                    self.fail("a ':{default}' is not closed")
                c = self.text[self.i]
                if c == "\\" and self.i + 1 < len(self.text):
                    chars.append(self.text[self.i + 1])
                    self.i += 2
                    continue
                if c == "}":
                    self.i += 1
                    break
                chars.append(c)
                self.i += 1
            default = "".join(chars)
        self.skip_space()
        n = None
        if self.i < len(self.text) and self.text[self.i] == ",":
            if kind in "%#":
                self.fail(f"'{kind}(…)' takes no length")
            self.i += 1
            self.skip_space()
            digits = re.compile(r"[0-9]+").match(self.text, self.i)
            if not digits:
                self.fail("expected a non-negative whole number after ','")
            n = int(digits.group(0))
            self.i = digits.end()
            self.skip_space()
        if kind == "." and n is None:
            self.fail("'.(prop, n)' needs the length n")
        if self.i >= len(self.text) or self.text[self.i] != ")":
            self.fail("expected ')'")
        self.i += 1
        return ("prop", kind, name, n, default)


def compile_template_string(text: str):
    """None for a literal string (it does not start with $ . % # {), else the parsed parts."""
    if not text or text[0] not in EXPRESSION_STARTS:
        return None
    return _ExpressionParser(text).parse()


def _walk_strings(value, visit):
    """Returns a copy of a parsed JSON value with every string VALUE (never an object key) replaced by visit()."""
    if isinstance(value, dict):
        return {key: _walk_strings(item, visit) for key, item in value.items()}
    if isinstance(value, list):
        return [_walk_strings(item, visit) for item in value]
    if isinstance(value, str):
        return visit(value)
    return value


def parse_device_template(body: str, where: str):
    """Parses and validates a device template body (the JSON text an installation registers)."""
    if not isinstance(body, str):
        raise InputError(f"{where}: the template body must be a JSON string holding the template JSON")
    try:
        parsed = strict_json_loads(body)
    except InputError as error:
        raise InputError(f"{where}: the template body is not valid JSON: {error}") from None
    if not isinstance(parsed, (dict, list)):
        raise InputError(f"{where}: the template body must be a JSON object")

    def validate(text):
        try:
            compile_template_string(text)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
        return text

    _walk_strings(parsed, validate)
    return parsed


def _property_value(properties, name, default):
    value = properties.get(name.lower())
    if value is None:
        return default if default is not None else ""
    return value


def _render_part(part, properties) -> str:
    if part[0] == "lit":
        return part[1]
    _, kind, name, n, default = part
    value = _property_value(properties, name, default)
    if kind == "$":
        return value if n is None else value[:n]
    if kind == ".":
        if len(value) <= n:
            return value
        return value[: n - 3] + "..." if n >= 3 else "." * n
    if kind == "%":
        return quote(value, safe="")  # RFC 3986: keep only A-Z a-z 0-9 - . _ ~, UTF-8, uppercase hex
    return value  # "#" (only reaches here for a whole-string #(), handled in render_string)


def render_string(text: str, properties):
    parts = compile_template_string(text)
    if parts is None:
        return text
    if len(parts) == 1 and parts[0][0] == "prop" and parts[0][1] == "#":
        value = _property_value(properties, parts[0][2], None)
        if NUMBER_RE.fullmatch(value):
            if re.fullmatch(r"0|[1-9][0-9]*", value):
                return int(value)
            number = float(value)
            if math.isfinite(number):
                return number
        return value
    return "".join(_render_part(part, properties) for part in parts)


def render_template(parsed_template, properties):
    """Renders a parsed device template with the send's properties (names matched case-insensitively)."""
    lowered = {key.lower(): value for key, value in properties.items()}
    return _walk_strings(parsed_template, lambda text: render_string(text, lowered))


# ---------------------------------------------------------------------------------------------------------------
# SharedAccessSignature verification
# ---------------------------------------------------------------------------------------------------------------


class AuthFailure(Exception):
    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def sign(key: str, raw_sr: str, raw_se: str) -> str:
    mac = hmac.new(key.encode("utf-8"), (raw_sr + "\n" + raw_se).encode("utf-8"), hashlib.sha256).digest()
    return base64.b64encode(mac).decode("ascii")


def parse_sas(header):
    prefix = "SharedAccessSignature "
    if header is None:
        raise AuthFailure("MissingToken: The request has no Authorization header")
    if not header.startswith(prefix):
        raise AuthFailure("MalformedToken: The Authorization header must start with 'SharedAccessSignature '")
    fields = {}
    for part in header[len(prefix):].strip().split("&"):
        if not part:
            continue
        name, equals, value = part.partition("=")
        if not equals:
            raise AuthFailure("MalformedToken: A token field has no '='")
        name = name.strip().lower()
        if name in fields:
            raise AuthFailure(f"MalformedToken: The token has the field '{name}' twice")
        fields[name] = value.strip()
    missing = [name for name in ("sr", "sig", "se", "skn") if not fields.get(name)]
    if missing:
        raise AuthFailure("MalformedToken: The token has no " + ", ".join(f"'{m}'" for m in missing) + " field")
    return fields


def _split_host(host: str):
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end != -1:
            rest = host[end + 1:]
            return host[: end + 1], rest[1:] if rest.startswith(":") else None
    name, colon, port = host.rpartition(":")
    if colon and port.isdigit():
        return name, port
    return host, None


def scope_matches(raw_sr: str, request_host: str, request_segments) -> bool:
    """True when the decoded `sr` is a path-segment prefix of <host>/<path> of the request (scheme ignored)."""
    audience = unquote(raw_sr).lower()
    scheme = re.match(r"^[a-z][a-z0-9+.-]*://", audience)
    if scheme:
        audience = audience[scheme.end():]
    audience = re.split(r"[?#]", audience, maxsplit=1)[0].rstrip("/")
    if not audience:
        return False
    segments = audience.split("/")
    sr_host, sr_port = _split_host(segments[0])
    req_host, req_port = _split_host(request_host or "")
    if sr_host != req_host or (sr_port is not None and sr_port != req_port):
        return False
    wanted = [segment.lower() for segment in request_segments]
    rest = segments[1:]
    return len(rest) <= len(wanted) and rest == wanted[: len(rest)]


# ---------------------------------------------------------------------------------------------------------------
# Configuration and installations
# ---------------------------------------------------------------------------------------------------------------


def normalize_installation(data, where: str, expected_id=None):
    if not isinstance(data, dict):
        raise InputError(f"{where}: an installation must be a JSON object")
    installation_id = data.get("installationId")
    if not isinstance(installation_id, str) or not installation_id:
        raise InputError(f"{where}: 'installationId' must be a non-empty string")
    if expected_id is not None and installation_id != expected_id:
        raise InputError(
            f"{where}: the body's installationId {installation_id!r} differs from the one in the URL {expected_id!r}")
    where = f"{where} (installation {installation_id!r})"
    platform = data.get("platform")
    if not isinstance(platform, str) or platform.lower() not in KNOWN_PLATFORMS:
        raise InputError(f"{where}: 'platform' must be one of {', '.join(KNOWN_PLATFORMS)}")
    push_channel = data.get("pushChannel")
    if not isinstance(push_channel, (str, dict)) or not push_channel:
        raise InputError(f"{where}: 'pushChannel' is required")
    tags = data.get("tags", [])
    if not isinstance(tags, list):
        raise InputError(f"{where}: 'tags' must be a list of strings")
    if len(tags) > MAX_TAGS_PER_INSTALLATION:
        raise InputError(f"{where}: {len(tags)} tags; an installation may have at most {MAX_TAGS_PER_INSTALLATION}")
    tags = [check_tag(tag, where) for tag in tags]
    user_id = data.get("userId")
    if user_id is not None and not isinstance(user_id, str):
        raise InputError(f"{where}: 'userId' must be a string")
    templates_in = data.get("templates", {})
    if not isinstance(templates_in, dict):
        raise InputError(f"{where}: 'templates' must be an object of name → template")
    templates = {}
    for name, template in templates_in.items():
        twhere = f"{where}, template {name!r}"
        if not name or len(name) > 200:
            raise InputError(f"{twhere}: a template name must have 1 to 200 characters")
        if not isinstance(template, dict):
            raise InputError(f"{twhere}: a template must be an object with a 'body'")
        body = template.get("body")
        if isinstance(body, (dict, list)):  # convenience for config files and /_control/installations
            body = json.dumps(body, ensure_ascii=False)
        parsed = parse_device_template(body, twhere)
        ttags = template.get("tags", [])
        if not isinstance(ttags, list):
            raise InputError(f"{twhere}: 'tags' must be a list of strings")
        ttags = [check_tag(tag, twhere) for tag in ttags]
        entry = {"body": body, "tags": ttags, "parsed": parsed}
        if "headers" in template:
            entry["headers"] = check_template_headers(template["headers"], platform.lower(), twhere)
        if "expiry" in template:
            expiry = template["expiry"]
            if not isinstance(expiry, str):
                raise InputError(f"{twhere}: 'expiry' must be a string (a date, \"0\" or a template expression)")
            _compile_for(expiry, twhere + ", expiry")
            entry["expiry"] = expiry
        templates[name] = entry
    return {
        "installationId": installation_id,
        "platform": platform.lower(),
        "pushChannel": push_channel,
        "tags": tags,
        "userId": user_id,
        "templates": templates,
    }


def _compile_for(text, where):
    try:
        return compile_template_string(text)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None


def check_template_headers(headers, platform, where):
    """Template headers as the hub validates them at registration: strings rendered with the template language;
    on Apple templates only apns-* names, apns-priority a byte or an expression, apns-expiration whole seconds or
    an expression. FCM takes its ttl and priority in the body, so its templates carry no headers."""
    if not isinstance(headers, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise InputError(f"{where}: 'headers' must be an object of header name → string")
    if platform in ("fcmv1", "gcm") and headers:
        raise InputError(f"{where}: FCM templates carry no headers; put ttl and priority in the body "
                         "(message.android.ttl, message.android.priority)")
    for name, value in headers.items():
        hwhere = f"{where}, header {name!r}"
        if not re.fullmatch(r"[A-Za-z0-9-]+", name):
            raise InputError(f"{hwhere}: not an HTTP header name")
        parts = _compile_for(value, hwhere)
        if platform != "apns":
            continue
        lower = name.lower()
        if not lower.startswith("apns-"):
            raise InputError(f"{hwhere}: the headers of an Apple template must be named apns-*")
        if parts is None and lower == "apns-priority" and not (re.fullmatch(r"[0-9]{1,3}", value) and int(value) < 256):
            raise InputError(f"{hwhere}: apns-priority must be a byte (10, 5 or 1) or a template expression")
        if parts is None and lower == "apns-expiration" and not re.fullmatch(r"[0-9]+", value):
            raise InputError(f"{hwhere}: apns-expiration must be whole seconds since 1970 or a template expression")
    return dict(headers)


def installation_to_json(inst):
    out = {
        "installationId": inst["installationId"],
        "pushChannel": inst["pushChannel"],
        "pushChannelExpired": False,
        "platform": inst["platform"],
        "expirationTime": "9999-12-31T23:59:59.9999999Z",
        "tags": list(inst["tags"]),
    }
    if inst["userId"] is not None:
        out["userId"] = inst["userId"]
    if inst["templates"]:
        templates = {}
        for name, template in inst["templates"].items():
            entry = {"body": template["body"], "tags": list(template["tags"]) + ([name] if name not in template["tags"] else [])}
            for optional in ("expiry", "headers"):
                if optional in template:
                    entry[optional] = template[optional]
            templates[name] = entry
        out["templates"] = templates
    return out


def load_config(text: str):
    config = strict_json_loads(text)
    if not isinstance(config, dict):
        raise InputError("the config must be a JSON object")
    hub = config.get("hub")
    if not isinstance(hub, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", hub):
        raise InputError("'hub' must be a hub name (letters, digits, '.', '_', '-')")
    tier = config.get("tier", "standard")
    if tier not in TIERS:
        raise InputError(f"'tier' must be one of {', '.join(TIERS)}")
    rules_in = config.get("rules")
    if not isinstance(rules_in, list) or not rules_in:
        raise InputError("'rules' must be a non-empty list of access rules")
    rules = {}
    for index, rule in enumerate(rules_in):
        where = f"rules[{index}]"
        if not isinstance(rule, dict):
            raise InputError(f"{where} must be an object")
        name = rule.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"{where}: 'name' must be a non-empty string")
        keys = [rule.get("key"), rule.get("secondaryKey")]
        if not isinstance(keys[0], str) or not keys[0]:
            raise InputError(f"{where} ({name}): 'key' must be a non-empty string")
        if keys[1] is not None and not isinstance(keys[1], str):
            raise InputError(f"{where} ({name}): 'secondaryKey' must be a string")
        rights = rule.get("rights")
        if not isinstance(rights, list) or any(right not in KNOWN_RIGHTS for right in rights):
            raise InputError(f"{where} ({name}): 'rights' must be a list drawn from {', '.join(KNOWN_RIGHTS)}")
        if name in rules:
            raise InputError(f"{where}: a second rule named {name!r}")
        rules[name] = {"keys": [key for key in keys if key], "rights": set(rights)}
    installations_in = config.get("installations", [])
    if not isinstance(installations_in, list):
        raise InputError("'installations' must be a list")
    installations = [normalize_installation(item, f"installations[{i}]") for i, item in enumerate(installations_in)]
    skew = config.get("clock_skew_seconds", 0)
    if not isinstance(skew, (int, float)) or isinstance(skew, bool):
        raise InputError("'clock_skew_seconds' must be a number")
    return {"hub": hub, "tier": tier, "rules": rules, "installations": installations, "skew": skew}


# ---------------------------------------------------------------------------------------------------------------
# Shared state
# ---------------------------------------------------------------------------------------------------------------


def _format_timestamp(moment: _dt.datetime) -> str:
    hour = moment.hour % 12 or 12
    return (f"{moment.month}/{moment.day}/{moment.year} {hour}:{moment.minute:02d}:{moment.second:02d} "
            f"{'AM' if moment.hour < 12 else 'PM'}")


def xml_error(code: int, detail: str, tracking_id: str) -> bytes:
    escaped = detail.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    stamp = _format_timestamp(_dt.datetime.now(_dt.timezone.utc))
    return (f"<Error><Code>{code}</Code><Detail>{escaped}.TrackingId:{tracking_id}_G0,TimeStamp:{stamp}"
            f"</Detail></Error>").encode("utf-8")


class HubState:
    def __init__(self, config, now_override=None):
        self.lock = threading.Lock()
        self.hub = config["hub"]
        self.tier = config["tier"]
        self.rules = config["rules"]
        self.initial_installations = config["installations"]
        self.config_skew = config["skew"]
        self.config_now = now_override
        self.port = 0
        self.notification_counter = 0
        self.reset()

    def reset(self):
        with self.lock:
            self.installations = {inst["installationId"]: inst for inst in self.initial_installations}
            self.requests = []
            self.deliveries = []
            self.messages = {}
            self.telemetry_delay_ms = 0
            self.telemetry_overrides = {}
            self.test_sends = []
            self.faults = []
            self.latency_ms = 0
            self.accepted_connections = 0
            self.dataplane_connections = 0
            self.dataplane_requests = 0
            self.control_requests = 0
            self.generation = getattr(self, "generation", 0) + 1
            self.now_override = self.config_now
            self.skew = self.config_skew

    def now(self) -> float:
        base = self.now_override if self.now_override is not None else time.time()
        return base + self.skew

    def next_notification_id(self) -> str:
        with self.lock:
            self.notification_counter += 1
            counter = self.notification_counter
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d%H%M%S")
        return f"{uuid.uuid4().hex}-{stamp}-{counter}-1"

    def take_fault(self):
        with self.lock:
            if not self.faults:
                return None
            fault = self.faults[0]
            fault["times"] -= 1
            if fault["times"] <= 0:
                self.faults.pop(0)
            return fault


def normalize_fault(item, index):
    where = f"fault [{index}]"
    if not isinstance(item, dict):
        raise InputError(f"{where} must be an object")
    status = item.get("status")
    if status is not None and (not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599):
        raise InputError(f"{where}: 'status' must be an HTTP status code (or absent for a delay-only fault)")
    headers = item.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise InputError(f"{where}: 'headers' must be an object of string → string")
    body = item.get("body")
    if body is not None and not isinstance(body, str):
        raise InputError(f"{where}: 'body' must be a string")
    delay = item.get("delay_ms", 0)
    if not isinstance(delay, (int, float)) or isinstance(delay, bool) or delay < 0:
        raise InputError(f"{where}: 'delay_ms' must be a non-negative number")
    drop = item.get("drop", False)
    if not isinstance(drop, bool):
        raise InputError(f"{where}: 'drop' must be true or false")
    times = item.get("times", 1)
    if not isinstance(times, int) or isinstance(times, bool) or times < 1:
        raise InputError(f"{where}: 'times' must be a whole number ≥ 1")
    if status is None and not drop and delay == 0:
        raise InputError(f"{where}: give a 'status', 'drop': true or a 'delay_ms'")
    return {"status": status, "headers": headers, "body": body, "delay_ms": delay, "drop": drop, "times": times}


# ---------------------------------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------------------------------


class Response:
    def __init__(self, status, body=b"", content_type=None, headers=None, close=False, drop=False):
        self.status = status
        self.body = body
        self.headers = list(headers or [])
        if content_type is not None:
            self.headers.insert(0, ("Content-Type", content_type))
        self.close = close
        self.drop = drop


class HubServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    # socketserver's default listen backlog is 5. A client that opens 8 connections at once (newsgen publishes
    # with push.concurrency 8) then overflows it: the kernel drops a SYN and the client only retries after its
    # 1 s retransmission timeout, which made publish timings jump by a second at random. The live hub has no
    # such limit, so the double must not have one either.
    request_queue_size = 128

    def __init__(self, port, state, verbose):
        self.state = state
        self.verbose = verbose
        super().__init__((LOOPBACK, port), HubHandler)
        state.port = self.server_address[1]

    def handle_error(self, request, client_address):
        if self.verbose:
            super().handle_error(request, client_address)


class HubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "HubDouble/1.0"

    def version_string(self):
        return self.server_version
    timeout = 300  # idle keep-alive connections are closed after this many seconds

    # -- connection bookkeeping -----------------------------------------------------------------------------

    def setup(self):
        super().setup()
        state = self.server.state
        with state.lock:
            state.accepted_connections += 1
            self.connection_number = state.accepted_connections
        self.counted_generation = None

    def log_message(self, format, *args):  # noqa: A002 - BaseHTTPRequestHandler's signature
        if self.server.verbose:
            sys.stderr.write("hub_double: " + (format % args) + "\n")

    def log_request(self, code="-", size="-"):
        if self.server.verbose:
            path = urlsplit(self.path).path
            sys.stderr.write(f"hub_double: {self.command} {path} -> {code}\n")

    # -- dispatch -------------------------------------------------------------------------------------------

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def read_body(self):
        """Returns the request body bytes, or None when it is too large to read (the caller answers 413)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            total = 0
            while True:
                line = self.rfile.readline(65537)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                total += size
                if total > MAX_READ_BODY:
                    return None
                chunks.append(self.rfile.read(size))
                self.rfile.readline(65537)
        length_text = self.headers.get("Content-Length")
        if not length_text:
            return b""
        length = int(length_text)
        if length < 0:
            raise ValueError("negative Content-Length")
        if length > MAX_READ_BODY:
            return None
        return self.rfile.read(length)

    def dispatch(self):
        state = self.server.state
        target = urlsplit(self.path)
        is_control = target.path.startswith("/_control/") or target.path == "/_control"
        try:
            body = self.read_body()
        except (ValueError, OSError):
            self.write(Response(400, b"unreadable request body", "text/plain; charset=utf-8", close=True))
            return
        if is_control:
            with state.lock:
                state.control_requests += 1
            response = self.control(target, body)
            response.close = response.close or body is None
            self.write(response)
            return

        record = {
            "time": time.time(),
            "timeISO": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds"),
            "method": self.command,
            "path": unquote(target.path),
            "target": self.path,
            "query": dict(parse_qsl(target.query, keep_blank_values=True)),
            "headers": self.header_map(),
            "rawHeaders": [[name, value] for name, value in self.headers.items()],
            "body": body.decode("utf-8", errors="replace") if body is not None else None,
            "bodyBytes": len(body) if body is not None else None,
            "connection": self.connection_number,
            "status": None,
            "dropped": False,
            "fault": False,
        }
        with state.lock:
            state.requests.append(record)
            state.dataplane_requests += 1
            if self.counted_generation != state.generation:
                self.counted_generation = state.generation
                state.dataplane_connections += 1
            latency = state.latency_ms
        if latency:
            time.sleep(latency / 1000.0)
        try:
            response = self.data_plane(target, body, record)
        except Exception as error:  # never let one request take the server down
            if self.server.verbose:
                sys.stderr.write(f"hub_double: internal error: {error!r}\n")
            response = self.xml(500, "Internal error in the hub double")
        if body is None:  # the body was left unread: this connection cannot carry another request
            response.close = True
        with state.lock:
            record["status"] = None if response.drop else response.status
            record["dropped"] = response.drop
        self.write(response)

    def header_map(self):
        result = {}
        for name, value in self.headers.items():
            key = name.lower()
            result[key] = value if key not in result else result[key] + ", " + value
        return result

    def write(self, response: Response):
        if response.drop:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        try:
            self.send_response(response.status)
            for name, value in response.headers:
                self.send_header(name, value)
            body = b"" if self.command == "HEAD" else response.body
            self.send_header("Content-Length", str(len(response.body)))
            if response.close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if body:
                self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    # -- helpers --------------------------------------------------------------------------------------------

    @staticmethod
    def tracking_headers(tracking_id=None):
        return [("TrackingId", tracking_id or str(uuid.uuid4())), ("x-ms-correlation-request-id", str(uuid.uuid4()))]

    def xml(self, status, detail, extra_headers=None, close=False):
        tracking = str(uuid.uuid4())
        return Response(status, xml_error(status, detail, tracking), XML_CONTENT_TYPE,
                        self.tracking_headers(tracking) + list(extra_headers or []), close=close)

    @staticmethod
    def json_response(status, value):
        return Response(status, (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8"),
                        JSON_CONTENT_TYPE)

    # -- data plane -----------------------------------------------------------------------------------------

    def data_plane(self, target, body, record):
        state = self.server.state
        segments = [unquote(segment) for segment in target.path.split("/")[1:]]
        if len(segments) > 1 and segments[-1] == "":
            segments = segments[:-1]
        route = None
        if len(segments) == 2 and segments[0].lower() == state.hub.lower() and segments[1] == "messages":
            route = "messages"
        elif len(segments) == 3 and segments[0].lower() == state.hub.lower() and segments[1] == "installations" \
                and segments[2]:
            route = "installation"
        elif len(segments) == 3 and segments[0].lower() == state.hub.lower() and segments[1] == "messages" \
                and segments[2]:
            route = "telemetry"
        if route is None:
            return self.xml(404, f"No message branch at the URI {target.path}")

        fault = None
        if route == "messages" and self.command == "POST":
            fault = state.take_fault()
        if fault is not None:
            record["fault"] = True
            if fault["delay_ms"]:
                time.sleep(fault["delay_ms"] / 1000.0)
            if fault["drop"]:
                return Response(0, drop=True)
            if fault["status"] is not None:
                return self.fault_response(fault)
            # a delay-only fault: continue and answer normally

        allowed = {"messages": ("POST",), "installation": ("PUT", "GET", "DELETE"), "telemetry": ("GET",)}[route]
        if self.command not in allowed:
            return self.xml(405, f"The method {self.command} is not allowed here; use {' or '.join(allowed)}",
                            [("Allow", ", ".join(allowed))])
        query = dict(parse_qsl(target.query, keep_blank_values=True))
        if not query.get("api-version"):
            return self.xml(400, "The api-version query parameter is required (use api-version=2020-06)")

        rule = self.authenticate(segments)
        if isinstance(rule, Response):
            return rule
        if route == "messages":
            if "Send" not in rule["rights"]:
                return Response(403, b"", None, self.tracking_headers())
            if body is None or len(body) > MAX_SEND_BODY:
                return self.xml(413, "Requested entity too large. The message size cannot be over 64 Kb",
                                close=body is None)
            return self.send_notification(body, query, record)
        if route == "telemetry":
            if not rule["rights"] & {"Send", "Manage"}:
                return Response(403, b"", None, self.tracking_headers())
            return self.telemetry(segments[2])
        if not rule["rights"] & {"Listen", "Manage"}:
            return Response(403, b"", None, self.tracking_headers())
        return self.installation(segments[2], body)

    def fault_response(self, fault):
        status = fault["status"]
        tracking = str(uuid.uuid4())
        headers = []
        given = {name.lower() for name in fault["headers"]}
        if "content-type" not in given:
            headers.append(("Content-Type", XML_CONTENT_TYPE))
        if "trackingid" not in given:
            headers.append(("TrackingId", tracking))
        if "x-ms-correlation-request-id" not in given:
            headers.append(("x-ms-correlation-request-id", str(uuid.uuid4())))
        headers.extend(fault["headers"].items())
        if fault["body"] is not None:
            body = fault["body"].encode("utf-8")
        elif status >= 400:
            body = xml_error(status, f"Injected fault: HTTP {status}", tracking)
        else:
            body = b""
        return Response(status, body, None, headers)

    def authenticate(self, segments):
        """The matching rule, or a 401 Response."""
        state = self.server.state
        try:
            fields = parse_sas(self.headers.get("Authorization"))
            rule_name = unquote(fields["skn"])
            rule = state.rules.get(rule_name)
            if rule is None:
                raise AuthFailure("InvalidSignature: The token has an invalid signature (unknown key name)")
            presented = unquote_to_bytes(fields["sig"])
            if not any(hmac.compare_digest(sign(key, fields["sr"], fields["se"]).encode("ascii"), presented)
                       for key in rule["keys"]):
                raise AuthFailure("InvalidSignature: The token has an invalid signature.")
            if not re.fullmatch(r"[0-9]{1,15}", fields["se"]):
                raise AuthFailure("MalformedToken: The token's 'se' must be whole seconds since 1970")
            if int(fields["se"]) <= state.now():
                raise AuthFailure("ExpiredToken: The token is expired.")
            host = self.headers.get("Host") or f"{LOOPBACK}:{state.port}"
            if not scope_matches(fields["sr"], host, segments):
                raise AuthFailure("InvalidAudience: The token's resource (sr) does not cover the requested URI")
        except AuthFailure as failure:
            return self.xml(401, failure.detail)
        return rule

    def send_notification(self, body, query, record):
        state = self.server.state
        fmt = self.headers.get("ServiceBusNotification-Format")
        if fmt is None:
            return self.xml(400, "The ServiceBusNotification-Format header is required (template)")
        if fmt.strip().lower() != "template":
            return self.xml(400, f"The ServiceBusNotification-Format {fmt!r} is not supported by the hub double; "
                                 "only template sends are")
        content_type = self.headers.get("Content-Type") or ""
        media, _, params = content_type.partition(";")
        if media.strip().lower() != "application/json":
            return self.xml(400, f"The Content-Type {content_type!r} is not application/json")
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
                return self.xml(400, f"The charset in Content-Type {content_type!r} must be utf-8")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return self.xml(400, "The supplied notification payload is invalid: the body is not UTF-8")
        try:
            properties = strict_json_loads(text)
        except InputError as error:
            return self.xml(400, f"The supplied notification payload is invalid: {error}")
        if not isinstance(properties, dict):
            return self.xml(400, "The supplied notification payload is invalid: a template send's body must be "
                                 "a JSON object")
        seen = {}
        for name, value in properties.items():
            if not isinstance(value, str):
                return self.xml(400, f"The supplied notification payload is invalid: the property {name!r} is not "
                                     "a string; template properties must all be strings")
            if name.lower() in seen:
                return self.xml(400, f"The supplied notification payload is invalid: the properties {seen[name.lower()]!r} "
                                     f"and {name!r} differ only in case")
            seen[name.lower()] = name
        tag_headers = self.headers.get_all("ServiceBusNotification-Tags") or []
        if len(tag_headers) > 1:
            return self.xml(400, "More than one ServiceBusNotification-Tags header")
        expression = None
        if tag_headers:
            try:
                expression = TagExpression(tag_headers[0])
            except InputError as error:
                return self.xml(400, f"Invalid tag expression: {error}")
        is_test = "test" in query
        if is_test:
            # Test sends are throttled to 10 a minute; the hub answers like any throttle.
            now = time.time()
            with state.lock:
                state.test_sends = [moment for moment in state.test_sends if moment > now - 60]
                if len(state.test_sends) >= MAX_TEST_SENDS_PER_MINUTE:
                    wait = int(state.test_sends[0] + 60 - now) + 1
                    throttled = True
                else:
                    state.test_sends.append(now)
                    throttled = False
            if throttled:
                return self.xml(429, "Test sends are limited to 10 a minute", [("Retry-After", str(wait))])
        pass_through = {name: value for name, value in self.headers.items() if name.lower().startswith("apns-")}

        notification_id = state.next_notification_id()
        deliveries = []
        with state.lock:
            installations = list(state.installations.values())
        for inst in installations:
            system_tags = {"$InstallationId:{" + inst["installationId"] + "}"}
            if inst["userId"]:
                system_tags.add("$UserId:{" + inst["userId"] + "}")
            for name, template in inst["templates"].items():
                tags = set(inst["tags"]) | set(template["tags"]) | {name} | system_tags
                if expression is not None and not expression.matches(tags):
                    continue
                payload = render_template(template["parsed"], properties)
                # The registration's own headers, rendered like the body, go on top of the send's pass-through ones.
                lowered = {key.lower(): value for key, value in properties.items()}
                headers = dict(pass_through)
                for header, value in template.get("headers", {}).items():
                    headers[header] = str(render_string(value, lowered))
                deliveries.append({
                    "notificationId": notification_id,
                    "installationId": inst["installationId"],
                    "template": name,
                    "platform": inst["platform"],
                    "pushChannel": inst["pushChannel"],
                    "tags": sorted(tags),
                    "tagExpression": tag_headers[0] if tag_headers else None,
                    "payload": payload,
                    "payloadText": json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
                    "headers": headers,
                    "expiry": str(render_string(template["expiry"], lowered)) if "expiry" in template else None,
                    "test": is_test,
                })
        if is_test:
            deliveries = deliveries[:MAX_TEST_DELIVERIES]
        with state.lock:
            state.deliveries.extend(deliveries)
            state.messages[notification_id] = {"time": state.now(), "body": text, "deliveries": deliveries,
                                               "test": is_test}
        record["notificationId"] = notification_id

        client_tracking = self.headers.get("TrackingId")
        headers = self.tracking_headers(client_tracking)
        if state.tier == "standard":
            headers.append(("Location",
                            f"http://{LOOPBACK}:{state.port}/{state.hub}/messages/{notification_id}?api-version=2020-06"))
        if is_test:
            return Response(201, self.outcome_xml(deliveries), XML_CONTENT_TYPE, headers)
        return Response(201, b"", XML_CONTENT_TYPE, headers)

    @staticmethod
    def outcome_xml(deliveries) -> bytes:
        def esc(text):
            return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

        results = "".join(
            "<RegistrationResult>"
            f"<ApplicationPlatform>{'apple' if d['platform'] == 'apns' else esc(d['platform'])}</ApplicationPlatform>"
            f"<PnsHandle>{esc(d['pushChannel'] if isinstance(d['pushChannel'], str) else '')}</PnsHandle>"
            f"<RegistrationId>{esc(d['installationId'])}/{esc(d['template'])}</RegistrationId>"
            "<Outcome>The Notification was successfully sent to the Push Notification System</Outcome>"
            "</RegistrationResult>" for d in deliveries)
        results_xml = f"<Results>{results}</Results>" if deliveries else '<Results i:nil="true"/>'
        return ('<NotificationOutcome xmlns="http://schemas.microsoft.com/netservices/2010/10/servicebus/connect" '
                'xmlns:i="http://www.w3.org/2001/XMLSchema-instance">'
                f"<Success>{len(deliveries)}</Success><Failure>0</Failure>{results_xml}</NotificationOutcome>"
                ).encode("utf-8")

    def telemetry(self, notification_id):
        """GET {hub}/messages/{id} (R-TEL): 403 below the Standard tier, 404 for an unknown id or one still being
        processed (the `telemetry` control's delay), else a NotificationDetails document."""
        state = self.server.state
        if state.tier != "standard":
            return self.xml(403, "Request rejected because this feature is not enabled for your SKU. Upgrade to Standard")
        with state.lock:
            message = state.messages.get(notification_id)
            delay = state.telemetry_delay_ms
            override = state.telemetry_overrides.get(notification_id)
            now = state.now()
        if message is None or now < message["time"] + delay / 1000.0:
            return self.xml(404, "Telemetry does not exist")
        counts = {}
        for delivery in message["deliveries"]:
            counts.setdefault(delivery["platform"], {}).setdefault("Success", 0)
            counts[delivery["platform"]]["Success"] += 1
        state_name = "Completed" if counts else "NoTargetFound"
        if override:
            state_name = override.get("state", state_name)
            counts = override.get("outcomes", counts)

        def esc(text):
            return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

        def stamp(moment):
            return _dt.datetime.fromtimestamp(moment, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

        platforms = "".join(
            f"<{PLATFORM_ELEMENTS.get(platform, platform.capitalize())}OutcomeCounts>"
            + "".join(f"<Outcome><Name>{esc(name)}</Name><Count>{count}</Count></Outcome>"
                      for name, count in outcomes.items())
            + f"</{PLATFORM_ELEMENTS.get(platform, platform.capitalize())}OutcomeCounts>"
            for platform, outcomes in sorted(counts.items()))
        target = ",".join(sorted(PLATFORM_NAMES.get(p, p) for p in counts))
        document = (
            '<NotificationDetails xmlns="http://schemas.microsoft.com/netservices/2010/10/servicebus/connect" '
            'xmlns:i="http://www.w3.org/2001/XMLSchema-instance">'
            f"<NotificationId>{esc(notification_id)}</NotificationId>"
            f"<Location>sb://{LOOPBACK}:{state.port}/{esc(state.hub)}/messages/{esc(notification_id)}?api-version=2020-06</Location>"
            f"<State>{esc(state_name)}</State>"
            f"<EnqueueTime>{stamp(message['time'])}</EnqueueTime><StartTime>{stamp(message['time'])}</StartTime>"
            f"<EndTime>{stamp(message['time'])}</EndTime>"
            f"<NotificationBody>{esc(message['body'])}</NotificationBody>"
            f"<TargetPlatforms>{esc(target)}</TargetPlatforms>{platforms}</NotificationDetails>")
        return Response(200, document.encode("utf-8"), XML_CONTENT_TYPE, self.tracking_headers())

    def installation(self, installation_id, body):
        state = self.server.state
        if self.command == "GET":
            with state.lock:
                inst = state.installations.get(installation_id)
            if inst is None:
                return self.xml(404, "Installation not found")
            # The live service labels this JSON as application/xml (as recorded from it).
            return Response(200, json.dumps(installation_to_json(inst), ensure_ascii=False).encode("utf-8"),
                            XML_CONTENT_TYPE, self.tracking_headers())
        if self.command == "DELETE":
            with state.lock:
                state.installations.pop(installation_id, None)
            return Response(204, b"", None, self.tracking_headers())
        # PUT
        try:
            data = strict_json_loads((body or b"").decode("utf-8"))
            inst = normalize_installation(data, "installation", expected_id=installation_id)
        except UnicodeDecodeError:
            return self.xml(400, "The installation body is not UTF-8")
        except InputError as error:
            return self.xml(400, str(error))
        with state.lock:
            state.installations[installation_id] = inst
        return Response(200, b"", XML_CONTENT_TYPE, self.tracking_headers())

    # -- control plane --------------------------------------------------------------------------------------

    def control(self, target, body):
        state = self.server.state
        name = target.path[len("/_control/"):].strip("/") if target.path.startswith("/_control/") else ""
        key = (self.command, name)
        try:
            if key == ("GET", "requests"):
                with state.lock:
                    return self.json_response(200, [dict(r) for r in state.requests])
            if key == ("GET", "deliveries"):
                with state.lock:
                    return self.json_response(200, list(state.deliveries))
            if key == ("GET", "stats"):
                with state.lock:
                    return self.json_response(200, {
                        "connections": state.dataplane_connections,
                        "requests": state.dataplane_requests,
                        "acceptedConnections": state.accepted_connections,
                        "controlRequests": state.control_requests,
                        "deliveries": len(state.deliveries),
                        "pendingFaults": sum(f["times"] for f in state.faults),
                    })
            if key == ("GET", "installations"):
                with state.lock:
                    return self.json_response(200, [installation_to_json(i) for i in state.installations.values()])
            if key == ("POST", "reset"):
                state.reset()
                return self.json_response(200, {"reset": True})
            value = strict_json_loads((body or b"").decode("utf-8")) if self.command == "POST" else None
            if key == ("POST", "faults"):
                items = value if isinstance(value, list) else [value]
                faults = [normalize_fault(item, index) for index, item in enumerate(items)]
                with state.lock:
                    state.faults.extend(faults)
                    pending = sum(f["times"] for f in state.faults)
                return self.json_response(200, {"pendingFaults": pending})
            if key == ("POST", "latency"):
                ms = value.get("ms") if isinstance(value, dict) else None
                if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms < 0:
                    raise InputError('expected {"ms": <non-negative number>}')
                with state.lock:
                    state.latency_ms = ms
                return self.json_response(200, {"ms": ms})
            if key == ("POST", "installations"):
                items = value if isinstance(value, list) else [value]
                installations = [normalize_installation(item, f"installations[{i}]") for i, item in enumerate(items)]
                with state.lock:
                    for inst in installations:
                        state.installations[inst["installationId"]] = inst
                    count = len(state.installations)
                return self.json_response(200, {"installations": count})
            if key == ("POST", "telemetry"):
                if not isinstance(value, dict):
                    raise InputError('expected {"delay_ms": N} or {"notificationId": id, "state": …, "outcomes": {platform: {name: count}}}')
                with state.lock:
                    if "delay_ms" in value:
                        if not isinstance(value["delay_ms"], (int, float)) or value["delay_ms"] < 0:
                            raise InputError("'delay_ms' must be a non-negative number")
                        state.telemetry_delay_ms = value["delay_ms"]
                    if "notificationId" in value:
                        outcomes = value.get("outcomes", {})
                        if not isinstance(outcomes, dict) or not all(
                                isinstance(v, dict) and all(isinstance(n, int) for n in v.values()) for v in outcomes.values()):
                            raise InputError("'outcomes' must be {platform: {outcome name: count}}")
                        state.telemetry_overrides[value["notificationId"]] = {
                            key: value[key] for key in ("state", "outcomes") if key in value}
                return self.json_response(200, {"delay_ms": state.telemetry_delay_ms})
            if key == ("POST", "clock"):
                if not isinstance(value, dict):
                    raise InputError('expected {"now": <epoch seconds or null>, "skew_seconds": <number>}')
                with state.lock:
                    if "now" in value:
                        if value["now"] is not None and not isinstance(value["now"], (int, float)):
                            raise InputError("'now' must be epoch seconds or null")
                        state.now_override = value["now"]
                    if "skew_seconds" in value:
                        if not isinstance(value["skew_seconds"], (int, float)):
                            raise InputError("'skew_seconds' must be a number")
                        state.skew = value["skew_seconds"]
                return self.json_response(200, {"now": state.now()})
        except (InputError, UnicodeDecodeError) as error:
            return self.json_response(400, {"error": str(error)})
        return self.json_response(404, {"error": f"no control endpoint {self.command} {target.path}; see README.md"})


# ---------------------------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Local Azure Notification Hubs test double (127.0.0.1 only).")
    parser.add_argument("--config", required=True, help="JSON file: hub, tier, rules, installations")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 = any free port)")
    parser.add_argument("--host", default=LOOPBACK, help="bind address; only 127.0.0.1 is accepted")
    parser.add_argument("--now", type=float, default=None, help="pin the clock used for token expiry (epoch s)")
    parser.add_argument("--verbose", action="store_true", help="one line per request on stderr (no secrets)")
    args = parser.parse_args(argv)

    if args.host != LOOPBACK:
        sys.stderr.write(f"hub_double: refusing to bind {args.host!r}; the hub double listens on {LOOPBACK} only\n")
        return 2
    if not 0 <= args.port <= 65535:
        sys.stderr.write(f"hub_double: --port {args.port} is not a TCP port (0-65535)\n")
        return 2
    try:
        with open(args.config, encoding="utf-8") as handle:
            config = load_config(handle.read())
    except OSError as error:
        sys.stderr.write(f"hub_double: cannot read the config {args.config}: {error.strerror}\n")
        return 2
    except (InputError, UnicodeDecodeError) as error:
        sys.stderr.write(f"hub_double: {args.config}: {error}\n")
        return 2

    state = HubState(config, now_override=args.now)
    try:
        server = HubServer(args.port, state, args.verbose)
    except OSError as error:
        sys.stderr.write(f"hub_double: cannot listen on {LOOPBACK}:{args.port}: {error.strerror}\n")
        return 1

    stop = threading.Event()

    def request_stop(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    # A parent may start us with these signals blocked (the mask is inherited); make sure they arrive.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    sys.stdout.write(f"LISTENING {state.port}\n")
    sys.stdout.flush()
    while not stop.wait(0.5):
        pass
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
