import Incremental
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a process that builds one site again and again (`newsgen serve`) keeps in memory between its builds, so
/// that a build costs what changed rather than a look at every source and output file:
/// - the engine that loads the site, with its results: no trace file is read or written on the way (`saveTrace`
///   writes it when the caller has time);
/// - the last look at the sources (`InputSnapshot`), brought up to date from the paths a file watcher reports
///   (`sourcesChanged`), and only those paths are looked at again, by the snapshot and by the engine;
/// - the record of what the last build left in its output folder, trusted as it is: the process owns that folder.
///   It is looked at again when the folder itself is not the one the record describes (deleted, replaced) or the
///   last build failed.
///
/// Give the same session to every `SiteBuild.run` of one site, one output folder and one base URL, one at a time.
public final class BuildSession: Sendable {
    private struct State {
        var engine: Kept<Engine>?
        /// The site folder the engine loads.
        var root = ""
        /// The engine holds results that the trace file does not.
        var unsaved = false
        var snapshot: InputSnapshot?
        /// Site-relative paths changed since the snapshot, and since the engine's last run; nil: anything may have.
        var snapshotChanges: Set<String>? = []
        var engineChanges: Set<String>? = []
        var output: OutputCache.Contents?
        /// What the last build left to do (its output cache's write, its record), not done yet.
        var left: OutputSurvey.Left?
        var edition: Edition?
    }

    private let state = Mutex(State())

    public init() {}

    /// What a watcher saw change, as paths relative to the site folder (a file, or a folder with whatever it held);
    /// "" when it lost track (its queue overflowed): then the next build looks at everything.
    public func sourcesChanged(_ paths: [String]) {
        state.withLock { state in
            if paths.contains("") {
                state.snapshotChanges = nil
                state.engineChanges = nil
            } else {
                state.snapshotChanges?.formUnion(paths)
                state.engineChanges?.formUnion(paths)
            }
        }
    }

    /// The edition of the last successful build (nil before the first one, and from the start of a load, which
    /// takes its stories over, until the build after it succeeds).
    public var edition: Edition? { state.withLock { $0.edition } }

    /// What a build leaves for later, done once its outcome has been shown: the output cache and the engine's
    /// trace (`.newsgen/trace`, when it has results the file does not) written, so that the next process starts
    /// from them, and the record of the output folder made. `lock`: held by the caller, for this site.
    public func finish(lock: BuildLock) {
        makeRecord(lock: lock)
        let (kept, root) = state.withLock { state -> (Engine?, String) in
            defer { state.unsaved = false }
            return (state.unsaved ? state.engine?.value : nil, state.root)
        }
        guard var engine = kept else { return }
        precondition(lock.site == root, "the trace is written under its own site's lock")
        try? FileSystem.createDirectories(lock.site + "/" + BuildCache.storyCacheFolder)
        let saved: Bool
        do {
            try engine.save(to: StoryRules.tracePath(site: lock.site))   // what changed appended, or all of it
            saved = true
        } catch {
            saved = false
        }
        // The engine now knows what the file holds, for the next save to append to. No build ran meanwhile: they
        // and this hold the lock.
        state.withLock { state in
            if state.root == root, state.engine != nil { state.engine = Kept(engine) }
            if !saved { state.unsaved = true }
        }
    }

    // MARK: - For the build

    /// The sources of the site in `root` as they are now: the last snapshot with the changed paths looked at again.
    public func snapshot(directory: String, baseURLOverride: String?) -> InputSnapshot {
        let root = FileSystem.absolute(directory)
        let (last, changes) = state.withLock { state in
            defer { state.snapshotChanges = [] }
            return (state.snapshot?.root == root ? state.snapshot : nil, state.snapshotChanges)
        }
        let snapshot: InputSnapshot
        if let last, let changes {
            snapshot = Self.updated(last, changes: changes, baseURLOverride: baseURLOverride)
        } else {
            snapshot = InputSnapshot.take(directory: root, baseURLOverride: baseURLOverride)
        }
        state.withLock { $0.snapshot = snapshot }
        return snapshot
    }

