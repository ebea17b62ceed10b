import CMicroHTTPD
import CMicroHTTPDShim
import Foundation
import Synchronization

/// One request as the server received it.
public struct HTTPRequest: Sendable {
    /// `GET`, `HEAD`, …
    public var method: String
    /// The path as sent, still percent-encoded, without the query.
    public var target: String
    /// Header values by lowercased name.
    public var headers: [String: String]

    public init(method: String, target: String, headers: [String: String] = [:]) {
        self.method = method
        self.target = target
        self.headers = headers
    }
}

/// One response: status, headers and either the whole body or a stream of Server-Sent Events. For `HEAD` the
/// server sends the headers (with the body's length) and no body.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        case events(EventStream)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A response that stays open and carries text as it comes: Server-Sent Events. `send` queues text for the
/// client; `close` ends the response. When nothing was sent for a while a comment goes out, so that a client
/// that went away is noticed and its connection freed.
public final class EventStream: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var closed = false
        /// The connection ended (the client left, or the server stopped): nothing more is read from this stream.
        var finished = false
    }
    private let state = Mutex(State())
    private let wakeUp = NSCondition()
    private let keepAliveSeconds: Double

    public init(keepAliveSeconds: Double = 15) {
        self.keepAliveSeconds = keepAliveSeconds
    }

    /// False once the client has gone or the stream was closed.
    public var isOpen: Bool { state.withLock { !$0.closed && !$0.finished } }

    public func send(_ text: String) {
        let sent = state.withLock { state -> Bool in
            guard !state.closed, !state.finished else { return false }
            state.pending += Array(text.utf8)
            return true
        }
        if sent { signal() }
    }

    public func close() {
        state.withLock { $0.closed = true }
        signal()
    }

    private func signal() {
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    /// Up to `maximum` bytes for the connection: waits until there are some; nil at the end of the stream.
    fileprivate func next(maximum: Int) -> [UInt8]? {
        let deadline = Date(timeIntervalSinceNow: keepAliveSeconds)
        wakeUp.lock()
        defer { wakeUp.unlock() }
        while true {
            let taken = state.withLock { state -> [UInt8]?? in
                if !state.pending.isEmpty {
                    let count = min(maximum, state.pending.count)
                    defer { state.pending.removeFirst(count) }
                    return .some(Array(state.pending[..<count]))
                }
                return state.closed ? .some(nil) : nil
            }
            if let taken { return taken }
            if !wakeUp.wait(until: deadline) { return Array(":\n\n".utf8) }
        }
    }

    fileprivate func finish() {
        state.withLock { $0.finished = true }
    }
}

public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The port was taken by another program.
    public var addressInUse: Bool
    public var description: String { message }
}

/// An HTTP/1.1 server on libmicrohttpd: a thread per connection, so that several clients are served at once and
/// an event stream may wait for its next event without holding up anyone else. `handler` is called on the
/// connection's thread.
public final class HTTPServer: Sendable {
    public let host: String
    public let port: Int
    private let daemon: Mutex<OpaquePointer?>
    private let context: Unmanaged<Context>

    final class Context: Sendable {
        let handler: @Sendable (HTTPRequest) -> HTTPResponse
        let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
        let stopping = Atomic<Bool>(false)
        init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { self.handler = handler }
    }

    /// Listens on `host` (an IPv4 or IPv6 address) and `port` (0: any free port).
    public init(host: String, port: Int, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) {
        guard (0...65535).contains(port) else {
            throw HTTPServerError(message: "port \(port) is not between 0 and 65535", addressInUse: false)
        }
        let context = Unmanaged.passRetained(Context(handler: handler))
        var failure: Int32 = 0
        guard let started = newsgen_mhd_start(host, UInt16(port), accessHandler, context.toOpaque(), &failure) else {
            context.release()
            let reason = failure == EINVAL ? "\(host) is not an IP address (such as 127.0.0.1 or ::1)"
                : "cannot listen on \(host) port \(port): \(String(cString: strerror(failure)))"
            throw HTTPServerError(message: reason, addressInUse: failure == EADDRINUSE)
        }
        self.host = host
        self.port = Int(newsgen_mhd_port(started))
        self.context = context
        daemon = Mutex(started)
    }

    /// Ends every event stream, lets the requests being answered finish, and stops listening. Safe to call twice.
    public func stop() {
        guard let running = daemon.withLock({ value -> OpaquePointer? in
            defer { value = nil }
            return value
        }) else { return }
        let box = context.takeUnretainedValue()
        box.stopping.store(true, ordering: .sequentiallyConsistent)
        for stream in box.streams.withLock({ Array($0.values) }) { stream.close() }
        MHD_stop_daemon(running)
        context.release()
    }

    deinit { stop() }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, _ in
    guard let cls, let connection, let url, let method else { return .NO }
    let context = Unmanaged<HTTPServer.Context>.fromOpaque(cls).takeUnretainedValue()
    // A request body (never expected here) arrives in later calls; the answer is given at the first one.
    if let uploadSize, uploadSize.pointee > 0 { uploadSize.pointee = 0 }
    var headers: [String: String] = [:]
    withUnsafeMutablePointer(to: &headers) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { target, _, key, value in
            guard let target, let key else { return .YES }
            let map = target.assumingMemoryBound(to: [String: String].self)
            map.pointee[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
            return .YES
        }, pointer)
    }
    let request = HTTPRequest(method: String(cString: method), target: String(cString: url), headers: headers)
    let answer = context.stopping.load(ordering: .relaxed)
        ? HTTPResponse(status: 503, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .bytes(Array("stopping\n".utf8)))
        : context.handler(request)

    let response: OpaquePointer?
    switch answer.body {
    case .bytes(let bytes):
        response = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .events(let stream):
        let key = ObjectIdentifier(stream)
        context.streams.withLock { $0[key] = stream }
        if context.stopping.load(ordering: .sequentiallyConsistent) { stream.close() }
        let box = Unmanaged.passRetained(StreamBox(stream: stream, context: context))
        response = MHD_create_response_from_callback(UInt64.max, 4096, { cls, _, buffer, maximum in
            guard let cls, let buffer else { return -1 }
            let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
            guard let bytes = box.stream.next(maximum: maximum) else { return -1 }   // MHD_CONTENT_READER_END_OF_STREAM
            bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            return bytes.count
        }, box.toOpaque(), { cls in
            guard let cls else { return }
            let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
            box.stream.finish()
            _ = box.context.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(box.stream)) }
        })
        if response == nil { box.release() }
    }
    guard let response else { return .NO }
    for (name, value) in answer.headers { MHD_add_response_header(response, name, value) }
    let queued = MHD_queue_response(connection, UInt32(answer.status), response)
    MHD_destroy_response(response)
    return queued
}

/// What the streaming callbacks of one response hold on to.
private final class StreamBox: Sendable {
    let stream: EventStream
    let context: HTTPServer.Context
    init(stream: EventStream, context: HTTPServer.Context) {
        self.stream = stream
        self.context = context
    }
}
