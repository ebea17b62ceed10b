import FuzzSupport
import Hub

/// libFuzzer's entry point: the input as a hub connection string. Whether it parses or not, a key that looks like
/// one (16 or more base64 characters, with a digit, `+` or `/` so that no message's own words can spell it) never
/// appears in the description or in the error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnectionString(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let shown: String
    do {
        let connection = try HubConnectionString(parsing: text)
        shown = connection.description
        _ = connection.httpsBaseURL
    } catch {
        shown = error.message
    }
    for key in keys(in: text) {
        require(!shown.contains(key), "the key \(key) is shown: \(shown)")
    }
    return 0
}

/// The values of the `SharedAccessKey` parts that look like real keys.
private func keys(in text: String) -> [String] {
    text.split(separator: ";").compactMap { part in
        guard let equals = part.firstIndex(of: "=") else { return nil }
        let name = part[..<equals].filter { !$0.isWhitespace }.lowercased()
        let value = String(part[part.index(after: equals)...].drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        guard name == "sharedaccesskey" else { return nil }
        let body = value.reversed().drop { $0 == "=" }
        let base64 = body.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }
        guard value.count >= 16, base64, body.contains(where: { $0.isNumber || $0 == "+" || $0 == "/" }) else { return nil }
        return value
    }
}
