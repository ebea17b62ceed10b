/// One configured language. Every spelling of the language that any output needs is derived here, from
/// the one row of the config's language table, so no template or writer types a language code by hand.
public struct Language: Sendable, Hashable {
    public enum Direction: String, Sendable { case ltr, rtl }

    /// BCP 47 tag as configured (`zh-Hans`): `<html lang>`, `hreflang`, feed language, JSON-LD `inLanguage`.
    public var code: String
    /// The config's name (`Mandarin`): used to name the hub property `News_Mandarin`.
    public var name: String
    /// The language's name in itself (`简体中文`), shown in the language switcher.
    public var label: String
    /// URL path segment (`zh-hans`).
    public var pathSegment: String
    public var direction: Direction
    /// Open Graph locale (`zh_CN`).
    public var ogLocale: String
    /// Google News `news:language` (`zh-cn`).
    public var newsLanguage: String

    public init(code: String, name: String, label: String? = nil, pathSegment: String? = nil,
                direction: Direction? = nil, ogLocale: String? = nil, newsLanguage: String? = nil) {
        self.code = code
        self.name = name
        let key = code.lowercased()
        self.label = label ?? Self.nativeNames[key] ?? Self.nativeNames[Self.primary(key)] ?? name
        self.pathSegment = pathSegment ?? key
        self.direction = direction ?? (Self.isRightToLeft(key) ? .rtl : .ltr)
        self.ogLocale = ogLocale ?? Self.ogLocales[key] ?? Self.ogLocales[Self.primary(key)] ?? Self.defaultOGLocale(code)
        self.newsLanguage = newsLanguage ?? Self.newsLanguages[key] ?? Self.primary(key)
    }

    private static func primary(_ key: String) -> String {
        String(key.split(separator: "-", maxSplits: 1).first ?? Substring(key))
    }

    private static func isRightToLeft(_ key: String) -> Bool {
        let subtags = key.split(separator: "-").map(String.init)
        if subtags.contains(where: { ["arab", "hebr", "thaa", "syrc", "nkoo", "adlm", "rohg"].contains($0) }) { return true }
        if subtags.contains(where: { ["latn", "cyrl"].contains($0) }) { return false }
        return ["ar", "he", "fa", "ur", "ps", "yi", "dv", "ckb", "sd", "ug", "syr", "ku-arab"].contains(subtags.first ?? "")
    }

    private static func defaultOGLocale(_ code: String) -> String {
        let parts = code.split(separator: "-")
        guard let first = parts.first else { return code }
        if let region = parts.dropFirst().first(where: { $0.count == 2 }) {
            return "\(first.lowercased())_\(region.uppercased())"
        }
        return first.lowercased()
    }

    private static let nativeNames: [String: String] = [
        "en": "English", "fr": "Français", "de": "Deutsch", "es": "Español", "it": "Italiano",
        "pt": "Português", "nl": "Nederlands", "ru": "Русский", "uk": "Українська", "pl": "Polski",
        "zh-hans": "简体中文", "zh-hant": "繁體中文", "zh": "中文", "ja": "日本語", "ko": "한국어",
        "ar": "العربية", "he": "עברית", "fa": "فارسی", "ur": "اردو", "tr": "Türkçe", "hi": "हिन्दी",
    ]
    private static let ogLocales: [String: String] = [
        "en": "en_US", "fr": "fr_FR", "de": "de_DE", "es": "es_ES", "it": "it_IT", "pt": "pt_PT",
        "nl": "nl_NL", "ru": "ru_RU", "uk": "uk_UA", "pl": "pl_PL", "zh-hans": "zh_CN", "zh-hant": "zh_TW",
        "zh": "zh_CN", "ja": "ja_JP", "ko": "ko_KR", "ar": "ar_AR", "he": "he_IL", "fa": "fa_IR",
        "tr": "tr_TR", "hi": "hi_IN",
    ]
    private static let newsLanguages: [String: String] = [
        "zh-hans": "zh-cn", "zh-cn": "zh-cn", "zh-sg": "zh-cn", "zh-hant": "zh-tw", "zh-tw": "zh-tw", "zh-hk": "zh-tw",
    ]

