import Hub
import Testing

@Suite("TagExpression")
struct TagExpressionTests {
    private func parse(_ text: String) throws -> TagExpression { try TagExpression(parsing: text) }

    private func error(_ text: String) -> TagExpressionError? {
        do {
            _ = try TagExpression(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    private func anyOfError(_ tags: [String]) -> TagExpressionError? {
        do {
            _ = try TagExpression(anyOf: tags)
            return nil
        } catch {
            return error
        }
    }

    // MARK: §12.3 vectors

    @Test("E1, E2: (a || b) && c")
    func e1e2() throws {
        let expression = try parse("(follows_RedSox || follows_Cardinals) && location_Boston")
        #expect(expression.headerValue == "(follows_RedSox || follows_Cardinals) && location_Boston")
        #expect(expression.tags == ["follows_RedSox", "follows_Cardinals", "location_Boston"])
    }

    @Test("E3, E4: a && !b")
    func e3e4() throws {
        let expression = try parse("location_Boston && !follows_Cardinals")
        #expect(expression.headerValue == "location_Boston && !follows_Cardinals")
        // The documented form with outer parentheses means the same.
        #expect(try parse("(location_Boston && !follows_Cardinals)") == expression)
    }

    @Test("E5: a list becomes an OR expression")
    func e5() throws {
        let expression = try TagExpression(anyOf: ["abc", "def"])
        #expect(expression.headerValue == "abc || def")
        #expect(expression.tags == ["abc", "def"])
        #expect(try parse("abc||def") == expression)
    }

    @Test("E6: abc||def names the whole tags abc and def")
    func e6() throws {
        let expression = try parse("abc||def")
        #expect(expression.tags == ["abc", "def"])
        #expect(expression.headerValue == "abc || def")
    }

    @Test("E7: a single installation")
    func e7() throws {
        let expression = try parse("$InstallationId:{abc-123}")
        #expect(expression.tags == ["$InstallationId:{abc-123}"])
        #expect(expression.headerValue == "$InstallationId:{abc-123}")
        #expect(try parse("$UserId:{user=42@example.com}").tags == ["$UserId:{user=42@example.com}"])
    }

    @Test("E8: a template name is a tag")
    func e8() throws {
        let expression = try parse("localizednewsTemplate")
        #expect(expression.tags == ["localizednewsTemplate"])
        #expect(expression.headerValue == "localizednewsTemplate")
    }

    @Test("E9, E10: at most 20 tags joined by ||")
    func e9e10() throws {
        let twenty = (1...20).map { "t\($0)" }
        #expect(try parse(twenty.joined(separator: "||")).tags == twenty)
        #expect(try TagExpression(anyOf: twenty).tags.count == 20)
        let tooMany = error((1...21).map { "t\($0)" }.joined(separator: " || "))
        #expect(
            tooMany?.message
                == "the tag expression uses 21 tags; the hub allows at most 20 tags joined by || "
                + "(send several notifications instead)")
        #expect(
            anyOfError((1...21).map { "t\($0)" })?.message
                == "21 tags joined by || are too many; the hub allows at most 20 (send several notifications instead)")
        // Parentheses alone do not make it a mixed expression.
        #expect(try parse("(a || b) || (c || d || e || f || g)").tags.count == 7)
    }

    @Test("E11, E12: at most 6 tags once && or ! is used")
    func e11e12() throws {
        #expect(try parse("a && b && c && d && e && f").headerValue == "a && b && c && d && e && f")
        let withAnd = error("a && b && c && d && e && f && g")
        #expect(
            withAnd?.message
                == "the tag expression uses 7 tags; the hub allows at most 6 in an expression with && or ! "
                + "(at most 20 when tags are only joined by ||)")
        #expect(error("a || b || c || d || e || f || !g")?.message.hasPrefix("the tag expression uses 7 tags") == true)
        #expect(error("(a || b || c || d || e || f) && g") != nil)
        #expect(try parse("!a || b || c || d || e || f").tags.count == 6)
    }

