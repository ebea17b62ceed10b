import Synchronization

/// A small incremental build engine: keyed tasks whose dependencies are recorded as they are read.
///
/// A client names its work with `Key`s. A key whose kind has a `Rule` is a task; any other key is an input, whose
/// hash and value come from the `InputProvider` given to each run. A rule gets only a `Fetch` handle, and every
/// input or task result it reads goes through it and is recorded with the hash it saw: the trace of the run.
/// The next run asks which inputs changed, finds the tasks that read them (directly or through other tasks), which
/// may be stale, and checks only those, each one's dependencies in the order they were read: a task whose dependencies
/// all have the hashes it saw is kept, any other one runs again. A task that runs again with the same result hash
/// stops there (early cutoff): its dependents see the hash they recorded.
///
/// A run uses every core: the demanded keys, and the keys of a batch read, are resolved in parallel, and a key
/// is computed at most once per run, whoever asks for it first.
///
/// Invariants:
/// - A task reads only through the engine. The rule's only way in is the `Fetch` handle, so no dependency can be
///   left out of the trace; rules must be deterministic functions of what they fetch.
/// - A result is reused only if every dependency it read has the same hash now. After a run, every trace entry's
///   dependencies are themselves in the trace, with the hashes the entry recorded. A task that failed, or that
///   read one that failed, keeps no result (only what it read, which its next attempt needs): it runs again.
/// - The trace on disk is either complete and checksummed or ignored (see `TraceFile.swift`).
/// - The trace holds what the last full run demanded and what that read, nothing else: the rest is dropped, and the
///   dropped tasks are reported. A partial run (see `run`) adds to it and drops nothing it did not re-run.
/// - A run's work follows what changed: a task that reads no changed input (directly or through other tasks) is not
///   even looked at, and a clean key costs a lookup.
public struct Engine: Sendable {
    /// The client's identity of everything that is not an input (its binary, say): a trace file written for
    /// another world is ignored.
    public let world: UInt64
    var rules: [String: Rule]
    /// The codec of every kind of result kept as bytes, from the rules of every run so far (a run's `extra` rules
    /// included): a result is encoded when the trace is saved, not when it is made.
    var codecs: [String: Codec] = [:]
    var trace = Trace()
    var roots: Set<Key> = []
    /// The trace file as this engine last read or wrote it, and the keys whose entries changed since (added,
    /// changed or removed): `save` appends only those to it.
    var file: TraceFileState? = nil
    var unsaved: Set<Key> = []
    /// Tasks that a partial run found may be stale (they read something that changed) but did not look at: the next
    /// run looks at them (so a task whose dependencies kept their hashes is still kept), and a save marks them to
    /// run again, since a trace file cannot say what changed before it was written.
    var unchecked: Set<Key> = []
    /// The inputs a partial run found changed but did not read, with their hashes then: the next run takes them as
    /// changed too. (A new process finds them changed again: the trace still has their old hashes.)
    var uncheckedInputs: [Key: UInt64?] = [:]

    /// An engine that runs again and again in one process (`newsgen serve`) keeps, for every key, the keys that
    /// read it, made at the first run that has changes and then kept up to date, so that finding what may be stale
    /// costs what changed; and the results it decoded from the trace file, so that its next runs need not decode
    /// them again. An engine that runs once does neither: the trace finds the readers of what changed through an index of
    /// places made for the run (see `Trace.readers`), and keeping what it decoded would only cost time.
    /// It also logs which entries each of its runs changed, so that a client that kept what it made of the results
    /// at some run can ask what changed since (`changes(since:)`).
    public var runsAgain = false {
        didSet {
            guard runsAgain != oldValue else { return }
            if !runsAgain { readerIndex = nil }
            changeLog = []
            loggedSince = runsAgain ? runCount : Int.max
        }
    }
    var readerIndex: [Key: Set<Key>]? = nil

    /// This engine's runs so far, and an identity of its own (a client's mark is no use to another engine).
    private var runCount = 0
    private let identity = UInt64.random(in: 1...UInt64.max)
    /// The keys whose entries each logged run changed (results changed, failed or dropped; inputs changed), the last
    /// `loggedRuns` runs; every run after `loggedSince` is in it.
    private var changeLog: [(run: Int, keys: Set<Key>)] = []
    private var loggedSince = Int.max
    private static let loggedRuns = 32

