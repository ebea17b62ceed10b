/// The `newsgen.yml` of the small test sites: English, French and Mandarin, Paris time, and (unless `categories`
/// gives other entries of the `categories:` list) the categories World and Sports. `title` is the site title as
/// written in YAML; `extra` is appended as more lines.
public enum FixtureConfig {
    public static let worldAndSports = """
          - name: World
            title: { en: World, fr: Monde, zh-Hans: 国际 }
          - name: Sports
            title: { en: Sports, fr: Sport, zh-Hans: 体育 }
        """

    public static func threeLanguages(title: String, categories: String = worldAndSports, extra: String = "") -> String {
        var text = """
        title: \(title)
        base_url: https://news.example.com/
        timezone: Europe/Paris
        languages:
          - code: en
            name: English
          - code: fr
            name: French
          - code: zh-Hans
            name: Mandarin
        categories:
        \(categories)
        """
        if !extra.isEmpty { text += "\n" + extra }
        return text
    }
}
