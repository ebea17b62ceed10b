import Foundation
import HTTP

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

/// The hub's per-message telemetry (`GET {hub}/messages/{notification id}`, Standard tier): the state of the
/// notification and, per platform, how many pushes ended in each outcome.
public struct MessageTelemetry: Sendable, Hashable {
    public struct Count: Sendable, Hashable {
        /// `Success`, `WrongToken`, `Expired`, `InvalidNotificationSize`, …
        public var outcome: String
        public var count: Int
    }
    public struct Platform: Sendable, Hashable {
        /// `apns`, `fcmv1`, `gcm`, `wns`, … (from the hub's `<Platform>OutcomeCounts` element).
        public var platform: String
        public var counts: [Count]
    }
    /// `Enqueued`, `DetailedStateAvailable`, `Processing`, `Completed`, `Abandoned`, `NoTargetFound`,
    /// `Cancelled`, `Unknown`.
    public var state: String
    public var enqueueTime: String?
    public var endTime: String?
    public var platforms: [Platform]

    /// States after which nothing more happens to the notification.
    public static let finalStates: Set<String> = ["Completed", "Abandoned", "NoTargetFound", "Canceled", "Cancelled", "Unknown"]
    public var isFinal: Bool { Self.finalStates.contains(state) }

    /// Reads a `NotificationDetails` document; nil when the body is not one.
    public init?(xml text: String) {
        guard let document = HubXML.elements("NotificationDetails", in: text[...]).first,
              let state = HubXML.first("State", in: document) else { return nil }
        self.state = state
        enqueueTime = HubXML.first("EnqueueTime", in: document)
        endTime = HubXML.first("EndTime", in: document)
        platforms = HubXML.names(endingWith: "OutcomeCounts", in: document).map { element in
            let counts = HubXML.elements(element, in: document).first.map { HubXML.elements("Outcome", in: $0) } ?? []
            return Platform(platform: String(element.dropLast("OutcomeCounts".count)).lowercased(),
                            counts: counts.map {
                                Count(outcome: HubXML.first("Name", in: $0) ?? "", count: HubXML.first("Count", in: $0).flatMap { Int($0) } ?? 0)
                            })
        }
    }
}

/// What the hub answered when asked for a message's telemetry.
public enum TelemetryAnswer: Sendable, Hashable {
    case details(MessageTelemetry)
    /// 403: the hub's tier (Free, Basic) keeps no per-message telemetry.
    case notAvailable
    /// 404: the hub has no telemetry for the id (not processed yet, for up to 30 minutes, or unknown).
    case notFound
    /// The request failed (network, 401, 5xx, an unreadable answer).
    case failed(String)

    /// Reads the answer of `GET {hub}/messages/{id}`.
    public static func interpret(status: Int, body: [UInt8], trackingID: String?) -> TelemetryAnswer {
        switch status {
        case 200:
            guard let details = MessageTelemetry(xml: String(decoding: body, as: UTF8.self)) else {
                return .failed("HTTP 200 without a NotificationDetails document")
            }
            return .details(details)
        case 403: return .notAvailable
        case 404: return .notFound
        default:
            var text = "HTTP \(status)"
            if let trackingID { text += " (tracking id \(trackingID))" }
            if status == 401 { text += ": the hub refused the key (wrong key or key name)" }
            return .failed(text)
        }
    }

    /// The hub's note in plain words, for people.
    public var note: String {
        switch self {
        case .details(let details):
            var parts = [details.state]
            for platform in details.platforms {
                let counts = platform.counts.map { "\($0.count) \($0.outcome)" }.joined(separator: ", ")
                parts.append("\(platform.platform): \(counts.isEmpty ? "no outcome yet" : counts)")
            }
            return parts.joined(separator: "; ")
        case .notAvailable:
            return "telemetry not available: the hub answered 403 (per-message telemetry needs the Standard tier; Free and Basic hubs keep none)"
        case .notFound:
            return "no telemetry for this notification id (HTTP 404): the hub may still be processing it (up to 30 minutes), or it does not know the id"
        case .failed(let reason):
            return "telemetry could not be read: \(reason)"
        }
    }
}

/// When `publish --wait` asks the hub again: soon at first, then less often, for at most `maximumWait`
/// seconds in all. A pure function of what the hub said last and how long it has been.
public struct TelemetryPolling: Sendable, Hashable {
    public var maximumWait: Double
    public var firstDelay: Double = 1
    public var longestDelay: Double = 10

    public init(maximumWait: Double = 30) { self.maximumWait = maximumWait }

    /// The seconds to wait before asking again, or nil to stop with `answer`: an outcome (per-platform counts
    /// or a final state) is what `--wait` prints; 403 and failures will not change by asking again.
    public func delay(after answer: TelemetryAnswer, attempt: Int, elapsed: Double) -> Double? {
        switch answer {
        case .details(let details) where details.isFinal || details.platforms.contains(where: { !$0.counts.isEmpty }):
            return nil
        case .notAvailable, .failed:
            return nil
        case .details, .notFound:
            let delay = min(longestDelay, firstDelay * Double(1 << min(attempt - 1, 10)))
            return elapsed + delay <= maximumWait ? delay : nil
        }
    }
}

/// Reads telemetry over an `HTTPTransport` (one signed GET per question).
public struct TelemetryReader: Sendable {
    public var connection: HubConnection
    public var transport: HTTPTransport
    public var clock: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    public var sleep: @Sendable (Double) async -> Void = { seconds in
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }

    public init(connection: HubConnection, transport: HTTPTransport) {
        self.connection = connection
        self.transport = transport
    }

    public func request(notificationID: String) -> HTTPRequest {
        HTTPRequest(method: "GET", url: connection.messageURL(notificationID: notificationID),
                    headers: [HTTPHeader("Authorization", connection.authorization(now: Int(clock()))),
                              HTTPHeader("x-ms-version", HubConnection.apiVersion)])
    }

    public func fetch(_ notificationID: String) async -> TelemetryAnswer {
        do {
            let response = try await transport.send(request(notificationID: notificationID))
            return TelemetryAnswer.interpret(status: response.status, body: response.body, trackingID: response.header("TrackingId"))
        } catch {
            return .failed(error.description)
        }
    }

    /// Asks until `polling` says to stop; the last answer.
    public func wait(_ notificationID: String, polling: TelemetryPolling) async -> TelemetryAnswer {
        let start = clock()
        var attempt = 0
        while true {
            attempt += 1
            let answer = await fetch(notificationID)
            guard let delay = polling.delay(after: answer, attempt: attempt, elapsed: clock() - start) else { return answer }
            await sleep(delay)
        }
    }
}
