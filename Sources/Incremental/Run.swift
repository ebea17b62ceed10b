import Dispatch
import Synchronization

/// One run's shared state: which keys are being computed, by which job, and what came out.
///
/// Each demanded key is a job, and the jobs share the cores. A job that needs a key another job is computing
/// waits for it, after checking that the other job is not (through a chain of such waits) waiting for it: that
/// would be a cycle, which fails the task that closed it instead of deadlocking.
final class Run: Sendable {
    private let rules: [String: Rule]
    private let trace: [Key: Entry]
    private let inputs: any InputProvider
    private let changed: [Key: UInt64?]
    /// Every key that may be stale: the changed inputs and, through the reverse index, all that depends on them.
    private let dirty: Set<Key>
    private let state = Mutex(State())

    struct State {
        var slots: [Key: Slot] = [:]
        /// The keys each job is computing, innermost last, and the key it waits for.
        var stacks: [Int: [Key]] = [:]
        var waiting: [Int: Key] = [:]
    }

    init(engine: Engine, inputs: any InputProvider, changed: [Key: UInt64?]) {
        rules = engine.rules
        trace = engine.trace
        self.inputs = inputs
        self.changed = changed
        var dirty = Set(changed.keys)
        var next = Array(changed.keys)
        while let key = next.popLast() {
            for dependent in engine.trace[key]?.dependents ?? [] where dirty.insert(dependent).inserted {
                next.append(dependent)
            }
        }
        self.dirty = dirty
    }

    /// Brings every demanded key up to date; the outcome of each key that was looked at more closely than "clean".
    func perform(_ demand: [Key]) -> [Key: Slot] {
        DispatchQueue.concurrentPerform(iterations: demand.count) { job in
            _ = try? resolve(demand[job], job: job, needValue: false)
        }
        return state.withLock { $0.slots }
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

    /// The current hash of `key`, and its value when `needValue` (else maybe nil), computing it if need be.
    func resolve(_ key: Key, job: Int, needValue: Bool) throws -> Resolved {
        // Most keys of a run are clean, and a clean hash is the recorded one: no need for the lock.
        if !needValue, !dirty.contains(key), let old = trace[key], !old.failed, old.isInput == (rules[key.kind] == nil) {
            return Resolved(hash: old.hash, value: nil)
        }
        while true {
            let step = try state.withLock { state throws(TaskError) -> Step in
                try next(key, job: job, needValue: needValue, &state)
            }
            switch step {
            case .found(let resolved):
                return resolved
            case .wait(let finished):
                finished.wait()
                _ = state.withLock { $0.waiting.removeValue(forKey: job) }
            case .claimed(let plan, let finished):
                let outcome = compute(key, plan, job: job, needValue: needValue)
                state.withLock { state in
                    state.slots[key] = outcome
                    state.stacks[job]?.removeLast()
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

    private func next(_ key: Key, job: Int, needValue: Bool, _ state: inout State) throws(TaskError) -> Step {
        let slot = state.slots[key]
        switch slot {
        case .failed(let error, _):
            throw error
        case .running(let owner, let finished):
            if let cycle = cycle(job: job, key: key, owner: owner, state) {
                throw TaskError(key: state.stacks[job]?.last ?? key, reason: CycleError(keys: cycle))
            }
            state.waiting[job] = key
            return .wait(finished)
        case .done(let done) where !needValue || done.value != nil:
            return .found(Resolved(hash: done.hash, value: done.value))
        case .done, nil:
            break
        }
        func claim(_ plan: Plan) -> Step {
            let finished = DispatchGroup()
            finished.enter()
            state.slots[key] = .running(job: job, finished: finished)
            state.stacks[job, default: []].append(key)
            return .claimed(plan, finished)
        }
        let old = trace[key]
        guard let rule = rules[key.kind] else {
            if slot == nil, !needValue, let old, old.isInput, !old.failed, changed[key] == nil {
                return .found(Resolved(hash: old.hash, value: nil))
            }
            return claim(.input)
        }
        guard let old, !old.isInput, !old.failed else { return claim(.run(rule)) }
        // A key already looked at this run, or one nothing it depends on has changed: its entry is current.
        if slot != nil || !dirty.contains(key) {
            if !needValue { return .found(Resolved(hash: old.hash, value: nil)) }
            if let value = old.value { return .found(Resolved(hash: old.hash, value: value)) }
            return claim(old.kept == nil ? .run(rule) : .decode(old, rule))
        }
        return claim(.verify(old, rule))
    }

    /// The keys around a cycle, if `job` waiting for `key` (held by `owner`) would close one.
    private func cycle(job: Int, key: Key, owner: Int, _ state: State) -> [Key]? {
        func segment(_ job: Int, from key: Key) -> ArraySlice<Key> {
            let stack = state.stacks[job] ?? []
            return stack[(stack.lastIndex(of: key) ?? stack.endIndex)...]
        }
        var keys: [Key] = []
        var holder = owner
        var held = key
        for _ in 0...state.stacks.count {
            keys += segment(holder, from: held)
            if holder == job { return keys + [key] }
            guard let awaited = state.waiting[holder], case .running(let next, _) = state.slots[awaited] else { return nil }
            holder = next
            held = awaited
        }
        return nil
    }

    private func compute(_ key: Key, _ plan: Plan, job: Int, needValue: Bool) -> Slot {
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
            if let bytes = old.kept, let value = rule.codec?.decode(bytes) {
                return .done(Done(hash: old.hash, value: value, kind: .decoded))
            }
            return compute(key, .run(rule), job: job, needValue: needValue)
        case .verify(let old, let rule):
            for (index, dependency) in old.dependencies.enumerated() {
                let now: Resolved
                do {
                    now = try resolve(dependency.key, job: job, needValue: false)
                } catch {
                    return .failed(error as? TaskError ?? TaskError(key: key, reason: error),
                                   read: Array(old.dependencies[...index]))
                }
                if now.hash != dependency.hash { return compute(key, .run(rule), job: job, needValue: needValue) }
            }
            if needValue, old.value == nil {
                return compute(key, old.kept == nil ? .run(rule) : .decode(old, rule), job: job, needValue: true)
            }
            return .done(Done(hash: old.hash, value: old.value, kind: .verified))
        case .run(let rule):
            let fetch = Fetch(run: self, job: job)
            do {
                let output = try rule.compute(key, fetch)
                let reads = fetch.close()
                if let failure = reads.failure { return .failed(failure, read: reads.dependencies) }
                let kept = rule.codec?.encode(output.value)
                return .done(Done(hash: output.hash, value: output.value,
                                  kind: .ran(dependencies: reads.dependencies, kept: kept)))
            } catch {
                return .failed(error as? TaskError ?? TaskError(key: key, reason: error), read: fetch.close().dependencies)
            }
        }
    }
}

struct Resolved {
    var hash: UInt64
    var value: (any Sendable)?
}

enum Slot: Sendable {
    case running(job: Int, finished: DispatchGroup)
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
        case ran(dependencies: [Dependency], kept: [UInt8]?)
    }

    var hash: UInt64
    var value: (any Sendable)?
    var kind: Kind
}
