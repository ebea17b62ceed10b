// The hub's device-side template language for JSON templates (test vectors in DeviceTemplateTests).
//
// A device registers a JSON template such as {"aps":{"alert":"$(News_French)"}}; for each template send the hub
// substitutes the notification's string properties into it. Only JSON string values whose FIRST character is one
// of `$ . % # {` are expressions; every other string is a literal and stays as it is:
//
//     $(p)          the property's value (names are [A-Za-z0-9_]+, matched case-insensitively; missing → "")
//     $(p, n)       its first n characters
//     .(p, n)       clipped to n characters with "..." when longer (total ≤ n); unchanged when not longer
//     %(p)          percent-encoded UTF-8 (RFC 3986 unreserved characters kept, uppercase hex)
//     #(p)          a JSON number when the value looks like one, else a string (not allowed inside {…})
//     {a + 'b' + c} concatenation of expressions and '…' / "…" literals (a doubled quote escapes itself)
//
// The JSON reader and writer here keep key order and write compact, deterministic text.

import Site

/// A template the hub would reject, with where in the template it is.
public struct DeviceTemplateError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// JSON path of the offending value, e.g. `aps.alert` or `items[2]`; nil for the whole document.
    public var path: String?
    /// Where in the template's text (1-based, columns in characters): the place a JSON error was found, or the
    /// start of the string an invalid expression is in.
    public var line: Int?
    public var column: Int?

    public init(message: String, path: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.path = path
        self.line = line
        self.column = column
    }

    /// The path and the message; the position is in `line` and `column`.
    public var description: String {
        if let path, !path.isEmpty { return "\(path): \(message)" }
        return message
    }
}

/// A validated device template, ready to render many times.
public struct DeviceTemplate: Sendable {
    /// Most characters in a property name.
    public static let maximumPropertyNameLength = 120
    /// Deepest nesting of objects and arrays accepted.
    public static let maximumDepth = 128

    private let root: Node

    /// The property names the template uses, in order of first use (duplicates differing only in case dropped).
    public private(set) var referencedProperties: [String]

    /// Parses and validates a JSON template. The document must be a JSON object.
    public init(json: String) throws(DeviceTemplateError) {
        var reader = JSONReader(text: json)
        let document = try reader.readDocument()
        guard case .object = document else {
            let start = reader.position(reader.documentStart)
            throw DeviceTemplateError(message: "a device template must be a JSON object ({…})", line: start.line, column: start.column)
        }
        var names: [String] = []
        var seen: Set<String> = []
        do {
            root = try Self.compile(document, path: "") { name in
                if seen.insert(name.hubASCIILowercased).inserted { names.append(name) }
            }
        } catch {
            var located = error
            if let path = error.path, let offset = reader.stringStarts[path] {
                (located.line, located.column) = reader.position(offset)
            }
            throw located
        }
        referencedProperties = names
    }

    /// Renders the template with the notification's properties; returns compact JSON text.
    public func render(_ properties: [String: String]) -> String {
        let lookup = PropertyLookup(properties)
        var output = ""
        Self.write(root, lookup: lookup, to: &output)
        return output
    }

    // MARK: - Compiled form

    private indirect enum Node: Sendable {
        case object([Member])
        case array([Node])
        case literal(String)
        case number(String)
        case bool(Bool)
        case null
        case expression(DeviceTemplateExpression)
    }

    private struct Member: Sendable {
        var key: String
        var value: Node
    }

