/// Small writers for the machine-read outputs (feeds, sitemaps, JSON-LD). They exist so that every byte of
/// escaping is decided in one place and tested: no output builds XML or JSON by string concatenation.

/// Writes an XML 1.0 document, one element per line, indented by two spaces per level.
///
/// Text and attribute values are escaped; characters XML 1.0 forbids (C0 controls other than tab, line
/// feed and carriage return, U+FFFE, U+FFFF) are dropped, because no escape can represent them.
public struct XMLWriter: Sendable {
    /// The document so far, as UTF-8: feeds carry whole story bodies, and text escaped straight into one buffer is
    /// not copied again through temporary strings.
    private var bytes: [UInt8]
    private var open: [String] = []
    private let baseDepth: Int

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Starts a document with the `<?xml version="1.0" encoding="UTF-8"?>` declaration.
    public init() {
        bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8)
        baseDepth = 0
    }

    /// Starts a fragment (no declaration) indented as if inside `depth` open elements: a piece of a
    /// larger document that is assembled later (sitemap entries, golden files).
    public init(fragmentAtDepth depth: Int) {
        bytes = []
        baseDepth = max(0, depth)
    }

    private mutating func indent() {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * (open.count + baseDepth)))
    }

    private mutating func literal(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func startTag(_ name: String, _ attributes: [(String, String)]) {
        indent()
        bytes.append(UInt8(ascii: "<"))
        literal(name)
        for (key, value) in attributes {
            bytes.append(UInt8(ascii: " "))
            literal(key)
            literal("=\"")
            Self.appendEscaped(value, quote: true, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// Opens an element that will have children; close it with `close()`.
    public mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        startTag(name, attributes)
        literal(">\n")
        open.append(name)
    }

    /// Closes the innermost open element.
    public mutating func close() {
        guard let name = open.popLast() else { return }
        indent()
        literal("</")
        literal(name)
        literal(">\n")
    }

    /// An element holding only text (`<title>…</title>`), or an empty element when `text` is nil.
    public mutating func element(_ name: String, _ attributes: [(String, String)] = [], text value: String? = nil) {
        startTag(name, attributes)
        if let value {
            bytes.append(UInt8(ascii: ">"))
            Self.appendEscaped(value, quote: false, to: &bytes)
            literal("</")
            literal(name)
            literal(">\n")
        } else {
            literal("/>\n")
        }
    }

    /// An element whose text readers take as HTML (RSS `title` and `description`): the text is escaped as HTML,
    /// then as XML, so that a reader shows the characters as written (`AT&T`, `<img …>`) and never runs them as
    /// markup.
    public mutating func element(_ name: String, _ attributes: [(String, String)] = [], htmlText value: String) {
        element(name, attributes, text: escapeHTML(value))
    }

    /// The finished document (every open element closed).
    public mutating func finish() -> String {
        String(decoding: finishBytes(), as: UTF8.self)
    }

    /// The same as UTF-8 bytes.
    public mutating func finishBytes() -> [UInt8] {
        while !open.isEmpty { close() }
        return bytes
    }

    /// Escapes character data: `&`, `<` and `>` (the last so that `]]>` can never appear).
    public static func escapeText(_ value: String) -> String {
        escape(value, quote: false)
    }

    /// Escapes an attribute value in double quotes; tab, line feed and carriage return become character
    /// references so that attribute-value normalisation does not turn them into spaces.
    public static func escapeAttribute(_ value: String) -> String {
        escape(value, quote: true)
    }

    /// One pass over the UTF-8 bytes. Text with nothing to escape (the common case for titles) is returned
    /// as it is; otherwise unchanged runs are copied whole and only the bytes that need it are replaced.
    /// Everything that needs attention is ASCII, apart from U+FFFE and U+FFFF (EF BF BE, EF BF BF), which
    /// are dropped; a lead byte 0xEF never occurs inside another character's encoding.
    private static func escape(_ value: String, quote: Bool) -> String {
        var out: [UInt8] = []
        return appendEscaped(value, quote: quote, to: &out, onlyIfChanged: true) ? String(decoding: out, as: UTF8.self) : value
    }

    /// Bytes that are copied as they are in text and in attributes: every byte but `&`, `<`, `>`, `"`, C0 controls
    /// and 0xEF (the lead byte of U+FFFE and U+FFFF, checked by the full switch).
    private static let plain: [Bool] = (0...255).map { byte in
        !(byte < 0x20 || byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0xEF)
    }

    /// Appends `value`, escaped (see `escape`), to `out`.
    static func appendEscaped(_ value: String, quote: Bool, to out: inout [UInt8]) {
        _ = appendEscaped(value, quote: quote, to: &out, onlyIfChanged: false)
    }

    /// With `onlyIfChanged`, nothing is appended when nothing needs escaping (and false is returned).
    private static func appendEscaped(_ value: String, quote: Bool, to out: inout [UInt8], onlyIfChanged: Bool) -> Bool {
        var value = value   // withUTF8 needs a variable; a native string is not copied
        return value.withUTF8 { bytes -> Bool in
            let start = out.count
            var copied = 0   // bytes[..<copied] are already in `out`
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                // Most bytes need nothing: one table lookup decides (the switch below costs a dozen compares).
                if Self.plain[Int(byte)] { index += 1; continue }
                let replacement: StaticString?
                var width = 1
                switch byte {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\""): replacement = quote ? "&quot;" : nil
                case 0x09: replacement = quote ? "&#9;" : nil
                case 0x0A: replacement = quote ? "&#10;" : nil
                case 0x0D: replacement = quote ? "&#13;" : nil
                case 0..<0x20: replacement = ""   // not an XML character
                case 0xEF where index + 2 < count && bytes[index + 1] == 0xBF && bytes[index + 2] >= 0xBE:
                    replacement = ""; width = 3   // U+FFFE, U+FFFF
                default: replacement = nil
                }
                if let replacement {
                    if out.count == start { out.reserveCapacity(start + count + count / 8 + 16) }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<index]))
                    out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start,
                                                               count: replacement.utf8CodeUnitCount))
                    copied = index + width
                }
                index += width
            }
            if copied == 0 && onlyIfChanged { return false }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
            return true
        }
    }
}

