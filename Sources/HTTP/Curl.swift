// libcurl plumbing shared by the transport: one-time global init, the single status-code check, URL parsing
// with curl's own parser, and the mapping of curl result codes to `HTTPError`.

internal import CCurl
internal import CCurlShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Global init

/// `curl_global_init` must run once per process before any other curl call and is not itself thread-safe on
/// every libcurl build; a global `let` is initialised exactly once, thread-safely, on first use.
private let curlGlobalInitStatus: UInt32 = curl_global_init(CLong(CURL_GLOBAL_ALL)).rawValue

/// Runs `curl_global_init` if it has not run yet and reports its failure, if any.
func ensureCurlGlobalInit() -> HTTPError? {
    let code = CURLcode(rawValue: curlGlobalInitStatus)
    if code == CURLE_OK { return nil }
    return HTTPError(kind: .other, message: "curl_global_init failed: \(curlText(code))")
}

// MARK: - The one status check

/// Thrown when a curl call used to set up a transfer fails; names the call (and option) that failed.
struct CurlSetupError: Error {
    var message: String
}

/// Every easy-interface status code goes through here.
func check(_ code: CURLcode, _ call: @autoclosure () -> String) throws(CurlSetupError) {
    guard code == CURLE_OK else {
        throw CurlSetupError(message: "\(call()) failed: \(curlText(code))")
    }
}

/// Every multi-interface status code goes through here.
func check(_ code: CURLMcode, _ call: @autoclosure () -> String) throws(CurlSetupError) {
    guard code == CURLM_OK else {
        let text = curl_multi_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)"
        throw CurlSetupError(message: "\(call()) failed: \(text)")
    }
}

func curlText(_ code: CURLcode) -> String {
    curl_easy_strerror(code).map { String(cString: $0) } ?? "curl error \(code.rawValue)"
}

// MARK: - URLs

/// The parts of a URL the transport needs, as parsed by libcurl's URL API (the same parser the transfer uses).
struct ParsedURL: Sendable {
    var scheme: String
    /// As curl reports it: lower-case names, IPv6 addresses in brackets.
    var host: String
    var port: String
    /// Parts of the URL that may carry secrets and must never appear in an error message.
    var secrets: [String]

    var hostPort: String { "\(host):\(port)" }

    var isLoopback: Bool {
        let lower = String(decoding: host.utf8.map(asciiLower), as: UTF8.self)
        return lower == "127.0.0.1" || lower == "[::1]" || lower == "localhost"
    }

    static func parse(_ url: String) -> Result<ParsedURL, HTTPError> {
        if let error = ensureCurlGlobalInit() { return .failure(error) }
        if url.utf8.contains(0) {
            return .failure(HTTPError(kind: .invalidURL, message: "invalid URL: it contains a NUL character"))
        }
        guard let handle = curl_url() else {
            return .failure(HTTPError(kind: .other, message: "curl_url failed: out of memory"))
        }
        defer { curl_url_cleanup(handle) }
        let status = curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard status == CURLUE_OK else {
            let reason = curl_url_strerror(status).map { String(cString: $0) } ?? "code \(status.rawValue)"
            // The URL itself is not repeated: it may carry a SAS token in its query.
            return .failure(HTTPError(
                kind: .invalidURL,
                message: "invalid URL (\(reason)); expected an absolute https:// URL"))
        }
        func part(_ which: CURLUPart, _ flags: Int32 = 0) -> String? {
            var out: UnsafeMutablePointer<CChar>? = nil
            guard curl_url_get(handle, which, &out, UInt32(flags)) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        let scheme = part(CURLUPART_SCHEME) ?? ""
        guard scheme == "http" || scheme == "https" else {
            return .failure(HTTPError(
                kind: .invalidURL,
                message: "invalid URL: unsupported scheme \"\(scheme)\"; "
                    + "only https:// (and http:// to loopback) is allowed"))
        }
        guard let host = part(CURLUPART_HOST), !host.isEmpty else {
            return .failure(HTTPError(kind: .invalidURL, message: "invalid URL: it has no host name"))
        }
        let port = part(CURLUPART_PORT, CURLU_DEFAULT_PORT) ?? (scheme == "https" ? "443" : "80")
        var secrets: [String] = [url]
        for which in [CURLUPART_QUERY, CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_FRAGMENT, CURLUPART_PATH] {
            if let value = part(which), !value.isEmpty, value != "/" { secrets.append(value) }
        }
        return .success(ParsedURL(scheme: scheme, host: host, port: port, secrets: secrets))
    }
}

// MARK: - Request validation

/// RFC 9110 token characters (method and header names).
func isToken(_ text: String) -> Bool {
    guard !text.isEmpty else { return false }
    return text.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// Checks everything about a request that can be checked without the network, so bad input never reaches curl
/// (in particular no CR/LF header injection and no plain http to a remote host).
func validate(_ request: HTTPRequest) -> Result<ParsedURL, HTTPError> {
    let url: ParsedURL
    switch ParsedURL.parse(request.url) {
    case .success(let parsed): url = parsed
    case .failure(let error): return .failure(error)
    }
    if url.scheme == "http" && !url.isLoopback {
        return .failure(HTTPError(
            kind: .insecureURL,
            message: "refusing plain http:// to \(url.hostPort); use https:// "
                + "(plain http is allowed only for 127.0.0.1, ::1 and localhost)"))
    }
    guard isToken(request.method) else {
        return .failure(HTTPError(
            kind: .invalidURL,
            message: "\(url.hostPort): invalid HTTP method \"\(printable(request.method))\"; "
                + "expected a token such as GET or POST"))
    }
    if request.method == "HEAD" && !request.body.isEmpty {
        return .failure(HTTPError(kind: .invalidURL, message: "\(url.hostPort): a HEAD request cannot have a body"))
    }
    for header in request.headers {
        guard isToken(header.name) else {
            return .failure(HTTPError(
                kind: .invalidURL,
                message: "\(url.hostPort): invalid header name \"\(printable(header.name))\"; "
                    + "expected letters, digits and -"))
        }
        // The value is never quoted: it may be a secret.
        if header.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            return .failure(HTTPError(
                kind: .invalidURL,
                message: "\(url.hostPort): the value of header \"\(header.name)\" "
                    + "contains a line break or NUL character"))
        }
    }
    return .success(url)
}

/// A method or header name for an error message: control characters escaped, at most 40 characters.
private func printable(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars.prefix(40) {
        if scalar.value < 0x20 || scalar.value == 0x7F {
            out += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return text.unicodeScalars.count > 40 ? out + "…" : out
}

// MARK: - Result classification

func errorKind(for code: CURLcode) -> HTTPError.Kind {
    switch code {
    case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
        return .invalidURL
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
        return .couldNotConnect
    case CURLE_OPERATION_TIMEDOUT:
        return .timedOut
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
        CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
        CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
        CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
        return .tls
    case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2_STREAM,
        CURLE_HTTP2:
        return .connectionLost
    default:
        return .other
    }
}

/// Removes every secret from a message (longest first, so a secret containing another is removed whole).
func scrub(_ message: String, secrets: [String]) -> String {
    var text = message
    for secret in secrets.sorted(by: { $0.utf8.count > $1.utf8.count }) where secret.utf8.count >= 4 {
        text = text.replacing(secret, with: "<redacted>")
    }
    return text
}
