import Foundation
import Templates
import Testing

/// Parses `sources` (name → text, path "<name>.mustache") and returns the descriptions of the errors.
private func syntaxErrors(_ sources: [String: String]) -> [String] {
    var library: [String: TemplateSource] = [:]
    for (name, text) in sources {
        library[name] = TemplateSource(text: text, path: "templates/\(name).mustache")
    }
    do {
        _ = try TemplateLibrary(library)
        return []
    } catch {
        return error.errors.map(\.description)
    }
}

private func syntaxErrors(_ text: String) -> [String] {
    syntaxErrors(["t": text])
}

@Suite("Syntax errors")
struct ErrorTests {
    @Test func unclosedTag() {
        #expect(syntaxErrors("Hello {{name") == [
            #"templates/t.mustache:1:7: error: unclosed tag "{{": no "}}" follows it before the end of the template"#,
        ])
        #expect(syntaxErrors("a\n  {{{name}}\n") == [
            #"templates/t.mustache:2:3: error: unclosed tag "{{{": no "}}}" follows it before the end of the template"#,
        ])
        #expect(syntaxErrors("{{=<% %>=}}\n<%name") == [
            #"templates/t.mustache:2:1: error: unclosed tag "<%": no "%>" follows it before the end of the template"#,
        ])
    }

    @Test func unclosedSectionIsReportedAtTheEndWithWhereItOpened() {
        #expect(syntaxErrors("<ul>\n{{#items}}\n  <li>{{name}}</li>\n") == [
            #"templates/t.mustache:4:1: error: unclosed section "items" (opened at 2:1)"#,
        ])
        #expect(syntaxErrors("{{^empty}}x{{<layout}}{{$title}}t") == [
            #"templates/t.mustache:1:34: error: unclosed block "title" (opened at 1:23)"#,
            #"templates/t.mustache:1:34: error: unclosed inverted section "empty" (opened at 1:1)"#,
            #"templates/t.mustache:1:34: error: unclosed parent "layout" (opened at 1:12)"#,
        ])
    }

    @Test func innerSectionLeftOpenWhenTheOuterOneCloses() {
        #expect(syntaxErrors("{{#list}}\n  {{#item}}{{name}}\n{{/list}}\n") == [
            #"templates/t.mustache:3:1: error: unclosed section "item" (opened at 2:3): close it before "{{/list}}""#,
        ])
    }

    @Test func mismatchedClosingTag() {
        #expect(syntaxErrors("{{#story}}\n{{title}}\n{{/stroy}}\n") == [
            #"templates/t.mustache:3:1: error: mismatched closing tag "{{/stroy}}": the open section is "story" (opened at 1:1)"#,
        ])
        #expect(syntaxErrors("text {{/story}}") == [
            #"templates/t.mustache:1:6: error: closing tag "{{/story}}" has no opening tag"#,
        ])
    }

    @Test func badDelimiterChange() {
        let expectation = #"expected two delimiters separated by whitespace, without "=" or whitespace in them, like {{=<% %>=}}"#
        #expect(syntaxErrors("a {{=<% =}} b") == [
            #"templates/t.mustache:1:3: error: invalid delimiter change "{{=<% =}}": "# + expectation,
        ])
        #expect(syntaxErrors("{{=<% %> [[ =}}") == [
            #"templates/t.mustache:1:1: error: invalid delimiter change "{{=<% %> [[ =}}": "# + expectation,
        ])
        #expect(syntaxErrors("{{=a= b=}}") == [
            #"templates/t.mustache:1:1: error: invalid delimiter change "{{=a= b=}}": "# + expectation,
        ])
    }

    @Test func emptyAndInvalidNames() {
        #expect(syntaxErrors("{{ }} {{#}}{{/}} {{>  }}") == [
            #"templates/t.mustache:1:1: error: empty tag name in "{{ }}""#,
            #"templates/t.mustache:1:7: error: empty tag name in "{{#}}""#,
            #"templates/t.mustache:1:12: error: empty tag name in "{{/}}""#,
            #"templates/t.mustache:1:18: error: empty tag name in "{{>  }}""#,
        ])
        #expect(syntaxErrors("{{first name}}") == [
            #"templates/t.mustache:1:1: error: invalid tag name "first name" in "{{first name}}": names cannot contain whitespace"#,
        ])
        #expect(syntaxErrors("{{a..b}}") == [
            #"templates/t.mustache:1:1: error: invalid name "a..b" in "{{a..b}}": a dotted name needs a key between every two dots, like a.b.c"#,
        ])
    }

    @Test func columnsCountCharacters() {
        // "é" is 2 bytes, "👍🏽" is 8 bytes and one Character, "\r\n" ends line 1.
        #expect(syntaxErrors("x\r\nhé 👍🏽 {{#open}}") == [
            #"templates/t.mustache:2:15: error: unclosed section "open" (opened at 2:6)"#,
        ])
    }

    @Test func allErrorsOfAllTemplatesAreCollectedInPathOrder() {
        let errors = syntaxErrors([
            "story": "{{#a}}\n{{/b}}\n{{c",
            "good": "{{#a}}{{/a}}",
            "layout": "{{ }}\n{{=x=}}\n",
        ])
        #expect(errors == [
            #"templates/layout.mustache:1:1: error: empty tag name in "{{ }}""#,
            #"templates/layout.mustache:2:1: error: invalid delimiter change "{{=x=}}": expected two delimiters separated by whitespace, without "=" or whitespace in them, like {{=<% %>=}}"#,
            #"templates/story.mustache:3:1: error: unclosed tag "{{": no "}}" follows it before the end of the template"#,
        ])
    }

    @Test func sectionsAndTagErrorsOfOneTemplateAreBothReported() {
        // Tag errors are found first; section structure is checked when every tag could be read.
        #expect(syntaxErrors("{{#a}}{{ }}{{#b}}") == [
            #"templates/t.mustache:1:7: error: empty tag name in "{{ }}""#,
        ])
        #expect(syntaxErrors("{{#a}}{{/b}}{{#c}}") == [
            #"templates/t.mustache:1:7: error: mismatched closing tag "{{/b}}": the open section is "a" (opened at 1:1)"#,
            #"templates/t.mustache:1:19: error: unclosed section "c" (opened at 1:13)"#,
        ])
    }

    @Test func tooDeeplyNestedSections() {
        let text = String(repeating: "{{#a}}", count: 101) + String(repeating: "{{/a}}", count: 101)
        #expect(syntaxErrors(text) == [
            "templates/t.mustache:1:601: error: sections, parents and blocks nested more than 100 levels deep",
        ])
        let fine = String(repeating: "{{#a}}", count: 100) + "x" + String(repeating: "{{/a}}", count: 100)
        #expect(syntaxErrors(fine) == [])
    }

    @Test func errorDescriptions() {
        let located = TemplateError(path: "templates/story.mustache", line: 12, column: 5,
                                    message: #"unclosed section "items" (opened at 3:1)"#)
        #expect(located.description == #"templates/story.mustache:12:5: error: unclosed section "items" (opened at 3:1)"#)
        #expect(TemplateError(path: "", line: 0, column: 0, message: "m").description == "error: m")
        #expect(TemplateError(path: "p", line: 0, column: 0, message: "m").description == "p: error: m")
        let both = TemplateErrors(errors: [located, TemplateError(path: "a", line: 1, column: 2, message: "b")])
        #expect(both.description == located.description + "\na:1:2: error: b")
    }
}

