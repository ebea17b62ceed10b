import HTTP

/// Where and how `newsgen publish` talks to the hub, resolved from the environment (secrets) and the config.
///
/// - `NEWSGEN_HUB_CONNECTION_STRING`: `Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…[;EntityPath=…]`
/// - `NEWSGEN_HUB_NAME`: the hub (else `push.hub` in newsgen.yml, else the connection string's EntityPath)
/// - `NEWSGEN_HUB_ENDPOINT`: replaces the endpoint, e.g. `http://127.0.0.1:8085/` for a local test hub
///   (plain http is refused for anything but loopback)
public struct HubConnection: Sendable, CustomStringConvertible {
    public static let apiVersion = "2020-06"
    /// Tokens live five minutes; each attempt signs anew, so a long retry wait never sends a stale token.
    public static let tokenLifetime = 300

    /// `https://ns.servicebus.windows.net/` (always ends with "/").
    public var baseURL: String
    public var hubName: String
    public var keyName: String
    /// The secret. Only `authorization(now:)` reads it; nothing prints it.
    var key: String

    public init(baseURL: String, hubName: String, keyName: String, key: String) {
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.hubName = hubName
        self.keyName = keyName
        self.key = key
    }

    public var description: String { "hub \(hubName) at \(baseURL) (key \(keyName))" }

    /// The hub's URL. Hub names are letters, digits, `.`, `-` and `_` (checked in `resolve`), so they go into
    /// URLs as they are.
    private var hubURL: String { baseURL + hubName }

    /// The send URL.
    public var messagesURL: String { hubURL + "/messages?api-version=\(Self.apiVersion)" }

    /// The hub's test send: the same request with `test` in the query (at most 10 registrations, each one's
    /// outcome in the answer).
    public var testMessagesURL: String { messagesURL + "&test" }

    /// A message's telemetry (`Location` of its send, Standard tier).
    public func messageURL(notificationID: String) -> String {
        hubURL + "/messages/" + AccessSignature.percentEncode(notificationID, uppercaseHex: true)
            + "?api-version=\(Self.apiVersion)"
    }

    /// The resource the token is signed for: the hub URL (lowercased and percent-encoded by AccessSignature).
    public var resourceURI: String { hubURL }

    /// `SharedAccessSignature sr=…&sig=…&se=…&skn=…`, valid for `tokenLifetime` seconds from `now`.
    public func authorization(now: Int) -> String {
        AccessSignature.token(resourceURI: resourceURI, keyName: keyName, key: key, expiry: now + Self.tokenLifetime)
    }

    /// The same header with the signature hidden, for previews and logs.
    public func redactedAuthorization(now: Int) -> String {
        Self.redact(authorization(now: now))
    }

    static func redact(_ header: String) -> String {
        var parts: [String] = []
        let body = header.hasPrefix("SharedAccessSignature ") ? String(header.dropFirst("SharedAccessSignature ".count)) : header
        for part in body.split(separator: "&") {
            parts.append(part.hasPrefix("sig=") ? "sig=<redacted>" : String(part))
        }
        return "SharedAccessSignature " + parts.joined(separator: "&")
    }

    /// Reads the connection from the environment. `configuredHub` is `push.hub` from newsgen.yml.
    /// The endpoint override is checked first, so that a dry run without secrets still refuses it.
    public static func resolve(environment: [String: String], configuredHub: String?) throws(HubConfigurationError) -> HubConnection {
        let override = try endpointOverride(environment)
        guard let text = environment["NEWSGEN_HUB_CONNECTION_STRING"], !text.isEmpty else {
            throw HubConfigurationError(message: "NEWSGEN_HUB_CONNECTION_STRING is not set: give it the hub's connection string with a key that has the Send right (Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…)",
                                        isMissingConnectionString: true)
        }
        let parsed = try HubConnectionString(parsing: text)
        guard let hub = nonEmpty(environment["NEWSGEN_HUB_NAME"]) ?? nonEmpty(configuredHub) ?? nonEmpty(parsed.entityPath) else {
            throw HubConfigurationError(message: "no hub name: set NEWSGEN_HUB_NAME or push.hub in newsgen.yml")
        }
        if hub.count > 260 || !hub.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) {
            throw HubConfigurationError(message: "hub name \"\(hub)\" may only use letters, digits, '.', '-' and '_'")
        }
        return HubConnection(baseURL: override ?? parsed.httpsBaseURL, hubName: hub, keyName: parsed.keyName, key: parsed.key)
    }

    /// NEWSGEN_HUB_ENDPOINT when it is set and allowed.
    static func endpointOverride(_ environment: [String: String]) throws(HubConfigurationError) -> String? {
        guard let override = nonEmpty(environment["NEWSGEN_HUB_ENDPOINT"]) else { return nil }
        let lower = override.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw HubConfigurationError(message: "NEWSGEN_HUB_ENDPOINT must be a full http(s) base URL such as http://127.0.0.1:8085/, found \"\(override)\"")
        }
        if lower.hasPrefix("http://") && !isLoopbackURL(override) {
            throw HubConfigurationError(message: "NEWSGEN_HUB_ENDPOINT uses plain http to a host that is not loopback; only https is allowed there")
        }
        return override
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
