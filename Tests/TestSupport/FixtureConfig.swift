/// The `newsgen.yml` of the small test sites: English, French and Mandarin, Paris time, and the categories World
/// and Sports. `title` is the site title as written in YAML; `extra` is appended as more lines.
public enum FixtureConfig {
    public static func threeLanguages(title: String, extra: String = "") -> String {
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
          - name: World
            title: { en: World, fr: Monde, zh-Hans: 国际 }
          - name: Sports
            title: { en: Sports, fr: Sport, zh-Hans: 体育 }
        """
        if !extra.isEmpty { text += "\n" + extra }
        return text
    }
}