/// A JSON value whose object members keep the order they were written in, so output is deterministic
/// and reads in a sensible order (`@context` and `@type` first).
public indirect enum JSONValue: Sendable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])
}

/// Serialises `JSONValue`s: the one JSON writer (site files, request bodies, `--json` output, the ledger).
public enum JSONWriter {
    /// What is escaped in strings.
    public enum Mode: Sendable {
        /// Also U+2028, U+2029 and DEL, which JavaScript reading the file would trip over (feeds).
        case standard
        /// As `standard`, and `<`, `>` and `&` are written as `\u003c`, `\u003e` and `\u0026`, so that JSON placed
        /// inside an HTML `<script>` element can contain neither `</script>` nor `<!--`.
        case htmlScript
        /// Only what JSON requires: `"`, `\\` and C0 controls. Request bodies, `--json` output and the ledger have
        /// always been written so; a body's bytes must not change, because the ledger keeps their SHA-256.
        case minimal
    }

    public enum Layout: Sendable {
        /// Two-space indentation, `"key": value`, a final line feed (the site's files).
        case indented
        /// No whitespace (request bodies).
        case compact
        /// Two-space indentation, `"key" : value`, a blank line inside an empty array or object, no final line
        /// feed: the layout `--json` output and the ledger file have always had, kept for the scripts and the
        /// ledgers that read them.
        case spaced
    }

