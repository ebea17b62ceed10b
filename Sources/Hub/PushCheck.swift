import Dispatch
import Site
import Synchronization

/// The hub's rules held against the whole site before it is deployed, for `newsgen check` and `newsgen build`:
/// a breaking story that `newsgen publish` would refuse (too many tags, a payload over a device's 4 KB, no text
/// to announce), a device template the hub would not register, or a category that cannot be a tag fails there,
/// pointing at the line to change. Planning and rendering are publish's own (`NotificationPlanner.notification`,
/// `Notification.sizeProblem`, `DeviceCatalog.previews`), so check and publish cannot disagree.
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
        // The test audience is made of tags too.
        for tag in edition.config.push.testTags {
            if let reason = TagExpression.validateTag(tag) {
                diagnostics.append(Diagnostic(path: Edition.configFile, location: edition.configLocation(ofTestTag: tag),
                                              message: "push.test_tags: \"\(tag)\" cannot be a push tag: \(reason)"))
            }
        }
        // Every breaking story as publish would announce it, whatever its date, draft state, correction or the
        // ledger say, so that nothing in the content folder fails only later. A story's plan and renders need no
        // other story's: on every core (a site has hundreds of breaking stories, each rendered for every device).
        let planner = NotificationPlanner(edition: edition, now: now, sent: [:])
        let links = planner.permalinks()
        let stories = planner.breakingStories()
        let found = Mutex([PlanProblem?](repeating: nil, count: stories.count))
        let chunk = 64
        DispatchQueue.concurrentPerform(iterations: (stories.count + chunk - 1) / chunk) { block in
            var local: [(Int, PlanProblem)] = []
            for index in block * chunk..<min(stories.count, (block + 1) * chunk) {
                switch planner.notification(for: stories[index], links: links) {
                case .failure(let failure): local.append((index, failure))
                case .success(let notification):
                    if let problem = notification.sizeProblem(previews: DeviceCatalog.previews(notification, kinds: devices.kinds)) {
                        local.append((index, problem))
                    }
                }
            }
            found.withLock { for (index, problem) in local { $0[index] = problem } }
        }
        let problems = found.withLock { $0 }
        for (story, problem) in zip(stories, problems) {
            guard let problem else { continue }
            diagnostics.append(Diagnostic(path: story.sourcePath, location: edition.location(ofField: problem.field, in: story),
                                          message: "newsgen publish would refuse this breaking story: \(problem.reason)"))
        }
        return diagnostics
    }
}
