import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes a build into the output folder so that a reader of the folder never sees a half-written site:
/// every new or changed file is first staged in a hidden folder inside the output folder (same file
/// system), and only when the whole build has been rendered are the staged files renamed into place
/// (each rename is atomic). Files whose bytes did not change are not touched; files that no longer
/// belong to the site are removed at the end. `abort()` removes the staging folder and leaves the
/// previous site exactly as it was.
final class OutputWriter: Sendable {
    struct Summary: Sendable {
        var written = 0
        var unchanged = 0
        var removed = 0
        /// The files that were written (relative paths).
        var writtenFiles = PathTable()
        /// Their stamps as written, by place in `writtenFiles` (renaming a file keeps its size, time and inode).
        var writtenStamps: [FileStamp?] = []
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
        var planned = PathTable()
        var staged: [(relative: String, stagedName: String, stamp: FileStamp?)] = []
        var unchanged = 0
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

    /// Records `relative` as part of the site; stages its bytes unless the file already holds them.
    /// Safe to call from many threads.
    func stage(_ relative: String, _ bytes: [UInt8]) throws(FileSystem.Failure) {
        try plan(relative)
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
            state.withLock { $0.staged.append((relative, relative, stamp)) }
            return
        }
        let target = directory + "/" + relative
        if Self.holds(target, bytes) {
            state.withLock { $0.unchanged += 1 }
            return
        }
        try makeStaging()
        let name = state.withLock { s -> String in
            s.counter += 1
            return String(s.counter)
        }
        let stamp = try FileSystem.write(bytes, to: staging + "/" + name)
        state.withLock { $0.staged.append((relative, name, stamp)) }
    }

    /// Makes room for `count` files in the table of the site's files: a build of 10,000 stories plans 30,000, and
    /// growing the table step by step hashed every path again at each step.
    func expect(_ count: Int) {
        state.withLock { $0.planned.reserve(count) }
    }

    /// Records files as part of the site, kept as they are (the build cache knows they are up to date).
    func keep(_ files: [String]) throws(FileSystem.Failure) {
        try state.withLock { (state: inout State) throws(FileSystem.Failure) in
            for relative in files where !state.planned.insert(relative).inserted {
                throw FileSystem.Failure(path: relative, reason: "two outputs want the same file")
            }
            state.unchanged += files.count
        }
    }

    private func plan(_ relative: String) throws(FileSystem.Failure) {
        let isDuplicate = state.withLock { !$0.planned.insert(relative).inserted }
        if isDuplicate { throw FileSystem.Failure(path: relative, reason: "two outputs want the same file") }
    }

    /// True when `path` is a regular file with exactly these bytes.
    private static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == bytes.count else { return false }
        guard let existing = try? FileSystem.read(path) else { return false }
        return existing == bytes
    }

    /// Moves staged files into place and removes files that are no longer part of the site.
    /// `existing`: every file of the output folder (relative paths), listed when the build started; nil walks the
    /// folder now. Without the list every empty folder is removed; with it, the folders that removed files leave
    /// empty (walking 30,000 story folders again would cost more than the rest of a no-change rebuild).
    func commit(existing: [String]? = nil) throws(FileSystem.Failure) -> Summary {
        let snapshot = state.withLock { $0 }
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
        for (relative, name, _) in snapshot.staged.sorted(by: { $0.relative < $1.relative }) where !fresh {
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
        for file in existing ?? FileSystem.files(under: directory, includeHidden: true)
        where !snapshot.planned.contains(file) && !file.hasPrefix(Self.reservedPrefix) {
            unplanned.append(file)
            // Gone, or a folder by now (it stood where a folder of the site goes, and was removed above).
            guard FileSystem.exists(directory + "/" + file), !FileSystem.isDirectory(directory + "/" + file) else { continue }
            FileSystem.remove(directory + "/" + file)
            removed += 1
            state.withLock { $0.changed += 1 }
            if let slash = file.lastIndex(of: "/") { emptied.insert(String(file[..<slash])) }
        }
        FileSystem.removeTree(staging)
        if existing == nil {
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
        return Summary(written: snapshot.staged.count, unchanged: snapshot.unchanged, removed: removed,
                       // Staged paths are unique (`plan` refuses a second), so places in the table are places in `staged`.
                       writtenFiles: PathTable(snapshot.staged.map(\.relative)),
                       writtenStamps: snapshot.staged.map(\.stamp),
                       unplanned: unplanned)
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
