/// Builds a `JSONValue` from an `Encodable` value, so that reports declared as `Encodable` structs are written by
/// `JSONWriter` like everything else. Members come in the order the value encodes them; a nil optional is left
/// out, as synthesized conformances leave it out.
extension JSONValue {
    public init(encoding value: some Encodable) throws {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        self = root.value
    }
}

/// What an encoder has written so far at one place in the tree.
private final class Node {
    enum Content { case empty, value(JSONValue), object([(String, Node)]), array([Node]) }
    var content = Content.empty

    var value: JSONValue {
        switch content {
        case .empty: return .object([])
        case .value(let value): return value
        case .object(let members): return .object(members.map { ($0.0, $0.1.value) })
        case .array(let items): return .array(items.map(\.value))
        }
    }

    func child(_ key: String) -> Node {
        let node = Node()
        if case .object(var members) = content {
            members.removeAll { $0.0 == key }
            members.append((key, node))
            content = .object(members)
        } else {
            content = .object([(key, node)])
        }
        return node
    }

    func appended() -> Node {
        let node = Node()
        if case .array(let items) = content { content = .array(items + [node]) } else { content = .array([node]) }
        return node
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

private struct NodeEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }
}

/// Strings, booleans and integers as values; nil for anything that encodes itself through containers. A value
/// `JSONValue` cannot hold (a floating-point number, an integer beyond `Int`) is an encoding error rather than a
/// silently different number.
private func primitive(_ value: some Encodable, at codingPath: [any CodingKey]) throws -> JSONValue? {
    switch value {
    case let text as String: return .string(text)
    case let flag as Bool: return .bool(flag)
    case let number as any BinaryInteger:
        if let exact = Int(exactly: number) { return .integer(exact) }
    case is any BinaryFloatingPoint: break
    default: return nil
    }
    throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "not representable in JSONValue"))
}

/// The generic `encode` also stands for each per-type requirement (`encode(_: Int)`, …), in these containers as in
/// the keyed and unkeyed ones below.
private struct Single: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let json = try primitive(value, at: codingPath) {
            node.content = .value(json)
        } else {
            try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
        }
    }
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey]

    private func encoder(_ key: Key) -> NodeEncoder {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { encoder(key).node.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try value.encode(to: encoder(key)) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey> { encoder(key).container(keyedBy: keyType) }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { encoder(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.child("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(key) }
}

private struct Unkeyed: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]
    var count: Int {
        if case .array(let items) = node.content { return items.count }
        return 0
    }

    private func encoder() -> NodeEncoder {
        NodeEncoder(node: node.appended(), codingPath: codingPath + [AnyKey(intValue: count)])
    }

    mutating func encodeNil() throws { encoder().node.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: encoder()) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { encoder().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { encoder() }
}
