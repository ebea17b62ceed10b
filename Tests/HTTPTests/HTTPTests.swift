import Foundation
import Testing

@testable import HTTP
import TestSupport

// Every test starts its own loopback server (tests run in parallel; connection counts must not mix).

/// Sends and expects a failure; records an issue and returns nil on success.
private func failure(_ transport: some HTTPTransport, _ request: HTTPRequest) async -> HTTPError? {
    do {
        let response = try await transport.send(request)
        Issue.record("expected an error, got status \(response.status)")
        return nil
    } catch {
        return error
    }
}

/// The JSON that /echo answers with.
private struct Echo {
    var method: String
    var path: String
    var headers: [(String, String)]
    var body: [UInt8]

    init(_ response: HTTPResponse) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        method = try #require(object["method"] as? String)
        path = try #require(object["path"] as? String)
        let pairs = try #require(object["headers"] as? [[String]])
        headers = pairs.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
        let base64 = try #require(object["body_b64"] as? String)
        body = [UInt8](try #require(Data(base64Encoded: base64)))
    }

    func values(_ name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }
}

private func stats(_ transport: CurlTransport, _ server: LoopbackServer) async throws -> [String: Int] {
    let response = try await transport.send(HTTPRequest(method: "GET", url: "\(server.base)/stats"))
    return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Int])
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

@Suite struct RequestAndResponseTests {
    @Test func postRoundTripsBinaryBodyAndHeaders() async throws {
        try await withLoopbackServer { server in
            let transport = CurlTransport()
            let body = Array("{\"News_French\":\"Séisme à Tōkyō 地震\"}".utf8) + [0, 1, 0xFF, 0xFE, 13, 10, 0]
            let request = HTTPRequest(
                method: "POST", url: "\(server.base)/echo/messages?api-version=2015-01",
                headers: [
                    HTTPHeader("Content-Type", "application/json;charset=utf-8"),
                    HTTPHeader("ServiceBusNotification-Format", "template"),
                    HTTPHeader("ServiceBusNotification-Tags", "  World && News_French  "),
                    HTTPHeader("X-Empty", ""),
                ],
                body: body)
            let response = try await transport.send(request)
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            let echo = try Echo(response)
            #expect(echo.method == "POST")
            #expect(echo.path == "/echo/messages?api-version=2015-01")
            #expect(echo.body == body)
            #expect(echo.values("Content-Length") == ["\(body.count)"])
            #expect(echo.values("Content-Type") == ["application/json;charset=utf-8"])
            #expect(echo.values("ServiceBusNotification-Format") == ["template"])
            #expect(echo.values("ServiceBusNotification-Tags") == ["World && News_French"])
            #expect(echo.values("X-Empty") == [""])
            #expect(echo.values("Expect") == [])
        }
    }

    @Test func emptyPostSendsContentLengthZeroAndNoFormContentType() async throws {
        try await withLoopbackServer { server in
            let response = try await CurlTransport().send(HTTPRequest(method: "POST", url: "\(server.base)/echo"))
            let echo = try Echo(response)
            #expect(echo.method == "POST")
            #expect(echo.body == [])
            #expect(echo.values("Content-Length") == ["0"])
            #expect(echo.values("Content-Type") == [])
        }
    }

    @Test func otherMethods() async throws {
        try await withLoopbackServer { server in
            let transport = CurlTransport()
            let get = try Echo(try await transport.send(HTTPRequest(method: "GET", url: "\(server.base)/echo/g")))
            #expect(get.method == "GET")
            #expect(get.values("Content-Length") == [])
            let put = try Echo(try await transport.send(
                HTTPRequest(method: "PUT", url: "\(server.base)/echo/p", body: Array("xyz".utf8))))
            #expect(put.method == "PUT")
            #expect(put.body == Array("xyz".utf8))
            let delete = try Echo(try await transport.send(HTTPRequest(method: "DELETE", url: "\(server.base)/echo/d")))
            #expect(delete.method == "DELETE")
            #expect(delete.path == "/echo/d")
            let head = try await transport.send(HTTPRequest(method: "HEAD", url: "\(server.base)/status/204"))
            #expect(head.status == 204)
            #expect(head.body == [])
        }
    }

