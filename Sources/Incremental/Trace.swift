#if canImport(Glibc)
import Glibc
#endif

/// The entries of a trace, by key: those of a trace file's first segment, read in place from the file's bytes
/// (`RecordedSegment`), under the entries set or removed since (later segments, and runs).
///
/// Loading a trace so costs a scan of its bytes: no key, entry or table slot is made for each of its tens of
/// thousands of entries. An entry is made when it is looked up, and its dependencies when they are read, so a run
/// that looks closely at a few keys costs a few entries, and the trace is released as one buffer.
struct Trace: Sendable {
    private var recorded: RecordedSegment?
    /// Entries set since the recorded segment; nil: removed.
    private var changes: [Key: Entry?] = [:]
    /// The places of the recorded segment whose keys are in `changes`.
    private var overridden: Set<Int> = []
    private(set) var count = 0

    init() {}

    init(recorded: RecordedSegment) {
        self.recorded = recorded
        count = recorded.entryCount
    }

    subscript(key: Key) -> Entry? {
        get {
            if let change = changes[key] { return change }
            guard let recorded, let place = recorded.place(of: key) else { return nil }
            return recorded.entry(at: place)
        }
        set {
            let place = recorded?.place(of: key)
            let had = changes[key].map { $0 != nil } ?? place.map { recorded!.hasEntry(at: $0) } ?? false
            if let place {
                overridden.insert(place)
                changes[key] = .some(newValue)
            } else if let newValue {
                changes[key] = .some(newValue)
            } else {
                changes.removeValue(forKey: key)
            }
            count += (newValue == nil ? 0 : 1) - (had ? 1 : 0)
        }
    }

    func contains(_ key: Key) -> Bool {
        if let change = changes[key] { return change != nil }
        guard let recorded, let place = recorded.place(of: key) else { return false }
        return recorded.hasEntry(at: place)
    }

    mutating func removeValue(forKey key: Key) { self[key] = nil }

    /// The recorded places that stand as recorded.
    private func standing(_ recorded: RecordedSegment) -> some Sequence<Int> {
        recorded.places.lazy.filter { recorded.hasEntry(at: $0) && !overridden.contains($0) }
    }

    /// Every entry, with its key.
    func forEach(_ body: (Key, Entry) throws -> Void) rethrows {
        for (key, change) in changes {
            if let change { try body(key, change) }
        }
        guard let recorded else { return }
        for place in standing(recorded) { try body(recorded.key(at: place), recorded.entry(at: place)!) }
    }

    var keys: [Key] {
        var keys = changes.compactMap { $0.value == nil ? nil : $0.key }
        if let recorded { keys += standing(recorded).map(recorded.key(at:)) }
        return keys
    }

    /// The key and hash of every entry of an input.
    func inputs() -> [(key: Key, hash: UInt64)] {
        var found = changes.compactMap { key, entry in entry.flatMap { $0.isInput ? (key, $0.hash) : nil } }
        if let recorded {
            for place in standing(recorded) {
                if let hash = recorded.inputHash(at: place) { found.append((recorded.key(at: place), hash)) }
            }
        }
        return found
    }

    /// `keys` and every key whose entry reads one of them, directly or through other keys. The recorded entries'
    /// readers are found through an index of places made for the call: no recorded key is made but those found.
    func readers(of keys: Set<Key>) -> Set<Key> {
        var found = keys
        guard !keys.isEmpty else { return found }
        let readersOf = recorded.map { recorded in recorded.readerIndex(skipping: overridden) }
        var foundPlaces = Set(keys.compactMap { recorded?.place(of: $0) })
        var next = Array(keys)
        while true {
            while let key = next.popLast() {
                guard let recorded, let readersOf, let place = recorded.place(of: key) else { continue }
                for reader in readersOf[place] where foundPlaces.insert(Int(reader)).inserted {
                    let readerKey = recorded.key(at: Int(reader))
                    if found.insert(readerKey).inserted { next.append(readerKey) }
                }
            }
            // Entries set since the recorded segment: scanned until none is added.
            var grew = false
            for (key, change) in changes where !found.contains(key) {
                guard let entry = change, entry.dependencies.contains(where: { found.contains($0.key) }) else { continue }
                found.insert(key)
                if let place = recorded?.place(of: key) { foundPlaces.insert(place) }
                next.append(key)
                grew = true
            }
            if !grew { return found }
        }
    }

