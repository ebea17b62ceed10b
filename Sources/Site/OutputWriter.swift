import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes a build into the output folder so that a reader of the folder never sees a half-written site:
/// every new or changed file is first staged in a hidden folder inside the output folder (same file
/// system), and only when the whole build has been rendered are the staged files renamed into place
/// (each rename is atomic). Files whose bytes did not change are not touched; files that are not in the
/// site's list of files given to `commit` are removed at the end. `abort()` removes the staging folder and
/// leaves the previous site exactly as it was.
final class OutputWriter: Sendable {
    struct Summary: Sendable {
        var written = 0
        var unchanged = 0
        var removed = 0
        /// The files that were written (relative paths).
        var writtenFiles: [String] = []
        /// The files of the output folder that are not part of the site (removed, or already gone).
        var unplanned: [String] = []
    }

    let directory: String
    private let staging: String
    /// True when the output folder holds no site yet (missing, or nothing but newsgen's own hidden entries).
    /// Then files are staged at their real paths inside the staging folder, folders are made while rendering
    /// (on every core), nothing is compared with an old file, and `commit` moves each top-level entry into place
    /// with one rename instead of one rename per file.
    private let fresh: Bool
    private struct State {
        var staged: [(relative: String, stagedName: String)] = []
        var counter = 0
        /// Folders made in the staging folder (fresh outputs only).
        var folders: Set<String> = []
        /// The staging folder is made when the first file is staged: a build that writes nothing leaves the
        /// output folder's own stamp alone (the next build then has no folder to look into).
        var stagingMade = false
        /// Files of the output folder replaced or removed so far by `commit`: when it fails part way, the output is
        /// part old, part new, and the error must say so.
        var changed = 0
    }
    private let state = Mutex(State())
    /// Names inside the output folder that belong to newsgen itself (build cache, staging), never removed.
    static let reservedPrefix = ".newsgen"

    /// Written into every output folder newsgen has built: a folder with files but without it was not made by
    /// newsgen, and is refused, because a build removes every file that is not part of the site.
    static let marker = ".newsgen-output"

    /// The build lock of the output folder (`BuildLock`).
    static let lockFile = ".newsgen-lock"

    /// Why `directory` must not be built into: it holds files, but no build of newsgen made it.
    static func foreignFilesProblem(_ directory: String) -> String? {
        guard FileSystem.isDirectory(directory), !FileSystem.exists(directory + "/" + Self.marker),
              let foreign = FileSystem.files(under: directory, includeHidden: true).first(where: { !$0.hasPrefix(Self.reservedPrefix) })
        else { return nil }
        return "the output folder \(directory) holds files that newsgen did not write (such as \(foreign)), and a build removes every file that is not part of the site; empty it or choose another output folder"
    }

    init(directory: String) throws(FileSystem.Failure) {
        self.directory = directory
        if let problem = Self.foreignFilesProblem(directory) { throw FileSystem.Failure(path: directory, reason: problem) }
        staging = directory + "/.newsgen-staging"
        if FileSystem.isDirectory(staging) { FileSystem.removeTree(staging) }   // left by a crashed build
        fresh = !FileSystem.isDirectory(directory)
            || FileSystem.entries(of: directory).allSatisfy { $0.hasPrefix(Self.reservedPrefix) }
    }

    private func makeStaging() throws(FileSystem.Failure) {
        try state.withLock { (state: inout State) throws(FileSystem.Failure) in
            if state.stagingMade { return }
            try FileSystem.createDirectories(staging)
            state.stagingMade = true
        }
    }

    /// Stages the bytes of the site's file `relative` unless the file already holds them; the stamp the file will
    /// have once the build is committed (renaming a file keeps its size, time and inode), nil when not known.
    /// Safe to call from many threads.
    @discardableResult
    func stage(_ relative: String, _ bytes: [UInt8]) throws(FileSystem.Failure) -> FileStamp? {
        if fresh {
            try makeStaging()
            if let slash = relative.lastIndex(of: "/") {
                let folder = String(relative[..<slash])
                if !state.withLock({ $0.folders.contains(folder) }) {
                    try FileSystem.createDirectories(staging + "/" + folder)
                    state.withLock { _ = $0.folders.insert(folder) }
                }
            }
            let stamp = try FileSystem.write(bytes, to: staging + "/" + relative)
            state.withLock { $0.staged.append((relative, relative)) }
            return stamp
        }
        let target = directory + "/" + relative
        if let stamp = Self.holds(target, bytes) { return stamp }
        try makeStaging()
        let name = state.withLock { s -> String in
            s.counter += 1
            return String(s.counter)
        }
        let stamp = try FileSystem.write(bytes, to: staging + "/" + name)
        state.withLock { $0.staged.append((relative, name)) }
        return stamp
    }

