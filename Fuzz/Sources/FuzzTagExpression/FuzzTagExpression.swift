import FuzzSupport
import Hub

/// libFuzzer's entry point: the input as a tag expression. One that parses must read back from its header value
/// to the same header value, targeting the same devices (what is sent is what was meant).
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
        let tags = Array(Set(expression.tags)).sorted()
        if tags.count <= 8 {
            for subset in 0..<(1 << tags.count) {
                let device = Set(tags.indices.filter { subset & (1 << $0) != 0 }.map { tags[$0] })
                require(reread.matches(device) == expression.matches(device),
                             "\(text.debugDescription) and its header value \(header) differ for a device tagged \(device.sorted())")
            }
        }
    } catch {
        fatalError("the header value \(header) of \(text.debugDescription) does not parse: \(error)")
    }
    for tag in expression.tags { require(TagExpression.validateTag(tag) == nil, "invalid tag \(tag) in \(header)") }
    return 0
}
