/// A set of named Mustache templates, parsed once and rendered any number of times from any thread.
///
/// Supports the whole Mustache spec (interpolation, sections, inverted sections, comments, partials,
/// set delimiters, template inheritance with parents and blocks), without lambdas. Partials and parents
/// are looked up by name in the library; a missing one renders as "" (as the spec requires) and is
/// listed by `unresolvedReferences()`.
public struct TemplateLibrary: Sendable {
    private let templates: [String: Template]

    /// Parses every template (name → source); collects ALL syntax errors of all templates before throwing.
    public init(_ sources: [String: TemplateSource]) throws(TemplateErrors) {
        var templates: [String: Template] = [:]
        var errors: [TemplateError] = []
        for (name, source) in sources {
            var parser = Parser(text: source.text, path: source.path)
            if let template = parser.parse() {
                templates[name] = template
            } else {
                errors += parser.errors
            }
        }
        guard errors.isEmpty else {
            errors.sort { ($0.path, $0.line, $0.column, $0.message) < ($1.path, $1.line, $1.column, $1.message) }
            throw TemplateErrors(errors: errors)
        }
        self.templates = templates
    }

    /// The template names, sorted.
    public var names: [String] { templates.keys.sorted() }

    public func contains(_ name: String) -> Bool { templates[name] != nil }

    /// Every partial ({{>name}}) or parent ({{<name}}) reference to a name that is not in the library,
    /// with its location, ordered by path, line and column.
    public func unresolvedReferences() -> [TemplateError] {
        var found: [TemplateError] = []
        func visit(_ nodes: [Node]) {
            for node in nodes {
                switch node {
                case .text, .variable:
                    break
                case .section(_, let content), .inverted(_, let content):
                    visit(content)
                case .block(let site):
                    visit(site.defaultContent)
                case .include(let include):
                    for name in include.arguments.keys.sorted() {
                        visit(include.arguments[name] ?? [])
                    }
                    guard templates[include.name] == nil else { continue }
                    let tag = include.isParent ? "{{<\(include.name)}}" : "{{>\(include.name)}}"
                    let kind = include.isParent ? "parent template" : "partial"
                    var message = "\(kind) \"\(include.name)\" in \(tag) is not a template in the library"
                    if let suggestion = closestName(to: include.name) {
                        message += " (did you mean \"\(suggestion)\"?)"
                    }
                    found.append(TemplateError(path: include.location.path, line: include.location.line,
                                               column: include.location.column, message: message))
                }
            }
        }
        for name in templates.keys.sorted() {
            if let template = templates[name] { visit(template.nodes) }
        }
        return found.sorted { ($0.path, $0.line, $0.column, $0.message) < ($1.path, $1.line, $1.column, $1.message) }
    }

    /// Renders template `name` with `context`. Throws for an unknown name and for recursion deeper
    /// than 64 partial/parent levels (with the location of the tag that went too deep).
    public func render(_ name: String, _ context: TemplateValue) throws(TemplateError) -> String {
        String(decoding: try renderBytes(name, context), as: UTF8.self)
    }

    /// The same as UTF-8 bytes, for output that goes straight to a file (no String is made of a whole page).
    public func renderBytes(_ name: String, _ context: TemplateValue) throws(TemplateError) -> [UInt8] {
        guard let template = templates[name] else {
            var message = "no template named \"\(name)\""
            if let suggestion = closestName(to: name) {
                message += " (did you mean \"\(suggestion)\"?)"
            } else if templates.isEmpty {
                message += " (the library is empty)"
            }
            throw TemplateError(path: "", line: 0, column: 0, message: message)
        }
        var renderer = Renderer(templates: templates, context: context)
        try renderer.render(template.nodes)
        return renderer.bytes
    }

    /// The library name nearest to `name`, if it is near enough to be a typo (one edit per four characters).
    private func closestName(to name: String) -> String? {
        let target = Array(name)
        var best: (name: String, distance: Int)?
        for candidate in templates.keys.sorted() {
            let distance = Self.editDistance(target, Array(candidate))
            if distance <= max(1, target.count / 4), distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
