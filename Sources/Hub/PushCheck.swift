import Site

/// The hub's rules held against the whole site before it is deployed, for `newsgen check` and `newsgen build`:
/// a breaking story that `newsgen publish` would refuse (too many tags, a payload over a device's 4 KB, no text
/// to announce), a device template the hub would not register, or a category that cannot be a tag fails there,
/// pointing at the line to change. Planning and rendering are publish's own (`NotificationPlanner`,
/// `DeviceCatalog.previews`), so check and publish cannot disagree.
public enum PushCheck {
    /// Problems in the form of the site's own; empty when publish would accept every breaking story, whatever its
    /// date or draft state.
    public static func diagnostics(_ edition: Edition, now: Timestamp) -> [Diagnostic] {
        let devices = DeviceCatalog.load(edition)
        var diagnostics = devices.problems
        // Every category is a tag, also before a breaking story uses it.
        for category in edition.config.categories {
            if let reason = TagExpression.validateTag(category.name) {
                diagnostics.append(Diagnostic(path: Edition.configFile, location: edition.configLocation(ofCategory: category.name),
                                              message: "category \"\(category.name)\" cannot be a push tag: \(reason)"))
            }
        }
        let planner = NotificationPlanner(edition: edition, now: now, sent: [:])
        for (story, planned) in planner.everyBreakingNotification() {
            let problem: PlanProblem
            switch planned {
            case .failure(let failure):
                problem = failure
            case .success(let notification):
                guard let failure = notification.sizeProblem(previews: DeviceCatalog.previews(notification, kinds: devices.kinds)) else { continue }
                problem = failure
            }
            diagnostics.append(Diagnostic(path: story.sourcePath, location: edition.location(ofField: problem.field, in: story),
                                          message: "newsgen publish would refuse this breaking story: \(problem.reason)"))
        }
        return diagnostics
    }
}
