import News
import TestSupport

package enum Fixtures {
    package static let config = FixtureConfig.threeLanguages(title: "{ en: Example News, fr: Les Nouvelles, zh-Hans: 新闻网 }", categories: """
          - name: World
            title: { fr: Monde, zh-Hans: 国际 }
          - name: Politics
            title: { fr: Politique, zh-Hans: 政治 }
          - name: Sports
        """)

    package static func siteConfig(_ text: String = config) -> SiteConfig {
        var diagnostics: [Diagnostic] = []
        let parsed = SiteConfig.parse(text, path: "newsgen.yml", diagnostics: &diagnostics)
        precondition(diagnostics.isEmpty, "fixture config must parse: \(diagnostics)")
        return parsed!
    }

    package static func parseStory(_ text: String, fileName: String = "quake.md", config: SiteConfig = siteConfig(),
                                   withBodies: Bool = true) -> (Story?, [Diagnostic]) {
        StoryParser(config: config).parse(bytes: Array(text.utf8), path: "content/world/\(fileName)", fileName: fileName,
                                          withBodies: withBodies)
    }

    package static let story = """
    ---
    id: quake-off-coast
    category: World
    published: 2026-11-29T14:05:00Z
    updated: 2026-11-29T15:40:00+01:00
    breaking: true
    author: Ana Ruiz
    title:
      en: Magnitude 7.1 earthquake strikes off the coast
      fr: Un séisme de magnitude 7,1 frappe au large des côtes
      zh-Hans: 近海发生7.1级地震
    summary: { en: "Tsunami warning lifted.", fr: "Alerte levée." }
    push:
      text: { fr: "Séisme : alerte levée" }
      revision: 2
    ---
    <!-- lang: en -->
    **TOKYO —** The quake struck at dawn.

    <!-- lang: fr -->
    **TOKYO —** Le séisme a frappé à l’aube.

    <!-- lang: zh-Hans -->
    **东京电** 地震发生于黎明。
    """
}
