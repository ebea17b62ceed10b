#if canImport(Glibc)
import Glibc
#endif

/// The trace in one file, so that a new process can start where the last run ended.
///
/// Layout (integers little-endian; "n" is a LEB128 unsigned number):
///
///     header   "NGTRACE\0", format version (4 bytes), world (8)
///     segments each: payload size (8), checksum of the payload (8, `Engine.checksum`), payload
///     payload  n kinds, each n bytes of UTF-8
///              n keys, each: n kind index, n bytes of UTF-8 name
///              n entries, each: n key index, flags (1: input, 4: kept bytes follow, 8: failed), hash (8),
///                n dependencies (n key index × 2 + 1 if read in a batch with the one before, hash (8)),
///                [n kept bytes]
///              n keys removed from the trace, n keys demanded now, n keys no longer demanded (each n key index)
///
/// The first segment holds the whole trace; each later one what a run changed (its entries replace those of the
/// same keys). A save appends a segment when the file is the one the engine last read or wrote, as long as the later
/// segments together stay within an eighth of the first; then, or for any other file, it writes the whole trace to a
/// temporary file renamed over the old one. So a save costs what changed, and a load little more than its scan of the
/// first segment: a later segment is applied entry by entry, which costs a load about four times what the same bytes
/// cost in the first segment (13 MB appended after a run that re-parsed 9,800 of 10,000 stories made every later
/// one-story rebuild 0.11 s slower, 0.40 s instead of 0.29 s).
/// There is no reverse index in the file (see `Trace.readers`): so an entry read by ten thousand others (the config)
/// is not written again each time one of them is added or removed. A load reads the first segment in place
/// (`RecordedSegment`): an entry is made only when it is looked up, its kept bytes a slice of the file's bytes.
///
/// A whole trace is written as it is encoded, a few blocks at a time (the header's size and checksum last), and a kept
/// result is encoded only then: so a save never holds a second copy of the trace, nor the bytes of every result made
/// since the load.
///
/// A file that is missing, short, of another version or world, or in which any segment's checksum or contents do
/// not add up is ignored as a whole: the run after it is a full one (after a crash in the middle of an append, say).
extension Engine {
    static let magic = Array("NGTRACE\0".utf8)
    static let formatVersion: UInt32 = 3
    /// The file's header: magic, format version, world.
    static let headerSize = magic.count + 4 + 8
    static let segmentHeaderSize = 16
    /// The later segments of a trace file stay within this share of its first segment (1/8): see above.
    static let laterSegmentsShare = 8
    /// The checksum hashes a payload in blocks of this size, so that a payload written as it is made is hashed on
    /// the way.
    static let checksumBlock = 1 << 16

    /// The checksum of a segment's payload: its blocks, then its size.
    static func checksum(_ payload: ArraySlice<UInt8>) -> UInt64 {
        var checksum = SegmentChecksum()
        checksum.add(payload)
        return checksum.value(size: payload.count)
    }

    /// What `load` made of the trace file.
    public enum TraceStatus: Equatable, Sendable {
        case loaded
        case missing
        /// Sound, but written in another world than this engine's (by another program): the run is a full one.
        case otherWorld
        /// Damaged or not a trace, with the reason for a person: the run is a full one.
        case ignored(String)
    }

    /// An engine with the trace of `path`, or with none (see the status) when the file cannot be trusted.
    public static func load(from path: String, rules: [String: Rule], world: UInt64) -> (Engine, TraceStatus) {
        var engine = Engine(rules: rules, world: world)
        guard let (bytes, identity) = readFile(path) else { return (engine, .missing) }
        do {
            let firstSegment = try engine.decode(bytes)
            engine.file = TraceFileState(path: path, identity: identity, size: bytes.count, firstSegment: firstSegment,
                                         roots: engine.roots)
            return (engine, .loaded)
        } catch {
            return (Engine(rules: rules, world: world), error == .otherWorld ? .otherWorld : .ignored(error.description))
        }
    }

