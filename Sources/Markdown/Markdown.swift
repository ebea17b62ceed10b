// Markdown: CommonMark story bodies -> HTML, through libcmark.
//
// This is the only module that sees a cmark pointer. Every node, iterator and rendered string is freed
// before a public function returns; no cmark state is shared between calls, so every function here may be
// called from any number of threads at once (cmark's parse and render functions are reentrant).
//
// How heading ids are written: cmark's HTML renderer has no hook for attributes, so after parsing we find the
// heading nodes (a walk over the block containers only) and replace each with a custom block whose
// `on_enter` is the heading's own cmark rendering with ` id="…"` spliced into its start tag. cmark writes
// custom blocks verbatim in both safe and unsafe mode, so the document is still rendered with cmark's own
// safety switch, and the output is byte for byte cmark's apart from the ids:
//   - raw HTML not allowed: rendered WITHOUT `CMARK_OPT_UNSAFE`; cmark omits raw HTML and empties dangerous
//     URLs itself, in the headings (rendered with the same options) as everywhere else;
//   - raw HTML allowed: rendered WITH `CMARK_OPT_UNSAFE`; cmark then keeps dangerous URLs, so a walk over the
//     whole tree empties them first, with the same rule as cmark's safe mode (`isDangerousURL`).
// (Relies on cmark >= 0.29, where safe mode is the default; Debian 12 has 0.30.2.)

internal import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// How story bodies are rendered.
public struct MarkdownOptions: Sendable, Hashable {
    /// "quotes" → “quotes”, `--` → –, `---` → —, `...` → … (cmark's `CMARK_OPT_SMART`).
    public var smartPunctuation: Bool
    /// When false, raw HTML blocks and inline HTML are replaced by `<!-- raw HTML omitted -->`, as cmark's
    /// safe mode does. Dangerous link and image URLs (`javascript:`, `vbscript:`, `file:`, `data:` other than
    /// `data:image/png|gif|jpeg|webp`) are emptied in both modes.
    public var allowRawHTML: Bool

    public init(smartPunctuation: Bool = true, allowRawHTML: Bool = false) {
        self.smartPunctuation = smartPunctuation
        self.allowRawHTML = allowRawHTML
    }
}

/// A heading of a rendered document, in document order.
public struct MarkdownHeading: Sendable, Hashable {
    /// 1...6
    public var level: Int
    /// The plain text of the heading (no markup, whitespace runs collapsed to one space).
    public var text: String
    /// The id written on the `<hN>` element; unique within its document and the same on every run.
    public var id: String

    public init(level: Int, text: String, id: String) {
        self.level = level
        self.text = text
        self.id = id
    }
}

/// The HTML of a story body and its headings (for a table of contents or `#fragment` links).
public struct RenderedMarkdown: Sendable, Hashable {
    /// The HTML as UTF-8, as cmark wrote it (valid UTF-8 whenever the source was).
    public var utf8: [UInt8]
    public var headings: [MarkdownHeading]

    public var html: String { String(decoding: utf8, as: UTF8.self) }

    public init(html: String, headings: [MarkdownHeading]) {
        self.init(utf8: Array(html.utf8), headings: headings)
    }

    public init(utf8: [UInt8], headings: [MarkdownHeading]) {
        self.utf8 = utf8
        self.headings = headings
    }
}

public enum Markdown {
    /// Renders CommonMark to HTML. Every heading gets an `id` attribute (see `headingID(for:)`), duplicates in
    /// one document get `-1`, `-2`, … without colliding with another heading's own id. Never fails: any input,
    /// including NUL bytes (cmark turns them into U+FFFD), gives some HTML.
    public static func render(_ source: String, options: MarkdownOptions = .init()) -> RenderedMarkdown {
        let parseOptions = options.smartPunctuation ? CMARK_OPT_SMART : CMARK_OPT_DEFAULT
        return render(document: parse(source, options: parseOptions), options: options)
    }

    /// The same for Markdown as UTF-8 bytes (a story body read from its file): no String is made of the source.
    public static func render(_ source: [UInt8], options: MarkdownOptions = .init()) -> RenderedMarkdown {
        let parseOptions = options.smartPunctuation ? CMARK_OPT_SMART : CMARK_OPT_DEFAULT
        return render(document: source.withUnsafeBufferPointer { parse(bytes: $0, options: parseOptions) }, options: options)
    }

