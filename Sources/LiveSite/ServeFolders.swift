import Foundation
import News
import Site
#if canImport(Glibc)
import Glibc
#endif

/// serve's folders in `.newsgen/`: `serve-<port>/`, the site built for that port, and beside it `serve-<port>.lock`,
/// which the serve of that port holds (`flock`) for as long as it runs. A serve that starts removes the folders, and
/// their output caches, of the ports that no running serve holds: without it, every port ever used kept a whole
/// built site (400 MB at 10,000 stories). Its own folder is kept, so that a serve started again on the same port
/// starts from it. The lock files stay: removing one could leave a serve that opened it just before holding a lock
/// on nothing.
enum ServeFolders {
    static func folder(site: String, port: Int) -> String { site + "/.newsgen/serve-\(port)" }

    /// Takes the lock of `port`'s folder, held until the returned file descriptor is closed (or the process ends).
    /// Waits while a serve that is starting removes that folder as unused.
    static func claim(site: String, port: Int) throws(SiteError) -> Int32 {
        try? FileManager.default.createDirectory(atPath: site + "/.newsgen", withIntermediateDirectories: true)
        let path = lockFile(site: site, port: port)
        let failure = {
            SiteError([Diagnostic(path: String(path.dropFirst(site.count + 1)),
                                  message: "cannot lock serve's folder for port \(port): \(String(cString: strerror(errno)))")])
        }
        guard let fd = open(path) else { throw failure() }
        guard flock(fd, LOCK_EX) == 0 else {
            let error = failure()
            close(fd)
            throw error
        }
        return fd
    }

    /// Removes `serve-<port>/` and its output cache for every port but `keeping` whose lock no process holds; the
    /// folders removed.
    @discardableResult
    static func removeUnused(site: String, keeping: Int) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: site + "/.newsgen")) ?? []
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix("serve-") {
            guard let port = Int(name.dropFirst("serve-".count)), port != keeping,
                  FileSystem.isDirectory(site + "/.newsgen/" + name),
                  let fd = open(lockFile(site: site, port: port)) else { continue }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }   // a serve runs on that port
            let folder = folder(site: site, port: port)
            SiteBuilder.removeOutput(site: site, output: folder)
            removed.append(folder)
        }
        return removed
    }

    private static func lockFile(site: String, port: Int) -> String { folder(site: site, port: port) + ".lock" }

    private static func open(_ path: String) -> Int32? {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        return fd >= 0 ? fd : nil
    }
}