    /// Appends what changed since this engine read or wrote `path` to it, or writes the whole trace (atomically: a
    /// temporary file in the same folder, then a rename).
    public mutating func save(to path: String) throws(TraceFileError) {
        for key in unchecked {   // what a partial run left to look at runs again after a load
            trace[key]?.failed = true
            unsaved.insert(key)
        }
        unchecked = []   // (the unchecked inputs still have their old hashes in it: a load finds them changed)
        if let file, file.path == path, file.isCurrent {
            if unsaved.isEmpty, roots == file.roots { return }
            // When more than that share of the entries changed, the segment would be too large: not made in memory.
            if unsaved.count <= trace.count / Self.laterSegmentsShare {
                var segment = SegmentOutput()
                encodeSegment(changes: unsaved, rootsBefore: file.roots, into: &segment)
                let bytes = segment.finishInMemory()
                if file.laterSegments + bytes.count <= file.firstSegment / Self.laterSegmentsShare {
                    try append(bytes, to: file)
                    return
                }
            }
        }
        var header = Self.magic
        withUnsafeBytes(of: Self.formatVersion.littleEndian) { header += $0 }
        withUnsafeBytes(of: world.littleEndian) { header += $0 }
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TraceFileError(path: temporary, reason: Self.lastError()) }
        var info = stat()
        var segment = SegmentOutput(file: fd, at: header.count)
        var reason = Self.write(header[...], to: fd)
        if reason == nil {
            encodeSegment(changes: nil, rootsBefore: [], into: &segment)
            reason = segment.finishInFile() ?? (fstat(fd, &info) == 0 ? nil : Self.lastError())
        }
        if let reason {
            close(fd)
            unlink(temporary)
            throw TraceFileError(path: temporary, reason: reason)
        }
        close(fd)
        // Not synced, and the old file removed before the rename: renaming over a file makes ext4 write the new one
        // out at once, and a trace lost or torn by a crash fails its checksum, which only means a full run.
        unlink(path)
        guard rename(temporary, path) == 0 else {
            let reason = Self.lastError()
            unlink(temporary)
            file = nil
            throw TraceFileError(path: path, reason: reason)
        }
        file = TraceFileState(path: path, identity: FileIdentity(info), size: Int(info.st_size),
                              firstSegment: Int(info.st_size) - header.count, roots: roots)
        unsaved = []
    }

    private mutating func append(_ segment: [UInt8], to state: TraceFileState) throws(TraceFileError) {
        let fd = open(state.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw TraceFileError(path: state.path, reason: Self.lastError()) }
        defer { close(fd) }
        if let reason = Self.write(segment[...], to: fd) {
            file = nil   // maybe torn: the next save writes the whole trace
            throw TraceFileError(path: state.path, reason: reason)
        }
        file = TraceFileState(path: state.path, identity: state.identity, size: state.size + segment.count,
                              firstSegment: state.firstSegment, roots: roots)
        unsaved = []
    }

    /// Writes all of `bytes` at the file's position, or at `offset`; nil, or what went wrong.
    static func write(_ bytes: ArraySlice<UInt8>, to fd: Int32, at offset: Int? = nil) -> String? {
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let start = buffer.baseAddress! + written
                let count = offset.map { pwrite(fd, start, buffer.count - written, off_t($0 + written)) }
                    ?? Glibc.write(fd, start, buffer.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return lastError() }
                written += count
            }
            return nil
        }
    }

    /// The bytes a save writes for an entry's kept result: those read from the trace file, or its value encoded now.
    func keptBytes(_ key: Key, _ entry: Entry) -> ArraySlice<UInt8>? {
        entry.kept ?? entry.value.flatMap { codecs[key.kind]?.encode($0)?[...] }
    }

    /// One segment's payload, into `output`: the entries of the keys in `changes` (every key when nil), present or
    /// removed, and the demanded keys that differ from `rootsBefore`. A result made by a run is encoded here, with
    /// its kind's codec.
    func encodeSegment(changes: Set<Key>?, rootsBefore: Set<Key>, into output: inout SegmentOutput) {
        // The keys written, in the order of their digests, are the start of the segment's key list and their own
        // index (a key's place is found by binary search): a whole trace of 100,000 stories is written without a
        // table of its half a million keys, which took about 70 MB at the end of a cold build.
        var written = changes.map { Array($0.filter(trace.contains)) } ?? trace.keys
        written.sort { $0.digest < $1.digest }
        let digests = written.map(\.digest)
        func writtenPlace(_ key: Key) -> Int? {
            var (low, high) = (0, digests.count)
            while low < high {
                let middle = (low + high) / 2
                if digests[middle] < key.digest { low = middle + 1 } else { high = middle }
            }
            while low < digests.count, digests[low] == key.digest {
                if written[low] == key { return low }
                low += 1
            }
            return nil
        }
        let removed = changes.map { Array($0.filter { !trace.contains($0) }) } ?? []
        let demanded = Array(roots.subtracting(rootsBefore))
        let undemanded = Array(rootsBefore.subtracting(roots))
        // The other keys the segment names: those the written entries read (in a whole trace, every one of them is
        // written), and the removed, demanded and undemanded ones; placed after the written keys.
        var others: [Key: Int] = [:]
        var otherList: [Key] = []
        func note(_ key: Key) {
            guard writtenPlace(key) == nil, others[key] == nil else { return }
            others[key] = written.count + otherList.count
            otherList.append(key)
        }
        func place(_ key: Key) -> Int { writtenPlace(key) ?? others[key]! }
        for key in written {
            for dependency in trace[key]!.dependencies { note(dependency.key) }
        }
        for key in removed + demanded + undemanded { note(key) }
        var kinds: [String: Int] = [:]
        var kindList: [String] = []
        for key in [written, otherList].joined() where kinds[key.kind] == nil {
            kinds[key.kind] = kindList.count
            kindList.append(key.kind)
        }

        output.writer.number(kindList.count)
        for kind in kindList { output.writer.text(kind) }
        output.writer.number(written.count + otherList.count)
        for key in [written, otherList].joined() {
            output.writer.number(kinds[key.kind]!)
            output.writer.text(key.name)
            output.flushIfLarge()
        }
        output.writer.number(written.count)
        for (offset, key) in written.enumerated() {
            let entry = trace[key]!
            let kept = keptBytes(key, entry)
            output.writer.number(offset)
            output.writer.bytes.append((entry.isInput ? 1 : 0) | (kept != nil ? 4 : 0) | (entry.failed ? 8 : 0))
            output.writer.word(entry.hash)
            output.writer.number(entry.dependencies.count)
            for dependency in entry.dependencies {
                output.writer.number(place(dependency.key) << 1 | (dependency.batched ? 1 : 0))
                output.writer.word(dependency.hash)
            }
            if let kept {
                output.writer.number(kept.count)
                output.writer.bytes += kept
            }
            output.flushIfLarge()
        }
        for keys in [removed, demanded, undemanded] {
            output.writer.number(keys.count)
            for key in keys { output.writer.number(place(key)) }
        }
    }

    /// Reads every segment of a trace file into this (empty) engine, and checks that every key read is in the trace;
    /// the size of the first segment.
    mutating func decode(_ bytes: [UInt8]) throws(TraceReader.Problem) -> Int {
        var input = TraceReader(bytes: bytes[...])
        guard Array(try input.take(Self.magic.count)) == Self.magic else { throw .init("not a trace file") }
        let version = try input.take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version == Self.formatVersion else { throw .init("trace format \(version), not \(Self.formatVersion)") }
        guard try input.word() == world else { throw .otherWorld }
        guard !input.isAtEnd else { throw .init("no segment after the header") }
        var firstSegment = 0
        while !input.isAtEnd {
            guard input.bytes.count >= Self.segmentHeaderSize else { throw .init("a segment's header is cut short") }
            let size = try input.word()
            let checksum = try input.word()
            guard size <= UInt64(input.bytes.count) else {
                throw .init("a segment of \(size) bytes, and only \(input.bytes.count) left")
            }
            let payload = try input.take(Int(size))
            guard Self.checksum(payload) == checksum else { throw .init("checksum mismatch") }
            if firstSegment == 0 {
                // The whole trace, read in place; the later segments' entries are laid over it.
                let recorded = try RecordedSegment(bytes: bytes, payload: payload.indices)
                trace = Trace(recorded: recorded)
                roots = Set(recorded.demanded.map(recorded.key(at:)))
                firstSegment = Self.segmentHeaderSize + Int(size)
            } else {
                try apply(payload)
            }
        }
        try trace.checkDependencies()
        return firstSegment
    }

    private mutating func apply(_ payload: ArraySlice<UInt8>) throws(TraceReader.Problem) {
        var input = TraceReader(bytes: payload)
        let kinds = try (0..<input.count()).map { _ throws(TraceReader.Problem) in try input.text() }
        let keys = try (0..<input.count()).map { _ throws(TraceReader.Problem) in
            let kind = try input.number()
            guard kind < kinds.count else { throw TraceReader.Problem("kind index out of range") }
            return Key(kinds[kind], try input.text())
        }
        func keyAt(_ position: Int) throws(TraceReader.Problem) -> Key {
            guard position < keys.count else { throw .init("key index out of range") }
            return keys[position]
        }
        for _ in 0..<(try input.count()) {
            let key = try keyAt(input.number())
            let flags = try input.take(1).first!
            var entry = Entry(hash: try input.word(), isInput: flags & 1 != 0, dependencies: [])
            let dependencies = try input.count()
            entry.dependencies.reserveCapacity(dependencies)
            for _ in 0..<dependencies {
                let reference = try input.number()
                entry.dependencies.append(Dependency(key: try keyAt(reference >> 1), hash: try input.word(),
                                                     batched: reference & 1 != 0))
            }
            if flags & 4 != 0 { entry.kept = try input.take(input.count()) }
            entry.failed = flags & 8 != 0
            trace[key] = entry
        }
        for _ in 0..<(try input.count()) { trace.removeValue(forKey: try keyAt(input.number())) }
        for _ in 0..<(try input.count()) { roots.insert(try keyAt(input.number())) }
        for _ in 0..<(try input.count()) { roots.remove(try keyAt(input.number())) }
        guard input.isAtEnd else { throw .init("bytes after the last entry") }
    }

    /// The file's bytes, and its identity as the open file shows it (so that both describe the same file).
    static func readFile(_ path: String) -> ([UInt8], FileIdentity)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        // Read in place, at the size the file has: the lock keeps other processes from writing it meanwhile.
        var complete = true
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(info.st_size)) { buffer, initialized in
            while initialized < buffer.count {
                let count = read(fd, buffer.baseAddress! + initialized, buffer.count - initialized)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                initialized += count
            }
            complete = initialized == buffer.count
        }
        return complete ? (bytes, FileIdentity(info)) : nil
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}

