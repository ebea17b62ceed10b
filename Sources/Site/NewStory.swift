import News
/// `newsgen new`: the file of a story still to be written, in the story format, as a draft.
///
/// It is refused for what `check` would refuse in its name and category (the same rules: `StoryParser`'s slug rule,
/// the config's categories, `StoryKeys`), so that the editor never has to rename a story once it is written. The
/// file as written does not pass `check`: its default-language title (when none was given) and its bodies are
/// empty, and each is an error at its line until the editor fills it in.
public enum NewStory {
    /// Writes `content/<category slug>/<name>.md` in the site folder `directory` and returns its path relative to
    /// the site folder. `name` is the file name without `.md` (the slug, perhaps after a `YYYY-MM-DD-` date).
    /// Never replaces a file; nothing is written when there is a problem.
    public static func write(site directory: String, name: String, category categoryName: String, breaking: Bool,
                             title: String?, now: Timestamp) throws(SiteError) -> String {
        let root = FileSystem.absolute(directory)
        var diagnostics: [Diagnostic] = []
        guard let config = Edition.loadConfig(root: root, diagnostics: &diagnostics).0 else { throw SiteError(diagnostics) }

        if let title {
            if let control = Fields.controlCharacter(in: title) {
                diagnostics.append(Diagnostic(path: "--title", message: "the title contains the control character U+\(Fields.hex(control)), which pages, feeds and phones cannot show; remove it"))
            } else if title.strip(" \t\n").isEmpty {
                diagnostics.append(Diagnostic(path: "--title", message: "the title is blank"))
            }
        }
        let category = config.category(named: categoryName)
        if category == nil {
            diagnostics.append(Diagnostic(path: "--category", message: Suggestion.unknown("category", categoryName, known: config.categories.map(\.name))))
        }
        let fileName = name + ".md"
        let path = Edition.contentFolder + "/" + (category.map { $0.slug + "/" } ?? "") + fileName
        let slug = StoryParser.slug(fromFileName: fileName)
        if let clean = StoryParser.cleanSlug(instead: slug) {
            let suggestion = name.dropLast(slug.count) + clean
            diagnostics.append(Diagnostic(path: path, message: "the slug \"\(slug)\" is not a clean URL segment; use lowercase letters, digits and - (e.g. \(suggestion))"))
        }
        guard let category else { throw SiteError(diagnostics) }
        if diagnostics.isEmpty {
            // Without a location: the file is not there to point into.
            var taken = takenKeys(root: root)
            diagnostics = taken.add(id: slug, slug: slug, sourcePath: path).map {
                Diagnostic(path: $0.path, message: $0.message)
            }
        }
        guard diagnostics.isEmpty else { throw SiteError(diagnostics) }

        let published = ReaderClock(timeZone: config.timeZone, languages: []).machineReadable(now)
        let bytes = Array(text(config: config, category: category, breaking: breaking, title: title, published: published).utf8)
        do throws(FileSystem.Failure) {
            try FileSystem.createDirectories(root + "/" + Edition.contentFolder + "/" + category.slug)
            try FileSystem.write(bytes, to: root + "/" + path, sync: true, exclusive: true)
        } catch {
            throw SiteError([Diagnostic(path: path, message: "cannot write: \(error.reason)")])
        }
        return path
    }

    /// The ids and slugs the story files under content/ hold, those with problems included: `check` would refuse
    /// the new story next to any of them.
    static func takenKeys(root: String) -> StoryKeys {
        var keys = StoryKeys()
        let content = root + "/" + Edition.contentFolder
        for (file, _) in Edition.storyFiles(in: content).files {
            let name = String(file.split(separator: "/").last ?? Substring(file))
            let bytes = (try? FileSystem.readInput(content + "/" + file)) ?? []
            let (id, slug) = StoryParser.claimedKeys(bytes: bytes, fileName: name)
            _ = keys.add(id: id, slug: slug, sourcePath: Edition.contentFolder + "/" + file)
        }
        return keys
    }

    /// The story file: the front matter with the given fields, `draft: true`, a title key for the default language
    /// (with the title, else empty) and a commented-out one for each other language (an empty title would be an
    /// error; a missing one falls back to the default language's), then one empty body per configured language.
    static func text(config: SiteConfig, category: Category, breaking: Bool, title: String?, published: String) -> String {
        var lines = ["---", "category: " + yamlText(category.name, quoted: !isPlainWord(category.name)), "published: " + published]
        if breaking { lines.append("breaking: true") }
        lines.append("draft: true")
        lines.append("title:")
        for language in config.languages {
            if language == config.defaultLanguage {
                lines.append("  \(language.code):" + (title.map { " " + yamlText($0, quoted: true) } ?? ""))
            } else {
                lines.append("  # \(language.code):")
            }
        }
        lines.append("---")
        for language in config.languages { lines += ["<!-- lang: \(language.code) -->", ""] }
        return lines.joined(separator: "\n")
    }

    /// A name YAML reads as the same text when written plain: letters, digits and `_`, starting with a letter, and
    /// not one of YAML's words for null.
    static func isPlainWord(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII else { return false }
        return !["null", "~"].contains(text.lowercased())
            && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    /// `text` as a YAML scalar: plain, or double-quoted with the escapes that keep every character as it is.
    static func yamlText(_ text: String, quoted: Bool) -> String {
        guard quoted else { return text }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\L"   // line and paragraph separators would be folded as line breaks
            case "\u{2029}": out += "\\P"
            case "\u{FEFF}": out += "\\uFEFF"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
