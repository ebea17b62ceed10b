// The hub's connection string, as the Azure portal gives it and the official SDKs read it.
//
//     Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=<rule>;SharedAccessKey=<key>[;EntityPath=<hub>]
//
// The key is a secret: it never appears in `description`, in an error message, or in anything else this file
// prints.

/// A connection string, or the reason it cannot be used. The message never contains the key.
public struct HubConfigurationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// True only when NEWSGEN_HUB_CONNECTION_STRING is not set at all: the one problem a `--dry-run` may pass
    /// over (it needs no secrets). Anything that is set but wrong is refused by a dry run as by a real one.
    public var isMissingConnectionString: Bool

    public init(message: String, isMissingConnectionString: Bool = false) {
        self.message = message
        self.isMissingConnectionString = isMissingConnectionString
    }

    public var description: String { message }
}

/// A parsed Notification Hubs connection string with everything needed for sending.
public struct HubConnectionString: Sendable, CustomStringConvertible {
    /// The endpoint exactly as given, e.g. `sb://ns.servicebus.windows.net/`.
    public var endpoint: String
    /// The access policy (rule) name, e.g. `DefaultFullSharedAccessSignature`.
    public var keyName: String
    /// The shared access key, used as UTF-8 text (it is not base64-decoded).
    public var key: String
    /// The hub name, if the connection string carried an `EntityPath` part.
    public var entityPath: String?

    /// Parses a connection string the way the official SDKs do: parts separated by `;` in any order, each split at
    /// its first `=` (so a key's base64 padding survives), empty parts skipped, whitespace trimmed, part names
    /// matched case-insensitively. `Endpoint`, `SharedAccessKeyName` and `SharedAccessKey` are required; unknown
    /// parts are ignored.
    public init(parsing text: String) throws(HubConfigurationError) {
        var endpoint: String?
        var keyName: String?
        var key: String?
        var entityPath: String?
        var unknownNames: [String] = []
        var hiddenUnknownCount = 0

        let trimmedText = HubConnectionString.trimWhitespace(Substring(text))
        if trimmedText.isEmpty {
            throw HubConfigurationError(
                message: "the hub connection string is empty; expected "
                    + "\"Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=<policy>;SharedAccessKey=<key>\""
            )
        }
        var partNumber = 0
        for rawPart in trimmedText.split(separator: ";", omittingEmptySubsequences: false) {
            partNumber += 1
            let part = HubConnectionString.trimWhitespace(rawPart)
            if part.isEmpty { continue }
            guard let equals = part.firstIndex(of: "=") else {
                // Do not echo the part: it might be a pasted key.
                throw HubConfigurationError(
                    message: "part \(partNumber) of the hub connection string has no \"=\"; every part must look like "
                        + "Name=value (Endpoint=…, SharedAccessKeyName=…, SharedAccessKey=…)")
            }
            let name = String(HubConnectionString.trimWhitespace(part[..<equals]))
            let value = String(HubConnectionString.trimWhitespace(part[part.index(after: equals)...]))
            func store(_ slot: inout String?, _ canonicalName: String) throws(HubConfigurationError) {
                if slot != nil {
                    throw HubConfigurationError(
                        message: "the hub connection string has more than one \(canonicalName) part; keep exactly one")
                }
                slot = value
            }
            switch name.hubASCIILowercased {
            case "endpoint": try store(&endpoint, "Endpoint")
            case "sharedaccesskeyname": try store(&keyName, "SharedAccessKeyName")
            case "sharedaccesskey": try store(&key, "SharedAccessKey")
            case "entitypath": try store(&entityPath, "EntityPath")
            default:
                // A pasted bare key splits at its base64 padding into a long "name": only echo names that look
                // like part names (short, letters only), never anything that could be key material.
                if name.count <= 32, name.allSatisfy({ $0.isASCII && $0.isLetter }) {
                    unknownNames.append("\"\(name)\"")
                } else {
                    hiddenUnknownCount += 1
                }
            }
        }

        var notes: [String] = []
        if !unknownNames.isEmpty {
            notes.append(
                "unrecognized part" + (unknownNames.count == 1 ? " " : "s ") + unknownNames.joined(separator: ", "))
        }
        if hiddenUnknownCount == 1 {
            notes.append("1 unrecognized part not shown because it may be a key")
        } else if hiddenUnknownCount > 1 {
            notes.append("\(hiddenUnknownCount) unrecognized parts not shown because they may be keys")
        }
        let unknownNote = notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"

        var missing: [String] = []
        if endpoint == nil { missing.append("Endpoint") }
        if keyName == nil { missing.append("SharedAccessKeyName") }
        if key == nil { missing.append("SharedAccessKey") }
        if !missing.isEmpty {
            throw HubConfigurationError(
                message: "the hub connection string has no "
                    + missing.joined(separator: missing.count == 2 ? " and no " : ", no ")
                    + " part\(unknownNote); copy the whole connection string of a hub access policy with the Send "
                    + "right, e.g. \"Endpoint=sb://<namespace>.servicebus.windows.net/;"
                    + "SharedAccessKeyName=DefaultFullSharedAccessSignature;SharedAccessKey=<key>\"")
        }
        guard let endpoint, let keyName, let key else { throw HubConfigurationError(message: "internal error") }
        // From here on messages may quote the endpoint; should the key have been pasted there too, hide it.
        func fail(_ message: String) -> HubConfigurationError {
            guard !key.isEmpty else { return HubConfigurationError(message: message) }
            return HubConfigurationError(message: message.replacing(key, with: "<redacted>"))
        }

        if endpoint.isEmpty {
            throw fail(
                "the hub connection string's Endpoint is empty; expected sb://<namespace>.servicebus.windows.net/")
        }
        let scheme = Self.scheme(of: endpoint)
        guard let scheme, scheme == "sb" || scheme == "https" else {
            throw fail(
                "the hub connection string's Endpoint \"\(endpoint)\" must start with sb:// "
                    + "(e.g. sb://<namespace>.servicebus.windows.net/)")
        }
        let afterScheme = endpoint.dropFirst(scheme.count + 3)
        let host = afterScheme.prefix { $0 != "/" }
        if host.isEmpty || host.contains(where: { $0.isWhitespace }) {
            throw fail(
                "the hub connection string's Endpoint \"\(endpoint)\" has no valid host name; expected "
                    + "sb://<namespace>.servicebus.windows.net/")
        }
        if keyName.isEmpty {
            throw fail(
                "the hub connection string's SharedAccessKeyName is empty; give the access policy's name, "
                    + "e.g. DefaultFullSharedAccessSignature")
        }
        if key.isEmpty {
            throw fail(
                "the hub connection string's SharedAccessKey is empty; copy the policy's primary or "
                    + "secondary key")
        }
        if let path = entityPath, path.isEmpty {
            entityPath = nil
        }

        self.endpoint = endpoint
        self.keyName = keyName
        self.key = key
        self.entityPath = entityPath
    }

