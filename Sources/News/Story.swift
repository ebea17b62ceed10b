import YAML
#if canImport(Glibc)
import Glibc
#endif

/// One story's body in one language: Markdown text and the file line it starts on (for messages).
public struct StoryBody: Sendable, Hashable {
    public var languageCode: String
    /// The Markdown as UTF-8 bytes, which is what cmark reads; empty while the story's bodies are not loaded
    /// (`Story.bodiesLoaded`).
    public var text: [UInt8]
    public var firstLine: Int
    /// Where the body is in the file's bytes, so that it can be read again without parsing the file.
    public var sourceRange: Range<Int>

    package init(languageCode: String, text: [UInt8], firstLine: Int, sourceRange: Range<Int>) {
        self.languageCode = languageCode
        self.text = text
        self.firstLine = firstLine
        self.sourceRange = sourceRange
    }

    /// The Markdown as a String.
    public var markdown: String {
        get { String(decoding: text, as: UTF8.self) }
        set { text = Array(newValue.utf8) }
    }

    /// The Markdown of `range` in a story file: lines end with a line feed (a carriage return before one is
    /// dropped), and so does the last.
    package static func text(in bytes: [UInt8], _ range: Range<Int>) -> [UInt8] {
        bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            var out: [UInt8] = []
            out.reserveCapacity(slice.count + 1)
            if let base = slice.baseAddress, memchr(base, 13, slice.count) != nil {
                for index in slice.indices where slice[index] != 13 || index + 1 >= slice.count || slice[index + 1] != 10 {
                    out.append(slice[index])
                }
            } else {
                out.append(contentsOf: slice)
            }
            out.append(10)
            return out
        }
    }
}

/// What `newsgen publish` should announce for a story (the `push:` front-matter section).
public struct PushRequest: Sendable, Hashable {
    /// Per-language override of the alert text; the title otherwise.
    public var text: LocalizedText
    /// Bump to announce the story once more.
    public var revision: Int
    /// Replaces `push.expires` of newsgen.yml for this story's alert (seconds).
    public var expires: Double?
    /// `push.budget: exempt`: a story that cannot wait goes out even over the alert budget (and still counts).
    public var budgetExempt: Bool

    public init(text: LocalizedText, revision: Int, expires: Double? = nil, budgetExempt: Bool = false) {
        self.text = text
        self.revision = revision
        self.expires = expires
        self.budgetExempt = budgetExempt
    }
}

/// A story as the editor wrote it, validated against the site config: a plain value.
public struct Story: Sendable, Hashable {
    /// Stable key across languages and edits (front matter `id`, else the slug).
    public var id: String
    /// URL segment: the file name without `.md` and without a leading `YYYY-MM-DD-`.
    public var slug: String
    /// Path of the source file relative to the site root.
    public var sourcePath: String
    /// At least one; the first is the story's main category.
    public var categories: [Category]
    public var published: Timestamp
    public var updated: Timestamp?
    public var breaking: Bool
    public var draft: Bool
    public var authors: [String]
    public var image: String?
    /// The lead image's alt text per language (`image: { src, alt, credit }`); empty for `image: /path`.
    public var imageAlt: LocalizedText
    /// Who the lead image is by (`image.credit`).
    public var imageCredit: String?
    /// The files of the media folder the story names (its image, the links and images of its bodies).
    public var media: [MediaReference]
    public var titles: LocalizedText
    public var summaries: LocalizedText
    /// A correction note per language, shown on the story when present.
    public var corrections: LocalizedText
    public var push: PushRequest
    /// Bodies by language code. Always has at least one body.
    /// When `bodiesLoaded` is false (every story the site build loads) the keys say which languages have a body
    /// and where it is in the file, but the Markdown is empty: the build reads it again from `sourceRange` when it
    /// renders a page that shows it, so that memory does not grow with the archive.
    public var bodies: [String: StoryBody]
    /// False when `bodies` hold no Markdown yet (see `bodies`).
    public var bodiesLoaded: Bool

