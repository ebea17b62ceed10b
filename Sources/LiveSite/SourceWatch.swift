import Foundation
import News
import Site
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Watches what a site is made from (`newsgen.yml`, every folder of `content/`, `templates/` and `media/`, new folders as
/// they appear) with inotify, and reports each burst of changes once: an editor's save is often several events
/// (write a temporary file, rename it over the old one, change its mode), and one rebuild is enough for them.
///
/// `changed` runs on the watcher's own thread with the site-relative paths that changed ("" when the kernel's queue
/// overflowed and which ones is unknown); events that come while it
/// runs are reported when it returns, so changes are handled one batch at a time, in order.
public final class SourceWatch: Sendable {
    /// How long the folder must stay quiet before a burst counts as finished: an editor's save takes a few
    /// milliseconds, and every millisecond here is added to the time before a page reloads.
    public static let quietSeconds = 0.015

    private let quiet: Double

    private let notify: Int32
    /// Writing a byte here wakes the watcher to stop.
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    private let state: Mutex<Folders>

    struct Folders {
        /// Watch descriptor → the folder's path relative to the site ("" for the site folder itself).
        var folders: [Int32: String] = [:]
        var stopped = false
    }

    static let watchedFolders = [Edition.contentFolder, Edition.templatesFolder, MediaReference.folder]
    static let watchedRoots = [Edition.configFile] + watchedFolders
    static let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF)

    /// Starts watching the site in `site` (absolute).
    public init(site: String, quiet: Double = quietSeconds, changed: @escaping @Sendable ([String]) -> Void) throws(SiteError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            throw SiteError([Diagnostic(path: site, message: "cannot watch the site for changes: \(String(cString: strerror(errno)))")])
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            close(fd)
            throw SiteError([Diagnostic(path: site, message: "cannot watch the site for changes: \(String(cString: strerror(errno)))")])
        }
        notify = fd
        wake = (ends[0], ends[1])
        self.quiet = quiet
        state = Mutex(Folders())
        let root = site
        state.withLock { folders in
            Self.add("", root: root, notify: fd, into: &folders)
            for name in Self.watchedFolders { Self.addTree(name, root: root, notify: fd, into: &folders) }
        }
        let thread = Thread { [self] in
            run(root: root, changed: changed)
            finished.signal()
        }
        thread.name = "newsgen watch"
        thread.start()
    }

    /// Stops watching and waits for a batch being handled to finish.
    public func stop() {
        let first = state.withLock { folders -> Bool in
            defer { folders.stopped = true }
            return !folders.stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        finished.wait()
        close(notify)
        close(wake.read)
        close(wake.write)
    }

    private static func add(_ relative: String, root: String, notify: Int32, into folders: inout Folders) {
        let path = relative.isEmpty ? root : root + "/" + relative
        let descriptor = inotify_add_watch(notify, path, mask | UInt32(IN_ONLYDIR))
        if descriptor >= 0 { folders.folders[descriptor] = relative }
    }

    /// Watches `relative` and every folder under it (hidden folders too: a link may lead into one).
    private static func addTree(_ relative: String, root: String, notify: Int32, into folders: inout Folders) {
        var pending = [relative]
        while let folder = pending.popLast() {
            add(folder, root: root, notify: notify, into: &folders)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? [] {
                var info = stat()
                if lstat(root + "/" + folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                    pending.append(folder + "/" + name)
                }
            }
        }
    }

    private func run(root: String, changed: @Sendable ([String]) -> Void) {
        var batch: [String] = []
        var writing: Set<String> = []
        var burstStarted = ContinuousClock.now
        while true {
            // Idle: wait as long as it takes; within a burst: until it has been quiet for quietSeconds.
            var fds = [pollfd(fd: notify, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, batch.isEmpty ? -1 : Int32(quiet * 1000))
            if ready < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 || ready < 0 { return }
            if ready == 0 {
                // A file still open for writing (an editor that truncates the story and writes it in several steps)
                // holds the batch until it is closed, so that no rebuild reads it half-written; a file left open
                // holds it for holdSeconds at most.
                if !writing.isEmpty, ContinuousClock.now - burstStarted < .seconds(Self.holdSeconds) { continue }
                let paths = batch
                batch = []
                writing = []
                changed(paths)
                continue
            }
            if batch.isEmpty { burstStarted = ContinuousClock.now }
            batch += readEvents(root: root, writing: &writing)
        }
    }

    /// How long a file open for writing may hold a burst's report.
    public static let holdSeconds = 1.0

    /// The site-relative paths of the events waiting in the inotify queue; new folders are watched at once.
    /// `writing`: the files written to and not closed yet.
    private func readEvents(root: String, writing: inout Set<String>) -> [String] {
        var paths: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(notify, $0.baseAddress, $0.count) }
            guard count > 0 else { return paths }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (descriptor, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += header + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // The kernel dropped events: which files changed is unknown; "" asks the rebuild to look at all.
                    paths.append("")
                    continue
                }
                let seen = state.withLock { folders -> String? in
                    guard let folder = folders.folders[descriptor] else { return nil }
                    if mask & UInt32(IN_IGNORED) != 0 {
                        folders.folders[descriptor] = nil
                        return nil
                    }
                    if folder.isEmpty {
                        // In the site folder only newsgen.yml, content/, templates/ and media/ matter.
                        guard Self.watchedRoots.contains(name) else { return nil }
                    }
                    guard !name.isEmpty || mask & UInt32(IN_DELETE_SELF) != 0 else { return nil }
                    let relative = folder.isEmpty ? name : name.isEmpty ? folder : folder + "/" + name
                    if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                        Self.addTree(relative, root: root, notify: notify, into: &folders)
                    }
                    return relative
                }
                guard let relative = seen else { continue }
                paths.append(relative)
                // Hidden files are no part of the site, and an editor may keep its swap file open while it runs.
                guard mask & UInt32(IN_ISDIR) == 0, !name.isEmpty, !name.hasPrefix(".") else { continue }
                if mask & UInt32(IN_CREATE | IN_MODIFY) != 0 {
                    writing.insert(relative)
                } else if mask & UInt32(IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM) != 0 {
                    writing.remove(relative)
                }
            }
        }
    }
}
