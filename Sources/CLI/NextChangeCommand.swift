import Foundation
import Hub
import Site

/// `newsgen next-change`: when the site or the alerts next change without anyone editing a file, for a cron
/// that rebuilds only when something is due.
enum NextChangeCommand {
    static let flags = ["--json", "--help"]
    static let options = ["--site", "--ledger"]

    static func run(_ arguments: [String], environment: [String: String], console: Console) throws(UsageError) -> Int32 {
        let parsed = try ParsedArguments(arguments, command: "next-change", flags: flags, options: options)
        if parsed.flags.contains("--help") {
            console.out(Help.commands["next-change"]!)
            return ExitCode.success
        }
        guard let site = LoadedSite.load(parsed, environment: environment, console: console) else { return ExitCode.failure }
        let sent: [String: LedgerRecord]
        do {
            sent = try Ledger.read(path: site.ledgerPath).byKey
        } catch {
            console.err("error: \(error.message)")
            return ExitCode.failure
        }
        let now = site.now
        let changes = NextChange.upcoming(edition: site.edition, sent: sent, now: now)
        if parsed.flags.contains("--json") {
            struct JSONChange: Encodable { var time: String; var kind: String; var story: String }
            struct JSONNext: Encodable { var now: String; var next: String?; var changes: [JSONChange] }
            console.out(PublishReport.encode(JSONNext(now: now.rfc3339, next: changes.first?.time.rfc3339,
                                                      changes: changes.map { JSONChange(time: $0.time.rfc3339, kind: $0.kind.rawValue, story: $0.storyID) })))
        } else if let next = changes.first {
            console.out(next.time.rfc3339)
        }
        return ExitCode.success
    }
}
