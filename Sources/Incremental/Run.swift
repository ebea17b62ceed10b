import Dispatch
import Synchronization

/// One run's shared state: which keys are being computed, what each task is reading, and what came out.
///
/// The demanded keys, and the keys of a batch read, are resolved in parallel. A task that needs a key another
/// thread is computing waits for it, after checking that the key is not (through what the tasks being computed
/// are reading) waiting for the task itself: that would be a cycle, which fails the task that closed it instead
/// of deadlocking.
final class Run: Sendable {
    private let rules: [String: Rule]
    private let trace: Trace
    private let inputs: any InputProvider
    private let changed: [Key: UInt64?]
    /// Every key that may be stale: the changed inputs and all that reads them, directly or through other keys.
    private let dirty: Set<Key>
    /// Tasks to run again whatever they read.
    private let again: Set<Key>
    private let state = Mutex(State())
    /// Kept results decoded from their bytes on the way (clean keys, outside any slot), for an engine that runs again
    /// to keep in memory: its next run then finds them decoded.
    private let decoded = Mutex<[(Key, any Sendable)]>([])
    private let keepsDecoded: Bool

    struct State {
        var slots: [Key: Slot] = [:]
        /// For each task being computed, the keys it is reading now: the graph in which a wait could close a cycle.
        var reading: [Key: [Key]] = [:]

        mutating func startReading(_ key: Key, for reader: Key?) {
            if let reader { reading[reader, default: []].append(key) }
        }

        mutating func stopReading(_ key: Key, for reader: Key?) {
            guard let reader, let index = reading[reader]?.lastIndex(of: key) else { return }
            reading[reader]?.remove(at: index)
            if reading[reader]?.isEmpty == true { reading[reader] = nil }
        }

        /// The keys from `start` to `target` along what they are reading, if `start` leads there.
        func path(from start: Key, to target: Key) -> [Key]? {
            var visited: Set<Key> = [start]
            var paths = [[start]]
            while let path = paths.popLast() {
                if path.last == target { return path }
                for next in reading[path.last!] ?? [] where visited.insert(next).inserted { paths.append(path + [next]) }
            }
            return nil
        }
    }

    /// `stale`: the changed inputs, the tasks to run again, and all that reads them.
    init(engine: Engine, inputs: any InputProvider, changed: [Key: UInt64?], stale: Set<Key>, again: Set<Key>) {
        rules = engine.rules
        keepsDecoded = engine.runsAgain
        trace = engine.trace
        self.inputs = inputs
        self.changed = changed
        dirty = stale
        self.again = again
    }

    /// Brings every demanded key up to date; the outcome of each key that was looked at more closely than "clean", the
    /// hash of each demanded key (nil where it failed), and with `needValues` its value.
    func perform(_ demand: [Key], needValues: Bool)
        -> (slots: [Key: Slot], hashes: [UInt64?], values: [(any Sendable)?], decoded: [(Key, any Sendable)]) {
        // A clean key whose value is at hand (kept in memory by an engine that runs again and again) is answered here
        // by a lookup; only the others are resolved, on every core.
        var hashes = [UInt64?](repeating: nil, count: demand.count)
        var values = [(any Sendable)?](repeating: nil, count: needValues ? demand.count : 0)
        var others: [Int] = []
        // A clean key whose value is kept as bytes is decoded from the entry found here: looked up again by `resolve`,
        // each would cost a second search of the trace.
        var keptBytes: [(index: Int, bytes: ArraySlice<UInt8>, codec: Codec)] = []
        for (index, key) in demand.enumerated() {
            if let old = cleanEntry(key) {
                hashes[index] = old.hash
                guard needValues else { continue }
                if let value = old.value {
                    values[index] = value
                    continue
                }
                if let bytes = old.kept, case .bytes(let codec)? = rules[key.kind]?.keep {
                    keptBytes.append((index, bytes, codec))
                    continue
                }
            }
            others.append(index)
        }
        let kept = keptBytes
        let fromBytes = mapOnEveryCore(kept.count) { kept[$0].codec.decode(kept[$0].bytes) }
        var fresh: [(Key, any Sendable)] = []
        for (item, value) in zip(kept, fromBytes) {
            guard let value else {
                others.append(item.index)   // bytes that do not decode: the task runs again
                continue
            }
            values[item.index] = value
            if keepsDecoded { fresh.append((demand[item.index], value)) }
        }
        if !fresh.isEmpty { decoded.withLock { $0 += fresh } }
        let outcomes = resolve(others.map { demand[$0] }, for: nil, needValue: needValues)
        for (index, outcome) in zip(others, outcomes) {
            let resolved = try? outcome.get()
            hashes[index] = resolved?.hash
            if needValues { values[index] = resolved?.value }
        }
        return (state.withLock { $0.slots }, hashes, values, decoded.withLock { $0 })
    }

