import YAML

/// One problem found in the site's sources, pointing at the file (relative to the site root) and,
/// where known, the line and column.
public struct Diagnostic: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var path: String
    public var location: SourceLocation?
    public var message: String

    public init(path: String, location: SourceLocation? = nil, message: String) {
        self.path = path
        self.location = location
        self.message = message
    }

    /// For modules that find problems in files they read themselves (device templates), without YAML's types.
    public init(path: String, line: Int, column: Int, message: String) {
        self.init(path: path, location: SourceLocation(line: line, column: column), message: message)
    }

    public var description: String {
        if let location { return "\(path):\(location.line):\(location.column): error: \(message)" }
        return "\(path): error: \(message)"
    }

    public static func < (a: Diagnostic, b: Diagnostic) -> Bool {
        if a.path != b.path { return a.path < b.path }
        let la = a.location ?? SourceLocation(line: 0, column: 0)
        let lb = b.location ?? SourceLocation(line: 0, column: 0)
        if la != lb { return la < lb }
        return a.message < b.message
    }
}

/// The build (or check) found problems. Almost always before anything was written; when writing the output itself
/// failed part way, `changed` counts the output files already replaced or removed, and the message says so.
public struct SiteError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var changed: Int
    public init(_ diagnostics: [Diagnostic], changed: Int = 0) {
        self.diagnostics = diagnostics.sorted()
        self.changed = changed
    }
    public var description: String {
        let lines = diagnostics.map(\.description)
        let count = diagnostics.count == 1 ? "1 error" : "\(diagnostics.count) errors"
        let outcome = changed == 0 ? "nothing was written"
            : "\(changed) output \(changed == 1 ? "file was" : "files were") already replaced or removed, so the output is part old, part new: build again once the problem is solved"
        return (lines + ["\(count); \(outcome)"]).joined(separator: "\n")
    }
}

/// Collects diagnostics from one file so that every problem is reported, not just the first.
package struct DiagnosticSink {
    package let path: String
    package private(set) var diagnostics: [Diagnostic] = []

    package init(path: String) { self.path = path }

    package mutating func error(_ message: String, at location: SourceLocation? = nil) {
        diagnostics.append(Diagnostic(path: path, location: location, message: message))
    }

    package var isEmpty: Bool { diagnostics.isEmpty }
}

/// "unknown X" messages with the known values and a did-you-mean; shared by the site checks and the CLI.
public enum Suggestion {
    /// "unknown X" messages end with the known values and, when one is close, a did-you-mean.
    package static func unknown(_ what: String, _ value: String, known: [String]) -> String {
        var message = "unknown \(what) \"\(value)\" (known: \(known.joined(separator: ", "))"
        if let close = closest(to: value, in: known) { message += "; did you mean \"\(close)\"?" }
        return message + ")"
    }

    public static func closest(to value: String, in candidates: [String]) -> String? {
        let lowered = value.lowercased()
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            let limit = max(1, min(3, candidate.count / 3))
            if distance <= limit, best == nil || distance < best!.1 { best = (candidate, distance) }
        }
        return best?.0
    }

    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = Array(0...b.count)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                // A swap of two neighbours ("titel" for "title") counts as one edit.
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            beforePrevious = previous
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
