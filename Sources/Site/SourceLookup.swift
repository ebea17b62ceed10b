import News
import YAML

/// Where a value is in the site's sources, for checks made outside this module (the hub's rules) that must point
/// at the line to change. The file is read again: only a problem asks, and a loaded story does not keep where its
/// fields were.
extension Edition {
    /// The value of a front-matter field in a story's file: `["category"]`, or `["push", "text"]` for a nested
    /// one, whose deepest part that is there is given. nil when the file cannot be read or has no such field.
    public func location(ofField path: [String], in story: Story) -> SourceLocation? {
        guard let bytes = try? FileSystem.read(directory + "/" + story.sourcePath) else { return nil }
        var sink = DiagnosticSink(path: story.sourcePath)
        guard let start = StoryParser.validateUTF8(bytes, sink: &sink),
              var node = StoryParser.frontMatter(SourceLines(bytes, from: start), sink: &sink)?.root else { return nil }
        var found: SourceLocation?
        for key in path {
            guard let next = node[key] else { break }
            node = next
            found = next.location
        }
        return found
    }

    /// Where a category's name is in newsgen.yml.
    public func configLocation(ofCategory name: String) -> SourceLocation? {
        configRoot()?["categories"]?.sequence?.lazy.compactMap { $0["name"] }.first { $0.string == name }?.location
    }

    /// Where a tag of `push.test_tags` is in newsgen.yml (a list, or one tag).
    public func configLocation(ofTestTag tag: String) -> SourceLocation? {
        guard let node = configRoot()?["push"]?["test_tags"] else { return nil }
        return (node.sequence ?? [node]).first { $0.string == tag }?.location
    }

    private func configRoot() -> YAMLNode? {
        guard let bytes = try? FileSystem.read(directory + "/" + Self.configFile),
              let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return (try? YAMLDocument.parse(text)) ?? nil
    }
}