    /// `snapshot` after changes to `paths`: newsgen.yml read again when it changed, the theme hashed again when one
    /// of its files did, each changed story file stat'ed again; anything else in content/ (a folder, a link,
    /// a listing that had problems) is listed again.
    static func updated(_ snapshot: InputSnapshot, changes: Set<String>, baseURLOverride: String?) -> InputSnapshot {
        let root = snapshot.root
        // The files looked at again are looked at from now; the others have not changed since their stamps were
        // taken (the watcher would have said so), so now is when the whole listing holds.
        let takenAt = BuildCache.nowNanoseconds()
        let content = Edition.contentFolder + "/"
        var configBytes = snapshot.configBytes
        if changes.contains(Edition.configFile) { configBytes = try? FileSystem.readInput(root + "/" + Edition.configFile) }
        var themeDigest = snapshot.themeDigest
        if changes.contains(where: { $0 == Edition.templatesFolder || $0.hasPrefix(Edition.templatesFolder + "/") }) {
            themeDigest = Edition.themeDigest(root: root)
        }
        var storyFiles = snapshot.storyFiles
        let stories = changes.filter { $0 == Edition.contentFolder || $0.hasPrefix(content) }
        if !stories.isEmpty {
            storyFiles = storyFiles.flatMap { listing in
                listing.problems.isEmpty ? updated(listing, files: stories.map { String($0.dropFirst(content.count)) }, root: root) : nil
            } ?? {
                let folder = root + "/" + Edition.contentFolder
                return FileSystem.isDirectory(folder) ? Edition.storyFiles(in: folder) : nil
            }()
        }
        return InputSnapshot.make(root: root, configBytes: configBytes, storyFiles: storyFiles, themeDigest: themeDigest,
                                  baseURLOverride: baseURLOverride, takenAt: takenAt)
    }

    /// The listing of content/ with each of `files` (relative to content/) looked at again, or nil when one of them
    /// is not simply a story file that is there or gone (the whole folder is then listed again).
    private static func updated(_ listing: FileSystem.SourceListing, files: [String], root: String) -> FileSystem.SourceListing? {
        var listing = listing
        for file in files {
            let parts = file.split(separator: "/", omittingEmptySubsequences: false)
            if parts.dropLast().contains(where: { $0.hasPrefix(".") }) { continue }   // inside a hidden folder: not listed
            guard !file.isEmpty, !parts.contains(where: \.isEmpty) else { return nil }
            let low = listing.insertionPoint(of: file)
            let present = low < listing.files.count && listing.files[low].path == file
            var info = stat()
            if lstat(root + "/" + Edition.contentFolder + "/" + file, &info) != 0 {
                guard errno == ENOENT else { return nil }
                // A folder that went takes its files along: they sort together, right after the folder's name and "/".
                let inside = listing.insertionPoint(of: file + "/")
                if inside < listing.files.count && listing.files[inside].path.hasPrefix(file + "/") { return nil }
                if present { listing.files.remove(at: low) }
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                guard file.hasSuffix(".md") else { continue }
                let stamp = FileStamp(info)
                if present { listing.files[low].stamp = stamp } else { listing.files.insert((file, stamp), at: low) }
            case S_IFDIR:
                if !parts.last!.hasPrefix(".") { return nil }   // a new folder: whatever it holds is listed
            case S_IFLNK:
                return nil   // followed only inside content/, and a link to a folder is a problem
            default:
                if file.hasSuffix(".md") { return nil }   // a problem of the listing
            }
        }
        return listing
    }

    /// The record of what the last build left, and its output cache written on a thread that `lock` (held by the
    /// caller, for that output folder) waits for.
    private func makeRecord(lock: BuildLock) {
        let record: OutputCache.Contents
        switch state.withLock({ $0.left.take() }) {
        case nil: return
        case .unchanged(let contents): record = contents
        case .written(let make):
            let written = make()
            lock.writeInBackground { OutputCache.save(site: lock.site, output: lock.output, written: written) }
            record = written.contents
        }
        state.withLock { $0.output = record }
    }

