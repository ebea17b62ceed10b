import Foundation
import Hub
import News
import Site

/// What `status` and `next-change` read before anything else: "now", the site (from the trace of parsed stories when it
/// can, never writing it) and where its ledger is. Problems are printed; nil means exit with 1.
struct LoadedSite {
    var now: Timestamp
    var edition: Edition
    var ledgerPath: String

    static func load(_ parsed: ParsedArguments, environment: [String: String], console: Console) -> LoadedSite? {
        let now: Timestamp
        switch EditionFilter.currentTime(environment: environment) {
        case .success(let value): now = value
        case .failure(let error): console.err(error.description); return nil
        }
        do {
            let edition = try Edition.load(directory: parsed.options["--site"] ?? ".", cache: .read)
            return LoadedSite(now: now, edition: edition, ledgerPath: ledgerFile(parsed.options["--ledger"], edition: edition))
        } catch {
            console.err(error.description)
            return nil
        }
    }
}

/// `--ledger PATH` (relative to the current folder), else `.newsgen/push-ledger.json` in the site folder.
func ledgerFile(_ option: String?, edition: Edition) -> String {
    option.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        ?? edition.directory + "/.newsgen/push-ledger.json"
}
