import News
import Site

/// What `publish` would do now with each breaking story: the planner's entries, each notification with what every
/// device template makes of it, and a notification too big for a device turned into a failure. `publish` (with
/// or without `--dry-run`) and the phone preview of `serve` show this one plan.
public struct PublishPlan: Sendable {
    public var entries: [PlanEntry]
    /// The device previews of each notification to send, by story id.
    public var previews: [String: [DevicePreview]]

    private let planner: NotificationPlanner

    /// `sent`: the ledger's records (`Ledger.byKey`); `devices`: the site's device templates.
    public init(edition: Edition, now: Timestamp, sent: [String: LedgerRecord], devices: [DeviceKind]) {
        planner = NotificationPlanner(edition: edition, now: now, sent: sent)
        var entries = planner.plan()
        var previews: [String: [DevicePreview]] = [:]
        for (index, entry) in entries.enumerated() {
            guard case .send(let notification) = entry else { continue }
            let rendered = DeviceCatalog.previews(notification, kinds: devices)
            previews[notification.story.id] = rendered
            if let problem = notification.sizeProblem(previews: rendered) {
                entries[index] = .fail(notification.story, reason: problem.reason)
            }
        }
        self.entries = entries
        self.previews = previews
    }

    /// The notification a story that is not sent now would make, to its own categories, built as a send would
    /// build it (the phone preview shows a draft's alert while it is being written); nil when it cannot have one.
    public func notification(ifSent story: Story) -> Notification? {
        guard case .success(let notification) = planner.notification(for: story, links: planner.permalinks()) else { return nil }
        return notification
    }
}

extension Notification {
    /// The warning for languages without a text of their own ("no text in French (fr): those devices get the
    /// English text"), nil when every language has one.
    public func filledNote(defaultLanguage: Language) -> String? {
        guard !filledLanguages.isEmpty else { return nil }
        let names = filledLanguages.map { "\($0.name) (\($0.code))" }.joined(separator: ", ")
        return "no text in \(names): those devices get the \(defaultLanguage.name) text"
    }
}
