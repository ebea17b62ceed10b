import Dispatch
import Synchronization

/// The output folder as the last build left it: its build cache, every file with its stamp and the current
/// stamps of the folders the cache knows (see `SiteBuilder.listOutput`).
///
/// Looking at the output folder only reads: `newsgen build` starts it on another core before it loads the site, so
/// that the two overlap (on a 10,000-story site each takes about a third of a rebuild that changes nothing).
public final class OutputSurvey: Sendable {
    /// The site folder and the output folder it was made for (both absolute).
    let site: String
    let output: String
    let clean: Bool
    private let result = Mutex<Findings?>(nil)
    private let done = DispatchGroup()
    /// What a build that may have nothing to do looks at, known before the cache's entries are read: the last
    /// build's record of its inputs, then the number of files the cache lists if no folder it knows changed.
    private let inputs = Mutex<OutputCache.Inputs?>(nil)
    private let inputsRead = DispatchGroup()
    private let filesAsCached = Mutex<Int?>(nil)
    private let foldersChecked = DispatchGroup()

    struct Findings: Sendable {
        var cached: OutputCache.Contents
        /// Every file of the output folder with its stamp; empty when `asCached`, which says it all.
        var listed: [(path: String, stamp: FileStamp)]
        var folderStamps: FolderStamps
        /// True when the cache was used and no folder it knows changed: then the output folder holds exactly the
        /// files the cache lists, with the stamps it lists.
        var asCached: Bool
    }

    /// Starts looking at the output folder of the locked site on another thread (the lock is held so that no other
    /// build changes the cache or the folder meanwhile). `clean` is `--clean` (the cache is then not read).
    /// `keepsRecord`: the build leaves the write of its output cache and its record of the folder to the caller
    /// (`Left`, `takeLeft`) instead of writing the cache itself.
    public static func start(lock: BuildLock, clean: Bool, keepsRecord: Bool = false) -> OutputSurvey {
        let survey = OutputSurvey(site: lock.site, output: lock.output, clean: clean, keepsRecord: keepsRecord)
        survey.inputsRead.enter()
        survey.foldersChecked.enter()
        DispatchQueue.global().async(group: survey.done) {
            let summary = clean ? nil : OutputCache.loadSummary(site: survey.site, output: survey.output)
            survey.inputs.withLock { $0 = summary?.inputs }
            survey.inputsRead.leave()
            let folders = SiteBuilder.checkFolders(survey.output, summary?.folders ?? FolderStamps())
            if let summary, summary.fileCount > 0, !summary.folders.isEmpty, folders.changed.isEmpty {
                survey.filesAsCached.withLock { $0 = summary.fileCount }
            }
            survey.foldersChecked.leave()
            let cached = summary?.contents() ?? OutputCache.Contents()
            let (listed, folderStamps, asCached) = SiteBuilder.listOutput(survey.output, cached: cached, folders: folders)
            survey.result.withLock { $0 = Findings(cached: cached, listed: listed, folderStamps: folderStamps, asCached: asCached) }
        }
        return survey
    }

    init(site: String, output: String, clean: Bool, keepsRecord: Bool = false) {
        self.site = site
        self.output = output
        self.clean = clean
        self.keepsRecord = keepsRecord
    }

    /// The output folder as `contents` (what a build of this process left there, `Left`) says it is, without
    /// looking: for a process that alone writes into that folder (`BuildSession`).
    init(site: String, output: String, trusting contents: OutputCache.Contents) {
        self.site = site
        self.output = output
        clean = false
        keepsRecord = true
        inputs.withLock { $0 = contents.inputs }
        filesAsCached.withLock { $0 = contents.files.count }
        result.withLock { $0 = Findings(cached: contents, listed: [], folderStamps: contents.folders, asCached: true) }
    }

    /// What the build that used this survey left in the output folder, for whoever keeps the record (`BuildSession`)
    /// to make when it has time (serve: once the pages have been told to reload); nil until the build has succeeded.
    enum Left: Sendable {
        /// The folder is as the survey found it: the cache stays as it is.
        case unchanged(OutputCache.Contents)
        /// The new output cache, to be made (while the lock is held), written and kept as the record.
        case written(@Sendable () -> OutputCache.Written)
    }

    private let keepsRecord: Bool
    private let left = Mutex<Left?>(nil)

    /// Called by the build once the output is in place: without a record to keep, a new cache is made now and written
    /// on another thread that `lock` waits for (meanwhile the build's own state is given back, so the cache's bytes
    /// are not held on top of it).
    func leave(_ what: Left, lock: BuildLock) {
        guard keepsRecord else {
            if case .written(let make) = what {
                let (site, output, written) = (site, output, make())
                lock.writeInBackground { OutputCache.save(site: site, output: output, written: written) }
            }
            return
        }
        left.withLock { $0 = what }
    }

    func takeLeft() -> Left? { left.withLock { $0.take() } }

    /// What was found, once it is found.
    func findings() -> Findings {
        done.wait()
        return result.withLock { $0 } ?? look(clean ? OutputCache.Contents() : OutputCache.load(site: site, output: output))
    }

    /// The last build's record of its inputs, once the cache is read, before the output folder is looked at.
    func cachedInputs() -> OutputCache.Inputs? {
        inputsRead.wait()
        return inputs.withLock { $0 }
    }

    /// The number of files the cache lists when no folder it knows changed (so the output folder holds them as the
    /// last build left them); nil when something changed or there is no cache. Known before the cache's entries
    /// are read.
    func filesIfAsCached() -> Int? {
        foldersChecked.wait()
        return filesAsCached.withLock { $0 }
    }

    private func look(_ cached: OutputCache.Contents) -> Findings {
        let folders = SiteBuilder.checkFolders(output, cached.folders)
        let (listed, folderStamps, asCached) = SiteBuilder.listOutput(output, cached: cached, folders: folders)
        return Findings(cached: cached, listed: listed, folderStamps: folderStamps, asCached: asCached)
    }
}
