import Foundation
import Incremental
import Synchronization
import Testing

/// Each test has a folder of its own (a new instance of the suite), removed when it ends.
@Suite final class TraceFileTests {
    let invocations = Invocations()
    let folder: URL
    var path: String { folder.appendingPathComponent("trace").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func load(world: UInt64 = 1, keepCounts: Bool = true) -> (Engine, Engine.TraceStatus) {
        Engine.load(from: path, rules: Toy.rules(invocations, keepCounts: keepCounts), world: world)
    }

    /// A trace written by a full run of the toy build.
    func saveFirstRun() throws -> UInt64? {
        var engine = Engine(rules: Toy.rules(invocations, keepCounts: true), world: 1)
        _ = engine.run(demand: [Toy.report], inputs: Toy.files)
        try engine.save(to: path)
        _ = invocations.take()
        return engine.recordedHash(of: Toy.report)
    }

    @Test func theTraceSurvivesTheProcess() throws {
        let first = try saveFirstRun()
        var (engine, status) = load()
        #expect(status == .loaded)
        #expect(engine.recordedCount == 8)
        #expect(engine.run(demand: [Toy.report], inputs: Toy.files).ran.isEmpty)
        #expect(invocations.total == 0)
        #expect(engine.recordedHash(of: Toy.report) == first)

        var files = Toy.files
        files.contents["a"] = "one two three four"
        (engine, _) = load()
        let edited = engine.run(demand: [Toy.report], inputs: files)
        #expect(invocations.take() == [Toy.count("a"), Toy.report], "count b and c come from the file's kept bytes")
        #expect(edited.ran[Toy.report] as? String == "a: 4\nb: 2\nc: 1")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["trace"], "no temporary file left")
    }

    @Test func keptBytesThatDoNotDecodeAreComputedAgain() throws {
        _ = try saveFirstRun()
        var rules = Toy.rules(invocations, keepCounts: true)
        let refusing = Codec(Int.self, encode: { _ in [] }, decode: { _ in nil })
        rules["count"] = Toy.countRule(invocations, keeping: .bytes(refusing))
        var (engine, _) = Engine.load(from: path, rules: rules, world: 1)
        var files = Toy.files
        files.contents["list"] = "b a"
        #expect(engine.run(demand: [Toy.report], inputs: files).ran[Toy.report] as? String == "b: 2\na: 3")
        #expect(invocations.take() == [Toy.count("a"), Toy.count("b"), Toy.report])
    }

    /// A run over a loaded trace gives every demanded key's hash (nil where it failed) and value: a current key's from
    /// its kept bytes, without running it, unless the bytes do not decode.
    @Test func aRunGivesEachDemandedKeysHashAndValueFromTheLoadedTrace() throws {
        _ = try saveFirstRun()
        let counts = ["a", "b", "c"].map(Toy.count)
        var (engine, _) = load()
        let recorded = counts.map { engine.recordedHash(of: $0) }
        var files = Toy.files
        files.contents["b"] = "boom"
        let report = engine.run(demand: counts + [Toy.report], inputs: files, valuesOfDemand: true)
        #expect(report.hashes == [recorded[0], nil, recorded[2], nil])
        #expect(report.values.map { $0 as? Int } == [3, nil, 1, nil])
        #expect(invocations.take() == [Toy.count("b")], "the current counts come from the trace")

        var rules = Toy.rules(invocations, keepCounts: true)
        let refusing = Codec(Int.self, encode: { _ in [] }, decode: { _ in nil })
        rules["count"] = Toy.countRule(invocations, keeping: .bytes(refusing))
        (engine, _) = Engine.load(from: path, rules: rules, world: 1)
        let again = engine.run(demand: counts, inputs: Toy.files, valuesOfDemand: true)
        #expect(again.values.map { $0 as? Int } == [3, 2, 1])
        #expect(again.hashes == recorded)
        #expect(invocations.take() == counts, "bytes that do not decode: the tasks run again")
    }

    /// A kept result is there to be asked for without a run, after a run with a rule the engine has only for some
    /// runs (`extra`, which tells it the codec): from memory once the task ran in this process, or from the trace
    /// file's bytes.
    @Test func aKeptResultIsReadWithoutARun() throws {
        var rules = Toy.rules(invocations, keepCounts: true)
        let countRule = rules.removeValue(forKey: "count")!
        var engine = Engine(rules: rules, world: 1)
        _ = engine.run(demand: [Toy.report], inputs: Toy.files, extra: ["count": countRule])
        #expect(engine.recordedValue(of: Toy.count("a")) as? Int == 3, "in memory")
        try engine.save(to: path)
        _ = invocations.take()
        var (loaded, _) = Engine.load(from: path, rules: rules, world: 1)
        #expect(loaded.recordedValue(of: Toy.count("b")) == nil, "no run has told it how to decode a count")
        _ = loaded.run(demand: [Toy.report], inputs: Toy.files, extra: ["count": countRule])
        #expect(invocations.take().isEmpty, "the trace is current")
        #expect(loaded.recordedValue(of: Toy.count("b")) as? Int == 2, "from the file")
        #expect(loaded.recordedValue(of: Toy.count("z")) == nil)
        #expect(loaded.recordedValue(of: Toy.report) == nil, "a result kept by its hash only")
    }

    /// A result made by a run is encoded when the trace is saved, not when it is made (a build holds only the values
    /// until then), and once.
    @Test func aResultIsEncodedWhenTheTraceIsSaved() throws {
        let encodes = Mutex(0)
        var rules = Toy.rules(invocations, keepCounts: true)
        let counting = Codec(Int.self, encode: { value in
            encodes.withLock { $0 += 1 }
            return withUnsafeBytes(of: Int64(value).littleEndian) { Array($0) }
        }, decode: { bytes in
            bytes.count == 8 ? Int(bytes.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }) : nil
        })
        rules["count"] = Toy.countRule(invocations, keeping: .bytes(counting))
        var engine = Engine(rules: rules, world: 1)
        _ = engine.run(demand: [Toy.report], inputs: Toy.files)
        #expect(encodes.withLock { $0 } == 0)
        try engine.save(to: path)
        #expect(encodes.withLock { $0 } == 3)
        var (loaded, _) = Engine.load(from: path, rules: rules, world: 1)
        #expect(loaded.run(demand: [Toy.report], inputs: Toy.files).ran.isEmpty)
        var files = Toy.files
        files.contents["list"] = "c b a"
        #expect(loaded.run(demand: [Toy.report], inputs: files).ran[Toy.report] as? String == "c: 1\nb: 2\na: 3",
                "the counts decoded from the file")
    }

    /// A trace of many blocks (`Engine.checksumBlock`) is written as it is encoded, a few blocks at a time, and reads
    /// back whole; a byte changed in any block fails the checksum.
    @Test func aLargeTraceIsWrittenAsItIsEncoded() throws {
        let size = 300_000   // per result: five of them make several flushes
        let padded = Codec(Int.self, encode: { value in
            [UInt8](repeating: UInt8(truncatingIfNeeded: value), count: size)
        }, decode: { bytes in
            bytes.count == size && Set(bytes).count == 1 ? Int(bytes.first!) : nil
        })
        var rules = Toy.rules(invocations, keepCounts: true)
        rules["count"] = Toy.countRule(invocations, keeping: .bytes(padded))
        var files = Toy.files
        files.contents["list"] = "a b c d e"
        files.contents["d"] = "seven eight nine ten"
        files.contents["e"] = "eleven twelve thirteen fourteen fifteen"
        var engine = Engine(rules: rules, world: 1)
        let first = engine.run(demand: [Toy.report], inputs: files).ran[Toy.report] as? String
        try engine.save(to: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 5 * size)
        _ = invocations.take()
        var (loaded, status) = Engine.load(from: path, rules: rules, world: 1)
        #expect(status == .loaded)
        #expect(loaded.hashes(of: ["a", "b", "c", "d", "e"].map(Toy.count)) == engine.hashes(of: ["a", "b", "c", "d", "e"].map(Toy.count)))
        files.contents["list"] = "e d c b a"
        #expect(loaded.run(demand: [Toy.report], inputs: files).ran[Toy.report] as? String == "e: 5\nd: 4\nc: 1\nb: 2\na: 3")
        #expect(invocations.take() == [Toy.report], "every count decoded, none counted again")
        #expect(first == "a: 3\nb: 2\nc: 1\nd: 4\ne: 5")
        bytes[bytes.count / 2] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(Engine.load(from: path, rules: rules, world: 1).1 == .ignored("checksum mismatch"))
    }

    @Test func aKeptResultIsDecodedOnceByTheEngineThatLoadedIt() throws {
        _ = try saveFirstRun()
        let decodes = Mutex(0)
        var rules = Toy.rules(invocations, keepCounts: true)
        let counting = Codec(Int.self, encode: { value in
            withUnsafeBytes(of: Int64(value).littleEndian) { Array($0) }
        }, decode: { bytes in
            decodes.withLock { $0 += 1 }
            return bytes.count == 8 ? Int(bytes.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }) : nil
        })
        rules["count"] = Toy.countRule(invocations, keeping: .bytes(counting))
        var (engine, _) = Engine.load(from: path, rules: rules, world: 1)
        let counts = ["a", "b", "c"].map(Toy.count)
        // A process that keeps its engine (serve) asks for the same values run after run.
        engine.runsAgain = true
        for _ in 0..<3 {
            let values = engine.run(demand: counts, inputs: Toy.files, changed: [], valuesOfDemand: true).values
            #expect(values.map { $0 as? Int } == [3, 2, 1])
        }
        #expect(decodes.withLock { $0 } == 3, "each kept count decoded by the first run only")
        #expect(invocations.total == 0)
    }

    @Test func failedAndDroppedStateSurvivesTheProcessToo() throws {
        var files = Toy.files
        files.contents["c"] = "boom"
        var engine = Engine(rules: Toy.rules(invocations, keepCounts: true), world: 1)
        _ = engine.run(demand: [Toy.report, Toy.count("a")], inputs: files)
        try engine.save(to: path)
        _ = invocations.take()
        (engine, _) = load()
        #expect(engine.recordedHash(of: Toy.report) == nil)
        #expect(engine.recordedHash(of: Toy.count("a")) != nil)
        let retried = engine.run(demand: [Toy.report], inputs: files)
        #expect(invocations.take() == [Toy.count("c"), Toy.report], "the failed ones run again, nothing else")
        #expect(retried.failures.keys.sorted() == [Toy.count("c")])
        #expect(retried.dropped.isEmpty, "count a was demanded on its own, and the report still reads it")
    }

    enum Damage: String, CaseIterable {
        case empty, headerOnly, truncated, lastByteMissing, flippedByte, extraByte, otherVersion, otherWorld, notATrace
    }

    @Test(arguments: Damage.allCases) func aDamagedTraceGivesAFullCorrectRun(_ damage: Damage) throws {
        let clean = try saveFirstRun()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        switch damage {
        case .empty: bytes = []
        case .headerOnly: bytes = Array(bytes[..<36])
        case .truncated: bytes = Array(bytes[..<(bytes.count / 2)])
        case .lastByteMissing: bytes.removeLast()
        case .flippedByte: bytes[bytes.count - 5] ^= 0x10
        case .extraByte: bytes.append(0)
        case .otherVersion: bytes[8] &+= 1
        case .otherWorld: break
        case .notATrace: bytes = Array("a text file that happens to be where the trace goes\n".utf8)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var (engine, status) = load(world: damage == .otherWorld ? 2 : 1)
        if damage == .otherWorld {
            #expect(status == .otherWorld, "a sound trace of another world is told apart from a damaged one")
        } else {
            guard case .ignored(let reason) = status else {
                Issue.record("a \(damage) trace was \(status)")
                return
            }
            let expected: [Damage: String] = [
                .empty: "truncated", .headerOnly: "and only 0 left", .truncated: "left", .lastByteMissing: "left",
                .flippedByte: "checksum mismatch", .extraByte: "header is cut short", .otherVersion: "trace format 4, not 3",
                .notATrace: "not a trace file",
            ]
            #expect(reason.contains(expected[damage]!), "\(reason)")
        }
        #expect(engine.recordedCount == 0)
        _ = engine.run(demand: [Toy.report], inputs: Toy.files)
        #expect(invocations.take() == [Toy.count("a"), Toy.count("b"), Toy.count("c"), Toy.report])
        #expect(engine.recordedHash(of: Toy.report) == clean)
    }

    func fileID() throws -> (inode: UInt64, size: Int) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return ((attributes[.systemFileNumber] as! NSNumber).uint64Value, (attributes[.size] as! NSNumber).intValue)
    }

    /// The toy with `count` files in its list: a trace large enough that one file's change is a small part of it.
    static func manyFiles(_ count: Int) -> Files {
        let names = (0..<count).map { "f\($0)" }
        var contents = ["list": names.joined(separator: " ")]
        for (index, name) in names.enumerated() { contents[name] = String(repeating: "word ", count: index % 7 + 1) }
        return Files(contents: contents)
    }

    /// The word count of each of the 200 files: what the tests of appends demand (a report that reads them all is
    /// recorded again at every change, a large part of a trace this small).
    static let counts = (0..<200).map { Toy.count("f\($0)") }

    /// A trace of the toy's word counts of 200 files, written by a full run; the files.
    func saveFirstRunOfManyFiles() throws -> Files {
        let files = Self.manyFiles(200)
        var engine = Engine(rules: Toy.rules(invocations, keepCounts: true), world: 1)
        _ = engine.run(demand: Self.counts, inputs: files)
        try engine.save(to: path)
        _ = invocations.take()
        return files
    }

    @Test func aSaveAppendsOnlyWhatChanged() throws {
        var files = try saveFirstRunOfManyFiles()
        let first = try fileID()
        var (engine, _) = load()
        files.contents["f1"] = "four five six seven"
        _ = engine.run(demand: Self.counts, inputs: files)
        try engine.save(to: path)
        let second = try fileID()
        #expect(second.inode == first.inode, "appended to, not replaced")
        #expect(second.size > first.size && second.size - first.size < first.size / 8, "\(first.size) then \(second.size) bytes")
        var (loaded, status) = load()
        #expect(status == .loaded)
        #expect(loaded.hashes(of: Self.counts) == engine.hashes(of: Self.counts))
        _ = invocations.take()
        #expect(loaded.run(demand: Self.counts, inputs: files).ran.isEmpty)
        #expect(invocations.total == 0)

        // A save with nothing new writes nothing; what is demanded is part of the trace too.
        try loaded.save(to: path)
        #expect(try fileID().size == second.size)
        _ = loaded.run(demand: [Toy.count("f0")], inputs: files)
        try loaded.save(to: path)
        let (afterDemand, _) = load()
        #expect(afterDemand.recordedState == loaded.recordedState)
        #expect(afterDemand.demanded(kind: "count") == [Toy.count("f0")])
        #expect(afterDemand.recordedHash(of: Toy.count("f1")) == nil, "the other counts were dropped")
    }

    /// A load applies a later segment entry by entry, so the later segments stay a small part of the file: once they
    /// would pass an eighth of the first segment, the whole trace is written again.
    @Test func appendsStopAtAnEighthOfTheWholeTrace() throws {
        var files = try saveFirstRunOfManyFiles()
        let first = try fileID()
        var (engine, _) = load()
        var sizes: [Int] = []
        for round in 0..<60 {
            files.contents["f\(round % 5)"] = String(repeating: "word ", count: round + 10)
            _ = engine.run(demand: Self.counts, inputs: files)
            try engine.save(to: path)
            let now = try fileID()
            sizes.append(now.size)
            if now.inode != first.inode { break }
        }
        #expect(sizes.count > 2, "a few small changes are appended first: \(sizes)")
        #expect(sizes.dropLast().allSatisfy { $0 <= first.size + first.size / 8 }, "\(first.size), then \(sizes)")
        #expect(try fileID().inode != first.inode, "written whole again once the appends passed an eighth: \(sizes)")
        #expect(sizes.last! < first.size + first.size / 16, "one segment again: \(first.size), then \(sizes)")
        #expect(load().0.recordedState == engine.recordedState)
    }

    /// A run that changed much of the trace (the first rebuild after a checkout, when most files were hashed by their
    /// bytes) writes it whole: appended, every later load would apply those entries one by one.
    @Test func aRunThatChangedMuchOfTheTraceWritesItWhole() throws {
        var files = try saveFirstRunOfManyFiles()
        let first = try fileID()
        var (engine, _) = load()
        for index in 0..<100 { files.contents["f\(index)"] = "changed \(index)" }
        _ = engine.run(demand: Self.counts, inputs: files)
        try engine.save(to: path)
        let second = try fileID()
        #expect(second.inode != first.inode, "written whole, not appended")
        #expect(second.size < first.size + first.size / 16, "one segment: \(first.size) then \(second.size) bytes")
        let (loaded, status) = load()
        #expect(status == .loaded)
        #expect(loaded.recordedState == engine.recordedState)
    }

    @Test func aTraceAnotherProcessWroteIsWrittenWhole() throws {
        _ = try saveFirstRun()
        var (mine, _) = load()
        var (theirs, _) = load()
        var files = Toy.files
        files.contents["c"] = "six seven"
        _ = theirs.run(demand: [Toy.report], inputs: files)
        try theirs.save(to: path)   // appended: the file is not the one `mine` read any more
        files.contents["a"] = "one"
        _ = mine.run(demand: [Toy.report], inputs: files)
        try mine.save(to: path)
        let (loaded, status) = load()
        #expect(status == .loaded)
        #expect(loaded.recordedState == mine.recordedState, "nothing of the other process's run appended to mine")
    }

    @Test func aTornAppendIsIgnoredAndTheNextSaveWritesAll() throws {
        _ = try saveFirstRun()
        var (engine, _) = load()
        var files = Toy.files
        files.contents["b"] = "four"
        _ = engine.run(demand: [Toy.report], inputs: files)
        try engine.save(to: path)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.dropLast(3).write(to: URL(fileURLWithPath: path))   // as a crash in the middle of the append would
        guard case .ignored = load().1 else {
            Issue.record("a torn trace was loaded")
            return
        }
        files.contents["b"] = "four five"
        _ = engine.run(demand: [Toy.report], inputs: files)
        try engine.save(to: path)   // the file is not as this engine left it: written whole
        let (loaded, status) = load()
        #expect(status == .loaded)
        #expect(loaded.hashes(of: ["a", "b", "c", "d", "e"].map(Toy.count)) == engine.hashes(of: ["a", "b", "c", "d", "e"].map(Toy.count)))
    }

    @Test func aMissingTraceIsAFirstRun() throws {
        let (engine, status) = load()
        #expect(status == .missing)
        #expect(engine.recordedCount == 0)
    }

    @Test func aTraceThatCannotBeWrittenSaysWhere() throws {
        var engine = Engine(rules: Toy.rules(invocations), world: 1)
        let target = folder.appendingPathComponent("no-such-folder/trace").path
        #expect {
            try engine.save(to: target)
        } throws: { error in
            "\(error)".hasPrefix(target) && "\(error)".contains("No such file or directory")
        }
    }
}