    /// How many entries read each key (a key read twice by one entry counts twice).
    func readCounts() -> ReadCounts {
        var counts = ReadCounts(recorded: recorded)
        for case (_, let entry?) in changes {
            for dependency in entry.dependencies { counts.add(dependency.key) }
        }
        if let recorded {
            for place in standing(recorded) {
                for dependency in recorded.dependencyPlaces(at: place) { counts.recordedCounts[Int(dependency)] += 1 }
            }
        }
        return counts
    }

    /// Checks that every key an entry reads has an entry.
    func checkDependencies() throws(TraceReader.Problem) {
        for case (_, let entry?) in changes {
            for dependency in entry.dependencies where !contains(dependency.key) {
                throw .init("\(dependency.key) is read but not in the trace")
            }
        }
        guard let recorded else { return }
        let removed = overridden.filter { place in changes[recorded.key(at: place)].map { $0 == nil } ?? false }
        guard !removed.isEmpty else { return }   // the recorded segment was checked when it was read
        for place in standing(recorded) {
            if let lost = recorded.dependencyPlaces(at: place).first(where: { removed.contains(Int($0)) }) {
                throw .init("\(recorded.key(at: Int(lost))) is read but not in the trace")
            }
        }
    }
}

/// `Trace.readCounts`: for each key, how many entries read it.
struct ReadCounts {
    fileprivate let recorded: RecordedSegment?
    fileprivate var recordedCounts: [Int]
    private var others: [Key: Int] = [:]

    fileprivate init(recorded: RecordedSegment?) {
        self.recorded = recorded
        recordedCounts = [Int](repeating: 0, count: recorded?.places.count ?? 0)
    }

    fileprivate mutating func add(_ key: Key) {
        if let place = recorded?.place(of: key) { recordedCounts[place] += 1 } else { others[key, default: 0] += 1 }
    }

    subscript(key: Key) -> Int {
        if let place = recorded?.place(of: key) { return recordedCounts[place] + others[key, default: 0] }
        return others[key, default: 0]
    }

    /// One reader of `key` fewer.
    mutating func remove(_ key: Key) {
        if let place = recorded?.place(of: key), recordedCounts[place] > 0 { recordedCounts[place] -= 1 } else { others[key, default: 0] -= 1 }
    }
}

/// A trace file's first segment (the whole trace when it was written; see `TraceFile.swift` for its layout), read in
/// place: its bytes, and for each of its keys (a "place": the key's index in the segment) where the key's name and
/// its entry lie, with a table from key to place. Made by one scan, which checks everything that looking up an entry
/// later relies on. Never changed once made, so runs on every core share it.
final class RecordedSegment: Sendable {
    private let bytes: [UInt8]
    private let kinds: [String]
    private let kindOfPlace: [Int32]
    private let names: [Range<Int>]
    private let digests: [UInt64]
    /// Where each place's entry starts (its flags byte); -1 when it has none.
    private let entryOffsets: [Int]
    /// The places each entry reads, in order: those of place `p` are `dependencies[dependencyStarts[p]..<dependencyStarts[p + 1]]`.
    private let dependencies: [Int32]
    private let dependencyStarts: [Int32]
    /// Open addressing on the keys' digests; -1: empty.
    private let table: [Int32]
    let entryCount: Int
    /// The places of the keys the segment records as demanded.
    let demanded: [Int]

    var places: Range<Int> { 0..<kindOfPlace.count }

