import Testing
import YAML

/// Parses text that must form one document.
func document(_ text: String, lineOffset: Int = 0) throws -> YAMLNode {
    try #require(try YAMLDocument.parse(text, lineOffset: lineOffset))
}

/// The error the text must produce.
func failure(_ text: String, lineOffset: Int = 0) throws -> YAMLError {
    let node: YAMLNode?
    do {
        node = try YAMLDocument.parse(text, lineOffset: lineOffset)
    } catch {
        return error
    }
    Issue.record("expected an error, parsed \(String(describing: node))")
    throw ExpectedFailure()
}

struct ExpectedFailure: Error {}

// Swift Testing has its own `SourceLocation`; spell ours with the module name.
func at(_ line: Int, _ column: Int) -> YAML.SourceLocation { YAML.SourceLocation(line: line, column: column) }

@Suite struct ScalarTests {
    @Test func stylesAndPlainness() throws {
        let root = try document(
            """
            plain: hello world
            single: 'it''s'
            double: "tab\\tand \\u00e9"
            literal: |
              line one
              line two
            folded: >
              folded
              text
            tagged: !!str 42
            empty:
            """)
        #expect(root["plain"]?.value == .scalar(YAMLScalar(text: "hello world", isPlain: true)))
        #expect(root["single"]?.value == .scalar(YAMLScalar(text: "it's", isPlain: false)))
        #expect(root["double"]?.value == .scalar(YAMLScalar(text: "tab\tand é", isPlain: false)))
        #expect(root["literal"]?.value == .scalar(YAMLScalar(text: "line one\nline two\n", isPlain: false)))
        #expect(root["folded"]?.value == .scalar(YAMLScalar(text: "folded text\n", isPlain: false)))
        #expect(root["tagged"]?.value == .scalar(YAMLScalar(text: "42", isPlain: false)))
        #expect(root["tagged"]?.int == nil)
        #expect(root["empty"]?.value == .scalar(YAMLScalar(text: "", isPlain: true)))
        #expect(root["empty"]?.isNull == true)
    }

    @Test func unicodeTextIsKept() throws {
        let root = try document("zh: 近海发生7.1级地震\nemoji: \"🇫🇷 café\"\n")
        #expect(root["zh"]?.string == "近海发生7.1级地震")
        #expect(root["emoji"]?.string == "🇫🇷 café")
    }

    @Test func lineAndParagraphSeparatorsAreOrdinaryCharacters() throws {
        // libyaml (YAML 1.1) would treat U+2028 as a line break and fail; pasted copy contains it.
        let root = try document("title: one\u{2028}two\nnel: a\u{85}b\nsum: \"x\u{2029}y\"\nnext: 1\n")
        #expect(root["title"]?.string == "one\u{2028}two")
        #expect(root["nel"]?.string == "a\u{85}b")
        #expect(root["sum"]?.string == "x\u{2029}y")
        #expect(root.entry(forKey: "next")?.key.location == at(4, 1))
        // Text that already holds a substitute is parsed as it is (libyaml keeps LS inside quotes).
        let nonCharacter = String(try #require(Unicode.Scalar(UInt32(0xFDD0))))
        let mixed = try document("a: \"\(nonCharacter)\"\nb: \"x\u{2028}y\"\n")
        #expect(mixed["a"]?.string == nonCharacter)
        #expect(mixed["b"]?.string == "x\u{2028}y")
        // Smart quotes share the UTF-8 lead byte of LS/PS and stay untouched.
        #expect(try document("t: \u{201C}quoted\u{201D}\n")["t"]?.string == "\u{201C}quoted\u{201D}")
        #expect(root["next"]?.location == at(4, 7))
    }
}

@Suite struct StructureTests {
    @Test func nestedBlockAndFlowCollections() throws {
        let root = try document(
            """
            site:
              title: Daily News
              languages:
                - en
                - fr
              limits: {feed: 20, sitemap: [1, 2]}
            tags: [world, "politics"]
            """)
        #expect(root.mapping?.map { $0.key.string } == ["site", "tags"])
        let site = try #require(root["site"])
        #expect(site.mapping?.map { $0.key.string } == ["title", "languages", "limits"])
        #expect(site["title"]?.string == "Daily News")
        #expect(site["languages"]?.sequence?.map(\.string) == ["en", "fr"])
        #expect(site["limits"]?["feed"]?.int == 20)
        #expect(site["limits"]?["sitemap"]?.sequence?.compactMap(\.int) == [1, 2])
        #expect(root["tags"]?.sequence?.map(\.string) == ["world", "politics"])
        #expect(root["tags"]?.sequence?.map { $0.scalar?.isPlain } == [true, false])
    }