    @Test(arguments: [
        (201, [("Location", "https://hub.example/messages/42"), ("X-Request-Id", "r1")], "created"),
        (403, [("Content-Type", "text/plain")], "forbidden"),
        (429, [("Retry-After", "120"), ("x-ms-error", "throttled")], "slow down"),
    ])
    func statusHeadersAndBody(status: Int, headers: [(String, String)], text: String) async throws {
        try await withLoopbackServer { server in
            let query = headers.map { "header=\($0.0):\($0.1)" }.joined(separator: "&")
            let url = "\(server.base)/status/\(status)?\(query)&body=\(text.replacingOccurrences(of: " ", with: "+"))"
            let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: url))
            #expect(response.status == status)
            #expect(response.body == Array(text.utf8))
            for (name, value) in headers {
                #expect(response.header(name.uppercased()) == value)
                #expect(response.header(name.lowercased()) == value)
            }
            // Received order: the server's own Server/Date first, then ours, then Content-Length.
            let names = response.headers.map(\.name)
            #expect(names == ["Server", "Date"] + headers.map(\.0) + ["Content-Length"])
            #expect(response.header("Retry-After") == (status == 429 ? "120" : nil))
        }
    }

    @Test func interimResponseIsDroppedAndValuesAreTrimmed() async throws {
        try await withLoopbackServer { server in
            let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: "\(server.base)/continue"))
            #expect(response.status == 200)
            #expect(response.header("X-Interim") == nil)
            #expect(response.header("X-Final") == "yes")
            #expect(response.header("X-Pad") == "padded value")
            #expect(response.headers.filter { $0.name == "X-Twice" }.map(\.value) == ["one", "two"])
            #expect(response.header("x-twice") == "one")
            #expect(response.body == Array("final".utf8))
        }
    }
}

@Suite struct ConnectionTests {
    @Test func sequentialSendsReuseOneConnection() async throws {
        try await withLoopbackServer { server in
            let transport = CurlTransport()
            for index in 0..<5 {
                let response = try await transport.send(HTTPRequest(
                    method: index.isMultiple(of: 2) ? "GET" : "POST", url: "\(server.base)/echo/\(index)",
                    body: index.isMultiple(of: 2) ? [] : [UInt8(index)]))
                #expect(response.status == 200)
            }
            #expect(try await stats(transport, server)["connections"] == 1)
        }
    }

    @Test func concurrentSendsOverlap() async throws {
        try await withLoopbackServer { server in
            let transport = CurlTransport(maxConcurrentTransfers: 8)
            let base = server.base
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await transport.send(HTTPRequest(method: "GET", url: "\(base)/sleep/200")).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 8))
            // The server saw all eight at once: proof of overlap that does not depend on the machine's load
            // (timings belong in the benchmarks).
            #expect(try await stats(transport, server)["max_active"] == 8)
        }
    }

    @Test func concurrencyIsLimited() async throws {
        try await withLoopbackServer { server in
            let transport = CurlTransport(maxConcurrentTransfers: 2)
            let clock = ContinuousClock()
            let start = clock.now
            let base = server.base
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        _ = try await transport.send(HTTPRequest(method: "GET", url: "\(base)/sleep/150"))
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = seconds(clock.now - start)
            #expect(elapsed >= 0.44, "6 × 150 ms two at a time took only \(elapsed) s")
            let counts = try await stats(transport, server)
            #expect(counts["max_active"] == 2)
            #expect(counts["connections"] == 2)
        }
    }
}

@Suite struct FailureTests {
    @Test func totalTimeoutIsTimedOut() async throws {
        try await onDedicatedThread { _ in try await withLoopbackServer { server in
            let transport = CurlTransport(timeouts: HTTPTimeouts(connect: 5, total: 0.3))
            let clock = ContinuousClock()
            let start = clock.now
            let error = await failure(transport, HTTPRequest(method: "GET", url: "\(server.base)/sleep/60000"))
            let elapsed = seconds(clock.now - start)
            #expect(error?.kind == .timedOut)
            #expect(error?.message.hasPrefix("127.0.0.1:\(server.port): ") == true)
            // Long before the server would answer (60 s), and generous for a loaded machine.
            #expect(elapsed < 30, "timed out only after \(elapsed) s")
        } }
    }