    public init(id: String, slug: String, sourcePath: String, categories: [Category], published: Timestamp, updated: Timestamp?, breaking: Bool, draft: Bool, authors: [String], image: String?, titles: LocalizedText, summaries: LocalizedText, corrections: LocalizedText, push: PushRequest, bodies: [String: StoryBody], bodiesLoaded: Bool = true,
                imageAlt: LocalizedText = LocalizedText(), imageCredit: String? = nil, media: [MediaReference] = []) {
        self.id = id
        self.slug = slug
        self.sourcePath = sourcePath
        self.categories = categories
        self.published = published
        self.updated = updated
        self.breaking = breaking
        self.draft = draft
        self.authors = authors
        self.image = image
        self.imageAlt = imageAlt
        self.imageCredit = imageCredit
        self.media = media
        self.titles = titles
        self.summaries = summaries
        self.corrections = corrections
        self.push = push
        self.bodies = bodies
        self.bodiesLoaded = bodiesLoaded
    }

    /// The last time the story changed: `updated`, else `published`.
    public var lastModified: Timestamp { updated ?? published }

    /// True when the story carries a correction note (in any language). A corrected story shows a
    /// visible notice and a newer `dateModified`; it must never be announced by a push.
    public var hasCorrection: Bool { !corrections.isEmpty }
}