    private static func render(document: OpaquePointer?, options: MarkdownOptions) -> RenderedMarkdown {
        let renderOptions = options.allowRawHTML ? CMARK_OPT_UNSAFE : CMARK_OPT_DEFAULT
        guard let document else {
            return RenderedMarkdown(utf8: [], headings: [])
        }
        defer { cmark_node_free(document) }

        // Raw HTML allowed: cmark keeps dangerous URLs in unsafe mode, so empty them first (whole-tree walk,
        // links are inlines). Headings are blocks: finding them only needs a walk over the block containers.
        if options.allowRawHTML { neutraliseDangerousURLs(in: document) }
        let headingNodes = headingNodes(in: document)

        var headings: [MarkdownHeading] = []
        if !headingNodes.isEmpty {
            let texts = headingNodes.map { plainTextOfNode($0) }
            let ids = uniqueIDs(texts.map(headingID(for:)))
            headings.reserveCapacity(headingNodes.count)
            for index in headingNodes.indices {
                let node = headingNodes[index]
                let level = Int(cmark_node_get_heading_level(node))
                headings.append(MarkdownHeading(level: level, text: texts[index], id: ids[index]))
                replaceHeading(node, id: ids[index], renderOptions: renderOptions)
            }
        }

        return RenderedMarkdown(utf8: renderHTML(document, options: renderOptions), headings: headings)
    }

    /// The text content without markup, whitespace runs collapsed to one space, trimmed (for meta descriptions
    /// and feed summaries when a story has no summary). Raw HTML and images contribute nothing (as in the
    /// rendered page's text); code spans and code blocks contribute their text. Smart punctuation is applied.
    ///
    /// `limit` is in Characters and bounds the whole result, including the "…" appended when the text is cut
    /// (so `limit: 160` never gives more than 160 Characters). The cut is at the last word boundary that fits:
    /// whitespace, or the edge of a CJK character (CJK has no spaces, so CJK text is cut at the limit); a word
    /// longer than the limit is cut inside. A `limit` of 0 or less gives "".
    public static func plainText(_ source: String, limit: Int? = nil) -> String {
        plainText(document: parse(source, options: CMARK_OPT_SMART), limit: limit)
    }

    /// The same for Markdown as UTF-8 bytes.
    public static func plainText(_ source: [UInt8], limit: Int? = nil) -> String {
        plainText(document: source.withUnsafeBufferPointer { parse(bytes: $0, options: CMARK_OPT_SMART) }, limit: limit)
    }

    private static func plainText(document: OpaquePointer?, limit: Int?) -> String {
        guard let document else { return "" }
        defer { cmark_node_free(document) }
        let text = plainTextOfNode(document)
        guard let limit else { return text }
        return truncated(text, limit: limit)
    }

    /// The id a heading with this plain text gets when it is the first with that id in its document:
    /// lowercased; Unicode letters and digits kept (with their combining marks); every other run of
    /// characters becomes one "-"; no "-" at either end; "section" when nothing is left.
    /// "Élections à Paris" → "élections-à-paris", "地震 最新" → "地震-最新".
    public static func headingID(for text: String) -> String {
        var id: [UInt8] = []
        id.reserveCapacity(text.utf8.count)
        var pendingDash = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {  // fast path: ASCII letters and digits, everything else separates
                var byte = UInt8(truncatingIfNeeded: value)
                if byte >= 0x41 && byte <= 0x5A { byte += 0x20 }
                guard (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) else {
                    pendingDash = true
                    continue
                }
                if pendingDash && !id.isEmpty { id.append(0x2D) }
                pendingDash = false
                id.append(byte)
                continue
            }
            switch idRole(of: scalar) {
            case .word:
                if pendingDash && !id.isEmpty { id.append(0x2D) }
                pendingDash = false
                if scalar.properties.changesWhenLowercased {
                    for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                        UTF8.encode(lower) { id.append($0) }
                    }
                } else {
                    UTF8.encode(scalar) { id.append($0) }
                }
            case .joiner:  // belongs to the letter before it; dropped at the start of a word
                if !pendingDash && !id.isEmpty { UTF8.encode(scalar) { id.append($0) } }
            case .separator:
                pendingDash = true
            }
        }
        return id.isEmpty ? "section" : String(decoding: id, as: UTF8.self)
    }
}

// MARK: - cmark boundary