    /// Where this engine stands: what its results are now, for `changes(since:)` to compare with later.
    public var mark: RunMark { RunMark(engine: identity, run: runCount) }

    /// The keys whose entries changed since `mark` (a task whose result changed, failed or went, an input whose hash
    /// changed): every other key has the entry it had then. Nil when that is not known: `mark` is another engine's,
    /// or older than the runs this one logs (it logs while it runs again, `runsAgain`).
    public func changes(since mark: RunMark) -> Set<Key>? {
        guard mark.engine == identity, mark.run <= runCount else { return nil }
        if mark.run == runCount { return [] }
        guard mark.run >= loggedSince else { return nil }
        var changes: Set<Key> = []
        for logged in changeLog where logged.run > mark.run { changes.formUnion(logged.keys) }
        return changes
    }

    public init(rules: [String: Rule], world: UInt64) {
        self.rules = rules
        self.world = world
        noteCodecs(rules)
    }

    private mutating func noteCodecs(_ rules: [String: Rule]) {
        for (kind, rule) in rules {
            if case .bytes(let codec) = rule.keep { codecs[kind] = codec }
        }
    }

    /// How many tasks and inputs the trace records (failed ones included).
    public var recordedCount: Int { trace.count }

    /// The keys of one kind that the last run demanded (to demand them again before knowing whether they are all
    /// still wanted, say).
    public func demanded(kind: String) -> [Key] { roots.filter { $0.kind == kind } }

    /// The recorded inputs that `matches` picks: those under a folder a file watcher saw change, say.
    public func recordedInputs(where matches: (Key) -> Bool) -> [Key] {
        // By key alone: looking at an entry would cost a copy of it.
        trace.keys.filter { rules[$0.kind] == nil && matches($0) && trace[$0]?.isInput == true }
    }

    /// The hash recorded for a key, or nil when the trace has none or the key failed.
    public func recordedHash(of key: Key) -> UInt64? { trace[key].flatMap { $0.failed ? nil : $0.hash } }

    /// The value recorded for a task whose rule keeps it as bytes (`Rule.Keep.bytes`, in a run of this engine), in
    /// memory or decoded from the trace's bytes; nil when the trace has none, the task failed, or the bytes do not
    /// decode.
    public func recordedValue(of key: Key) -> (any Sendable)? {
        guard let entry = trace[key], !entry.failed else { return nil }
        return entry.value ?? entry.kept.flatMap { codecs[key.kind]?.decode($0) }
    }

    /// Brings every demanded key up to date.
    ///
    /// `changed` lists the inputs that may have changed since the last run (from a file watcher, say); nil asks
    /// the provider for the hash of every recorded input it provides. An input left out of `changed` is taken to be
    /// unchanged.
    /// `again`: tasks to run again whatever they read (their result is needed, and its value was not kept: a page
    /// whose file was lost, say); their values are in `Report.ran`.
    /// `valuesOfDemand`: also give the value of each demanded key (`Report.values`), decoding kept results.
    /// `extra`: rules for this run only, for work that needs what only a later step of the client has (the pages of a
    /// build need its output folder); a run without them keeps their recorded tasks only when it is partial.
    /// `partial`: the demand is only part of what the client wants (its other tasks need what a later step makes, and
    /// a full run follows with their rules added): what this run does not demand is kept, and a recorded task that
    /// may be stale but that this run did not look at is looked at by the next run (`unchecked`), so that nothing
    /// learnt here is lost to it, in this process or, through a save, another.
    /// The calling thread blocks until the run is over (rules are synchronous and run on Dispatch's threads).
    public mutating func run(demand: [Key], inputs: some InputProvider, changed: Set<Key>? = nil, again: Set<Key> = [],
                             valuesOfDemand: Bool = false, extra: [String: Rule] = [:], partial: Bool = false) -> Report {
        let ownRules = rules
        rules.merge(extra) { _, new in new }
        noteCodecs(extra)
        defer { rules = ownRules }
        var changedHashes = findChanges(inputs: inputs, candidates: changed)
        changedHashes.merge(uncheckedInputs) { found, _ in found }
        if runsAgain, readerIndex == nil, !changedHashes.isEmpty || !again.isEmpty {
            var index: [Key: Set<Key>] = [:]
            trace.forEach { key, entry in
                for dependency in entry.dependencies { index[dependency.key, default: []].insert(key) }
            }
            readerIndex = index
        }
        let stale = readers(of: Set(changedHashes.keys).union(again)).union(unchecked)
        // The run's copy of the trace must be gone before the commit changes it, or the commit copies it all.
        let (slots, hashes, values, decoded) = Run(engine: self, inputs: inputs, changed: changedHashes, stale: stale,
                                                   again: again).perform(demand, needValues: valuesOfDemand)
        for (key, value) in decoded where slots[key] == nil { trace[key]?.value = value }   // only when it runs again
        var report = commit(slots, demand: demand, changed: changedHashes, partial: partial ? stale : nil)
        report.hashes = hashes
        report.values = values
        return report
    }