    private static func compile(
        _ value: JSONValue, path: String, noteProperty: (String) -> Void
    ) throws(DeviceTemplateError) -> Node {
        switch value {
        case .object(let members):
            var compiled: [Member] = []
            compiled.reserveCapacity(members.count)
            for member in members {
                let childPath = path.isEmpty ? member.key : path + "." + member.key
                compiled.append(
                    Member(
                        key: member.key,
                        value: try compile(member.value, path: childPath, noteProperty: noteProperty)))
            }
            return .object(compiled)
        case .array(let elements):
            var compiled: [Node] = []
            compiled.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                compiled.append(try compile(element, path: "\(path)[\(index)]", noteProperty: noteProperty))
            }
            return .array(compiled)
        case .string(let text):
            guard let first = text.unicodeScalars.first, "$.%#{".unicodeScalars.contains(first) else {
                return .literal(text)
            }
            var parser = ExpressionParser(text: text)
            do throws(ExpressionParser.Failure) {
                let expression = try parser.parse()
                for name in expression.propertyNames { noteProperty(name) }
                return .expression(expression)
            } catch {
                throw DeviceTemplateError(
                    message: "invalid expression \(quotedForMessage(text)): \(error.message)", path: path)
            }
        case .number(let raw): return .number(raw)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        }
    }

    private static func write(_ node: Node, lookup: PropertyLookup, to output: inout String) {
        switch node {
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                DeviceTemplate.writeString(member.key, to: &output)
                output += ":"
                write(member.value, lookup: lookup, to: &output)
            }
            output += "}"
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                write(element, lookup: lookup, to: &output)
            }
            output += "]"
        case .literal(let text): DeviceTemplate.writeString(text, to: &output)
        case .number(let raw): output += raw
        case .bool(let flag): output += flag ? "true" : "false"
        case .null: output += "null"
        case .expression(.numeric(let name)):
            let value = lookup.value(name)
            if looksLikeHubNumber(value) {
                output += value
            } else {
                DeviceTemplate.writeString(value, to: &output)
            }
        case .expression(.text(let parts)):
            var text = ""
            for part in parts { text += evaluate(part, lookup: lookup) }
            DeviceTemplate.writeString(text, to: &output)
        }
    }

    private static func evaluate(_ part: DeviceTemplateExpression.Part, lookup: PropertyLookup) -> String {
        switch part {
        case .literal(let text):
            return text
        case .property(let name, let limit):
            let value = lookup.value(name)
            guard let limit else { return value }
            return String(value.prefix(limit))
        case .clipped(let name, let limit):
            let value = lookup.value(name)
            guard value.count > limit else { return value }
            // Keep the total within the limit; below 3 there is room for dots only.
            if limit < 3 { return String(repeating: ".", count: limit) }
            return String(value.prefix(limit - 3)) + "..."
        case .percentEncoded(let name):
            return AccessSignature.percentEncode(lookup.value(name), uppercaseHex: true)
        }
    }

    /// The hub's number pattern `(0|([1-9][0-9]*))(\.[0-9]+)?((e|E)(\+|-)?[0-9]+)?`, matched in full: a JSON
    /// number without a minus sign.
    static func looksLikeHubNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first != UInt8(ascii: "-") else { return false }
        let scan = scanNumber(bytes, from: 0)
        return scan.problem == nil && scan.end == bytes.count
    }

    /// Scans a JSON number (RFC 8259) starting at `start`: where it ends, or what is missing.
    fileprivate static func scanNumber(_ bytes: [UInt8], from start: Int) -> (end: Int, problem: String?) {
        var index = start
        func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return (index, "a number needs digits after \"-\"")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { return (index, "a number needs digits after \".\"") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            if digits() == 0 { return (index, "a number needs digits in its exponent") }
        }
        return (index, nil)
    }

    private static func quotedForMessage(_ text: String) -> String {
        var shown = ""
        DeviceTemplate.writeString(text.count > 80 ? String(text.prefix(77)) + "..." : text, to: &shown)
        return shown
    }
}

// Helpers, nested in DeviceTemplate so their names cannot clash with other files of the module.
extension DeviceTemplate {
    // MARK: - Property lookup

    /// Case-insensitive property lookup: an exact match wins, otherwise the first (in sorted order) of the names
    /// equal ignoring ASCII case, so the result never depends on dictionary order.
    fileprivate struct PropertyLookup {
        let exact: [String: String]

        init(_ properties: [String: String]) {
            exact = properties
        }

        func value(_ name: String) -> String {
            if let value = exact[name] { return value }
            // Templates nearly always spell names as the body does, so the names are only folded on a miss:
            // `check` renders every breaking story for every device, and folding every name each time would
            // make that the bulk of its work.
            let folded = name.hubASCIILowercased
            return exact.keys.filter { $0.hubASCIILowercased == folded }.min().flatMap { exact[$0] } ?? ""
        }
    }

    // MARK: - Expression parser

