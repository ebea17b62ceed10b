import Testing
import TestSupport
@testable import News
@testable import Site
import Incremental

/// Which stories each category page holds and where its pager leads (`SiteBuilder.plan`): the index shows the
/// newest `page_size` stories, the older ones fill archive pages numbered from the oldest.
@Suite struct CategoryPagesTests {
    static let size = 3

    /// A site whose World category has `count` stories, `w01` (the oldest) to `w{count}` (the newest), one a day;
    /// `frenchCount` of the newest also have a French body (the others have no French page: `missing_language: skip`).
    static func plan(count: Int, frenchCount: Int? = nil) throws -> (outputs: [SiteBuilder.Output], context: PageContext, site: TemporarySite) {
        var files = ["newsgen.yml": FixtureConfig.threeLanguages(
            title: "Test", extra: "page_size: \(size)" + (frenchCount == nil ? "" : "\nmissing_language: skip"))]
        for number in stride(from: 1, through: count, by: 1) {
            let french = frenchCount.map { number > count - $0 } ?? true
            files["content/\(id(number)).md"] = """
            ---
            category: World
            published: 2026-01-01T09:00:00Z
            title: Story \(number)
            ---
            <!-- lang: en -->
            Body \(number).
            \(french ? "\n<!-- lang: fr -->\nCorps \(number).\n" : "")
            """.replacingOccurrences(of: "2026-01-01", with: day(number))
        }
        let site = try TemporarySite(files: files)
        let edition = try Edition.load(directory: site.path)
        let now = try Timestamp.parse("2026-12-31T00:00:00Z").get()
        let config = edition.config
        let clock = ReaderClock(timeZone: config.timeZone, languages: config.languages)
        let context = PageContext(edition: edition, links: Permalinks(config: config, clock: clock), clock: clock,
                                  filter: EditionFilter(now: now))
        return (SiteBuilder.plan(stories: context.stories, context: context, now: now), context, site)
    }

    static func id(_ number: Int) -> String { number < 10 ? "w0\(number)" : "w\(number)" }

    /// Day `number` of 2026 as `YYYY-MM-DD` (numbers up to 28 stay in January).
    static func day(_ number: Int) -> String { "2026-01-" + (number < 10 ? "0\(number)" : "\(number)") }

    /// The World pages in `language`, in plan order.
    static func worldPages(_ outputs: [SiteBuilder.Output], _ language: String) -> [SiteBuilder.CategoryListing] {
        outputs.compactMap { output in
            guard case .category(let listing) = output, listing.category.slug == "world",
                  listing.language.code == language else { return nil }
            return listing
        }
    }

    @Test(arguments: [0, 1, size, size + 1, 2 * size, 2 * size + 1, 3 * size + 5])
    func pagesHoldTheirStoriesAndLinkInOrder(_ count: Int) throws {
        let (outputs, context, _) = try Self.plan(count: count)
        let pages = Self.worldPages(outputs, "en")
        let archive = (max(0, count - Self.size) + Self.size - 1) / Self.size
        #expect(pages.map(\.page) == [.index] + (0..<archive).map { .archive($0 + 1) })
        func ids(_ listing: SiteBuilder.CategoryListing) -> [String] { listing.stories.map { context.stories[$0].id } }
        // The index: the newest `size`, newest first.
        let index = try #require(pages.first)
        #expect(ids(index) == stride(from: count, to: max(0, count - Self.size), by: -1).map(Self.id))
        #expect(index.newer == nil)
        #expect(index.older == (archive > 0 ? .archive(archive) : nil))
        #expect(index.alternates.map(\.code) == ["en", "fr", "zh-Hans"])
        // Archive page k: stories (k − 1)·size + 1 … k·size counted from the oldest (the last one may be short).
        for listing in pages.dropFirst() {
            guard case .archive(let k) = listing.page else { Issue.record("\(listing.page)"); continue }
            let oldest = (k - 1) * Self.size + 1
            let newest = min(k * Self.size, count - Self.size)
            #expect(ids(listing) == stride(from: newest, through: oldest, by: -1).map(Self.id), "page \(k)")
            #expect(listing.older == (k > 1 ? .archive(k - 1) : nil), "page \(k)")
            #expect(listing.newer == (k < archive ? .archive(k + 1) : .index), "page \(k)")
            #expect(listing.alternates.map(\.code) == ["en", "fr", "zh-Hans"], "page \(k)")
        }
        // Every story is on exactly one page.
        #expect(pages.flatMap(ids).sorted() == (0..<count).map { Self.id($0 + 1) })
        #expect(context.links.category(index.category, index.language, page: .index) == "en/world/")
        #expect(context.links.category(index.category, index.language, page: .archive(2)) == "en/world/page/2/")
    }

