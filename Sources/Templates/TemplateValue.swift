/// The data a template is rendered with: the JSON-like value model of Mustache.
///
/// Truthiness (what `{{#name}}` renders and `{{^name}}` skips):
/// `null`, `false`, the empty string and the empty list are falsy; everything else
/// (every number, including 0, and every object, including the empty one) is truthy.
public indirect enum TemplateValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// Interpolates like the spec expects: 85 → "85", 1.21 → "1.21", 1.0 → "1".
    case number(Double)
    case string(String)
    /// Text given as UTF-8 bytes (what a C library hands over, such as rendered Markdown): the same as `string`
    /// for templates, without making a String of it. The bytes must be valid UTF-8.
    case utf8([UInt8])
    case list([TemplateValue])
    case object([String: TemplateValue])
}

extension TemplateValue {
    /// Whether a section `{{#name}}` renders for this value (see the type's documentation).
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let flag): return flag
        case .number: return true
        case .string(let text): return !text.isEmpty
        case .utf8(let bytes): return !bytes.isEmpty
        case .list(let items): return !items.isEmpty
        case .object: return true
        }
    }

    /// The text `{{name}}` interpolates (before HTML escaping).
    /// Lists interpolate their items joined by ",", objects and null interpolate as "".
    public var interpolatedText: String {
        switch self {
        case .null: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return Self.format(number)
        case .string(let text): return text
        case .utf8(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .list(let items): return items.map(\.interpolatedText).joined(separator: ",")
        case .object: return ""
        }
    }

    /// Integral values within ±2^53 print without a fraction; everything else uses Swift's
    /// shortest round-tripping form ("1.21", "1e+20", "nan", "inf").
    static func format(_ number: Double) -> String {
        if number.isFinite, number.rounded(.towardZero) == number, abs(number) <= 9_007_199_254_740_992 {
            return String(Int64(number))
        }
        return number.description
    }
}

extension TemplateValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension TemplateValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension TemplateValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension TemplateValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension TemplateValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
}

extension TemplateValue: ExpressibleByDictionaryLiteral {
    /// A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension TemplateValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}
