import Foundation

/// The few file operations the pipeline needs, with errors that name the path.
public enum FileSystem {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    static func read(_ path: String) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        return try read(fd, path: path, limit: Int.max)
    }

    /// The most an input file (config, template, strings, story, device template) may hold.
    public static let inputLimit = 16 << 20

    /// Reads an input file: a regular file (through links) of at most `inputLimit` bytes, else a failure that
    /// says what it is. Opening does not wait (a FIFO would block the build until someone writes to it) and no
    /// more than the limit is ever read (a link to /dev/zero would fill the memory).
    public static func readInput(_ path: String) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            throw Failure(path: path, reason: "not a regular file but \(kindName(kind)); newsgen reads only regular files")
        }
        guard info.st_size <= inputLimit else { throw Failure(path: path, reason: tooLarge) }
        let bytes = try read(fd, path: path, limit: inputLimit + 1)
        guard bytes.count <= inputLimit else { throw Failure(path: path, reason: tooLarge) }
        return bytes
    }

    private static let tooLarge = "larger than \(inputLimit >> 20) MiB, the most newsgen reads from one file"

    /// "a FIFO", "a folder", … for `st_mode & S_IFMT`.
    static func kindName(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a file"
        }
    }

    /// Reads `fd` to its end, or to `limit` bytes (a file that grows past it is cut there).
    private static func read(_ fd: Int32, path: String, limit: Int) throws(Failure) -> [UInt8] {
        var info = stat()
        // Read straight into the array, sized from fstat; a file that grows meanwhile is read to its end.
        var capacity = min(limit, fstat(fd, &info) == 0 && info.st_size > 0 ? Int(info.st_size) + 1 : 65536)
        var result: [UInt8] = []
        while true {
            var failure: Int32 = 0
            let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, filled in
                filled = 0
                while filled < buffer.count {
                    let count = Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
                    if count < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    if count == 0 { break }
                    filled += count
                }
            }
            if failure != 0 { throw Failure(path: path, reason: String(cString: strerror(failure))) }
            if result.isEmpty { result = chunk } else { result += chunk }
            if chunk.count < capacity || result.count >= limit { return result }
            capacity = min(limit - result.count, max(65536, capacity))
        }
    }

    /// An input file (see `readInput`) as UTF-8 text.
    static func readText(_ path: String) throws(Failure) -> String {
        let bytes = try readInput(path)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Failure(path: path, reason: "not valid UTF-8") }
        return text
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Regular files under `directory`, as paths relative to it, sorted; hidden entries skipped.
    static func files(under directory: String, includeHidden: Bool = false) -> [String] {
        walk(directory, includeHidden: includeHidden, stamps: false).map(\.path)
    }

    /// The names in one folder (files, folders and anything else), without "." and ".."; none when it cannot be read.
    static func entries(of directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeMutablePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Something under a source folder (`content/`, `templates/`) that cannot be used as it is: a folder that cannot
    /// be read, a link that is not followed, a file that is not a regular file. `path` is relative to the folder
    /// ("" for the folder itself).
    struct ListingProblem: Sendable, Hashable {
        var path: String
        var reason: String
        /// True for a folder (or a link to one): whatever it holds is missing from the listing.
        var isFolder: Bool
    }

    /// The files of a source folder, as relative paths (sorted, with their stamps), and every problem met on the way.
    struct SourceListing: Sendable {
        /// In `FileSystem.precedes` order.
        var files: [(path: String, stamp: FileStamp)] = []
        var problems: [ListingProblem] = []

        /// Where `path` is, or would go, in `files`.
        func insertionPoint(of path: some StringProtocol) -> Int {
            var low = 0, high = files.count
            while low < high {
                let middle = (low + high) / 2
                if FileSystem.precedes(files[middle].path, path) { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// The stamp of the listed file at `path`.
        func stamp(of path: some StringProtocol) -> FileStamp? {
            let place = insertionPoint(of: path)
            return place < files.count && files[place].path == path ? files[place].stamp : nil
        }
    }

    /// The files under a source folder, for building from. Unlike `files(under:)`, nothing is passed over without a
    /// word: a folder that cannot be read is a problem (its files would be missing), and so is anything that is
    /// neither a folder nor a regular file. A link is followed only when it leads to a regular file inside
    /// `directory` (listed under the link's name, with the stamp of the file it leads to): a link leading out of
    /// the folder would publish a file nobody put in the site, and links to folders can loop. Hidden folders are
    /// not entered; hidden files are listed with `includeHiddenFiles`.
    static func sources(under directory: String, includeHiddenFiles: Bool) -> SourceListing {
        var listing = SourceListing()
        let root = realPath(directory) ?? directory
        let folderName = directory.split(separator: "/").last.map(String.init) ?? directory
        func walk(_ relative: String) {
            let absolute = relative.isEmpty ? directory : directory + "/" + relative
            guard let dir = opendir(absolute) else {
                listing.problems.append(ListingProblem(path: relative, reason: "cannot read the folder: " + String(cString: strerror(errno)),
                                                       isFolder: true))
                return
            }
            defer { closedir(dir) }
            while true {
                errno = 0
                guard let entry = readdir(dir) else {
                    if errno != 0 {
                        listing.problems.append(ListingProblem(path: relative, reason: "cannot read the folder: " + String(cString: strerror(errno)),
                                                               isFolder: true))
                    }
                    break
                }
                let name = withUnsafeMutablePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard fstatat(dirfd(dir), &entry.pointee.d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    listing.problems.append(ListingProblem(path: child, reason: "cannot read: " + String(cString: strerror(errno)), isFolder: false))
                    continue
                }
                let kind = info.st_mode & S_IFMT
                if kind == S_IFDIR {
                    if !name.hasPrefix(".") { walk(child) }
                    continue
                }
                if name.hasPrefix(".") && !includeHiddenFiles { continue }
                switch kind {
                case S_IFREG: listing.files.append((child, FileStamp(info)))
                case S_IFLNK:
                    switch followLink(directory + "/" + child, inside: root, named: folderName) {
                    case .success(let target): listing.files.append((child, target))
                    case .failure(let problem): listing.problems.append(ListingProblem(path: child, reason: problem.reason, isFolder: problem.isFolder))
                    }
                default:
                    listing.problems.append(ListingProblem(path: child, reason: "not a regular file but \(kindName(kind))", isFolder: false))
                }
            }
        }
        walk("")
        listing.files.sort { precedes($0.path, $1.path) }
        return listing
    }

    private struct LinkProblem: Error {
        var reason: String
        var isFolder = false
    }

    /// The stamp of the regular file the link at `path` leads to, when that file is inside `root` (a real path).
    private static func followLink(_ path: String, inside root: String, named folder: String) -> Result<FileStamp, LinkProblem> {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        let written = length >= 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        guard let target = realPath(path) else {
            return .failure(LinkProblem(reason: "a link to \(written), which cannot be followed: " + String(cString: strerror(errno))))
        }
        guard target.hasPrefix(root + "/") else {
            return .failure(LinkProblem(reason: "a link to \(written), outside \(folder)/; newsgen follows links only to files inside it: copy the file here instead"))
        }
        var info = stat()
        guard stat(target, &info) == 0 else {
            return .failure(LinkProblem(reason: "a link to \(written), which cannot be followed: " + String(cString: strerror(errno))))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .success(FileStamp(info))
        case S_IFDIR:
            return .failure(LinkProblem(reason: "a link to the folder \(written); newsgen follows links only to files: move the folder here instead",
                                        isFolder: true))
        case let kind:
            return .failure(LinkProblem(reason: "a link to \(written), which is not a regular file but \(kindName(kind))"))
        }
    }

    /// The path with every link resolved (realpath(3)), or nil (with errno set) when it cannot be.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Like `files(under:)`, with each file's size, modification time and inode (from the same `lstat`).
    static func stampedFiles(under directory: String, includeHidden: Bool = false) -> [(path: String, stamp: FileStamp)] {
        walk(directory, includeHidden: includeHidden, stamps: true)
    }

    /// The stamp of each of `paths` (relative to `directory`), in the given order: nil where there is no regular
    /// file (or, with `folders`, no folder). Looked up on every core.
    /// Paths are looked up from the open folder (`fstatat`): no absolute path is built for each, and the kernel does
    /// not walk the folder's own path again every time.
    static func stamps(of paths: [String], under directory: String, folders: Bool = false) -> [FileStamp?] {
        var found = [FileStamp?](repeating: nil, count: paths.count)
        let root = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return found }   // no folder: nothing in it
        defer { close(root) }
        let chunk = 512
        found.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let slots = buffer   // each iteration writes its own slice
            DispatchQueue.concurrentPerform(iterations: (paths.count + chunk - 1) / chunk) { block in
                for index in block * chunk..<min(paths.count, (block + 1) * chunk) {
                    var info = stat()
                    // A folder's own stamp is its `lstat` (a link is not the folder); a file's follows links, as
                    // `FileStamp.of` and `FileStamp.ofFolder` do.
                    let flags = folders ? AT_SYMLINK_NOFOLLOW : 0
                    let status = paths[index].isEmpty ? fstat(root, &info) : fstatat(root, paths[index], &info, flags)
                    guard status == 0 else { continue }
                    let kind = info.st_mode & S_IFMT
                    if kind == (folders ? S_IFDIR : S_IFREG) { slots[index] = FileStamp(info) }
                }
            }
        }
        return found
    }

    /// "a/b/c.html" → "a/b"; "c.html" → "" (the root).
    static func folder(holding path: String) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return path[..<slash]
    }

    /// Without `stamps`, the entry type from `readdir` is trusted and `lstat` is only called when it is unknown.
    private static func walk(_ directory: String, includeHidden: Bool, stamps: Bool) -> [(path: String, stamp: FileStamp)] {
        var result: [(path: String, stamp: FileStamp)] = []
        let none = FileStamp(size: 0, modified: 0, inode: 0)
        func walk(_ relative: String) {
            let absolute = relative.isEmpty ? directory : directory + "/" + relative
            guard let dir = opendir(absolute) else { return }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeMutablePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                if !includeHidden && name.hasPrefix(".") { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                if !stamps {
                    let type = entry.pointee.d_type
                    if type == UInt8(DT_DIR) { walk(child); continue }
                    if type == UInt8(DT_REG) { result.append((child, none)); continue }
                    if type != UInt8(DT_UNKNOWN) { continue }
                }
                var info = stat()
                // Relative to the open folder: the kernel does not walk the whole path again for every file.
                guard fstatat(dirfd(dir), &entry.pointee.d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: walk(child)
                case S_IFREG: result.append((child, FileStamp(info)))
                default: continue
                }
            }
        }
        walk("")
        return result.sorted { precedes($0.path, $1.path) }
    }

    /// Byte order of the UTF-8 paths: the order of `String`'s `<` for the names a folder holds (Unicode scalar
    /// order, which UTF-8 keeps), without its normalisation work, which cost more than the rest of listing the
    /// story files of a large site.
    static func precedes(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
        if let result = fast ?? nil { return result }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// `mkdir -p`: tries the folder first and only walks up when its parent is missing.
    static func createDirectories(_ path: String) throws(Failure) {
        if mkdir(path, 0o755) == 0 { return }
        switch errno {
        case EEXIST:
            if isDirectory(path) { return }
            throw Failure(path: path, reason: String(cString: strerror(EEXIST)))
        case ENOENT:
            var trimmed = Substring(path).utf8
            while trimmed.count > 1, trimmed.last == UInt8(ascii: "/") { trimmed = trimmed.dropLast() }
            guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")), slash > trimmed.startIndex else {
                throw Failure(path: path, reason: String(cString: strerror(ENOENT)))
            }
            try createDirectories(String(Substring(trimmed[..<slash])))
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw Failure(path: path, reason: String(cString: strerror(errno)))
            }
        default:
            throw Failure(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Writes `parts`, one after the other, to `path` (a new file), fsyncs it when asked. Returns the file's stamp
    /// as written (a rename keeps it), so that a build need not look the file up again.
    /// `exclusive`: fail with EEXIST rather than replace a file that is there (an editor's, which must never be
    /// lost), and remove what was written when writing fails, so that no half-written file is left.
    @discardableResult
    static func write(_ parts: [UInt8]..., to path: String, sync: Bool = false, exclusive: Bool = false) throws(Failure) -> FileStamp? {
        let fd = open(path, O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC) | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        func fail() -> Failure {
            let failure = Failure(path: path, reason: String(cString: strerror(errno)))
            if exclusive { unlink(path) }
            return failure
        }
        for bytes in parts {
            var offset = 0
            while offset < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw fail()
                }
                offset += count
            }
        }
        if sync && fsync(fd) != 0 { throw fail() }
        var info = stat()
        return fstat(fd, &info) == 0 ? FileStamp(info) : nil
    }

    static func rename(_ from: String, _ to: String) throws(Failure) {
        if Glibc.rename(from, to) != 0 { throw Failure(path: to, reason: String(cString: strerror(errno))) }
    }

    static func remove(_ path: String) { unlink(path) }

    /// Removes a folder with everything in it, or a single file. A symbolic link is removed, never followed: what
    /// it leads to, wherever that is, is left alone.
    static func removeTree(_ path: String) {
        guard let isFolder = isFolderNotLink(path) else { return }
        if isFolder {
            for name in entries(of: path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Whether `path` is a folder itself (not a link to one); nil when there is nothing there.
    private static func isFolderNotLink(_ path: String) -> Bool? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes empty directories below `path` (and `path` itself unless `keepRoot`). Links are not followed: a
    /// link to a folder counts as an entry, and nothing it leads to is removed.
    @discardableResult
    static func removeEmptyDirectories(_ path: String, keepRoot: Bool) -> Bool {
        guard let dir = opendir(path) else { return false }
        var empty = true
        var children: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            children.append(name)
        }
        closedir(dir)
        for name in children {
            let child = path + "/" + name
            if isFolderNotLink(child) == true {
                if !removeEmptyDirectories(child, keepRoot: false) { empty = false }
            } else {
                empty = false
            }
        }
        if empty && !keepRoot { return rmdir(path) == 0 }
        return empty
    }

    /// An absolute, normalised path (no `.`/`..`, no trailing slash); relative paths resolve against the cwd.
    static func absolute(_ path: String) -> String {
        var base = path
        if !path.hasPrefix("/") { base = FileManager.default.currentDirectoryPath + "/" + path }
        var parts: [Substring] = []
        for part in base.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}
