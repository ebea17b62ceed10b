import Foundation
import Signing
import Site
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One accepted send: written right after the hub answered 201, before anything else happens.
public struct LedgerRecord: Codable, Sendable, Hashable {
    public var storyId: String
    public var revision: Int
    /// When the hub accepted it (RFC 3339, UTC).
    public var sentAt: String
    public var tags: String
    /// SHA-256 of the exact request body, hex.
    public var bodySHA256: String
    /// The hub's notification id from `Location` (Standard tier only).
    public var hubNotificationId: String?
    public var trackingId: String?

    public var key: String { "\(storyId):\(revision)" }
}

public struct LedgerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The durable record of every accepted send: `storyId` + push revision → when, what, and the hub's ids.
///
/// A JSON file (default `.newsgen/push-ledger.json` in the site folder, `--ledger PATH` to override) that is
/// rewritten atomically whenever sends are accepted: temporary file, fsync, rename, fsync of the folder. A send
/// counts as done only once a rewrite that contains it has finished, so a crash never forgets a completed send;
/// at most the sends in flight when it happened (never more than `push.concurrency`) can repeat.
///
/// Sends accepted while a rewrite is under way are written together by the next one (a group commit): with
/// several sends in flight this costs one pair of fsyncs per group instead of per send, and each send still
/// waits until its own record is on disk.
/// An exclusive lock (`<ledger>.lock`, flock) keeps two publishes from using the same ledger at once.
///
/// Only a regular file (or a symbolic link to one, which is written through) is a ledger; anything else in its
/// place is damage, never "no ledger", which would send every alert again.
public final class Ledger: Sendable {
    /// The ledger as it was named (in messages).
    public let path: String
    /// The file that is rewritten: `path`, or the file a symbolic link there points to, so that a rewrite
    /// replaces the ledger and not the link (a CI cache that restores the link's target must see every send).
    private let filePath: String
    /// The flock'ed `<ledger>.lock`, or -1 for a ledger opened only to read or closed.
    private let lockDescriptor: Mutex<Int32>
    private let shared: Mutex<Shared>
    /// The JSON of each kept record as it sits in the file, encoded once, so that a send costs the same however
    /// long the ledger has grown. Held for a whole rewrite (blocking write, fsync, rename), so two rewrites never
    /// race on the temporary file or the rename.
    private let encodedRecords = Mutex<[[UInt8]]>([])
    /// Blocking file work (write, fsync, rename) runs here, never on Swift's cooperative threads, which keep
    /// sending and receiving meanwhile.
    private let committer = DispatchQueue(label: "newsgen.ledger.commit")

    private struct Shared {
        var records: [LedgerRecord]
        /// The first write that failed, if any.
        var failure: LedgerError?
        /// Accepted sends waiting for the next group commit, each with the task to resume once it is durable.
        var waiting: [(record: LedgerRecord, done: CheckedContinuation<LedgerError?, Never>)] = []
        /// True while a group commit is scheduled or running on `committer`.
        var committing = false
    }

    struct File: Codable {
        var format: String
        var sends: [LedgerRecord]
    }
    static let format = "newsgen-push-ledger-1"

    private init(path: String, filePath: String, records: [LedgerRecord], lockDescriptor: Int32 = -1) {
        self.path = path
        self.filePath = filePath
        self.lockDescriptor = Mutex(lockDescriptor)
        shared = Mutex(Shared(records: records))
    }

    deinit { release() }

