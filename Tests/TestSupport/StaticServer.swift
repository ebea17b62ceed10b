import Foundation

/// `python3 -m http.server` on 127.0.0.1 serving a folder, for tests that need the built site live.
public final class StaticServer: @unchecked Sendable {
    // @unchecked: set once in init, read-only afterwards.
    public let port: Int
    private let process: Process

    public init(root: URL) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Port 0: the server picks a free port itself and says which. Choosing one here and handing it over
        // left a moment in which a test running in parallel could take it.
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "Serving HTTP on 127.0.0.1 port 43567 (http://127.0.0.1:43567/) ..."
        var seen = Data()
        var found: Int?
        while found == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
            let text = String(decoding: seen, as: UTF8.self)
            if let range = text.range(of: " port "), let end = text[range.upperBound...].firstIndex(of: " ") {
                found = Int(text[range.upperBound..<end])
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw NSError(domain: "StaticServer", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: "python3 -m http.server did not say its port: \(String(decoding: seen, as: UTF8.self))"])
        }
        port = found
        // Wait until it accepts connections.
        for _ in 0..<100 {
            if Self.canConnect(port) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    deinit {
        // SIGKILL: a child may inherit a signal mask that blocks SIGTERM, and a test must never hang on cleanup.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