/// The result of loading one story file: the story, or the problems that keep it out.
package struct StoryParser {
    package let config: SiteConfig

    package init(config: SiteConfig) { self.config = config }

    package static let keys = ["id", "category", "published", "updated", "breaking", "draft", "author", "image",
                       "title", "summary", "correction", "push"]

    /// Slug from a file name: `2026-11-29-quake-off-coast.md` → `quake-off-coast`.
    package static func slug(fromFileName name: String) -> String {
        var stem = name.hasSuffix(".md") ? String(name.dropLast(3)) : name
        let bytes = Array(stem.utf8)
        if bytes.count > 11 {
            let pattern: [Bool] = (0..<11).map { [4, 7, 10].contains($0) ? bytes[$0] == 45 : (bytes[$0] >= 48 && bytes[$0] <= 57) }
            if pattern.allSatisfy({ $0 }) { stem = String(stem.dropFirst(11)) }
        }
        return stem
    }

    /// `withBodies: false` finds and checks the bodies but leaves their text out (`Story.bodiesLoaded` false):
    /// what the site build keeps, since its pages read bodies back from the file.
    package func parse(bytes: [UInt8], path: String, fileName: String, withBodies: Bool = true) -> (Story?, [Diagnostic]) {
        var fields = Fields(path: path)
        guard let start = Self.validateUTF8(bytes, sink: &fields.sink) else { return (nil, fields.sink.diagnostics) }
        let lines = SourceLines(bytes, from: start)

        guard let (root, close) = Self.frontMatter(lines, sink: &fields.sink) else { return (nil, fields.sink.diagnostics) }
        let map = fields.mapping(root, known: Self.keys, what: "the front matter")
        for required in ["category", "published", "title"] where map[required] == nil {
            fields.sink.error("missing required field \"\(required)\"", at: root.location)
        }

        let slug = Self.slug(fromFileName: fileName)
        if let clean = Self.cleanSlug(instead: slug) {
            fields.sink.error("the file name gives the slug \"\(slug)\", which is not a clean URL segment; rename the file using lowercase letters, digits and - (e.g. \(clean).md)",
                              at: .init(line: 1, column: 1))
        }
        var id = slug
        if let node = map["id"], let text = fields.string(node, "id") {
            if Self.isValidID(text) { id = text } else {
                fields.sink.error("id \"\(text)\" may only use ASCII letters, digits, -, _ and . (at most 100, not starting with . or -)",
                                  at: node.location)
            }
        }

        var categories: [Category] = []
        if let node = map["category"] {
            for (name, location) in fields.stringList(node, "category") {
                guard let category = config.category(named: name) else {
                    fields.sink.error(Suggestion.unknown("category", name, known: config.categories.map(\.name)), at: location)
                    continue
                }
                if categories.contains(category) {
                    fields.sink.error("category \"\(name)\" is listed twice", at: location)
                } else {
                    categories.append(category)
                }
            }
        }

        func timestamp(_ key: String) -> Timestamp? {
            guard let node = map[key], let text = fields.string(node, key) else { return nil }
            switch Timestamp.parse(text) {
            case .success(let value):
                if let problem = value.yearProblem(siteTimeZone: config.timeZone) {
                    fields.sink.error("invalid \(key) date: \"\(text)\" \(problem)", at: node.location)
                    return nil
                }
                return value
            case .failure(let error):
                fields.sink.error("invalid \(key) date: \(error.message)", at: node.location)
                return nil
            }
        }
        let published = timestamp("published")
        let updated = timestamp("updated")
        if let published, let updated, updated < published, let node = map["updated"] {
            fields.sink.error("updated (\(updated)) is earlier than published (\(published))", at: node.location)
        }

        let breaking = map["breaking"].flatMap { fields.bool($0, "breaking") } ?? false
        let draft = map["draft"].flatMap { fields.bool($0, "draft") } ?? false
        let authors = map["author"].map { fields.stringList($0, "author").map(\.0) } ?? []
        let languages = config.languages
        var image: String?
        var imageAlt = LocalizedText()
        var imageCredit: String?
        var media: [MediaReference] = []
        if let node = map["image"] {
            // A path or URL, or a mapping with the source, its alt text per language and a credit.
            var srcNode: YAMLNode? = node
            if node.mapping != nil {
                let imageMap = fields.mapping(node, known: ["src", "alt", "credit"], what: "image")
                srcNode = imageMap["src"]
                if srcNode == nil { fields.sink.error("image needs src, e.g. image: { src: /media/quake.jpg, alt: …, credit: … }", at: node.location) }
                if let altNode = imageMap["alt"] { imageAlt = fields.localized(altNode, "image.alt", languages: languages) }
                if let creditNode = imageMap["credit"] { imageCredit = fields.string(creditNode, "image.credit") }
            }
            if let srcNode, let text = fields.string(srcNode, node.mapping != nil ? "image.src" : "image") {
                let lower = text.lowercased()
                if (text.hasPrefix("/") && !text.hasPrefix("//")) || lower.hasPrefix("https://") || lower.hasPrefix("http://") {
                    image = text
                    if let path = MediaReference.path(ofLink: text) { media.append(MediaReference(path: path, location: srcNode.location)) }
                } else {
                    fields.sink.error("image must be a site path starting with / or an http(s) URL, found \"\(text)\"", at: srcNode.location)
                }
            }
        }
        let problemsBeforeTitle = fields.sink.diagnostics.count
        let titles = map["title"].map { fields.localized($0, "title", languages: languages) } ?? LocalizedText()
        // A title refused for what it holds is not also "missing".
        if let node = map["title"], titles[code: config.defaultLanguage.code] == nil, fields.sink.diagnostics.count == problemsBeforeTitle {
            fields.sink.error("title needs the default language (\(config.defaultLanguage.code))", at: node.location)
        }
        let summaries = map["summary"].map { fields.localized($0, "summary", languages: languages) } ?? LocalizedText()
        let corrections = map["correction"].map { fields.localized($0, "correction", languages: languages) } ?? LocalizedText()
        if map["correction"] != nil, updated == nil, let node = map["correction"] {
            fields.sink.error("a correction needs an updated date saying when it was made", at: node.location)
        }
        var push = PushRequest(text: LocalizedText(), revision: 1)
        if let node = map["push"] {
            let pushMap = fields.mapping(node, known: ["text", "revision", "expires", "budget"], what: "push")
            if let textNode = pushMap["text"] { push.text = fields.localized(textNode, "push.text", languages: languages) }
            if let revisionNode = pushMap["revision"], let revision = fields.positiveInt(revisionNode, "push.revision") {
                push.revision = revision
            }
            if let expiresNode = pushMap["expires"], let expires = fields.duration(expiresNode, "push.expires") {
                if expires > 0 { push.expires = expires } else {
                    fields.sink.error("push.expires must be longer than 0s", at: expiresNode.location)
                }
            }
            if let budgetNode = pushMap["budget"], let text = fields.string(budgetNode, "push.budget") {
                if text == "exempt" { push.budgetExempt = true } else {
                    fields.sink.error(Suggestion.unknown("push.budget value", text, known: ["exempt"]), at: budgetNode.location)
                }
            }
        }

        let bodies = BodySplitter.split(lines: lines, startingAt: close + 1, config: config, withText: withBodies,
                                        sink: &fields.sink)

        for code in bodies.keys.sorted() {
            guard let body = bodies[code] else { continue }
            media += MediaReference.references(inBody: Array(bytes[body.sourceRange]), firstLine: body.firstLine)
        }
        if let node = map["image"], node.mapping != nil, config.media.missingAlt == .error {
            let missing = languages.filter { bodies[$0.code] != nil && imageAlt[code: $0.code] == nil }.map(\.code)
            if !missing.isEmpty {
                fields.sink.error("image.alt needs a text in \(missing.joined(separator: ", ")) (describe the picture for readers who cannot see it; or set media.missing_alt: title in newsgen.yml)",
                                  at: node.location)
            }
        }

        guard fields.sink.isEmpty, let published, !categories.isEmpty, !bodies.isEmpty else {
            return (nil, fields.sink.diagnostics)
        }
        let story = Story(id: id, slug: slug, sourcePath: path, categories: categories, published: published,
                          updated: updated, breaking: breaking, draft: draft, authors: authors, image: image,
                          titles: titles, summaries: summaries, corrections: corrections, push: push, bodies: bodies,
                          bodiesLoaded: withBodies, imageAlt: imageAlt, imageCredit: imageCredit, media: media)
        return (story, [])
    }

    /// The front matter, between the first line `---` and the next `---` (or `...`), and the index of its closing
    /// line; nil when there is none, with the problem in `sink`.
    package static func frontMatter(_ lines: SourceLines, sink: inout DiagnosticSink) -> (root: YAMLNode, close: Int)? {
        guard lines.count > 0, lines[0].strip(" \t") == "---" else {
            sink.error("a story starts with front matter: a line \"---\", the YAML fields, and another \"---\"",
                       at: .init(line: 1, column: 1))
            return nil
        }
        guard let close = (1..<lines.count).first(where: {
            let l = lines[$0].strip(" \t")
            return l == "---" || l == "..."
        }) else {
            sink.error("the front matter is not closed: add a line \"---\" after the last field", at: .init(line: 1, column: 1))
            return nil
        }
        let yamlText = (1..<close).map { lines[$0] }.joined(separator: "\n")
        do {
            guard let node = try YAMLDocument.parse(yamlText, lineOffset: 1) else {
                sink.error("the front matter is empty; a story needs at least category, published and title",
                           at: .init(line: 1, column: 1))
                return nil
            }
            return (node, close)
        } catch {
            sink.error(error.message, at: error.location)
            return nil
        }
    }

    /// nil when `slug` is a clean URL segment, else the clean slug to suggest instead.
    package static func cleanSlug(instead slug: String) -> String? {
        isCleanURLSegment(slug) ? nil : SiteConfig.slugify(slug)
    }

    /// The id and slug a story file holds, from its name and its front matter's `id` alone: a file with other
    /// problems still holds them (an id `parse` refuses counts as the slug, which is what the file will have).
    package static func claimedKeys(bytes: [UInt8], fileName: String) -> (id: String, slug: String) {
        let slug = slug(fromFileName: fileName)
        var sink = DiagnosticSink(path: fileName)
        guard let start = validateUTF8(bytes, sink: &sink),
              let id = frontMatter(SourceLines(bytes, from: start), sink: &sink)?.root["id"]?.string,
              isValidID(id) else { return (slug, slug) }
        return (id, slug)
    }

    /// ASCII lowercase letters, digits, `-` and `_`, at most 120, not starting with `-`. (On bytes: every allowed
    /// character is one byte, so any other byte already fails.)
    static func isCleanURLSegment(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= 120 && bytes.first != UInt8(ascii: "-")
            && bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// ASCII letters, digits, `-`, `_` and `.`, at most 100, not starting with `.` or `-`.
    static func isValidID(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= 100 && bytes.first != UInt8(ascii: ".") && bytes.first != UInt8(ascii: "-")
            && bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }

    /// Strict UTF-8 check; the first invalid byte is reported with its line and column. Returns where the
    /// text starts (after a byte order mark).
    package static func validateUTF8(_ bytes: [UInt8], sink: inout DiagnosticSink) -> Int? {
        var slice = bytes[...]
        if slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
        let hasNul = slice.withUnsafeBufferPointer { $0.baseAddress.map { memchr($0, 0, slice.count) != nil } ?? false }
        if hasNul, let nul = slice.firstIndex(of: 0) {
            let line = slice[..<nul].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            sink.error("the file contains a NUL character", at: .init(line: line, column: 1))
            return nil
        }
        if Self.isValidUTF8(slice) {
            guard let control = slice.withUnsafeBufferPointer(Self.firstControlCharacter) else { return slice.startIndex }
            let at = slice.startIndex + control
            let lineStart = (slice[..<at].lastIndex(of: 10) ?? slice.startIndex - 1) + 1
            let line = slice[..<at].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            let column = String(decoding: slice[lineStart..<at], as: UTF8.self).unicodeScalars.count + 1
            let scalar = String(decoding: slice[at...].prefix(2), as: UTF8.self).unicodeScalars.first!
            sink.error("the file contains the control character U+\(Fields.hex(scalar)), which pages, feeds and phones cannot show; remove it",
                       at: .init(line: line, column: column))
            return nil
        }
        // Find the first bad byte: decode character by character.
        var line = 1, column = 1, index = slice.startIndex
        while index < slice.endIndex {
            let byte = slice[index]
            let length = byte < 0x80 ? 1 : byte >> 5 == 0b110 ? 2 : byte >> 4 == 0b1110 ? 3 : byte >> 3 == 0b11110 ? 4 : 0
            let end = index + length
            if length == 0 || end > slice.endIndex || String(validating: slice[index..<end], as: UTF8.self) == nil { break }
            if byte == 10 { line += 1; column = 1 } else { column += 1 }
            index = end
        }
        sink.error("the file is not valid UTF-8 (byte 0x\(String(slice[index], radix: 16, uppercase: true))); save it as UTF-8",
                   at: .init(line: line, column: column))
        return nil
    }

    /// Where the first control character other than tab, line feed and carriage return is in valid UTF-8 text (the
    /// C0 controls, DEL, and C1 controls, which start with 0xC2), or nil. Eight bytes at a time: a word is looked at
    /// byte by byte only when it holds a byte below 0x20 (every line feed), 0x7F or 0xC2.
    static func firstControlCharacter(_ buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        let count = buffer.count
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        func isControl(_ index: Int) -> Bool {
            let byte = base[index]
            if byte < 0x20 { return byte != 9 && byte != 10 && byte != 13 }
            if byte == 0x7F { return true }
            return byte == 0xC2 && index + 1 < count && base[index + 1] < 0xA0
        }
        var index = 0
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // A byte below 0x20: subtracting 0x20 from it borrows into its high bit, which it did not have.
            if (word &- 0x20 &* ones) & ~word & highs != 0 || hasZero(word ^ (0x7F &* ones)) || hasZero(word ^ (0xC2 &* ones)) {
                for offset in 0..<8 where isControl(index + offset) { return index + offset }
            }
            index += 8
        }
        while index < count {
            if isControl(index) { return index }
            index += 1
        }
        return nil
    }

    private static func isValidUTF8(_ slice: ArraySlice<UInt8>) -> Bool {
        slice.withUnsafeBufferPointer { isValidUTF8($0) }
    }

    /// UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates, nothing past U+10FFFF), checked in place:
    /// runs of ASCII eight bytes at a time. `String(validating:)` would also build a String of the whole file.
    static func isValidUTF8(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        let count = buffer.count
        var index = 0
        while index < count {
            while index + 8 <= count,
                  UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { break }
            let lead = base[index]
            func continuation(_ offset: Int) -> UInt8? {
                guard index + offset < count, base[index + offset] & 0xC0 == 0x80 else { return nil }
                return base[index + offset]
            }
            switch lead {
            case 0x00..<0x80:
                index += 1
            case 0xC2..<0xE0:
                guard continuation(1) != nil else { return false }
                index += 2
            case 0xE0..<0xF0:
                guard let second = continuation(1), continuation(2) != nil else { return false }
                if lead == 0xE0 && second < 0xA0 { return false }   // overlong
                if lead == 0xED && second >= 0xA0 { return false }  // UTF-16 surrogates
                index += 3
            case 0xF0..<0xF5:
                guard let second = continuation(1), continuation(2) != nil, continuation(3) != nil else { return false }
                if lead == 0xF0 && second < 0x90 { return false }   // overlong
                if lead == 0xF4 && second >= 0x90 { return false }  // past U+10FFFF
                index += 4
            default:
                return false
            }
        }
        return true
    }
}

