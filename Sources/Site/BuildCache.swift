import News
import Incremental
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The build cache: what the next build needs to know exactly what changed.
///
/// Besides the engine's trace (`.newsgen/trace`: the parsed stories and what every output task read, see
/// `StoryRules` and `PageTasks`) and the feed texts of `FeedEntries` (`.newsgen/feed-entries`), rebuilt from scratch
/// whenever it is missing, unreadable, corrupted or written by another newsgen binary (any rebuild of newsgen
/// invalidates it):
/// - `<site>/.newsgen/build-<hash of the output folder's absolute path>`: every output file with the hash of the
///   task that made it, and the file's size and time after the build. A current task whose files still have that
///   hash, size and time in this folder is neither run nor are its files read.
///   The file is deleted before a build starts renaming files into place and written again after, so an
///   interrupted build leaves no cache (the next build is a full one). It is kept out of the output folder so
///   that it is never deployed and the output stays byte-identical between builds.
enum BuildCache {
    static let storyCacheFolder = ".newsgen"
    static let outputCachePrefix = "build-"
    static let formatVersion: UInt64 = 5

    /// The running binary (size, time, inode): caches written by another build of newsgen are not trusted.
    static let executableIdentity: UInt64 = {
        var digest = ContentHasher()
        digest.combine(formatVersion)
        var info = stat()
        if stat("/proc/self/exe", &info) == 0 {
            digest.combine(UInt64(truncatingIfNeeded: info.st_size))
            digest.combine(UInt64(truncatingIfNeeded: info.st_mtim.tv_sec))
            digest.combine(UInt64(truncatingIfNeeded: info.st_mtim.tv_nsec))
            digest.combine(UInt64(truncatingIfNeeded: info.st_ino))
        } else {
            digest.combine(UInt64.random(in: 0...UInt64.max))   // unknown binary: never matches a cache
        }
        return digest.value
    }()

    /// Writes `bytes` and their checksum to `path` (temporary file + rename); failures are ignored (a cache is
    /// optional). The old file is removed before the rename: ext4 writes a file renamed over another one out to
    /// disk at once, which makes a large cache slow to save, and a cache needs no such care, since a missing or
    /// torn one only means a full build.
    static func save(_ bytes: [UInt8], to path: String) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        if !FileSystem.isDirectory(folder) { try? FileSystem.createDirectories(folder) }
        let temporary = path + ".tmp-\(getpid())"
        var checksum = ByteWriter()
        checksum.u64(ContentHasher.hash(bytes))
        do {
            // The checksum written after the bytes, not appended to them: that would copy a cache still shared.
            try FileSystem.write(bytes, checksum.bytes, to: temporary)
            FileSystem.remove(path)
            try FileSystem.rename(temporary, path)
        } catch {
            FileSystem.remove(temporary)
        }
    }

    /// What `save` wrote, when its checksum (the last 8 bytes) still matches: a cache damaged in any way is
    /// no cache, and the build that finds it is a full one.
    static func read(_ path: String) -> [UInt8]? {
        guard var content = try? FileSystem.read(path), content.count >= 8 else { return nil }
        var reader = ByteReader(Array(content[(content.count - 8)...]))
        content.removeLast(8)
        guard reader.u64() == ContentHasher.hash(content) else { return nil }
        return content
    }

    static func nowNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
    }
}

/// Little-endian serialisation for the cache files.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    /// Zigzag LEB128: counts, lengths and sizes are mostly small, and take one or two bytes instead of eight (the
    /// trace of 100,000 stories is a fifth smaller, and reads that much faster).
    mutating func int(_ value: Int) {
        LEB128.append(UInt64(bitPattern: (Int64(value) << 1) ^ (Int64(value) >> 63)), to: &bytes)
    }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    mutating func double(_ value: Double) { u64(value.bitPattern) }
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8($0) }
    }
    /// A string's UTF-8 (what `string` writes).
    mutating func utf8(_ text: some Collection<UInt8>) {
        int(text.count)
        bytes.append(contentsOf: text)
    }
    mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }
    mutating func strings(_ values: [String]) {
        int(values.count)
        for value in values { string(value) }
    }
    mutating func localized(_ text: LocalizedText) { utf8(text.encoded) }
    mutating func timestamp(_ value: Timestamp) {
        double(value.secondsSinceEpoch)
        int(value.offsetSeconds)
    }
}

