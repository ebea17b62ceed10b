import FuzzSupport
import Templates

/// A page context with every kind of value: text with markup characters, numbers, booleans, lists and objects.
/// Made anew for each input, not kept in a global: a global's indirect-enum boxes are reached only through
/// pointers whose spare bits carry the enum case, which LeakSanitizer does not recognise, so it reports them.
private func makeContext() -> TemplateValue { [
    "title": "Séisme <b>7,1</b> & \"alerte\"",
    "lang": "fr",
    "count": 3,
    "ratio": 0.5,
    "breaking": true,
    "draft": false,
    "none": nil,
    "empty": [],
    "stories": [
        ["title": "Quake", "url": "/en/2026/11/29/quake/", "breaking": true, "authors": ["Ana Ruiz", "Li Wei"]],
        ["title": "Vote <count>", "url": "/en/2026/11/30/vote/", "breaking": false, "authors": []],
    ],
    "page": ["title": "Monde", "next": ["url": "/fr/monde/page/2/"], "number": 1],
    "strings": ["read_more": "Lire la suite", "home": "Accueil"],
] }

/// libFuzzer's entry point: the input is a template, then (after each NUL byte) a partial whose first line is its
/// name. The library is parsed, its references listed, and the template rendered.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplates(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let pieces = UnsafeBufferPointer(start: data, count: size).split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false)
    var sources = ["template": TemplateSource(text: String(decoding: pieces[0], as: UTF8.self), path: "template.mustache")]
    for piece in pieces.dropFirst() {
        let text = String(decoding: piece, as: UTF8.self)
        let name = String(text.prefix { $0 != "\n" })
        sources[name] = TemplateSource(text: String(text.dropFirst(name.count + 1)), path: "partials/\(name).mustache")
    }
    do {
        let library = try TemplateLibrary(sources)
        for error in library.unresolvedReferences() { _ = error.description }
        _ = try library.render("template", makeContext())
    } catch let errors as TemplateErrors {
        require(!errors.errors.isEmpty, "a template library failed without an error")
        _ = errors.description
    } catch {
        _ = "\(error)"
    }
    return 0
}
