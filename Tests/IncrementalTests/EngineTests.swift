import Foundation
import Incremental
import Synchronization
import Testing

@Suite struct EngineTests {
    let invocations = Invocations()

    func engine(keepCounts: Bool = true) -> Engine {
        Engine(rules: Toy.rules(invocations, keepCounts: keepCounts), world: 1)
    }

    @Test func firstRunRunsEverything() throws {
        var engine = engine()
        let report = engine.run(demand: [Toy.report], inputs: Toy.files)
        #expect(report.failures.isEmpty)
        #expect(invocations.take() == [Toy.count("a"), Toy.count("b"), Toy.count("c"), Toy.report])
        #expect(report.ran[Toy.report] as? String == "a: 3\nb: 2\nc: 1")
        #expect(engine.recordedHash(of: Toy.report) == ContentHasher.hash("a: 3\nb: 2\nc: 1"))
        // Four files, three counts, the report.
        #expect(engine.recordedCount == 8)
    }

    @Test func noChangeRerunsNothing() throws {
        var engine = engine()
        _ = engine.run(demand: [Toy.report], inputs: Toy.files)
        let first = engine.recordedHash(of: Toy.report)
        _ = invocations.take()
        let second = engine.run(demand: [Toy.report], inputs: Toy.files)
        #expect(invocations.total == 0)
        #expect(second.ran.isEmpty)
        #expect(engine.recordedHash(of: Toy.report) == first)
        #expect(second.dropped.isEmpty)
    }

    @Test(arguments: [false, true]) func changingOneInputRerunsOnlyItsDependents(listChanges: Bool) throws {
        var engine = engine()
        var files = Toy.files
        _ = engine.run(demand: [Toy.report], inputs: files)
        _ = invocations.take()
        files.contents["b"] = "four five six seven"
        // Told what changed (a file watcher), or finding it by asking for every recorded input's hash.
        let report = engine.run(demand: [Toy.report], inputs: files, changed: listChanges ? [Toy.file("b")] : nil)
        #expect(invocations.take() == [Toy.count("b"), Toy.report])
        #expect(report.ran[Toy.report] as? String == "a: 3\nb: 4\nc: 1")
    }

    @Test func anEngineThatRunsAgainSaysWhichEntriesChangedSinceAMark() throws {
        var engine = engine()
        engine.runsAgain = true
        var files = Toy.files
        _ = engine.run(demand: [Toy.report], inputs: files)
        let mark = engine.mark
        #expect(engine.changes(since: mark) == [])
        engine.runsAgain = true   // as it was: the log goes on
        // Still two words: the count's entry changed (it read another hash), the report's did not.
        files.contents["b"] = "other words"
        _ = engine.run(demand: [Toy.report], inputs: files, changed: [Toy.file("b")])
        #expect(engine.changes(since: mark) == [Toy.file("b"), Toy.count("b")])
        files.contents["c"] = "four more words here"
        _ = engine.run(demand: [Toy.report], inputs: files, changed: [Toy.file("c")])
        #expect(engine.changes(since: mark) == [Toy.file("b"), Toy.count("b"), Toy.file("c"), Toy.count("c"), Toy.report])
        // Another engine's mark, or one older than the runs it logs, is no use.
        #expect(self.engine().changes(since: mark) == nil)
        for _ in 0..<40 { _ = engine.run(demand: [Toy.report], inputs: files, changed: []) }
        #expect(engine.changes(since: mark) == nil)
        // An engine that runs once logs nothing: only its current mark is known.
        var once = self.engine()
        _ = once.run(demand: [Toy.report], inputs: files)
        let onceMark = once.mark
        #expect(once.changes(since: onceMark) == [])
        _ = once.run(demand: [Toy.report], inputs: files, changed: [])
        #expect(once.changes(since: onceMark) == nil)
    }

    @Test func anUnchangedIntermediateHashStopsTheRebuild() throws {
        var engine = engine()
        var files = Toy.files
        _ = engine.run(demand: [Toy.report], inputs: files)
        _ = invocations.take()
        files.contents["b"] = "other words"   // still two words
        _ = engine.run(demand: [Toy.report], inputs: files)
        #expect(invocations.take() == [Toy.count("b")])
        #expect(engine.recordedHash(of: Toy.report) == ContentHasher.hash("a: 3\nb: 2\nc: 1"))
    }

