import Foundation
import TestSupport
import Templates
import Testing

/// One test case of the official Mustache spec (read at test time from `Repository.mustacheSpec`).
struct SpecCase: Sendable, CustomTestStringConvertible {
    var file: String
    var number: Int
    var name: String
    var template: String = ""
    var data: TemplateValue = .null
    var partials: [String: String] = [:]
    var expected: String = ""
    /// Set when the spec file could not be read, so that the test fails saying why.
    var loadError: String?

    var testDescription: String { "\(file) #\(number): \(name)" }
}

enum SpecFiles {
    static func cases(_ file: String) -> [SpecCase] {
        guard let directory = Repository.mustacheSpec else {
            return [SpecCase(file: file, number: 0, name: "load",
                             loadError: "the Mustache spec files are not installed: \(Repository.mustacheSpecHelp)")]
        }
        let url = directory.appendingPathComponent("\(file).json")
        do {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
            guard let root = object as? [String: Any], let tests = root["tests"] as? [[String: Any]], !tests.isEmpty else {
                return [SpecCase(file: file, number: 0, name: "load", loadError: "\(url.path): no \"tests\" array")]
            }
            return tests.enumerated().map { number, test in
                SpecCase(
                    file: file, number: number + 1, name: test["name"] as? String ?? "?",
                    template: test["template"] as? String ?? "",
                    data: templateValue(fromJSON: test["data"] ?? NSNull()),
                    partials: test["partials"] as? [String: String] ?? [:],
                    expected: test["expected"] as? String ?? "")
            }
        } catch {
            return [SpecCase(file: file, number: 0, name: "load",
                             loadError: "cannot read \(url.path) (\(error.localizedDescription)): \(Repository.mustacheSpecHelp)")]
        }
    }

    /// JSONSerialization's objects → TemplateValue (JSON numbers → .number, JSON booleans → .bool).
    static func templateValue(fromJSON object: Any) -> TemplateValue {
        switch object {
        case is NSNull:
            return .null
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            // JSON true/false arrive as NSNumber too; their Objective-C type is "c" (char).
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        case let array as [Any]:
            return .list(array.map(templateValue(fromJSON:)))
        case let dictionary as [String: Any]:
            return .object(dictionary.mapValues(templateValue(fromJSON:)))
        default:
            return .string("\(object)")
        }
    }
}

@Suite("Mustache spec")
struct SpecTests {
    func check(_ specCase: SpecCase) throws {
        if let loadError = specCase.loadError {
            Issue.record("could not load the spec: \(loadError)")
            return
        }
        var sources = ["template": TemplateSource(text: specCase.template, path: "template.mustache")]
        for (name, text) in specCase.partials {
            sources[name] = TemplateSource(text: text, path: "\(name).mustache")
        }
        let library = try TemplateLibrary(sources)
        let output = try library.render("template", specCase.data)
        #expect(output == specCase.expected, "template: \(specCase.template.debugDescription)")
    }

    @Test("comments.json", arguments: SpecFiles.cases("comments"))
    func comments(_ specCase: SpecCase) throws { try check(specCase) }

    @Test("delimiters.json", arguments: SpecFiles.cases("delimiters"))
    func delimiters(_ specCase: SpecCase) throws { try check(specCase) }

    @Test("interpolation.json", arguments: SpecFiles.cases("interpolation"))
    func interpolation(_ specCase: SpecCase) throws { try check(specCase) }

    @Test("inverted.json", arguments: SpecFiles.cases("inverted"))
    func inverted(_ specCase: SpecCase) throws { try check(specCase) }

    @Test("partials.json", arguments: SpecFiles.cases("partials"))
    func partials(_ specCase: SpecCase) throws { try check(specCase) }

    @Test("sections.json", arguments: SpecFiles.cases("sections"))
    func sections(_ specCase: SpecCase) throws { try check(specCase) }

    @Test("~inheritance.json", arguments: SpecFiles.cases("~inheritance"))
    func inheritance(_ specCase: SpecCase) throws { try check(specCase) }

    @Test("every spec file is found and has cases")
    func specFilesArePresent() {
        for file in ["comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~inheritance"] {
            let cases = SpecFiles.cases(file)
            #expect(!cases.isEmpty && cases.allSatisfy { $0.loadError == nil },
                    "\(file).json: \(cases.compactMap(\.loadError).first ?? "no cases")")
        }
    }
}
