import Foundation
import HTTPServer
import Synchronization
import Testing
import TestSupport

/// The libmicrohttpd wrapper on a free loopback port, through plain sockets.
@Suite struct HTTPServerTests {
    static func echo(_ request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(status: request.target == "/missing" ? 404 : 200,
                     headers: [("Content-Type", "text/plain; charset=utf-8"), ("X-Method", request.method)],
                     body: .bytes(Array("\(request.method) \(request.target) \(request.headers["host"] ?? "-")".utf8)))
    }

    @Test func answersGetAndHeadWithTheTargetAsSent() async throws {
        try await offThePool {
            let server = try HTTPServer(host: "127.0.0.1", port: 0, handler: Self.echo)
            defer { server.stop() }
            #expect(server.port > 0)
            let get = try RawHTTP.request(port: server.port, method: "GET", target: "/a%2Fb/%2e%2e/c")
            #expect(get.status == 200)
            #expect(get.text == "GET /a%2Fb/%2e%2e/c 127.0.0.1:\(server.port)")
            #expect(get.headers["content-type"] == "text/plain; charset=utf-8")
            let head = try RawHTTP.request(port: server.port, method: "HEAD", target: "/x")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.headers["x-method"] == "HEAD")
            #expect(head.headers["content-length"] == String("HEAD /x 127.0.0.1:\(server.port)".utf8.count))
            #expect(try RawHTTP.request(port: server.port, method: "GET", target: "/missing").status == 404)
        }
    }

    @Test func streamsEventsWhileOtherRequestsAreAnsweredAndStopEndsTheStreams() async throws {
        try await offThePool {
            let stream = EventStream()
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
                request.target == "/events" ? HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .events(stream))
                    : Self.echo(request)
            }
            let fd = try RawHTTP.connect(port: server.port)
            defer { close(fd) }
            try RawHTTP.send(fd, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            stream.send("event: one\ndata: 1\n\n")
            // Other clients are answered while the stream stays open.
            for index in 0..<5 {
                #expect(try RawHTTP.request(port: server.port, method: "GET", target: "/\(index)").text.hasPrefix("GET /\(index) "))
            }
            stream.send("event: two\ndata: 2\n\n")
            var received = ""
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = Date(timeIntervalSinceNow: 10)
            while !received.contains("event: two"), Date() < deadline {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            #expect(received.contains("event: one\ndata: 1\n\n"))
            #expect(received.contains("event: two\ndata: 2\n\n"))
            server.stop()
            #expect(!stream.isOpen)
            // The stream ended (the last chunk, then the connection closes).
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { break }
            }
            #expect(throws: (any Error).self) { try RawHTTP.request(port: server.port, method: "GET", target: "/") }
            server.stop()   // twice is harmless
        }
    }

    @Test func aTakenPortAndABadHostAreReportedAsSuch() throws {
        let first = try HTTPServer(host: "127.0.0.1", port: 0, handler: Self.echo)
        defer { first.stop() }
        #expect {
            _ = try HTTPServer(host: "127.0.0.1", port: first.port, handler: Self.echo)
        } throws: { error in
            (error as? HTTPServerError)?.addressInUse == true
        }
        #expect {
            _ = try HTTPServer(host: "localhost.example", port: 0, handler: Self.echo)
        } throws: { error in
            (error as? HTTPServerError).map { !$0.addressInUse && $0.message.contains("is not an IP address") } == true
        }
        let six = try HTTPServer(host: "::1", port: 0, handler: Self.echo)
        #expect(six.port > 0)
        six.stop()
    }
}
