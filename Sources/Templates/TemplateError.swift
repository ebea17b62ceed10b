/// One problem in a template, with the place it was found.
///
/// `line` and `column` are 1-based (columns count Characters); both are 0 when the problem
/// has no place in a template (for example rendering a name that is not in the library).
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(path: String, line: Int, column: Int, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// `templates/story.mustache:12:5: error: unclosed section "items" (opened at 3:1)`
    public var description: String {
        if line > 0 {
            return "\(path):\(line):\(column): error: \(message)"
        }
        if !path.isEmpty {
            return "\(path): error: \(message)"
        }
        return "error: \(message)"
    }
}

/// Every syntax error of every template given to `TemplateLibrary.init`, ordered by path, line, column.
public struct TemplateErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [TemplateError]

    public init(errors: [TemplateError]) {
        self.errors = errors
    }

    /// One error per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}

/// A template's text and the path its errors are reported under.
public struct TemplateSource: Sendable {
    public var text: String
    public var path: String

    public init(text: String, path: String) {
        self.text = text
        self.path = path
    }
}
