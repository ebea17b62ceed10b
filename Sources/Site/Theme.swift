import News
import Templates
import YAML

/// The site's look: Mustache templates, the interface strings per language, and static assets.
///
/// Layout of `templates/`:
/// - `*.mustache` (any depth; the name is the path without `.mustache`, e.g. `partials/story-card`).
///   Pages: `front`, `category`, `story`, `404`, `root`. Layouts and partials are free-form.
/// - `strings.yml`: interface strings, `key: { en: …, fr: … }`.
/// - `static/**`: copied to `site/static/**` as they are.
/// - `devices/*.json`: the apps' device templates, used by `newsgen publish` (not by the build).
public struct Theme: Sendable {
    public static let requiredPages = ["front", "category", "story", "404", "root"]

    public let templates: TemplateLibrary
    /// Interface strings per language code, with the default language filled in where one is missing.
    public let strings: [String: [String: String]]
    /// Static files, relative to `templates/static/`.
    public let staticFiles: [String]
    public let directory: String

    /// Loads and checks the theme; every problem goes to `diagnostics`.
    static func load(directory: String, displayPath: String, config: SiteConfig, diagnostics: inout [Diagnostic]) -> Theme? {
        guard FileSystem.isDirectory(directory) else {
            diagnostics.append(Diagnostic(path: displayPath, message: "the templates folder is missing"))
            return nil
        }
        var sources: [String: TemplateSource] = [:]
        let listing = FileSystem.sources(under: directory, includeHiddenFiles: false)
        diagnostics += Edition.diagnostics(listing.problems, in: displayPath)
        let files = listing.files.map(\.path)
        for file in files where file.hasSuffix(".mustache") && !file.hasPrefix("static/") {
            let path = displayPath + "/" + file
            do {
                let text = try FileSystem.readText(directory + "/" + file)
                sources[String(file.dropLast(".mustache".count))] = TemplateSource(text: text, path: path)
            } catch {
                diagnostics.append(Diagnostic(path: path, message: "cannot read the template: \(error.reason)"))
            }
        }
        var library: TemplateLibrary?
        do {
            library = try TemplateLibrary(sources)
        } catch {
            for item in error.errors {
                diagnostics.append(Diagnostic(path: item.path, location: .init(line: item.line, column: item.column), message: item.message))
            }
        }
        if let library {
            for item in library.unresolvedReferences() {
                diagnostics.append(Diagnostic(path: item.path, location: .init(line: item.line, column: item.column), message: item.message))
            }
            for page in requiredPages where !library.contains(page) {
                diagnostics.append(Diagnostic(path: displayPath, message: "the theme has no \(page).mustache page template"))
            }
        }
        let strings = loadStrings(path: directory + "/strings.yml", displayPath: displayPath + "/strings.yml",
                                  config: config, diagnostics: &diagnostics)
        let staticFiles = files.filter { $0.hasPrefix("static/") }.map { String($0.dropFirst("static/".count)) }
        guard let library else { return nil }
        return Theme(templates: library, strings: strings, staticFiles: staticFiles, directory: directory)
    }

    private static func loadStrings(path: String, displayPath: String, config: SiteConfig,
                                    diagnostics: inout [Diagnostic]) -> [String: [String: String]] {
        guard FileSystem.exists(path) else { return [:] }
        var fields = Fields(path: displayPath)
        defer { diagnostics += fields.sink.diagnostics }
        let root: YAMLNode
        do {
            let text: String
            do { text = try FileSystem.readText(path) } catch {
                fields.sink.error("cannot read the file: \(error.reason)")
                return [:]
            }
            guard let node = try YAMLDocument.parse(text) else { return [:] }
            root = node
        } catch {
            fields.sink.error(error.message, at: error.location)
            return [:]
        }
        guard let entries = root.mapping else {
            fields.sink.error("strings.yml must map each string key to its text per language", at: root.location)
            return [:]
        }
        var byLanguage: [String: [String: String]] = [:]
        for entry in entries {
            let key = entry.key.string ?? ""
            let text = fields.localized(Self.onlyConfiguredLanguages(entry.value, config: config), key, languages: config.languages)
            guard let fallback = text[code: config.defaultLanguage.code] else {
                fields.sink.error("string \"\(key)\" needs the default language (\(config.defaultLanguage.code))", at: entry.value.location)
                continue
            }
            for language in config.languages {
                byLanguage[language.code, default: [:]][key] = text[code: language.code] ?? fallback
            }
        }
        return byLanguage
    }

    /// A theme may carry strings for more languages than the site uses (the default theme has Arabic, for
    /// example): entries whose key is a well-formed language tag the site does not configure are dropped
    /// before checking; anything else that is not a configured language is still reported.
    private static func onlyConfiguredLanguages(_ node: YAMLNode, config: SiteConfig) -> YAMLNode {
        guard let entries = node.mapping else { return node }
        let kept = entries.filter { entry in
            let key = entry.key.string ?? ""
            return config.language(code: key) != nil || !Language.isWellFormedTag(key)
        }
        return kept.count == entries.count ? node : YAMLNode(value: .mapping(kept), location: node.location)
    }

    public func string(_ key: String, _ language: Language) -> String {
        strings[language.code]?[key] ?? key
    }
}