    /// The stories of the last successful build's edition of the site in `root`, for the load under way to take over
    /// (see `LoadedStories`): the session holds that edition no more, so that the arrays have one owner and are
    /// changed where they are.
    func takeStories(root: String) -> LoadedStories? {
        state.withLock { state in
            guard let edition = state.edition.take(), edition.directory == root else { return nil }
            return LoadedStories(stories: edition.stories, facts: edition.facts, taskIndex: edition.taskIndex)
        }
    }

    /// The engine kept from the last load, with the inputs that may have changed since its last run (nil: look at
    /// every one); nil before the first load.
    func takeEngine() -> (engine: Engine, changed: Set<Key>?)? {
        let (engine, changes, engineRoot) = state.withLock { state in
            defer {
                state.engine = nil
                state.engineChanges = []
            }
            return (state.engine?.value, state.engineChanges, state.root)
        }
        guard let engine else { return nil }
        guard let changes else { return (engine, nil) }
        // A path stands for the file there, the folder there (with everything recorded under it) and the listing of
        // the folder that holds it; options may change only with a new session, but cost nothing to look at.
        var keys: Set<Key> = [Key(StoryRules.option, "base-url")]
        for path in changes {
            keys.insert(Key(StoryRules.file, path))
            keys.insert(Key(StoryRules.folder, path))
            keys.insert(Key(StoryRules.folder, String(FileSystem.folder(holding: path))))
        }
        // Only what is not a file now can have held recorded inputs.
        let folders = changes.filter { FileStamp.of(engineRoot + "/" + $0) == nil }.map { $0 + "/" }
        if !folders.isEmpty { keys.formUnion(engine.recordedInputs { key in folders.contains { key.name.hasPrefix($0) } }) }
        return (engine, keys)
    }

    /// The engine after a load, to be given to the next one; `changedTrace`: it has results the trace file does not.
    /// `engine`: made to run again (`Engine.runsAgain`).
    func keep(_ engine: Engine, root: String, changedTrace: Bool) {
        precondition(engine.runsAgain, "a session's engine runs again at every change the watcher reports")
        state.withLock { state in
            state.engine = Kept(engine)
            state.root = root
            state.unsaved = state.unsaved || changedTrace
        }
    }

    /// The output folder of `lock` for the next build: as the last build into it left it, when that record is
    /// there and the folder itself is still the one it describes; otherwise looked at.
    public func survey(lock: BuildLock, clean: Bool) -> OutputSurvey {
        makeRecord(lock: lock)   // when `finish` was not called
        let record = state.withLock { state in
            defer { state.output = nil }   // until this build has succeeded
            return state.output
        }
        if !clean, let record, let top = record.folders.folders.first, top.path.isEmpty,
           FileStamp.ofFolder(lock.output) == top.stamp {
            return OutputSurvey(site: lock.site, output: lock.output, trusting: record)
        }
        return OutputSurvey.start(lock: lock, clean: clean, keepsRecord: true)
    }

    /// After a successful build with `survey`: what it left is the record for the next one. `edition`: what it
    /// loaded (nil when it found nothing to do).
    public func built(with survey: OutputSurvey, edition: Edition?) {
        let left = survey.takeLeft()
        // A build that found nothing to do left the folder as the survey found it.
        let unchanged = left == nil && edition == nil ? survey.findings() : nil
        state.withLock { state in
            state.left = left
            if let unchanged, unchanged.asCached { state.output = unchanged.cached }
            if let edition { state.edition = edition }
        }
    }
}

/// What a session keeps, by reference. Held in the session's `Mutex` as a value, the engine (whose size grew with its
/// record of the trace file) made the release build write past the session's memory on Linux, a layout bug of
/// `Mutex` with large values that debug builds and the address sanitizer do not show.
final class Kept<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
