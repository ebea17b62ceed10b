import Incremental
import News
import Site

/// The hub's rules held against the whole site before it is deployed, for `newsgen check` and `newsgen build`:
/// a breaking story that `newsgen publish` would refuse (too many tags, a payload over a device's 4 KB, no text
/// to announce), a device template the hub would not register, or a category that cannot be a tag fails there,
/// pointing at the line to change. Planning and rendering are publish's own (`NotificationPlanner.notification`,
/// `Notification.sizeProblem`, `DeviceCatalog.previews`), so check and publish cannot disagree.
///
/// Each breaking story is checked by a task of the site's engine (`storyCheck`, given to `Edition.load`), which
/// reads the story, `newsgen.yml` and the device templates through the engine: a story none of these changed for
/// is not checked again by the next build.
public enum PushCheck {
    /// Problems in the form of the site's own; empty when publish would accept every breaking story, whatever its
    /// date or draft state. The edition must have been loaded with `storyCheck`.
    static func diagnostics(_ edition: Edition) -> [Diagnostic] {
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
        guard let checked = edition.checked[kind] else {
            preconditionFailure("the edition was loaded without PushCheck.storyCheck")
        }
        let refused = checked.compactMap { place, value in
            (value as? Verdict)?.problem.map { (edition.stories[place], $0) }
        }.sorted {
            $0.0.published.secondsSinceEpoch != $1.0.published.secondsSinceEpoch
                ? $0.0.published.secondsSinceEpoch < $1.0.published.secondsSinceEpoch : $0.0.id < $1.0.id
        }
        for (story, problem) in refused {
            diagnostics.append(Diagnostic(path: story.sourcePath, location: edition.location(ofField: problem.field, in: story),
                                          message: "newsgen publish would refuse this breaking story: \(problem.reason)"))
        }
        return diagnostics
    }

    /// The edition as `check`, `build` and `serve` load it: with the hub's check of each breaking story, and
    /// refused with every problem when the site's or the hub's rules are broken.
    public static func loadEdition(directory: String, baseURLOverride: String?, cache: Edition.CacheMode,
                                   snapshot: InputSnapshot? = nil, session: BuildSession? = nil) throws(SiteError) -> Edition {
        let edition = try Edition.load(directory: directory, baseURLOverride: baseURLOverride, cache: cache,
                                       snapshot: snapshot, checks: [storyCheck], session: session)
        let problems = diagnostics(edition)
        if !problems.isEmpty { throw SiteError(problems) }
        return edition
    }

    static let kind = "push-check"
    static let frameKind = "push-frame"

    /// Every breaking story as publish would announce it, whatever its date, draft state, correction or the ledger
    /// say, so that nothing in the content folder fails only later. A story's plan and renders need no other
    /// story's.
    public static let storyCheck = StoryCheck(kind: kind, rules: [
        frameKind: Rule(keeping: .memory) { _, fetch in
            let config = try SiteTasks.config(fetch)
            var hasher = ContentHasher()
            hasher.combine(try fetch.hash(of: Key("config")))
            hasher.combine(config.baseURL)
            // The kinds the templates that load make; a template with a problem fails the check on its own.
            let folder = Edition.templatesFolder + "/devices"
            var kinds: [DeviceKind] = []
            for name in try SiteTasks.files(in: folder, fetch) where name.hasSuffix(".json") {
                let bytes = try SiteTasks.bytes(of: folder + "/" + name, fetch)
                hasher.combine(name)
                hasher.combine(bytes)
                if let text = String(validating: bytes, as: UTF8.self),
                   let kind = try? DeviceCatalog.kind(String(name.dropLast(5)), path: folder + "/" + name, text: text) {
                    kinds.append(kind)
                }
            }
            return Output(Frame(config: config, kinds: kinds), hash: hasher.value)
        },
        kind: Rule(keeping: .bytes(Verdict.codec)) { key, fetch in
            let frame = try fetch.value(Key(frameKind), as: Frame.self)
            guard let story = try SiteTasks.story(key.name, fetch) else { return Output(Verdict(problem: nil), hash: 0) }
            let verdict = Verdict(problem: problem(of: story, frame))
            return Output(verdict, hash: ContentHasher.hash(verdict.bytes))
        },
    ], applies: \.breaking)

    /// What every story's check reads besides the story.
    struct Frame: Sendable {
        var config: SiteConfig
        var kinds: [DeviceKind]
    }

    /// A notification's size does not depend on when it is sent (its dates have a fixed width from 2001 to 2286),
    /// so every story is planned at this one instant, and its check depends only on the story, the config and the
    /// device templates.
    static let plannedAt = Timestamp(secondsSinceEpoch: 4_102_444_800)   // 2100-01-01T00:00:00Z

    static func problem(of story: Story, _ frame: Frame) -> PlanProblem? {
        let clock = ReaderClock(timeZone: frame.config.timeZone, languages: frame.config.languages)
        let links = Permalinks(config: frame.config, clock: clock)
        switch NotificationPlanner.notification(for: story, config: frame.config, now: plannedAt, links: links) {
        case .failure(let failure): return failure
        case .success(let notification):
            return notification.sizeProblem(previews: DeviceCatalog.previews(notification, kinds: frame.kinds))
        }
    }

    /// A story's check: the reason publish would refuse it, if it would.
    struct Verdict: Sendable {
        var problem: PlanProblem?

        /// Nothing for none; else the reason and the field's path, each followed by a NUL (neither holds one).
        var bytes: [UInt8] {
            guard let problem else { return [] }
            return ([problem.reason] + problem.field).flatMap { Array($0.utf8) + [0] }
        }

        static let codec = Codec(Verdict.self, encode: { [1] + $0.bytes }, decode: { bytes in
            guard bytes.first == 1 else { return nil }
            let parts = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard let last = parts.last, last.isEmpty else { return nil }
            if parts.count == 1 { return Verdict(problem: nil) }
            return Verdict(problem: PlanProblem(reason: parts[0], field: Array(parts[1..<(parts.count - 1)])))
        })
    }
}
