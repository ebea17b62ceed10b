import Foundation
import Signing
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

public struct LedgerError: Error, Sendable, CustomStringConvertible {
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
public final class Ledger: @unchecked Sendable {
    // @unchecked: `records`, `failure`, `waiting` and `committing` are only touched while holding `lock`;
    // the file itself is only written while holding `writeLock`.
    public let path: String
    private var records: [LedgerRecord]
    private var lockDescriptor: Int32 = -1
    private let lock = NSLock()
    /// Held for a whole rewrite, so two rewrites never race on the temporary file or the rename.
    private let writeLock = NSLock()
    /// Accepted sends waiting for the next group commit, each with the task to resume once it is durable.
    private var waiting: [(record: LedgerRecord, done: CheckedContinuation<LedgerError?, Never>)] = []
    /// True while a group commit is scheduled or running on `committer`.
    private var committing = false
    /// The JSON of `records[i]` as it sits in the file, encoded once (only touched while holding `writeLock`).
    /// Re-encoding the whole ledger for every rewrite made each send cost more the longer the ledger grew.
    private var encodedRecords: [[UInt8]] = []
    /// Blocking file work (write, fsync, rename) runs here, never on Swift's cooperative threads, which keep
    /// sending and receiving meanwhile.
    private let committer = DispatchQueue(label: "newsgen.ledger.commit")

    struct File: Codable {
        var format: String
        var sends: [LedgerRecord]
    }
    static let format = "newsgen-push-ledger-1"

    private init(path: String, records: [LedgerRecord]) {
        self.path = path
        self.records = records
    }

    deinit { if lockDescriptor >= 0 { close(lockDescriptor) } }

    /// Reads the ledger without locking or writing (for `--dry-run`). A missing file is an empty ledger.
    public static func read(path: String) throws(LedgerError) -> Ledger {
        Ledger(path: path, records: try load(path))
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
        let descriptor = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LedgerError(message: "cannot open the ledger lock \(path).lock: \(String(cString: strerror(errno)))")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            close(descriptor)
            throw LedgerError(message: "another newsgen publish is using the ledger \(path) right now; nothing was sent (run again when it has finished)")
        }
        do {
            let ledger = Ledger(path: path, records: try load(path))
            ledger.lockDescriptor = descriptor
            return ledger
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func load(_ path: String) throws(LedgerError) -> [LedgerRecord] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LedgerError(message: "cannot read the ledger \(path)")
        }
        do {
            let file = try JSONDecoder().decode(File.self, from: data)
            guard file.format == format else {
                throw LedgerError(message: "the ledger \(path) has format \"\(file.format)\", expected \"\(format)\"")
            }
            return file.sends
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError(message: "the ledger \(path) is damaged (\(error.localizedDescription)); nothing was sent, because without it alerts could go out twice. Restore it from CI's cache or a backup")
        }
    }

    /// The first write that failed, if any. Once the ledger cannot record sends, nothing more may be sent:
    /// an unrecorded alert would go out again on the next run.
    public var writeFailure: LedgerError? { lock.withLock { failure } }
    private var failure: LedgerError?

    public var all: [LedgerRecord] { lock.withLock { records } }

    public var byKey: [String: LedgerRecord] {
        lock.withLock { Dictionary(records.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first }) }
    }

    /// Adds a record and makes it durable before returning (blocks the calling thread).
    public func append(_ record: LedgerRecord) throws(LedgerError) {
        if let error = commit([record]) { throw error }
    }

    /// Adds a record and returns once it is durable. Records handed in while a rewrite is under way are written
    /// together by the next rewrite; if that rewrite fails, every record in it fails and none is kept.
    public func record(_ record: LedgerRecord) async throws(LedgerError) {
        let error = await withCheckedContinuation { (done: CheckedContinuation<LedgerError?, Never>) in
            let startCommitter = lock.withLock {
                waiting.append((record, done))
                defer { committing = true }
                return !committing
            }
            if startCommitter { committer.async { self.commitWaiting() } }
        }
        if let error { throw error }
    }

    /// Runs on `committer`: writes everything that is waiting in one rewrite, until nothing is left.
    private func commitWaiting() {
        while true {
            let group: [(record: LedgerRecord, done: CheckedContinuation<LedgerError?, Never>)] = lock.withLock {
                defer { waiting.removeAll() }
                if waiting.isEmpty { committing = false }
                return waiting
            }
            if group.isEmpty { return }
            let error = commit(group.map(\.record))
            for member in group { member.done.resume(returning: error) }
        }
    }

    /// Rewrites the file with `added` after the records already kept; keeps them only if the rewrite succeeded.
    private func commit(_ added: [LedgerRecord]) -> LedgerError? {
        writeLock.lock()
        defer { writeLock.unlock() }
        let kept = lock.withLock { records }  // only changes below, under `writeLock`
        do {
            while encodedRecords.count < kept.count {
                encodedRecords.append(try Self.encodeForFile(kept[encodedRecords.count]))
            }
            var pieces: [[UInt8]] = []
            for record in added { pieces.append(try Self.encodeForFile(record)) }
            try Self.write(Self.fileBytes(encodedRecords + pieces), to: path)
            encodedRecords += pieces
        } catch {
            lock.withLock { failure = error }
            return error
        }
        lock.withLock { records = kept + added }
        return nil
    }

    /// One record as `JSONEncoder` (pretty, sorted keys) lays it out inside the file's `sends` array: its lines
    /// indented by four spaces. JSON strings never hold a raw line break, so indenting line by line is safe.
    static func encodeForFile(_ record: LedgerRecord) throws(LedgerError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(record) else {
            throw LedgerError(message: "cannot encode the ledger record for \(record.key)")
        }
        var bytes: [UInt8] = Array("    ".utf8)
        bytes.reserveCapacity(data.count + data.count / 8)
        for byte in data {
            bytes.append(byte)
            if byte == 10 { bytes.append(contentsOf: "    ".utf8) }
        }
        return bytes
    }

    /// The whole file, byte for byte what `JSONEncoder` (pretty, sorted keys) writes for `File`, plus a newline.
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