    fileprivate struct ExpressionParser {
        struct Failure: Error {
            var message: String
        }

        let scalars: [Unicode.Scalar]
        var index = 0

        init(text: String) {
            scalars = Array(text.unicodeScalars)
        }

        mutating func parse() throws(Failure) -> DeviceTemplateExpression {
            let result: DeviceTemplateExpression
            if peek == "{" {
                index += 1
                result = try parseComposite()
            } else {
                let token = try parseToken(inComposite: false)
                result = token
            }
            skipSpaces()
            if index < scalars.count {
                let isComposite = scalars.first == "{"
                throw Failure(
                    message: "unexpected text after "
                        + (isComposite ? "the closing \"}\"" : "the expression")
                        + " at character \(index + 1); to mix text with properties write {'text ' + $(property)}")
            }
            return result
        }

        private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
        }

        private mutating func skipSpaces() {
            while let scalar = peek, Self.isSpace(scalar) { index += 1 }
        }

        private mutating func parseComposite() throws(Failure) -> DeviceTemplateExpression {
            var parts: [DeviceTemplateExpression.Part] = []
            skipSpaces()
            if peek == "}" {
                throw Failure(message: "\"{}\" is empty; put expressions and 'literals' joined by + inside")
            }
            while true {
                skipSpaces()
                guard let scalar = peek else {
                    throw Failure(message: "the expression ends before its closing \"}\"")
                }
                if scalar == "'" || scalar == "\"" {
                    parts.append(.literal(try parseLiteral(quote: scalar)))
                } else {
                    guard case .text(let tokenParts) = try parseToken(inComposite: true) else {
                        throw Failure(message: "internal error: unexpected token kind")
                    }
                    parts.append(contentsOf: tokenParts)
                }
                skipSpaces()
                guard let next = peek else {
                    throw Failure(message: "the expression ends before its closing \"}\"")
                }
                if next == "}" {
                    index += 1
                    return .text(parts)
                }
                guard next == "+" else {
                    throw Failure(
                        message: "expected \"+\" or \"}\" at character \(index + 1) but found \"\(Character(next))\"")
                }
                index += 1
            }
        }

        private mutating func parseLiteral(quote: Unicode.Scalar) throws(Failure) -> String {
            let start = index
            index += 1
            var text = String.UnicodeScalarView()
            while let scalar = peek {
                index += 1
                if scalar == quote {
                    if peek == quote {
                        text.append(quote)
                        index += 1
                        continue
                    }
                    return String(text)
                }
                text.append(scalar)
            }
            throw Failure(
                message: "the literal starting at character \(start + 1) has no closing \(Character(quote)) "
                    + "(write a doubled \(Character(quote))\(Character(quote)) for a quote inside it)")
        }

        /// One of `$(p)`, `$(p, n)`, `.(p, n)`, `%(p)`, `#(p)`.
        private mutating func parseToken(inComposite: Bool) throws(Failure) -> DeviceTemplateExpression {
            let start = index
            guard let kind = peek else { throw Failure(message: "an expression is missing") }
            guard kind == "$" || kind == "." || kind == "%" || kind == "#" else {
                let hint = inComposite ? "; put text in quotes: 'text'" : ""
                throw Failure(
                    message: "expected $( .( %( or #( at character \(index + 1) but found \"\(Character(kind))\"\(hint)"
                )
            }
            index += 1
            guard peek == "(" else {
                if kind == "$", scalars[index...].starts(with: "body".unicodeScalars) {
                    throw Failure(message: "the expression type $body is not supported")
                }
                throw Failure(
                    message: "expected \"(\" after \"\(Character(kind))\" at character \(index + 1); "
                        + "a string starting with \(Character(kind)) is a template expression such as "
                        + "\(Character(kind))(property) — to send text that starts with it, write {'…'}")
            }
            index += 1
            skipSpaces()
            let name = try parseName()
            skipSpaces()
            var limit: Int?
            if peek == "," {
                index += 1
                skipSpaces()
                limit = try parseCount()
                skipSpaces()
            }
            guard peek == ")" else {
                if let scalar = peek {
                    throw Failure(
                        message: "expected \")\" at character \(index + 1) but found \"\(Character(scalar))\"")
                }
                throw Failure(message: "the expression ends before its closing \")\"")
            }
            index += 1
            let spelled = "\(Character(kind))(\(name)\(limit.map { ", \($0)" } ?? ""))"
            switch kind {
            case "$":
                return .text([.property(name, limit: limit)])
            case ".":
                guard let limit else {
                    throw Failure(message: ".(\(name)) needs a length: .(\(name), n)")
                }
                return .text([.clipped(name, limit: limit)])
            case "%":
                if limit != nil { throw Failure(message: "\(spelled): %() takes no length") }
                return .text([.percentEncoded(name)])
            default:
                if limit != nil { throw Failure(message: "\(spelled): #() takes no length") }
                if inComposite {
                    throw Failure(
                        message: "#(\(name)) at character \(start + 1) is not allowed inside {…}; "
                            + "use $(\(name)) there, or #(\(name)) alone as the whole value")
                }
                return .numeric(name)
            }
        }