    @Test func topLevelScalarAndList() throws {
        #expect(try document("just text").value == .scalar(YAMLScalar(text: "just text", isPlain: true)))
        let list = try document("- a\n- b: 1\n")
        #expect(list.sequence?.count == 2)
        #expect(list.sequence?[1]["b"]?.int == 1)
    }

    @Test func emptyInputIsNil() throws {
        #expect(try YAMLDocument.parse("") == nil)
        #expect(try YAMLDocument.parse("   \n\n") == nil)
        #expect(try YAMLDocument.parse("# only\n# comments\n") == nil)
    }

    @Test func explicitEmptyDocumentIsNull() throws {
        let node = try document("---\n")
        #expect(node.isNull)
        #expect(node.location == at(2, 1))
    }

    @Test func byteOrderMarkAndCRLF() throws {
        let root = try document("\u{FEFF}a: 1\r\nb: two\r\n")
        #expect(root["a"]?.location == at(1, 4))
        #expect(root["b"]?.string == "two")
        #expect(root["b"]?.location == at(2, 4))
    }

    @Test func fiveThousandEntries() throws {
        var text = ""
        for i in 0..<5_000 { text += "key\(i): value \(i)\n" }
        let root = try document(text)
        #expect(root.mapping?.count == 5_000)
        #expect(root["key4999"]?.string == "value 4999")
        #expect(root["key4999"]?.location == at(5_000, 10))
    }

    @Test func nestingUpToTheLimitIsFine() throws {
        let depth = YAMLDocument.maximumDepth
        let node = try document(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        var current = node
        var levels = 1
        while let first = current.sequence?.first {
            current = first
            levels += 1
        }
        #expect(levels == depth)
    }
}

@Suite struct LocationTests {
    @Test func nodeLocations() throws {
        let root = try document(
            """
            title: Quake
            meta:
              tags:
                - world
                - "asia"
            """)
        #expect(root.location == at(1, 1))
        #expect(root.entry(forKey: "title")?.key.location == at(1, 1))
        #expect(root["title"]?.location == at(1, 8))
        #expect(root["meta"]?.location == at(3, 3))
        #expect(root["meta"]?["tags"]?.location == at(4, 5))
        #expect(root["meta"]?["tags"]?.sequence?.map(\.location) == [at(4, 7), at(5, 7)])
    }

    @Test func lineOffsetShiftsEveryLine() throws {
        let root = try document("title: Quake\ncategory: World\n", lineOffset: 1)
        #expect(root["title"]?.location == at(2, 8))
        #expect(root.entry(forKey: "category")?.key.location == at(3, 1))
        #expect(root["category"]?.location == at(3, 11))
    }

    @Test func columnsCountUnicodeScalarsOnCJKLines() throws {
        let root = try document(
            "slug: quake\ndate: 2024-01-01\ntitle: { zh-Hans: 近海发生7.1级地震, fr: x }\n", lineOffset: 1)
        let title = try #require(root["title"])
        #expect(title.location == at(4, 8))
        #expect(title.entry(forKey: "zh-Hans")?.key.location == at(4, 10))
        #expect(title["zh-Hans"]?.location == at(4, 19))
        #expect(title.entry(forKey: "fr")?.key.location == at(4, 31))
        #expect(title["fr"]?.location == at(4, 35))
    }