    /// The current hash of each recorded input that differs from the recorded one (nil: the provider failed, so
    /// whoever reads it finds out why).
    private func findChanges(inputs: some InputProvider, candidates: Set<Key>?) -> [Key: UInt64?] {
        // The kind first: looking at a task's entry would cost making it.
        let recorded = candidates.map { candidates in
            candidates.compactMap { key in
                rules[key.kind] == nil ? trace[key].flatMap { $0.isInput ? (key: key, hash: $0.hash) : nil } : nil
            }
        } ?? trace.inputs().filter { rules[$0.key.kind] == nil }
        let provided = recorded.filter { inputs.provides($0.key.kind) }
        let now = mapOnEveryCore(provided.count) { try? inputs.hash(of: provided[$0].key) }
        var found: [Key: UInt64?] = [:]
        for (index, (key, hash)) in provided.enumerated() where now[index] != hash { found[key] = now[index] }
        return found
    }

    /// Folds a run's outcomes into the trace: new and re-verified entries, the failed ones marked to run again with
    /// everything that depends on them, and what nobody demands any more dropped. `partial`: the keys that may have
    /// been stale in a partial run (see `run`).
    private mutating func commit(_ slots: [Key: Slot], demand: [Key], changed: [Key: UInt64?], partial: Set<Key>?) -> Report {
        var report = Report()
        var touched: Set<Key> = []   // keys whose entries this commit changes
        defer {
            if file != nil { unsaved.formUnion(touched) }
            runCount += 1
            if runsAgain {
                changeLog.append((runCount, touched))
                if changeLog.count > Self.loggedRuns { loggedSince = changeLog.removeFirst().run }
            }
        }
        var candidates: [Key] = []   // keys that may have lost their last reader
        var failed: Set<Key> = []
        /// Mostly a task reads again what it read before: then no key lost or gained a reader.
        func relink(_ key: Key, _ old: [Dependency]?, _ new: [Dependency]) {
            let old = old ?? []
            guard old.count != new.count || zip(old, new).contains(where: { $0.key != $1.key }) else { return }
            let before = Set(old.map(\.key))
            let now = Set(new.map(\.key))
            for dependency in before where !now.contains(dependency) {
                candidates.append(dependency)
                readerIndex?[dependency]?.remove(key)
            }
            if readerIndex != nil {
                for dependency in now where !before.contains(dependency) { readerIndex![dependency, default: []].insert(key) }
            }
        }
        for (key, slot) in slots {
            let done: Done
            switch slot {
            case .running: preconditionFailure("a run ends with no key running")
            case .done(let finished): done = finished
            case .failed(let error, let read):
                touched.insert(key)
                report.failures[error.key] = error
                failed.insert(key)
                relink(key, trace[key]?.dependencies, read)
                trace[key] = Entry(hash: 0, isInput: rules[key.kind] == nil, dependencies: read, failed: true)
                continue
            }
            switch done.kind {
            case .input:
                let known = trace[key].flatMap { $0.isInput && !$0.failed ? $0.hash : nil }
                // The hash the change check saw, so that an input edited during the run is found changed next time.
                let hash = changed[key].map { $0 ?? done.hash } ?? known ?? done.hash
                if hash != known { touched.insert(key) }
                trace[key] = Entry(hash: hash, isInput: true, dependencies: [])
            case .verified, .decoded:
                if done.value != nil, rules[key.kind]?.keepsValue == true { trace[key]?.value = done.value }
            case .ran(let dependencies):
                report.ran[key] = done.value
                let old = trace[key]
                // A task run again only for its value (one kept in memory only) mostly has the entry it had; the same
                // hash stands for the same value, so its kept bytes are still right.
                let same = old.map { !$0.failed && !$0.isInput && $0.hash == done.hash && $0.dependencies == dependencies }
                    ?? false
                if !same { touched.insert(key) }
                relink(key, old?.dependencies, dependencies)
                trace[key] = Entry(hash: done.hash, isInput: false, dependencies: dependencies, kept: same ? old?.kept : nil,
                                   value: rules[key.kind]?.keepsValue == true ? done.value : nil)
            }
        }
        // A failed task keeps what it read (still needed by its next attempt) but no result, and so does every
        // entry that relied on its result: the next run computes them again.
        if !failed.isEmpty {
            for key in readers(of: failed) where !failed.contains(key) && trace[key]?.failed == false {
                trace[key]?.failed = true
                touched.insert(key)
            }
        }
        if let stale = partial {
            // Not looked at: the next run must not take it for current because what changed is now recorded.
            unchecked = []
            for key in stale where slots[key] == nil && trace[key].map({ !$0.isInput && !$0.failed }) == true {
                unchecked.insert(key)
            }
            uncheckedInputs = changed.filter { slots[$0.key] == nil }
            // Mostly the roots already hold every demanded key: then they are left as they are, still one table with
            // the trace file's record of them, so that neither is copied and a save finds them equal at once.
            if !demand.allSatisfy(roots.contains) { roots.formUnion(demand) }
        } else {
            (unchecked, uncheckedInputs) = ([], [:])   // every stale key was looked at, or is no longer demanded
            // The same way, mostly the demand is the last full run's. (A key demanded twice could let a root that is no
            // longer demanded stay one: its entry is kept, never used wrongly.)
            if demand.count != roots.count || !demand.allSatisfy(roots.contains) {
                let demanded = Set(demand)
                for key in roots where !demanded.contains(key) { candidates.append(key) }
                roots = demanded
            }
        }
        guard !candidates.isEmpty else { return report }
        // What no task reads any more and nobody demands goes, and then what only it read.
        var readCount = trace.readCounts()
        while let key = candidates.popLast() {
            guard let entry = trace[key], readCount[key] == 0, !roots.contains(key) else { continue }
            trace.removeValue(forKey: key)
            readerIndex?[key] = nil
            touched.insert(key)
            if !entry.isInput { report.dropped.append(key) }
            for dependency in entry.dependencies {
                readCount.remove(dependency.key)
                readerIndex?[dependency.key]?.remove(key)
                candidates.append(dependency.key)
            }
        }
        report.dropped.sort()
        return report
    }