/// Reads what `ByteWriter` wrote; every read returns nil past the end or on an impossible value.
///
/// It reads a slice in place (a story kept in the trace file's bytes, say): `offset` and `end` are indices of `bytes`.
struct ByteReader {
    let bytes: ArraySlice<UInt8>
    var offset: Int
    /// Where reading stops (the end of `bytes`, or of the part being read).
    let end: Int

    init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
        end = bytes.endIndex
    }

    /// Reads `range` of `bytes` only.
    init(_ bytes: ArraySlice<UInt8>, range: Range<Int>) {
        self.bytes = bytes
        offset = max(range.lowerBound, bytes.startIndex)
        end = min(range.upperBound, bytes.endIndex)
    }

    init(_ bytes: [UInt8], range: Range<Int>) {
        self.init(bytes[...], range: range)
    }

    var atEnd: Bool { offset == end }

    mutating func u64() -> UInt64? {
        guard offset >= bytes.startIndex, offset + 8 <= end else { return nil }
        let start = offset - bytes.startIndex
        let value = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt64.self)) }
        offset += 8
        return value
    }
    mutating func int() -> Int? {
        guard let raw = LEB128.read(bytes, at: &offset, end: end) else { return nil }
        return Int(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
    }
    /// A count of items that each take at least one byte: never more than what is left.
    mutating func count() -> Int? {
        guard let value = int(), value >= 0, value <= end - offset else { return nil }
        return value
    }
    mutating func bool() -> Bool? {
        guard offset < end, bytes[offset] <= 1 else { return nil }
        offset += 1
        return bytes[offset - 1] == 1
    }
    mutating func double() -> Double? { u64().map(Double.init(bitPattern:)) }
    mutating func string() -> String? {
        guard let length = count() else { return nil }
        defer { offset += length }
        // The file's checksum was verified (`BuildCache.read`), so these bytes are what was written: valid UTF-8.
        let start = offset - bytes.startIndex
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<start + length]), as: UTF8.self) }
    }
    /// What `utf8` wrote, in place.
    mutating func utf8() -> ArraySlice<UInt8>? {
        guard let length = count() else { return nil }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }
    mutating func optionalString() -> String?? {
        guard let present = bool() else { return nil }
        if !present { return .some(nil) }
        guard let value = string() else { return nil }
        return .some(value)
    }
    mutating func strings() -> [String]? {
        guard let n = count() else { return nil }
        var result: [String] = []
        result.reserveCapacity(n)
        for _ in 0..<n {
            guard let value = string() else { return nil }
            result.append(value)
        }
        return result
    }
    mutating func localized() -> LocalizedText? { utf8().flatMap(LocalizedText.init(encoded:)) }
    mutating func timestamp() -> Timestamp? {
        guard let seconds = double(), seconds.isFinite, let offset = int() else { return nil }
        return Timestamp(secondsSinceEpoch: seconds, offsetSeconds: offset)
    }
}

/// Size, modification time and inode of a file: when all three are unchanged, the file is taken as unchanged.
struct FileStamp: Sendable, Hashable {
    var size: Int
    var modified: Int64
    var inode: UInt64

    static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(info)
    }

    /// The same for a folder: its time changes whenever an entry is added, removed or renamed in it.
    static func ofFolder(_ path: String) -> FileStamp? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return FileStamp(info)
    }

    init(size: Int, modified: Int64, inode: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }

    init(_ info: stat) {
        size = Int(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }

    func write(_ writer: inout ByteWriter) {
        writer.int(size)
        writer.u64(UInt64(bitPattern: modified))
        writer.u64(inode)
    }

    static func read(_ reader: inout ByteReader) -> FileStamp? {
        guard let size = reader.int(), let modified = reader.u64(), let inode = reader.u64() else { return nil }
        return FileStamp(size: size, modified: Int64(bitPattern: modified), inode: inode)
    }

    /// A stamp taken at `lookedAt` (nanoseconds since 1970) stands for the file's bytes only when the file was last
    /// changed before the time this returns: a change within the file system's clock tick of the look (two seconds
    /// on FAT) could leave the stamp as it was. The time of the look, not of the use: a stamp does not become more
    /// trustworthy by being kept.
    static func settled(before lookedAt: Int64) -> Int64 { lookedAt - 2_000_000_000 }
}