extension Markdown {
    /// Parses with cmark. The caller frees the document with `cmark_node_free`.
    static func parse(_ source: String, options: Int32) -> OpaquePointer? {
        var source = source
        return source.withUTF8 { parse(bytes: $0, options: options) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>, options: Int32) -> OpaquePointer? {
        let document: OpaquePointer?
        if let base = bytes.baseAddress, !bytes.isEmpty {
            document = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                cmark_parse_document($0, bytes.count, options)
            }
        } else {
            document = cmark_parse_document("", 0, options)
        }
        if document == nil { cmarkFailed("cmark_parse_document") }
        return document
    }

    /// Renders `node` (and what is below it) as UTF-8 bytes and frees cmark's string. (The bytes are copied as
    /// they are: making a String of them would check the UTF-8 of every story body once more.)
    static func renderHTML(_ node: OpaquePointer, options: Int32) -> [UInt8] {
        guard let rendered = cmark_render_html(node, options) else {
            cmarkFailed("cmark_render_html")
            return []
        }
        defer { freeCmarkString(rendered) }
        let length = strlen(rendered)
        return rendered.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// cmark's rendered strings come from its allocator: give them back to the same allocator.
    static func freeCmarkString(_ string: UnsafeMutablePointer<CChar>) {
        if let allocator = cmark_get_default_mem_allocator() {
            allocator.pointee.free(string)
        } else {
            cmarkFailed("cmark_get_default_mem_allocator")
        }
    }

    /// The headings in document order. Iterative (block quotes can nest as deep as the input likes), and
    /// only descends into block quotes, lists and list items: the only blocks that can hold a heading.
    static func headingNodes(in document: OpaquePointer) -> [OpaquePointer] {
        var headings: [OpaquePointer] = []
        var next = cmark_node_first_child(document)
        while let node = next {
            let type = cmark_node_get_type(node)
            if type == CMARK_NODE_HEADING {
                headings.append(node)
            } else if type == CMARK_NODE_BLOCK_QUOTE || type == CMARK_NODE_LIST || type == CMARK_NODE_ITEM,
                let child = cmark_node_first_child(node)
            {
                next = child
                continue
            }
            // Next sibling, else the next sibling of the nearest ancestor that has one.
            next = nil
            var climbing: OpaquePointer? = node
            while let current = climbing, current != document {
                if let sibling = cmark_node_next(current) {
                    next = sibling
                    break
                }
                climbing = cmark_node_parent(current)
            }
        }
        return headings
    }

    /// Empties every link and image URL that cmark's safe mode would empty (for rendering in unsafe mode).
    static func neutraliseDangerousURLs(in document: OpaquePointer) {
        guard let iterator = cmark_iter_new(document) else {
            cmarkFailed("cmark_iter_new")
            return
        }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            if type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE, let url = cmark_node_get_url(node),
                isDangerousURL(url)
            {
                _ = cmarkSucceeded(cmark_node_set_url(node, ""), "cmark_node_set_url")
            }
        }
    }