/// The trace file as an engine last read or wrote it.
struct TraceFileState: Sendable {
    var path: String
    var identity: FileIdentity
    var size: Int
    /// The size of its first segment: the whole trace when it was written.
    var firstSegment: Int
    /// The keys it records as demanded.
    var roots: Set<Key>

    /// The bytes of the segments after the first.
    var laterSegments: Int { size - Engine.headerSize - firstSegment }

    /// The file at `path` is still this one, as this engine left it: no other process replaced or extended it.
    var isCurrent: Bool {
        var info = stat()
        return stat(path, &info) == 0 && FileIdentity(info) == identity && Int(info.st_size) == size
    }
}

struct FileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

public struct TraceFileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "\(path): cannot write the build trace: \(reason)" }
}

/// A checksum made a block at a time (`Engine.checksumBlock`): whole blocks as they are given, and the rest with the
/// size at the end.
struct SegmentChecksum {
    private var hasher = ContentHasher()

    /// `bytes` from a block's start; all whole blocks but, at the end, the last.
    mutating func add(_ bytes: ArraySlice<UInt8>) {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(start + Engine.checksumBlock, bytes.endIndex)
            hasher.combine(bytes[start..<end])
            start = end
        }
    }

    func value(size: Int) -> UInt64 {
        var final = hasher
        final.combine(size)
        return final.value
    }
}