    @Test("E13: && binds tighter than ||; the header parenthesizes it")
    func e13() throws {
        let expression = try parse("a || b && c")
        #expect(expression.headerValue == "a || (b && c)")
        #expect(try parse("a && b || c").headerValue == "(a && b) || c")
    }

    @Test("E14: whitespace is tolerated")
    func e14() throws {
        let expression = try parse("  a ||\tb  ")
        #expect(expression.headerValue == "a || b")
        #expect(try parse("(a||b)&&!c").headerValue == "(a || b) && !c")
        #expect(try parse("! ( a && b )").headerValue == "!(a && b)")
    }

    // MARK: anyOf

    @Test("anyOf deduplicates keeping order, single tag has no operator")
    func anyOfShapes() throws {
        #expect(try TagExpression(anyOf: ["World", "Politics", "World"]).headerValue == "World || Politics")
        #expect(try TagExpression(anyOf: ["World"]).headerValue == "World")
        #expect(try TagExpression(anyOf: ["World"]).description == "World")
        #expect(try TagExpression(anyOf: ["b", "a", "b", "a"]).tags == ["b", "a"])
        #expect(try TagExpression(anyOf: ["World", "Politics"]) != TagExpression(anyOf: ["Politics", "World"]))
    }

    @Test("anyOf rejects an empty list and invalid tags")
    func anyOfErrors() {
        #expect(
            anyOfError([])?.message
                == "a tag expression needs at least one tag (to reach every device, send without tags)")
        #expect(
            anyOfError(["World", "Breaking News"])?.message
                == "invalid tag \"Breaking News\": U+0020 at position 9 is not allowed in a tag; "
                + "use ASCII letters, digits and _ @ # . : -")
        #expect(anyOfError(["a||b"]) != nil)
        #expect(anyOfError([""])?.message == "invalid tag \"\": a tag cannot be empty")
    }

    // MARK: tags

    @Test("valid tags")
    func validTags() {
        for tag in [
            "World", "a", "user@example.com", "#hash", "lang:fr-FR", "v1.2_3", String(repeating: "x", count: 120),
            "$InstallationId:{0f8fad5b-d9cb-469f-a165-70867728950e}", "$UserId:{a=b}",
        ] {
            #expect(TagExpression.validateTag(tag) == nil, "\(tag)")
        }
    }

    @Test("invalid tags and their reasons")
    func invalidTags() {
        #expect(TagExpression.validateTag("") == "a tag cannot be empty")
        #expect(
            TagExpression.validateTag(String(repeating: "x", count: 121))
                == "the tag is 121 characters long; the hub allows at most 120")
        #expect(
            TagExpression.validateTag("Économie")
                == "\"É\" (U+00C9) at position 1 is not allowed in a tag; use ASCII letters, digits and _ @ # . : -")
        #expect(
            TagExpression.validateTag("a/b")
                == "\"/\" (U+002F) at position 2 is not allowed in a tag; use ASCII letters, digits and _ @ # . : -")
        #expect(TagExpression.validateTag("new\nline")?.hasPrefix("U+000A at position 4") == true)
        #expect(TagExpression.validateTag("a=b")?.hasPrefix("\"=\" (U+003D)") == true)
        #expect(TagExpression.validateTag("新闻")?.hasPrefix("\"新\" (U+65B0) at position 1") == true)
        #expect(TagExpression.validateTag("😀")?.hasPrefix("\"😀\" (U+1F600)") == true)
        #expect(
            TagExpression.validateTag("$InstallationId:abc")
                == "write the system tag with braces: $InstallationId:{…}")
        #expect(
            TagExpression.validateTag("$InstallationId:{}") == "write the system tag with braces: $InstallationId:{…}")
        #expect(
            TagExpression.validateTag("$InstallationId:{a b}")
                == "U+0020 is not allowed inside $InstallationId:{…}; use letters, digits and _ @ # . : - =")
        #expect(
            TagExpression.validateTag("$Tag")
                == "only the system tags $InstallationId:{…} and $UserId:{…} may start with \"$\"")
    }

    // MARK: parse errors with positions

    @Test("parse errors name the column")
    func parseErrors() {
        let cases: [(String, String, Int?)] = [
            ("", "the tag expression is empty; give at least one tag", nil),
            ("   ", "the tag expression is empty; give at least one tag", nil),
            ("a & b", "single \"&\" at column 3; write && for AND", 3),
            ("a | b", "single \"|\" at column 3; write || for OR", 3),
            ("a ||", "the tag expression ends too early at column 5: expected a tag, \"!\" or \"(\"", 5),
            ("|| a", "expected a tag, \"!\" or \"(\" at column 1 but found \"||\"", 1),
            ("a && && b", "expected a tag, \"!\" or \"(\" at column 6 but found \"&&\"", 6),
            ("(a || b", "missing \")\" for the \"(\" at column 1: the expression ended at column 8", 8),
            ("(a || b c)", "missing \")\" for the \"(\" at column 1: found the tag \"c\" at column 9", 9),
            ("a || b)", "unexpected \")\" at column 7: there is no \"(\" for it to close", 7),
            ("a b", "expected && or || at column 3 but found the tag \"b\"", 3),
            ("a ()", "expected && or || at column 3 but found \"(\"", 3),
            ("()", "expected a tag, \"!\" or \"(\" at column 2 but found \")\"", 2),
            (
                "World || Polit/ics",
                "invalid tag \"Polit/ics\" at column 10: \"/\" (U+002F) at position 6 is not allowed in a tag; "
                    + "use ASCII letters, digits and _ @ # . : -", 10
            ),
            ("a && b!", "expected && or || at column 7 but found \"!\"", 7),
        ]
        for (text, message, column) in cases {
            let found = error(text)
            #expect(found?.message == message, "\(text)")
            #expect(found?.column == column, "\(text)")
        }
    }

    @Test("deep nesting is an error, not a crash")
    func deepNesting() throws {
        let deep = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        #expect(
            error(deep)?.message.hasPrefix("the tag expression nests \"(\" and \"!\" more than 64 levels deep") == true)
        #expect(error(String(repeating: "!", count: 100_000) + "a") != nil)
        #expect(
            try parse(String(repeating: "(", count: 60) + "a" + String(repeating: ")", count: 60)).headerValue == "a")
    }

    @Test("an expression whose header value would nest too deep is refused, so every header value reads back")
    func headerValueNesting() throws {
        // 63 "!" and one "(" are within the limit, but the header value adds "(" around the && group: 65 levels.
        let tooDeep = String(repeating: "!", count: 63) + "(a && b || c)"
        #expect(error(tooDeep)?.message.hasPrefix("the tag expression nests \"(\" and \"!\" more than 64 levels deep once") == true)
        let deepest = try parse(String(repeating: "!", count: 62) + "(a && b || c)")
        #expect(deepest.headerValue == String(repeating: "!", count: 62) + "((a && b) || c)")
        #expect(try parse(deepest.headerValue).headerValue == deepest.headerValue)
    }

    @Test("double negation and nested groups keep their meaning in the header")
    func nesting() throws {
        let expression = try parse("!!a && !(b || c)")
        #expect(expression.headerValue == "!!a && !(b || c)")
        #expect(expression.tags == ["a", "b", "c"])
        #expect(try parse("!(!a)").headerValue == "!!a")
        #expect(try parse("((a && b)) || !(c)").headerValue == "(a && b) || !c")
    }

    @Test("every prefix of an expression is handled without a crash")
    func prefixes() {
        let text = "(follows_RedSox || $InstallationId:{a-1}) && !location_Boston || x"
        var accepted: [String] = []
        for end in text.indices {
            let prefix = String(text[..<end])
            if let expression = try? TagExpression(parsing: prefix) { accepted.append(expression.headerValue) }
        }
        // Accepted: "(…)" and "(…) ", then "(…) && !l" … "(…) && !location_Boston" and that with a space.
        #expect(accepted.count == 18)
        #expect(accepted.first == "follows_RedSox || $InstallationId:{a-1}")
        #expect(accepted.last == "(follows_RedSox || $InstallationId:{a-1}) && !location_Boston")
    }
}