/// The lines of a story file as byte ranges of its (valid UTF-8) bytes, without their terminators; a carriage
/// return at the end of a line is left out too. It works on bytes because in Swift "\r\n" is ONE Character, so
/// splitting a String on "\n" would leave files with Windows line endings in one piece; and a body's lines
/// only become text when they could be a marker or a fence.
package struct SourceLines {
    package let bytes: [UInt8]
    private(set) var ranges: [Range<Int>] = []

    package init(_ bytes: [UInt8], from start: Int) {
        self.bytes = bytes
        ranges.reserveCapacity(bytes.count / 40 + 8)
        var lineStart = start
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // memchr finds each line feed (a story has about 100 lines of 140 bytes).
            while lineStart < buffer.count,
                  let found = memchr(base + lineStart, 10, buffer.count - lineStart) {
                let index = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                let end = index > lineStart && buffer[index - 1] == 13 ? index - 1 : index
                ranges.append(lineStart..<end)
                lineStart = index + 1
            }
            if lineStart < buffer.count {
                let end = buffer[buffer.count - 1] == 13 ? buffer.count - 1 : buffer.count
                ranges.append(lineStart..<end)
            }
        }
    }

    package var count: Int { ranges.count }

    package subscript(index: Int) -> String { String(decoding: bytes[ranges[index]], as: UTF8.self) }

    /// The first byte after up to `spaces` leading spaces, if the line has one there.
    func firstByte(_ index: Int, afterSpaces spaces: Int) -> UInt8? {
        var position = ranges[index].lowerBound
        let end = ranges[index].upperBound
        var skipped = 0
        while position < end, bytes[position] == 32, skipped < spaces { position += 1; skipped += 1 }
        return position < end ? bytes[position] : nil
    }

    /// True when the lines hold nothing but spaces and tabs.
    func areBlank(_ lines: Range<Int>) -> Bool {
        lines.allSatisfy { bytes[ranges[$0]].allSatisfy { $0 == 32 || $0 == 9 } }
    }

    /// The bytes from the first line's start to the last line's end.
    func byteRange(_ lines: Range<Int>) -> Range<Int> {
        lines.isEmpty ? 0..<0 : ranges[lines.lowerBound].lowerBound..<ranges[lines.upperBound - 1].upperBound
    }
}