/// A segment being encoded: in memory, with its header in front once it is finished (an append), or written to a
/// file as it is made (a whole trace), whole blocks at a time, its header written in front of it last.
struct SegmentOutput {
    fileprivate(set) var writer = TraceWriter()
    private let file: (fd: Int32, headerAt: Int)?
    private var checksum = SegmentChecksum()
    private var flushed = 0
    private var failure: String?

    /// In memory.
    init() { file = nil }

    /// Into the open file `fd`, whose segment header goes at `offset` (the payload after it).
    init(file fd: Int32, at offset: Int) { file = (fd, offset) }

    /// Into a file: writes the whole blocks made so far, once there are a few (after a failed write, drops them: the
    /// save fails anyway).
    mutating func flushIfLarge() {
        guard let file, writer.bytes.count >= 16 * Engine.checksumBlock else { return }
        let whole = writer.bytes.count / Engine.checksumBlock * Engine.checksumBlock
        emit(writer.bytes[..<whole], file)
        writer.bytes.removeSubrange(..<whole)
    }

    private mutating func emit(_ bytes: ArraySlice<UInt8>, _ file: (fd: Int32, headerAt: Int)) {
        checksum.add(bytes)
        failure = failure ?? Engine.write(bytes, to: file.fd, at: file.headerAt + Engine.segmentHeaderSize + flushed)
        flushed += bytes.count
    }