    @Test func dependenciesAreWhatTheRuleReadThisTime() throws {
        let invocations = invocations
        let rules = ["switch": Rule { key, fetch in
            invocations.record(key)
            let text = try fetch.value(Toy.file("A"), as: String.self) == "yes"
                ? try fetch.value(Toy.file("B"), as: String.self) : "off"
            return Output(text, hash: ContentHasher.hash(text))
        }]
        var engine = Engine(rules: rules, world: 1)
        var files = Files(contents: ["A": "no", "B": "first"])
        let key = Key("switch")
        _ = engine.run(demand: [key], inputs: files)
        files.contents["B"] = "second"
        #expect(engine.run(demand: [key], inputs: files).ran.isEmpty, "B was not read, so its change is nobody's")
        files.contents["A"] = "yes"
        #expect(engine.run(demand: [key], inputs: files).ran[key] as? String == "second")
        files.contents["B"] = "third"
        #expect(engine.run(demand: [key], inputs: files).ran[key] as? String == "third")
        files.contents["A"] = "no"
        #expect(engine.run(demand: [key], inputs: files).ran[key] as? String == "off")
        files.contents["B"] = "fourth"
        #expect(engine.run(demand: [key], inputs: files).ran.isEmpty)
        #expect(invocations[key] == 4)
    }

    /// A template that starts including a partial: nobody lists the partial anywhere, yet editing it re-renders.
    @Test func aForgottenDependencyIsImpossible() throws {
        let rules = ["page": Rule { key, fetch in
            var text = try fetch.value(Toy.file("template"), as: String.self)
            while let start = text.firstRange(of: "{{"), let end = text[start.upperBound...].firstRange(of: "}}") {
                let partial = try fetch.value(Toy.file(String(text[start.upperBound..<end.lowerBound])), as: String.self)
                text.replaceSubrange(start.lowerBound..<end.upperBound, with: partial)
            }
            return Output(text, hash: ContentHasher.hash(text))
        }]
        var engine = Engine(rules: rules, world: 1)
        var files = Files(contents: ["template": "Hello", "footer": "(c) 2026"])
        let page = Key("page")
        #expect(engine.run(demand: [page], inputs: files).ran[page] as? String == "Hello")
        files.contents["template"] = "Hello {{footer}}"
        #expect(engine.run(demand: [page], inputs: files).ran[page] as? String == "Hello (c) 2026")
        files.contents["footer"] = "(c) 2027"
        #expect(engine.run(demand: [page], inputs: files).ran[page] as? String == "Hello (c) 2027")
    }

    @Test func tasksNobodyDemandsAnyMoreAreDropped() throws {
        var engine = engine()
        var files = Toy.files
        _ = engine.run(demand: [Toy.report, Toy.count("c")], inputs: files)
        files.contents["list"] = "a b"
        let stillDemanded = engine.run(demand: [Toy.report, Toy.count("c")], inputs: files)
        #expect(stillDemanded.dropped.isEmpty, "count c is demanded on its own")
        let report = engine.run(demand: [Toy.report], inputs: files)
        #expect(report.dropped == [Toy.count("c")])
        #expect(engine.recordedHash(of: Toy.file("c")) == nil, "the input nobody reads goes too")
        #expect(engine.recordedCount == 6)
        #expect(engine.run(demand: [], inputs: files).dropped == [Toy.count("a"), Toy.count("b"), Toy.report])
        #expect(engine.recordedCount == 0)
    }

    @Test func aThrowingRuleLeavesNoEntryAndRunsAgainNextTime() throws {
        var engine = engine()
        var files = Toy.files
        _ = engine.run(demand: [Toy.report], inputs: files)
        files.contents["b"] = "boom"
        _ = invocations.take()
        let failed = engine.run(demand: [Toy.report], inputs: files)
        #expect(failed.failures.count == 1)
        let failure = try #require(failed.failures[Toy.count("b")])
        #expect(failure.reason is Boom)
        #expect(failure.key == Toy.count("b"))
        #expect(engine.recordedHash(of: Toy.count("b")) == nil)
        #expect(engine.recordedHash(of: Toy.report) == nil, "the report read the failed count")
        #expect(engine.recordedHash(of: Toy.count("a")) != nil)

        _ = invocations.take()
        #expect(engine.run(demand: [Toy.report], inputs: files).failures.count == 1)
        #expect(invocations.take() == [Toy.count("b"), Toy.report], "the failed task is retried, the rest kept")

        files.contents["b"] = "fixed again"
        let fixed = engine.run(demand: [Toy.report], inputs: files)
        #expect(fixed.failures.isEmpty)
        #expect(fixed.ran[Toy.report] as? String == "a: 3\nb: 2\nc: 1")
    }

