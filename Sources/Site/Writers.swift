/// Small writers for the machine-read outputs (feeds, sitemaps, JSON-LD). They exist so that every byte of
/// escaping is decided in one place and tested: no output builds XML or JSON by string concatenation.

/// Writes an XML 1.0 document, one element per line, indented by two spaces per level.
///
/// Text and attribute values are escaped; characters XML 1.0 forbids (C0 controls other than tab, line
/// feed and carriage return, U+FFFE, U+FFFF) are dropped, because no escape can represent them.
public struct XMLWriter: Sendable {
    public private(set) var text: String
    private var open: [String] = []
    private let baseDepth: Int

    /// Starts a document with the `<?xml version="1.0" encoding="UTF-8"?>` declaration.
    public init() {
        text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        baseDepth = 0
    }

    /// Starts a fragment (no declaration) indented as if inside `depth` open elements: a piece of a
    /// larger document that is assembled later (sitemap entries, golden files).
    public init(fragmentAtDepth depth: Int) {
        text = ""
        baseDepth = max(0, depth)
    }

    private var indent: String { String(repeating: "  ", count: open.count + baseDepth) }

    /// Opens an element that will have children; close it with `close()`.
    public mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        text += indent + "<" + name + Self.attributes(attributes) + ">\n"
        open.append(name)
    }

    /// Closes the innermost open element.
    public mutating func close() {
        guard let name = open.popLast() else { return }
        text += indent + "</" + name + ">\n"
    }

    /// An element holding only text (`<title>…</title>`), or an empty element when `text` is nil.
    public mutating func element(_ name: String, _ attributes: [(String, String)] = [], text value: String? = nil) {
        if let value {
            text += indent + "<" + name + Self.attributes(attributes) + ">" + Self.escapeText(value) + "</" + name + ">\n"
        } else {
            text += indent + "<" + name + Self.attributes(attributes) + "/>\n"
        }
    }

    /// The finished document (every open element closed).
    public mutating func finish() -> String {
        while !open.isEmpty { close() }
        return text
    }

    static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " " + $0.0 + "=\"" + escapeAttribute($0.1) + "\"" }.joined()
    }

    /// Escapes character data: `&`, `<` and `>` (the last so that `]]>` can never appear).
    public static func escapeText(_ value: String) -> String {
        if !needsEscaping(value, quote: false) { return value }
        var out = ""
        out.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: if isAllowed(scalar) { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// Escapes an attribute value in double quotes; tab, line feed and carriage return become character
    /// references so that attribute-value normalisation does not turn them into spaces.
    public static func escapeAttribute(_ value: String) -> String {
        if !needsEscaping(value, quote: true) { return value }
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default: if isAllowed(scalar) { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// A quick scan of the UTF-8 bytes: false when the text can be written as it is (the common case).
    /// Lead byte 0xEF (U+F000…U+FFFF, which holds U+FFFE and U+FFFF) sends the text to the careful path.
    private static func needsEscaping(_ value: String, quote: Bool) -> Bool {
        var text = value   // withUTF8 needs a variable; a native string is not copied
        return text.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0xEF: return true
                case UInt8(ascii: "\""), 0x09, 0x0A, 0x0D: if quote { return true }
                case 0..<0x20: return true
                default: continue
                }
            }
            return false
        }
    }

    /// XML 1.0 `Char`: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
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

/// Serialises `JSONValue`s: two-space indentation, members in their given order, a final line feed.
public enum JSONWriter {
    public enum Mode: Sendable {
        /// Plain JSON (feeds).
        case standard
        /// JSON to be placed inside an HTML `<script>` element: `<`, `>` and `&` are written as `\u003c`,
        /// `\u003e` and `\u0026`, so neither `</script>` nor `<!--` can occur in the element's text.
        case htmlScript
    }

    public static func write(_ value: JSONValue, mode: Mode = .standard) -> String {
        var out = ""
        write(value, mode: mode, depth: 0, into: &out)
        return out + "\n"
    }

    private static func write(_ value: JSONValue, mode: Mode, depth: Int, into out: inout String) {
        switch value {
        case .string(let text): out += quote(text, mode: mode)
        case .integer(let number): out += String(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += String(repeating: "  ", count: depth + 1)
                write(item, mode: mode, depth: depth + 1, into: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: depth) + "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{\n"
            for (index, (key, item)) in members.enumerated() {
                out += String(repeating: "  ", count: depth + 1) + quote(key, mode: mode) + ": "
                write(item, mode: mode, depth: depth + 1, into: &out)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: depth) + "}"
        }
    }

    /// A JSON string literal. Control characters, U+2028 and U+2029 (line terminators in JavaScript) are
    /// escaped; everything else is written as UTF-8.
    public static func quote(_ text: String, mode: Mode = .standard) -> String {
        if !needsEscaping(text, mode: mode) { return "\"" + text + "\"" }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "<" where mode == .htmlScript: out += "\\u003c"
            case ">" where mode == .htmlScript: out += "\\u003e"
            case "&" where mode == .htmlScript: out += "\\u0026"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0x7F {
                    out += "\\u" + hex4(scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A quick scan of the UTF-8 bytes: false when the text can be quoted as it is (the common case).
    private static func needsEscaping(_ text: String, mode: Mode) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x7F, 0..<0x20: return true
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"): if mode == .htmlScript { return true }
            case 0xA8, 0xA9: if previous == (0xE2, 0x80) { return true }   // U+2028, U+2029
            default: break
            }
            previous = (previous.1, byte)
        }
        return false
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
