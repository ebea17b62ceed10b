/// Turns one template's text into its node tree, in four passes over the UTF-8 bytes:
///
/// 1. `tokenize`: text pieces (cut after each "\n") and tags, following set-delimiter tags;
/// 2. `match`: pairs each opening tag with its closing tag (syntax errors stop here);
/// 3. `markStandalone`: decides which whitespace and line endings around tags disappear, and the
///    indentation of partials, parents and blocks (the spec's standalone and reindentation rules);
/// 4. `build`: the tree, with text merged and argument blocks' intrinsic indentation removed.
///
/// Offsets are byte offsets into the UTF-8 text; they become line:column (in Characters) only for messages.
struct Parser {
    private enum TagKind: Equatable {
        case variable, unescaped, section, inverted, close, comment, delimiters, partial, parent, block

        /// Tags that disappear with their line when they stand alone on it (interpolation never does).
        var canStandAlone: Bool { self != .variable && self != .unescaped }
        var opensElement: Bool { self == .section || self == .inverted || self == .parent || self == .block }

        var elementWord: String {
            switch self {
            case .inverted: return "inverted section"
            case .parent: return "parent"
            case .block: return "block"
            default: return "section"
            }
        }
    }

    private struct Token {
        /// nil for text.
        var tag: TagKind?
        var start: Int
        var end: Int
        /// Trimmed tag content (the name); empty for text, comments and delimiter changes.
        var name: String = ""
        var path: NamePath = .implicit
    }

    /// Deepest nesting of sections, parents and blocks in one template; keeps rendering's recursion bounded.
    static let maximumNesting = 100

    private let bytes: [UInt8]
    private let path: String
    private let lineStarts: [Int]
    private var tokens: [Token] = []
    private(set) var errors: [TemplateError] = []

    // Results of `match`.
    private var partner: [Int] = []
    private var enclosing: [Int] = []
    // Results of `markStandalone`.
    private var lineOf: [Int] = []
    private var lineRanges: [Range<Int>] = []
    private var dropped: [Bool] = []
    private var standaloneTag: [Bool] = []
    private var indentOf: [Int: String] = [:]
    private var blockIndent: [Int: (indent: String, startsLine: Bool)] = [:]
    private var intrinsic: [Int: String] = [:]

