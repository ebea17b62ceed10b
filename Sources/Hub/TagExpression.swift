// Tags and tag expressions for the ServiceBusNotification-Tags header, with the hub's limits.

/// A tag or tag expression that the hub would reject, with the reason (and, when parsing, where).
public struct TagExpressionError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, including the column when it is about a place in the expression text.
    public var message: String
    /// 1-based character position in the expression text, when the error is about one place.
    public var column: Int?

    public init(message: String, column: Int? = nil) {
        self.message = message
        self.column = column
    }

    public var description: String { message }
}

/// A validated tag expression: tags combined with `&&` (and), `||` (or), `!` (not) and parentheses.
///
/// `&&` binds tighter than `||`. The hub's limits are enforced: at most 20 tags when the expression only uses
/// `||`, otherwise at most 6 (tag occurrences are counted, the stricter reading). `headerValue` is a canonical
/// spelling with spaces around operators and with every `&&` group inside an `||` parenthesized, so the hub
/// cannot read it with a different precedence.
public struct TagExpression: Sendable, Hashable, CustomStringConvertible {
    /// Most tags an expression may use when it contains only `||`.
    public static let maximumOrTags = 20
    /// Most tags an expression may use when it contains `&&` or `!`.
    public static let maximumTagsWithAndOrNot = 6
    /// Longest tag the hub accepts, in characters.
    public static let maximumTagLength = 120

    private indirect enum Node: Sendable, Hashable {
        case tag(String)
        case not(Node)
        case and([Node])
        case or([Node])
    }

    private let node: Node

    /// An expression that matches any of `tags` (`World || Politics`). Duplicates are dropped, keeping the first
    /// occurrence's position. Throws for an empty list, an invalid tag, or more than 20 distinct tags.
    public init(anyOf tags: [String]) throws(TagExpressionError) {
        var distinct: [String] = []
        var seen: Set<String> = []
        for tag in tags where !seen.contains(tag) {
            seen.insert(tag)
            distinct.append(tag)
        }
        guard !distinct.isEmpty else {
            throw TagExpressionError(
                message: "a tag expression needs at least one tag (to reach every device, send without tags)")
        }
        for tag in distinct {
            if let reason = Self.validateTag(tag) {
                throw TagExpressionError(message: "invalid tag \(Self.quoted(tag)): \(reason)")
            }
        }
        if distinct.count > Self.maximumOrTags {
            throw TagExpressionError(
                message: "\(distinct.count) tags joined by || are too many; the hub allows at most "
                    + "\(Self.maximumOrTags) (send several notifications instead)")
        }
        node = distinct.count == 1 ? .tag(distinct[0]) : .or(distinct.map { .tag($0) })
    }

    /// Parses an expression such as `(follows_RedSox || follows_Cardinals) && location_Boston`.
    /// Whitespace around operators is allowed. Errors name the column (1-based, in characters).
    public init(parsing text: String) throws(TagExpressionError) {
        var parser = Parser(text: text)
        node = try parser.parse()
        // The header value parenthesizes every && group inside ||, which the text may not have: it must still be
        // an expression this parser reads back (the same text is what a preview shows and what is sent).
        if Self.nesting(of: node, inside: nil) > Parser.maximumDepth {
            throw TagExpressionError(
                message: "the tag expression nests \"(\" and \"!\" more than \(Parser.maximumDepth) levels deep once "
                    + "each && group inside || is put in parentheses, as it is sent")
        }
        let stats = Self.statistics(of: node)
        if stats.usesAndOrNot {
            if stats.tagCount > Self.maximumTagsWithAndOrNot {
                throw TagExpressionError(
                    message: "the tag expression uses \(stats.tagCount) tags; the hub allows at most "
                        + "\(Self.maximumTagsWithAndOrNot) in an expression with && or ! "
                        + "(at most \(Self.maximumOrTags) when tags are only joined by ||)")
            }
        } else if stats.tagCount > Self.maximumOrTags {
            throw TagExpressionError(
                message: "the tag expression uses \(stats.tagCount) tags; the hub allows at most "
                    + "\(Self.maximumOrTags) tags joined by || (send several notifications instead)")
        }
    }

    /// The value for the `ServiceBusNotification-Tags` header, e.g. `World || Politics`.
    public var headerValue: String { Self.render(node, inside: nil) }

    public var description: String { headerValue }

    /// The distinct tags used, in order of first appearance.
    public var tags: [String] {
        var result: [String] = []
        var seen: Set<String> = []
        func walk(_ node: Node) {
            switch node {
            case .tag(let tag):
                if seen.insert(tag).inserted { result.append(tag) }
            case .not(let inner): walk(inner)
            case .and(let children), .or(let children): children.forEach(walk)
            }
        }
        walk(node)
        return result
    }