    @Test func locationFormattingAndOrder() {
        #expect(at(7, 3).description == "7:3")
        #expect(at(2, 9) < at(3, 1))
        #expect(at(3, 1) < at(3, 2))
        #expect(!(at(3, 2) < at(3, 2)))
        #expect(YAMLError(message: "boom", location: at(4, 2)).description == "4:2: boom")
    }
}

@Suite struct AccessorTests {
    @Test func nullBoolAndInt() throws {
        let root = try document(
            """
            n1: ~
            n2: null
            n3: NULL
            n4: Null
            n5: "null"
            n6: nil
            t1: true
            t2: True
            t3: TRUE
            f1: false
            f2: False
            f3: FALSE
            yes: yes
            on: on
            quotedTrue: "true"
            i1: 42
            i2: -7
            i3: +3
            i4: 007
            i5: 9223372036854775807
            big: 9223372036854775808
            small: -9223372036854775809
            float: 3.5
            hex: 0x10
            under: 1_000
            quoted: "12"
            """)
        #expect(["n1", "n2", "n3", "n4"].allSatisfy { root[$0]?.isNull == true })
        #expect(root["n5"]?.isNull == false)
        #expect(root["n6"]?.isNull == false)
        #expect(root["title"]?.isNull == nil)
        #expect(["t1", "t2", "t3"].map { root[$0]?.bool } == [true, true, true])
        #expect(["f1", "f2", "f3"].map { root[$0]?.bool } == [false, false, false])
        #expect(root["yes"]?.bool == nil)
        #expect(root["on"]?.bool == nil)
        #expect(root["quotedTrue"]?.bool == nil)
        #expect(root["quotedTrue"]?.string == "true")
        #expect(["i1", "i2", "i3", "i4", "i5"].map { root[$0]?.int } == [42, -7, 3, 7, Int.max])
        #expect(
            ["big", "small", "float", "hex", "under", "quoted"].map { root[$0]?.int } == [nil, nil, nil, nil, nil, nil])
        #expect(root["big"]?.string == "9223372036854775808")
    }

    @Test func collectionAccessorsAndKindNames() throws {
        let root = try document("m: {a: 1}\ns: [1]\nx: text\n")
        #expect(root.kindName == "a mapping")
        #expect(root["m"]?.kindName == "a mapping")
        #expect(root["s"]?.kindName == "a list")
        #expect(root["x"]?.kindName == "a string")
        #expect(root["s"]?.string == nil)
        #expect(root["s"]?.mapping == nil)
        #expect(root["m"]?.sequence == nil)
        #expect(root["x"]?.sequence == nil)
        #expect(root["x"]?["a"] == nil)
        #expect(root["s"]?["a"] == nil)
        #expect(root["missing"] == nil)
        #expect(root["s"]?.isNull == false)
        #expect(root["m"]?.bool == nil)
        #expect(root["m"]?.int == nil)
    }

    @Test func keysMatchByTextWhateverTheirStyle() throws {
        let root = try document("\"quoted key\": 1\n'1': one\n")
        #expect(root["quoted key"]?.int == 1)
        #expect(root["1"]?.string == "one")
    }
}

@Suite struct AliasTests {
    @Test func aliasesCopyTheAnchoredNode() throws {
        let root = try document(
            """
            defaults: &d
              feed: 20
              tags: [a, b]
            en: *d
            name: &n Newsroom
            copy: *n
            """)
        let en = try #require(root["en"])
        #expect(en["feed"]?.int == 20)
        #expect(en["tags"]?.sequence?.map(\.string) == ["a", "b"])
        #expect(en.location == at(4, 5))  // the alias, not the anchor
        #expect(en["feed"]?.location == at(2, 9))  // inner nodes keep where they were written
        #expect(root["copy"]?.string == "Newsroom")
        #expect(root["copy"]?.location == at(6, 7))
    }

    @Test func aliasAsKey() throws {
        let root = try document("k: &k title\n*k : x\n")
        #expect(root.mapping?.count == 2)
        #expect(root.mapping?[1].key.string == "title")
        #expect(root.mapping?[1].value.string == "x")
    }

    @Test func undefinedAlias() throws {
        let error = try failure("a: 1\nb: *nowhere\n", lineOffset: 1)
        #expect(error.location == at(3, 4))
        #expect(error.message.hasPrefix("undefined alias \"*nowhere\""))
    }

    @Test func recursiveAlias() throws {
        let error = try failure("a: &x [1, *x]\n")
        #expect(error.location == at(1, 11))
        #expect(error.message.hasPrefix("alias \"*x\" refers to the node that contains it"))
    }

    @Test func aliasBombIsRejected() throws {
        let error = try failure(
            """
            a: &a [x, x, x, x, x, x, x, x, x, x]
            b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
            c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]
            d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]
            e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]
            f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]
            """)
        // Before e: 4 keys + 11 + 111 + 1111 + 11111 nodes, + key e + list e = 12350; each *d adds 11111,
        // so the 8th alias on line 5 crosses 100_000.
        #expect(error.location == at(5, 29))
        #expect(error.message.hasPrefix("document too large"))
    }

