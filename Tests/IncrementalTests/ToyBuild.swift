@testable import Incremental
import Synchronization

/// A toy build on the engine: text files → word counts → a report of the files a list file names.
///
/// Inputs are `file <name>`; `count <name>` counts the words of one file; `report` reads the file `list` and the
/// count of every file it names. Every rule invocation is counted, so a test can say what ran.
struct Files: InputProvider {
    var contents: [String: String]

    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "no file \(name)" }
    }

    func hash(of input: Key) throws -> UInt64 { try read(input).hash }

    func read(_ input: Key) throws -> Output {
        guard input.kind == "file", let text = contents[input.name] else { throw Missing(name: input.name) }
        return Output(text, hash: ContentHasher.hash(text))
    }
}

final class Invocations: Sendable {
    private let counts = Mutex<[Key: Int]>([:])

    func record(_ key: Key) { counts.withLock { $0[key, default: 0] += 1 } }

    subscript(_ key: Key) -> Int { counts.withLock { $0[key, default: 0] } }

    var total: Int { counts.withLock { $0.values.reduce(0, +) } }

    /// The keys that ran since the last call, sorted.
    func take() -> [Key] {
        counts.withLock { counts in
            defer { counts = [:] }
            return counts.keys.sorted()
        }
    }
}

struct Boom: Error {}

enum Toy {
    static let report = Key("report")
    static func file(_ name: String) -> Key { Key("file", name) }
    static func count(_ name: String) -> Key { Key("count", name) }

    static let countCodec = Codec(Int.self, encode: { value in
        withUnsafeBytes(of: Int64(value).littleEndian) { Array($0) }
    }, decode: { bytes in
        bytes.count == 8 ? Int(bytes.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }) : nil
    })

    static func countRule(_ invocations: Invocations, keeping keep: Rule.Keep) -> Rule {
        Rule(keeping: keep) { key, fetch in
            invocations.record(key)
            let text = try fetch.value(file(key.name), as: String.self)
            if text.contains("boom") { throw Boom() }
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).count
            return Output(words, hash: UInt64(words))
        }
    }

    /// The toy's rules; `keepCounts` keeps the word counts in the trace through a codec.
    static func rules(_ invocations: Invocations, keepCounts: Bool = false) -> [String: Rule] {
        [
            "count": countRule(invocations, keeping: keepCounts ? .bytes(countCodec) : .hash),
            "report": Rule { key, fetch in
                invocations.record(key)
                let names = try fetch.value(file("list"), as: String.self).split(separator: " ").map(String.init)
                let lines = try names.map { name in "\(name): \(try fetch.value(count(name), as: Int.self))" }
                let text = lines.joined(separator: "\n")
                return Output(text, hash: ContentHasher.hash(text))
            },
        ]
    }

    static let files = Files(contents: [
        "list": "a b c",
        "a": "one two three",
        "b": "four five",
        "c": "six",
    ])
}

extension Engine {
    /// The recorded hash of each key that has one.
    func hashes(of keys: [Key]) -> [Key: UInt64] {
        Dictionary(uniqueKeysWithValues: keys.compactMap { key in recordedHash(of: key).map { (key, $0) } })
    }

    /// Everything the trace holds, one line per key and the demanded keys, in a fixed order: two engines with the
    /// same lines have the same trace.
    var recordedState: [String] {
        var entries: [(key: Key, entry: Entry)] = []
        trace.forEach { entries.append(($0, $1)) }
        return entries.map { key, entry in
            let dependencies = entry.dependencies.map { "\($0.key)=\($0.hash)\($0.batched ? "+" : "")" }
            let kept = keptBytes(key, entry).map { "\(Array($0))" } ?? "-"   // as a save writes them
            let readers = entries.filter { $0.entry.dependencies.contains { $0.key == key } }.map(\.key).sorted()
            return "\(key) \(entry.hash) input:\(entry.isInput) failed:\(entry.failed) kept:\(kept) "
                + "reads:\(dependencies) readBy:\(readers)"
        }.sorted() + ["demanded: \(roots.sorted())"]
    }
}