    /// nil if `tag` is a valid tag, else the reason it is not.
    ///
    /// A tag is 1…120 characters of ASCII letters, digits and `_ @ # . : -`; the system tags
    /// `$InstallationId:{id}` and `$UserId:{id}` (id of the same characters plus `=`) are also valid.
    public static func validateTag(_ tag: String) -> String? {
        let count = tag.count
        if count == 0 { return "a tag cannot be empty" }
        if count > maximumTagLength {
            return "the tag is \(count) characters long; the hub allows at most \(maximumTagLength)"
        }
        if tag.hasPrefix("$") {
            for prefix in ["$InstallationId:", "$UserId:"] where tag.hasPrefix(prefix) {
                let rest = tag.dropFirst(prefix.count)
                guard rest.hasPrefix("{"), rest.hasSuffix("}"), rest.count >= 3 else {
                    return "write the system tag with braces: \(prefix){…}"
                }
                let inner = rest.dropFirst().dropLast()
                if let bad = inner.first(where: { !isTagCharacter($0) && $0 != "=" }) {
                    return "\(describe(bad)) is not allowed inside \(prefix){…}; use letters, digits and _ @ # . : - ="
                }
                return nil
            }
            return "only the system tags $InstallationId:{…} and $UserId:{…} may start with \"$\""
        }
        var position = 0
        for character in tag {
            position += 1
            if !isTagCharacter(character) {
                return "\(describe(character)) at position \(position) is not allowed in a tag; "
                    + "use ASCII letters, digits and _ @ # . : -"
            }
        }
        return nil
    }

    // MARK: - Private helpers