    init(text: String, path: String) {
        self.bytes = Array(text.utf8)
        self.path = path
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(offset + 1)
        }
        self.lineStarts = starts
    }

    /// Parses the template; on failure returns nil and `errors` says why.
    mutating func parse() -> Template? {
        tokenize()
        guard errors.isEmpty else { return nil }
        match()
        guard errors.isEmpty else { return nil }
        markStandalone()
        return Template(path: path, nodes: build())
    }

    // MARK: - Locations and messages

    func location(_ offset: Int) -> SourceLocation {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let column = String(decoding: bytes[lineStarts[low]..<offset], as: UTF8.self).count + 1
        return SourceLocation(path: path, line: low + 1, column: column)
    }

    private mutating func error(at offset: Int, _ message: String) {
        let place = location(offset)
        errors.append(TemplateError(path: path, line: place.line, column: place.column, message: message))
    }

    /// The tag as written, shortened for messages.
    private func snippet(_ start: Int, _ end: Int) -> String {
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        guard text.count > 40 else { return text }
        return String(text.prefix(37)) + "…"
    }

    private func at(_ offset: Int) -> String {
        let place = location(offset)
        return "\(place.line):\(place.column)"
    }

    // MARK: - Pass 1: tokens

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, pattern.count <= bytes.count else { return nil }
        var index = start
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == first {
                var offset = 1
                while offset < pattern.count && bytes[index + offset] == pattern[offset] { offset += 1 }
                if offset == pattern.count { return index }
            }
            index += 1
        }
        return nil
    }

    private mutating func appendText(_ start: Int, _ end: Int) {
        var pieceStart = start
        var index = start
        while index < end {
            if bytes[index] == UInt8(ascii: "\n") {
                tokens.append(Token(tag: nil, start: pieceStart, end: index + 1))
                pieceStart = index + 1
            }
            index += 1
        }
        if pieceStart < end {
            tokens.append(Token(tag: nil, start: pieceStart, end: end))
        }
    }

    private mutating func tokenize() {
        var opening = Array("{{".utf8)
        var closing = Array("}}".utf8)
        var position = 0
        while position < bytes.count {
            guard let tagStart = find(opening, from: position) else {
                appendText(position, bytes.count)
                return
            }
            appendText(position, tagStart)
            var contentStart = tagStart + opening.count
            var kind = TagKind.variable
            var terminator = closing
            if contentStart < bytes.count {
                switch bytes[contentStart] {
                case UInt8(ascii: "#"): kind = .section
                case UInt8(ascii: "^"): kind = .inverted
                case UInt8(ascii: "/"): kind = .close
                case UInt8(ascii: "!"): kind = .comment
                case UInt8(ascii: ">"): kind = .partial
                case UInt8(ascii: "<"): kind = .parent
                case UInt8(ascii: "$"): kind = .block
                case UInt8(ascii: "&"): kind = .unescaped
                case UInt8(ascii: "{"):
                    kind = .unescaped
                    terminator = [UInt8(ascii: "}")] + closing
                case UInt8(ascii: "="):
                    kind = .delimiters
                    terminator = [UInt8(ascii: "=")] + closing
                default: break
                }
                if kind != .variable { contentStart += 1 }
            }
            guard let contentEnd = find(terminator, from: contentStart) else {
                let opener = snippet(tagStart, min(contentStart, bytes.count))
                let closer = String(decoding: terminator, as: UTF8.self)
                error(at: tagStart, "unclosed tag \"\(opener)\": no \"\(closer)\" follows it before the end of the template")
                return
            }
            let tagEnd = contentEnd + terminator.count
            var token = Token(tag: kind, start: tagStart, end: tagEnd)
            var trimmedStart = contentStart
            var trimmedEnd = contentEnd
            while trimmedStart < trimmedEnd && Self.isSpace(bytes[trimmedStart]) { trimmedStart += 1 }
            while trimmedEnd > trimmedStart && Self.isSpace(bytes[trimmedEnd - 1]) { trimmedEnd -= 1 }
            let content = bytes[trimmedStart..<trimmedEnd]

            switch kind {
            case .comment:
                break
            case .delimiters:
                let parts = content.split(whereSeparator: Self.isSpace)
                if parts.count == 2, !parts.contains(where: { $0.contains(UInt8(ascii: "=")) }) {
                    opening = Array(parts[0])
                    closing = Array(parts[1])
                } else {
                    error(at: tagStart, "invalid delimiter change \"\(snippet(tagStart, tagEnd))\": "
                        + "expected two delimiters separated by whitespace, without \"=\" or whitespace in them, like {{=<% %>=}}")
                }
            default:
                let name = String(decoding: content, as: UTF8.self)
                token.name = name
                if name.isEmpty {
                    error(at: tagStart, "empty tag name in \"\(snippet(tagStart, tagEnd))\"")
                } else if content.contains(where: Self.isSpace) {
                    error(at: tagStart, "invalid tag name \"\(name)\" in \"\(snippet(tagStart, tagEnd))\": names cannot contain whitespace")
                } else if kind == .variable || kind == .unescaped || kind == .section || kind == .inverted || kind == .close {
                    if name == "." {
                        token.path = .implicit
                    } else {
                        let keys = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                        if keys.contains(where: \.isEmpty) {
                            error(at: tagStart, "invalid name \"\(name)\" in \"\(snippet(tagStart, tagEnd))\": "
                                + "a dotted name needs a key between every two dots, like a.b.c")
                        }
                        token.path = .keys(keys)
                    }
                }
            }
            tokens.append(token)
            position = tagEnd
        }
    }

    // MARK: - Pass 2: pairs

    private mutating func match() {
        partner = Array(repeating: -1, count: tokens.count)
        enclosing = Array(repeating: -1, count: tokens.count)
        var open: [Int] = []
        var reportedDepth = false
        for index in tokens.indices {
            enclosing[index] = open.last ?? -1
            guard let kind = tokens[index].tag else { continue }
            if kind.opensElement {
                open.append(index)
                if open.count > Self.maximumNesting && !reportedDepth {
                    reportedDepth = true
                    error(at: tokens[index].start, "sections, parents and blocks nested more than \(Self.maximumNesting) levels deep")
                }
            } else if kind == .close {
                let token = tokens[index]
                if let depth = open.lastIndex(where: { tokens[$0].name == token.name }) {
                    for unclosed in open[(depth + 1)...].reversed() {
                        let opener = tokens[unclosed]
                        error(at: token.start, "unclosed \(opener.tag?.elementWord ?? "section") \"\(opener.name)\" "
                            + "(opened at \(at(opener.start))): close it before \"\(snippet(token.start, token.end))\"")
                    }
                    partner[open[depth]] = index
                    partner[index] = open[depth]
                    open.removeSubrange(depth...)
                } else if let innermost = open.last {
                    // Most likely a typo in the name: report it and let the tag close the open element,
                    // so that one mistake gives one error.
                    let opener = tokens[innermost]
                    error(at: token.start, "mismatched closing tag \"\(snippet(token.start, token.end))\": "
                        + "the open \(opener.tag?.elementWord ?? "section") is \"\(opener.name)\" (opened at \(at(opener.start)))")
                    partner[innermost] = index
                    partner[index] = innermost
                    open.removeLast()
                } else {
                    error(at: token.start, "closing tag \"\(snippet(token.start, token.end))\" has no opening tag")
                }
            }
        }
        for unclosed in open.reversed() {
            let opener = tokens[unclosed]
            error(at: bytes.count, "unclosed \(opener.tag?.elementWord ?? "section") \"\(opener.name)\" "
                + "(opened at \(at(opener.start)))")
        }
    }

    // MARK: - Pass 3: standalone lines and indentation

    /// Text made only of spaces and tabs, optionally ending with "\n" or "\r\n".
    private func isBlank(_ token: Token) -> Bool {
        guard token.tag == nil else { return false }
        var end = token.end
        if end > token.start && bytes[end - 1] == UInt8(ascii: "\n") {
            end -= 1
            if end > token.start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        }
        var index = token.start
        while index < end {
            if bytes[index] != UInt8(ascii: " ") && bytes[index] != UInt8(ascii: "\t") { return false }
            index += 1
        }
        return true
    }

    private func text(_ token: Token) -> String {
        String(decoding: bytes[token.start..<token.end], as: UTF8.self)
    }

    /// The whitespace before token `index` on its line if nothing else precedes it there, else nil.
    private func blankBefore(_ index: Int) -> String? {
        let line = lineRanges[lineOf[index]]
        var indentation = ""
        for other in line.lowerBound..<index {
            guard isBlank(tokens[other]) else { return nil }
            indentation += text(tokens[other])
        }
        return indentation
    }

    /// Whether only whitespace (and the line ending) follows token `index` on its line.
    private func blankAfter(_ index: Int) -> Bool {
        let line = lineRanges[lineOf[index]]
        return (index + 1..<line.upperBound).allSatisfy { isBlank(tokens[$0]) }
    }

    private mutating func dropBefore(_ index: Int) {
        for other in lineRanges[lineOf[index]].lowerBound..<index { dropped[other] = true }
    }

    private mutating func dropAfter(_ index: Int) {
        for other in index + 1..<lineRanges[lineOf[index]].upperBound { dropped[other] = true }
    }

    /// Spaces and tabs at the start of the source line after the line of token `index` ("" at the end).
    private func indentationOfNextLine(_ index: Int) -> String {
        let line = lineRanges[lineOf[index]]
        guard let last = line.last, tokens[last].tag == nil, bytes[tokens[last].end - 1] == UInt8(ascii: "\n") else {
            return ""
        }
        let start = tokens[last].end
        var end = start
        while end < bytes.count && (bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t")) { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private func isArgument(_ index: Int) -> Bool {
        let outer = enclosing[index]
        return outer >= 0 && tokens[outer].tag == .parent
    }

    private mutating func markStandalone() {
        lineOf = Array(repeating: 0, count: tokens.count)
        dropped = Array(repeating: false, count: tokens.count)
        standaloneTag = Array(repeating: false, count: tokens.count)
        var lineStart = 0
        for index in tokens.indices {
            lineOf[index] = lineRanges.count
            let token = tokens[index]
            if token.tag == nil && bytes[token.end - 1] == UInt8(ascii: "\n") {
                lineRanges.append(lineStart..<index + 1)
                lineStart = index + 1
            }
        }
        if lineStart < tokens.count { lineRanges.append(lineStart..<tokens.count) }

        // A tag alone on its line (but for whitespace) takes the whole line with it.
        for line in lineRanges {
            let tags = line.filter { tokens[$0].tag != nil }
            guard tags.count == 1, let only = tags.first, let kind = tokens[only].tag, kind.canStandAlone,
                line.allSatisfy({ $0 == only || isBlank(tokens[$0]) })
            else { continue }
            standaloneTag[only] = true
            indentOf[only] = blankBefore(only) ?? ""
            for other in line where other != only { dropped[other] = true }
        }

        for index in tokens.indices {
            guard let kind = tokens[index].tag, partner[index] >= 0 else { continue }
            let close = partner[index]
            switch kind {
            case .parent:
                // A parent element stands alone when its opening tag starts its line and its closing
                // tag ends its line, even on one line: `  {{<layout}}{{/layout}}`.
                if let indentation = blankBefore(index), blankAfter(close) {
                    indentOf[index] = indentation
                    standaloneTag[index] = true
                    dropBefore(index)
                    dropAfter(close)
                }
            case .block where isArgument(index):
                // An argument's opening tag at the end of its line takes the line ending with it; the
                // next line's indentation is the argument's intrinsic indentation.
                if blankAfter(index), let last = lineRanges[lineOf[index]].last, tokens[last].tag == nil {
                    dropAfter(index)
                    intrinsic[index] = indentationOfNextLine(index)
                }
                if lineOf[close] != lineOf[index], blankBefore(close) != nil {
                    dropBefore(close)
                }
            case .block:
                // A parameter block standing alone as a pair indents the argument that overrides it:
                // by its intrinsic indentation when its opening tag ends the line, else by the
                // whitespace before the opening tag (which stays in the output as text).
                if let indentation = blankBefore(index), blankAfter(close) {
                    if standaloneTag[index] {
                        blockIndent[index] = (indentationOfNextLine(index), true)
                    } else {
                        blockIndent[index] = (indentation, false)
                    }
                }
            default:
                break
            }
        }
    }

    // MARK: - Pass 4: tree

    private enum FrameKind { case root, section, inverted, parent, argument, parameter }

    private struct Frame {
        var kind: FrameKind
        var opener: Int
        /// Content of ignored places (text and tags inside a parent but outside its blocks).
        var discard: Bool
        var nodes: [Node] = []
        var text = ""
        var arguments: [String: [Node]] = [:]

        mutating func flushText() {
            if !text.isEmpty {
                nodes.append(.text(TextChunk(text)))
                text = ""
            }
        }
    }

    private func removingIntrinsicIndentation(_ string: String, _ strips: [String]) -> String {
        var result = Substring(string)
        for strip in strips where !strip.isEmpty && result.hasPrefix(strip) {
            result = result.dropFirst(strip.count)
        }
        return String(result)
    }

    private func build() -> [Node] {
        var frames = [Frame(kind: .root, opener: -1, discard: false)]
        var strips: [String] = []

        func append(_ node: Node) {
            guard !frames[frames.count - 1].discard, frames[frames.count - 1].kind != .parent else { return }
            frames[frames.count - 1].flushText()
            frames[frames.count - 1].nodes.append(node)
        }

        for index in tokens.indices where !dropped[index] {
            let token = tokens[index]
            let top = frames[frames.count - 1]
            let ignoring = top.discard || top.kind == .parent
            guard let kind = token.tag else {
                if ignoring { continue }
                var piece = text(token)
                if token.start == 0 || bytes[token.start - 1] == UInt8(ascii: "\n") {
                    piece = removingIntrinsicIndentation(piece, strips)
                }
                frames[frames.count - 1].text += piece
                continue
            }
            switch kind {
            case .comment, .delimiters:
                break
            case .variable, .unescaped:
                append(.variable(token.path, escaped: kind == .variable))
            case .partial:
                let place = location(token.start)
                let indentation = removingIntrinsicIndentation(indentOf[index] ?? "", strips)
                append(.include(Include(name: token.name, isParent: false, indent: standaloneTag[index] ? indentation : "",
                                        standalone: standaloneTag[index], arguments: [:], location: place)))
            case .section, .inverted, .parent:
                let frameKind: FrameKind = kind == .section ? .section : kind == .inverted ? .inverted : .parent
                frames.append(Frame(kind: frameKind, opener: index, discard: ignoring))
            case .block:
                if top.kind == .parent && !top.discard {
                    let own = removingIntrinsicIndentation(intrinsic[index] ?? "", strips)
                    strips.append(own)
                    frames.append(Frame(kind: .argument, opener: index, discard: false))
                } else {
                    frames.append(Frame(kind: .parameter, opener: index, discard: ignoring))
                }
            case .close:
                var frame = frames.removeLast()
                frame.flushText()
                let opener = tokens[frame.opener]
                switch frame.kind {
                case .root:
                    break  // unreachable: `match` paired every closing tag
                case .section:
                    append(.section(opener.path, frame.nodes))
                case .inverted:
                    append(.inverted(opener.path, frame.nodes))
                case .parent:
                    let indentation = removingIntrinsicIndentation(indentOf[frame.opener] ?? "", strips)
                    append(.include(Include(name: opener.name, isParent: true,
                                            indent: standaloneTag[frame.opener] ? indentation : "",
                                            standalone: standaloneTag[frame.opener], arguments: frame.arguments,
                                            location: location(opener.start))))
                case .argument:
                    strips.removeLast()
                    frames[frames.count - 1].arguments[opener.name] = frame.nodes
                case .parameter:
                    let site = blockIndent[frame.opener] ?? ("", false)
                    append(.block(BlockSite(name: opener.name,
                                            indent: removingIntrinsicIndentation(site.indent, strips),
                                            startsLine: site.startsLine, defaultContent: frame.nodes)))
                }
            }
        }
        frames[0].flushText()
        return frames[0].nodes
    }
}
