// The only file that sees libyaml. It drives libyaml's event parser over one UTF-8 buffer and builds the
// Swift tree; every libyaml status goes through `EventReader.check`, and all C memory (the parser and every
// event) is freed before `parse` returns.

internal import CYAML

extension YAMLDocument {
    /// Parses exactly one YAML document. Empty input (or only comments) returns nil.
    /// `lineOffset` is added to every line number (front matter starts on line 2 of a story file,
    /// so the caller passes 1).
    public static func parse(_ text: String, lineOffset: Int = 0) throws(YAMLError) -> YAMLNode? {
        let shield = LineBreakShield(text)
        let substituted = shield.substituted
        var input = shield.text
        let result: Result<YAMLNode?, YAMLError> = input.withUTF8 { buffer in
            // libyaml keeps a pointer into `buffer` for the whole parse, so all of it happens in here.
            guard buffer.count > 0 else { return .success(nil) }
            do throws(YAMLError) {
                let reader = try EventReader(buffer: buffer, lineOffset: lineOffset)
                defer { reader.close() }
                var builder = TreeBuilder(reader: reader, restoreLineBreaks: substituted)
                return .success(try builder.buildDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - Line breaks outside ASCII

/// libyaml follows YAML 1.1, where NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029)
/// are line breaks. Pasted news copy does contain U+2028, and YAML 1.2 (and every editor's line count)
/// treats these as ordinary characters, so they are swapped for three Unicode noncharacters before parsing
/// and swapped back in scalar text. Each substitute is one scalar, so columns stay right. If the text
/// already contains one of the substitutes (it never should), nothing is swapped.
struct LineBreakShield {
    var text: String
    var substituted = false

    init(_ text: String) {
        self.text = text
        // Fast path: NEL, LS and PS have UTF-8 lead bytes 0xC2 and 0xE2.
        guard text.utf8.contains(where: { $0 == 0xC2 || $0 == 0xE2 }) else { return }
        let scalars = text.unicodeScalars
        guard scalars.contains(where: { Self.substitute(for: $0) != nil }),
            !scalars.contains(where: { Self.original(of: $0) != nil })
        else { return }
        var swapped = String.UnicodeScalarView()
        for scalar in scalars { swapped.append(Self.substitute(for: scalar) ?? scalar) }
        self.text = String(swapped)
        substituted = true
    }

    /// Undoes the swap in a scalar's text.
    static func restore(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { original(of: $0) != nil }) else { return text }
        var restored = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { restored.append(original(of: scalar) ?? scalar) }
        return String(restored)
    }

    // Swift literals cannot spell noncharacters, hence the numeric values.
    private static func substitute(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x85: Unicode.Scalar(UInt32(0xFDD0))
        case 0x2028: Unicode.Scalar(UInt32(0xFDD1))
        case 0x2029: Unicode.Scalar(UInt32(0xFDD2))
        default: nil
        }
    }

    private static func original(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0xFDD0: "\u{85}"
        case 0xFDD1: "\u{2028}"
        case 0xFDD2: "\u{2029}"
        default: nil
        }
    }
}

// MARK: - libyaml events

/// One libyaml event, copied into Swift values.
enum Event {
    case streamStart, streamEnd
    case documentStart, documentEnd
    case alias(anchor: String)
    case scalar(YAMLScalar, anchor: String?)
    case sequenceStart(anchor: String?)
    case sequenceEnd
    case mappingStart(anchor: String?)
    case mappingEnd
}

/// Owns the libyaml parser (heap-allocated: libyaml stores a pointer to the parser inside itself, so it
/// must not move) and hands out Swift events. Not Sendable: it lives inside one `parse` call.
final class EventReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let event: UnsafeMutablePointer<yaml_event_t>
    private let buffer: UnsafeBufferPointer<UInt8>
    let lineOffset: Int
    private var initialized = false

    init(buffer: UnsafeBufferPointer<UInt8>, lineOffset: Int) throws(YAMLError) {
        self.buffer = buffer
        self.lineOffset = lineOffset
        parser = .allocate(capacity: 1)
        event = .allocate(capacity: 1)
        do {
            try check(yaml_parser_initialize(parser), call: "yaml_parser_initialize")
        } catch {
            close()
            throw error
        }
        initialized = true
        if let base = buffer.baseAddress {
            yaml_parser_set_input_string(parser, base, buffer.count)
        }
    }

    /// Frees the parser. Safe to call once after init succeeded or failed.
    func close() {
        if initialized {
            yaml_parser_delete(parser)
            initialized = false
        }
        parser.deallocate()
        event.deallocate()
    }

    /// The next event, with the location where it starts. The C event is freed before this returns.
    func next() throws(YAMLError) -> (Event, SourceLocation) {
        try check(yaml_parser_parse(parser, event), call: "yaml_parser_parse")
        defer { yaml_event_delete(event) }
        let location = self.location(of: event.pointee.start_mark)
        let data = event.pointee.data
        switch event.pointee.type {
        case YAML_STREAM_START_EVENT: return (.streamStart, location)
        case YAML_STREAM_END_EVENT: return (.streamEnd, location)
        case YAML_DOCUMENT_START_EVENT: return (.documentStart, location)
        case YAML_DOCUMENT_END_EVENT: return (.documentEnd, location)
        case YAML_ALIAS_EVENT: return (.alias(anchor: Self.string(data.alias.anchor) ?? ""), location)
        case YAML_SCALAR_EVENT:
            let scalar = data.scalar
            var text = ""
            if let value = scalar.value, scalar.length > 0 {
                text = String(decoding: UnsafeBufferPointer(start: value, count: scalar.length), as: UTF8.self)
            }
            let isPlain = scalar.style == YAML_PLAIN_SCALAR_STYLE && scalar.tag == nil
            return (.scalar(YAMLScalar(text: text, isPlain: isPlain), anchor: Self.string(scalar.anchor)), location)
        case YAML_SEQUENCE_START_EVENT:
            return (.sequenceStart(anchor: Self.string(data.sequence_start.anchor)), location)
        case YAML_SEQUENCE_END_EVENT: return (.sequenceEnd, location)
        case YAML_MAPPING_START_EVENT:
            return (.mappingStart(anchor: Self.string(data.mapping_start.anchor)), location)
        case YAML_MAPPING_END_EVENT: return (.mappingEnd, location)
        default:
            throw YAMLError(message: "the YAML parser produced an unknown event", location: location)
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    // MARK: Locations

    func location(of mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(line: Self.add(Int(mark.line) + 1, lineOffset), column: Int(mark.column) + 1)
    }

    private static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? Int.max : Int.min) : sum
    }

    /// Location of a byte offset (libyaml's reader errors carry one instead of a mark).
    private func location(ofByteOffset offset: Int) -> SourceLocation {
        var line = 1
        var column = 1
        var index = Self.hasByteOrderMark(buffer) ? 3 : 0  // libyaml does not count the BOM as a column
        let end = min(offset, buffer.count)
        while index < end {
            let byte = buffer[index]
            if byte == 0x0A || (byte == 0x0D && (index + 1 >= buffer.count || buffer[index + 1] != 0x0A)) {
                line += 1
                column = 1
            } else if byte != 0x0D && byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return SourceLocation(line: Self.add(line, lineOffset), column: column)
    }

    private static func hasByteOrderMark(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF
    }

    /// The character at libyaml's character index (marks count characters, not bytes), if any.
    private func character(at mark: yaml_mark_t) -> Unicode.Scalar? {
        var scalars = String(decoding: buffer, as: UTF8.self).unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        return scalars.dropFirst(Int(mark.index)).first
    }

    // MARK: Status codes

    /// The one place a libyaml status code is checked. On failure it turns libyaml's error state into a
    /// YAMLError that says what is wrong in words for people, where, and what would be right.
    private func check(_ status: Int32, call: StaticString) throws(YAMLError) {
        guard status == 0 else { return }
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? ""
        let context = state.context.map { String(cString: $0) }
        let problemLocation = location(of: state.problem_mark)
        let contextLocation = location(of: state.context_mark)

        switch state.error {
        case YAML_MEMORY_ERROR:
            throw YAMLError(message: "out of memory while parsing YAML (\(call) failed)", location: problemLocation)
        case YAML_READER_ERROR:
            let offsetLocation = location(ofByteOffset: state.problem_offset)
            if problem == "control characters are not allowed" {
                let value = Int(state.problem_value)
                throw YAMLError(
                    message: "\(Self.describe(codePoint: value)) is not allowed in YAML; remove it, "
                        + "or write it as an escape like \\x07 inside a double-quoted string",
                    location: offsetLocation)
            }
            throw YAMLError(message: "cannot read the text: \(problem)", location: offsetLocation)
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR, YAML_COMPOSER_ERROR:
            let readable = Self.readable(
                problem: problem, context: context, contextLocation: contextLocation,
                problemCharacter: character(at: state.problem_mark),
                contextCharacter: character(at: state.context_mark))
            throw YAMLError(
                message: readable.message, location: readable.atContext ? contextLocation : problemLocation)
        default:
            throw YAMLError(
                message: "\(call) failed" + (problem.isEmpty ? "" : ": \(problem)"), location: problemLocation)
        }
    }

    private static func describe(codePoint value: Int) -> String {
        var hex = String(value, radix: 16, uppercase: true)
        if hex.count < 4 { hex = String(repeating: "0", count: 4 - hex.count) + hex }
        let name =
            value == 0
            ? "NUL character" : (value < 0x20 || (0x7F...0x9F).contains(value)) ? "control character" : "character"
        return "\(name) U+\(hex)"
    }

    /// libyaml's problem text rewritten for people. `atContext` moves the error to the context mark, for
    /// problems that are found at the end of the text but caused where something was opened.
    static func readable(
        problem: String, context: String?, contextLocation: SourceLocation,
        problemCharacter: Unicode.Scalar?, contextCharacter: Unicode.Scalar?
    ) -> (message: String, atContext: Bool) {
        let tabs = "tab characters are not allowed for indentation; indent with spaces"
        switch problem {
        case "mapping values are not allowed in this context":
            return ("mapping values are not allowed here; put the value in quotes if it contains \": \"", false)
        case "found a tab character that violates indentation":
            return (tabs, false)
        case "found character that cannot start any token":
            if problemCharacter == "\t" { return (tabs, false) }
            let shown = problemCharacter.map { " '\($0)'" } ?? ""
            return ("a value cannot start with the character\(shown); put the value in quotes", false)
        case "found unexpected end of stream" where context == "while scanning a quoted scalar":
            let quote = contextCharacter == "'" ? "'" : "\""
            return ("this quoted text is never closed; add the closing \(quote)", true)
        case "did not find expected key" where context == "while parsing a block mapping":
            return (
                "expected a \"key: value\" line of the mapping that starts at \(contextLocation); "
                    + "check the indentation, and quote values that contain ': ' or start with a quote", false
            )
        case "did not find expected '-' indicator":
            return (
                "expected a list item (\"- ...\") of the list that starts at \(contextLocation); check the indentation",
                false
            )
        case "did not find expected ',' or '}'":
            return ("expected ',' or '}' in the flow mapping '{' opened at \(contextLocation)", false)
        case "did not find expected ',' or ']'":
            return ("expected ',' or ']' in the flow list '[' opened at \(contextLocation)", false)
        case "could not find expected ':'":
            return ("expected ':' after the key that starts at \(contextLocation)", false)
        case "did not find expected <document start>":
            return ("unexpected text after the end of the document ('...')", false)
        default:
            guard let context, !context.isEmpty else { return (problem, false) }
            return ("\(problem) (\(context) that starts at \(contextLocation))", false)
        }
    }
}

// MARK: - Tree building

/// Builds the node tree from the event stream without recursion, resolving aliases and enforcing the
/// limits on size and depth.
struct TreeBuilder {
    private struct Frame {
        var isMapping: Bool
        var location: SourceLocation
        var anchor: String?
        var nodeCountAtStart: Int
        var childHeight = 0
        var items: [YAMLNode] = []
        var entries: [YAMLEntry] = []
        var pendingKey: YAMLNode?
        var keyLocations: [String: SourceLocation] = [:]
    }

    private struct Anchored {
        var node: YAMLNode
        var size: Int
        var height: Int
    }

    private let reader: EventReader
    private let restoreLineBreaks: Bool
    private var frames: [Frame] = []
    private var anchors: [String: Anchored] = [:]
    private var nodeCount = 0
    private var root: YAMLNode?

    init(reader: EventReader, restoreLineBreaks: Bool) {
        self.reader = reader
        self.restoreLineBreaks = restoreLineBreaks
    }

    mutating func buildDocument() throws(YAMLError) -> YAMLNode? {
        var documents = 0
        while true {
            let (event, location) = try reader.next()
            switch event {
            case .streamStart, .documentEnd:
                continue
            case .streamEnd:
                return root
            case .documentStart:
                documents += 1
                if documents > 1 {
                    throw YAMLError(
                        message: "only one YAML document is allowed here; remove this '---' "
                            + "(and everything after it that belongs to a second document)",
                        location: location)
                }
            case .scalar(var scalar, let anchor):
                if restoreLineBreaks { scalar.text = LineBreakShield.restore(scalar.text) }
                try count(1, at: location)
                let node = YAMLNode(value: .scalar(scalar), location: location)
                if let anchor { anchors[anchor] = Anchored(node: node, size: 1, height: 1) }
                try add(node, height: 1)
            case .alias(let name):
                guard let target = anchors[name] else {
                    if frames.contains(where: { $0.anchor == name }) {
                        throw YAMLError(
                            message:
                                "alias \"*\(name)\" refers to the node that contains it; recursive aliases are not allowed",
                            location: location)
                    }
                    throw YAMLError(
                        message:
                            "undefined alias \"*\(name)\"; define it first with \"&\(name)\" before the value it names",
                        location: location)
                }
                try count(target.size, at: location)
                try checkDepth(frames.count + target.height, at: location)
                var copy = target.node
                copy.location = location
                try add(copy, height: target.height)
            case .sequenceStart(let anchor), .mappingStart(let anchor):
                if let top = frames.last, top.isMapping, top.pendingKey == nil {
                    throw YAMLError(
                        message: "mapping keys must be plain text, not a list or mapping", location: location)
                }
                try count(1, at: location)
                try checkDepth(frames.count + 1, at: location)
                var isMapping = false
                if case .mappingStart = event { isMapping = true }
                frames.append(
                    Frame(isMapping: isMapping, location: location, anchor: anchor, nodeCountAtStart: nodeCount - 1))
            case .sequenceEnd, .mappingEnd:
                guard let frame = frames.popLast() else {
                    throw YAMLError(message: "unbalanced end of a list or mapping", location: location)
                }
                let value: YAMLNode.Value = frame.isMapping ? .mapping(frame.entries) : .sequence(frame.items)
                let node = YAMLNode(value: value, location: frame.location)
                let height = frame.childHeight + 1
                if let anchor = frame.anchor {
                    anchors[anchor] = Anchored(node: node, size: nodeCount - frame.nodeCountAtStart, height: height)
                }
                try add(node, height: height)
            }
        }
    }

    private mutating func count(_ nodes: Int, at location: SourceLocation) throws(YAMLError) {
        nodeCount += nodes
        if nodeCount > YAMLDocument.maximumNodeCount {
            throw YAMLError(
                message: "document too large: it expands to more than \(YAMLDocument.maximumNodeCount) values "
                    + "(check for aliases that copy large parts many times)",
                location: location)
        }
    }

    private func checkDepth(_ depth: Int, at location: SourceLocation) throws(YAMLError) {
        if depth > YAMLDocument.maximumDepth {
            throw YAMLError(
                message: "lists and mappings are nested too deeply (more than \(YAMLDocument.maximumDepth) levels)",
                location: location)
        }
    }

    /// Puts a finished node into the collection being built (or makes it the document).
    private mutating func add(_ node: YAMLNode, height: Int) throws(YAMLError) {
        guard !frames.isEmpty else {
            root = node
            return
        }
        let top = frames.count - 1
        frames[top].childHeight = max(frames[top].childHeight, height)
        guard frames[top].isMapping else {
            frames[top].items.append(node)
            return
        }
        if let key = frames[top].pendingKey {
            frames[top].entries.append(YAMLEntry(key: key, value: node))
            frames[top].pendingKey = nil
            return
        }
        guard case .scalar(let scalar) = node.value else {
            throw YAMLError(message: "mapping keys must be plain text, not a list or mapping", location: node.location)
        }
        if let first = frames[top].keyLocations[scalar.text] {
            throw YAMLError(
                message: "duplicate key \"\(scalar.text)\" (first defined at line \(first.line))",
                location: node.location)
        }
        frames[top].keyLocations[scalar.text] = node.location
        frames[top].pendingKey = node
    }
}
