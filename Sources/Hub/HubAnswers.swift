/// The hub's XML answers that newsgen reads: a test send's per-registration outcome (`NotificationOutcome`) and
/// a message's telemetry (`NotificationDetails`). Both are flat documents whose elements never nest inside an
/// element of the same name, so a reader that finds elements by name is enough; it never fails, it only finds
/// less.
enum HubXML {
    /// The inner text of every `<name>…</name>` (or empty `<name/>`) in `text`, in document order, with the
    /// five XML entities and numeric character references decoded.
    static func elements(_ name: String, in text: Substring) -> [Substring] {
        var found: [Substring] = []
        var rest = text[...]
        while let open = rest.range(of: "<" + name) {
            let afterName = open.upperBound
            guard afterName < rest.endIndex else { break }
            let next = rest[afterName]
            // `<Results` must not match `<ResultsX`.
            guard next == ">" || next == " " || next == "/" || next == "\t" || next == "\n" || next == "\r" else {
                rest = rest[afterName...]
                continue
            }
            guard let tagEnd = rest[afterName...].firstIndex(of: ">") else { break }
            if rest[rest.index(before: tagEnd)] == "/" {
                found.append(rest[tagEnd..<tagEnd])
                rest = rest[rest.index(after: tagEnd)...]
                continue
            }
            let contentStart = rest.index(after: tagEnd)
            guard let close = rest[contentStart...].range(of: "</" + name + ">") else { break }
            found.append(rest[contentStart..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return found
    }

    static func first(_ name: String, in text: Substring) -> String? {
        elements(name, in: text).first.map { decode($0) }
    }

    /// Every direct `<…>` element name in `text` that ends with `suffix` (e.g. `ApnsOutcomeCounts`), in order.
    static func names(endingWith suffix: String, in text: Substring) -> [String] {
        var names: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            let start = rest.index(after: open)
            let end = rest[start...].firstIndex { $0 == ">" || $0 == " " || $0 == "/" } ?? rest.endIndex
            let name = String(rest[start..<end])
            if name.hasSuffix(suffix), !name.hasPrefix("/"), !names.contains(name) { names.append(name) }
            rest = rest[end...]
        }
        return names
    }

    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var output = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": output += "&"
            case "lt": output += "<"
            case "gt": output += ">"
            case "quot": output += "\""
            case "apos": output += "'"
            default:
                var scalar: Unicode.Scalar?
                if entity.hasPrefix("#x") { scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init) }
                else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst(1)).flatMap(Unicode.Scalar.init) }
                output += scalar.map { String(Character($0)) } ?? "&\(entity);"
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return output + rest
    }
}

/// What a test send reached: one line per registration (at most 10, the hub's limit for test sends).
public struct TestSendOutcome: Sendable, Hashable {
    public struct Registration: Sendable, Hashable {
        /// `apple`, `gcm`, `fcmv1`, `windows`, … as the hub names the platform.
        public var platform: String
        public var registrationId: String
        /// The hub's words, e.g. "The Notification was successfully sent to the Push Notification System".
        public var outcome: String
    }
    public var success: Int
    public var failure: Int
    public var registrations: [Registration]

    /// Reads the `NotificationOutcome` document of a test send's 201 answer; nil when the body is not one.
    public init?(xml text: String) {
        let body = text[...]
        guard let document = HubXML.elements("NotificationOutcome", in: body).first else { return nil }
        success = HubXML.first("Success", in: document).flatMap { Int($0) } ?? 0
        failure = HubXML.first("Failure", in: document).flatMap { Int($0) } ?? 0
        registrations = HubXML.elements("RegistrationResult", in: document).map { result in
            // The device handle (PnsHandle) is left out on purpose: it addresses one phone and is nobody's business.
            Registration(platform: HubXML.first("ApplicationPlatform", in: result) ?? "unknown",
                         registrationId: HubXML.first("RegistrationId", in: result) ?? "",
                         outcome: HubXML.first("Outcome", in: result) ?? "")
        }
    }
}
