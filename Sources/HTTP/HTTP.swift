// The HTTP module: a small request/response API over libcurl.
//
// Only this module sees a C pointer; everything public here is a plain Swift value.

/// One header field. Names are compared case-insensitively by `HTTPResponse.header(_:)`.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

public struct HTTPRequest: Sendable {
    /// "GET", "POST", "PUT", "DELETE", "HEAD" (any other HTTP token is sent as a custom method).
    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    /// Sent byte for byte with a Content-Length (also `Content-Length: 0` for an empty POST/PUT/PATCH).
    public var body: [UInt8]

    public init(method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// In received order, of the final response only (a `100 Continue` or other interim response is dropped).
    /// Values are trimmed of surrounding whitespace.
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    /// Builds a response by hand, e.g. in a fake transport for tests.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header called `name`, compared case-insensitively (ASCII).
    public func header(_ name: String) -> String? {
        headers.first { asciiCaseInsensitiveEquals($0.name, name) }?.value
    }
}

public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The URL could not be parsed, or its scheme is not http/https, or the request itself is malformed.
        case invalidURL
        /// Plain `http://` to a host that is not loopback.
        case insecureURL
        /// The host name could not be resolved or the connection was refused.
        case couldNotConnect
        /// The connect timeout or the total timeout elapsed.
        case timedOut
        /// The TLS handshake failed, including certificate verification.
        case tls
        /// The server closed the connection before the response was complete.
        case connectionLost
        case other
    }

    public var kind: Kind
    /// Human text naming the host:port and what went wrong. Never contains header values, bodies or the query
    /// string of the URL (they may carry secrets such as SAS tokens).
    public var message: String

    /// Builds an error by hand, e.g. in a fake transport for tests.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String {
        "HTTP request failed (\(kind.phrase)): \(message)"
    }
}

extension HTTPError.Kind {
    /// Short human wording of the kind, used in `HTTPError.description`.
    var phrase: String {
        switch self {
        case .invalidURL: "invalid URL"
        case .insecureURL: "insecure URL"
        case .couldNotConnect: "could not connect"
        case .timedOut: "timed out"
        case .tls: "TLS error"
        case .connectionLost: "connection lost"
        case .other: "error"
        }
    }
}

public struct HTTPTimeouts: Sendable, Hashable {
    /// Seconds allowed to establish the connection (TCP + TLS). Zero, negative, NaN or infinity: curl's default
    /// (300 s).
    public var connect: Double
    /// Seconds allowed for the whole transfer. Zero, negative, NaN or infinity: no limit.
    public var total: Double

    public init(connect: Double = 10, total: Double = 30) {
        self.connect = connect
        self.total = total
    }
}

/// Sends one request and returns the final response. Network behaviour (retries, backoff) lives above this
/// protocol so it can be tested with a fake transport.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}

/// True for URLs whose host is 127.0.0.1, ::1 ([::1]) or localhost.
///
/// The URL is parsed with libcurl's own URL parser, the same one the transfer uses. Unparseable URLs are not
/// loopback.
public func isLoopbackURL(_ url: String) -> Bool {
    guard case .success(let parts) = ParsedURL.parse(url) else { return false }
    return parts.isLoopback
}

func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    let x = a.utf8
    let y = b.utf8
    guard x.count == y.count else { return false }
    return zip(x, y).allSatisfy { asciiLower($0) == asciiLower($1) }
}

func asciiLower(_ byte: UInt8) -> UInt8 {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte + 32 : byte
}
