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
/// rewritten atomically after each accepted send: temporary file, fsync, rename, fsync of the folder. A crash
/// therefore never forgets a completed send; at most the one send in flight when it happened can repeat.
/// An exclusive lock (`<ledger>.lock`, flock) keeps two publishes from using the same ledger at once.
public final class Ledger: @unchecked Sendable {
    // @unchecked: `records` and `failure` are only touched while holding `lock`.
    public let path: String
    private var records: [LedgerRecord]
    private var lockDescriptor: Int32 = -1
    private let lock = NSLock()

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

    /// Adds a record and makes it durable before returning.
    public func append(_ record: LedgerRecord) throws(LedgerError) {
        lock.lock()
        defer { lock.unlock() }
        var next = records
        next.append(record)
        do {
            try Self.write(next, to: path)
        } catch {
            failure = error
            throw error
        }
        records = next
    }

    private static func write(_ records: [LedgerRecord], to path: String) throws(LedgerError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(File(format: format, sends: records)) else {
            throw LedgerError(message: "cannot encode the ledger")
        }
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        let bytes = Array(data) + [10]
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