        private mutating func parseName() throws(Failure) -> String {
            let start = index
            var name = String.UnicodeScalarView()
            while let scalar = peek, isNameScalar(scalar) {
                name.append(scalar)
                index += 1
            }
            if name.isEmpty {
                if let scalar = peek {
                    if scalar == ")" {
                        throw Failure(message: "the property name is missing at character \(index + 1)")
                    }
                    throw Failure(
                        message: "\"\(Character(scalar))\" at character \(index + 1) cannot start a property name; "
                            + "use ASCII letters, digits and _")
                }
                throw Failure(message: "the expression ends where a property name should be")
            }
            if let scalar = peek, scalar == ":" {
                throw Failure(message: "default values like $(\(String(name)):{…}) are not supported")
            }
            if let scalar = peek, scalar != ")", scalar != ",", !Self.isSpace(scalar) {
                throw Failure(
                    message: "\"\(Character(scalar))\" at character \(index + 1) is not allowed in a property name; "
                        + "use ASCII letters, digits and _")
            }
            if name.count > DeviceTemplate.maximumPropertyNameLength {
                throw Failure(
                    message: "the property name at character \(start + 1) is \(name.count) characters long; "
                        + "at most \(DeviceTemplate.maximumPropertyNameLength) are allowed")
            }
            return String(name)
        }