    @Test func aMissingInputFailsItsReaders() throws {
        var engine = engine()
        var files = Toy.files
        files.contents["list"] = "a zz"
        let report = engine.run(demand: [Toy.report], inputs: files)
        let failure = try #require(report.failures[Toy.file("zz")])
        #expect("\(failure)" == "file zz: no file zz")
        #expect(report.failures.count == 1)
        // The failed report keeps what it read, the missing file among it, until nobody demands it.
        #expect(engine.run(demand: [], inputs: files).dropped == [Toy.count("a"), Toy.count("zz"), Toy.report])
        #expect(engine.recordedCount == 0)
    }

    @Test func anInputThatCannotBeReadAnyMoreFailsItsReaders() throws {
        var engine = engine()
        var files = Toy.files
        _ = engine.run(demand: [Toy.report], inputs: files)
        files.contents["c"] = nil
        let report = engine.run(demand: [Toy.report], inputs: files)
        #expect(report.failures.keys.sorted() == [Toy.file("c")])
        #expect(engine.recordedHash(of: Toy.report) == nil)
        files.contents["c"] = "back"
        #expect(engine.run(demand: [Toy.report], inputs: files).ran[Toy.report] as? String == "a: 3\nb: 2\nc: 1")
    }

    @Test func aRuleThatSwallowsAFailedReadFailsAllTheSame() throws {
        let rules = Toy.rules(invocations).merging(["careless": Rule { _, fetch in
            let words = (try? fetch.value(Toy.count("b"), as: Int.self)) ?? 0
            return Output(words, hash: UInt64(words))
        }]) { $1 }
        var engine = Engine(rules: rules, world: 1)
        var files = Toy.files
        files.contents["b"] = "boom"
        let report = engine.run(demand: [Key("careless")], inputs: files)
        #expect(report.failures.keys.sorted() == [Toy.count("b")])
        #expect(engine.recordedHash(of: Key("careless")) == nil)
    }

