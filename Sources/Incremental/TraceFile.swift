#if canImport(Glibc)
import Glibc
#endif

/// The trace in one file, so that a new process can start where the last run ended.
///
/// Layout (integers little-endian; "n" is a LEB128 unsigned number):
///
///     header   "NGTRACE\0", format version (4 bytes), world (8), payload size (8), checksum of the payload (8)
///     payload  n kinds, each n bytes of UTF-8
///              n keys, each: n kind index, n bytes of UTF-8 name
///              per key, in the same order: flags (1: input, 2: demanded, 4: kept bytes follow, 8: failed), hash (8),
///              n dependencies (n key index × 2 + 1 if read in a batch with the one before, hash (8)),
///              n dependents (n key index), [n kept bytes]
///
/// A file that is missing, short, of another version or world, or whose checksum or contents do not add up is
/// ignored as a whole: the run after it is a full one. It is written to a temporary file renamed over the old one,
/// so a reader sees the old trace or the new one, never a mix.
extension Engine {
    static let magic = Array("NGTRACE\0".utf8)
    static let formatVersion: UInt32 = 1
    static let headerSize = 36

    /// What `load` made of the trace file.
    public enum TraceStatus: Equatable, Sendable {
        case loaded
        case missing
        /// The reason, for a person: the run is a full one.
        case ignored(String)
    }

    /// An engine with the trace of `path`, or with none (see the status) when the file cannot be trusted.
    public static func load(from path: String, rules: [String: Rule], world: UInt64) -> (Engine, TraceStatus) {
        var engine = Engine(rules: rules, world: world)
        guard let bytes = readFile(path) else { return (engine, .missing) }
        do {
            try engine.decode(bytes)
            return (engine, .loaded)
        } catch {
            return (Engine(rules: rules, world: world), .ignored(error.description))
        }
    }

    /// Writes the trace to `path` (atomically: a temporary file in the same folder, then a rename).
    public func save(to path: String) throws(TraceFileError) {
        let bytes = encode()
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TraceFileError(path: temporary, reason: Self.lastError()) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = Self.lastError()
                close(fd)
                unlink(temporary)
                throw TraceFileError(path: temporary, reason: reason)
            }
            written += count
        }
        close(fd)
        // Not synced, and the old file removed before the rename: renaming over a file makes ext4 write the new one
        // out at once, and a trace lost or torn by a crash fails its checksum, which only means a full run.
        unlink(path)
        guard rename(temporary, path) == 0 else {
            let reason = Self.lastError()
            unlink(temporary)
            throw TraceFileError(path: path, reason: reason)
        }
    }

    func encode() -> [UInt8] {
        var kinds: [String: Int] = [:]
        var kindList: [String] = []
        var index: [Key: Int] = [:]
        index.reserveCapacity(trace.count)
        var keptSize = 0
        for (position, (key, entry)) in trace.enumerated() {
            index[key] = position
            keptSize += entry.kept?.count ?? 0
            if kinds[key.kind] == nil {
                kinds[key.kind] = kindList.count
                kindList.append(key.kind)
            }
        }
        var out = TraceWriter()
        out.bytes.reserveCapacity(Self.headerSize + keptSize + 64 * trace.count)
        out.bytes += [UInt8](repeating: 0, count: Self.headerSize)   // filled in last
        out.number(kindList.count)
        for kind in kindList { out.text(kind) }
        out.number(trace.count)
        for key in trace.keys {   // a dictionary not changed in between lists its keys in the same order
            out.number(kinds[key.kind]!)
            out.text(key.name)
        }
        for (key, entry) in trace {
            out.bytes.append((entry.isInput ? 1 : 0) | (roots.contains(key) ? 2 : 0) | (entry.kept != nil ? 4 : 0)
                             | (entry.failed ? 8 : 0))
            out.word(entry.hash)
            out.number(entry.dependencies.count)
            for dependency in entry.dependencies {
                out.number(index[dependency.key]! << 1 | (dependency.batched ? 1 : 0))
                out.word(dependency.hash)
            }
            out.number(entry.dependents.count)
            for dependent in entry.dependents { out.number(index[dependent]!) }
            if let kept = entry.kept {
                out.number(kept.count)
                out.bytes += kept
            }
        }
        var header = TraceWriter()
        header.bytes = Self.magic
        withUnsafeBytes(of: Self.formatVersion.littleEndian) { header.bytes += $0 }
        header.word(world)
        header.word(UInt64(out.bytes.count - Self.headerSize))
        header.word(ContentHasher.hash(out.bytes[Self.headerSize...]))
        out.bytes.replaceSubrange(0..<Self.headerSize, with: header.bytes)
        return out.bytes
    }

    mutating func decode(_ bytes: [UInt8]) throws(TraceReader.Problem) {
        var header = TraceReader(bytes: bytes[...])
        guard Array(try header.take(Self.magic.count)) == Self.magic else { throw .init("not a trace file") }
        let version = try header.take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version == Self.formatVersion else { throw .init("trace format \(version), not \(Self.formatVersion)") }
        guard try header.word() == world else { throw .init("written for another world") }
        let size = try header.word()
        let checksum = try header.word()
        guard UInt64(bytes.count - Self.headerSize) == size else { throw .init("\(bytes.count) bytes, expected \(size + 36)") }
        let payload = bytes[Self.headerSize...]
        guard ContentHasher.hash(payload) == checksum else { throw .init("checksum mismatch") }

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
        trace.reserveCapacity(keys.count)
        for key in keys {
            let flags = try input.take(1).first!
            var entry = Entry(hash: try input.word(), isInput: flags & 1 != 0, dependencies: [], dependents: [])
            let dependencies = try input.count()
            entry.dependencies.reserveCapacity(dependencies)
            for _ in 0..<dependencies {
                let reference = try input.number()
                entry.dependencies.append(Dependency(key: try keyAt(reference >> 1), hash: try input.word(),
                                                     batched: reference & 1 != 0))
            }
            let dependents = try input.count()
            entry.dependents.reserveCapacity(dependents)
            for _ in 0..<dependents { entry.dependents.insert(try keyAt(input.number())) }
            if flags & 4 != 0 { entry.kept = Array(try input.take(input.count())) }
            entry.failed = flags & 8 != 0
            if flags & 2 != 0 { roots.insert(key) }
            trace[key] = entry
        }
        guard input.isAtEnd else { throw .init("bytes after the last entry") }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var info = stat()
        if fstat(fd, &info) == 0 { bytes.reserveCapacity(Int(info.st_size)) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes += buffer[..<count]
        }
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}

public struct TraceFileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "\(path): cannot write the build trace: \(reason)" }
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
    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    var bytes: ArraySlice<UInt8>

    var isAtEnd: Bool { bytes.isEmpty }

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

    mutating func word() throws(Problem) -> UInt64 {
        let word = try take(8)
        return word.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    mutating func text() throws(Problem) -> String {
        String(decoding: try take(count()), as: UTF8.self)
    }
}