    /// Replaces the heading `node` (which it frees) by a custom block writing the same HTML cmark would, with
    /// ` id="…"` after `<hN`. `id` holds only letters, marks and digits (see `idRole(of:)`): no escaping needed.
    static func replaceHeading(_ node: OpaquePointer, id: String, renderOptions: Int32) {
        guard let rendered = cmark_render_html(node, renderOptions) else {
            cmarkFailed("cmark_render_html")
            return
        }
        defer { freeCmarkString(rendered) }
        // cmark writes a heading as `<hN>…</hN>\n`.
        let bytes = UnsafeRawPointer(rendered).assumingMemoryBound(to: UInt8.self)
        var length = 0
        while bytes[length] != 0 { length += 1 }
        guard length > 4, bytes[0] == UInt8(ascii: "<"), bytes[1] == UInt8(ascii: "h"), bytes[3] == UInt8(ascii: ">")
        else {
            cmarkFailed("cmark_render_html (unexpected heading markup)")
            return
        }
        if bytes[length - 1] == UInt8(ascii: "\n") { length -= 1 }  // the custom block writes its own line end

        var markup: [UInt8] = []  // `<hN id="…">…</hN>` and a NUL
        markup.reserveCapacity(length + id.utf8.count + 8)
        markup.append(contentsOf: UnsafeBufferPointer(start: bytes, count: 3))  // "<hN"
        markup.append(contentsOf: #" id=""#.utf8)
        markup.append(contentsOf: id.utf8)
        markup.append(UInt8(ascii: "\""))
        markup.append(contentsOf: UnsafeBufferPointer(start: bytes + 3, count: length - 3))  // ">…</hN>"
        markup.append(0)

        guard let block = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK) else {
            cmarkFailed("cmark_node_new")
            return
        }
        let entered = markup.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cmark_node_set_on_enter(block, $0.baseAddress) }
        }
        guard cmarkSucceeded(entered, "cmark_node_set_on_enter"),
            cmarkSucceeded(cmark_node_replace(node, block), "cmark_node_replace")
        else {
            cmark_node_free(block)
            return
        }
        cmark_node_free(node)
    }

    /// The one place a cmark status is checked (cmark returns 1 on success, 0 on failure). A failure here is a
    /// misuse of cmark by this module, never a property of the input: it asserts in debug builds and the
    /// caller falls back to cmark's plain output.
    static func cmarkSucceeded(_ status: Int32, _ call: StaticString) -> Bool {
        if status == 1 { return true }
        cmarkFailed(call)
        return false
    }

    static func cmarkFailed(_ call: StaticString) {
        assertionFailure("Markdown: \(call) failed; this is a bug in the Markdown module, not in the input")
    }

    /// Plain text of everything below `node`: text, code, code blocks; line breaks and block edges become
    /// spaces; raw HTML and images are skipped. Whitespace runs are collapsed to one space, ends trimmed.
    static func plainTextOfNode(_ node: OpaquePointer) -> String {
        guard let iterator = cmark_iter_new(node) else {
            cmarkFailed("cmark_iter_new")
            return ""
        }
        defer { cmark_iter_free(iterator) }
        var text = PlainTextBuffer()
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let current = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(current)
            switch type {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE:
                if let literal = cmark_node_get_literal(current) { text.append(literal) }
            case CMARK_NODE_CODE_BLOCK:
                text.appendSpace()
                if let literal = cmark_node_get_literal(current) { text.append(literal) }
                text.appendSpace()
            case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                text.appendSpace()
            case CMARK_NODE_IMAGE:
                if event == CMARK_EVENT_ENTER, current != node {
                    cmark_iter_reset(iterator, current, CMARK_EVENT_EXIT)  // skip the alt text
                }
            default:
                if type.rawValue >= CMARK_NODE_FIRST_BLOCK.rawValue && type.rawValue <= CMARK_NODE_LAST_BLOCK.rawValue {
                    text.appendSpace()
                }
            }
        }
        return text.string
    }

    /// Same test as cmark's safe mode (`_scan_dangerous_url`): an ASCII-case-insensitive prefix match.
    static func isDangerousURL(_ url: UnsafePointer<CChar>) -> Bool {
        func hasPrefix(_ prefix: StaticString) -> Bool {
            var offset = 0
            let expected = prefix.utf8Start
            while offset < prefix.utf8CodeUnitCount {
                var byte = UInt8(bitPattern: url[offset])  // a NUL ends the URL and mismatches every letter
                if byte >= 0x41 && byte <= 0x5A { byte += 0x20 }
                if byte != expected[offset] { return false }
                offset += 1
            }
            return true
        }
        if hasPrefix("data:image/png") || hasPrefix("data:image/gif") || hasPrefix("data:image/jpeg")
            || hasPrefix("data:image/webp")
        {
            return false
        }
        return hasPrefix("javascript:") || hasPrefix("vbscript:") || hasPrefix("file:") || hasPrefix("data:")
    }
}

// MARK: - Text helpers (pure Swift)

extension Markdown {
    enum IDRole { case word, joiner, separator }