    @Test func refusedPortIsCouldNotConnect() async throws {
        try await withLoopbackServer { server in
            let error = await failure(
                CurlTransport(), HTTPRequest(method: "GET", url: "http://127.0.0.1:\(server.closedPort)/x"))
            #expect(error?.kind == .couldNotConnect)
            #expect(error?.message.hasPrefix("127.0.0.1:\(server.closedPort): ") == true)
            #expect(error?.description.hasPrefix("HTTP request failed (could not connect): ") == true)
        }
    }

    @Test func droppedConnectionIsConnectionLost() async throws {
        try await withLoopbackServer { server in
            let transport = CurlTransport()
            let nothing = await failure(transport, HTTPRequest(method: "POST", url: "\(server.base)/drop", body: [1]))
            #expect(nothing?.kind == .connectionLost)
            let partial = await failure(transport, HTTPRequest(method: "GET", url: "\(server.base)/partial"))
            #expect(partial?.kind == .connectionLost)
            // The transport still works afterwards.
            let after = try await transport.send(HTTPRequest(method: "GET", url: "\(server.base)/status/200"))
            #expect(after.status == 200)
        }
    }

    @Test func plainHTTPToRemoteHostIsRefusedWithoutNetwork() async throws {
        try await onDedicatedThread { _ in
        let clock = ContinuousClock()
        let start = clock.now
        let error = await failure(CurlTransport(), HTTPRequest(method: "POST", url: "http://example.com/", body: [1]))
        #expect(error?.kind == .insecureURL)
        #expect(error?.message.contains("example.com:80") == true)
        #expect(seconds(clock.now - start) < 3)
        }
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/x", true), ("http://[::1]:9/", true), ("http://localhost/", true),
        ("HTTP://LocalHost:80/a?b", true), ("https://127.0.0.1/", true), ("http://user:pw@127.0.0.1/", true),
        ("https://example.com/", false), ("http://127.0.0.1.example.com/", false),
        ("http://localhost.example.com/", false), ("http://10.0.0.1/", false), ("not a url", false), ("", false),
    ])
    func loopbackDetection(url: String, expected: Bool) {
        #expect(isLoopbackURL(url) == expected)
    }

    @Test(arguments: [
        ("ftp://127.0.0.1/file", "unsupported scheme \"ftp\""),
        ("file:///etc/passwd", "unsupported scheme \"file\""),
        ("no scheme at all", "invalid URL"),
        ("https://", "invalid URL"),
    ])
    func invalidURLs(url: String, fragment: String) async {
        let error = await failure(CurlTransport(), HTTPRequest(method: "GET", url: url))
        #expect(error?.kind == .invalidURL)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    }

    @Test func malformedRequestsAreRefusedBeforeSending() async {
        let transport = CurlTransport()
        let injected = await failure(transport, HTTPRequest(
            method: "POST", url: "http://127.0.0.1:9/",
            headers: [HTTPHeader("Authorization", "SharedAccessSignature sr=x\r\nX-Evil: 1")]))
        #expect(injected?.kind == .invalidURL)
        #expect(injected?.message
            == "127.0.0.1:9: the value of header \"Authorization\" contains a line break or NUL character")
        let badName = await failure(transport, HTTPRequest(
            method: "GET", url: "http://127.0.0.1:9/", headers: [HTTPHeader("Bad Name", "v")]))
        #expect(badName?.kind == .invalidURL)
        let badMethod = await failure(transport, HTTPRequest(method: "GE T", url: "http://127.0.0.1:9/"))
        #expect(badMethod?.kind == .invalidURL)
        #expect(badMethod?.message.contains("invalid HTTP method \"GE T\"") == true)
        let headWithBody = await failure(transport, HTTPRequest(method: "HEAD", url: "http://127.0.0.1:9/", body: [1]))
        #expect(headWithBody?.kind == .invalidURL)
    }

    static let openssl: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: openssl != nil, "the openssl CLI was not found, so no self-signed certificate can be made"))
    func selfSignedCertificateFailsAsTLS() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("http-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: try #require(Self.openssl))
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        let status = try await offCooperativePool { () throws -> Int32 in
            try openssl.run()
            openssl.waitUntilExit()
            return openssl.terminationStatus
        }
        try #require(status == 0, "openssl req failed")

        try await withLoopbackServer(tls: (certificate, key)) { server in
            let error = await failure(
                CurlTransport(), HTTPRequest(method: "GET", url: "https://127.0.0.1:\(server.port)/echo"))
            #expect(error?.kind == .tls)
            #expect(error?.message.hasPrefix("127.0.0.1:\(server.port): ") == true)
        }
    }

    @Test func errorMessagesNeverContainSecrets() async throws {
        let headerSecret = "SharedAccessSignature sr=hub&sig=HEADERSECRET123&se=1"
        let querySecret = "sig=QUERYSECRET456"
        try await withLoopbackServer { server in
            let transport = CurlTransport(timeouts: HTTPTimeouts(connect: 5, total: 0.2))
            let urls = [
                "http://127.0.0.1:\(server.closedPort)/messages?\(querySecret)",  // refused
                "\(server.base)/sleep/3000?\(querySecret)",  // timed out
                "\(server.base)/drop?\(querySecret)",  // dropped
                "http://example.com/messages?\(querySecret)",  // insecure
                "https://exa mple.com/messages?\(querySecret)",  // invalid
                "gopher://127.0.0.1/?\(querySecret)",  // unsupported scheme
            ]
            for url in urls {
                let error = await failure(transport, HTTPRequest(
                    method: "POST", url: url, headers: [HTTPHeader("Authorization", headerSecret)],
                    body: Array("body-secret".utf8)))
                let text = try #require(error).description
                #expect(!text.contains("HEADERSECRET123"), "\(text)")
                #expect(!text.contains("QUERYSECRET456"), "\(text)")
                #expect(!text.contains("body-secret"), "\(text)")
            }
        }
    }

    @Test func scrubRemovesSecrets() {
        let text = scrub("a SECRET b SECRETLONGER c", secrets: ["SECRET", "SECRETLONGER"])
        #expect(text == "a <redacted> b <redacted> c")
        #expect(scrub("abc", secrets: ["ab"]) == "abc")  // too short to be a secret worth mangling text for
    }

    @Test func cancellationEndsTheSendQuickly() async throws {
        try await onDedicatedThread { executor in try await withLoopbackServer { server in
            let transport = CurlTransport()
            let clock = ContinuousClock()
            let start = clock.now
            let url = "\(server.base)/sleep/60000"
            let task = Task(executorPreference: executor) { () async throws(HTTPError) -> HTTPResponse in
                try await transport.send(HTTPRequest(method: "GET", url: url))
            }
            try await Task.sleep(for: .milliseconds(150))
            task.cancel()
            let result = await task.result
            guard case .failure(let anyError) = result else {
                Issue.record("a cancelled send succeeded")
                return
            }
            let error = try #require(anyError as? HTTPError)
            #expect(error.kind == .other)
            #expect(error.message == "127.0.0.1:\(server.port): the request was cancelled")
            #expect(seconds(clock.now - start) < 30)   // long before the server's 60 s; generous for a loaded machine
        } }
    }

    @Test func timeoutConversionNeverTraps() {
        #expect(milliseconds(10) == 10_000)
        #expect(milliseconds(0.0001) == 1)
        #expect(milliseconds(0) == 0)
        #expect(milliseconds(-3) == 0)
        #expect(milliseconds(.nan) == 0)
        #expect(milliseconds(.infinity) == 0)
        #expect(milliseconds(1e300) == Int(Int32.max))
    }

    @Test func transportsComeAndGo() async throws {
        try await withLoopbackServer { server in
            for _ in 0..<20 {
                let transport = CurlTransport()
                let response = try await transport.send(HTTPRequest(method: "GET", url: "\(server.base)/status/204"))
                #expect(response.status == 204)
            }
        }
    }
}
