import Incremental

/// A story's metadata as bytes (what the engine keeps of a parsed story between processes), and back.
///
/// The bodies' text is not kept, only where each body is in the file (`Edition.withBodies` reads it again). A
/// story's categories are kept whole, so that reading a story back needs nothing but its bytes.
enum StoryCodec {
    static func write(_ story: Story, _ w: inout ByteWriter, bodyPositions: Bool = true) {
        w.u64(story.contentHash)
        w.u64(story.metadataHash)
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
        // The details, behind their length: a story read back decodes them only when asked.
        var details = ByteWriter()
        details.strings(story.authors)
        details.optionalString(story.image)
        details.localized(story.titles)
        details.localized(story.summaries)
        details.localized(story.corrections)
        details.localized(story.push.text)
        details.int(story.push.revision)
        details.optionalString(story.push.expires.map { String($0) })
        details.bool(story.push.budgetExempt)
        details.localized(story.imageAlt)
        details.optionalString(story.imageCredit)
        w.int(details.bytes.count)
        w.bytes += details.bytes
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
        guard let hash = r.u64(), let metadataHash = r.u64(), let id = r.string(), let slug = r.string(),
              let sourcePath = r.string(), let categoryCount = r.count() else { return nil }
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
        guard let detailsLength = r.count() else { return nil }
        let detailsStart = r.offset
        r.offset += detailsLength
        // Checked now (lengths and counts), decoded when asked.
        var details = ByteReader(r.bytes, range: detailsStart..<r.offset)
        guard skipDetails(&details), let bodyCount = r.count() else { return nil }
        var bodies: [String: StoryBody] = [:]
        bodies.reserveCapacity(bodyCount)
        for _ in 0..<bodyCount {
            guard let code = r.string(), let firstLine = r.int(), let lower = r.int(), let upper = r.int(),
                  lower >= 0, upper >= lower else { return nil }
            bodies[code] = StoryBody(languageCode: code, text: [], firstLine: firstLine, sourceRange: lower..<upper)
        }
        guard !categories.isEmpty, !bodies.isEmpty else { return nil }
        return Story(fields: Story.Fields(id: id, slug: slug, sourcePath: sourcePath, categories: categories,
                                          published: published, updated: updated, breaking: breaking, draft: draft,
                                          bodies: bodies, media: media),
                     encodedDetails: r.bytes[detailsStart..<(detailsStart + detailsLength)],
                     contentHash: hash, metadataHash: metadataHash)
    }

    /// A hash of what `write` keeps except the file hashes and the bodies' places in the file: editing a body's
    /// text alone leaves it unchanged.
    static func metadataHash(_ story: Story) -> UInt64 {
        var metadata = story
        metadata.contentHash = 0
        metadata.metadataHash = 0
        var writer = ByteWriter()
        write(metadata, &writer, bodyPositions: false)
        return ContentHasher.hash(writer.bytes)
    }

    /// Reads past a story's details as `write` wrote them, checking every length and count.
    static func skipDetails(_ r: inout ByteReader) -> Bool {
        func skipStrings(_ count: Int) -> Bool {
            for _ in 0..<count {
                guard let length = r.count() else { return false }
                r.offset += length
            }
            return true
        }
        func skipLocalized() -> Bool {
            guard let pairs = r.count() else { return false }
            return skipStrings(2 * pairs)
        }
        guard let authors = r.count(), skipStrings(authors), let hasImage = r.bool(), skipStrings(hasImage ? 1 : 0),
              skipLocalized(), skipLocalized(), skipLocalized(), skipLocalized(), r.int() != nil,
              let hasExpiry = r.bool(), skipStrings(hasExpiry ? 1 : 0), r.bool() != nil,
              skipLocalized(), let hasCredit = r.bool(), skipStrings(hasCredit ? 1 : 0) else { return false }
        return r.atEnd
    }

    /// A story's details from the bytes `skipDetails` accepted.
    static func decodeDetails(_ bytes: ArraySlice<UInt8>) -> Story.Details {
        var r = ByteReader(bytes)
        guard let authors = r.strings(), let image = r.optionalString(), let titles = r.localized(),
              let summaries = r.localized(), let corrections = r.localized(), let pushText = r.localized(),
              let revision = r.int(), let expires = r.optionalString(), let budgetExempt = r.bool(),
              let imageAlt = r.localized(), let imageCredit = r.optionalString() else {
            preconditionFailure("a story's details changed after they were checked")
        }
        return Story.Details(authors: authors, image: image, imageAlt: imageAlt, imageCredit: imageCredit, titles: titles, summaries: summaries, corrections: corrections,
                             push: PushRequest(text: pushText, revision: revision, expires: expires.flatMap { Double($0) },
                                               budgetExempt: budgetExempt))
    }
}
