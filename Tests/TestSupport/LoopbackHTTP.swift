import Foundation

/// A minimal blocking HTTP/1.1 client for talking to test servers on 127.0.0.1 (one request per
/// connection, `Connection: close`). Tests use it instead of URLSession so they depend on nothing but sockets.
public enum LoopbackHTTP {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    /// Returns the response body of a request; throws unless the status is 2xx.
    public static func request(port: Int, method: String, path: String, body: Data = Data()) throws -> Data {
        let fd = try RawHTTP.connect(port: port, timeout: 30)
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if !body.isEmpty { head += "Content-Type: application/json\r\n" }
        head += "\r\n"
        try RawHTTP.send(fd, Array(head.utf8) + Array(body))
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no HTTP response from 127.0.0.1:\(port)\(path)") }
        let statusLine = String(decoding: response[..<split.lowerBound], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        var payload = Data(response[split.upperBound...])
        let headers = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
        if headers.contains("transfer-encoding: chunked") { payload = dechunk(payload) }
        guard (200..<300).contains(status) else {
            throw Failure(description: "\(method) \(path) answered \(status): \(String(decoding: payload, as: UTF8.self))")
        }
        return payload
    }

    static func dechunk(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            result.append(rest[start..<min(rest.endIndex, start + size)])
            rest = rest[min(rest.endIndex, start + size + 2)...]
        }
        return result
    }
}