    @Test func aliasOfACollectionAsKeyIsRejected() throws {
        let error = try failure("a: &l [1]\n*l : x\n")
        #expect(error.location == at(2, 1))
        #expect(error.message.hasPrefix("mapping keys must be plain text"))
    }
}

@Suite struct StructureErrorTests {
    @Test func duplicateKey() throws {
        let error = try failure("slug: a\ndate: 2024\ntitle: One\nbody: x\ntitle: Two\n", lineOffset: 1)
        #expect(error.message == "duplicate key \"title\" (first defined at line 4)")
        #expect(error.location == at(6, 1))
        #expect(error.description == "6:1: duplicate key \"title\" (first defined at line 4)")
    }

    @Test func duplicateKeyInNestedFlowMapping() throws {
        let error = try failure("title:\n  en: x\n  fr: {a: 1, a: 2}\n")
        #expect(error.message == "duplicate key \"a\" (first defined at line 3)")
        #expect(error.location == at(3, 14))
    }

    @Test func sameKeyInDifferentMappingsIsFine() throws {
        let root = try document("en: {title: a}\nfr: {title: b}\n")
        #expect(root["fr"]?["title"]?.string == "b")
    }

    @Test func multipleDocuments() throws {
        let error = try failure("title: a\n---\ntitle: b\n", lineOffset: 1)
        #expect(error.message.hasPrefix("only one YAML document is allowed here"))
        #expect(error.location == at(3, 1))
    }

    @Test func complexKeys() throws {
        let list = try failure("? [a, b]\n: 1\n")
        #expect(list.message.hasPrefix("mapping keys must be plain text"))
        #expect(list.location == at(1, 3))
        let flow = try failure("x: 1\n{a: 1}: 2\n")
        #expect(flow.message.hasPrefix("mapping keys must be plain text"))
        #expect(flow.location == at(2, 1))
    }

    @Test func tooDeep() throws {
        let depth = YAMLDocument.maximumDepth + 1
        let error = try failure(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        #expect(error.location == at(1, depth))
        #expect(error.message.hasPrefix("lists and mappings are nested too deeply"))
    }
}

@Suite struct SyntaxErrorTests {
    @Test func tabIndentation() throws {
        let error = try failure("title: x\nmeta:\n\tauthor: y\n", lineOffset: 1)
        #expect(error.location == at(4, 1))
        #expect(error.message == "tab characters are not allowed for indentation; indent with spaces")
    }

    @Test func tabAfterSpacesIndentation() throws {
        let error = try failure("a:\n  b: 1\n\tc: 2\n")
        #expect(error.location == at(3, 1))
        #expect(error.message == "tab characters are not allowed for indentation; indent with spaces")
    }

    @Test func unclosedDoubleQuote() throws {
        let error = try failure("a: 1\nb: \"hello\nc: 2\n", lineOffset: 1)
        #expect(error.location == at(3, 4))  // the opening quote
        #expect(error.message == "this quoted text is never closed; add the closing \"")
    }

    @Test func unclosedSingleQuote() throws {
        let error = try failure("a: 'hello\n")
        #expect(error.location == at(1, 4))
        #expect(error.message == "this quoted text is never closed; add the closing '")
    }

    @Test func valueContainingColonSpace() throws {
        let error = try failure("title: Breaking: quake\n", lineOffset: 1)
        #expect(error.location == at(2, 16))
        #expect(error.message.hasPrefix("mapping values are not allowed here"))
    }

    @Test func keyValueValue() throws {
        let error = try failure("key: value: x\n")
        #expect(error.location == at(1, 11))
        #expect(error.description.hasPrefix("1:11: mapping values are not allowed here"))
    }

    @Test func unterminatedFlowMapping() throws {
        let error = try failure("a: {a: 1\n")
        #expect(error.location == at(2, 1))
        #expect(error.message == "expected ',' or '}' in the flow mapping '{' opened at 1:4")
    }

    @Test func unterminatedFlowSequence() throws {
        let error = try failure("x: 1\ntags: [world, asia\nnext: 2\n")
        #expect(error.location == at(3, 5))
        #expect(error.message == "expected ',' or ']' in the flow list '[' opened at 2:7")
    }

