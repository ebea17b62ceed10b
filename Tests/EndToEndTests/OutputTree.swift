import Foundation
import TestSupport

/// Everything an output folder holds, by path relative to it: each file's bytes, each folder (an empty one left
/// behind is a difference too) and each symbolic link. Hidden entries count (`.newsgen-output` among them); only
/// the lock file is left out, since a test may hold it.
struct OutputTree: Equatable {
    enum Entry: Equatable {
        case file(Data)
        case folder
        case link(String)
    }

    var entries: [String: Entry]

    init(_ folder: URL) {
        var entries: [String: Entry] = [:]
        let manager = FileManager.default
        for case let path as String in manager.enumerator(atPath: folder.path) ?? FileManager.DirectoryEnumerator() {
            if (path as NSString).lastPathComponent == ".newsgen-lock" { continue }
            let full = folder.appendingPathComponent(path).path
            switch (try? manager.attributesOfItem(atPath: full))?[.type] as? FileAttributeType {
            case .typeDirectory?: entries[path] = .folder
            case .typeSymbolicLink?: entries[path] = .link((try? manager.destinationOfSymbolicLink(atPath: full)) ?? "")
            default: entries[path] = .file(manager.contents(atPath: full) ?? Data())
            }
        }
        self.entries = entries
    }

    init(_ site: TemporarySite, _ folder: String = "site") { self.init(site.url.appendingPathComponent(folder)) }

    var files: Int { entries.values.filter { if case .file = $0 { true } else { false } }.count }

    /// Nil when the trees are equal; otherwise how many paths differ and, for the first of them in path order,
    /// what each side has there (for a file, the first differing line with a line of context).
    static func difference(_ actual: OutputTree, _ expected: OutputTree,
                           names: (actual: String, expected: String) = ("incremental", "clean")) -> String? {
        let paths = Set(actual.entries.keys).union(expected.entries.keys).filter { actual.entries[$0] != expected.entries[$0] }.sorted()
        guard let first = paths.first else { return nil }
        func describe(_ entry: Entry?) -> String {
            switch entry {
            case nil: "nothing"
            case .folder?: "a folder"
            case .link(let target)?: "a link to \(target)"
            case .file(let data)?: "a file of \(data.count) bytes"
            }
        }
        var text = "\(paths.count) paths differ (\(paths.prefix(8).joined(separator: ", "))\(paths.count > 8 ? ", …" : "")); "
            + "first \(first): \(names.actual) has \(describe(actual.entries[first])), \(names.expected) \(describe(expected.entries[first]))"
        if case .file(let mine)? = actual.entries[first], case .file(let theirs)? = expected.entries[first] {
            text += "\n" + lineDifference(mine, theirs, names: names)
        }
        return text
    }

    /// The first line at which two texts differ, with the line before it, each cut to 300 characters.
    static func lineDifference(_ actual: Data, _ expected: Data, names: (actual: String, expected: String)) -> String {
        let mine = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let theirs = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var line = 0
        while line < min(mine.count, theirs.count), mine[line] == theirs[line] { line += 1 }
        func show(_ lines: [Substring], _ name: String) -> String {
            let shown = lines[max(0, line - 1)..<min(lines.count, line + 1)].map { String($0.prefix(300)) }
            return "  \(name):\n" + shown.map { "    | " + $0 }.joined(separator: "\n") + (line >= lines.count ? "\n    <end of file>" : "")
        }
        return "at line \(line + 1):\n" + show(mine, names.actual) + "\n" + show(theirs, names.expected)
    }
}

/// A clean build of `site`'s sources that shares nothing with it: `newsgen.yml`, `content/`, `templates/` and
/// `media/` (when there is one) are copied into a new folder without `.newsgen/`, and built there with `--clean`.
func cleanBuild(of site: TemporarySite, environment: [String: String]) throws -> OutputTree {
    let reference = try TemporarySite(copyingTemplatesFromRepository: false)
    let manager = FileManager.default
    try manager.removeItem(at: reference.url.appendingPathComponent("content"))
    for entry in ["newsgen.yml", "content", "templates", "media"] where site.exists(entry) {
        try manager.copyItem(at: site.url.appendingPathComponent(entry), to: reference.url.appendingPathComponent(entry))
    }
    let result = try newsgen(["build", "--quiet", "--clean"], in: reference, environment: environment)
    guard result.status == 0 else {
        throw FixtureError(message: "the clean build failed: \(result.standardError)")
    }
    return OutputTree(reference)
}
