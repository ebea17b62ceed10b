import FuzzSupport
import Hub

/// libFuzzer's entry point: the input as a tag expression. One that parses must read back from its header value
/// to the same header value and the same tags (what is sent is what was meant).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTagExpression(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let expression: TagExpression
    do {
        expression = try TagExpression(parsing: text)
    } catch {
        if let column = error.column { require(column >= 1, "error before the text: \(error)") }
        return 0
    }
    let header = expression.headerValue
    do {
        let reread = try TagExpression(parsing: header)
        require(reread.headerValue == header, "\(text.debugDescription) → \(header) → \(reread.headerValue)")
        require(Set(reread.tags) == Set(expression.tags), "\(text.debugDescription) and its header value \(header) name other tags")
    } catch {
        fatalError("the header value \(header) of \(text.debugDescription) does not parse: \(error)")
    }
    for tag in expression.tags { require(TagExpression.validateTag(tag) == nil, "invalid tag \(tag) in \(header)") }
    return 0
}
