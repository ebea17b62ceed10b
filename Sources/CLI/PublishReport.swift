import Foundation
import HTTP
import Hub
import News
import Site

/// What `newsgen publish` prints: per breaking story, sent or skipped and why; with `--dry-run`, the exact
/// request (signature redacted) and what each kind of device would show. `json()` is the same plan as JSON.
struct PublishReport {
    var entries: [PlanEntry]
    var previews: [String: [DevicePreview]]
    var results: [String: SendStatus]
    var dryRun: Bool
    var now: Timestamp
    var ledgerPath: String
    var connection: HubConnection?
    var connectionNote: String?
    /// The language whose text fills in for languages without one.
    var defaultLanguage: Language
    /// `--wait`: the hub's first outcome per sent story (nil without `--wait`).
    var telemetry: [String: TelemetryAnswer]? = nil

    enum Outcome { case wouldSend, sent, skipped, failed, held }

    func outcome(_ entry: PlanEntry) -> Outcome {
        switch entry {
        case .skip: return .skipped
        case .held: return .held
        case .fail: return .failed
        case .send(let notification):
            if dryRun { return .wouldSend }
            switch results[notification.story.id] {
            case .sent?: return .sent
            case .failed?, .notLive?, nil: return .failed
            }
        }
    }

    var hasFailures: Bool { entries.contains { outcome($0) == .failed } }

    var requestURL: String {
        connection?.messagesURL ?? "https://<namespace from NEWSGEN_HUB_CONNECTION_STRING>/<hub>/messages?api-version=\(HubConnection.apiVersion)"
    }

    func headers(_ notification: Hub.Notification) -> [(String, String)] {
        let authorization = connection?.redactedAuthorization(now: Int(Date().timeIntervalSince1970))
            ?? "SharedAccessSignature sr=<hub URL>&sig=<redacted>&se=<expiry>&skn=<key name>"
        return Publisher.headers(notification, authorization: authorization).map { ($0.name, $0.value) }
    }

    func filledNote(_ notification: Hub.Notification) -> String? { notification.filledNote(defaultLanguage: defaultLanguage) }

    // MARK: text