    /// An archive page exists in a language only when that language has that many; the index in every language.
    @Test func archivePagesListOnlyTheLanguagesThatHaveThem() throws {
        // English: 11 stories = index + 3 archive pages (3, 3, 2); French: the newest 7 = index + 2 (3, 1);
        // Chinese: none, so only the index (empty).
        let (outputs, _, _) = try Self.plan(count: 11, frenchCount: 7)
        let english = Self.worldPages(outputs, "en")
        let french = Self.worldPages(outputs, "fr")
        #expect(english.map(\.page) == [.index, .archive(1), .archive(2), .archive(3)])
        #expect(french.map(\.page) == [.index, .archive(1), .archive(2)])
        #expect(Self.worldPages(outputs, "zh-Hans").map(\.page) == [.index])
        #expect(english.map { $0.alternates.map(\.code) } == [["en", "fr", "zh-Hans"], ["en", "fr"], ["en", "fr"], ["en"]])
        #expect(french.map { $0.alternates.map(\.code) } == [["en", "fr", "zh-Hans"], ["en", "fr"], ["en", "fr"]])
        #expect(french.map { Array($0.stories) }.map(\.count) == [3, 3, 1])
        #expect(french.map(\.older) == [.archive(2), nil, .archive(1)])
        #expect(french.map(\.newer) == [nil, .archive(2), .index])
    }

    /// A new story changes what the index and the newest archive page list (`PlannedPage`, the input of their
    /// tasks), and nothing else's. When it starts a new
    /// archive page, the page before it (full, and the newest until then) changes too, once: its "Newer" link led
    /// to the index and now leads to the new page. Older full pages do not depend on the number of pages.
    @Test(arguments: [2 * size + 2, 3 * size, 4 * size])
    func aNewStoryChangesOnlyTheIndexAndTheNewestArchivePage(_ count: Int) throws {
        func fingerprints(_ count: Int) throws -> [CategoryPage: UInt64] {
            let (outputs, context, _) = try Self.plan(count: count)
            var result: [CategoryPage: UInt64] = [:]
            for output in outputs {
                guard case .category(let listing) = output, listing.category.slug == "world",
                      listing.language.code == "fr" else { continue }
                let names = context.stories.map { story in
                    let name = StoryPages.taskName(sourcePath: story.sourcePath)
                    return (name: name, hash: ContentHasher.hash(name))
                }
                result[listing.page] = PlannedPage(output, context: context, names: names,
                                                   now: Timestamp(secondsSinceEpoch: 0)).hash
            }
            return result
        }
        let before = try fingerprints(count)
        let after = try fingerprints(count + 1)
        let changed = Set(after.keys.filter { before[$0] != after[$0] })
        let newest = (count + 1 - Self.size + Self.size - 1) / Self.size
        let started = newest > before.count - 1
        #expect(changed == Set([.index, .archive(newest)] + (started ? [.archive(newest - 1)] : [])))
        #expect(after.count == before.count + (started ? 1 : 0))
        #expect(started == (count % Self.size == 0))
    }
}