/// Splits the text after the front matter into per-language bodies at `<!-- lang: CODE -->` lines.
/// A marker inside a fenced code block is text. No marker at all: one body in the default language.
enum BodySplitter {
    static func markerCode(_ line: String) -> String? {
        var text = Substring(line)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        guard text.hasPrefix("<!--"), text.hasSuffix("-->"), text.count >= 7 else { return nil }
        var inner = text.dropFirst(4).dropLast(3)
        inner = inner.drop(while: { $0 == " " })
        guard inner.hasPrefix("lang:") else { return nil }
        let code = inner.dropFirst(5).strip(" ")
        return code
    }

    /// The fence that opens a fenced code block on this line, if any: (character, length).
    static func fenceOpening(_ line: String) -> (Character, Int)? {
        let indent = line.prefix(while: { $0 == " " }).count
        guard indent <= 3 else { return nil }
        let rest = line.dropFirst(indent)
        guard let c = rest.first, c == "`" || c == "~" else { return nil }
        let length = rest.prefix(while: { $0 == c }).count
        guard length >= 3 else { return nil }
        if c == "`", rest.dropFirst(length).contains("`") { return nil }
        return (c, length)
    }

    static func closesFence(_ line: String, _ fence: (Character, Int)) -> Bool {
        let indent = line.prefix(while: { $0 == " " }).count
        guard indent <= 3 else { return false }
        let rest = line.dropFirst(indent)
        let length = rest.prefix(while: { $0 == fence.0 }).count
        return length >= fence.1 && rest.dropFirst(length).allSatisfy { $0 == " " || $0 == "\t" }
    }