    private static func isTagCharacter(_ character: Character) -> Bool {
        guard character.isASCII, let scalar = character.unicodeScalars.first else { return false }
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "@", "#", ".", ":", "-": return true
        default: return false
        }
    }

    fileprivate static func describe(_ character: Character) -> String {
        let codes = character.unicodeScalars.map { scalar -> String in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        let invisible =
            character.isWhitespace || character.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        return invisible ? codes.joined(separator: " ") : "\"\(character)\" (\(codes.joined(separator: " ")))"
    }

    fileprivate static func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(57)) + "..." : text
        return "\"\(shown)\""
    }

    private static func statistics(of node: Node) -> (tagCount: Int, usesAndOrNot: Bool) {
        switch node {
        case .tag: return (1, false)
        case .not(let inner): return (statistics(of: inner).tagCount, true)
        case .and(let children):
            return (children.reduce(0) { $0 + statistics(of: $1).tagCount }, true)
        case .or(let children):
            return children.reduce((0, false)) { sum, child in
                let stats = statistics(of: child)
                return (sum.0 + stats.tagCount, sum.1 || stats.usesAndOrNot)
            }
        }
    }

    private enum Context { case and, or, not }

    private static func render(_ node: Node, inside context: Context?) -> String {
        switch node {
        case .tag(let tag):
            return tag
        case .not(let inner):
            return "!" + render(inner, inside: .not)
        case .and(let children):
            let text = children.map { render($0, inside: .and) }.joined(separator: " && ")
            return context == nil ? text : "(" + text + ")"
        case .or(let children):
            let text = children.map { render($0, inside: .or) }.joined(separator: " || ")
            return context == nil || context == .or ? text : "(" + text + ")"
        }
    }

    /// How deeply `render` nests "(" and "!" (the parser's measure of depth).
    private static func nesting(of node: Node, inside context: Context?) -> Int {
        switch node {
        case .tag:
            return 0
        case .not(let inner):
            return 1 + nesting(of: inner, inside: .not)
        case .and(let children):
            return (context == nil ? 0 : 1) + children.map { nesting(of: $0, inside: .and) }.reduce(0, max)
        case .or(let children):
            return (context == nil || context == .or ? 0 : 1) + children.map { nesting(of: $0, inside: .or) }.reduce(0, max)
        }
    }

    // MARK: - Parser

    private struct Parser {
        enum TokenKind: Equatable {
            case and, or, not, open, close
            case tag(String)
            case end
        }

        struct Token {
            var kind: TokenKind
            var column: Int
        }

        static let maximumDepth = 64

        let characters: [Character]
        var index = 0
        var current = Token(kind: .end, column: 1)
        var depth = 0

        init(text: String) {
            characters = Array(text)
        }

        mutating func parse() throws(TagExpressionError) -> Node {
            try advance()
            if current.kind == .end {
                throw TagExpressionError(message: "the tag expression is empty; give at least one tag", column: nil)
            }
            let node = try parseOr()
            switch current.kind {
            case .end:
                return node
            case .close:
                throw TagExpressionError(
                    message: "unexpected \")\" at column \(current.column): there is no \"(\" for it to close",
                    column: current.column)
            default:
                throw TagExpressionError(
                    message: "expected && or || at column \(current.column) but found \(Self.name(current.kind))",
                    column: current.column)
            }
        }

        private mutating func parseOr() throws(TagExpressionError) -> Node {
            var children = [try parseAnd()]
            while current.kind == .or {
                try advance()
                children.append(try parseAnd())
            }
            if children.count == 1 { return children[0] }
            return .or(
                children.flatMap { child -> [Node] in
                    if case .or(let inner) = child { return inner }
                    return [child]
                })
        }

        private mutating func parseAnd() throws(TagExpressionError) -> Node {
            var children = [try parseUnary()]
            while current.kind == .and {
                try advance()
                children.append(try parseUnary())
            }
            if children.count == 1 { return children[0] }
            return .and(
                children.flatMap { child -> [Node] in
                    if case .and(let inner) = child { return inner }
                    return [child]
                })
        }

        private mutating func parseUnary() throws(TagExpressionError) -> Node {
            let token = current
            switch token.kind {
            case .tag(let tag):
                try advance()
                return .tag(tag)
            case .not:
                try enter(at: token.column)
                try advance()
                let inner = try parseUnary()
                depth -= 1
                return .not(inner)
            case .open:
                try enter(at: token.column)
                try advance()
                let inner = try parseOr()
                guard current.kind == .close else {
                    let found =
                        current.kind == .end ? "the expression ended" : "found \(Self.name(current.kind))"
                    throw TagExpressionError(
                        message: "missing \")\" for the \"(\" at column \(token.column): \(found) at column "
                            + "\(current.column)",
                        column: current.column)
                }
                depth -= 1
                try advance()
                return inner
            case .end:
                throw TagExpressionError(
                    message: "the tag expression ends too early at column \(token.column): expected a tag, \"!\" "
                        + "or \"(\"",
                    column: token.column)
            case .and, .or, .close:
                throw TagExpressionError(
                    message: "expected a tag, \"!\" or \"(\" at column \(token.column) but found "
                        + Self.name(token.kind),
                    column: token.column)
            }
        }

        private mutating func enter(at column: Int) throws(TagExpressionError) {
            depth += 1
            if depth > Self.maximumDepth {
                throw TagExpressionError(
                    message: "the tag expression nests \"(\" and \"!\" more than \(Self.maximumDepth) levels deep "
                        + "(at column \(column))",
                    column: column)
            }
        }

        private static func name(_ kind: TokenKind) -> String {
            switch kind {
            case .and: return "\"&&\""
            case .or: return "\"||\""
            case .not: return "\"!\""
            case .open: return "\"(\""
            case .close: return "\")\""
            case .tag(let tag): return "the tag \(TagExpression.quoted(tag))"
            case .end: return "the end of the expression"
            }
        }

        private static func isOperatorStart(_ character: Character) -> Bool {
            character == "&" || character == "|" || character == "!" || character == "(" || character == ")"
        }

        /// Reads the next token into `current`.
        private mutating func advance() throws(TagExpressionError) {
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            let column = index + 1
            guard index < characters.count else {
                current = Token(kind: .end, column: column)
                return
            }
            let character = characters[index]
            switch character {
            case "&", "|":
                if index + 1 < characters.count, characters[index + 1] == character {
                    index += 2
                    current = Token(kind: character == "&" ? .and : .or, column: column)
                    return
                }
                let doubled = character == "&" ? "&& for AND" : "|| for OR"
                throw TagExpressionError(
                    message: "single \"\(character)\" at column \(column); write \(doubled)", column: column)
            case "!":
                index += 1
                current = Token(kind: .not, column: column)
            case "(":
                index += 1
                current = Token(kind: .open, column: column)
            case ")":
                index += 1
                current = Token(kind: .close, column: column)
            default:
                let start = index
                while index < characters.count, !characters[index].isWhitespace,
                    !Self.isOperatorStart(characters[index])
                {
                    index += 1
                }
                let tag = String(characters[start..<index])
                if let reason = TagExpression.validateTag(tag) {
                    throw TagExpressionError(
                        message: "invalid tag \(TagExpression.quoted(tag)) at column \(column): \(reason)",
                        column: column)
                }
                current = Token(kind: .tag(tag), column: column)
            }
        }
    }
}
