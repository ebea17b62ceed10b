import FuzzSupport
@testable import News

/// The sample site's configuration: three languages, six categories.
private let config: SiteConfig = {
    var diagnostics: [Diagnostic] = []
    let text = """
        title: { en: Example News, fr: Les Nouvelles, zh-Hans: 新闻网 }
        base_url: https://news.example.com/
        timezone: Europe/Paris
        languages:
          - { code: en, name: English }
          - { code: fr, name: French }
          - { code: zh-Hans, name: Mandarin }
        categories:
          - name: World
          - name: Politics
          - name: Business
          - name: Technology
          - name: Science
          - name: Sports
        """
    guard let config = SiteConfig.parse(text, path: "newsgen.yml", diagnostics: &diagnostics) else {
        fatalError("the fuzz target's site configuration does not parse: \(diagnostics)")
    }
    return config
}()

/// libFuzzer's entry point: the input as a story file (front matter, language markers, bodies). The file is
/// parsed both ways a build parses it, and the bodies read back from their byte ranges, as pages read them, must
/// be the bodies parsed with their text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStory(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parser = StoryParser(config: config)
    let (story, diagnostics) = parser.parse(bytes: bytes, path: "content/world/fuzz.md", fileName: "2026-11-29-fuzz.md")
    for diagnostic in diagnostics {
        _ = diagnostic.description
        if let location = diagnostic.location {
            require(location.line >= 1 && location.column >= 1, "diagnostic outside the file: \(diagnostic)")
        }
    }
    let (planned, _) = parser.parse(bytes: bytes, path: "content/world/fuzz.md", fileName: "2026-11-29-fuzz.md",
                                    withBodies: false)
    require((story == nil) == (planned == nil), "the two parses disagree on whether the story is valid")
    guard let story, let planned else { return 0 }
    for (code, body) in planned.bodies {
        require(body.sourceRange.upperBound <= bytes.count, "\(code) body ends after the file")
        require(StoryBody.text(in: bytes, body.sourceRange) == story.bodies[code]?.text,
                     "the \(code) body read back from its range differs from the parsed one")
    }
    return 0
}