    /// Lines become text only when their first byte could start a marker (`<`, no indent) or a fence
    /// (`` ` `` or `~` after at most three spaces); every other line is passed over as bytes.
    package static func split(lines: SourceLines, startingAt start: Int, config: SiteConfig, withText: Bool = true,
                      sink: inout DiagnosticSink) -> [String: StoryBody] {
        // Each section is a run of lines: before the first marker (code nil), then one per marker.
        var sections: [(code: String?, line: Int, lines: Range<Int>)] = [(nil, start + 1, start..<start)]
        var fence: (Character, Int)?
        for index in start..<max(start, lines.count) {
            let first = lines.firstByte(index, afterSpaces: 3)
            if let open = fence {
                if first == open.0.asciiValue, closesFence(lines[index], open) { fence = nil }
            } else if lines.firstByte(index, afterSpaces: 0) == UInt8(ascii: "<"), let code = markerCode(lines[index]) {
                sections.append((code, index + 1, index + 1..<index + 1))
                continue
            } else if first == UInt8(ascii: "`") || first == UInt8(ascii: "~"), let open = fenceOpening(lines[index]) {
                fence = open
            }
            sections[sections.count - 1].lines = sections[sections.count - 1].lines.lowerBound..<index + 1
        }
        var bodies: [String: StoryBody] = [:]
        func body(_ code: String, _ section: Range<Int>, firstLine: Int) -> StoryBody {
            let range = lines.byteRange(section)
            return StoryBody(languageCode: code, text: withText ? StoryBody.text(in: lines.bytes, range) : [], firstLine: firstLine,
                             sourceRange: range)
        }
        if sections.count == 1 {
            let only = sections[0]
            if lines.areBlank(only.lines) {
                sink.error("the story has no body: write the text after the front matter", at: .init(line: max(1, start), column: 1))
            } else {
                let code = config.defaultLanguage.code
                bodies[code] = body(code, only.lines, firstLine: only.line)
            }
            return bodies
        }
        if !lines.areBlank(sections[0].lines) {
            let offset = sections[0].lines.first { !lines.areBlank($0..<$0 + 1) }.map { $0 - sections[0].lines.lowerBound } ?? 0
            sink.error("text before the first language marker; start the body with a line such as <!-- lang: \(config.defaultLanguage.code) -->",
                       at: .init(line: sections[0].line + offset, column: 1))
        }
        for section in sections.dropFirst() {
            let written = section.code ?? ""
            let location = SourceLocation(line: section.line, column: 1)
            guard let language = config.language(code: written) else {
                sink.error(Suggestion.unknown("language", written, known: config.languages.map(\.code)) + " in a body marker", at: location)
                continue
            }
            if let previous = bodies[language.code] {
                sink.error("a second body for \(language.code) (the first starts at line \(previous.firstLine - 1))", at: location)
                continue
            }
            if lines.areBlank(section.lines) {
                sink.error("the \(language.code) body is empty", at: location)
                bodies[language.code] = StoryBody(languageCode: language.code, text: [], firstLine: section.line + 1,
                                                  sourceRange: 0..<0)
                continue
            }
            bodies[language.code] = body(language.code, section.lines, firstLine: section.line + 1)
        }
        return bodies
    }
}