    @Test func badIndentation() throws {
        let error = try failure("a:\n  b: 1\n c: 2\n")
        #expect(error.location == at(3, 2))
        #expect(error.message.hasPrefix("expected a \"key: value\" line of the mapping that starts at 1:1"))
    }

    @Test func listItemInsideMapping() throws {
        let error = try failure("a: 1\n- b\n")
        #expect(error.location == at(2, 1))
        #expect(error.message.hasPrefix("expected a \"key: value\" line"))
    }

    @Test func textAfterQuotedValue() throws {
        let error = try failure("title: \"Quake\" hits coast\n")
        #expect(error.location == at(1, 16))
    }

    @Test func reservedCharacter() throws {
        let error = try failure("handle: @newsroom\n")
        #expect(error.location == at(1, 9))
        #expect(error.message == "a value cannot start with the character '@'; put the value in quotes")
    }

    @Test func nulCharacter() throws {
        let error = try failure("a: 1\nb: x\u{0}y\n", lineOffset: 1)
        #expect(error.location == at(3, 5))
        #expect(error.message.hasPrefix("NUL character U+0000 is not allowed in YAML"))
    }

    @Test func controlCharacterAfterCJK() throws {
        let error = try failure("zh: 近海发生\u{7}\n")
        #expect(error.location == at(1, 9))
        #expect(error.message.hasPrefix("control character U+0007 is not allowed in YAML"))
    }

    @Test func controlCharacterAfterByteOrderMark() throws {
        let error = try failure("\u{FEFF}a: \u{1}\n")
        #expect(error.location == at(1, 4))
        #expect(error.message.hasPrefix("control character U+0001"))
    }

    @Test func otherProblemsKeepLibyamlsWordsWithContext() throws {
        let error = try failure("a: \"bad \\q escape\"\n")
        #expect(error.location == at(1, 9))
        #expect(error.message == "found unknown escape character (while parsing a quoted scalar that starts at 1:4)")
    }

    @Test func contentAfterDocumentEnd() throws {
        let error = try failure("a: 1\n...\nb: 2\n")
        #expect(error.location == at(3, 1))
    }

    @Test func everySmallMutationOfAStoryHeaderIsHandled() throws {
        // No input may crash: every one-character deletion and a few insertions of awkward characters.
        let base = "title: { zh-Hans: \"近海\", fr: 'x' }\ntags: [a, b]\nbody: |\n  text\nref: &r 1\nuse: *r\n"
        let scalars = Array(base.unicodeScalars)
        var outcomes = 0
        for index in scalars.indices {
            for replacement in [nil, "\t", ":", "\"", "{", "\u{0}", "&", "*", "-"] as [Unicode.Scalar?] {
                var mutated = scalars
                if let replacement { mutated.insert(replacement, at: index) } else { mutated.remove(at: index) }
                var text = String.UnicodeScalarView()
                text.append(contentsOf: mutated)
                do {
                    _ = try YAMLDocument.parse(String(text))
                } catch {
                    #expect(error.location.line >= 1 && error.location.line <= 8)
                    #expect(error.location.column >= 1)
                    #expect(!error.message.isEmpty)
                }
                outcomes += 1
            }
        }
        #expect(outcomes == scalars.count * 9)
    }
}

@Suite struct PerformanceCheck {
    @Test func typicalFrontMatterTenThousandTimes() throws {
        let frontMatter = """
            title:
              en: Strong earthquake strikes off the coast
              fr: Un fort séisme frappe au large des côtes
              zh-Hans: 近海发生7.1级地震
            date: 2024-05-01T08:30:00Z
            category: World
            breaking: true
            priority: 2
            tags: [earthquake, asia, "tsunami warning"]
            author: Jane Doe
            summary: >
              A magnitude 7.1 earthquake struck off the coast early on Wednesday.
            image: /images/quake.jpg
            draft: false
            """
        var checksum = 0
        let elapsed = try ContinuousClock().measure {
            for _ in 0..<10_000 {
                let root = try document(frontMatter, lineOffset: 1)
                checksum &+= root["priority"]?.int ?? 0
            }
        }
        #expect(checksum == 20_000)
        print("YAML: parsed a 15-line front matter 10,000 times in \(elapsed)")
    }
}
