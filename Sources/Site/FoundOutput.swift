import News
import Synchronization
import Templates

/// The output folder as a build found it: the last build's output cache, and the stamp each file has now.
struct FoundOutput: Sendable {
    let cached: OutputCache.Contents
    /// Every file of the output folder with its stamp (empty when `asCached`: then they are the cache's).
    let listed: [(path: String, stamp: FileStamp)]
    let folderStamps: FolderStamps
    /// The folder holds exactly the files the cache lists, with the stamps it lists: nothing else is looked up.
    let asCached: Bool
    private let listedFiles: PathTable
    private let stamps: [FileStamp]

    init(_ findings: OutputSurvey.Findings) {
        cached = findings.cached
        listed = findings.listed
        folderStamps = findings.folderStamps
        asCached = findings.asCached
        var files = PathTable(minimumCapacity: asCached ? 0 : listed.count)
        var stamps: [FileStamp] = []
        for (file, stamp) in asCached ? [] : listed where files.insert(file).inserted { stamps.append(stamp) }
        listedFiles = files
        self.stamps = stamps
    }

    /// Every file of the output folder.
    var files: [String] { asCached ? cached.files.paths : listed.map(\.path) }

    /// The stamp of the file at `path` when the last build made it from the same inputs (`fingerprint`) and it is
    /// still as that build left it: then it is kept as it is; nil when it must be made. `place`: where the file is in
    /// this build's list of files; a rebuild mostly lists the files as the last one did, and then the cache's entry at
    /// the same place is found without hashing the path.
    func kept(_ path: String, at place: Int? = nil, fingerprint: UInt64) -> FileStamp? {
        let entry: OutputCache.Entry?
        if let place, place < cached.entries.count, cached.files.paths[place] == path {
            entry = cached.entries[place]
        } else {
            entry = cached.entry(path)
        }
        guard let entry, entry.fingerprint == fingerprint else { return nil }
        return asCached || listedFiles.place(of: path).map({ stamps[$0] }) == entry.stamp ? entry.stamp : nil
    }
}

/// What producing a build's outputs gave: its files in order, and by place each one's fingerprint (the hash of the
/// task that made it) and the stamp its file has once the build is committed (nil where it is not known); how many
/// were made; what went wrong.
struct Produced: Sendable {
    var paths: [String] = []
    var fingerprints: [UInt64] = []
    var stamps: [FileStamp?] = []
    var rendered = 0
    var failures: [Diagnostic] = []

    static func diagnostic(_ error: any Error, output: String) -> Diagnostic {
        switch error {
        case let error as TemplateError:
            return Diagnostic(path: error.path, location: .init(line: error.line, column: error.column), message: error.message)
        case let error as FileSystem.Failure:
            return Diagnostic(path: error.path, message: error.reason)
        default:
            return Diagnostic(path: output, message: "\(error)")
        }
    }
}

/// How many of a build's files are done, for its `progress` callback (done, total).
final class BuildProgress: Sendable {
    let total: Int
    private let done = Atomic<Int>(0)
    private let report: @Sendable (Int, Int) -> Void

    init(total: Int, report: @escaping @Sendable (Int, Int) -> Void) {
        self.total = total
        self.report = report
    }

    func add(_ count: Int) { report(done.add(count, ordering: .relaxed).newValue, total) }
}