    /// Resolves several keys in parallel for `reader`, each to its outcome.
    func resolve(_ keys: [Key], for reader: Key?, needValue: Bool) -> [Result<Resolved, TaskError>] {
        @Sendable func one(_ key: Key) -> Result<Resolved, TaskError> {
            do throws(TaskError) { return .success(try resolve(key, for: reader, needValue: needValue)) } catch {
                return .failure(error)
            }
        }
        let outcomes = keys.count > 1 ? mapOnEveryCore(keys.count) { one(keys[$0]) } : keys.map(one)
        if keepsDecoded {
            let fresh = zip(keys, outcomes).compactMap { key, outcome in
                (try? outcome.get()).flatMap { $0.decoded ? $0.value.map { (key, $0) } : nil }
            }
            if !fresh.isEmpty { decoded.withLock { $0 += fresh } }
        }
        return outcomes
    }

    private enum Step {
        case found(Resolved)
        case wait(DispatchGroup)
        case claimed(Plan, DispatchGroup)
    }

    private enum Plan {
        case input
        case verify(Entry, Rule)
        case decode(Entry, Rule)
        case run(Rule)
    }

    /// The recorded entry of `key` when nothing it depends on changed and it stands as recorded: its hash (and its
    /// value, when kept) is the current one.
    private func cleanEntry(_ key: Key) -> Entry? {
        guard !dirty.contains(key), let old = trace[key], !old.failed, old.isInput == (rules[key.kind] == nil) else {
            return nil
        }
        return old
    }

    /// The current hash of `key`, and its value when `needValue` (else maybe nil), computing it if need be.
    func resolve(_ key: Key, for reader: Key?, needValue: Bool) throws(TaskError) -> Resolved {
        // Most keys of a run are clean, and a clean hash is the recorded one: no need for the lock.
        if let old = cleanEntry(key) {
            if !needValue { return Resolved(hash: old.hash, value: nil) }
            // A clean result's kept value, decoded without claiming the key: decoding is pure, and a process that
            // needs the stories of a whole archive would otherwise take the lock twice for each.
            if let value = old.value { return Resolved(hash: old.hash, value: value) }
            if let bytes = old.kept, case .bytes(let codec)? = rules[key.kind]?.keep, let value = codec.decode(bytes) {
                return Resolved(hash: old.hash, value: value, decoded: true)
            }
        }
        while true {
            let step = try state.withLock { state throws(TaskError) -> Step in
                try next(key, for: reader, needValue: needValue, &state)
            }
            switch step {
            case .found(let resolved):
                return resolved
            case .wait(let finished):
                finished.wait()
                state.withLock { $0.stopReading(key, for: reader) }
            case .claimed(let plan, let finished):
                let outcome = compute(key, plan, needValue: needValue)
                state.withLock { state in
                    // An input's value (a file's bytes) is not kept for the rest of the run: another reader reads it
                    // again, and a run over a whole archive would otherwise hold every file until it ends.
                    if case .done(var done) = outcome, case .input = done.kind {
                        done.value = nil
                        state.slots[key] = .done(done)
                    } else {
                        state.slots[key] = outcome
                    }
                    state.stopReading(key, for: reader)
                }
                finished.leave()
                switch outcome {
                case .done(let done): return Resolved(hash: done.hash, value: done.value)
                case .failed(let error, _): throw error
                case .running: preconditionFailure("a computed key is never left running")
                }
            }
        }
    }