/// Folders of the output with their stamps, sorted by path (`FileSystem.precedes`): a rebuild compares 30,000 of
/// them with what it finds by position, and updates the few it wrote into by binary search, never hashing a path.
struct FolderStamps: Sendable, Equatable {
    private(set) var folders: [(path: String, stamp: FileStamp)]

    init() { folders = [] }

    /// `folders` already sorted by path, each path once (as `save` writes them).
    init(sorted folders: [(path: String, stamp: FileStamp)]) { self.folders = folders }

    var isEmpty: Bool { folders.isEmpty }
    var count: Int { folders.count }

    /// These stamps with `changes` applied: a stamp replaces or adds a folder's, nil removes the folder.
    func updated(with changes: [(path: String, stamp: FileStamp?)]) -> FolderStamps {
        let changes = changes.sorted { FileSystem.precedes($0.path, $1.path) }
        var result: [(path: String, stamp: FileStamp)] = []
        result.reserveCapacity(folders.count + changes.count)
        var next = 0
        for change in changes {
            // Everything before the changed folder is kept as it is (found by binary search, copied in one step).
            var low = next, high = folders.count
            while low < high {
                let middle = (low + high) / 2
                if FileSystem.precedes(folders[middle].path, change.path) { low = middle + 1 } else { high = middle }
            }
            result.append(contentsOf: folders[next..<low])
            next = low
            if next < folders.count && folders[next].path == change.path { next += 1 }
            if let stamp = change.stamp, result.last?.path != change.path { result.append((change.path, stamp)) }
        }
        result.append(contentsOf: folders[next...])
        return FolderStamps(sorted: result)
    }

    /// Whether the folders are sorted by path, each once: a cache whose list is not is not used.
    var isSorted: Bool {
        folders.indices.dropFirst().allSatisfy { FileSystem.precedes(folders[$0 - 1].path, folders[$0].path) }
    }

    static func == (a: FolderStamps, b: FolderStamps) -> Bool {
        a.folders.count == b.folders.count
            && zip(a.folders, b.folders).allSatisfy { $0.path == $1.path && $0.stamp == $1.stamp }
    }
}

/// `<site>/.newsgen/build-…`: the fingerprint and file stamp of every output of the last build into one folder.
struct OutputCache {
    struct Entry: Sendable {
        var fingerprint: UInt64
        var stamp: FileStamp
    }

    /// What the last build was made from (`InputSnapshot.key` and the build's flags), when its output stays right
    /// (`builtAt` ≤ now < `validUntil`, in seconds since 1970), and how many stories it showed.
    struct Inputs: Sendable, Equatable {
        var key: UInt64
        var builtAt: Double
        var validUntil: Double
        var stories: Int
    }

    struct Contents: Sendable {
        /// The output files, in the order the build listed them, and the entry of each by its place.
        var files = ListedPaths()
        var entries: [Entry] = []
        var inputs: Inputs?
        /// Every folder that holds an entry ("" is the output folder itself) with its stamp after the build: a
        /// folder whose stamp is unchanged has had nothing added, removed or renamed in it since.
        var folders = FolderStamps()

        /// The entry of the file at `path`, if the last build wrote it.
        func entry(_ path: String) -> Entry? { files.place(of: path).map { entries[$0] } }
    }

    static let magic: UInt64 = 0x4E47_4F55_5450_5438   // "NGOUTPT8": what a build that changes nothing needs, first

    static func path(site: String, output: String) -> String {
        var digest = ContentHasher()
        digest.combine(output)
        let name = String(digest.value, radix: 16)
        return site + "/" + BuildCache.storyCacheFolder + "/" + BuildCache.outputCachePrefix
            + String(repeating: "0", count: 16 - name.count) + name
    }

