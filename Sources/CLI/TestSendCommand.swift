import Foundation
import HTTP
import Hub
import News
import Site

/// `newsgen publish --test <story id> [--to <tag expression>]`: the story's notification, built exactly as the
/// real send would be, sent with the hub's test send to the newsroom's own phones only. Nothing is written.
enum TestSendCommand {
    static func run(storyID: String, audience: String?, edition: Edition, devices: [DeviceKind], now: Timestamp,
                    ledgerPath: String, environment: [String: String], json: Bool, console: Console) async -> Int32 {
        let settings = edition.config.push
        let tags: TagExpression
        do {
            if let audience {
                tags = try TagExpression(parsing: audience)
            } else if settings.testTags.isEmpty {
                console.err("error: no test audience: set push.test_tags in newsgen.yml (e.g. test_tags: [newsroom]) or give --to <tag expression>; nothing was sent")
                return ExitCode.failure
            } else {
                tags = try TagExpression(anyOf: settings.testTags)
            }
        } catch {
            console.err("error: --to: \(error.message); nothing was sent")
            return ExitCode.failure
        }
        let planner = NotificationPlanner(edition: edition, now: now, sent: [:])
        guard let entry = planner.testEntry(storyID: storyID, to: tags) else {
            var message = "error: no story has the id \"\(storyID)\""
            if let close = Suggestion.closest(to: storyID, in: edition.stories.map(\.id)) { message += " (did you mean \"\(close)\"?)" }
            console.err(message + "; nothing was sent")
            return ExitCode.failure
        }
        guard case .send(let notification) = entry else {
            if case .fail(_, let reason) = entry { console.err("error: \(storyID): \(reason); nothing was sent") }
            return ExitCode.failure
        }
        let previews = DeviceCatalog.previews(notification, kinds: devices)
        if let problem = notification.sizeProblem(previews: previews) {
            console.err("error: \(storyID): \(problem.reason); nothing was sent")
            return ExitCode.failure
        }
        let connection: HubConnection
        let ledger: Ledger
        do {
            connection = try HubConnection.resolve(environment: environment, configuredHub: settings.hub)
            ledger = try Ledger.read(path: ledgerPath)   // never written: a test send is not a send
        } catch let error as HubConfigurationError {
            console.err("error: \(error.message); nothing was sent")
            return ExitCode.failure
        } catch {
            console.err("error: \(error); nothing was sent")
            return ExitCode.failure
        }
        let transport = CurlTransport(timeouts: HTTPTimeouts(connect: settings.connectTimeout, total: settings.timeout),
                                      maxConcurrentTransfers: 1)
        let publisher = Publisher(connection: connection, transport: transport, ledger: ledger,
                                  policy: RetryPolicy(maxAttempts: settings.attempts), concurrency: 1, liveCheck: nil)
        let status = await publisher.testSend(notification)
        let report = Report(notification: notification, previews: previews, status: status, now: now, hub: connection.description)
        console.out(json ? report.json() : report.text())
        if case .failed = status { return ExitCode.failure }
        return ExitCode.success
    }

    struct Report {
        var notification: Hub.Notification
        var previews: [DevicePreview]
        var status: TestSendStatus
        var now: Timestamp
        var hub: String

        var head: String {
            "\(notification.story.id) (revision \(notification.revision)) to \(notification.tags.headerValue)"
        }

        func text() -> String {
            var lines = ["publish --test: now \(now.rfc3339), the hub's test send (at most 10 registrations); the ledger is not written"]
            switch status {
            case .failed(let reason, let attempts):
                lines.append("FAILED  \(head) after \(attempts == 1 ? "1 attempt" : "\(attempts) attempts"): \(reason)")
            case .reached(let outcome, _):
                lines.append("tested  \(head): \(outcome.success) succeeded, \(outcome.failure) failed")
                if outcome.registrations.isEmpty {
                    lines.append("  no registration has the tags \(notification.tags.headerValue): register the newsroom's phones under it first")
                }
                for registration in outcome.registrations {
                    lines.append("  \(registration.platform) \(registration.registrationId): \(registration.outcome)")
                }
            }
            return lines.joined(separator: "\n")
        }

        struct JSONReport: Encodable {
            var test = true
            var now: String
            var hub: String
            var id: String
            var revision: Int
            var tags: String
            var body: [String: String]
            var devices: [PublishReport.JSONDevice]
            var result: JSONResult
        }
        struct JSONResult: Encodable {
            var status: String
            var attempts: Int
            var reason: String?
            var success: Int?
            var failure: Int?
            var registrations: [JSONRegistration]?
        }
        struct JSONRegistration: Encodable {
            var platform: String
            var registrationId: String
            var outcome: String
        }

        func json() -> String {
            let result: JSONResult
            switch status {
            case .failed(let reason, let attempts):
                result = JSONResult(status: "failed", attempts: attempts, reason: reason)
            case .reached(let outcome, let attempts):
                result = JSONResult(status: "tested", attempts: attempts, success: outcome.success, failure: outcome.failure,
                                    registrations: outcome.registrations.map {
                                        JSONRegistration(platform: $0.platform, registrationId: $0.registrationId, outcome: $0.outcome)
                                    })
            }
            let report = JSONReport(now: now.rfc3339, hub: hub, id: notification.story.id, revision: notification.revision,
                                    tags: notification.tags.headerValue, body: notification.properties,
                                    devices: previews.map(PublishReport.JSONDevice.init), result: result)
            return PublishReport.encode(report)
        }
    }
}