    func text() -> String {
        var lines: [String] = []
        let counts = Dictionary(grouping: entries, by: outcome).mapValues(\.count)
        let mode = dryRun ? "publish --dry-run (nothing is sent or written)" : "publish"
        lines.append("\(mode): now \(now.rfc3339), ledger \(ledgerPath)")
        if let connectionNote, dryRun { lines.append("note: \(connectionNote); the preview shows placeholders for the hub") }
        if entries.isEmpty { lines.append("no breaking stories") }
        for entry in entries {
            let story = entry.story
            switch entry {
            case .skip(_, let reason):
                lines.append("skip    \(story.id): \(reason)")
            case .fail(_, let reason):
                lines.append("FAILED  \(story.id): \(reason); not sent")
            case .held(let notification, let reason, _):
                lines.append("held    \(story.id) (revision \(notification.revision)) to \(notification.tags.headerValue): \(reason)")
            case .send(let notification):
                let head = "\(story.id) (revision \(notification.revision)) to \(notification.tags.headerValue)"
                if dryRun {
                    lines.append("send    \(head)")
                    lines += detail(notification).map { "  " + $0 }
                } else {
                    switch results[story.id] {
                    case .sent(let record, let attempts)?:
                        var text = "sent    \(head)"
                        var ids: [String] = []
                        if let id = record.hubNotificationId { ids.append("hub notification id \(id)") }
                        if let tracking = record.trackingId { ids.append("tracking id \(tracking)") }
                        ids.append(attempts == 1 ? "1 attempt" : "\(attempts) attempts")
                        text += ": " + ids.joined(separator: ", ")
                        lines.append(text)
                        if let note = filledNote(notification) {
                            lines.append("  note: \(note)")
                        }
                        if let telemetry {
                            lines.append("  hub: " + (telemetry[story.id]?.note ?? StatusCommand.noIdentifier))
                        }
                    case .failed(let reason, let attempts)?:
                        lines.append("FAILED  \(head) after \(attempts == 1 ? "1 attempt" : "\(attempts) attempts"): \(reason)")
                    case .notLive(let url, let detail)?:
                        lines.append("FAILED  \(head): not sent, because \(url) is not live (\(detail))")
                    case nil:
                        lines.append("FAILED  \(head): not sent")
                    }
                }
            }
        }
        var summary: [String] = []
        if dryRun { summary.append("\(counts[.wouldSend] ?? 0) to send") } else { summary.append("\(counts[.sent] ?? 0) sent") }
        summary.append("\(counts[.skipped] ?? 0) skipped")
        if let held = counts[.held] { summary.append("\(held) held") }
        summary.append("\(counts[.failed] ?? 0) failed")
        lines.append(summary.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    func detail(_ notification: Hub.Notification) -> [String] {
        var lines: [String] = []
        if let note = filledNote(notification) { lines.append("note: \(note)") }
        lines.append("POST \(requestURL)")
        for (name, value) in headers(notification) { lines.append("\(name): \(value)") }
        lines.append("body (\(notification.body.count) bytes):")
        lines += notification.prettyBody.split(separator: "\n").map { "  " + $0 }
        let devices = previews[notification.story.id] ?? []
        if devices.isEmpty {
            lines.append("devices: none in templates/devices/")
        } else {
            lines.append("devices:")
            for preview in devices {
                lines.append("  \(preview.device) (\(preview.bytes) of \(DevicePreview.payloadLimit) bytes): \(preview.payload)")
                for header in preview.headers { lines.append("    \(header.name): \(header.value)") }
            }
        }
        return lines
    }

    // MARK: JSON

    struct JSONPlan: Encodable {
        var dryRun: Bool
        var now: String
        var ledger: String
        var hub: String?
        var note: String?
        var stories: [JSONStory]
        var summary: [String: Int]
    }
    struct JSONStory: Encodable {
        var id: String
        var action: String
        var reason: String?
        /// A held alert's first chance.
        var nextSlot: String?
        var revision: Int?
        var tags: String?
        var filledLanguages: [String]?
        var request: JSONRequest?
        var devices: [JSONDevice]?
        var result: JSONResult?
    }
    struct JSONRequest: Encodable {
        var method: String
        var url: String
        var headers: [String: String]
        var body: [String: String]
        var bytes: Int
    }
    struct JSONDevice: Encodable {
        var device: String
        var payload: String
        var bytes: Int
        var overLimit: Bool
        var headers: [String: String]?

        init(_ preview: DevicePreview) {
            device = preview.device
            payload = preview.payload
            headers = preview.headers.isEmpty ? nil : Dictionary(preview.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            bytes = preview.bytes
            overLimit = preview.isOverLimit
        }
    }
    struct JSONResult: Encodable {
        var status: String
        var attempts: Int?
        var hubNotificationId: String?
        var trackingId: String?
        var reason: String?
        var telemetry: JSONTelemetry?
    }

    func json() -> String {
        var stories: [JSONStory] = []
        var summary: [String: Int] = [:]
        for entry in entries {
            let kind: String
            switch outcome(entry) {
            case .wouldSend: kind = "send"
            case .sent: kind = "sent"
            case .skipped: kind = "skip"
            case .failed: kind = "failed"
            case .held: kind = "held"
            }
            summary[kind, default: 0] += 1
            var story = JSONStory(id: entry.story.id, action: kind)
            switch entry {
            case .skip(_, let reason), .fail(_, let reason):
                story.reason = reason
            case .held(let notification, let reason, let nextSlot):
                story.reason = reason
                story.revision = notification.revision
                story.tags = notification.tags.headerValue
                story.nextSlot = nextSlot.rfc3339
            case .send(let notification):
                story.revision = notification.revision
                story.tags = notification.tags.headerValue
                story.filledLanguages = notification.filledLanguages.map(\.code)
                story.request = JSONRequest(method: "POST", url: requestURL,
                                            headers: Dictionary(uniqueKeysWithValues: headers(notification)),
                                            body: notification.properties, bytes: notification.body.count)
                story.devices = (previews[notification.story.id] ?? []).map(JSONDevice.init)
                switch results[notification.story.id] {
                case .sent(let record, let attempts)?:
                    story.result = JSONResult(status: "sent", attempts: attempts, hubNotificationId: record.hubNotificationId, trackingId: record.trackingId,
                                              telemetry: telemetry.map { JSONTelemetry($0[notification.story.id], missing: StatusCommand.noIdentifier) })
                case .failed(let reason, let attempts)?:
                    story.result = JSONResult(status: "failed", attempts: attempts, reason: reason)
                case .notLive(let url, let detail)?:
                    story.result = JSONResult(status: "not-live", reason: "\(url): \(detail)")
                case nil:
                    break
                }
            }
            stories.append(story)
        }
        let plan = JSONPlan(dryRun: dryRun, now: now.rfc3339, ledger: ledgerPath, hub: connection?.description,
                            note: dryRun ? connectionNote : nil, stories: stories, summary: summary)
        return Self.encode(plan)
    }

    /// Pretty JSON with sorted keys, as every `--json` output is written.
    static func encode(_ value: some Encodable) -> String {
        // The reports hold only strings, integers, booleans and containers of them, which always encode.
        (try? JSONValue(encoding: value)).map { JSONWriter.write($0, mode: .minimal, layout: .spaced, sortedKeys: true) } ?? "{}"
    }
}
