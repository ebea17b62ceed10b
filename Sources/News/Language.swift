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
    /// (language code, text), sorted by code: a story has a handful, and a build reads back every story of the
    /// archive, where a dictionary each would cost more than the rest of the story.
    public private(set) var pairs: [(code: String, text: String)]

    public init(_ values: [String: String] = [:]) {
        pairs = values.sorted { $0.key < $1.key }.map { (code: $0.key, text: $0.value) }
    }

    /// Pairs already sorted by code, each code once (what `pairs` gave).
    package init(sortedPairs: [(code: String, text: String)]) { pairs = sortedPairs }

    public subscript(code code: String) -> String? { pairs.first { $0.code == code }?.text }
    public var isEmpty: Bool { pairs.isEmpty }

    public static func == (a: LocalizedText, b: LocalizedText) -> Bool {
        a.pairs.count == b.pairs.count && zip(a.pairs, b.pairs).allSatisfy { $0.code == $1.code && $0.text == $1.text }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.code)
            hasher.combine(pair.text)
        }
    }
}
