import Dispatch
import Markdown
import Synchronization
import Templates

public struct BuildOptions: Sendable {
    /// Output folder; default `site/` in the site folder.
    public var output: String?
    public var filter: EditionFilter
    public init(output: String? = nil, filter: EditionFilter) {
        self.output = output
        self.filter = filter
    }
}

public struct BuildReport: Sendable, Hashable {
    public var stories: Int
    public var pages: Int
    public var written: Int
    public var unchanged: Int
    public var removed: Int
    public var output: String
}

/// `newsgen build`: renders an Edition into the output folder.
///
/// Steps: choose the stories the build shows → plan every output (story pages per language, front
/// pages, paginated category pages, root, 404, static assets; feeds and sitemaps plug in here as more
/// outputs) → render in parallel into the staging area → commit (rename into place, remove stale files).
/// Any error before the commit leaves the previous site exactly as it was.
public enum SiteBuilder {
    enum Output: Sendable {
        case story(Int, Language)
        case front(Language)
        case category(Category, Language, page: Int, pages: Int, stories: ArraySlice<Int>)
        case root
        case notFound
        case staticFile(String)
    }

    public static func outputDirectory(for edition: Edition, requested: String?) -> String {
        requested.map(FileSystem.absolute) ?? edition.directory + "/site"
    }

    public static func build(_ edition: Edition, options: BuildOptions,
                             progress: (@Sendable (Int, Int) -> Void)? = nil) throws(SiteError) -> BuildReport {
        let output = outputDirectory(for: edition, requested: options.output)
        if let problem = unsafeOutputProblem(output, edition: edition) {
            throw SiteError([Diagnostic(path: "--output", message: problem)])
        }
        let config = edition.config
        let stories = edition.stories.filter(options.filter.shows)
        let clock = ReaderClock(timeZone: config.timeZone, languages: config.languages)
        let links = Permalinks(config: config, clock: clock)
        let context = PageContext(edition: edition, links: links, clock: clock, stories: stories)
        let outputs = plan(stories: stories, context: context)
        let markdownOptions = MarkdownOptions(smartPunctuation: true, allowRawHTML: config.allowRawHTML)

        let writer: OutputWriter
        do {
            writer = try OutputWriter(directory: output)
        } catch {
            throw SiteError([Diagnostic(path: error.path, message: "cannot write the output: \(error.reason)")])
        }
        let failures = Mutex<[Diagnostic]>([])
        let done = Atomic<Int>(0)
        let chunk = 32
        DispatchQueue.concurrentPerform(iterations: (outputs.count + chunk - 1) / chunk) { block in
            for index in block * chunk..<min(outputs.count, (block + 1) * chunk) {
                if !failures.withLock({ $0.isEmpty }) { return }
                do {
                    let (path, bytes) = try render(outputs[index], stories: stories, context: context, options: markdownOptions)
                    try writer.stage(path, bytes)
                } catch let error as TemplateError {
                    failures.withLock {
                        $0.append(Diagnostic(path: error.path, location: .init(line: error.line, column: error.column), message: error.message))
                    }
                } catch let error as FileSystem.Failure {
                    failures.withLock { $0.append(Diagnostic(path: error.path, message: error.reason)) }
                } catch {
                    failures.withLock { $0.append(Diagnostic(path: output, message: "\(error)")) }
                }
            }
            let finished = done.add(min(chunk, outputs.count - block * chunk), ordering: .relaxed).newValue
            progress?(finished, outputs.count)
        }
        let problems = failures.withLock { $0 }
        if !problems.isEmpty {
            writer.abort()
            throw SiteError(problems)
        }
        do {
            let summary = try writer.commit()
            return BuildReport(stories: stories.count, pages: outputs.count, written: summary.written,
                               unchanged: summary.unchanged, removed: summary.removed, output: output)
        } catch {
            writer.abort()
            throw SiteError([Diagnostic(path: error.path, message: "cannot write the output: \(error.reason)")])
        }
    }