@Suite("Render errors")
struct RenderErrorTests {
    @Test func unknownTemplateName() throws {
        let library = try TemplateLibrary(["story": TemplateSource(text: "x", path: "story.mustache")])
        #expect(throws: TemplateError(path: "", line: 0, column: 0,
                                      message: #"no template named "stroy" (did you mean "story"?)"#)) {
            try library.render("stroy", [:])
        }
        #expect(throws: TemplateError(path: "", line: 0, column: 0, message: #"no template named "index""#)) {
            try library.render("index", [:])
        }
    }

    @Test func endlessRecursionIsAnErrorAtTheTagThatWentTooDeep() throws {
        let library = try TemplateLibrary([
            "page": TemplateSource(text: "<main>\n  {{>node}}\n</main>\n", path: "templates/page.mustache"),
            "node": TemplateSource(text: "{{name}}\n{{#children}}\n  {{>node}}\n{{/children}}\n{{>node}}", path: "templates/node.mustache"),
        ])
        let expected = TemplateError(
            path: "templates/node.mustache", line: 5, column: 1,
            message: #"partials and parents nested more than 64 levels deep at {{>node}} (does "node" include itself without a section that ends the recursion?)"#)
        #expect(throws: expected) { try library.render("page", ["name": "n"]) }
    }

    @Test func recursionThroughParentsIsCaughtToo() throws {
        let library = try TemplateLibrary([
            "a": TemplateSource(text: "x{{<b}}{{/b}}", path: "a.mustache"),
            "b": TemplateSource(text: "{{$p}}{{<a}}{{/a}}{{/p}}", path: "b.mustache"),
        ])
        #expect(throws: TemplateError(
            path: "a.mustache", line: 1, column: 2,
            message: #"partials and parents nested more than 64 levels deep at {{<b}} (does "b" include itself without a section that ends the recursion?)"#)
        ) { try library.render("a", [:]) }
    }

    @Test func sixtyFourLevelsAreAllowed() throws {
        // "node" includes itself once per level of `child`: 64 levels render, 65 throw.
        var sources = ["node": TemplateSource(text: "{{#child}}+{{>node}}{{/child}}", path: "node.mustache")]
        sources["top"] = TemplateSource(text: "{{>node}}", path: "top.mustache")
        let library = try TemplateLibrary(sources)
        func nested(_ levels: Int) -> TemplateValue {
            var value: TemplateValue = ["child": false]
            for _ in 0..<levels { value = ["child": value] }
            return value
        }
        // "top" includes "node" (level 1); each `child` adds a level.
        #expect(try library.render("top", nested(63)) == String(repeating: "+", count: 63))
        #expect(throws: TemplateError(
            path: "node.mustache", line: 1, column: 12,
            message: #"partials and parents nested more than 64 levels deep at {{>node}} (does "node" include itself without a section that ends the recursion?)"#)
        ) { try library.render("top", nested(64)) }
    }

    @Test func deepNestingRendersOnASmallStack() async throws {
        // 100 nested sections (the most a template may have) around a recursive partial: 6,400 levels
        // before the include limit stops it, on a thread with a 256 KiB stack.
        let text = String(repeating: "{{#a}}", count: 100) + "{{>r}}" + String(repeating: "{{/a}}", count: 100)
        let library = try TemplateLibrary(["r": TemplateSource(text: text, path: "r.mustache")])
        let thrown = await withCheckedContinuation { (continuation: CheckedContinuation<TemplateError?, Never>) in
            let thread = Thread {
                do {
                    _ = try library.render("r", ["a": true])
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error as? TemplateError)
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        #expect(thrown == TemplateError(
            path: "r.mustache", line: 1, column: 601,
            message: #"partials and parents nested more than 64 levels deep at {{>r}} (does "r" include itself without a section that ends the recursion?)"#))
    }
}
