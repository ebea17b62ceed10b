import YAML

/// Reads typed values out of YAML nodes, reporting every problem to a sink with the node's location.
/// Shared by the config and the story parsers so both speak with one voice.
package struct Fields {
    package var sink: DiagnosticSink

    package init(path: String) { sink = DiagnosticSink(path: path) }

    /// Checks that `node` is a mapping whose keys are all known, and returns its entries by key.
    package mutating func mapping(_ node: YAMLNode, known: [String], what: String) -> [String: YAMLNode] {
        guard let entries = node.mapping else {
            sink.error("\(what) must be a mapping of keys to values, found \(node.kindName)", at: node.location)
            return [:]
        }
        var result: [String: YAMLNode] = [:]
        for entry in entries {
            let key = entry.key.string ?? ""
            if known.contains(key) {
                result[key] = entry.value
            } else {
                sink.error(Suggestion.unknown("key", key, known: known) + " in \(what)", at: entry.key.location)
            }
        }
        return result
    }

    package mutating func string(_ node: YAMLNode, _ name: String) -> String? {
        guard let text = node.string, node.mapping == nil, node.sequence == nil else {
            sink.error("\(name) must be text, found \(node.kindName)", at: node.location)
            return nil
        }
        if node.isNull {
            sink.error("\(name) is empty", at: node.location)
            return nil
        }
        if let control = Self.controlCharacter(in: text) {
            sink.error("\(name) contains the control character U+\(Self.hex(control)), which pages, feeds and phones cannot show; remove it",
                       at: node.location)
            return nil
        }
        return text
    }

    /// The first control character (Unicode category Cc: U+0000–U+001F, U+007F–U+009F) in `text` other than tab
    /// and line feed. YAML escapes ("\x1b", "\0") put them in a value; written out they corrupt HTML and feeds.
    package static func controlCharacter(in text: String) -> Unicode.Scalar? {
        // Most text has none: every UTF-8 byte of a C0 control or DEL is below 0x20 or 0x7F, and C1 controls
        // start with 0xC2.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return nil }
        return text.unicodeScalars.first { ($0.value < 0x20 && $0 != "\t" && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    package static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    package mutating func bool(_ node: YAMLNode, _ name: String) -> Bool? {
        guard let value = node.bool else {
            sink.error("\(name) must be true or false, found \"\(node.string ?? node.kindName)\"", at: node.location)
            return nil
        }
        return value
    }

    mutating func positiveInt(_ node: YAMLNode, _ name: String, max: Int = 1_000_000) -> Int? {
        guard let value = node.int, value >= 1, value <= max else {
            sink.error("\(name) must be a whole number from 1 to \(max), found \"\(node.string ?? node.kindName)\"",
                       at: node.location)
            return nil
        }
        return value
    }

    /// One string or a list of strings.
    mutating func stringList(_ node: YAMLNode, _ name: String) -> [(String, SourceLocation)] {
        if let items = node.sequence {
            if items.isEmpty { sink.error("\(name) is an empty list", at: node.location) }
            return items.compactMap { item in string(item, name).map { ($0, item.location) } }
        }
        return string(node, name).map { [($0, node.location)] } ?? []
    }

    /// A duration such as `6h`, `90m`, `30s` or `1h30m`, in seconds.
    package mutating func duration(_ node: YAMLNode, _ name: String) -> Double? {
        guard let text = string(node, name) else { return nil }
        if let seconds = Self.parseDuration(text) { return seconds }
        sink.error("\(name) must be a duration such as 6h, 90m or 30s, found \"\(text)\"", at: node.location)
        return nil
    }

    static func parseDuration(_ text: String) -> Double? {
        var total = 0.0, number = "", sawUnit = false
        for character in text.strip(" ") {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number) else { return nil }
            switch character {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        return sawUnit && number.isEmpty ? total : nil
    }

    /// Text per language: a mapping `{ en: …, fr: … }`, or plain text meaning the default language.
    package mutating func localized(_ node: YAMLNode, _ name: String, languages: [Language]) -> LocalizedText {
        guard let defaultLanguage = languages.first else { return LocalizedText() }
        if node.mapping == nil {
            return string(node, name).map { LocalizedText([defaultLanguage.code: $0]) } ?? LocalizedText()
        }
        var values: [String: String] = [:]
        for entry in node.mapping ?? [] {
            let key = entry.key.string ?? ""
            guard let language = languages.first(where: { $0.code.lowercased() == key.lowercased() }) else {
                sink.error(Suggestion.unknown("language", key, known: languages.map(\.code)) + " in \(name)",
                           at: entry.key.location)
                continue
            }
            if let text = string(entry.value, "\(name).\(key)") {
                if text.strip(" \t\n").isEmpty {
                    sink.error("\(name).\(key) is blank", at: entry.value.location)
                } else {
                    values[language.code] = text
                }
            }
        }
        return LocalizedText(values)
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters from `set`.
    package func strip(_ set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