    /// A syntactic BCP 47 check (language[-script][-region][-variant]), enough to refuse `english` or `zh_CN`.
    package static func isWellFormedTag(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        for part in parts.dropFirst() {
            guard (1...8).contains(part.count), part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                return false
            }
        }
        return true
    }
}

/// Text given per language (`title: { en: …, fr: … }`).
public struct LocalizedText: Sendable, Hashable {
    /// Every (language code, text) pair as UTF-8, one after another in the order of the codes' bytes, each code once:
    /// the code's length, the code, the text's length, the text (lengths in LEB128). One buffer rather than a string
    /// per text, which a cache keeps as it is: a build reads every story of the archive back from its trace, and
    /// makes a text's string only for a page it renders (9 % of a one-story rebuild's instructions at 10,000 stories).
    /// Equal texts have equal buffers.
    private var utf8: [UInt8] = []

    public init(_ values: [String: String] = [:]) {
        for (code, text) in values.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            Self.append(code.utf8, to: &utf8)
            Self.append(text.utf8, to: &utf8)
        }
    }

    /// The text as bytes, for a cache to keep (`init(encoded:)` reads them back).
    package var encoded: [UInt8] { utf8 }

    /// What `encoded` gave; nil when the bytes are not a text's.
    package init?(encoded: ArraySlice<UInt8>) {
        var offset = encoded.startIndex
        var lastCode: ArraySlice<UInt8>?
        while offset < encoded.endIndex {
            guard let code = Self.field(encoded, at: &offset), Self.field(encoded, at: &offset) != nil,
                  lastCode.map({ $0.lexicographicallyPrecedes(code) }) ?? true else { return nil }
            lastCode = code
        }
        utf8 = Array(encoded)
    }

    /// The pairs, in the order of their codes' bytes.
    public var pairs: [(code: String, text: String)] {
        var result: [(code: String, text: String)] = []
        forEachPair { code, text in result.append((String(decoding: code, as: UTF8.self), String(decoding: text, as: UTF8.self))) }
        return result
    }

    public subscript(code code: String) -> String? {
        var code = code
        return code.withUTF8 { wanted in
            var found: String?
            forEachPair { pairCode, text in
                if found == nil, pairCode.elementsEqual(wanted) { found = String(decoding: text, as: UTF8.self) }
            }
            return found
        }
    }

    public var isEmpty: Bool { utf8.isEmpty }

    private func forEachPair(_ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void) {
        var offset = 0
        while let code = Self.field(utf8[...], at: &offset), let text = Self.field(utf8[...], at: &offset) {
            body(code, text)
        }
    }

    /// The field at `offset`, which moves past it; nil at the end or when the field does not fit.
    private static func field(_ bytes: ArraySlice<UInt8>, at offset: inout Int) -> ArraySlice<UInt8>? {
        guard let length = LEB128.read(bytes, at: &offset, end: bytes.endIndex),
              length <= UInt64(bytes.endIndex - offset) else { return nil }
        defer { offset += Int(length) }
        return bytes[offset..<offset + Int(length)]
    }

    private static func append(_ bytes: String.UTF8View, to utf8: inout [UInt8]) {
        LEB128.append(UInt64(bytes.count), to: &utf8)
        utf8.append(contentsOf: bytes)
    }
}

/// Unsigned LEB128, seven bits a byte, low bits first: how `LocalizedText` and the site's cache files write lengths
/// and counts, which are mostly small and take one or two bytes instead of eight.
package enum LEB128 {
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// The value at `offset` (an index of `bytes`), which moves past it; nil when it runs to `end` or past 64 bits.
    package static func read(_ bytes: ArraySlice<UInt8>, at offset: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset >= bytes.startIndex, offset < end, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