    /// The stamp of the file at `path` when it is a regular file with exactly these bytes.
    private static func holds(_ path: String, _ bytes: [UInt8]) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == bytes.count,
              let existing = try? FileSystem.read(path), existing == bytes else { return nil }
        return FileStamp(info)
    }

    /// Moves staged files into place and removes the files that are not part of the site.
    /// `files`: every file of the site (relative paths), the staged ones and those kept as they are; two the same
    /// is an error, and nothing is moved.
    /// `existing`: every file of the output folder (relative paths), listed when the build started; nil walks the
    /// folder now. Without the list every empty folder is removed; with it, the folders that removed files leave
    /// empty (walking 30,000 story folders again would cost more than the rest of a no-change rebuild).
    func commit(files: [String], existing: [String]? = nil) throws(FileSystem.Failure) -> Summary {
        let snapshot = state.withLock { $0 }
        let walked = existing == nil
        let existing = existing ?? FileSystem.files(under: directory, includeHidden: true)
        // A rebuild of the same site finds its files as the last build listed them: no path needs hashing.
        var site: Set<String>?
        if files != existing {
            var table = Set<String>(minimumCapacity: files.count)
            for file in files where !table.insert(file).inserted {
                throw FileSystem.Failure(path: file, reason: "two outputs want the same file")
            }
            site = table
        }
        // The marker before anything is moved in, and whole (staged, then renamed): a build killed part way leaves a
        // folder the next build knows as its own and repairs, not one it refuses as someone else's.
        if !FileSystem.exists(directory + "/" + Self.marker) {
            try makeStaging()
            try FileSystem.write(Array("This folder is written by newsgen build; files that are not part of the site are removed.\n".utf8),
                                 to: staging + "/" + Self.marker)
            try FileSystem.rename(staging + "/" + Self.marker, directory + "/" + Self.marker)
        }
        if fresh {
            var moved: [String] = []
            for entry in FileSystem.entries(of: staging) {
                if FileSystem.exists(directory + "/" + entry) { FileSystem.removeTree(directory + "/" + entry) }
                do {
                    try FileSystem.rename(staging + "/" + entry, directory + "/" + entry)
                } catch {
                    // The folder held no site: take out what was moved, so that it holds none rather than half.
                    for name in moved { FileSystem.removeTree(directory + "/" + name) }
                    throw error
                }
                moved.append(entry)
            }
            state.withLock { $0.changed = snapshot.staged.count }
        }
        var ready: Set<String> = []   // folders known to exist: checked or created once, not once per file
        var removed = 0
        for (relative, name) in snapshot.staged.sorted(by: { $0.relative < $1.relative }) where !fresh {
            let target = directory + "/" + relative
            let parent = String(target[..<(target.lastIndex(of: "/") ?? target.endIndex)])
            if !ready.contains(parent) {
                do {
                    try FileSystem.createDirectories(parent)
                } catch {
                    // Something other than newsgen put a file where a folder of the site goes (at any depth): it is
                    // not part of the site, so it goes like any other such file.
                    removed += removeFiles(standingIn: String(parent.dropFirst(directory.count + 1)))
                    try FileSystem.createDirectories(parent)
                }
                ready.insert(parent)
            }
            if FileSystem.isDirectory(target) { FileSystem.removeTree(target) }
            try FileSystem.rename(staging + "/" + name, target)
            state.withLock { $0.changed += 1 }
        }
        var emptied: Set<String> = []
        var unplanned: [String] = []
        for file in existing where !file.hasPrefix(Self.reservedPrefix) && site?.contains(file) == false {
            unplanned.append(file)
            // Gone, or a folder by now (it stood where a folder of the site goes, and was removed above).
            guard FileSystem.exists(directory + "/" + file), !FileSystem.isDirectory(directory + "/" + file) else { continue }
            FileSystem.remove(directory + "/" + file)
            removed += 1
            state.withLock { $0.changed += 1 }
            if let slash = file.lastIndex(of: "/") { emptied.insert(String(file[..<slash])) }
        }
        FileSystem.removeTree(staging)
        if walked {
            if removed > 0 || !snapshot.staged.isEmpty { FileSystem.removeEmptyDirectories(directory, keepRoot: true) }
        } else {
            // Deepest first; rmdir fails (and the walk up stops) at the first folder that still holds something.
            for folder in emptied.sorted(by: { $0.count > $1.count }) {
                var current = folder
                while !current.isEmpty, rmdir(directory + "/" + current) == 0 {
                    current = current.lastIndex(of: "/").map { String(current[..<$0]) } ?? ""
                }
            }
        }
        return Summary(written: snapshot.staged.count, unchanged: files.count - snapshot.staged.count, removed: removed,
                       writtenFiles: snapshot.staged.map(\.relative), unplanned: unplanned)
    }

    /// Removes whatever is not a folder along `relative` (a folder path inside the output folder); how many.
    private func removeFiles(standingIn relative: String) -> Int {
        var path = directory
        var removed = 0
        for name in relative.split(separator: "/") {
            path += "/" + name
            guard FileSystem.exists(path) else { break }
            if !FileSystem.isDirectory(path) {
                FileSystem.remove(path)
                removed += 1
                state.withLock { $0.changed += 1 }
            }
        }
        return removed
    }

    func abort() {
        FileSystem.removeTree(staging)
    }

    /// How many files of the output folder `commit` has replaced or removed (a fresh output's files count once the
    /// whole site is in place, which is when a failure can no longer take them back).
    var changedFiles: Int { state.withLock { $0.changed } }
}