    /// The connection string with the key replaced by `<redacted>`.
    /// (Should the key also have been pasted into another part, it is hidden there too.)
    public var description: String {
        func hidden(_ text: String) -> String { key.isEmpty ? text : text.replacing(key, with: "<redacted>") }
        var text = "Endpoint=\(hidden(endpoint));SharedAccessKeyName=\(hidden(keyName));SharedAccessKey=<redacted>"
        if let entityPath { text += ";EntityPath=\(hidden(entityPath))" }
        return text
    }

    /// The endpoint with `sb://` replaced by `https://` and a trailing `/`, e.g.
    /// `https://ns.servicebus.windows.net/`. Append `<hub>/messages/?api-version=2020-06` for a send.
    public var httpsBaseURL: String {
        var rest = Substring(endpoint)
        if let scheme = Self.scheme(of: endpoint) {
            rest = rest.dropFirst(scheme.count + 3)
        }
        var url = "https://" + rest
        if !url.hasSuffix("/") { url += "/" }
        return url
    }

    /// The lowercased scheme before `://`, or nil if there is none.
    private static func scheme(of url: String) -> String? {
        guard let range = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<range.lowerBound]
        guard !scheme.isEmpty,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return String(scheme).hubASCIILowercased
    }
}

extension HubConnectionString {
    fileprivate static func trimWhitespace(_ text: Substring) -> Substring {
        var result = text
        while let first = result.first, first.isWhitespace { result.removeFirst() }
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return result
    }
}

extension StringProtocol {
    /// The text with only ASCII `A`–`Z` lowercased (for names the hub compares case-insensitively).
    var hubASCIILowercased: String {
        var bytes = Array(utf8)
        for index in bytes.indices where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") {
            bytes[index] += 32
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