    /// `payload`: the first segment's, in `bytes` (the whole file).
    init(bytes: [UInt8], payload: Range<Int>) throws(TraceReader.Problem) {
        self.bytes = bytes
        var input = TraceReader(bytes: bytes[payload])
        let kinds = try (0..<input.count()).map { _ throws(TraceReader.Problem) in try input.text() }
        // The digest of a key's kind is taken once, and each name combined with a copy of it (as `Key.init` does).
        let kindHashers = kinds.map { kind in
            var hasher = ContentHasher()
            hasher.combine(kind)
            return hasher
        }
        let keyCount = try input.count()
        guard keyCount < Int32.max else { throw .init("too many keys") }
        var kindOfPlace: [Int32] = []
        var names: [Range<Int>] = []
        var digests: [UInt64] = []
        kindOfPlace.reserveCapacity(keyCount)
        names.reserveCapacity(keyCount)
        digests.reserveCapacity(keyCount)
        for _ in 0..<keyCount {
            let kind = try input.number()
            guard kind < kinds.count else { throw .init("kind index out of range") }
            let name = try input.take(input.count())
            var hasher = kindHashers[kind]
            hasher.combine(name)
            kindOfPlace.append(Int32(kind))
            names.append(name.indices)
            digests.append(hasher.value)
        }
        var entryOffsets = [Int](repeating: -1, count: keyCount)
        var dependencies: [Int32] = []
        var dependencyStarts = [Int32](repeating: 0, count: keyCount + 1)
        var dependencyRanges = [Range<Int>](repeating: 0..<0, count: keyCount)   // in `dependencies`, by place
        let entryCount = try input.count()
        for _ in 0..<entryCount {
            let place = try input.number()
            guard place < keyCount else { throw .init("key index out of range") }
            guard entryOffsets[place] < 0 else { throw .init("two entries for one key") }
            entryOffsets[place] = input.position
            guard let flags = input.bytes.popFirst() else { throw .init("truncated") }
            guard flags & ~(1 | 4 | 8) == 0 else { throw .init("unknown entry flags") }
            try input.skip(8)   // its hash
            let start = dependencies.count
            for _ in 0..<(try input.count()) {
                let reference = try input.number()
                guard reference >> 1 < keyCount else { throw .init("key index out of range") }
                dependencies.append(Int32(reference >> 1))
                try input.skip(8)   // the hash it read
            }
            dependencyRanges[place] = start..<dependencies.count
            if flags & 4 != 0 { try input.skip(input.count()) }
        }
        // Laid out by place, so that an entry's dependencies are found from its place alone.
        var byPlace: [Int32] = []
        byPlace.reserveCapacity(dependencies.count)
        for place in 0..<keyCount {
            byPlace += dependencies[dependencyRanges[place]]
            dependencyStarts[place + 1] = Int32(byPlace.count)
        }
        for dependency in byPlace where entryOffsets[Int(dependency)] < 0 {
            throw .init("a key is read but not in the trace")
        }
        guard try input.count() == 0 else { throw .init("the first segment removes keys") }
        let demanded = try (0..<input.count()).map { _ throws(TraceReader.Problem) in
            let place = try input.number()
            guard place < keyCount else { throw TraceReader.Problem("key index out of range") }
            return place
        }
        guard try input.count() == 0 else { throw .init("the first segment drops demanded keys") }
        guard input.isAtEnd else { throw .init("bytes after the last entry") }

        var capacity = 16
        while capacity < 2 * keyCount { capacity *= 2 }
        var table = [Int32](repeating: -1, count: capacity)
        for place in 0..<keyCount {
            var slot = Int(truncatingIfNeeded: digests[place]) & (capacity - 1)
            while table[slot] >= 0 {
                let other = Int(table[slot])
                if digests[other] == digests[place], kindOfPlace[other] == kindOfPlace[place],
                   bytes[names[other]] == bytes[names[place]] {
                    throw .init("a key twice")
                }
                slot = (slot + 1) & (capacity - 1)
            }
            table[slot] = Int32(place)
        }
        self.kinds = kinds
        self.kindOfPlace = kindOfPlace
        self.names = names
        self.digests = digests
        self.entryOffsets = entryOffsets
        self.dependencies = byPlace
        self.dependencyStarts = dependencyStarts
        self.table = table
        self.entryCount = entryCount
        self.demanded = demanded
    }

