import TestSupport

/// A small site used by the end-to-end tests: three languages, two categories, four stories.
enum BuildFixtures {
    static let config = FixtureConfig.threeLanguages(title: "{ en: Test News, fr: Les Nouvelles Test, zh-Hans: 测试新闻 }",
                                                     extra: "page_size: 2")

    static let quake = """
    ---
    id: quake-off-coast
    category: [World, Sports]
    published: 2026-11-29T14:05:00Z
    breaking: true
    author: Ana Ruiz
    title:
      en: Magnitude 7.1 earthquake strikes off the coast
      fr: Un séisme de magnitude 7,1 frappe au large des côtes
      zh-Hans: 近海发生7.1级地震
    ---
    <!-- lang: en -->
    **TOKYO —** The quake struck at "dawn".

    ## What we know

    <!-- lang: fr -->
    **TOKYO —** Le séisme a frappé à l’aube.

    <!-- lang: zh-Hans -->
    **东京电** 地震发生于黎明。
    """

    static let englishOnly = """
    ---
    category: World
    published: 2026-11-28T09:00:00+01:00
    title: { en: Only in English, zh-Hans: 只有英文 }
    ---
    <!-- lang: en -->
    English body.

    <!-- lang: zh-Hans -->
    中文正文。
    """

    static let draft = """
    ---
    category: Sports
    published: 2026-11-27T09:00:00Z
    draft: true
    title: A draft
    ---
    Draft body.
    """

    static let future = """
    ---
    category: Sports
    published: 2027-01-15T09:00:00Z
    title: From the future
    ---
    Future body.
    """

    static let files: [String: String] = [
        "newsgen.yml": config,
        "content/world/quake.md": quake,
        "content/world/2026-11-28-english-only.md": englishOnly,
        "content/sports/draft.md": draft,
        "content/sports/future.md": future,
    ]

    /// 2026-11-29T15:00:00Z
    static let now = ["SOURCE_DATE_EPOCH": "1795964400"]

    static func site() throws -> TemporarySite { try TemporarySite(files: files) }
}
