import Foundation
@testable import Incremental
import Testing

/// Incremental equals from scratch, by property: random edits to a small site-like build, and after each one the
/// kept engine (in memory, or through the trace file) must agree with a fresh engine on every demanded hash, on
/// the failures and on how much the trace holds.
///
/// Inputs: files `f0`…`f11` (words; a word `include:fN` pulls in another file), `index` (the published files)
/// and `config` (how many files the listing shows). Tasks: a `page` per published file, `count` per file (kept
/// through a codec), `title` per file (first word, not kept) and the `listing` of the longest published files.
/// More seeds: `INCREMENTAL_SEEDS=200 swift test --filter RandomEditTests`.
@Suite struct RandomEditTests {
    static let names = (0..<12).map { "f\($0)" }
    static let words = ["quake", "storm", "vote", "match", "include:f1", "include:f7", "include:f13"]

    static let rules: [String: Rule] = {
        var rules = Toy.rules(Invocations(), keepCounts: true)
        rules["title"] = Rule { key, fetch in
            let first = try fetch.value(Toy.file(key.name), as: String.self).split(separator: " ").first.map(String.init) ?? ""
            return Output(first, hash: ContentHasher.hash(first))
        }
        rules["page"] = Rule { key, fetch in
            var text = try fetch.value(Toy.file(key.name), as: String.self)
            for word in text.split(separator: " ") where word.hasPrefix("include:") {
                let included = String(word.dropFirst("include:".count))
                if included != key.name { text += " | " + (try fetch.value(Toy.file(included), as: String.self)) }
            }
            return Output(text, hash: ContentHasher.hash(text))
        }
        rules["listing"] = Rule { _, fetch in
            let shown = Int(try fetch.value(Toy.file("config"), as: String.self)) ?? 0
            let published = try fetch.value(Toy.file("index"), as: String.self).split(separator: " ").map(String.init)
            // Batches, read in parallel; the titles only of the files shown.
            let ranked = zip(published, try fetch.values(published.map(Toy.count), as: Int.self))
                .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
                .prefix(shown).map(\.0)
            let titles = try fetch.values(ranked.map { Key("title", $0) }, as: String.self)
            let text = zip(ranked, titles).map { "\($0) \($1)" }.joined(separator: ", ")
            return Output(text, hash: ContentHasher.hash(text))
        }
        return rules
    }()

    static func demand(_ files: Files) -> [Key] {
        let published = (files.contents["index"] ?? "").split(separator: " ").map { Key("page", String($0)) }
        return [Key("listing")] + published
    }

    static func randomText(_ random: inout some RandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...4, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
    }

    static func edit(_ files: inout Files, _ random: inout some RandomNumberGenerator) -> Set<Key> {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5:
            let name = names.randomElement(using: &random)!
            files.contents[name] = randomText(&random)
            return [Toy.file(name)]
        case 5..<6:
            // Same words, another order: the count stays, the title may not.
            let name = names.randomElement(using: &random)!
            files.contents[name] = (files.contents[name] ?? "").split(separator: " ").shuffled(using: &random).joined(separator: " ")
            return [Toy.file(name)]
        case 6..<8:
            var published = Set((files.contents["index"] ?? "").split(separator: " ").map(String.init))
            let name = names.randomElement(using: &random)!
            if published.remove(name) == nil { published.insert(name) }
            files.contents["index"] = published.sorted().joined(separator: " ")
            return [Toy.file("index")]
        case 8:
            files.contents["config"] = String(Int.random(in: 0...6, using: &random))
            return [Toy.file("config")]
        default:
            return []
        }
    }

    static var seeds: Range<UInt64> {
        0..<(ProcessInfo.processInfo.environment["INCREMENTAL_SEEDS"].flatMap { UInt64($0) } ?? 25)
    }

    @Test(arguments: seeds) func incrementalRunsAgreeWithRunsFromScratch(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("random-trace-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var files = Files(contents: ["index": "f0 f1 f2 f3", "config": "3"])
        for name in Self.names { files.contents[name] = Self.randomText(&random) }
        // Half the seeds keep an index of readers, as serve's engine does; the others scan for them.
        let indexed = seed % 2 == 1
        var kept = Engine(rules: Self.rules, world: 7)
        kept.runsAgain = indexed
        _ = kept.run(demand: Self.demand(files), inputs: files)
        for step in 0..<30 {
            let changed = Self.edit(&files, &random)
            if indexed, kept.readerIndex != nil {
                var scanning = kept
                scanning.runsAgain = false
                #expect(kept.readers(of: changed) == scanning.readers(of: changed), "seed \(seed), step \(step)")
            }
            let incremental: Report
            switch Int.random(in: 0..<3, using: &random) {
            case 0:   // through the trace file, as in a new process
                try kept.save(to: path)   // what changed appended, or the whole trace
                let (loaded, status) = Engine.load(from: path, rules: Self.rules, world: 7)
                #expect(status == .loaded)
                #expect(loaded.recordedState == kept.recordedState, "seed \(seed), step \(step)")
                kept = loaded
                kept.runsAgain = indexed
                incremental = kept.run(demand: Self.demand(files), inputs: files)
            case 1:   // in memory, asking the provider what changed
                incremental = kept.run(demand: Self.demand(files), inputs: files)
            default:  // in memory, told what changed
                incremental = kept.run(demand: Self.demand(files), inputs: files, changed: changed)
            }
            var fresh = Engine(rules: Self.rules, world: 7)
            let scratch = fresh.run(demand: Self.demand(files), inputs: files)
            #expect(kept.hashes(of: Self.demand(files)) == fresh.hashes(of: Self.demand(files)), "seed \(seed), step \(step)")
            #expect(Set(incremental.failures.keys) == Set(scratch.failures.keys), "seed \(seed), step \(step)")
            #expect(kept.recordedCount == fresh.recordedCount, "seed \(seed), step \(step)")
        }
    }
}

/// A seeded generator, so that every seed is the same sequence of edits on every machine: the engine's own
/// content hash (stable across processes) of a counter.
struct SeededRandom: RandomNumberGenerator {
    let seed: UInt64
    var counter: UInt64 = 0

    init(seed: UInt64) { self.seed = seed }

    mutating func next() -> UInt64 {
        counter += 1
        var hasher = ContentHasher(seed: seed)
        hasher.combine(counter)
        return hasher.value
    }
}
