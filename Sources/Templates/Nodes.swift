/// The parsed, immutable form of templates. Built once by `Parser`, read by `Renderer` from any thread.

/// Where a tag was written, for errors raised while rendering.
struct SourceLocation: Sendable, Hashable {
    let path: String
    let line: Int
    let column: Int
}

/// A tag's name: `.` (the top of the context stack) or dotted keys (`a.b.c` → ["a", "b", "c"]).
enum NamePath: Sendable, Hashable {
    case implicit
    case keys([String])
}

/// Literal template text. `lines` is the same text cut after each "\n", so that an indented
/// partial can prefix each line without scanning the text again.
struct TextChunk: Sendable {
    struct Line: Sendable {
        /// The line as UTF-8, its line end included.
        let bytes: [UInt8]
        /// "\n" or "\r\n" alone: indentation is not added to empty lines.
        let isBlank: Bool
        let endsWithNewline: Bool
    }

    /// The text as UTF-8, as the renderer writes it (copied whole, where appending a String's view goes a byte
    /// at a time).
    let bytes: [UInt8]
    let lines: [Line]
    let endsWithNewline: Bool

    init(_ string: String) {
        bytes = Array(string.utf8)
        var lines: [Line] = []
        var current = ""
        for scalar in string.unicodeScalars {
            current.unicodeScalars.append(scalar)
            if scalar == "\n" {
                lines.append(Line(bytes: Array(current.utf8), isBlank: current == "\n" || current == "\r\n",
                                  endsWithNewline: true))
                current = ""
            }
        }
        if !current.isEmpty {
            lines.append(Line(bytes: Array(current.utf8), isBlank: false, endsWithNewline: false))
        }
        self.lines = lines
        self.endsWithNewline = string.utf8.last == UInt8(ascii: "\n")
    }
}

/// `{{>name}}` (a partial: no arguments) or `{{<name}}…{{/name}}` (a parent with block arguments).
/// (A class keeps `Node` small.)
final class Include: Sendable {
    let name: String
    let isParent: Bool
    /// The whitespace before a standalone tag, prepended to each line of the included template.
    let indent: String
    /// Whether the tag stood alone on its line (then the included template starts a line).
    let standalone: Bool
    /// Block name → the content that replaces that block in the included template.
    let arguments: [String: [Node]]
    let location: SourceLocation

    init(name: String, isParent: Bool, indent: String, standalone: Bool, arguments: [String: [Node]], location: SourceLocation) {
        self.name = name
        self.isParent = isParent
        self.indent = indent
        self.standalone = standalone
        self.arguments = arguments
        self.location = location
    }
}

/// `{{$name}}default{{/name}}` in a template (a parameter of that template).
final class BlockSite: Sendable {
    let name: String
    /// Indentation added to each line of an overriding argument.
    let indent: String
    /// Whether the block's opening tag stood alone on its line (then an argument starts a line).
    let startsLine: Bool
    let defaultContent: [Node]

    init(name: String, indent: String, startsLine: Bool, defaultContent: [Node]) {
        self.name = name
        self.indent = indent
        self.startsLine = startsLine
        self.defaultContent = defaultContent
    }
}

enum Node: Sendable {
    case text(TextChunk)
    case variable(NamePath, escaped: Bool)
    case section(NamePath, [Node])
    case inverted(NamePath, [Node])
    case include(Include)
    case block(BlockSite)
}

/// One parsed template.
struct Template: Sendable {
    let path: String
    let nodes: [Node]
}
