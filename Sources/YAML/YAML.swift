// YAML module: the public value tree. Parsing (the only code that touches libyaml) is in Parser.swift.

/// A position in the source text. Both fields are 1-based; `column` counts Unicode scalars, so a CJK
/// character or an emoji made of one scalar is one column.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// "line:column", e.g. "7:3".
    public var description: String { "\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// A scalar exactly as written: its text after YAML unescaping/folding, and whether it was a plain
/// (unquoted, untagged) scalar. Only plain scalars are ever read as null, booleans or numbers.
public struct YAMLScalar: Sendable, Hashable {
    public var text: String
    /// True for unquoted plain scalars without an explicit tag; false for quoted, literal `|`, folded `>`,
    /// and any tagged scalar (`!!str 5`).
    public var isPlain: Bool

    public init(text: String, isPlain: Bool) {
        self.text = text
        self.isPlain = isPlain
    }
}

/// One `key: value` pair of a mapping. The key is always a scalar node.
public struct YAMLEntry: Sendable, Equatable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A node of the document tree with the location where it starts.
public struct YAMLNode: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLEntry])
    }

    public var value: Value
    /// Start of the node. For a node produced by an alias (`*name`), the location of the alias.
    public var location: SourceLocation

    public init(value: Value, location: SourceLocation) {
        self.value = value
        self.location = location
    }

    /// The scalar text (any style), nil for lists and mappings.
    public var string: String? {
        if case .scalar(let scalar) = value { return scalar.text }
        return nil
    }

    /// The scalar itself (text and style), nil for lists and mappings.
    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = value { return scalar }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = value { return items }
        return nil
    }

    /// Entries in document order.
    public var mapping: [YAMLEntry]? {
        if case .mapping(let entries) = value { return entries }
        return nil
    }

    /// The value for a key in a mapping (compared by the key's scalar text); nil if this node is not a
    /// mapping or has no such key.
    public subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries) = value else { return nil }
        for entry in entries where entry.key.string == key {
            return entry.value
        }
        return nil
    }

    /// The entry (key node and value node) for a key, so callers can point at the key's location.
    public func entry(forKey key: String) -> YAMLEntry? {
        guard case .mapping(let entries) = value else { return nil }
        return entries.first { $0.key.string == key }
    }

    private var plainText: String? {
        if case .scalar(let scalar) = value, scalar.isPlain { return scalar.text }
        return nil
    }

    /// True for a plain empty scalar (`key:`), `~`, `null`, `Null` and `NULL`.
    public var isNull: Bool {
        switch plainText {
        case "", "~", "null", "Null", "NULL": true
        default: false
        }
    }

    /// `true`/`True`/`TRUE`/`false`/`False`/`FALSE` as plain scalars; nil otherwise (no yes/no/on/off).
    public var bool: Bool? {
        switch plainText {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    /// A plain decimal integer with an optional sign (`42`, `-7`, `+3`); nil for anything else and for
    /// numbers that do not fit in `Int`.
    public var int: Int? {
        guard let text = plainText else { return nil }
        // Int.init(_:) only accepts ASCII digits after an optional sign and reports overflow as nil.
        return Int(text, radix: 10)
    }

    /// "a string", "a list" or "a mapping", for messages like "expected a mapping, found a list".
    public var kindName: String {
        switch value {
        case .scalar: "a string"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}

/// A syntax or structure error, located in the text that was parsed (plus the caller's `lineOffset`).
public struct YAMLError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    public var location: SourceLocation

    public init(message: String, location: SourceLocation) {
        self.message = message
        self.location = location
    }

    /// "line:column: message".
    public var description: String { "\(location): \(message)" }
}

public enum YAMLDocument {
    /// Largest number of nodes a document may expand to (aliases count with the size of what they copy).
    public static let maximumNodeCount = 100_000
    /// Deepest nesting of lists and mappings allowed (keeps tree building and tree deallocation shallow).
    public static let maximumDepth = 256
}
