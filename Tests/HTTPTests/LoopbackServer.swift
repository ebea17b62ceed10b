import Foundation
import Testing

/// Runs `loopback_server.py` (next to this file) on 127.0.0.1 and a free port.
///
/// The server exits when its stdin closes, so it cannot outlive the test process; `stop()` (always called by
/// `withLoopbackServer`) closes stdin, terminates it and waits for it.
///
/// `@unchecked Sendable`: `port` and `closedPort` are immutable; the non-Sendable `process` and `stdin` are only
/// touched by `init` and by `stop()`, which holds `lock`.
final class LoopbackServer: @unchecked Sendable {
    let port: Int
    /// A port with nothing listening on it (free a moment before the server started).
    let closedPort: Int
    private let lock = NSLock()
    private let process: Process
    private let stdin: Pipe

    var base: String { "http://127.0.0.1:\(port)" }

    init(tls: (certificate: String, key: String)? = nil) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("loopback_server.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
        let stdin = Pipe()
        let stdout = Pipe()
        let stderrFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("loopback-server-\(UUID().uuidString).stderr")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        try process.run()
        self.process = process
        self.stdin = stdin

        // Read the two announcement lines; EOF before them means the server failed to start.
        var text = ""
        while text.components(separatedBy: "\n").count < 3 {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let number = Int(fields[1]) { values[String(fields[0])] = number }
        }
        guard let port = values["PORT"], let closedPort = values["CLOSED"] else {
            try? stdin.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
            let errors = (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: stderrFile)
            throw ServerStartError(description: "loopback_server.py did not start: \(text) \(errors)")
        }
        try? FileManager.default.removeItem(at: stderrFile)
        self.port = port
        self.closedPort = closedPort
    }

    func stop() {
        lock.withLock {
            try? stdin.fileHandleForWriting.close()
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

struct ServerStartError: Error, CustomStringConvertible {
    var description: String
}

/// Starts a server, runs `body`, and always stops the server afterwards.
///
/// Starting and stopping block (reading the port line, waiting for exit), so they run on their own thread: there
/// are only two cooperative threads here, and blocking them would stall every other test's timing.
func withLoopbackServer<T>(
    tls: (certificate: String, key: String)? = nil,
    _ body: (LoopbackServer) async throws -> T
) async throws -> T {
    let server = try await offCooperativePool { try LoopbackServer(tls: tls) }
    do {
        let result = try await body(server)
        try await offCooperativePool { server.stop() }
        return result
    } catch {
        try? await offCooperativePool { server.stop() }
        throw error
    }
}

/// Runs blocking work on a new thread and waits for it without holding a cooperative thread.
func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
