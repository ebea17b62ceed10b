import Foundation
import HTTP
import Synchronization
import Testing
@testable import Hub
@testable import News
@testable import Site
import TestSupport

/// Planner, ledger, connection and publisher, in process, without a network.
@Suite struct PublishCoreTests {
    static let config = """
    title: News
    base_url: https://news.example.com/
    languages:
      - code: en
        name: English
      - code: fr
        name: French
      - code: ar
        name: Arabic
    categories:
      - name: World
      - name: Politics
    push:
      hub: news
    """

    static func edition(_ stories: [String: String], config: String = config) throws -> (Edition, TemporarySite) {
        var files = stories
        files["newsgen.yml"] = config
        let site = try TemporarySite(files: files)
        return (try Edition.load(directory: site.path), site)
    }

    static let now = Timestamp(secondsSinceEpoch: 1_795_964_400)  // 2026-11-29T15:00:00Z

    static let tricky = """
    ---
    category: [World, Politics]
    published: 2026-11-29T14:00:00Z
    breaking: true
    title:
      en: "He said \\"stop\\" \\\\ then 🚨 left"
      ar: "عاجل: زلزال قوي"
    push:
      text: { fr: "Alerte : « séisme » 地震" }
    ---
    Body.
    """

    func notification(_ entries: [PlanEntry]) -> Hub.Notification? {
        for entry in entries { if case .send(let n) = entry { return n } }
        return nil
    }

