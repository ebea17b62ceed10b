import Foundation
import Testing
import TestSupport

/// `newsgen publish` end to end: the real binary against the loopback hub double.
@Suite(.serialized) struct PublishTests {
    static let config = BuildFixtures.config + """

    push:
      hub: newsgen-test
      attempts: 4
      timeout: 2s
      connect_timeout: 2s
    """

    /// now = 2026-11-29T15:00:00Z
    static let stories: [String: String] = [
        "content/world/quake.md": """
        ---
        id: quake-off-coast
        category: World
        published: 2026-11-29T14:05:00Z
        breaking: true
        title:
          en: "Magnitude 7.1 earthquake strikes off the coast"
          fr: "Un séisme de magnitude 7,1 frappe au large des côtes"
          zh-Hans: 近海发生7.1级地震
        ---
        <!-- lang: en -->
        The quake struck at dawn.
        <!-- lang: fr -->
        Le séisme a frappé à l’aube.
        <!-- lang: zh-Hans -->
        地震发生于黎明。
        """,
        "content/sports/final.md": """
        ---
        category: [Sports, World]
        published: 2026-11-29T14:30:00Z
        breaking: true
        title: { en: "Underdogs win the \\"final\\" 2–1 ⚽", zh-Hans: 黑马2比1夺冠 }
        ---
        <!-- lang: en -->
        A late goal.
        <!-- lang: zh-Hans -->
        绝杀。
        """,
        "content/world/yesterday.md": """
        ---
        category: World
        published: 2026-11-28T09:00:00Z
        breaking: true
        title: Old breaking news
        ---
        Old.
        """,
        "content/world/calm.md": """
        ---
        category: World
        published: 2026-11-29T14:00:00Z
        title: Calm news
        ---
        Calm.
        """,
    ]

    static let now = BuildFixtures.now

    static func site(extraConfig: String = "") throws -> TemporarySite {
        var files = stories
        files["newsgen.yml"] = config + extraConfig
        return try TemporarySite(files: files)
    }

    static func template(_ body: String) -> [String: Any] { ["body": body, "tags": [String]()] }

