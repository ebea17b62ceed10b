import News
import Incremental

/// A story's metadata as bytes (what the engine keeps of a parsed story between processes), and back.
///
/// The bodies' text is not kept, only where each body is in the file (`Edition.withBodies` reads it again). A
/// story's categories are kept whole, so that reading a story back needs nothing but its bytes.
enum StoryCodec {
    static func write(_ story: Story, _ w: inout ByteWriter, bodyPositions: Bool = true) {
        w.string(story.id)
        w.string(story.slug)
        w.string(story.sourcePath)
        w.int(story.categories.count)
        for category in story.categories {
            w.string(category.name)
            w.string(category.slug)
            w.localized(category.titles)
        }
        w.timestamp(story.published)
        w.bool(story.updated != nil)
        if let updated = story.updated { w.timestamp(updated) }
        w.bool(story.breaking)
        w.bool(story.draft)
        w.int(story.media.count)
        for reference in story.media {
            w.string(reference.path)
            w.int(reference.location.line)
            w.int(reference.location.column)
        }
        w.strings(story.authors)
        w.optionalString(story.image)
        w.localized(story.titles)
        w.localized(story.summaries)
        w.localized(story.corrections)
        w.localized(story.push.text)
        w.int(story.push.revision)
        w.optionalString(story.push.expires.map { String($0) })
        w.bool(story.push.budgetExempt)
        w.localized(story.imageAlt)
        w.optionalString(story.imageCredit)
        let codes = story.bodies.keys.sorted()
        w.int(codes.count)
        for code in codes {
            w.string(code)
            guard bodyPositions else { continue }
            w.int(story.bodies[code]?.firstLine ?? 1)
            w.int(story.bodies[code]?.sourceRange.lowerBound ?? 0)
            w.int(story.bodies[code]?.sourceRange.upperBound ?? 0)
        }
    }

    /// What `write` wrote, or nil when the bytes do not add up.
    static func read(_ r: inout ByteReader) -> Story? {
        guard let id = r.string(), let slug = r.string(), let sourcePath = r.string(), let categoryCount = r.count() else {
            return nil
        }
        var categories: [Category] = []
        for _ in 0..<categoryCount {
            guard let name = r.string(), let slug = r.string(), let titles = r.localized() else { return nil }
            categories.append(Category(name: name, slug: slug, titles: titles))
        }
        guard let published = r.timestamp(), let hasUpdated = r.bool() else { return nil }
        var updated: Timestamp?
        if hasUpdated {
            guard let value = r.timestamp() else { return nil }
            updated = value
        }
        guard let breaking = r.bool(), let draft = r.bool(), let mediaCount = r.count() else { return nil }
        var media: [MediaReference] = []
        for _ in 0..<mediaCount {
            guard let path = r.string(), let line = r.int(), let column = r.int() else { return nil }
            media.append(MediaReference(path: path, location: .init(line: line, column: column)))
        }
        guard let authors = r.strings(), let image = r.optionalString(), let titles = r.localized(),
              let summaries = r.localized(), let corrections = r.localized(), let pushText = r.localized(),
              let revision = r.int(), let expires = r.optionalString(), let budgetExempt = r.bool(),
              let imageAlt = r.localized(), let imageCredit = r.optionalString(), let bodyCount = r.count() else { return nil }
        var bodies: [String: StoryBody] = [:]
        bodies.reserveCapacity(bodyCount)
        for _ in 0..<bodyCount {
            guard let code = r.string(), let firstLine = r.int(), let lower = r.int(), let upper = r.int(),
                  lower >= 0, upper >= lower else { return nil }
            bodies[code] = StoryBody(languageCode: code, text: [], firstLine: firstLine, sourceRange: lower..<upper)
        }
        guard !categories.isEmpty, !bodies.isEmpty else { return nil }
        let push = PushRequest(text: pushText, revision: revision, expires: expires.flatMap { Double($0) },
                               budgetExempt: budgetExempt)
        return Story(id: id, slug: slug, sourcePath: sourcePath, categories: categories, published: published,
                     updated: updated, breaking: breaking, draft: draft, authors: authors, image: image, titles: titles,
                     summaries: summaries, corrections: corrections, push: push, bodies: bodies, bodiesLoaded: false,
                     imageAlt: imageAlt, imageCredit: imageCredit, media: media)
    }

    /// A hash of what `write` keeps except the bodies' places in the file: editing a body's text alone leaves it
    /// unchanged.
    static func metadataHash(_ story: Story) -> UInt64 {
        var writer = ByteWriter()
        write(story, &writer, bodyPositions: false)
        return ContentHasher.hash(writer.bytes)
    }
}