    @Test func bodyEncodingKeepsQuotesBackslashesEmojiCJKAndRTL() throws {
        let (edition, _site) = try Self.edition(["content/a.md": Self.tricky])
        _ = _site
        let entries = NotificationPlanner(edition: edition, now: Self.now, sent: [:]).plan()
        let n = try #require(notification(entries))
        #expect(n.tags.headerValue == "World || Politics")
        let decoded = try JSONSerialization.jsonObject(with: Data(n.body)) as? [String: String]
        #expect(decoded?["News_English"] == "He said \"stop\" \\ then 🚨 left")
        #expect(decoded?["News_French"] == "Alerte : « séisme » 地震")
        #expect(decoded?["News_Arabic"] == "عاجل: زلزال قوي")
        #expect(decoded?["messageParam"] == "He said \"stop\" \\ then 🚨 left")
        #expect(decoded?["categories"] == "World,Politics")
        #expect(decoded?["Url_French"] == "https://news.example.com/fr/2026/11/29/a/")
        // Deterministic bytes: keys sorted, compact, slashes unescaped.
        let text = String(decoding: n.body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"News_Arabic":"عاجل: زلزال قوي","News_English":"He said \"stop\" \\ then 🚨 left""#))
        #expect(text.contains(#""url":"https://news.example.com/en/2026/11/29/a/""#))
        #expect(n.filledLanguages.isEmpty)
    }

    @Test func skipsWithReasons() throws {
        let story = { (extra: String, published: String) in
            "---\ncategory: World\npublished: \(published)\nbreaking: true\ntitle: T\n\(extra)---\nB\n"
        }
        let (edition, site) = try Self.edition([
            "content/draft.md": story("draft: true\n", "2026-11-29T14:00:00Z"),
            "content/future.md": story("", "2026-11-29T16:00:00Z"),
            "content/old.md": story("", "2026-11-29T08:59:00Z"),
            "content/fresh.md": story("", "2026-11-29T09:01:00Z"),
            "content/corrected.md": story("updated: 2026-11-29T14:30:00Z\ncorrection: Fixed a name.\n", "2026-11-29T14:00:00Z"),
            "content/calm.md": "---\ncategory: World\npublished: 2026-11-29T14:00:00Z\ntitle: T\n---\nB\n",
        ])
        _ = site
        let sent = ["fresh:1": LedgerRecord(storyId: "fresh", revision: 1, sentAt: "2026-11-29T09:02:00Z", tags: "World", bodySHA256: "")]
        let entries = NotificationPlanner(edition: edition, now: Self.now, sent: sent).plan()
        let reasons = Dictionary(uniqueKeysWithValues: entries.compactMap { entry -> (String, String)? in
            if case .skip(let story, let reason) = entry { return (story.id, reason) }
            return nil
        })
        #expect(reasons["draft"] == "draft")
        #expect(reasons["future"] == "scheduled for 2026-11-29T16:00:00Z; not published yet")
        #expect(reasons["old"] == "published 6 h 1 min ago, older than push.max_age (6 h); never announced late")
        #expect(reasons["fresh"] == "already sent (revision 1) at 2026-11-29T09:02:00Z")
        #expect(reasons["corrected"] == "has a correction; corrections are not announced")
        #expect(entries.count == 5)  // calm is not breaking: not a candidate at all
        // Oldest first, so the newest alert arrives last.
        #expect(entries.map(\.story.id) == ["old", "fresh", "corrected", "draft", "future"])
    }

    /// The ledger keeps each body's SHA-256, so the body's bytes are a contract: compact JSON, keys in byte order,
    /// only what JSON requires escaped (as Foundation's encoder wrote it before `JSONWriter` did).
    @Test func theRequestBodyIsCompactSortedJSONByteForByte() throws {
        let text = "Quake \"now\" \\ a/b\u{2028}\u{2029} <é> 東京"
        let story = "---\ncategory: World\npublished: 2026-11-29T14:00:00Z\nbreaking: true\ntitle: \(NewStory.yamlText(text, quoted: true))\n---\nB\n"
        let (edition, site) = try Self.edition(["content/s.md": story])
        _ = site
        let n = try #require(notification(NotificationPlanner(edition: edition, now: Self.now, sent: [:]).plan()))
        #expect(n.properties.values.contains(text))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(n.body == Array(try encoder.encode(n.properties)))
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        #expect(n.prettyBody == String(decoding: try encoder.encode(n.properties), as: UTF8.self))
    }

    @Test func missingTextIsFilledOrFails() throws {
        let story = "---\ncategory: World\npublished: 2026-11-29T14:00:00Z\nbreaking: true\ntitle: Only English\n---\nB\n"
        let (edition, site) = try Self.edition(["content/s.md": story])
        _ = site
        let n = try #require(notification(NotificationPlanner(edition: edition, now: Self.now, sent: [:]).plan()))
        #expect(n.properties["News_French"] == "Only English")
        #expect(n.filledLanguages.map(\.code) == ["fr", "ar"])
        let (strict, site2) = try Self.edition(["content/s.md": story], config: Self.config + "\n  missing_text: fail\n")
        _ = site2
        let entries = NotificationPlanner(edition: strict, now: Self.now, sent: [:]).plan()
        guard case .fail(_, let reason) = entries[0] else { Issue.record("expected a failure"); return }
        #expect(reason == "no fr text (title or push.text) and push.missing_text is fail")
    }

    @Test func ledgerIsDurableLockedAndRefusesDamage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("sub/push-ledger.json").path
        let record = LedgerRecord(storyId: "a", revision: 2, sentAt: "2026-11-29T15:00:00Z", tags: "World",
                                  bodySHA256: Ledger.hexSHA256(Array("{}".utf8)), hubNotificationId: "n1", trackingId: "t1")
        try await holdingTheLock(path, record)
        #expect(record.bodySHA256 == "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a")
        #expect(try openOnceReleased(path).all == [record])
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Ledger.read(path: path)
            Issue.record("a damaged ledger must be refused")
        } catch {
            #expect(error.message.contains("is damaged"))
            #expect(error.message.contains("nothing was sent"))
        }
    }

    /// Anything but a regular file in the ledger's place is damage, for a dry run and a real one: never "no
    /// ledger" (everything would go out again), and a FIFO is not waited on.
    @Test(arguments: ["dangling symbolic link", "folder", "FIFO", "symbolic link to /dev/full"])
    func whatIsNotARegularFileIsADamagedLedger(_ kind: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("push-ledger.json").path
        let why: String
        switch kind {
        case "dangling symbolic link":
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: folder.path + "/gone/push-ledger.json")
            why = "it is a symbolic link to \(folder.path)/gone/push-ledger.json, which cannot be followed: No such file or directory"
        case "folder":
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            why = "it is a folder, not a file"
        case "FIFO":
            #expect(mkfifo(path, 0o644) == 0)
            why = "it is a FIFO, not a regular file"
        default:
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
            why = "it is a device, not a regular file"
        }
        let expected = "the ledger \(path) is damaged (\(why)); nothing was sent, because without it alerts could go out twice. Restore it from CI's cache or a backup"
        #expect(throws: LedgerError(message: expected)) { try Ledger.read(path: path) }
        #expect(throws: LedgerError(message: expected)) { try Ledger.openForSending(path: path) }
    }

    /// A ledger that is a symbolic link to a regular file is read and rewritten through the link, which stays.
    @Test func aLinkedLedgerIsWrittenThroughTheLink() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("cache"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("cache/push-ledger.json").path
        let path = folder.appendingPathComponent("push-ledger.json").path
        let record = LedgerRecord(storyId: "a", revision: 1, sentAt: "2026-11-29T15:00:00Z", tags: "World", bodySHA256: "00")
        let first = try Ledger.openForSending(path: target)
        try await first.record(record)
        first.release()
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let ledger = try openOnceReleased(path)
        #expect(ledger.all == [record])
        let second = LedgerRecord(storyId: "b", revision: 1, sentAt: "2026-11-29T15:01:00Z", tags: "World", bodySHA256: "01")
        try await ledger.record(second)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target)
        #expect(try Ledger.read(path: target).all == [record, second])
    }

    /// Before the first send the unchanged ledger is written as a send would be: a full disk fails there.
    @Test func provingTheLedgerWritableFailsOnAFullDiskAndChangesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("push-ledger.json").path
        let record = LedgerRecord(storyId: "a", revision: 1, sentAt: "2026-11-29T15:00:00Z", tags: "World", bodySHA256: "00")
        let ledger = try Ledger.openForSending(path: path)
        try ledger.proveWritable()
        try await ledger.record(record)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try ledger.proveWritable()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)   // unchanged, and written again

        // The temporary file the rewrite makes is /dev/full: every write fails with ENOSPC, even for root.
        try FileManager.default.createSymbolicLink(atPath: path + ".tmp", withDestinationPath: "/dev/full")
        #expect(throws: LedgerError(message: "could not write \(path).tmp: No space left on device")) { try ledger.proveWritable() }
        #expect(ledger.writeFailure != nil)   // nothing may be sent after this
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(ledger.all == [record])
    }

    /// Sends accepted together are recorded by one rewrite (a group commit); every one of them is on disk when
    /// its `record` returns, and the file is laid out exactly as `JSONEncoder` lays out the whole ledger.
    @Test func concurrentRecordsAreAllDurableInTheEncodersLayout() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("push-ledger.json").path
        let ledger = try Ledger.openForSending(path: path)
        try await ledger.record(LedgerRecord(storyId: "first", revision: 1, sentAt: "2026-11-29T15:00:00Z", tags: "World",
                                             bodySHA256: "00", hubNotificationId: nil, trackingId: nil))
        let records = (0..<24).map { index in
            LedgerRecord(storyId: "story-\(index)", revision: 1 + index % 3, sentAt: "2026-11-29T15:00:\(10 + index)Z",
                         tags: index % 2 == 0 ? "World || Politics" : "Sports",
                         bodySHA256: Ledger.hexSHA256(Array("body \(index)".utf8)),
                         hubNotificationId: index % 4 == 0 ? nil : "n/\(index) \"quoted\" 东京", trackingId: "t\(index)")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for record in records { group.addTask { try await ledger.record(record) } }
            try await group.waitForAll()
        }
        let onDisk = try Ledger.read(path: path).all
        #expect(onDisk.count == 25)
        #expect(Set(onDisk) == Set(ledger.all))
        #expect(Set(records).isSubset(of: Set(onDisk)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let expected = try encoder.encode(Ledger.File(format: Ledger.format, sends: onDisk)) + Data([10])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == expected)
    }

    @Test func aFailedRewriteFailsTheRecordsInItAndKeepsNone() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("push-ledger.json").path
        let ledger = try Ledger.openForSending(path: path)
        try FileManager.default.removeItem(at: folder)   // the rewrite cannot create its temporary file
        let record = LedgerRecord(storyId: "lost", revision: 1, sentAt: "2026-11-29T15:00:00Z", tags: "World",
                                  bodySHA256: "00", hubNotificationId: nil, trackingId: nil)
        await #expect(throws: LedgerError.self) { try await ledger.record(record) }
        #expect(ledger.all.isEmpty)
        #expect(ledger.writeFailure != nil)   // the publisher sends nothing more after this
    }

    /// Opens a ledger for sending just after another handle released it. Other tests in this process start
    /// child processes, and a child holds a copy of every open descriptor (so of the lock) from its fork to its
    /// exec; `newsgen publish` starts none, but here the lock may outlive `release` by that moment, so this
    /// allows it a second.
    func openOnceReleased(_ path: String) throws(LedgerError) -> Ledger {
        let deadline = Date().addingTimeInterval(1)
        while true {
            do throws(LedgerError) {
                return try Ledger.openForSending(path: path)
            } catch where error.message.hasPrefix("another newsgen publish") && Date() < deadline {
                usleep(10_000)
            }
        }
    }

    func holdingTheLock(_ path: String, _ record: LedgerRecord) async throws {
        let ledger = try Ledger.openForSending(path: path)
        try await ledger.record(record)
        // Another reader sees it at once (it is on disk), while the lock is still held.
        #expect(try Ledger.read(path: path).byKey["a:2"] == record)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        do {
            _ = try Ledger.openForSending(path: path)
            Issue.record("a second publish must not get the lock")
        } catch {
            #expect(error.message.hasPrefix("another newsgen publish is using the ledger"))
        }
        ledger.release()
        #expect(throws: Never.self) { _ = try openOnceReleased(path) }   // closed: the next publish may use it
    }

    @Test func connectionFromTheEnvironment() throws {
        let base = ["NEWSGEN_HUB_CONNECTION_STRING": "SharedAccessKey=abc=;Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Full"]
        let connection = try HubConnection.resolve(environment: base, configuredHub: "news")
        #expect(connection.messagesURL == "https://ns.servicebus.windows.net/news/messages?api-version=2020-06")
        #expect(connection.authorization(now: 1_700_000_000).hasPrefix("SharedAccessSignature sr=https%3a%2f%2fns.servicebus.windows.net%2fnews&sig="))
        #expect(connection.authorization(now: 1_700_000_000).hasSuffix("&se=1700000300&skn=Full"))
        #expect(connection.redactedAuthorization(now: 1).contains("&sig=<redacted>&"))
        #expect(!connection.description.contains("abc"))
        var env = base
        env["NEWSGEN_HUB_NAME"] = "other"
        env["NEWSGEN_HUB_ENDPOINT"] = "http://127.0.0.1:9/"
        let local = try HubConnection.resolve(environment: env, configuredHub: "news")
        #expect(local.messagesURL == "http://127.0.0.1:9/other/messages?api-version=2020-06")
        env["NEWSGEN_HUB_ENDPOINT"] = "http://hub.example.com/"
        #expect(throws: HubConfigurationError.self) { try HubConnection.resolve(environment: env, configuredHub: nil) }
        #expect(throws: HubConfigurationError.self) { try HubConnection.resolve(environment: [:], configuredHub: "news") }
        #expect(throws: HubConfigurationError.self) {
            try HubConnection.resolve(environment: ["NEWSGEN_HUB_CONNECTION_STRING": "Endpoint=sb://ns/;SharedAccessKeyName=a;SharedAccessKey=b"], configuredHub: nil)
        }
    }

    /// A transport that answers from a script and records what it was asked.
    final class ScriptedTransport: HTTPTransport {
        let script: Mutex<[Result<HTTPResponse, HTTPError>]>
        let seen = Mutex<[HTTPRequest]>([])
        init(_ script: [Result<HTTPResponse, HTTPError>]) { self.script = Mutex(script) }
        func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
            seen.withLock { $0.append(request) }
            let next = script.withLock { $0.isEmpty ? .success(HTTPResponse(status: 201)) : $0.removeFirst() }
            return try next.get()
        }
    }

    final class SleepLog: Sendable {
        let values = Mutex<[Double]>([])
        func withLock<T>(_ body: (inout [Double]) -> T) -> T { values.withLock { body(&$0) } }
    }

    func publisher(_ transport: ScriptedTransport, ledger: Ledger, sleeps: SleepLog) -> Publisher {
        var publisher = Publisher(connection: HubConnection(baseURL: "https://ns.example/", hubName: "news", keyName: "Full", key: "k"),
                                  transport: transport, ledger: ledger, policy: RetryPolicy(maxAttempts: 4),
                                  concurrency: 2, liveCheck: nil)
        publisher.sleep = { seconds in sleeps.withLock { $0.append(seconds) } }
        publisher.jitter = { 0.5 }
        publisher.clock = { 1_795_964_400 }
        return publisher
    }

    @Test func onceTheLedgerCannotBeWrittenNothingMoreIsSent() async throws {
        let second = Self.tricky.replacingOccurrences(of: "published: 2026-11-29T14:00:00Z", with: "published: 2026-11-29T14:10:00Z")
        let (edition, site) = try Self.edition(["content/a.md": Self.tricky, "content/b.md": second])
        let notifications = NotificationPlanner(edition: edition, now: Self.now, sent: [:]).plan().compactMap { entry -> Hub.Notification? in
            if case .send(let n) = entry { return n }
            return nil
        }
        #expect(notifications.count == 2)
        let path = site.path + "/.newsgen/push-ledger.json"
        let ledger = try Ledger.openForSending(path: path)
        // A folder where the ledger file should be: the rename after the first accepted send fails.
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let transport = ScriptedTransport([])
        var publisher = publisher(transport, ledger: ledger, sleeps: SleepLog())
        publisher.concurrency = 1
        let results = await publisher.publish(notifications)
        guard case .failed(let first, _)? = results["a"], case .failed(let second, let attempts)? = results["b"] else {
            Issue.record("both must fail: \(results)")
            return
        }
        #expect(first.hasPrefix("the hub accepted it, but recording it failed"))
        #expect(second.hasPrefix("not sent, because the ledger cannot record sends"))
        #expect(attempts == 0)
        #expect(transport.seen.withLock { $0.count } == 1)
    }

    @Test func retriesOnTheScheduleAndRecordsOnlyAcceptedSends() async throws {
        let (edition, site) = try Self.edition(["content/a.md": Self.tricky])
        let n = try #require(notification(NotificationPlanner(edition: edition, now: Self.now, sent: [:]).plan()))
        let ledger = try Ledger.openForSending(path: site.path + "/.newsgen/push-ledger.json")
        let sleeps = SleepLog()
        let transport = ScriptedTransport([
            .success(HTTPResponse(status: 429, headers: [HTTPHeader("Retry-After", "7")])),
            .failure(HTTPError(kind: .connectionLost, message: "127.0.0.1:1: connection reset")),
            .success(HTTPResponse(status: 503)),
            .success(HTTPResponse(status: 201, headers: [HTTPHeader("Location", "https://ns.example/news/messages/abc-123?api-version=2020-06"), HTTPHeader("TrackingId", "t-9")])),
        ])
        let results = await publisher(transport, ledger: ledger, sleeps: sleeps).publish([n])
        guard case .sent(let record, let attempts)? = results[n.story.id] else { Issue.record("not sent: \(String(describing: results))"); return }
        #expect(attempts == 4)
        #expect(record.hubNotificationId == "abc-123")
        #expect(record.trackingId == "t-9")
        #expect(record.tags == "World || Politics")
        #expect(sleeps.withLock { $0 } == [7, 1.5, 3])  // Retry-After, then 2 s × 0.75, 4 s × 0.75
        #expect(ledger.byKey["a:1"] == record)
        let requests = transport.seen.withLock { $0 }
        #expect(requests.count == 4)
        #expect(Set(requests.map { $0.body }).count == 1)  // the same body on every attempt
        #expect(requests[0].headers.contains(HTTPHeader("ServiceBusNotification-Tags", "World || Politics")))
        #expect(requests[0].url == "https://ns.example/news/messages?api-version=2020-06")

        let refused = ScriptedTransport([.success(HTTPResponse(status: 403, headers: [HTTPHeader("TrackingId", "t-1")]))])
        let other = try Ledger.openForSending(path: site.path + "/other.json")
        let outcome = await publisher(refused, ledger: other, sleeps: sleeps).publish([n])
        guard case .failed(let reason, let tries)? = outcome[n.story.id] else { Issue.record("expected failure"); return }
        #expect(tries == 1)
        #expect(reason == "HTTP 403 (tracking id t-1): this key cannot send; use a key with the Send right (the apps' Listen key must never be used here)")
        #expect(other.all.isEmpty)
    }
}
