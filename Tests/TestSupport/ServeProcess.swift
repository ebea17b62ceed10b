import Foundation
import Synchronization

/// A running `newsgen serve` (the built binary) on a free loopback port, with what it printed so far.
public final class ServeProcess: Sendable {
    public let port: Int
    /// The front page's address as serve printed it (`http://127.0.0.1:PORT/` or `…/news/`).
    public let url: String
    private let process: Process
    private let output = Locked((out: "", err: ""))

    /// Starts serve in `site` with `arguments` (after `serve --port 0`) and waits until it says where it serves.
    public init(site: TemporarySite, arguments: [String] = [], environment: [String: String] = [:],
                firstPort: Int = 0, timeout: Double = 120) throws {
        let process = Process()
        process.executableURL = Repository.newsgenBinary
        process.arguments = ["serve", "--port", String(firstPort)] + arguments
        process.currentDirectoryURL = site.url
        process.environment = programEnvironment(environment)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        self.process = process
        out.fileHandleForReading.readabilityHandler = { [output = self.output] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; return }
            output.value.withLock { $0.out += String(decoding: data, as: UTF8.self) }
        }
        err.fileHandleForReading.readabilityHandler = { [output = self.output] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; return }
            output.value.withLock { $0.err += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let deadline = Date(timeIntervalSinceNow: timeout)
        var found: String?
        while found == nil {
            let text = self.output.value.withLock { $0.out }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("serving ") }) {
                found = String(line.dropFirst("serving ".count).split(separator: " ")[0])
            } else if !process.isRunning || Date() > deadline {
                process.terminate()
                let printed = self.output.value.withLock { $0 }
                throw LoopbackHTTP.Failure(description: "serve did not start: \(printed.out)\(printed.err)")
            } else {
                usleep(20_000)
            }
        }
        url = found!
        let afterHost = url.split(separator: ":")[2]
        port = Int(afterHost.prefix { $0.isNumber })!
    }

    public var standardOutput: String { output.value.withLock { $0.out } }
    public var standardError: String { output.value.withLock { $0.err } }

    /// Sends `signal` and waits for the process to end; its exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGINT, timeout: Double = 30) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            return nil
        }
        usleep(50_000)   // the last output
        return process.terminationStatus
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Waits until `condition` holds for what serve printed (output and error streams together).
    public func waitForOutput(timeout: Double = 60, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if condition(standardOutput + standardError) { return true }
            usleep(20_000)
        }
        return false
    }

    public func get(_ target: String, method: String = "GET") throws -> RawHTTP.Response {
        try RawHTTP.request(port: port, method: method, target: target)
    }

    public func events() throws -> EventListener { try EventListener(port: port) }
}

/// One HTTP/1.1 request on 127.0.0.1 with the target sent exactly as given (no normalising of `..` or of
/// percent-escapes), and the whole response: status, headers and body.
public enum RawHTTP {
    public struct Response: Sendable {
        public var status: Int
        /// By lowercased name.
        public var headers: [String: String]
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A connected socket to 127.0.0.1:`port` whose reads give up after `seconds`.
    public static func connect(port: Int, timeout seconds: Int = 60) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackHTTP.Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw LoopbackHTTP.Failure(description: "cannot connect to 127.0.0.1:\(port)")
        }
        return fd
    }

    public static func send(_ fd: Int32, _ text: String) throws {
        try send(fd, Array(text.utf8))
    }

    public static func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw LoopbackHTTP.Failure(description: "send failed") }
            sent += count
        }
    }

    public static func request(port: Int, method: String, target: String) throws -> Response {
        let fd = try connect(port: port)
        defer { close(fd) }
        try send(fd, "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else {
            throw LoopbackHTTP.Failure(description: "no HTTP response to \(method) \(target)")
        }
        let lines = String(decoding: response[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(response[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = LoopbackHTTP.dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }
}

/// A client of serve's event stream (`/_newsgen/events`), as a page's `EventSource` is: it collects every event.
public final class EventListener: Sendable {
    public struct Event: Sendable, Hashable {
        public var name: String
        public var data: String
    }
    private let fd: Int32
    private let received = Locked<[Event]>([])
    private let done = DispatchSemaphore(value: 0)

    init(port: Int) throws {
        fd = try RawHTTP.connect(port: port)
        try RawHTTP.send(fd, "GET /_newsgen/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
        let socket = fd
        Thread { [received, done] in
            // Bytes, with carriage returns dropped: as a String, "\r\n" would be one character, not a line end.
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            var inBody = false
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count <= 0 { break }
                pending += buffer[0..<count].filter { $0 != 13 }
                if !inBody, let end = Self.find([10, 10], in: pending) {
                    pending = Array(pending[(end + 2)...])
                    inBody = true
                }
                guard inBody else { continue }
                // Chunk sizes stand on lines of their own between events; only event: and data: lines count.
                while let end = Self.find([10, 10], in: pending) {
                    let block = String(decoding: pending[..<end], as: UTF8.self)
                    pending = Array(pending[(end + 2)...])
                    var name = "", data = ""
                    for line in block.split(separator: "\n") {
                        if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                        if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
                    }
                    if !name.isEmpty { received.value.withLock { $0.append(Event(name: name, data: data)) } }
                }
            }
            done.signal()
        }.start()
    }

    public var events: [Event] { received.value.withLock { $0 } }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The first event after the first `skipping` ones that satisfies `condition`, waiting up to `timeout` seconds.
    public func next(after skipping: Int = 0, timeout: Double = 60, where condition: (Event) -> Bool = { _ in true }) -> Event? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let found = events.dropFirst(skipping).first(where: condition) { return found }
            usleep(5_000)
        }
        return nil
    }

    /// Waits until the server ends the stream.
    public func waitForEnd(timeout: Double) -> Bool { done.wait(timeout: .now() + timeout) == .success }

    public func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}

/// A Mutex that closures can share.
final class Locked<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
}
