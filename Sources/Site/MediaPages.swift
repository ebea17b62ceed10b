import News
import Foundation
import Templates

/// What pages, feeds and structured data show of a story's photos (the values of `PublishedMedia`).
extension PageContext {
    /// The published photo a story's lead image is, when it is a photo of the media folder.
    func leadPhoto(_ story: Story) -> PublishedPhoto? {
        guard let image = story.image, let path = MediaReference.path(ofLink: image) else { return nil }
        return media.photos[path]
    }

    /// The `sizes` of a lead image: the story column (44rem) at most, the whole width on a phone. Cards show a
    /// third of the 72rem page at most.
    static let leadSizes = "(min-width: 46rem) 44rem, 100vw"
    static let cardSizes = "(min-width: 72rem) 22rem, (min-width: 44rem) 50vw, 100vw"

    /// The theme's `image` value of a story (see the README's template values): its `<picture>` sources, size,
    /// alt text in `language` (the title when it has none), credit, and whether it loads first (`lead`) or lazily.
    func imageValue(_ story: Story, _ language: Language, lead: Bool) -> TemplateValue? {
        guard let image = story.image else { return nil }
        let (title, titleLanguage) = localized(story.titles, language) ?? (story.id, language)
        var value: [String: TemplateValue] = [
            "lead": .bool(lead),
            "sizes": .string(lead ? Self.leadSizes : Self.cardSizes),
        ]
        // The page's language first; then, with `media.missing_alt: title` or no alt text at all, the title
        // (in the page's language); else another language's text, marked as such.
        if let alt = story.imageAlt[code: language.code] {
            value["alt"] = .string(alt)
        } else if config.media.missingAlt == .title || story.imageAlt.isEmpty {
            value["alt"] = .string(title)
            if titleLanguage != language { value["alt_lang"] = .string(titleLanguage.code) }
        } else if let (alt, altLanguage) = localized(story.imageAlt, language) {
            value["alt"] = .string(alt)
            value["alt_lang"] = .string(altLanguage.code)
        }
        if let credit = story.imageCredit { value["credit"] = .string(credit) }
        if let photo = leadPhoto(story) {
            value["src"] = .string(links.href(photo.main.path))
            value["width"] = .number(Double(photo.main.width))
            value["height"] = .number(Double(photo.main.height))
            value["type"] = .string(photo.format.mediaType)
            value["srcset"] = .string(srcset(photo.widths))
            value["webp_srcset"] = .string(srcset(photo.webpWidths))
            if let card = photo.crops[MediaNames.cardCrop] {
                value["card_url"] = .string(links.absolute(card.path))
                value["card_width"] = .number(Double(card.width))
                value["card_height"] = .number(Double(card.height))
            }
        } else {
            value["src"] = .string(image.hasPrefix("/") ? links.href(String(image.dropFirst())) : image)
            value["card_url"] = .string(imageURL(story) ?? image)
        }
        return .object(value)
    }

    func srcset(_ variants: [PublishedVariant]) -> String {
        variants.map { links.href($0.path) + " \($0.width)w" }.joined(separator: ", ")
    }

    /// JSON-LD's images of a story: the 16:9, 4:3 and 1:1 crops Google asks for, and the Open Graph card, with
    /// their sizes.
    func imageObjects(_ story: Story) -> [(url: String, width: Int, height: Int)] {
        guard let photo = leadPhoto(story) else { return [] }
        return MediaNames.crops.compactMap { photo.crops[$0.name] }.map { (links.absolute($0.path), $0.width, $0.height) }
    }

    /// A feed entry's enclosure: the lead photo's main variant.
    func enclosure(_ story: Story) -> FeedEnclosure? {
        guard let photo = leadPhoto(story) else { return nil }
        return FeedEnclosure(url: links.absolute(photo.path), type: photo.format.mediaType, length: photo.main.bytes)
    }

    /// A rendered body with its photos as `<picture>` elements (sizes, `srcset`, WebP, lazy loading) and its
    /// links to the media folder under the site's base path. cmark writes every image as
    /// `<img src="…" alt="…" />` (with ` title="…"` when it has one), which is what is looked for.
    func withPhotos(_ html: [UInt8]) -> [UInt8] {
        guard html.firstIndex(ofBytes: Array("\"/\(MediaReference.folder)/".utf8)) != nil else { return html }
        let imageStart = Array("<img src=\"/\(MediaReference.folder)/".utf8)
        let srcOffset = "<img src=\"".utf8.count
        var out: [UInt8] = []
        out.reserveCapacity(html.count + 512)
        var position = 0
        while let start = html.firstIndex(ofBytes: imageStart, from: position) {
            out += html[position..<start]
            let srcStart = start + srcOffset
            guard let quote = html[srcStart...].firstIndex(of: UInt8(ascii: "\"")),
                  let close = html.firstIndex(ofBytes: Array(" />".utf8), from: quote) else {
                out += imageStart
                position = start + imageStart.count
                continue
            }
            let src = String(decoding: html[srcStart..<quote], as: UTF8.self)
            let attributes = String(decoding: html[(quote + 1)..<close], as: UTF8.self)   // ` alt="…"` and ` title="…"`
            var element: String
            if let path = MediaReference.path(ofLink: src), let photo = media.photos[path] {
                element = "<picture><source type=\"image/webp\" srcset=\"\(srcset(photo.webpWidths))\" sizes=\"\(Self.leadSizes)\">"
                element += "<img src=\"\(links.href(photo.main.path))\" srcset=\"\(srcset(photo.widths))\" sizes=\"\(Self.leadSizes)\""
                element += " width=\"\(photo.main.width)\" height=\"\(photo.main.height)\"\(attributes) loading=\"lazy\" decoding=\"async\"></picture>"
            } else {
                element = "<img src=\"\(links.href(String(src.dropFirst())))\"\(attributes) />"
            }
            out += element.utf8
            position = close + 3
        }
        out += html[position...]
        if links.basePath != "/" {
            out = out.replacing(bytes: Array("href=\"/\(MediaReference.folder)/".utf8),
                                with: Array("href=\"\(links.basePath)\(MediaReference.folder)/".utf8))
        }
        return out
    }
}

/// A feed entry's attached file (RSS `enclosure`, Atom `link rel="enclosure"`).
public struct FeedEnclosure: Sendable, Hashable {
    public var url: String
    public var type: String
    public var length: Int
}