    /// `keys` and every key that reads one of them, directly or through other keys: all that may be stale when they
    /// changed. Through the engine's index of readers when it keeps one (`runsAgain`), else through the trace's.
    func readers(of keys: Set<Key>) -> Set<Key> {
        guard let readerIndex, !keys.isEmpty else { return trace.readers(of: keys) }
        var found = keys
        var next = Array(keys)
        while let key = next.popLast() {
            for reader in readerIndex[key] ?? [] where found.insert(reader).inserted { next.append(reader) }
        }
        return found
    }
}

/// The name of a task or an input: what it is (`kind`, which selects its rule) and which one (`name`).
public struct Key: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let kind: String
    public let name: String
    /// A hash of both, made once: a run looks keys up in tables many times each (tens of thousands of keys), and
    /// hashing the strings on every lookup was a good part of loading, running and saving a trace.
    let digest: UInt64

    public init(_ kind: String, _ name: String = "") {
        var hasher = ContentHasher()
        hasher.combine(kind)
        hasher.combine(name)
        self.init(kind, name, digest: hasher.value)
    }

    /// `digest`: as `init(_:_:)` makes it (a recorded segment has made it from the key's bytes).
    init(_ kind: String, _ name: String, digest: UInt64) {
        self.kind = kind
        self.name = name
        self.digest = digest
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    public static func == (a: Key, b: Key) -> Bool { a.digest == b.digest && a.name == b.name && a.kind == b.kind }

    public static func < (a: Key, b: Key) -> Bool { (a.kind, a.name) < (b.kind, b.name) }

    public var description: String { name.isEmpty ? kind : "\(kind) \(name)" }
}