    /// The seed scenario's phones.
    static var phones: [[String: Any]] { [
        ["installationId": "french-phone", "platform": "apns", "pushChannel": "aaaa", "tags": ["World"],
         "templates": ["localizednewsTemplate": template(#"{"aps":{"alert":"$(News_French)"},"inAppMessage":"$(News_French)"}"#)]],
        ["installationId": "mandarin-phone", "platform": "apns", "pushChannel": "bbbb", "tags": ["Sports"],
         "templates": ["localizednewsTemplate": template(#"{"aps":{"alert":"$(News_Mandarin)"},"inAppMessage":"$(News_Mandarin)"}"#)]],
        ["installationId": "old-app", "platform": "apns", "pushChannel": "cccc", "tags": ["World"],
         "templates": ["genericTemplate": template(#"{"aps":{"alert":"$(messageParam)"}}"#)]],
    ] }

    func publish(_ site: TemporarySite, _ hub: HubDouble, _ arguments: [String] = [],
                 environment: [String: String]? = nil) throws -> ProgramResult {
        var env = environment ?? hub.environment()
        for (key, value) in Self.now { env[key] = value }
        return try newsgen(["publish"] + arguments, in: site, environment: env)
    }

    func payloads(_ hub: HubDouble, installation: String) throws -> [[String: Any]] {
        try hub.deliveries().filter { $0["installationId"] as? String == installation }.compactMap { $0["payload"] as? [String: Any] }
    }

    func alert(_ payload: [String: Any]) -> String? { (payload["aps"] as? [String: Any])?["alert"] as? String }

    @Test func seedScenarioOneSendPerStoryEachPhoneInItsLanguage() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let result = try publish(site, hub)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        // Stories go out concurrently: compare without depending on arrival order.
        let sends = try hub.sends().sorted { (($0["body"] as? String) ?? "") < (($1["body"] as? String) ?? "") }
        #expect(sends.count == 2)
        let tags = sends.compactMap { ($0["headers"] as? [String: String])?["servicebusnotification-tags"] }
        #expect(Set(tags) == ["World", "Sports || World"])
        // The French phone subscribed to World gets the French title (quake) and, for the story with no French
        // text, the English one: never a blank alert.
        let french = try payloads(hub, installation: "french-phone").compactMap(alert).sorted()
        #expect(french == ["Un séisme de magnitude 7,1 frappe au large des côtes", "Underdogs win the \"final\" 2–1 ⚽"])
        // The Mandarin phone follows only Sports: nothing for the World-only quake, Chinese for the final.
        let mandarin = try payloads(hub, installation: "mandarin-phone").compactMap(alert)
        #expect(mandarin == ["黑马2比1夺冠"])
        // The old app's template uses messageParam: the default-language text.
        let old = try payloads(hub, installation: "old-app").compactMap(alert).sorted()
        #expect(old == ["Magnitude 7.1 earthquake strikes off the coast", "Underdogs win the \"final\" 2–1 ⚽"])
        #expect(result.standardOutput.contains("sent    quake-off-coast (revision 1) to World: hub notification id "))
        #expect(result.standardOutput.contains("note: no text in French (fr): those devices get the English text"))
        #expect(result.standardOutput.contains("skip    yesterday: published 30 h ago, older than push.max_age (6 h); never announced late"))
        #expect(!result.standardOutput.contains("calm"))
        #expect(result.standardOutput.hasSuffix("2 sent, 1 skipped, 0 failed\n"))

        // The body carries every language, the links and the ids, as JSON of strings.
        let body = try #require(sends.first { (($0["body"] as? String) ?? "").contains("quake-off-coast") }?["body"] as? String)
        let properties = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
        #expect(properties["News_English"] == "Magnitude 7.1 earthquake strikes off the coast")
        #expect(properties["News_Mandarin"] == "近海发生7.1级地震")
        #expect(properties["Url_French"] == "https://news.example.com/fr/2026/11/29/quake/")
        #expect(properties["notificationId"] == "quake-off-coast:1")
        let headers = try #require(sends.last?["headers"] as? [String: String])
        #expect(headers["content-type"] == "application/json;charset=utf-8")
        #expect(headers["servicebusnotification-format"] == "template")

        // A second run sends nothing.
        let again = try publish(site, hub)
        #expect(again.status == 0)
        #expect(try hub.sends().count == 2)
        #expect(again.standardOutput.contains("skip    quake-off-coast: already sent (revision 1) at "))

        // Editing the text does not re-send; bumping the revision sends once more.
        try site.write("content/world/quake.md", Self.stories["content/world/quake.md"]!.replacingOccurrences(of: "at dawn", with: "at 5 a.m."))
        _ = try publish(site, hub)
        #expect(try hub.sends().count == 2)
        try site.write("content/world/quake.md", Self.stories["content/world/quake.md"]!.replacingOccurrences(of: "breaking: true", with: "breaking: true\npush: { revision: 2 }"))
        let third = try publish(site, hub)
        #expect(third.standardOutput.contains("sent    quake-off-coast (revision 2) to World"))
        #expect(try hub.sends().count == 3)
        _ = try publish(site, hub)
        #expect(try hub.sends().count == 3)
    }

    @Test func dryRunSendsAndWritesNothingAndShowsEachDevice() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let before = site.snapshot(".")
        let result = try publish(site, hub, ["--dry-run"])
        #expect(result.status == 0)
        #expect(try hub.requests().isEmpty)
        #expect(site.snapshot(".") == before)
        let out = result.standardOutput
        #expect(out.contains("send    quake-off-coast (revision 1) to World"))
        #expect(out.contains("POST http://127.0.0.1:\(hub.port)/newsgen-test/messages?api-version=2020-06"))
        #expect(out.contains("&sig=<redacted>&"))
        #expect(out.contains("ServiceBusNotification-Tags: Sports || World"))
        #expect(out.contains("ios-french (") && out.contains(#""alert":"Un séisme de magnitude 7,1 frappe au large des côtes""#))
        #expect(out.contains("of 4096 bytes"))
        #expect(out.hasSuffix("2 to send, 1 skipped, 0 failed\n"))

        let json = try publish(site, hub, ["--dry-run", "--json"])
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let stories = try #require(plan["stories"] as? [[String: Any]])
        #expect(stories.map { $0["action"] as? String } == ["skip", "send", "send"])
        let request = try #require(stories[1]["request"] as? [String: Any])
        #expect((request["body"] as? [String: String])?["News_French"] == "Un séisme de magnitude 7,1 frappe au large des côtes")
        #expect(try hub.requests().isEmpty)
    }

    @Test func aCrashAfterSomeSendsThenARerunSendsExactlyTheRest() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site(extraConfig: "\n  concurrency: 1\n")
        // The first send goes through; the second hangs until newsgen is killed mid-flight.
        try hub.inject([["delay_ms": 1], ["delay_ms": 30000, "status": 503]])
        let process = Process()
        process.executableURL = Repository.newsgenBinary
        process.arguments = ["publish"]
        process.currentDirectoryURL = site.url
        var env = hub.environment()
        for (key, value) in Self.now { env[key] = value }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, try hub.requests().count < 2 { Thread.sleep(forTimeInterval: 0.05) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let ledger = try site.read(".newsgen/push-ledger.json")
        #expect(ledger.contains("\"storyId\" : \"quake-off-coast\""))
        #expect(!ledger.contains("\"storyId\" : \"final\""))

        try hub.control("reset", method: "POST")
        let rerun = try publish(site, hub)
        #expect(rerun.status == 0, "\(rerun.standardOutput)")
        let sends = try hub.sends()
        #expect(sends.count == 1)
        #expect((sends.first?["body"] as? String)?.contains("\"storyId\":\"final\"") == true)
        #expect(rerun.standardOutput.contains("skip    quake-off-coast: already sent"))
    }

    @Test(arguments: [
        ("429 with Retry-After, then 201", #"[{"status": 429, "headers": {"Retry-After": "1"}}]"#, 2),
        ("503 twice, then 201", #"[{"status": 503, "times": 2}]"#, 3),
        ("dropped connection, then 201", #"[{"drop": true}]"#, 2),
        ("slow hub past the timeout, then 201", #"[{"delay_ms": 4000, "status": 503}]"#, 2),
        ("403 with Retry-After (legacy throttling), then 201", #"[{"status": 403, "headers": {"Retry-After": "1"}}]"#, 2),
    ])
    func transientFailuresAreRetriedAndSentOnce(_ name: String, _ faults: String, _ attempts: Int) throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site(extraConfig: "\n  concurrency: 1\n")
        try hub.inject(json: faults)
        let started = Date()
        let result = try publish(site, hub)
        #expect(result.status == 0, "\(name): \(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("sent    quake-off-coast (revision 1) to World: hub notification id "))
        #expect(result.standardOutput.contains("\(attempts) attempts"), "\(result.standardOutput)")
        // Every story reached the phones exactly once.
        let notifications = Set(try hub.deliveries().compactMap { $0["notificationId"] as? String })
        #expect(notifications.count == 2)
        #expect(try payloads(hub, installation: "french-phone").count == 2)
        if name.hasPrefix("429") { #expect(Date().timeIntervalSince(started) >= 1) }
    }

    @Test(arguments: [
        ("401", #"[{"status": 401}]"#, "HTTP 401", "the hub rejected the signature"),
        ("404", #"[{"status": 404}]"#, "HTTP 404", "no such hub"),
        ("413", #"[{"status": 413}]"#, "HTTP 413", "64 KB"),
        ("400", #"[{"status": 400}]"#, "HTTP 400", "malformed"),
    ])
    func permanentFailuresAreNotRetried(_ name: String, _ faults: String, _ status: String, _ explanation: String) throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site(extraConfig: "\n  concurrency: 1\n")
        try hub.inject(json: faults)
        let result = try publish(site, hub)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("FAILED  quake-off-coast (revision 1) to World after 1 attempt: \(status)"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("tracking id"))
        #expect(result.standardOutput.contains(explanation))
        // One story failing does not stop the others.
        #expect(result.standardOutput.contains("sent    final (revision 1)"))
        #expect(try hub.sends().count == 2)
        // The failed story was not recorded: the next run sends it.
        let again = try publish(site, hub)
        #expect(again.status == 0)
        #expect(again.standardOutput.contains("sent    quake-off-coast"))
    }

    /// A proxy or a wrong endpoint answering 200 or 204 has announced nothing: only the hub's 201 is a send.
    @Test(arguments: [200, 204])
    func anyAnswerButTwoHundredOneIsNotASend(_ status: Int) throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        try hub.inject([["status": status, "times": 10]])
        let result = try publish(site, hub)
        #expect(result.status == 1, "\(result.standardOutput)")
        for story in ["quake-off-coast (revision 1) to World", "final (revision 1) to Sports || World"] {
            #expect(result.standardOutput.contains("FAILED  \(story) after 1 attempt: HTTP \(status)"), "\(result.standardOutput)")
        }
        #expect(result.standardOutput.contains("the hub answered \(status), not 201: is NEWSGEN_HUB_ENDPOINT a notification hub?"))
        #expect(result.standardOutput.hasSuffix("0 sent, 1 skipped, 2 failed\n"))
        #expect(try hub.sends().count == 2)  // never retried
        #expect(try hub.deliveries().isEmpty)
        let ledger = (try? site.read(".newsgen/push-ledger.json")) ?? ""
        #expect(!ledger.contains("storyId"))

        // Against a hub that answers 201, the next run sends each story once.
        try hub.control("reset", method: "POST")
        let again = try publish(site, hub)
        #expect(again.status == 0, "\(again.standardOutput)")
        #expect(again.standardOutput.contains("sent    quake-off-coast (revision 1) to World"))
        #expect(again.standardOutput.contains("sent    final (revision 1)"))
        #expect(try hub.sends().count == 2)
        #expect(Set(try hub.deliveries().compactMap { $0["notificationId"] as? String }).count == 2)
        #expect(try payloads(hub, installation: "french-phone").count == 2)
        #expect(try publish(site, hub).standardOutput.hasSuffix("0 sent, 3 skipped, 0 failed\n"))
        #expect(try hub.sends().count == 2)
    }

    @Test func wrongKeyGets401AndTheListenKeyIsRefusedWith403() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let wrong = try publish(site, hub, environment: hub.environment(key: "bm90LXRoZS1yaWdodC1rZXk="))
        #expect(wrong.status == 1)
        #expect(wrong.standardOutput.contains("HTTP 401"))
        #expect(wrong.standardOutput.contains("the hub rejected the signature"))
        let listen = try publish(site, hub, environment: hub.environment(key: HubDouble.listenKey, keyName: "DefaultListenSharedAccessSignature"))
        #expect(listen.status == 1)
        #expect(listen.standardOutput.contains("HTTP 403"))
        #expect(listen.standardOutput.contains("this key cannot send; use a key with the Send right (the apps' Listen key must never be used here)"))
        #expect(try hub.sends().count == 4)  // two stories × two runs, none retried
        let ledger = (try? site.read(".newsgen/push-ledger.json")) ?? ""
        #expect(!ledger.contains("storyId"))
    }

    @Test func noSecretInAnyOutput() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        var outputs: [String] = []
        for arguments in [["--dry-run"], ["--dry-run", "--json"], [], ["--json"],
                          ["--test", "calm", "--to", "World"], ["--test", "calm", "--to", "World", "--json"]] {
            let result = try publish(site, hub, arguments)
            outputs += [result.standardOutput, result.standardError]
        }
        for arguments in [["status"], ["status", "--json"], ["status", "quake-off-coast"], ["next-change"], ["next-change", "--json"],
                          ["publish", "--wait", "--json"]] {
            var env = hub.environment()
            for (key, value) in Self.now { env[key] = value }
            let result = try newsgen(arguments, in: site, environment: env)
            outputs += [result.standardOutput, result.standardError]
        }
        let bad = try publish(site, hub, environment: ["NEWSGEN_HUB_CONNECTION_STRING": "Endpoint=sb://x/;SharedAccessKeyName=k;SharedAccessKey=\(HubDouble.sendKey);Bogus",
                                                       "NEWSGEN_HUB_ENDPOINT": "http://example.com/"])
        outputs += [bad.standardOutput, bad.standardError]
        #expect(bad.status == 1)
        // Signatures sent to the hub never appear either.
        let signatures = try hub.sends().compactMap { ($0["headers"] as? [String: String])?["authorization"] }
            .compactMap { $0.split(separator: "&").first { $0.hasPrefix("sig=") } }
        #expect(!signatures.isEmpty)
        for output in outputs {
            #expect(!output.contains(HubDouble.sendKey))
            #expect(!output.contains(String(HubDouble.sendKey.prefix(20))))
            for signature in signatures { #expect(!output.contains(signature)) }
        }
    }

    @Test func checkLiveWaitsForEveryPageAndNeverSendsToA404() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let server = try StaticServer(root: site.url.appendingPathComponent("site"))
        let base = "http://127.0.0.1:\(server.port)/"
        // Nothing built yet: every page is a 404, so nothing is sent.
        try FileManager.default.createDirectory(at: site.url.appendingPathComponent("site"), withIntermediateDirectories: true)
        let early = try publish(site, hub, ["--check-live", "--live-wait", "1s", "--base-url", base])
        #expect(early.status == 1)
        #expect(early.standardOutput.contains("FAILED  quake-off-coast (revision 1) to World: not sent, because \(base)en/2026/11/29/quake/ is not live (HTTP 404 after waiting 1 s)"))
        #expect(try hub.sends().isEmpty)
        // Built: the pages answer 200 and the alerts go out, with the links that were checked.
        let build = try newsgen(["build", "--base-url", base], in: site, environment: Self.now)
        #expect(build.status == 0)
        let live = try publish(site, hub, ["--check-live", "--live-wait", "5s", "--base-url", base])
        #expect(live.status == 0, "\(live.standardOutput)")
        #expect(try hub.sends().count == 2)
        #expect(try hub.sends().contains { (($0["body"] as? String) ?? "").contains("\(base)fr/2026/11/29/quake/") })
    }

    @Test func aPayloadOverFourKilobytesIsAnErrorWithOrWithoutDryRun() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let long = String(repeating: "Très long texte d’alerte. ", count: 200)
        try site.write("content/world/quake.md", Self.stories["content/world/quake.md"]!
            .replacingOccurrences(of: "breaking: true", with: "breaking: true\npush:\n  text: { fr: \"\(long)\" }"))
        for arguments in [["--dry-run"], []] {
            let result = try publish(site, hub, arguments)
            #expect(result.status == 1)
            #expect(result.standardOutput.contains("FAILED  quake-off-coast: the payload for ios-french ("), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("bytes) is over the 4096-byte platform limit; shorten the push text; not sent"))
        }
        // Only the other story went out.
        #expect(try hub.sends().count == 1)
    }

    @Test func missingTextFailsWhenConfiguredTo() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site(extraConfig: "\n  missing_text: fail\n")
        let result = try publish(site, hub)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("FAILED  final: no fr text (title or push.text) and push.missing_text is fail; not sent"))
        #expect(try hub.sends().count == 1)
    }

    /// A dry run says what a real run would do: an endpoint the real run refuses is refused, with the same words.
    @Test(arguments: ["http://news.example.com/", "http://10.0.0.8:8085/", "ftp://127.0.0.1/"])
    func aDryRunRefusesAnEndpointExactlyAsARealRun(_ endpoint: String) throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        var environment = hub.environment()
        environment["NEWSGEN_HUB_ENDPOINT"] = endpoint
        let real = try publish(site, hub, environment: environment)
        #expect(real.status == 1)
        #expect(real.standardError.hasPrefix("error: NEWSGEN_HUB_ENDPOINT "), "\(real.standardError)")
        #expect(real.standardError.hasSuffix("; nothing was sent\n"))
        var secretless = environment
        secretless["NEWSGEN_HUB_CONNECTION_STRING"] = nil
        for (arguments, env) in [(["--dry-run"], environment), (["--dry-run", "--json"], environment), (["--dry-run"], secretless)] {
            let dry = try publish(site, hub, arguments, environment: env)
            #expect(dry.status == real.status, "\(arguments): \(dry.standardOutput)")
            #expect(dry.standardError == real.standardError)
            #expect(dry.standardOutput == real.standardOutput)
            #expect(!dry.standardOutput.contains("POST "))
            for output in [dry.standardOutput, dry.standardError] {
                #expect(!output.contains(String(HubDouble.sendKey.prefix(12))))
                #expect(!output.contains("sig="))
            }
        }
        #expect(try hub.requests().isEmpty)

        // Without secrets and without an endpoint, a dry run still previews, with placeholders for the hub.
        let preview = try publish(site, hub, ["--dry-run"], environment: [:])
        #expect(preview.status == 0, "\(preview.standardError)")
        #expect(preview.standardOutput.contains("note: NEWSGEN_HUB_CONNECTION_STRING is not set"))
        #expect(preview.standardOutput.contains("POST https://<namespace from NEWSGEN_HUB_CONNECTION_STRING>/<hub>/messages"))
    }

    /// Something in the ledger's place that is not a regular file stops a run, a dry run too, before anything is
    /// sent: a lost link target taken for "no ledger" would announce every story again.
    @Test(arguments: ["dangling symbolic link", "folder", "FIFO", "symbolic link to /dev/full"])
    func aDamagedLedgerSendsNothing(_ kind: String) throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let path = site.path + "/.newsgen/push-ledger.json"
        try FileManager.default.createDirectory(atPath: site.path + "/.newsgen", withIntermediateDirectories: true)
        switch kind {
        case "dangling symbolic link": try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: site.path + "/cache/push-ledger.json")
        case "folder": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "FIFO": #expect(mkfifo(path, 0o644) == 0)
        default: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
        }
        for arguments in [[], ["--dry-run"]] {
            let result = try publish(site, hub, arguments)
            #expect(result.status == 1)
            #expect(result.standardError.hasPrefix("error: the ledger \(path) is damaged (it is "), "\(result.standardError)")
            #expect(result.standardError.contains("nothing was sent"))
            #expect(result.standardOutput.isEmpty)
        }
        #expect(try hub.requests().isEmpty)
    }

    /// The ledger is proved writable before the first send: when it cannot be written, nothing goes out, rather
    /// than alerts that the next run would send again.
    @Test(arguments: [
        ("a full disk", "No space left on device"),
        ("a folder where the rewrite's temporary file goes", "Is a directory"),
    ])
    func aLedgerThatCannotBeWrittenStopsTheRunBeforeTheFirstSend(_ kind: String, _ reason: String) throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let temporary = site.path + "/.newsgen/push-ledger.json.tmp"
        try FileManager.default.createDirectory(atPath: site.path + "/.newsgen", withIntermediateDirectories: true)
        if kind == "a full disk" {
            // Every write to /dev/full fails with ENOSPC, also for root.
            try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: "/dev/full")
        } else {
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        }
        let result = try publish(site, hub)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("error: the ledger cannot be written (could not "), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("\(temporary): \(reason)); nothing was sent\n"))
        #expect(try hub.requests().isEmpty)

        try FileManager.default.removeItem(atPath: temporary)
        let again = try publish(site, hub)
        #expect(again.status == 0, "\(again.standardOutput)\n\(again.standardError)")
        #expect(try hub.sends().count == 2)
    }

    @Test func withoutAConnectionStringNothingIsSent() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let result = try publish(site, hub, environment: [:])
        #expect(result.status == 1)
        #expect(result.standardError.contains("NEWSGEN_HUB_CONNECTION_STRING is not set"))
        let insecure = try publish(site, hub, environment: ["NEWSGEN_HUB_CONNECTION_STRING": hub.connectionString(), "NEWSGEN_HUB_ENDPOINT": "http://news.example.com/"])
        #expect(insecure.status == 1)
        #expect(insecure.standardError.contains("only https is allowed there"))
        #expect(try hub.requests().isEmpty)
    }
}