    /// For a non-ASCII scalar: letters and digits make words; combining marks and the zero-width (non-)joiners
    /// some scripts spell words with stay with the letter before them; everything else (punctuation, symbols,
    /// emoji, whitespace, controls, U+FFFD) separates words. So none of `"'<>&#?/` can end up in an id.
    static func idRole(of scalar: Unicode.Scalar) -> IDRole {
        if scalar.value == 0x200C || scalar.value == 0x200D { return .joiner }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            return .word
        case .nonspacingMark, .spacingMark, .enclosingMark:
            return .joiner
        default:
            return .separator
        }
    }

    /// Gives each heading its natural id when it is the first to want it; later duplicates get "-1", "-2", …,
    /// skipping every suffixed id that another heading has as its natural id or that is already taken.
    static func uniqueIDs(_ natural: [String]) -> [String] {
        if natural.count < 2 { return natural }
        // Articles have a handful of headings: linear search beats hashing there; sets keep a document with
        // thousands of headings linear.
        let small = natural.count <= 16
        let naturalSet = small ? [] : Set(natural)
        var takenSet = Set<String>()
        var taken: [String] = []
        func isTaken(_ id: String) -> Bool { small ? taken.contains(id) : takenSet.contains(id) }
        func isSomeonesNaturalID(_ id: String) -> Bool { small ? natural.contains(id) : naturalSet.contains(id) }
        func take(_ id: String) {
            if small { taken.append(id) } else { takenSet.insert(id) }
        }
        var nextSuffix: [String: Int] = [:]
        var result: [String] = []
        result.reserveCapacity(natural.count)
        for base in natural {
            if !isTaken(base) {
                take(base)
                result.append(base)
                continue
            }
            var suffix = nextSuffix[base, default: 1]
            var candidate = "\(base)-\(suffix)"
            while isSomeonesNaturalID(candidate) || isTaken(candidate) {
                suffix += 1
                candidate = "\(base)-\(suffix)"
            }
            nextSuffix[base] = suffix + 1
            take(candidate)
            result.append(candidate)
        }
        return result
    }

    /// Collects text with whitespace runs collapsed to one space and no space at either end.
    struct PlainTextBuffer {
        var bytes: [UInt8] = []
        var pendingSpace = false

        mutating func appendSpace() { pendingSpace = true }

        /// Appends a NUL-terminated UTF-8 string (a cmark literal).
        mutating func append(_ text: UnsafePointer<CChar>) {
            var pointer = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
            while pointer.pointee != 0 {
                let whitespace = Markdown.whitespaceLength(at: pointer)
                if whitespace > 0 {
                    pendingSpace = true
                    pointer += whitespace
                    continue
                }
                if pendingSpace {
                    if !bytes.isEmpty { bytes.append(0x20) }
                    pendingSpace = false
                }
                bytes.append(pointer.pointee)
                pointer += 1
            }
        }

        var string: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// The UTF-8 length of the White_Space character at `pointer` (0 when there is none). `pointer` is in a
    /// NUL-terminated string; each byte is only read when the ones before it matched, so never past the NUL.
    static func whitespaceLength(at pointer: UnsafePointer<UInt8>) -> Int {
        switch pointer[0] {
        case 0x09...0x0D, 0x20:
            return 1
        case 0xC2:  // U+0085, U+00A0
            return pointer[1] == 0x85 || pointer[1] == 0xA0 ? 2 : 0
        case 0xE1:  // U+1680
            return pointer[1] == 0x9A && pointer[2] == 0x80 ? 3 : 0
        case 0xE2:
            if pointer[1] == 0x80 {  // U+2000...U+200A, U+2028, U+2029, U+202F
                let last = pointer[2]
                return (last >= 0x80 && last <= 0x8A) || last == 0xA8 || last == 0xA9 || last == 0xAF ? 3 : 0
            }
            return pointer[1] == 0x81 && pointer[2] == 0x9F ? 3 : 0  // U+205F
        case 0xE3:  // U+3000
            return pointer[1] == 0x80 && pointer[2] == 0x80 ? 3 : 0
        default:
            return 0
        }
    }

    /// Characters of scripts written without spaces between words: every edge of one is a word boundary.
    static func isCJK(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x3000...0x30FF,  // CJK symbols and punctuation, Hiragana, Katakana
            0x31F0...0x31FF,  // Katakana phonetic extensions
            0xFF00...0xFFEF:  // halfwidth and fullwidth forms
            return true
        default:
            return scalar.properties.isIdeographic
        }
    }

    static func truncated(_ text: String, limit: Int) -> String {
        guard limit > 0 else { return "" }
        // Short enough already? (Counts at most limit + 1 Characters.)
        guard let limitIndex = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex),
            limitIndex != text.endIndex
        else {
            return text
        }
        let keep = limit - 1  // leave room for the "…"
        if keep == 0 { return "…" }
        let characters = Array(text.prefix(keep + 1))  // the kept part and the Character after it
        func isBoundary(_ index: Int) -> Bool {  // between characters[index - 1] and characters[index]
            let before = characters[index - 1]
            let after = characters[index]
            return before.isWhitespace || after.isWhitespace || isCJK(before) || isCJK(after)
        }
        var cut = keep
        while cut > 0 && !isBoundary(cut) { cut -= 1 }
        if cut == 0 { cut = keep }  // one word longer than the limit: cut inside it
        var end = cut
        let trailing: Set<Character> = [" ", ",", ";", ":", "，", "、", "-", "–", "—"]
        while end > 0 && trailing.contains(characters[end - 1]) { end -= 1 }
        if end == 0 { end = cut }
        return String(characters[0..<end]) + "…"
    }
}