    private func header(checksum: UInt64, size: Int) -> [UInt8] {
        var header = TraceWriter()
        header.word(UInt64(size))
        header.word(checksum)
        return header.bytes
    }

    /// The segment, its header first.
    func finishInMemory() -> [UInt8] {
        precondition(file == nil, "a segment made in memory")
        let payload = writer.bytes[...]
        return header(checksum: Engine.checksum(payload), size: payload.count) + payload
    }

    /// Writes the rest and then the header; nil, or what went wrong.
    mutating func finishInFile() -> String? {
        guard let file else { preconditionFailure("a segment written to a file") }
        emit(writer.bytes[...], file)
        writer.bytes = []
        return failure ?? Engine.write(header(checksum: checksum.value(size: flushed), size: flushed)[...], to: file.fd,
                                       at: file.headerAt)
    }
}

struct TraceWriter {
    var bytes: [UInt8] = []

    mutating func number(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func word(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    mutating func text(_ value: String) {
        number(value.utf8.count)
        bytes += value.utf8
    }
}

struct TraceReader {
    struct Problem: Error, CustomStringConvertible, Equatable {
        let description: String
        init(_ description: String) { self.description = description }
        static let otherWorld = Problem("written for another world")
    }

    var bytes: ArraySlice<UInt8>

    var isAtEnd: Bool { bytes.isEmpty }

    /// Where the next byte lies in the buffer the bytes are a slice of.
    var position: Int { bytes.startIndex }

    mutating func take(_ count: Int) throws(Problem) -> ArraySlice<UInt8> {
        guard count <= bytes.count else { throw Problem("truncated") }
        defer { bytes = bytes.dropFirst(count) }
        return bytes.prefix(count)
    }

    mutating func number() throws(Problem) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let byte = bytes.popFirst() else { throw Problem("truncated") }
            guard shift < 63 else { throw Problem("number too large") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return Int(truncatingIfNeeded: value) }
            shift += 7
        }
    }

    /// A count of things that follow, each at least one byte: larger than what is left means a damaged file.
    mutating func count() throws(Problem) -> Int {
        let count = try number()
        guard count >= 0, count <= bytes.count else { throw Problem("count past the end") }
        return count
    }

    /// Moves past `count` bytes (in place: a load skips a quarter of a million hashes and kept results).
    mutating func skip(_ count: Int) throws(Problem) {
        guard count <= bytes.count else { throw Problem("truncated") }
        bytes.removeFirst(count)
    }

    mutating func word() throws(Problem) -> UInt64 {
        guard bytes.count >= 8 else { throw Problem("truncated") }
        defer { bytes.removeFirst(8) }
        return bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    mutating func text() throws(Problem) -> String {
        String(decoding: try take(count()), as: UTF8.self)
    }
}