/// Where an engine stood after some run (see `Engine.changes(since:)`).
public struct RunMark: Sendable, Equatable {
    let engine: UInt64
    let run: Int
}

/// A result, or an input's content: the value and the hash that stands for it.
///
/// The rule gives the hash rather than the engine hashing bytes, because many results are values, not bytes (a
/// parsed story), and because the rule knows what matters about its result (`ContentHasher` helps).
public struct Output: Sendable {
    public var value: any Sendable
    public var hash: UInt64

    public init(_ value: any Sendable, hash: UInt64) {
        self.value = value
        self.hash = hash
    }
}

/// How to compute the tasks of one kind, and what of a result the engine keeps once the run is over.
public struct Rule: Sendable {
    public enum Keep: Sendable {
        /// Only the hash (a rendered page, which is written out and never read again): a dependent that needs the
        /// value of an unchanged result runs the rule again.
        case hash
        /// The value too, in memory, for the next run of the same engine (a parsed template).
        case memory
        /// The value, in memory and as the codec's bytes in the trace file (a parsed story).
        case bytes(Codec)
    }

    let compute: @Sendable (Key, Fetch) throws -> Output
    let keep: Keep

    public init(keeping keep: Keep = .hash, _ compute: @escaping @Sendable (Key, Fetch) throws -> Output) {
        self.compute = compute
        self.keep = keep
    }

    var keepsValue: Bool {
        if case .hash = keep { return false }
        return true
    }
}

/// Bytes for a rule's kept results. A value that fails to decode is computed again.
public struct Codec: Sendable {
    let encode: @Sendable (any Sendable) -> [UInt8]?
    /// Given the bytes where they lie, in the trace file's bytes as read: a value may keep a slice of them.
    let decode: @Sendable (ArraySlice<UInt8>) -> (any Sendable)?

    public init<Value: Sendable>(_ type: Value.Type, encode: @escaping @Sendable (Value) -> [UInt8],
                                 decode: @escaping @Sendable (ArraySlice<UInt8>) -> Value?) {
        self.encode = { value in (value as? Value).map(encode) }
        self.decode = { bytes in decode(bytes) }
    }
}

/// Where inputs come from; the engine reads nothing else but its trace file.
///
/// `hash(of:)` must give the same hash as `read(_:)` would for the same content: it is what the engine compares
/// with the trace to find what changed, so it should be cheap (a file's size, time and inode, say).
public protocol InputProvider: Sendable {
    func hash(of input: Key) throws -> UInt64
    func read(_ input: Key) throws -> Output
    /// Whether this provider gives inputs of `kind`. A run does not look for changes in the recorded inputs of the
    /// kinds it does not provide: they are left as recorded, for a run whose provider gives them.
    func provides(_ kind: String) -> Bool
}

extension InputProvider {
    public func provides(_ kind: String) -> Bool { true }
}

/// What a run did.
public struct Report: Sendable {
    /// Every task whose rule ran, with the value it returned.
    public var ran: [Key: any Sendable] = [:]
    /// Tasks that were in the trace and that nobody demands any more (their outputs can go).
    public var dropped: [Key] = []
    /// The failures, each once, under the key of the task whose rule threw (or where a cycle closed).
    public var failures: [Key: TaskError] = [:]
    /// The hash of each demanded key's result, in the order of the demand (nil where it failed).
    public var hashes: [UInt64?] = []
    /// With `valuesOfDemand`: the value of each demanded key, in the order of the demand (nil where it failed).
    public var values: [(any Sendable)?] = []
}

/// A task that failed: its key and why. Its dependents fail with the same error.
public struct TaskError: Error, CustomStringConvertible {
    public let key: Key
    public let reason: any Error

    public var description: String { "\(key): \(reason)" }
}

public struct CycleError: Error, CustomStringConvertible {
    /// The keys around the cycle, the first one repeated at the end.
    public let keys: [Key]

    public var description: String { "dependency cycle: " + keys.map(\.description).joined(separator: " → ") }
}

/// A rule used its handle wrongly: read a value as another type, or after it returned.
public struct FetchError: Error, CustomStringConvertible {
    public let description: String
}

/// A rule's only way to read: every call is recorded as a dependency of the task, with the hash it saw.
///
/// Use it only until the rule returns. The batch forms read their keys in parallel.
public final class Fetch: Sendable {
    private let run: Run
    private let task: Key
    private let reads = Mutex(Reads())

