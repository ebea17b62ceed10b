/// One rendering: walks the immutable node trees and appends everything to one UTF-8 buffer,
/// which becomes the result String once at the end.
///
/// Indentation of standalone partials, parents and blocks is applied while writing: `indent` is the
/// current prefix and `atLineStart` says whether template text just ended a line. The prefix is
/// written before the next output that comes from the template (text or a tag's value), so values
/// with newlines in them are not re-indented, as the spec requires.
struct Renderer {
    /// More partial/parent levels than this is an error (unbounded recursion, usually).
    static let maximumIncludeDepth = 64

    private let templates: [String: Template]
    private var output: [UInt8] = []
    private var stack: [TemplateValue]
    private var indent = ""
    private var atLineStart = true
    /// Block arguments of the parents being expanded, outermost first (the outermost wins).
    private var arguments: [[String: [Node]]] = []
    private var depth = 0

    init(templates: [String: Template], context: TemplateValue) {
        self.templates = templates
        self.stack = [context]
        output.reserveCapacity(4096)
    }

    /// What was rendered.
    var result: String { String(decoding: output, as: UTF8.self) }
    /// The output as UTF-8 bytes, as written.
    var bytes: [UInt8] { output }

    /// What to do when the node list of a frame has been rendered.
    private enum Exit {
        case none
        /// Pop the context of a section; then render `content` again for `items[next]` if there is one.
        case nextItem(items: [TemplateValue], next: Int)
        case popContext
        /// Leave a partial or parent: restore the indentation, drop its arguments.
        case leaveInclude(indent: String, hadArguments: Bool)
        case restoreIndent(String)
    }

    private struct Frame {
        let nodes: [Node]
        var index = 0
        let exit: Exit
    }

    /// Renders `nodes` with an explicit stack of frames instead of recursion, so that deep nesting
    /// (sections inside partials inside sections…) cannot overflow a thread's stack.
    mutating func render(_ nodes: [Node]) throws(TemplateError) {
        var frames = [Frame(nodes: nodes, exit: .none)]
        while !frames.isEmpty {
            let top = frames.count - 1
            let index = frames[top].index
            guard index < frames[top].nodes.count else {
                let frame = frames.removeLast()
                switch frame.exit {
                case .none:
                    break
                case .nextItem(let items, let next):
                    stack.removeLast()
                    if next < items.count {
                        stack.append(items[next])
                        frames.append(Frame(nodes: frame.nodes, exit: .nextItem(items: items, next: next + 1)))
                    }
                case .popContext:
                    stack.removeLast()
                case .leaveInclude(let outer, let hadArguments):
                    indent = outer
                    if hadArguments { arguments.removeLast() }
                    depth -= 1
                case .restoreIndent(let outer):
                    indent = outer
                }
                continue
            }
            frames[top].index = index + 1
            switch frames[top].nodes[index] {
            case .text(let chunk):
                write(chunk)
            case .variable(let path, let escaped):
                guard let value = resolve(path) else { continue }
                switch value {
                case .string(let string): write(string, escaped: escaped)
                case .utf8(let bytes): bytes.withUnsafeBufferPointer { write($0, escaped: escaped) }
                case .null: break
                default: write(value.interpolatedText, escaped: escaped)
                }
            case .section(let path, let content):
                guard let value = resolve(path), !content.isEmpty else { continue }
                switch value {
                case .list(let items):
                    guard let first = items.first else { continue }
                    stack.append(first)
                    frames.append(Frame(nodes: content, exit: .nextItem(items: items, next: 1)))
                default:
                    guard value.isTruthy else { continue }
                    stack.append(value)
                    frames.append(Frame(nodes: content, exit: .popContext))
                }
            case .inverted(let path, let content):
                if !(resolve(path)?.isTruthy ?? false) {
                    frames.append(Frame(nodes: content, exit: .none))
                }
            case .include(let include):
                guard let template = templates[include.name] else { continue }  // the spec renders a missing partial as ""
                guard depth < Self.maximumIncludeDepth else {
                    let tag = include.isParent ? "{{<\(include.name)}}" : "{{>\(include.name)}}"
                    throw TemplateError(
                        path: include.location.path, line: include.location.line, column: include.location.column,
                        message: "partials and parents nested more than \(Self.maximumIncludeDepth) levels deep at \(tag) "
                            + "(does \"\(include.name)\" include itself without a section that ends the recursion?)")
                }
                let hasArguments = !include.arguments.isEmpty
                if hasArguments { arguments.append(include.arguments) }
                depth += 1
                frames.append(Frame(nodes: template.nodes, exit: .leaveInclude(indent: indent, hadArguments: hasArguments)))
                indent += include.indent
                if include.standalone { atLineStart = true }
            case .block(let site):
                if let argument = argument(named: site.name) {
                    frames.append(Frame(nodes: argument, exit: .restoreIndent(indent)))
                    indent += site.indent
                    if site.startsLine { atLineStart = true }
                } else {
                    frames.append(Frame(nodes: site.defaultContent, exit: .none))
                }
            }
        }
    }

    private func argument(named name: String) -> [Node]? {
        for frame in arguments {
            if let content = frame[name] { return content }
        }
        return nil
    }

    /// `.` is the top of the stack; `a.b.c` finds `a` in the nearest context that has it, then
    /// `b` and `c` only inside what it found.
    private func resolve(_ path: NamePath) -> TemplateValue? {
        switch path {
        case .implicit:
            return stack.last
        case .keys(let keys):
            guard let first = keys.first else { return nil }
            var index = stack.count - 1
            while index >= 0 {
                if case .object(let members) = stack[index], var value = members[first] {
                    for key in keys.dropFirst() {
                        guard case .object(let inner) = value, let next = inner[key] else { return nil }
                        value = next
                    }
                    return value
                }
                index -= 1
            }
            return nil
        }
    }

    // MARK: - Output

    private mutating func write(_ chunk: TextChunk) {
        if indent.isEmpty {
            output.append(contentsOf: chunk.bytes)
        } else {
            for line in chunk.lines {
                if atLineStart && !line.isBlank { output.append(contentsOf: indent.utf8) }
                output.append(contentsOf: line.bytes)
                atLineStart = line.endsWithNewline
            }
        }
        atLineStart = chunk.endsWithNewline
    }

    private mutating func write(_ value: String, escaped: Bool) {
        var value = value
        value.withUTF8 { write($0, escaped: escaped) }
    }

    private mutating func write(_ value: UnsafeBufferPointer<UInt8>, escaped: Bool) {
        guard !value.isEmpty else { return }
        if atLineStart {
            if !indent.isEmpty { output.append(contentsOf: indent.utf8) }
            atLineStart = false
        }
        if escaped {
            appendEscaped(value)
        } else {
            output.append(contentsOf: value)
        }
    }

    /// HTML-escapes `&`, `<`, `>`, `"` and `'`, copying the runs between them unchanged.
    private mutating func appendEscaped(_ source: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<source.count {
            let replacement: StaticString
            switch source[index] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            default: continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<index]))
            output.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart...]))
    }
}