        private mutating func parseCount() throws(Failure) -> Int {
            var value = 0
            var digitCount = 0
            while let scalar = peek, scalar.value >= 48, scalar.value <= 57 {
                // Saturate instead of overflowing: no string is that long anyway.
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(scalar.value - 48))
                value = overflow1 || overflow2 ? Int.max : sum
                digitCount += 1
                index += 1
            }
            if digitCount == 0 {
                throw Failure(message: "expected a non-negative whole number of characters at character \(index + 1)")
            }
            return value
        }

        private func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 48...57, 65...90, 97...122, 95: return true
            default: return false
            }
        }
    }

    /// The parsed form of one expression string (kept at file level so the parser can build it).
    fileprivate enum DeviceTemplateExpression: Sendable {
        enum Part: Sendable {
            case property(String, limit: Int?)
            case clipped(String, limit: Int)
            case percentEncoded(String)
            case literal(String)
        }
        case numeric(String)
        case text([Part])

        var propertyNames: [String] {
            switch self {
            case .numeric(let name): return [name]
            case .text(let parts):
                return parts.compactMap { part in
                    switch part {
                    case .property(let name, _), .clipped(let name, _), .percentEncoded(let name): return name
                    case .literal: return nil
                    }
                }
            }
        }
    }

    // MARK: - JSON

    /// An order-preserving JSON value. Numbers keep their original text.
    fileprivate indirect enum JSONValue {
        struct Member {
            var key: String
            var value: JSONValue
        }
        case object([Member])
        case array([JSONValue])
        case string(String)
        case number(String)
        case bool(Bool)
        case null
    }

    /// Writes `text` as a JSON string literal, escaped as request bodies are.
    fileprivate static func writeString(_ text: String, to output: inout String) {
        output += JSONWriter.quote(text, mode: .minimal)
    }

    /// A strict RFC 8259 reader over UTF-8 bytes. Errors carry line:column and the JSON path being read.
    fileprivate struct JSONReader {
        let bytes: [UInt8]
        var index = 0
        var depth = 0
        /// Where the document's first value starts.
        private(set) var documentStart = 0
        /// Where each string value starts (its opening quote), by JSON path: for placing errors found later.
        private(set) var stringStarts: [String: Int] = [:]

        init(text: String) {
            bytes = Array(text.utf8)
        }

        mutating func readDocument() throws(DeviceTemplateError) -> JSONValue {
            skipWhitespace()
            if index >= bytes.count { throw failure("the template is empty; expected a JSON object", path: "") }
            documentStart = index
            let value = try readValue(path: "")
            skipWhitespace()
            if index < bytes.count {
                throw failure("unexpected \(describeCurrent()) after the end of the JSON document", path: "")
            }
            return value
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        func position(_ offset: Int) -> (line: Int, column: Int) {
            var line = 1
            var column = 1
            var position = 0
            while position < offset && position < bytes.count {
                let byte = bytes[position]
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
                position += 1
            }
            return (line, column)
        }

        private func failure(_ message: String, path: String, at offset: Int? = nil) -> DeviceTemplateError {
            let (line, column) = position(offset ?? index)
            return DeviceTemplateError(message: message, path: path, line: line, column: column)
        }

        private func describeCurrent() -> String {
            guard index < bytes.count else { return "end of text" }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return "a string" }
            if byte >= 0x21 && byte < 0x7F { return "\"\(Character(Unicode.Scalar(byte)))\"" }
            if byte < 0x80 { return "character U+" + String(String(byte, radix: 16, uppercase: true)) }
            // Show the whole (non-ASCII) character.
            var end = index + 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            return "\"" + String(decoding: bytes[index..<end], as: UTF8.self) + "\""
        }

        private mutating func readValue(path: String) throws(DeviceTemplateError) -> JSONValue {
            guard index < bytes.count else { throw failure("the JSON ends where a value was expected", path: path) }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try readObject(path: path)
            case UInt8(ascii: "["): return try readArray(path: path)
            case UInt8(ascii: "\""):
                stringStarts[path] = index
                return .string(try readString(path: path))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber(path: path))
            case UInt8(ascii: "t"):
                try expectWord("true", path: path)
                return .bool(true)
            case UInt8(ascii: "f"):
                try expectWord("false", path: path)
                return .bool(false)
            case UInt8(ascii: "n"):
                try expectWord("null", path: path)
                return .null
            default:
                throw failure("expected a JSON value but found \(describeCurrent())", path: path)
            }
        }

        private mutating func expectWord(_ word: String, path: String) throws(DeviceTemplateError) {
            let wordBytes = Array(word.utf8)
            guard bytes[index...].starts(with: wordBytes) else {
                throw failure("expected a JSON value but found \(describeCurrent())", path: path)
            }
            index += wordBytes.count
        }

        private mutating func enter(path: String) throws(DeviceTemplateError) {
            depth += 1
            if depth > DeviceTemplate.maximumDepth {
                throw failure(
                    "objects and arrays are nested more than \(DeviceTemplate.maximumDepth) levels deep", path: path)
            }
        }

        private mutating func readObject(path: String) throws(DeviceTemplateError) -> JSONValue {
            try enter(path: path)
            defer { depth -= 1 }
            index += 1  // {
            var members: [JSONValue.Member] = []
            var keys: Set<String> = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure("expected a member name in double quotes but found \(describeCurrent())", path: path)
                }
                let keyOffset = index
                let key = try readString(path: path)
                let childPath = path.isEmpty ? key : path + "." + key
                if !keys.insert(key).inserted {
                    throw failure("the member name \"\(key)\" appears twice in this object", path: path, at: keyOffset)
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw failure(
                        "expected \":\" after the member name but found \(describeCurrent())", path: childPath)
                }
                index += 1
                skipWhitespace()
                let value = try readValue(path: childPath)
                members.append(JSONValue.Member(key: key, value: value))
                if try !another(closing: "}", in: "an object", after: "a member", path: path, itemPath: childPath) {
                    return .object(members)
                }
            }
        }

        private mutating func readArray(path: String) throws(DeviceTemplateError) -> JSONValue {
            try enter(path: path)
            defer { depth -= 1 }
            index += 1  // [
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                let itemPath = "\(path)[\(elements.count)]"
                elements.append(try readValue(path: itemPath))
                if try !another(closing: "]", in: "an array", after: "an element", path: path, itemPath: itemPath) {
                    return .array(elements)
                }
            }
        }

        /// After a member or an element: true when a "," says another follows, false when `close` ends the
        /// container (both consumed).
        private mutating func another(closing close: Unicode.Scalar, in container: String, after item: String,
                                      path: String, itemPath: String) throws(DeviceTemplateError) -> Bool {
            skipWhitespace()
            guard index < bytes.count else {
                throw failure("the JSON ends inside \(container) (missing \"\(close)\")", path: path)
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                return true
            }
            if bytes[index] == UInt8(ascii: close) {
                index += 1
                return false
            }
            throw failure("expected \",\" or \"\(close)\" after \(item) but found \(describeCurrent())", path: itemPath)
        }

        private mutating func readNumber(path: String) throws(DeviceTemplateError) -> String {
            let start = index
            let scan = DeviceTemplate.scanNumber(bytes, from: start)
            index = scan.end
            if let problem = scan.problem { throw failure(problem, path: path) }
            if index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                throw failure("a JSON number cannot have a leading zero", path: path, at: start)
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private mutating func readHex4(path: String) throws(DeviceTemplateError) -> UInt32 {
            guard index + 4 <= bytes.count else {
                throw failure("\\u needs four hex digits", path: path)
            }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw failure("\\u needs four hex digits", path: path)
                }
                value = value * 16 + digit
                index += 1
            }
            return value
        }

        private mutating func readString(path: String) throws(DeviceTemplateError) -> String {
            index += 1  // opening quote
            var buffer: [UInt8] = []
            while true {
                guard index < bytes.count else {
                    throw failure("the JSON ends inside a string (missing closing \")", path: path)
                }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: buffer, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    let escapeOffset = index
                    index += 1
                    guard index < bytes.count else {
                        throw failure("the JSON ends inside a string (missing closing \")", path: path)
                    }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                    case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                    case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
                    case UInt8(ascii: "b"): buffer.append(0x08)
                    case UInt8(ascii: "f"): buffer.append(0x0C)
                    case UInt8(ascii: "n"): buffer.append(0x0A)
                    case UInt8(ascii: "r"): buffer.append(0x0D)
                    case UInt8(ascii: "t"): buffer.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try readHex4(path: path)
                        if code >= 0xD800 && code <= 0xDBFF {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                                bytes[index + 1] == UInt8(ascii: "u")
                            else {
                                throw failure("\\u escape of a lone high surrogate", path: path, at: escapeOffset)
                            }
                            index += 2
                            let low = try readHex4(path: path)
                            guard low >= 0xDC00 && low <= 0xDFFF else {
                                throw failure("\\u escape of a lone high surrogate", path: path, at: escapeOffset)
                            }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if code >= 0xDC00 && code <= 0xDFFF {
                            throw failure("\\u escape of a lone low surrogate", path: path, at: escapeOffset)
                        }
                        guard let scalar = Unicode.Scalar(code) else {
                            throw failure("invalid \\u escape", path: path, at: escapeOffset)
                        }
                        buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        throw failure(
                            "invalid escape \"\\\(Character(Unicode.Scalar(escaped)))\" in a string", path: path,
                            at: escapeOffset)
                    }
                default:
                    if byte < 0x20 {
                        throw failure(
                            "a control character (U+00\(byte < 0x10 ? "0" : "")\(String(byte, radix: 16, uppercase: true))) "
                                + "must be escaped inside a string (e.g. \\n)",
                            path: path)
                    }
                    buffer.append(byte)
                    index += 1
                }
            }
        }
    }
}

extension DeviceTemplate {
    /// One templated text outside a JSON document, such as a header value of an installation template
    /// (`"apns-expiration": "$(apnsExpiration)"`): the same rules as a JSON string value, an expression only when
    /// it starts with `$ . % # {`.
    public struct Text: Sendable {
        private let node: Node

        public init(_ text: String, path: String) throws(DeviceTemplateError) {
            node = try DeviceTemplate.compile(.string(text), path: path) { _ in }
        }

        public func render(_ properties: [String: String]) -> String {
            let lookup = PropertyLookup(properties)
            switch node {
            case .literal(let text): return text
            case .expression(.numeric(let name)): return lookup.value(name)
            case .expression(.text(let parts)): return parts.map { DeviceTemplate.evaluate($0, lookup: lookup) }.joined()
            case .object, .array, .number, .bool, .null: return ""
            }
        }
    }
}