    /// The cache's record of the last build's inputs and folders, read before its entries: all that a build that
    /// has nothing to do looks at (the entries are half the file).
    struct Summary: Sendable {
        var inputs: Inputs?
        var folders: FolderStamps
        var fileCount: Int
        private let bytes: [UInt8]
        private let entriesStart: Int

        init?(_ bytes: [UInt8]) {
            var reader = ByteReader(bytes)
            guard reader.u64() == magic, reader.u64() == BuildCache.executableIdentity, let hasInputs = reader.bool() else { return nil }
            if hasInputs {
                guard let key = reader.u64(), let builtAt = reader.double(), let validUntil = reader.double(),
                      let stories = reader.int() else { return nil }
                inputs = Inputs(key: key, builtAt: builtAt, validUntil: validUntil, stories: stories)
            }
            guard let folderCount = reader.count() else { return nil }
            var list: [(path: String, stamp: FileStamp)] = []
            list.reserveCapacity(folderCount)
            for _ in 0..<folderCount {
                guard let folder = reader.string(), let stamp = FileStamp.read(&reader) else { return nil }
                list.append((folder, stamp))
            }
            folders = FolderStamps(sorted: list)
            guard folders.isSorted, let count = reader.count() else { return nil }
            fileCount = count
            self.bytes = bytes
            entriesStart = reader.offset
        }

        /// The whole cache, its entries read now; empty when they do not add up.
        func contents() -> Contents {
            var reader = ByteReader(bytes, range: entriesStart..<bytes.count)
            var files: [String] = []
            var entries: [Entry] = []
            files.reserveCapacity(fileCount)
            entries.reserveCapacity(fileCount)
            for _ in 0..<fileCount {
                guard let file = reader.string(), let fingerprint = reader.u64(), let stamp = FileStamp.read(&reader) else {
                    return Contents()
                }
                files.append(file)
                entries.append(Entry(fingerprint: fingerprint, stamp: stamp))
            }
            guard reader.atEnd else { return Contents() }
            return Contents(files: ListedPaths(files), entries: entries, inputs: inputs, folders: folders)
        }
    }

    static func loadSummary(site: String, output: String) -> Summary? {
        BuildCache.read(path(site: site, output: output)).flatMap(Summary.init)
    }

    static func load(site: String, output: String) -> Contents {
        loadSummary(site: site, output: output)?.contents() ?? Contents()
    }

    /// A cache as a build has just made it: its entries in order (`contents`, for the next build in the same process).
    struct Written: Sendable {
        var entries: [(path: String, entry: Entry)]
        var inputs: Inputs?
        var folders: FolderStamps

        var contents: Contents {
            Contents(files: ListedPaths(entries.map(\.path)), entries: entries.map(\.entry), inputs: inputs, folders: folders)
        }
    }

    static func save(site: String, output: String, written: Written) {
        let (entries, inputs, folders) = (written.entries, written.inputs, written.folders)
        var writer = ByteWriter()
        // Room for the whole cache at once (7 MB at 10,000 stories): each entry is its path and four numbers, each
        // folder its path and three; a growing buffer was copied, and its new pages touched, at every doubling.
        var size = 256
        for (file, _) in entries { size += file.utf8.count + 40 }
        for folder in folders.folders { size += folder.path.utf8.count + 32 }
        writer.bytes.reserveCapacity(size)
        writer.u64(magic)
        writer.u64(BuildCache.executableIdentity)
        writer.bool(inputs != nil)
        if let inputs {
            writer.u64(inputs.key)
            writer.double(inputs.builtAt)
            writer.double(inputs.validUntil)
            writer.int(inputs.stories)
        }
        writer.int(folders.count)
        for (folder, stamp) in folders.folders {
            writer.string(folder)
            stamp.write(&writer)
        }
        writer.int(entries.count)
        for (file, entry) in entries {
            writer.string(file)
            writer.u64(entry.fingerprint)
            entry.stamp.write(&writer)
        }
        BuildCache.save(writer.bytes, to: path(site: site, output: output))
    }

    static func remove(site: String, output: String) { FileSystem.remove(path(site: site, output: output)) }
}