    private func next(_ key: Key, for reader: Key?, needValue: Bool, _ state: inout State) throws(TaskError) -> Step {
        let slot = state.slots[key]
        switch slot {
        case .failed(let error, _):
            throw error
        case .running(let finished):
            if let reader, let path = state.path(from: key, to: reader) {
                throw TaskError(key: reader, reason: CycleError(keys: path + [key]))
            }
            state.startReading(key, for: reader)
            return .wait(finished)
        case .done(let done) where !needValue || done.value != nil:
            return .found(Resolved(hash: done.hash, value: done.value))
        case .done, nil:
            break
        }
        func claim(_ plan: Plan) -> Step {
            let finished = DispatchGroup()
            finished.enter()
            state.slots[key] = .running(finished: finished)
            state.startReading(key, for: reader)
            return .claimed(plan, finished)
        }
        let old = trace[key]
        guard let rule = rules[key.kind] else {
            if slot == nil, !needValue, let old, old.isInput, !old.failed, changed[key] == nil {
                return .found(Resolved(hash: old.hash, value: nil))
            }
            return claim(.input)
        }
        guard let old, !old.isInput, !old.failed, slot != nil || !again.contains(key) else { return claim(.run(rule)) }
        // A key already looked at this run, or one nothing it depends on has changed: its entry is current.
        if slot != nil || !dirty.contains(key) {
            if !needValue { return .found(Resolved(hash: old.hash, value: nil)) }
            if let value = old.value { return .found(Resolved(hash: old.hash, value: value)) }
            return claim(old.kept == nil ? .run(rule) : .decode(old, rule))
        }
        return claim(.verify(old, rule))
    }

    private func compute(_ key: Key, _ plan: Plan, needValue: Bool) -> Slot {
        switch plan {
        case .input:
            do {
                if needValue {
                    let output = try inputs.read(key)
                    return .done(Done(hash: output.hash, value: output.value, kind: .input))
                }
                let hash = try changed[key].flatMap { $0 } ?? inputs.hash(of: key)
                return .done(Done(hash: hash, value: nil, kind: .input))
            } catch {
                return .failed(TaskError(key: key, reason: error), read: [])
            }
        case .decode(let old, let rule):
            if let bytes = old.kept, case .bytes(let codec) = rule.keep, let value = codec.decode(bytes) {
                return .done(Done(hash: old.hash, value: value, kind: .decoded))
            }
            return compute(key, .run(rule), needValue: needValue)
        case .verify(let old, let rule):
            // In the order they were read, a batch at a time (read together, so checked together).
            var start = 0
            while start < old.dependencies.count {
                var end = start + 1
                while end < old.dependencies.count, old.dependencies[end].batched { end += 1 }
                let batch = old.dependencies[start..<end]
                let outcomes = resolve(batch.map(\.key), for: key, needValue: false)
                if zip(batch, outcomes).contains(where: { dependency, outcome in
                    (try? outcome.get().hash).map { $0 != dependency.hash } ?? false
                }) {
                    return compute(key, .run(rule), needValue: needValue)
                }
                for case .failure(let error) in outcomes {
                    return .failed(error, read: Array(old.dependencies[..<end]))
                }
                start = end
            }
            if needValue, old.value == nil {
                return compute(key, old.kept == nil ? .run(rule) : .decode(old, rule), needValue: true)
            }
            return .done(Done(hash: old.hash, value: old.value, kind: .verified))
        case .run(let rule):
            let fetch = Fetch(run: self, task: key)
            do {
                let output = try rule.compute(key, fetch)
                let reads = fetch.close()
                if let failure = reads.failure { return .failed(failure, read: reads.dependencies) }
                return .done(Done(hash: output.hash, value: output.value, kind: .ran(dependencies: reads.dependencies)))
            } catch {
                return .failed(error as? TaskError ?? TaskError(key: key, reason: error), read: fetch.close().dependencies)
            }
        }
    }
}

struct Resolved {
    var hash: UInt64
    var value: (any Sendable)?
    /// A clean key's kept result, decoded from its bytes by this read (not in any slot).
    var decoded = false
}

enum Slot: Sendable {
    case running(finished: DispatchGroup)
    case done(Done)
    /// With what the task read before it failed, which stays needed for its next attempt.
    case failed(TaskError, read: [Dependency])
}

struct Done: Sendable {
    enum Kind: Sendable {
        case input
        /// Every dependency had the recorded hash: the entry stands.
        case verified
        /// A clean entry's kept result, decoded for a dependent that needed the value.
        case decoded
        case ran(dependencies: [Dependency])
    }

    var hash: UInt64
    var value: (any Sendable)?
    var kind: Kind
}

/// `transform` of each of `0..<count`, on every core, in order. In a few dozen strided chunks rather than one item at
/// a time: an item (a clean key's lookup, a file's stamp) often costs less than taking the lock to store its result.
func mapOnEveryCore<T: Sendable>(_ count: Int, _ transform: @Sendable (Int) -> T) -> [T] {
    let results = Mutex([T?](repeating: nil, count: count))
    let chunks = min(count, 64)
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        let indices = stride(from: chunk, to: count, by: chunks)
        let found = indices.map(transform)
        results.withLock { results in
            for (index, result) in zip(indices, found) { results[index] = result }
        }
    }
    return results.withLock { $0.map { $0! } }
}