    @Test func aCycleIsAnErrorThatNamesItsKeys() throws {
        let rules = ["loop": Rule { key, fetch in
            let next = key.name == "a" ? "b" : key.name == "b" ? "c" : "a"
            let hash = try fetch.hash(of: Key("loop", next))
            return Output(hash, hash: hash)
        }, "self": Rule { key, fetch in
            Output(0, hash: try fetch.hash(of: key))
        }]
        for demand in [[Key("loop", "a")], [Key("loop", "a"), Key("loop", "b"), Key("loop", "c")], [Key("self")]] {
            var engine = Engine(rules: rules, world: 1)
            let report = engine.run(demand: demand, inputs: Toy.files)
            #expect(demand.allSatisfy { engine.recordedHash(of: $0) == nil })
            let cycles = report.failures.values.compactMap { $0.reason as? CycleError }
            #expect(!cycles.isEmpty && cycles.count == report.failures.count)
            for cycle in cycles {
                #expect(cycle.keys.first == cycle.keys.last)
                #expect(Set(cycle.keys) == Set(demand.first!.kind == "self" ? [Key("self")] :
                                               [Key("loop", "a"), Key("loop", "b"), Key("loop", "c")]))
            }
        }
        var engine = Engine(rules: rules, world: 1)
        let failure = try #require(engine.run(demand: [Key("loop", "a")], inputs: Toy.files).failures[Key("loop", "c")])
        #expect("\(failure)" == "loop c: dependency cycle: loop a → loop b → loop c → loop a")
    }

    @Test func readingAValueAsTheWrongTypeIsAnError() throws {
        let rules = ["wrong": Rule { _, fetch in
            Output(0, hash: UInt64(try fetch.value(Toy.file("a"), as: Int.self)))
        }]
        var engine = Engine(rules: rules, world: 1)
        let failure = try #require(engine.run(demand: [Key("wrong")], inputs: Toy.files).failures[Key("wrong")])
        #expect("\(failure.reason)" == "file a is a String, not a Int")
    }

    @Test func manyIndependentTasksRunOnceEachAndGiveStableResults() throws {
        let invocations = invocations
        let rules = [
            "shared": Rule { key, fetch in
                invocations.record(key)
                let text = try fetch.value(Toy.file("shared"), as: String.self)
                return Output(text, hash: ContentHasher.hash(text))
            },
            "page": Rule { key, fetch in
                invocations.record(key)
                let text = try fetch.value(Key("shared"), as: String.self) + "/" + fetch.value(Toy.file(key.name), as: String.self)
                return Output(text, hash: ContentHasher.hash(text))
            },
        ]
        let names = (0..<2_000).map { "p\($0)" }
        var files = Files(contents: ["shared": "s"])
        for name in names { files.contents[name] = name }
        let demand = names.map { Key("page", $0) }
        var first = Engine(rules: rules, world: 1)
        let one = first.run(demand: demand, inputs: files)
        #expect(invocations[Key("shared")] == 1)
        #expect(demand.allSatisfy { invocations[$0] == 1 })
        #expect(one.failures.isEmpty && one.ran.count == names.count + 1)
        #expect(demand.allSatisfy { one.ran[$0] as? String == "s/\($0.name)" })
        _ = invocations.take()

        var second = Engine(rules: rules, world: 1)
        _ = second.run(demand: demand.reversed(), inputs: files)
        #expect(second.hashes(of: demand) == first.hashes(of: demand))
        #expect(first.run(demand: demand, inputs: files).ran.isEmpty)
        files.contents["shared"] = "t"
        let changed = first.run(demand: demand, inputs: files)
        #expect(changed.ran.count == names.count + 1)
        #expect(invocations[Key("shared")] == 2)
        #expect(demand.allSatisfy { invocations[$0] == 2 && changed.ran[$0] as? String == "t/\($0.name)" })
    }

    @Test func aKeptValueIsServedWithoutItsRule() throws {
        for keep in [true, false] {
            var engine = engine(keepCounts: keep)
            var files = Toy.files
            _ = engine.run(demand: [Toy.report], inputs: files)
            _ = invocations.take()
            files.contents["list"] = "c a"
            let report = engine.run(demand: [Toy.report], inputs: files)
            #expect(report.ran[Toy.report] as? String == "c: 1\na: 3")
            // Without a codec the counts' values were not kept: they are computed again (to the same hashes).
            #expect(invocations.take() == (keep ? [Toy.report] : [Toy.count("a"), Toy.count("c"), Toy.report]))
        }
    }

    @Test func aBatchIsReadInParallelAndCheckedAsOne() throws {
        let invocations = invocations
        let names = (0..<200).map { "f\($0)" }
        var rules = Toy.rules(invocations, keepCounts: true)
        rules["total"] = Rule { key, fetch in
            invocations.record(key)
            let total = try fetch.values(names.map(Toy.count), as: Int.self).reduce(0, +)
            return Output(total, hash: UInt64(total))
        }
        var files = Files(contents: [:])
        for name in names { files.contents[name] = "one two" }
        var engine = Engine(rules: rules, world: 1)
        #expect(engine.run(demand: [Key("total")], inputs: files).ran[Key("total")] as? Int == 400)
        #expect(invocations.total == 201)
        _ = invocations.take()
        files.contents["f7"] = "one"
        #expect(engine.run(demand: [Key("total")], inputs: files).ran[Key("total")] as? Int == 399)
        #expect(invocations.take() == [Toy.count("f7"), Key("total")])
        files.contents["f7"] = "three"
        #expect(engine.run(demand: [Key("total")], inputs: files).ran.keys.sorted() == [Toy.count("f7")])
        files.contents["f9"] = "boom"
        let failed = engine.run(demand: [Key("total")], inputs: files)
        #expect(failed.failures.keys.sorted() == [Toy.count("f9")])
        #expect(engine.recordedHash(of: Key("total")) == nil)
        files.contents["f9"] = "one two"
        #expect(engine.run(demand: [Key("total")], inputs: files).ran[Key("total")] as? Int == 399)
    }

    @Test func aCycleThroughABatchIsAnErrorToo() throws {
        let rules = [
            "fan": Rule { _, fetch in
                Output(0, hash: try fetch.hashes(of: (0..<8).map { Key("leaf", "\($0)") }).reduce(0, ^))
            },
            "leaf": Rule { key, fetch in
                Output(0, hash: key.name == "5" ? try fetch.hash(of: Key("fan")) : 1)
            },
        ]
        var engine = Engine(rules: rules, world: 1)
        let report = engine.run(demand: [Key("fan")], inputs: Toy.files)
        let failure = try #require(report.failures[Key("leaf", "5")])
        #expect("\(failure)" == "leaf 5: dependency cycle: fan → leaf 5 → fan")
    }

    @Test func aValueKeptInMemoryIsServedWithoutItsRuleUntilTheProcessEnds() throws {
        let invocations = invocations
        var rules = Toy.rules(invocations, keepCounts: true)
        rules["theme"] = Rule(keeping: .memory) { key, fetch in
            invocations.record(key)
            let text = try fetch.value(Toy.file("a"), as: String.self).uppercased()
            return Output(text, hash: ContentHasher.hash(text))
        }
        rules["page"] = Rule { key, fetch in
            let text = try fetch.value(Key("theme"), as: String.self) + " " + fetch.value(Toy.file(key.name), as: String.self)
            return Output(text, hash: ContentHasher.hash(text))
        }
        var engine = Engine(rules: rules, world: 1)
        var files = Toy.files
        _ = engine.run(demand: [Key("page", "b")], inputs: files)
        files.contents["b"] = "edited"
        #expect(engine.run(demand: [Key("page", "b")], inputs: files).ran[Key("page", "b")] as? String == "ONE TWO THREE edited")
        #expect(invocations[Key("theme")] == 1)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("memory-trace-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try engine.save(to: path)
        var (loaded, _) = Engine.load(from: path, rules: rules, world: 1)
        files.contents["b"] = "again"
        #expect(loaded.run(demand: [Key("page", "b")], inputs: files).ran[Key("page", "b")] as? String == "ONE TWO THREE again")
        #expect(invocations[Key("theme")] == 2, "a value kept in memory is not in the trace file")
    }

    @Test func aHandleUsedAfterItsRuleReturnedIsRefused() throws {
        let kept = Mutex<Fetch?>(nil)
        let rules = ["leaky": Rule { _, fetch in
            kept.withLock { $0 = fetch }
            return Output(0, hash: 0)
        }]
        var engine = Engine(rules: rules, world: 1)
        _ = engine.run(demand: [Key("leaky")], inputs: Toy.files)
        let fetch = try #require(kept.withLock { $0 })
        #expect {
            try fetch.value(Toy.file("a"), as: String.self)
        } throws: { error in
            "\(error)" == "file a was fetched after its rule returned"
        }
    }

    /// The pages of a build: the load runs the stories alone (a partial run, without the report's rule), the build
    /// runs them again with it, told of no change. What the partial run found changed must reach the full run, in the
    /// same process or through a trace file; a task whose dependencies kept their hashes is still kept.
    @Test(arguments: ["b", "list", "b, same count"], [false, true])
    func aPartialRunLeavesWhatItSkippedToTheNextRun(change: String, throughFile: Bool) throws {
        let rules = Toy.rules(invocations)
        let counts = ["a", "b", "c"].map(Toy.count)
        var engine = Engine(rules: rules.filter { $0.key == "count" }, world: 1)
        var files = Toy.files
        _ = engine.run(demand: counts, inputs: files, partial: true)
        _ = engine.run(demand: counts + [Toy.report], inputs: files, extra: ["report": rules["report"]!])
        #expect(engine.recordedHash(of: Toy.report) != nil)
        _ = invocations.take()

        switch change {
        case "list": files.contents["list"] = "a b"
        case "b": files.contents["b"] = "four five six seven"
        default: files.contents["b"] = "other words"
        }
        let partial = engine.run(demand: counts, inputs: files, partial: true)
        #expect(partial.dropped.isEmpty, "what a partial run does not demand stays")
        if throughFile {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("partial-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try engine.save(to: path)
            engine = Engine.load(from: path, rules: rules.filter { $0.key == "count" }, world: 1).0
            _ = engine.run(demand: counts, inputs: files, partial: true)   // the next process's load
        }
        let full = engine.run(demand: counts + [Toy.report], inputs: files, changed: [],
                              extra: ["report": rules["report"]!])
        switch change {
        case "list": #expect(full.ran[Toy.report] as? String == "a: 3\nb: 2")
        case "b": #expect(full.ran[Toy.report] as? String == "a: 3\nb: 4\nc: 1")
        default:
            // Through a file the report runs again: the file cannot say that the count it read is unchanged.
            #expect(full.ran[Toy.report] == nil || throughFile, "the count kept its hash: the report stands")
            #expect(engine.recordedHash(of: Toy.report) == ContentHasher.hash("a: 3\nb: 2\nc: 1"))
        }
    }

    /// A run whose provider does not give an input kind neither looks for changes in it nor takes it for failed.
    @Test func inputsOfAKindTheProviderDoesNotGiveWaitForARunThatGivesThem() throws {
        struct WithSettings: InputProvider {
            var files: Files
            var settings: [String: String]
            func provides(_ kind: String) -> Bool { kind == "setting" || files.provides(kind) }
            func hash(of input: Key) throws -> UInt64 { try read(input).hash }
            func read(_ input: Key) throws -> Output {
                guard input.kind == "setting" else { return try files.read(input) }
                let value = settings[input.name] ?? ""
                return Output(value, hash: ContentHasher.hash(value))
            }
        }
        struct OnlyFiles: InputProvider {
            var files: Files
            func provides(_ kind: String) -> Bool { kind == "file" }
            func hash(of input: Key) throws -> UInt64 { try files.hash(of: input) }
            func read(_ input: Key) throws -> Output { try files.read(input) }
        }
        let invocations = invocations
        let greeting = Key("greeting", "a")
        let rules = ["count": Toy.countRule(invocations, keeping: .bytes(Toy.countCodec))]
        let extra = ["greeting": Rule { key, fetch in
            invocations.record(key)
            let text = try fetch.value(Key("setting", "salute"), as: String.self) + " "
                + "\(try fetch.value(Toy.count(key.name), as: Int.self))"
            return Output(text, hash: ContentHasher.hash(text))
        }]
        var engine = Engine(rules: rules, world: 1)
        var inputs = WithSettings(files: Toy.files, settings: ["salute": "hello"])
        #expect(engine.run(demand: [greeting], inputs: inputs, extra: extra).ran[greeting] as? String == "hello 3")
        _ = invocations.take()
        _ = engine.run(demand: [Toy.count("a")], inputs: OnlyFiles(files: inputs.files), partial: true)
        #expect(engine.recordedHash(of: greeting) != nil, "nothing it reads was found changed")
        inputs.settings["salute"] = "hi"
        #expect(engine.run(demand: [greeting], inputs: inputs, extra: extra).ran[greeting] as? String == "hi 3")
        #expect(invocations.take() == [greeting])
    }

    /// A page whose file was lost: its task runs again though nothing it read changed, and what reads it only when
    /// its hash changed.
    @Test func aTaskAskedForAgainRunsThoughNothingChanged() throws {
        var engine = engine()
        _ = engine.run(demand: [Toy.report], inputs: Toy.files)
        _ = invocations.take()
        let report = engine.run(demand: [Toy.report], inputs: Toy.files, again: [Toy.count("a")])
        #expect(invocations.take() == [Toy.count("a")])
        #expect(report.ran[Toy.count("a")] as? Int == 3)
    }

    @Test func contentHashesAreStableAndTellBytesApart() {
        // Fixed values: the hashes are written to trace files read by later processes.
        #expect(ContentHasher.hash("") == ContentHasher.hash([UInt8]()))
        #expect(ContentHasher.hash("abcdefghij") == ContentHasher.hash(Array("abcdefghij".utf8)))
        #expect(ContentHasher.hash("abcdefghij") == ContentHasher.hash(Array("abcdefghij".utf8).lazy.map { $0 }))
        #expect(ContentHasher.hash("a") != ContentHasher.hash("b"))
        var ab = ContentHasher(), abc = ContentHasher()
        ab.combine("ab"); ab.combine("c")
        abc.combine("a"); abc.combine("bc")
        #expect(ab.value != abc.value)
        #expect(ContentHasher.hash("newsgen") == 810_396_879_288_761_686)
    }
}
