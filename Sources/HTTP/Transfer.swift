// One transfer: an easy handle configured from an `HTTPRequest`, plus everything libcurl keeps pointers to
// while the transfer runs (header list, URL handle, error buffer, the object the callbacks write into).
//
// A `Transfer` lives only on the engine thread. The engine keeps it in its in-flight table from
// `curl_multi_add_handle` until after `curl_multi_remove_handle`; that table holds the strong reference that keeps
// the `Unmanaged` userdata given to curl valid for the whole transfer.

internal import CCurl
internal import CCurlShim

final class Transfer {
    let job: Job
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>? = nil
    private var urlHandle: OpaquePointer? = nil
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private(set) var responseHeaders: [HTTPHeader] = []
    private(set) var body: [UInt8] = []

    init(job: Job, easy: UnsafeMutableRawPointer) {
        self.job = job
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_slist_free_all(headerList)
        if let urlHandle { curl_url_cleanup(urlHandle) }
        errorBuffer.deinitialize(count: Int(CURL_ERROR_SIZE))
        errorBuffer.deallocate()
    }

    // MARK: Setup

    /// Sets every option of the transfer. The easy handle must be fresh or `curl_easy_reset`.
    func configure(timeouts: HTTPTimeouts) throws(CurlSetupError) {
        let request = job.request

        try setLong(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        try setPointer(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer), "CURLOPT_ERRORBUFFER")

        // The URL, as the same parser that validated it sees it.
        guard let urlHandle = curl_url() else { throw CurlSetupError(message: "curl_url failed: out of memory") }
        self.urlHandle = urlHandle
        let urlStatus = curl_url_set(urlHandle, CURLUPART_URL, request.url, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard urlStatus == CURLUE_OK else { throw CurlSetupError(message: "curl_url_set failed on a validated URL") }
        try setPointer(CURLOPT_CURLU, UnsafeMutableRawPointer(urlHandle), "CURLOPT_CURLU")

        // Security: http(s) only, also for redirects, which are not followed; TLS always verified.
        try setString(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR")
        try setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "CURLOPT_REDIR_PROTOCOLS_STR")
        try setLong(CURLOPT_FOLLOWLOCATION, 0, "CURLOPT_FOLLOWLOCATION")
        try setLong(CURLOPT_SSL_VERIFYPEER, 1, "CURLOPT_SSL_VERIFYPEER")
        try setLong(CURLOPT_SSL_VERIFYHOST, 2, "CURLOPT_SSL_VERIFYHOST")
        // Loopback never goes through a proxy from the environment.
        try setString(CURLOPT_NOPROXY, "127.0.0.1,localhost,::1", "CURLOPT_NOPROXY")
        try setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1, "CURLOPT_SUPPRESS_CONNECT_HEADERS")
        try setLong(CURLOPT_TCP_KEEPALIVE, 1, "CURLOPT_TCP_KEEPALIVE")

        try setLong(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(timeouts.connect), "CURLOPT_CONNECTTIMEOUT_MS")
        try setLong(CURLOPT_TIMEOUT_MS, milliseconds(timeouts.total), "CURLOPT_TIMEOUT_MS")

        // Method and body.
        let sendsBody = !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method)
        if request.method == "HEAD" {
            try setLong(CURLOPT_NOBODY, 1, "CURLOPT_NOBODY")
        } else if sendsBody {
            // Size first, then COPYPOSTFIELDS copies exactly that many bytes (binary-safe). Never a NULL pointer:
            // curl would then read the body from stdin.
            try setOffT(CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count), "CURLOPT_POSTFIELDSIZE_LARGE")
            var bytes = request.body.isEmpty ? [0] : request.body
            let status = bytes.withUnsafeMutableBytes { buffer in
                newsgen_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, buffer.baseAddress)
            }
            try check(status, "curl_easy_setopt(CURLOPT_COPYPOSTFIELDS)")
            if request.method != "POST" {
                try setString(CURLOPT_CUSTOMREQUEST, request.method, "CURLOPT_CUSTOMREQUEST")
            }
        } else if request.method == "GET" {
            try setLong(CURLOPT_HTTPGET, 1, "CURLOPT_HTTPGET")
        } else {
            try setString(CURLOPT_CUSTOMREQUEST, request.method, "CURLOPT_CUSTOMREQUEST")
        }

        // Headers. The list stays alive (owned by self) until the transfer is over.
        var lines: [String] = []
        for header in request.headers {
            let value = trimmed(header.value)
            // "Name;" is curl's spelling of a header with an empty value ("Name:" would remove the header).
            lines.append(value.isEmpty ? "\(header.name);" : "\(header.name): \(value)")
        }
        func has(_ name: String) -> Bool { request.headers.contains { asciiCaseInsensitiveEquals($0.name, name) } }
        if !has("Expect") { lines.append("Expect:") }  // no 100-continue round trip
        if sendsBody && !has("Content-Type") { lines.append("Content-Type:") }  // not curl's form default
        for line in lines {
            guard let list = curl_slist_append(headerList, line) else {
                throw CurlSetupError(message: "curl_slist_append failed: out of memory")
            }
            headerList = list
        }
        try check(newsgen_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList),
                  "curl_easy_setopt(CURLOPT_HTTPHEADER)")

        // Callbacks write into this object; see the file comment for why the pointer stays valid.
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try check(newsgen_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, { data, size, count, user in
            Transfer.receive(data, size, count, user) { transfer, chunk in transfer.body.append(contentsOf: chunk) }
        }), "curl_easy_setopt(CURLOPT_WRITEFUNCTION)")
        try setPointer(CURLOPT_WRITEDATA, userdata, "CURLOPT_WRITEDATA")
        try check(newsgen_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, { data, size, count, user in
            Transfer.receive(data, size, count, user) { transfer, line in transfer.receiveHeaderLine(line) }
        }), "curl_easy_setopt(CURLOPT_HEADERFUNCTION)")
        try setPointer(CURLOPT_HEADERDATA, userdata, "CURLOPT_HEADERDATA")
    }

    private func setLong(_ option: CURLoption, _ value: Int, _ name: StaticString) throws(CurlSetupError) {
        try check(newsgen_curl_easy_setopt_long(easy, option, CLong(value)), "curl_easy_setopt(\(name))")
    }

    private func setOffT(_ option: CURLoption, _ value: curl_off_t, _ name: StaticString) throws(CurlSetupError) {
        try check(newsgen_curl_easy_setopt_off_t(easy, option, value), "curl_easy_setopt(\(name))")
    }

    private func setString(_ option: CURLoption, _ value: String, _ name: StaticString) throws(CurlSetupError) {
        try check(newsgen_curl_easy_setopt_string(easy, option, value), "curl_easy_setopt(\(name))")
    }

    private func setPointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer?, _ name: StaticString)
        throws(CurlSetupError)
    {
        try check(newsgen_curl_easy_setopt_pointer(easy, option, value), "curl_easy_setopt(\(name))")
    }

    // MARK: Response

    /// What both data callbacks share: the chunk curl hands over, given to `take` with the transfer it belongs to.
    /// Answering less than the chunk's size (0 when there is no transfer or the size overflows) makes curl fail
    /// the transfer.
    private static func receive(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?,
                                _ take: (Transfer, UnsafeRawBufferPointer) -> Void) -> Int {
        guard let user else { return 0 }
        let (total, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow else { return 0 }
        if total > 0, let data {
            take(Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue(), UnsafeRawBufferPointer(start: data, count: total))
        }
        return total
    }

    /// Called by curl once per header line, status lines included. A new status line starts a new response, so
    /// only the headers of the last (final) response survive.
    private func receiveHeaderLine(_ raw: UnsafeRawBufferPointer) {
        let line = String(decoding: raw, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            responseHeaders.removeAll()
            return
        }
        let content = trimmed(line)
        if content.isEmpty { return }  // the blank line that ends a header block
        if let first = line.utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            // Obsolete line folding: a continuation of the previous header's value.
            if var last = responseHeaders.popLast() {
                last.value = last.value.isEmpty ? content : last.value + " " + content
                responseHeaders.append(last)
            }
            return
        }
        guard let colon = content.firstIndex(of: ":") else { return }
        let name = trimmed(String(content[..<colon]))
        let value = trimmed(String(content[content.index(after: colon)...]))
        responseHeaders.append(HTTPHeader(name, value))
    }

    func response() -> HTTPResponse {
        var status: CLong = 0
        if newsgen_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK { status = 0 }
        return HTTPResponse(status: Int(status), headers: responseHeaders, body: body)
    }

    /// The error for a failed transfer: curl's detailed text (or its generic text), the host:port, no secrets.
    func error(for code: CURLcode) -> HTTPError {
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? curlText(code) : trimmed(detail)
        let secrets = job.url.secrets + job.request.headers.map(\.value)
        return HTTPError(kind: errorKind(for: code), message: scrub("\(job.url.hostPort): \(text)", secrets: secrets))
    }
}

/// Seconds to whole milliseconds for curl; 0 (curl's "default"/"no limit") for values that are not a positive
/// finite number. Never traps.
func milliseconds(_ seconds: Double) -> Int {
    guard seconds.isFinite, seconds > 0 else { return 0 }
    let ms = (seconds * 1000).rounded(.up)
    return ms >= Double(Int32.max) ? Int(Int32.max) : max(1, Int(ms))
}

/// Removes leading and trailing spaces, tabs, CR and LF.
func trimmed(_ text: String) -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
    guard let start = text.firstIndex(where: { !isSpace($0) }),
        let end = text.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(text[start...end])
}