    func place(of key: Key) -> Int? {
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: key.digest) & mask
        while true {
            let place = Int(table[slot])
            if place < 0 { return nil }
            if holds(key, at: place) { return place }
            slot = (slot + 1) & mask
        }
    }

    private func holds(_ key: Key, at place: Int) -> Bool {
        guard digests[place] == key.digest, kinds[Int(kindOfPlace[place])] == key.kind else { return false }
        let range = names[place]
        var name = key.name
        return name.withUTF8 { name in
            name.count == range.count && (range.isEmpty || bytes.withUnsafeBufferPointer {
                memcmp(name.baseAddress!, $0.baseAddress! + range.lowerBound, range.count) == 0
            })
        }
    }

    func key(at place: Int) -> Key {
        Key(kinds[Int(kindOfPlace[place])], String(decoding: bytes[names[place]], as: UTF8.self), digest: digests[place])
    }

    func hasEntry(at place: Int) -> Bool { entryOffsets[place] >= 0 }

    func dependencyPlaces(at place: Int) -> ArraySlice<Int32> {
        dependencies[Int(dependencyStarts[place])..<Int(dependencyStarts[place + 1])]
    }

    /// The recorded hash of an input's entry; nil for a task's.
    func inputHash(at place: Int) -> UInt64? {
        let offset = entryOffsets[place]
        guard offset >= 0, bytes[offset] & 1 != 0 else { return nil }
        return word(at: offset + 1)
    }

    private func word(at offset: Int) -> UInt64 {
        bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    }

    /// The entry at `place`, its dependencies left in the bytes until they are read.
    func entry(at place: Int) -> Entry? {
        let offset = entryOffsets[place]
        guard offset >= 0 else { return nil }
        let flags = bytes[offset]
        var entry = Entry(hash: word(at: offset + 1), isInput: flags & 1 != 0,
                          recordedDependencies: (self, offset + 9), failed: flags & 8 != 0)
        if flags & 4 != 0 {
            var input = TraceReader(bytes: bytes[(offset + 9)...])
            do {
                for _ in 0..<(try input.count()) {
                    _ = try input.number()
                    _ = try input.word()
                }
                entry.kept = try input.take(input.count())
            } catch {
                preconditionFailure("the entry was checked when the segment was read")
            }
        }
        return entry
    }

    /// The dependencies written at `offset` (an entry's, after its hash).
    func dependencies(at offset: Int) -> [Dependency] {
        var input = TraceReader(bytes: bytes[offset...])
        do {
            return try (0..<input.count()).map { _ throws(TraceReader.Problem) in
                let reference = try input.number()
                return Dependency(key: key(at: reference >> 1), hash: try input.word(), batched: reference & 1 != 0)
            }
        } catch {
            preconditionFailure("the entry was checked when the segment was read")
        }
    }

    /// For each place, the places of the entries that read it (but those of `skipping`).
    func readerIndex(skipping: Set<Int>) -> ReaderIndex {
        var starts = [Int32](repeating: 0, count: places.count + 1)
        let reading = places.filter { hasEntry(at: $0) && !skipping.contains($0) }
        for place in reading {
            for dependency in dependencyPlaces(at: place) { starts[Int(dependency) + 1] += 1 }
        }
        for place in places { starts[place + 1] += starts[place] }
        var filled = starts
        var readers = [Int32](repeating: 0, count: Int(starts[places.count]))
        for place in reading {
            for dependency in dependencyPlaces(at: place) {
                readers[Int(filled[Int(dependency)])] = Int32(place)
                filled[Int(dependency)] += 1
            }
        }
        return ReaderIndex(readers: readers, starts: starts)
    }

    struct ReaderIndex {
        let readers: [Int32]
        let starts: [Int32]

        subscript(place: Int) -> ArraySlice<Int32> { readers[Int(starts[place])..<Int(starts[place + 1])] }
    }
}