    public static func write(_ value: JSONValue, mode: Mode = .standard, layout: Layout = .indented,
                             sortedKeys: Bool = false) -> String {
        String(decoding: bytes(value, mode: mode, layout: layout, sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// The same as UTF-8 bytes. With `sortedKeys`, object members are written in the byte order of their keys
    /// (the order does not then depend on how the value was built).
    public static func bytes(_ value: JSONValue, mode: Mode = .standard, layout: Layout = .indented,
                             sortedKeys: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        let writer = Writer(mode: mode, layout: layout, sortedKeys: sortedKeys)
        writer.write(value, depth: 0, into: &out)
        if layout == .indented { out.append(UInt8(ascii: "\n")) }
        return out
    }

    private struct Writer {
        let mode: Mode
        let layout: Layout
        let sortedKeys: Bool

        func write(_ value: JSONValue, depth: Int, into out: inout [UInt8]) {
            switch value {
            case .string(let text): JSONWriter.quote(text, mode: mode, into: &out)
            case .integer(let number): out.append(contentsOf: String(number).utf8)
            case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .null: out.append(contentsOf: "null".utf8)
            case .array(let items):
                container("[", "]", items, depth: depth, into: &out) { item, out in write(item, depth: depth + 1, into: &out) }
            case .object(let members):
                let ordered = sortedKeys ? members.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) } : members
                container("{", "}", ordered, depth: depth, into: &out) { member, out in
                    JSONWriter.quote(member.0, mode: mode, into: &out)
                    out.append(contentsOf: (layout == .compact ? ":" : layout == .spaced ? " : " : ": ").utf8)
                    write(member.1, depth: depth + 1, into: &out)
                }
            }
        }

        private func container<Element>(_ open: Unicode.Scalar, _ close: Unicode.Scalar, _ elements: [Element], depth: Int,
                                        into out: inout [UInt8], _ writeElement: (Element, inout [UInt8]) -> Void) {
            out.append(UInt8(ascii: open))
            if layout == .compact {
                for (index, element) in elements.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    writeElement(element, &out)
                }
            } else if elements.isEmpty {
                if layout == .spaced {
                    out.append(contentsOf: "\n\n".utf8)
                    JSONWriter.indent(depth, into: &out)
                }
            } else {
                out.append(UInt8(ascii: "\n"))
                for (index, element) in elements.enumerated() {
                    JSONWriter.indent(depth + 1, into: &out)
                    writeElement(element, &out)
                    out.append(contentsOf: (index == elements.count - 1 ? "\n" : ",\n").utf8)
                }
                JSONWriter.indent(depth, into: &out)
            }
            out.append(UInt8(ascii: close))
        }
    }

    fileprivate static func indent(_ depth: Int, into out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// A JSON string literal. Control characters, U+2028 and U+2029 (line terminators in JavaScript) are
    /// escaped; everything else is written as UTF-8.
    public static func quote(_ text: String, mode: Mode = .standard) -> String {
        var out: [UInt8] = []
        quote(text, mode: mode, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes copied as they are in every mode: all but `"`, `\\`, `<`, `>`, `&`, C0 controls, DEL and 0xE2 (the lead
    /// byte of U+2028 and U+2029, checked by the full switch).
    private static let plain: [Bool] = (0...255).map { byte in
        !(byte < 0x20 || byte == 0x7F || byte == 0x22 || byte == 0x5C || byte == 0x3C || byte == 0x3E || byte == 0x26
          || byte == 0xE2)
    }

    /// Appends the literal in one pass over the UTF-8 bytes, copying unchanged runs whole. Everything that
    /// needs an escape is ASCII apart from U+2028 and U+2029 (E2 80 A8, E2 80 A9).
    fileprivate static func quote(_ text: String, mode: Mode, into out: inout [UInt8]) {
        var text = text   // withUTF8 needs a variable; a native string is not copied
        out.append(UInt8(ascii: "\""))
        text.withUTF8 { bytes in
            let count = bytes.count
            var copied = 0
            var index = 0
            while index < count {
                let byte = bytes[index]
                // Most bytes need nothing: one table lookup decides before the switch.
                if Self.plain[Int(byte)] { index += 1; continue }
                var width = 1
                let escape: StaticString?
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case 0x0A: escape = "\\n"
                case 0x0D: escape = "\\r"
                case 0x09: escape = "\\t"
                case 0x08: escape = "\\b"
                case 0x0C: escape = "\\f"
                case UInt8(ascii: "<") where mode == .htmlScript: escape = "\\u003c"
                case UInt8(ascii: ">") where mode == .htmlScript: escape = "\\u003e"
                case UInt8(ascii: "&") where mode == .htmlScript: escape = "\\u0026"
                case 0x7F where mode == .minimal: index += 1; continue
                case 0..<0x20, 0x7F: escape = nil
                case 0xE2 where mode != .minimal && index + 2 < count && bytes[index + 1] == 0x80
                    && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    escape = bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"; width = 3
                default: index += 1; continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<index]))
                if let escape {
                    out.append(contentsOf: UnsafeBufferPointer(start: escape.utf8Start, count: escape.utf8CodeUnitCount))
                } else {   // other control characters and DEL: \u00XX
                    let digits: StaticString = "0123456789abcdef"
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(digits.utf8Start[Int(byte >> 4)])
                    out.append(digits.utf8Start[Int(byte & 0xF)])
                }
                index += width
                copied = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