    /// Refuses output folders that would overwrite or delete the site's own sources.
    static func unsafeOutputProblem(_ output: String, edition: Edition) -> String? {
        let root = edition.directory
        let protected = [root, root + "/" + Edition.contentFolder, root + "/" + Edition.templatesFolder]
        for path in protected where path == output || path.hasPrefix(output + "/") || (output.hasPrefix(path + "/") && path != root) {
            return "the output folder \(output) would overwrite the site's sources (\(path)); choose another folder"
        }
        if output == "/" { return "the output folder cannot be /" }
        return nil
    }

    static func plan(stories: [Story], context: PageContext) -> [Output] {
        let config = context.config
        var outputs: [Output] = []
        for (index, story) in stories.enumerated() {
            for language in context.pageLanguages[story.id] ?? [] { outputs.append(.story(index, language)) }
        }
        for language in config.languages {
            outputs.append(.front(language))
            let available = stories.indices.filter { context.pageLanguages[stories[$0].id]?.contains(language) == true }
            for category in config.categories {
                let members = available.filter { stories[$0].categories.contains(category) }
                let pages = max(1, (members.count + config.pageSize - 1) / config.pageSize)
                for page in 1...pages {
                    let start = (page - 1) * config.pageSize
                    outputs.append(.category(category, language, page: page, pages: pages,
                                             stories: members[min(start, members.count)..<min(start + config.pageSize, members.count)]))
                }
            }
        }
        outputs.append(.root)
        outputs.append(.notFound)
        for file in context.edition.theme.staticFiles { outputs.append(.staticFile(file)) }
        return outputs
    }

    static func render(_ output: Output, stories: [Story], context: PageContext,
                       options: MarkdownOptions) throws -> (String, [UInt8]) {
        let templates = context.edition.theme.templates
        let links = context.links
        let config = context.config
        switch output {
        case .story(let index, let language):
            let story = stories[index]
            let html = try templates.render("story", context.storyPage(story, language, options: options))
            return (Permalinks.file(for: links.story(story, language)), Array(html.utf8))
        case .front(let language):
            let cards = stories.lazy.filter { context.pageLanguages[$0.id]?.contains(language) == true }
                .prefix(config.frontPageSize).map { context.card($0, language) }
            let title = config.title[code: language.code] ?? config.title[code: config.defaultLanguage.code] ?? ""
            let value = context.listPage(kind: "front", title: title,
                                         description: config.description[code: language.code] ?? "",
                                         language: language, relativeURL: links.front(language), url: links.front,
                                         cards: Array(cards), category: nil, pagination: nil)
            return (Permalinks.file(for: links.front(language)), Array(try templates.render("front", value).utf8))
        case .category(let category, let language, let page, let pages, let members):
            let relative = links.category(category, language, page: page)
            let value = context.listPage(
                kind: "category", title: category.title(in: language), description: "",
                language: language, relativeURL: relative, url: { links.category(category, $0, page: page) },
                cards: members.map { context.card(stories[$0], language) }, category: category,
                pagination: (page, pages, { links.category(category, language, page: $0) }))
            return (Permalinks.file(for: relative), Array(try templates.render("category", value).utf8))
        case .root, .notFound:
            let language = config.defaultLanguage
            var value = context.base(language, kind: output.isRoot ? "root" : "404",
                                     title: config.title[code: language.code] ?? "", description: "",
                                     relativeURL: output.isRoot ? "" : "404.html",
                                     alternateLanguages: config.languages, url: links.front)
            value["languages"] = .list(config.languages.map { language in
                .object([
                    "code": .string(language.code), "label": .string(language.label),
                    "dir": .string(language.direction.rawValue),
                    "href": .string(links.href(links.front(language))),
                    "strings": context.strings(language),
                ])
            })
            value["default_href"] = .string(links.href(links.front(language)))
            let html = try templates.render(output.isRoot ? "root" : "404", .object(value))
            return (output.isRoot ? "index.html" : "404.html", Array(html.utf8))
        case .staticFile(let file):
            let bytes = try FileSystem.read(context.edition.theme.directory + "/static/" + file)
            return ("static/" + file, bytes)
        }
    }
}

extension SiteBuilder.Output {
    var isRoot: Bool { if case .root = self { return true } else { return false } }
}
