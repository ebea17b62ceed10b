import News
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One build at a time: the right to read and write a site's build cache and an output folder, held from before
/// the cache is read until the cache and the output are written.
///
/// Two locks, always taken in the same order (site, then output folder): the site's, because builds of one site
/// into different folders share its trace of parsed stories; the output folder's, because two sites may be built into one
/// folder. Each is an `flock` on a file (`<site>/.newsgen/lock`, `<output>/.newsgen-lock`) that holds the
/// holder's process id for the message of whoever waits. The kernel releases an `flock` when its process ends,
/// however it ends, so a lock can never be left behind by a killed build.
public final class BuildLock: Sendable {
    /// The absolute site and output folders this lock is for.
    public let site: String
    public let output: String
    private let descriptors: Mutex<[Int32]>
    /// The output folder did not exist before: a build that writes nothing into it takes it away again.
    private let madeOutput: Bool
    /// What the holder is writing on another thread (`writeInBackground`); `release` waits for it.
    private let writes = DispatchGroup()
    /// One write at a time: the caches a build writes at its end (the trace, the feed texts, the output cache) are
    /// each encoded whole in memory, about 200 MB each at 100,000 stories, and encoded side by side they made the
    /// peak of a cold build.
    private let writer = DispatchQueue(label: "newsgen.build-lock.writes")

    /// Seconds a build waits for another one before it gives up (`NEWSGEN_LOCK_TIMEOUT` overrides).
    public static let defaultTimeout: Double = 300

    /// Takes both locks, waiting at most `timeout` seconds for each. `waiting` is told once per lock, with a
    /// sentence for the person at the terminal, when another process holds it. `output` is `--output` as given.
    public static func acquire(site: String, output requested: String?, timeout: Double,
                               waiting: (String) -> Void) throws(SiteError) -> BuildLock {
        let root = FileSystem.absolute(site)
        if let missing = Edition.missingConfig(root) { throw SiteError([missing]) }   // no lock files in a folder that is no site
        let output = SiteBuilder.outputDirectory(site: root, requested: requested)
        if let problem = SiteBuilder.unsafeOutputProblem(output, site: root) ?? OutputWriter.foreignFilesProblem(output) {
            throw SiteError([Diagnostic(path: "--output", message: problem)])
        }
        let madeOutput = !FileSystem.exists(output)
        var taken: [Int32] = []
        do throws(FileSystem.Failure) {
            taken.append(try lock(folder: root + "/" + BuildCache.storyCacheFolder, file: "lock",
                                  what: "the site \(root)", timeout: timeout, waiting: waiting))
            taken.append(try lock(folder: output, file: OutputWriter.lockFile,
                                  what: "the output folder \(output)", timeout: timeout, waiting: waiting))
        } catch {
            for fd in taken { close(fd) }
            if madeOutput { removeIfUnused(output) }
            throw SiteError([Diagnostic(path: error.path, message: error.reason)])
        }
        return BuildLock(site: root, output: output, descriptors: taken, madeOutput: madeOutput)
    }

    private init(site: String, output: String, descriptors: [Int32], madeOutput: Bool) {
        self.site = site
        self.output = output
        self.descriptors = Mutex(descriptors)
        self.madeOutput = madeOutput
    }

    /// Releases both locks (an exiting process releases them too). An output folder made for the lock that holds
    /// nothing else is removed first, so a build that failed leaves no folder behind.
    public func release() {
        writes.wait()
        let open = descriptors.withLock { taken in
            defer { taken = [] }
            return taken
        }
        guard !open.isEmpty else { return }
        if madeOutput { Self.removeIfUnused(output) }
        for fd in open.reversed() {
            ftruncate(fd, 0)   // no process id of a finished build is shown to the next one that waits
            close(fd)
        }
    }

    deinit { release() }

    /// Runs `write` (a cache file of the site, say) on another thread while the holder goes on with its build, after
    /// the writes handed over before it.
    /// `release` waits for it: whatever is written under the lock is finished before another build can take it,
    /// and before the process that holds it ends.
    public func writeInBackground(_ write: @escaping @Sendable () -> Void) {
        writer.async(group: writes, execute: write)
    }

    /// Removes `folder` when it holds nothing but its lock file. Safe while others wait for that lock: a waiter that
    /// then takes the lock of the removed file sees that the path no longer leads to it, and starts again.
    private static func removeIfUnused(_ folder: String) {
        guard FileSystem.entries(of: folder).allSatisfy({ $0 == OutputWriter.lockFile }) else { return }
        FileSystem.remove(folder + "/" + OutputWriter.lockFile)
        rmdir(folder)
    }

    private static func lock(folder: String, file: String, what: String, timeout: Double,
                             waiting: (String) -> Void) throws(FileSystem.Failure) -> Int32 {
        let path = folder + "/" + file
        let started = monotonicSeconds()
        let deadline = started + max(0, timeout)
        var told = false
        while true {
            try FileSystem.createDirectories(folder)
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else {
                throw FileSystem.Failure(path: path, reason: "cannot open the build lock: \(String(cString: strerror(errno)))")
            }
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let reason = errno
                guard reason == EWOULDBLOCK || reason == EINTR else {
                    close(fd)
                    throw FileSystem.Failure(path: path, reason: "cannot take the build lock: \(String(cString: strerror(reason)))")
                }
                let holder = holderDescription(fd)
                if monotonicSeconds() >= deadline {
                    close(fd)
                    throw FileSystem.Failure(path: path, reason: "\(holder) still holds the lock on \(what) after waiting \(seconds(timeout)); try again when it has finished (NEWSGEN_LOCK_TIMEOUT sets how many seconds to wait)")
                }
                // A holder writes its id just after it takes the lock: give it a moment before saying "another process".
                if !told, holder.pid != nil || monotonicSeconds() - started > 0.5 {
                    waiting("waiting for \(holder), which is building \(what)")
                    told = true
                }
                usleep(20_000)
            }
            // The file may have been removed (or replaced) while this process waited for it: then its lock guards nothing.
            var held = stat(), named = stat()
            guard fstat(fd, &held) == 0, lstat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev else {
                close(fd)
                continue
            }
            // The holder's id, for the message of a build that waits.
            let text = Array("\(getpid())\n".utf8)
            if ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
            return fd
        }
    }

    /// "300 s", "0.5 s".
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
    }

    /// "another newsgen (process 1234)", from the id the holder wrote into the lock file while it holds it.
    private static func holderDescription(_ fd: Int32) -> Holder {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        let text = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
        if let pid = Int32(text.filter(\.isNumber)), kill(pid, 0) == 0 || errno == EPERM { return Holder(pid: pid) }
        return Holder(pid: nil)
    }

    private struct Holder: CustomStringConvertible {
        var pid: Int32?
        var description: String { pid.map { "another newsgen (process \($0))" } ?? "another process" }
    }

    /// `NEWSGEN_LOCK_TIMEOUT` in seconds, else the default; nil when the variable is not a number of seconds.
    public static func timeout(environment: [String: String]) -> Double? {
        guard let text = environment["NEWSGEN_LOCK_TIMEOUT"] else { return defaultTimeout }
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else { return nil }
        return seconds
    }
}

/// Seconds of the monotonic clock, for waits and for the time a command took.
public func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
