import News
/// schema.org `NewsArticle` JSON-LD for a story page, following Google's Article documentation: headline
/// (never truncated), dates with offsets, authors, image, language, canonical URL, publisher, sections, and a
/// `CorrectionComment` when the story carries a correction.
public struct NewsArticle: Sendable {
    public var url: String
    public var headline: String
    public var description: String
    /// The language the article's text is in (the body's language, which differs from the page's on a
    /// fallback page).
    public var inLanguage: String
    public var published: Timestamp
    public var modified: Timestamp
    public var authors: [String]
    public var image: String?
    /// The lead photo's crops (16:9, 4:3, 1:1) with their sizes, written as ImageObjects instead of `image`.
    public var imageObjects: [(url: String, width: Int, height: Int)] = []
    public var sections: [String]
    public var publisherName: String
    public var publisherURL: String
    public var publisherLogo: String?
    public var correction: (text: String, date: Timestamp)?

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("@context", .string("https://schema.org")),
            ("@type", .string("NewsArticle")),
            ("mainEntityOfPage", .object([("@type", .string("WebPage")), ("@id", .string(url))])),
            ("url", .string(url)),
            ("headline", .string(headline)),
        ]
        if !description.isEmpty { members.append(("description", .string(description))) }
        members.append(("inLanguage", .string(inLanguage)))
        members.append(("datePublished", .string(published.rfc3339)))
        members.append(("dateModified", .string(modified.rfc3339)))
        let publisher = publisherJSON
        if authors.isEmpty {
            members.append(("author", .array([publisher])))
        } else {
            members.append(("author", .array(authors.map { .object([("@type", .string("Person")), ("name", .string($0))]) })))
        }
        if !imageObjects.isEmpty {
            members.append(("image", .array(imageObjects.map {
                .object([("@type", .string("ImageObject")), ("url", .string($0.url)),
                         ("width", .integer($0.width)), ("height", .integer($0.height))])
            })))
        } else if let image {
            members.append(("image", .array([.string(image)])))
        }
        if !sections.isEmpty {
            members.append(("articleSection", sections.count == 1 ? .string(sections[0]) : .array(sections.map { .string($0) })))
        }
        members.append(("publisher", publisher))
        if let correction {
            members.append(("correction", .object([
                ("@type", .string("CorrectionComment")),
                ("text", .string(correction.text)),
                ("datePublished", .string(correction.date.rfc3339)),
            ])))
        }
        return .object(members)
    }

    var publisherJSON: JSONValue {
        var members: [(String, JSONValue)] = [
            ("@type", .string("NewsMediaOrganization")),
            ("name", .string(publisherName)),
            ("url", .string(publisherURL)),
        ]
        if let publisherLogo {
            members.append(("logo", .object([("@type", .string("ImageObject")), ("url", .string(publisherLogo))])))
        }
        return .object(members)
    }

    /// The JSON-LD text to put inside `<script type="application/ld+json">`: `<`, `>` and `&` escaped so
    /// that no story text can end the script element.
    public var scriptText: String { JSONWriter.write(json, mode: .htmlScript) }
}

extension PageContext {
    /// `url`: the page's URL, relative to the site.
    func newsArticle(_ story: Story, _ language: Language, url: String, bodyLanguage: Language, title: String,
                     description: String) -> NewsArticle {
        var correction: (String, Timestamp)?
        if let (text, _) = localized(story.corrections, language) { correction = (text, story.lastModified) }
        let logo = config.publisher.logo.map { $0.hasPrefix("/") ? links.absolute(String($0.dropFirst())) : $0 }
        return NewsArticle(url: links.absolute(url), headline: title, description: description,
                           inLanguage: bodyLanguage.code, published: story.published, modified: story.lastModified,
                           authors: story.authors, image: imageURL(story), imageObjects: imageObjects(story),
                           sections: story.categories.map { $0.title(in: language) },
                           publisherName: config.publisherName(language), publisherURL: links.absolute(links.front(language)),
                           publisherLogo: logo, correction: correction)
    }
}