    struct Reads {
        var dependencies: [Dependency] = []
        var seen: Set<Key> = []
        var failure: TaskError?
        var closed = false
    }

    init(run: Run, task: Key) {
        self.run = run
        self.task = task
    }

    /// The current value of an input or task result.
    public func value<Value>(_ key: Key, as type: Value.Type = Value.self) throws -> Value {
        try values([key], as: type)[0]
    }

    /// The current values of several inputs or task results, computed in parallel where they need computing.
    public func values<Value>(_ keys: [Key], as type: Value.Type = Value.self) throws -> [Value] {
        try read(keys, needValue: true).map { key, found in
            guard let value = found.value as? Value else {
                throw FetchError(description: "\(key) is a \(found.value.map { "\(Swift.type(of: $0))" } ?? "nothing"), not a \(Value.self)")
            }
            return value
        }
    }

    /// The current hash of an input or task result, for a rule that needs to know only whether it changed.
    public func hash(of key: Key) throws -> UInt64 {
        try hashes(of: [key])[0]
    }

    public func hashes(of keys: [Key]) throws -> [UInt64] {
        try read(keys, needValue: false).map { $0.1.hash }
    }

    private func read(_ keys: [Key], needValue: Bool) throws -> [(Key, Resolved)] {
        if reads.withLock({ $0.closed }) {
            throw FetchError(description: "\(keys.first.map { "\($0)" } ?? "nothing") was fetched after its rule returned")
        }
        let outcomes = run.resolve(keys, for: task, needValue: needValue)
        return try reads.withLock { reads in
            var batched = false
            for (key, outcome) in zip(keys, outcomes) where reads.seen.insert(key).inserted {
                // A failed read is recorded too: the task's next attempt still needs what it read.
                reads.dependencies.append(Dependency(key: key, hash: (try? outcome.get().hash) ?? 0, batched: batched))
                batched = true
            }
            for case .failure(let error) in outcomes {
                reads.failure = reads.failure ?? error
                throw error
            }
            return zip(keys, outcomes).map { ($0, try! $1.get()) }   // all successes: the first failure was thrown above
        }
    }

    /// What the rule read; a rule that caught a dependency's failure fails all the same.
    func close() -> Reads {
        reads.withLock { reads in
            reads.closed = true
            return reads
        }
    }
}

struct Dependency: Sendable, Equatable {
    var key: Key
    var hash: UInt64
    /// Read in one batch with the dependency before it.
    var batched = false
}

/// What the trace knows about one key.
struct Entry: Sendable {
    var hash: UInt64
    /// In the order the task read them. Those of an entry of a recorded segment are read from its bytes when asked
    /// for: a run asks only for those of the entries that may be stale.
    var dependencies: [Dependency] {
        get {
            switch reads {
            case .own(let dependencies): dependencies
            case .recorded(let segment, let offset): segment.dependencies(at: offset)
            }
        }
        set { reads = .own(newValue) }
    }
    /// One field for both kinds of dependencies, and the flags last: an entry takes 96 bytes instead of 112, in a
    /// trace's table of half a million entries at 100,000 stories.
    private var reads: Reads
    private enum Reads: Sendable {
        case own([Dependency])
        case recorded(RecordedSegment, offset: Int)
    }
    /// The codec's bytes for a kept result, when it was read from the trace file (a slice of its bytes); a result
    /// made by a run has its value instead, encoded when the trace is saved.
    var kept: ArraySlice<UInt8>? = nil
    /// The kept result, decoded (in memory only).
    var value: (any Sendable)? = nil
    var isInput: Bool
    /// The task failed (or read one that did): it has no result and runs again when demanded.
    var failed = false

    init(hash: UInt64, isInput: Bool, dependencies: [Dependency], kept: ArraySlice<UInt8>? = nil,
         value: (any Sendable)? = nil, failed: Bool = false) {
        self.hash = hash
        self.isInput = isInput
        reads = .own(dependencies)
        self.kept = kept
        self.value = value
        self.failed = failed
    }

    init(hash: UInt64, isInput: Bool, recordedDependencies: (segment: RecordedSegment, offset: Int), failed: Bool) {
        self.hash = hash
        self.isInput = isInput
        reads = .recorded(recordedDependencies.segment, offset: recordedDependencies.offset)
        self.failed = failed
    }
}