    /// Lets another publish use the ledger. Without it the lock goes with the last reference to the ledger, which a
    /// finishing group commit may hold a moment after the last `record` returned.
    public func release() {
        lockDescriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    /// Reads the ledger without locking or writing (for `--dry-run`). A missing file is an empty ledger.
    public static func read(path: String) throws(LedgerError) -> Ledger {
        Ledger(path: path, filePath: path, records: try load(path))
    }

    /// Opens the ledger for sending: takes the lock (fails at once if another publish holds it), then reads it.
    public static func openForSending(path: String) throws(LedgerError) -> Ledger {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw LedgerError(message: "cannot create the ledger folder \(folder): \(error.localizedDescription)")
            }
        }
        let filePath = resolvedLink(path) ?? path
        let descriptor = open(filePath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LedgerError(message: "cannot open the ledger lock \(filePath).lock: \(String(cString: strerror(errno)))")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            close(descriptor)
            throw LedgerError(message: "another newsgen publish is using the ledger \(path) right now; nothing was sent (run again when it has finished)")
        }
        do {
            return Ledger(path: path, filePath: filePath, records: try load(path), lockDescriptor: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func load(_ path: String) throws(LedgerError) -> [LedgerRecord] {
        guard let bytes = try contents(path) else { return [] }
        let data = Data(bytes)
        do {
            let file = try JSONDecoder().decode(File.self, from: data)
            guard file.format == format else {
                throw LedgerError(message: "the ledger \(path) has format \"\(file.format)\", expected \"\(format)\"")
            }
            return file.sends
        } catch let error as LedgerError {
            throw error
        } catch {
            throw damaged(path, error.localizedDescription)
        }
    }

    private static func damaged(_ path: String, _ why: String) -> LedgerError {
        LedgerError(message: "the ledger \(path) is damaged (\(why)); nothing was sent, because without it alerts could go out twice. Restore it from CI's cache or a backup")
    }

    /// The ledger's bytes, or nil when nothing is in its place. A dangling symbolic link, a folder, a FIFO or a
    /// device there is damage: it is not "no ledger" (a link whose target is lost would send everything again),
    /// and reading a FIFO would wait forever.
    private static func contents(_ path: String) throws(LedgerError) -> [UInt8]? {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw LedgerError(message: "cannot read the ledger \(path): \(String(cString: strerror(errno)))")
        }
        if info.st_mode & S_IFMT == S_IFLNK, stat(path, &info) != 0 {
            let reason = String(cString: strerror(errno))
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            throw damaged(path, "it is a symbolic link to \(target), which cannot be followed: \(reason)")
        }
        if let problem = notARegularFile(info.st_mode) { throw damaged(path, problem) }
        // O_NONBLOCK: should a FIFO be put there after the look above, opening it does not wait for a writer.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LedgerError(message: "cannot read the ledger \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw failure("read", path) }
        if let problem = notARegularFile(info.st_mode) { throw damaged(path, problem) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", path)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    private static func notARegularFile(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "it is a folder, not a file"
        case S_IFIFO: return "it is a FIFO, not a regular file"
        case S_IFCHR, S_IFBLK: return "it is a device, not a regular file"
        default: return "it is not a regular file"
        }
    }

    /// Where a symbolic link at `path` finally leads, or nil when `path` is not one.
    private static func resolvedLink(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The first write that failed, if any. Once the ledger cannot record sends, nothing more may be sent:
    /// an unrecorded alert would go out again on the next run.
    public var writeFailure: LedgerError? { shared.withLock { $0.failure } }

    /// Rewrites the ledger unchanged, exactly as a send is recorded (temporary file in the same folder, fsync,
    /// rename, fsync of the folder): called before the first send, so that a full disk or a read-only folder
    /// stops the run while nothing has gone out, rather than after an alert the ledger could not record.
    public func proveWritable() throws(LedgerError) {
        if let error = commit([]) { throw error }
    }

    public var all: [LedgerRecord] { shared.withLock { $0.records } }

    public var byKey: [String: LedgerRecord] {
        shared.withLock { Dictionary($0.records.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first }) }
    }

    /// Adds a record and returns once it is durable. Records handed in while a rewrite is under way are written
    /// together by the next rewrite; if that rewrite fails, every record in it fails and none is kept.
    public func record(_ record: LedgerRecord) async throws(LedgerError) {
        let error = await withCheckedContinuation { (done: CheckedContinuation<LedgerError?, Never>) in
            let startCommitter = shared.withLock { shared in
                shared.waiting.append((record, done))
                defer { shared.committing = true }
                return !shared.committing
            }
            if startCommitter { committer.async { self.commitWaiting() } }
        }
        if let error { throw error }
    }

    /// Runs on `committer`: writes everything that is waiting in one rewrite, until nothing is left.
    private func commitWaiting() {
        while true {
            let group: [(record: LedgerRecord, done: CheckedContinuation<LedgerError?, Never>)] = shared.withLock { shared in
                defer { shared.waiting.removeAll() }
                if shared.waiting.isEmpty { shared.committing = false }
                return shared.waiting
            }
            if group.isEmpty { return }
            let error = commit(group.map(\.record))
            for member in group { member.done.resume(returning: error) }
        }
    }

    /// Rewrites the file with `added` after the records already kept; keeps them only if the rewrite succeeded.
    private func commit(_ added: [LedgerRecord]) -> LedgerError? {
        encodedRecords.withLock { encodedRecords in
            let kept = shared.withLock { $0.records }  // only changes below, while `encodedRecords` is held
            do throws(LedgerError) {
                while encodedRecords.count < kept.count {
                    encodedRecords.append(try Self.encodeForFile(kept[encodedRecords.count]))
                }
                var pieces: [[UInt8]] = []
                for record in added { pieces.append(try Self.encodeForFile(record)) }
                try Self.write(Self.fileBytes(encodedRecords + pieces), to: filePath)
                encodedRecords += pieces
            } catch {
                shared.withLock { $0.failure = error }
                return error
            }
            shared.withLock { $0.records = kept + added }
            return nil
        }
    }

    /// One record as it sits inside the file's `sends` array: its lines indented by four spaces. JSON strings
    /// never hold a raw line break, so indenting line by line is safe.
    static func encodeForFile(_ record: LedgerRecord) throws(LedgerError) -> [UInt8] {
        guard let value = try? JSONValue(encoding: record) else {
            throw LedgerError(message: "cannot encode the ledger record for \(record.key)")
        }
        let data = JSONWriter.bytes(value, mode: .minimal, layout: .spaced, sortedKeys: true)
        var bytes: [UInt8] = Array("    ".utf8)
        bytes.reserveCapacity(data.count + data.count / 8)
        for byte in data {
            bytes.append(byte)
            if byte == 10 { bytes.append(contentsOf: "    ".utf8) }
        }
        return bytes
    }

    /// The whole file, around records encoded once each: the `spaced` layout of `File`, plus a newline.
    static func fileBytes(_ encodedRecords: [[UInt8]]) -> [UInt8] {
        var bytes = Array("{\n  \"format\" : \"\(format)\",\n  \"sends\" : [\n".utf8)
        bytes.reserveCapacity(encodedRecords.reduce(bytes.count + 16) { $0 + $1.count + 2 })
        for (index, record) in encodedRecords.enumerated() {
            if index > 0 { bytes.append(contentsOf: ",\n".utf8) }
            bytes.append(contentsOf: record)
        }
        bytes.append(contentsOf: "\n  ]\n}\n".utf8)
        return bytes
    }

    private static func write(_ bytes: [UInt8], to path: String) throws(LedgerError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                close(descriptor)
                throw failure("write", temporary)
            }
            offset += written
        }
        if fsync(descriptor) != 0 { close(descriptor); throw failure("fsync", temporary) }
        close(descriptor)
        if rename(temporary, path) != 0 { throw failure("rename", path) }
        let folder = (path as NSString).deletingLastPathComponent
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    private static func failure(_ operation: String, _ path: String) -> LedgerError {
        LedgerError(message: "could not \(operation) \(path): \(String(cString: strerror(errno)))")
    }

    static func hexSHA256(_ bytes: [UInt8]) -> String {
        MessageAuthentication.sha256Digest(bytes).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
