import Dispatch
import Synchronization

/// The whole site, loaded and validated: config, theme and every story (drafts and future ones included;
/// which stories a build shows is decided by `EditionFilter`). Nothing downstream re-reads the sources.
public struct Edition: Sendable {
    /// The site folder (absolute).
    public let directory: String
    public let config: SiteConfig
    public let theme: Theme
    /// Every story, newest first (ties broken by id so that order is stable).
    public let stories: [Story]

    public static let configFile = "newsgen.yml"
    public static let contentFolder = "content"
    public static let templatesFolder = "templates"

    /// Loads the site in `directory`. Collects every problem of every file before throwing.
    public static func load(directory: String, baseURLOverride: String? = nil) throws(SiteError) -> Edition {
        let root = FileSystem.absolute(directory)
        var diagnostics: [Diagnostic] = []

        let configPath = root + "/" + configFile
        guard FileSystem.exists(configPath) else {
            throw SiteError([Diagnostic(path: configFile, message: "no newsgen.yml here (\(root)); run newsgen in a site folder or pass --site DIR")])
        }
        var config: SiteConfig?
        switch Result(catching: { () throws(FileSystem.Failure) in try FileSystem.read(configPath) }) {
        case .success(let bytes):
            if let text = String(validating: bytes, as: UTF8.self) {
                config = SiteConfig.parse(text, path: configFile, diagnostics: &diagnostics)
            } else {
                diagnostics.append(Diagnostic(path: configFile, message: "the file is not valid UTF-8; save it as UTF-8"))
            }
        case .failure(let error):
            diagnostics.append(Diagnostic(path: configFile, message: "cannot read: \(error.reason)"))
        }
        if let override = baseURLOverride {
            if let problem = SiteConfig.baseURLProblem(override) {
                diagnostics.append(Diagnostic(path: "--base-url", message: problem))
            } else {
                config?.baseURL = override.hasSuffix("/") ? override : override + "/"
            }
        }
        guard let config, diagnostics.isEmpty else { throw SiteError(diagnostics) }

        let theme = Theme.load(directory: root + "/" + templatesFolder, displayPath: templatesFolder,
                               config: config, diagnostics: &diagnostics)
        let stories = loadStories(root: root, config: config, diagnostics: &diagnostics)
        diagnostics += crossCheck(stories)
        guard diagnostics.isEmpty, let theme else { throw SiteError(diagnostics) }
        return Edition(directory: root, config: config, theme: theme, stories: stories)
    }

    private static func loadStories(root: String, config: SiteConfig, diagnostics: inout [Diagnostic]) -> [Story] {
        let contentDirectory = root + "/" + contentFolder
        guard FileSystem.isDirectory(contentDirectory) else {
            diagnostics.append(Diagnostic(path: contentFolder, message: "the content folder is missing"))
            return []
        }
        // Hidden .md files are included on purpose: `.draft.md` would otherwise vanish silently; its slug is refused with a message.
        let files = FileSystem.files(under: contentDirectory, includeHidden: true).filter {
            $0.hasSuffix(".md") && !$0.split(separator: "/").dropLast().contains { $0.hasPrefix(".") }
        }
        let parser = StoryParser(config: config)
        let results = Mutex<[(Int, Story?, [Diagnostic])]>([])
        let chunk = 64
        DispatchQueue.concurrentPerform(iterations: (files.count + chunk - 1) / chunk) { block in
            var local: [(Int, Story?, [Diagnostic])] = []
            for index in block * chunk..<min(files.count, (block + 1) * chunk) {
                let file = files[index]
                let path = contentFolder + "/" + file
                let name = String(file.split(separator: "/").last ?? Substring(file))
                switch Result(catching: { () throws(FileSystem.Failure) in try FileSystem.read(contentDirectory + "/" + file) }) {
                case .success(let bytes):
                    let (story, problems) = parser.parse(bytes: bytes, path: path, fileName: name)
                    local.append((index, story, problems))
                case .failure(let error):
                    local.append((index, nil, [Diagnostic(path: path, message: "cannot read: \(error.reason)")]))
                }
            }
            results.withLock { $0 += local }
        }
        let ordered = results.withLock { $0 }.sorted { $0.0 < $1.0 }
        var stories: [Story] = []
        for (_, story, problems) in ordered {
            diagnostics += problems
            if let story { stories.append(story) }
        }
        return stories.sorted(by: newestFirst)
    }

    static func newestFirst(_ a: Story, _ b: Story) -> Bool {
        if a.published.secondsSinceEpoch != b.published.secondsSinceEpoch {
            return a.published.secondsSinceEpoch > b.published.secondsSinceEpoch
        }
        return a.id < b.id
    }

    /// Problems that involve several stories: duplicate ids and duplicate slugs.
    private static func crossCheck(_ stories: [Story]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var byID: [String: Story] = [:]
        var bySlug: [String: Story] = [:]
        for story in stories.sorted(by: { $0.sourcePath < $1.sourcePath }) {
            if let other = byID[story.id] {
                diagnostics.append(Diagnostic(path: story.sourcePath, location: .init(line: 1, column: 1),
                                              message: "duplicate story id \"\(story.id)\" (also used by \(other.sourcePath)); ids must be unique"))
            } else {
                byID[story.id] = story
            }
            if let other = bySlug[story.slug] {
                diagnostics.append(Diagnostic(path: story.sourcePath, location: .init(line: 1, column: 1),
                                              message: "duplicate slug \"\(story.slug)\" (also used by \(other.sourcePath)); rename one of the files"))
            } else {
                bySlug[story.slug] = story
            }
        }
        return diagnostics
    }
}

/// Which stories an output shows.
public struct EditionFilter: Sendable, Hashable {
    /// "Now": the clock, or `SOURCE_DATE_EPOCH` when set.
    public var now: Timestamp
    public var includeDrafts = false
    public var includeFuture = false

    public init(now: Timestamp, includeDrafts: Bool = false, includeFuture: Bool = false) {
        self.now = now
        self.includeDrafts = includeDrafts
        self.includeFuture = includeFuture
    }

    public func shows(_ story: Story) -> Bool {
        (includeDrafts || !story.draft) && (includeFuture || story.published <= now)
    }

    /// `SOURCE_DATE_EPOCH` if set (reproducible builds), else the clock.
    public static func currentTime(environment: [String: String]) -> Result<Timestamp, SiteError> {
        if let text = environment["SOURCE_DATE_EPOCH"] {
            guard let seconds = Int(text.strip(" \n")), seconds >= 0 else {
                return .failure(SiteError([Diagnostic(path: "SOURCE_DATE_EPOCH",
                                                      message: "must be a whole number of seconds since 1970, found \"\(text)\"")]))
            }
            return .success(Timestamp(secondsSinceEpoch: Double(seconds)))
        }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return .success(Timestamp(secondsSinceEpoch: Double(spec.tv_sec)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
