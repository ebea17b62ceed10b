import Foundation
import HTTP
import Hub
import News
import Site

/// `newsgen status [<story id>…] [--since <duration>] [--json]`: what happened to the alerts in the ledger, as
/// the hub's per-message telemetry tells it.
enum StatusCommand {
    static let flags = ["--json", "--help"]
    static let options = ["--site", "--ledger", "--since"]

    static func run(_ arguments: [String], environment: [String: String], console: Console) async throws(UsageError) -> Int32 {
        let parsed = try ParsedArguments(arguments, command: "status", flags: flags, options: options, positional: .max)
        if parsed.flags.contains("--help") {
            console.out(Help.commands["status"]!)
            return ExitCode.success
        }
        var since = 24 * 3600.0
        if let text = parsed.options["--since"] {
            guard let seconds = DurationText.seconds(text) else {
                throw UsageError(message: "--since needs a duration such as 24h or 90m, found '\(text)'", command: "status")
            }
            since = seconds
        }
        guard let site = LoadedSite.load(parsed, environment: environment, console: console) else { return ExitCode.failure }
        let (now, edition, ledgerPath) = (site.now, site.edition, site.ledgerPath)
        let records: [LedgerRecord]
        do {
            records = try Ledger.read(path: ledgerPath).all
        } catch {
            console.err("error: \(error.message)")
            return ExitCode.failure
        }
        let chosen = select(records, storyIDs: parsed.positional, now: now, since: since)
        if let unknown = parsed.positional.first(where: { id in !records.contains { $0.storyId == id } }) {
            var message = "error: the ledger has no send of \"\(unknown)\""
            if let close = Suggestion.closest(to: unknown, in: Array(Set(records.map(\.storyId))).sorted()) { message += " (did you mean \"\(close)\"?)" }
            console.err(message)
            return ExitCode.failure
        }
        let connection: HubConnection
        do {
            connection = try HubConnection.resolve(environment: environment, configuredHub: edition.config.push.hub)
        } catch {
            console.err("error: \(error.message)")
            return ExitCode.failure
        }
        let settings = edition.config.push
        let reader = TelemetryReader(connection: connection,
                                     transport: CurlTransport(timeouts: HTTPTimeouts(connect: settings.connectTimeout, total: settings.timeout),
                                                              maxConcurrentTransfers: settings.concurrency))
        let answers = await fetchAll(chosen, reader: reader)
        let report = Report(records: chosen, answers: answers, now: now, since: parsed.positional.isEmpty ? since : nil,
                            ledgerPath: ledgerPath, hub: connection.description)
        console.out(parsed.flags.contains("--json") ? report.json() : report.text())
        return answers.values.contains { if case .failed = $0 { return true } else { return false } } ? ExitCode.failure : ExitCode.success
    }

    /// The records of `storyIDs` (any age), or else every record sent in the last `since` seconds; oldest first.
    static func select(_ records: [LedgerRecord], storyIDs: [String], now: Timestamp, since: Double) -> [LedgerRecord] {
        let chosen = records.filter { record in
            if !storyIDs.isEmpty { return storyIDs.contains(record.storyId) }
            guard case .success(let sent) = Timestamp.parse(record.sentAt) else { return true }
            return sent.secondsSinceEpoch > now.secondsSinceEpoch - since
        }
        return chosen.sorted { $0.sentAt != $1.sentAt ? $0.sentAt < $1.sentAt : $0.key < $1.key }
    }

    /// Telemetry by ledger key, for the records that have a notification id.
    static func fetchAll(_ records: [LedgerRecord], reader: TelemetryReader) async -> [String: TelemetryAnswer] {
        await withTaskGroup(of: (String, TelemetryAnswer).self) { group in
            for record in records {
                guard let id = record.hubNotificationId else { continue }
                group.addTask { (record.key, await reader.fetch(id)) }
            }
            var answers: [String: TelemetryAnswer] = [:]
            for await (key, answer) in group { answers[key] = answer }
            return answers
        }
    }

    static let noIdentifier = "no notification id: the hub did not return one when it accepted the send (Free and Basic hubs do not), so it has no telemetry to ask for"

    struct Report {
        var records: [LedgerRecord]
        var answers: [String: TelemetryAnswer]
        var now: Timestamp
        /// The window, when no story ids were given.
        var since: Double?
        var ledgerPath: String
        var hub: String

        func text() -> String {
            var lines = ["status: now \(now.rfc3339), \(hub), ledger \(ledgerPath)"]
            if records.isEmpty {
                lines.append(since.map { "no sends in the last \(DurationText.describe($0))" } ?? "no sends")
            }
            for record in records {
                lines.append("\(record.storyId) (revision \(record.revision)) sent \(record.sentAt) to \(record.tags)")
                if let id = record.hubNotificationId { lines.append("  notification id \(id)") }
                lines.append("  " + (answers[record.key]?.note ?? StatusCommand.noIdentifier))
            }
            return lines.joined(separator: "\n")
        }

        struct JSONStatus: Encodable {
            var now: String
            var hub: String
            var ledger: String
            var sends: [JSONSend]
        }
        struct JSONSend: Encodable {
            var id: String
            var revision: Int
            var sentAt: String
            var tags: String
            var hubNotificationId: String?
            var telemetry: JSONTelemetry
        }

        func json() -> String {
            let sends = records.map { record in
                JSONSend(id: record.storyId, revision: record.revision, sentAt: record.sentAt, tags: record.tags,
                         hubNotificationId: record.hubNotificationId,
                         telemetry: JSONTelemetry(answers[record.key], missing: StatusCommand.noIdentifier))
            }
            return PublishReport.encode(JSONStatus(now: now.rfc3339, hub: hub, ledger: ledgerPath, sends: sends))
        }
    }
}

/// A telemetry answer in `--json` output: `available` false with the hub's note when there is none.
struct JSONTelemetry: Encodable {
    var available: Bool
    var state: String?
    var outcomes: [String: [String: Int]]?
    var note: String

    init(_ answer: TelemetryAnswer?, missing: String) {
        note = answer?.note ?? missing
        guard case .details(let details)? = answer else {
            available = false
            return
        }
        available = true
        state = details.state
        outcomes = Dictionary(details.platforms.map { platform in
            (platform.platform, Dictionary(platform.counts.map { ($0.outcome, $0.count) }, uniquingKeysWith: +))
        }, uniquingKeysWith: { a, _ in a })
    }
}
