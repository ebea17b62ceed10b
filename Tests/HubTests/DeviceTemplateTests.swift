import Hub
import Testing

@Suite("DeviceTemplate")
struct DeviceTemplateTests {
    static let seedBody = [
        "News_English": "Breaking World News in English!",
        "News_French": "Breaking World News in French!",
        "News_Mandarin": "Breaking World News in Mandarin!",
        "messageParam": "Breaking World News!",
    ]

    private func render(_ template: String, _ properties: [String: String]) throws -> String {
        try DeviceTemplate(json: template).render(properties)
    }

    private func failure(_ template: String) -> DeviceTemplateError? {
        do {
            _ = try DeviceTemplate(json: template)
            return nil
        } catch {
            return error
        }
    }

    // MARK: §12.2 vectors (exact compact text)

    @Test("T1: $(message)")
    func t1() throws {
        #expect(try render(#"{"aps":{"alert":"$(message)"}}"#, ["message": "Hello!"]) == #"{"aps":{"alert":"Hello!"}}"#)
    }

    @Test("T2, T2b: the seed scenario, French and Mandarin devices")
    func t2() throws {
        #expect(
            try render(#"{"aps":{"alert":"$(News_French)"},"inAppMessage":"$(News_French)"}"#, Self.seedBody)
                == #"{"aps":{"alert":"Breaking World News in French!"},"inAppMessage":"Breaking World News in French!"}"#
        )
        #expect(
            try render(#"{"aps":{"alert":"$(News_Mandarin)"},"inAppMessage":"$(News_Mandarin)"}"#, Self.seedBody)
                == #"{"aps":{"alert":"Breaking World News in Mandarin!"},"inAppMessage":"Breaking World News in Mandarin!"}"#
        )
        #expect(
            try render(#"{"aps":{"alert":"$(messageParam)"}}"#, Self.seedBody)
                == #"{"aps":{"alert":"Breaking World News!"}}"#)
    }

    @Test("T3: a missing property renders as an empty string")
    func t3() throws {
        #expect(
            try render(
                #"{"aps":{"alert":"$(News_French)"},"inAppMessage":"$(News_French)"}"#, ["News_English": "Hello"])
                == #"{"aps":{"alert":""},"inAppMessage":""}"#)
    }

    @Test("T4: property names are case-insensitive")
    func t4() throws {
        #expect(
            try render(#"{"aps":{"alert":"$(news_french)"}}"#, ["News_French": "Bonjour"])
                == #"{"aps":{"alert":"Bonjour"}}"#)
        #expect(try render(#"{"a":"$(NEWS_FRENCH)"}"#, ["news_french": "Salut"]) == #"{"a":"Salut"}"#)
    }

    @Test("T5, T14: .(p, n) clips with ... only when longer")
    func t5t14() throws {
        let body = ["title": "This is the title line"]
        #expect(try render(#"{"aps":{"alert":".(title, 20)"}}"#, body) == #"{"aps":{"alert":"This is the title..."}}"#)
        #expect(
            try render(#"{"aps":{"alert":".(title, 30)"}}"#, body) == #"{"aps":{"alert":"This is the title line"}}"#)
        #expect(try render(#"{"a":".(title,22)"}"#, body) == #"{"a":"This is the title line"}"#)
        #expect(try render(#"{"a":".(title,21)"}"#, body) == #"{"a":"This is the title ..."}"#)
        #expect(try render(#"{"a":".(title, 3)"}"#, body) == #"{"a":"..."}"#)
        #expect(try render(#"{"a":".(title, 2)"}"#, body) == #"{"a":".."}"#)
        #expect(try render(#"{"a":".(title, 0)"}"#, body) == #"{"a":""}"#)
    }

    @Test("T6: $(p, n) keeps the first n characters")
    func t6() throws {
        let body = ["title": "This is the title line"]
        #expect(try render(#"{"aps":{"alert":"$(title, 20)"}}"#, body) == #"{"aps":{"alert":"This is the title li"}}"#)
        #expect(try render(#"{"a":"$(title, 0)"}"#, body) == #"{"a":""}"#)
        #expect(try render(#"{"a":"$(title, 99999999999999999999999)"}"#, body) == #"{"a":"This is the title line"}"#)
    }

    @Test("T7, T8, T9: #(p) is a number only when it matches the hub's pattern")
    func t7t8t9() throws {
        #expect(
            try render(##"{"aps":{"alert":"$(m)","badge":"#(badge)"}}"##, ["m": "x", "badge": "40"])
                == #"{"aps":{"alert":"x","badge":40}}"#)
        #expect(try render(##"{"aps":{"badge":"#(badge)"}}"##, ["badge": "forty"]) == ##"{"aps":{"badge":"forty"}}"##)
        #expect(try render(##"{"aps":{"badge":"#(badge)"}}"##, ["badge": "007"]) == ##"{"aps":{"badge":"007"}}"##)
        let numbers = ["0", "1", "10", "3.25", "1e5", "2E-3", "0.5e+10"]
        for number in numbers {
            #expect(try render(##"{"n":"#(n)"}"##, ["n": number]) == ##"{"n":\##(number)}"##)
        }
        let notNumbers = ["", "-1", "1.", ".5", "1e", "1e+", "01", "1 ", " 1", "0x10", "1,5", "١٢"]
        for text in notNumbers {
            #expect(try render(##"{"n":"#(n)"}"##, ["n": text]) == ##"{"n":"\##(text)"}"##)
        }
        #expect(try render(##"{"n":"#(missing)"}"##, [:]) == ##"{"n":""}"##)
    }

    @Test("T10, T11, T15: composite expressions")
    func composites() throws {
        #expect(
            try render(#"{"aps":{"alert":"{'Hi, ' + $(name)}"}}"#, ["name": "Bob"]) == #"{"aps":{"alert":"Hi, Bob"}}"#)
        #expect(
            try render(#"{"aps":{"alert":"{$(prop) + ' - ' + $(prop2)}"}}"#, ["prop": "a", "prop2": "b"])
                == #"{"aps":{"alert":"a - b"}}"#)
        #expect(try render(#"{"aps":{"alert":"{'It''s ' + $(x)}"}}"#, ["x": "ok"]) == #"{"aps":{"alert":"It's ok"}}"#)
        #expect(try render(#"{"a":"{\"say \"\"hi\"\"\" + $(x)}"}"#, ["x": "!"]) == #"{"a":"say \"hi\"!"}"#)
        #expect(
            try render(#"{"a":"{.(t, 5)+%(q)+$(t,2)+'|'}"}"#, ["t": "abcdefg", "q": "a b"]) == #"{"a":"ab...a%20bab|"}"#
        )
        #expect(try render(#"{"a":"{'$(not a property)'}"}"#, [:]) == #"{"a":"$(not a property)"}"#)
        #expect(try render(#"{"a":"{ $(x) }  "}"#, ["x": "y"]) == #"{"a":"y"}"#)
        #expect(try render(#"{"a":"$( x\n, 1 )"}"#, ["x": "yz"]) == #"{"a":"y"}"#)
    }

    @Test("T12: text before an expression makes it a literal")
    func t12() throws {
        #expect(
            try render(#"{"aps":{"alert":"Some other text. $(message)"}}"#, ["message": "hi"])
                == #"{"aps":{"alert":"Some other text. $(message)"}}"#)
        #expect(try render(#"{"a":" $(message)"}"#, ["message": "hi"]) == #"{"a":" $(message)"}"#)
    }

    @Test("T13: substituted values are JSON-escaped")
    func t13() throws {
        #expect(
            try render(#"{"aps":{"alert":"$(m)"}}"#, ["m": "He said \"hi\"\nbye"])
                == #"{"aps":{"alert":"He said \"hi\"\nbye"}}"#)
    }

    @Test("T16: %(p) percent-encodes UTF-8, RFC 3986 unreserved kept")
    func t16() throws {
        #expect(try render(#"{"a":"%(q)"}"#, ["q": "a b&c/é"]) == #"{"a":"a%20b%26c%2F%C3%A9"}"#)
        #expect(try render(#"{"a":"%(q)"}"#, ["q": "AZaz09-._~+"]) == #"{"a":"AZaz09-._~%2B"}"#)
    }

    @Test("T17: #() inside {} is rejected when the template is created")
    func t17() {
        let error = failure(#"{"aps":{"alert":"{'n=' + #(c)}"}}"#)
        #expect(error?.path == "aps.alert")
        #expect(
            error?.message
                == #"invalid expression "{'n=' + #(c)}": #(c) at character 9 is not allowed inside {…}; use $(c) there, or #(c) alone as the whole value"#
        )
        #expect(error?.description.hasPrefix("aps.alert: invalid expression") == true)
    }

    // MARK: Unicode and escaping

    @Test("emoji, CJK, RTL, quotes, backslashes and control characters survive as valid JSON")
    func unicodeValues() throws {
        let template = try DeviceTemplate(json: #"{"a":"$(v)","b":"$(v, 3)","c":".(v, 4)"}"#)
        #expect(template.render(["v": "👨‍👩‍👧‍👦🇫🇷 ok"]) == #"{"a":"👨‍👩‍👧‍👦🇫🇷 ok","b":"👨‍👩‍👧‍👦🇫🇷 ","c":"👨‍👩‍👧‍👦..."}"#)
        #expect(template.render(["v": "地震袭击北京"]) == #"{"a":"地震袭击北京","b":"地震袭","c":"地..."}"#)
        #expect(template.render(["v": "زلزال في القاهرة"]) == #"{"a":"زلزال في القاهرة","b":"زلز","c":"ز..."}"#)
        #expect(template.render(["v": #"C:\path "q""#]) == #"{"a":"C:\\path \"q\"","b":"C:\\","c":"C..."}"#)
        #expect(
            template.render(["v": "\u{0}\u{1F}\t\r\u{8}\u{C}"])
                == #"{"a":"\u0000\u001f\t\r\b\f","b":"\u0000\u001f\t","c":"\u0000..."}"#)
        #expect(try render(#"{"a":"%(v)"}"#, ["v": "😀"]) == #"{"a":"%F0%9F%98%80"}"#)
        // The rendered text is itself a valid template (strict JSON) that renders back the same.
        let rendered = template.render(["v": "\"\\\n😀"])
        #expect(try DeviceTemplate(json: rendered).render([:]) == rendered)
    }

    @Test("literals and non-string values are kept as written, in order")
    func literalsKept() throws {
        let template =
            #"{"z":1,"a":[true,false,null,-0.5e-3,"x",{"k":"$(p)"}],"m":{},"n":[],"s":"plain \u00e9 \/ \ud83d\ude00"}"#
        #expect(
            try render(template, ["P": "v"])
                == #"{"z":1,"a":[true,false,null,-0.5e-3,"x",{"k":"v"}],"m":{},"n":[],"s":"plain é / 😀"}"#)
        #expect(try render(" {\n  \"aps\" : { \"alert\" : \"$(m)\" } }\n", ["m": "x"]) == #"{"aps":{"alert":"x"}}"#)
    }

    @Test("case-insensitive lookup prefers the exact name, then a stable choice")
    func lookupOrder() throws {
        let template = try DeviceTemplate(json: #"{"a":"$(Name)","b":"$(NAME)"}"#)
        #expect(template.render(["Name": "exact", "name": "lower"]) == #"{"a":"exact","b":"exact"}"#)
        #expect(template.render(["name": "lower", "nAme": "mixed"]) == #"{"a":"mixed","b":"mixed"}"#)
    }

    @Test("referenced properties in order of first use")
    func referenced() throws {
        let template = try DeviceTemplate(
            json:
                ##"{"aps":{"alert":"{$(Title) + ': ' + .(body, 40)}","badge":"#(badge)"},"t":"$(title)","u":["%(url)"]}"##
        )
        #expect(template.referencedProperties == ["Title", "body", "badge", "url"])
        #expect(try DeviceTemplate(json: #"{"a":"literal"}"#).referencedProperties == [])
    }

    // MARK: Invalid expressions

    @Test("invalid expressions are rejected with their JSON path")
    func invalidExpressions() {
        let cases: [(String, String, String)] = [
            (#"{"a":{"b":"$(p"}}"#, "a.b", #"invalid expression "$(p": the expression ends before its closing ")""#),
            (
                #"{"a":"$(p) more"}"#, "a",
                #"invalid expression "$(p) more": unexpected text after the expression at character 6; to mix text with properties write {'text ' + $(property)}"#
            ),
            (#"{"a":"$body"}"#, "a", #"invalid expression "$body": the expression type $body is not supported"#),
            (
                #"{"a":"$5 off"}"#, "a",
                #"invalid expression "$5 off": expected "(" after "$" at character 2; a string starting with $ is a template expression such as $(property) — to send text that starts with it, write {'…'}"#
            ),
            (
                #"{"a":"...more"}"#, "a",
                #"invalid expression "...more": expected "(" after "." at character 2; a string starting with . is a template expression such as .(property) — to send text that starts with it, write {'…'}"#
            ),
            (#"{"a":".(title)"}"#, "a", #"invalid expression ".(title)": .(title) needs a length: .(title, n)"#),
            (#"{"a":"%(q, 3)"}"#, "a", #"invalid expression "%(q, 3)": %(q, 3): %() takes no length"#),
            (##"{"a":"#(q,1)"}"##, "a", ##"invalid expression "#(q,1)": #(q, 1): #() takes no length"##),
            (
                #"{"a":"$(p, -1)"}"#, "a",
                #"invalid expression "$(p, -1)": expected a non-negative whole number of characters at character 6"#
            ),
            (
                #"{"a":"$(p-q)"}"#, "a",
                #"invalid expression "$(p-q)": "-" at character 4 is not allowed in a property name; use ASCII letters, digits and _"#
            ),
            (
                #"{"a":"$(é)"}"#, "a",
                #"invalid expression "$(é)": "é" at character 3 cannot start a property name; use ASCII letters, digits and _"#
            ),
            (#"{"a":"$()"}"#, "a", #"invalid expression "$()": the property name is missing at character 3"#),
            (
                #"{"a":"$(p:{x})"}"#, "a",
                #"invalid expression "$(p:{x})": default values like $(p:{…}) are not supported"#
            ),
            (
                #"{"a":"{}"}"#, "a",
                #"invalid expression "{}": "{}" is empty; put expressions and 'literals' joined by + inside"#
            ),
            (
                #"{"a":"{'x' + }"}"#, "a",
                #"invalid expression "{'x' + }": expected $( .( %( or #( at character 8 but found "}"; put text in quotes: 'text'"#
            ),
            (
                #"{"a":"{'x' $(p)}"}"#, "a",
                #"invalid expression "{'x' $(p)}": expected "+" or "}" at character 6 but found "$""#
            ),
            (#"{"a":"{'x'"}"#, "a", #"invalid expression "{'x'": the expression ends before its closing "}""#),
            (
                #"{"a":"{'x + $(p)}"}"#, "a",
                #"invalid expression "{'x + $(p)}": the literal starting at character 2 has no closing ' (write a doubled '' for a quote inside it)"#
            ),
            (
                #"{"a":"{'x'} tail"}"#, "a",
                #"invalid expression "{'x'} tail": unexpected text after the closing "}" at character 7; to mix text with properties write {'text ' + $(property)}"#
            ),
            (
                #"{"a":"{text}"}"#, "a",
                #"invalid expression "{text}": expected $( .( %( or #( at character 2 but found "t"; put text in quotes: 'text'"#
            ),
            (
                #"{"list":["ok","$(x"]}"#, "list[1]",
                #"invalid expression "$(x": the expression ends before its closing ")""#
            ),
        ]
        for (template, path, message) in cases {
            let error = failure(template)
            #expect(error?.path == path, "\(template)")
            #expect(error?.message == message, "\(template)")
        }
        let longName = String(repeating: "n", count: 121)
        #expect(
            failure(#"{"a":"$(\#(longName))"}"#)?.message.hasSuffix("is 121 characters long; at most 120 are allowed")
                == true)
        #expect(failure(#"{"a":"$(\#(String(repeating: "n", count: 120)))"}"#) == nil)
    }

    // MARK: Invalid JSON

    @Test("invalid JSON is rejected with line, column and path")
    func invalidJSON() {
        let cases: [(String, String?, String)] = [
            ("", "", "line 1, column 1: the template is empty; expected a JSON object"),
            (#" ["$(a)"]"#, nil, "line 1, column 2: a device template must be a JSON object ({…})"),
            (#"{"a":1,}"#, "", #"line 1, column 8: expected a member name in double quotes but found "}""#),
            (
                "{\"aps\":\n  {\"alert\" \"x\"}}", "aps.alert",
                #"line 2, column 12: expected ":" after the member name but found a string"#
            ),
            (#"{"a":"x"} extra"#, "", #"line 1, column 11: unexpected "e" after the end of the JSON document"#),
            (#"{"a":01}"#, "a", "line 1, column 6: a JSON number cannot have a leading zero"),
            (#"{"a":tru}"#, "a", #"line 1, column 6: expected a JSON value but found "t""#),
            (#"{"a":"x"#, "a", #"line 1, column 8: the JSON ends inside a string (missing closing ")"#),
            (
                "{\"a\":\"x\ny\"}", "a",
                "line 1, column 8: a control character (U+000A) must be escaped inside a string (e.g. \\n)"
            ),
            (#"{"a":"\x"}"#, "a", #"line 1, column 7: invalid escape "\x" in a string"#),
            (#"{"a":"\ud800"}"#, "a", #"line 1, column 7: \u escape of a lone high surrogate"#),
            (#"{"a":"\udc00"}"#, "a", #"line 1, column 7: \u escape of a lone low surrogate"#),
            (#"{"a":1,"a":2}"#, "", #"line 1, column 8: the member name "a" appears twice in this object"#),
            (#"{"a":[1 2]}"#, "a[0]", #"line 1, column 9: expected "," or "]" after an element but found "2""#),
            (#"{"a":1 "b":2}"#, "a", #"line 1, column 8: expected "," or "}" after a member but found a string"#),
            (#"{"a":1"#, "", #"line 1, column 7: the JSON ends inside an object (missing "}")"#),
            (#"{"a":[1"#, "a", #"line 1, column 8: the JSON ends inside an array (missing "]")"#),
            (#"{"é":«}"#, "é", #"line 1, column 6: expected a JSON value but found "«""#),
        ]
        for (template, path, message) in cases {
            let error = failure(template)
            #expect(error?.path == path, "\(template)")
            #expect(error.map(positioned) == message, "\(template)")
        }
    }

    /// "line 2, column 12: message", as the JSON errors above are written.
    private func positioned(_ error: DeviceTemplateError) -> String {
        "line \(error.line ?? 0), column \(error.column ?? 0): \(error.message)"
    }

    @Test("an invalid expression is placed at the start of its string")
    func expressionErrorsHaveAPosition() {
        let error = failure("{\"aps\": {\n  \"badge\": 1,\n  \"alert\": \"{'n=' + #(c)}\"}}")
        #expect(error?.path == "aps.alert")
        #expect(error?.line == 3)
        #expect(error?.column == 12)
        #expect(failure(#"{"list":["ok","$(x"]}"#).map { [$0.line, $0.column] } == [1, 15])
    }

    @Test("deep nesting is an error, not a crash")
    func deepNesting() {
        let deep = "{\"a\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(failure(deep).map(positioned) == "line 1, column 133: objects and arrays are nested more than 128 levels deep")
        let fine = "{\"a\":" + String(repeating: "[", count: 127) + String(repeating: "]", count: 127) + "}"
        #expect(failure(fine) == nil)
    }

    @Test("rendering keeps key order and removes whitespace")
    func compact() throws {
        #expect(
            try DeviceTemplate(json: " { \"b\" : [ 1 , 2 ] , \"a\" : \"\\u0041\" } ").render([:]) == #"{"b":[1,2],"a":"A"}"#)
    }

    @Test("every prefix and every one-character deletion of a template is handled without a crash")
    func truncations() {
        let text =
            ##"{"aps":{"alert":"{'It''s ' + $(x) + \"!\"}","badge":"#(b)","t":".(t, 3)"},"u":["%(q)",1.5e3,null],"s":"\ud83d\ude00"}"##
        let characters = Array(text)
        var accepted = 0
        for end in 0...characters.count {
            if (try? DeviceTemplate(json: String(characters[..<end]))) != nil { accepted += 1 }
        }
        for removed in characters.indices {
            var copy = characters
            copy.remove(at: removed)
            if let template = try? DeviceTemplate(json: String(copy)) {
                _ = template.render(["x": "1", "b": "2", "t": "long text", "q": "a b"])
                accepted += 1
            }
        }
        #expect(accepted > 1)
        #expect(
            (try? DeviceTemplate(json: text).render(["X": "ok", "B": "7", "T": "abcd", "Q": "a/b"]))
                == #"{"aps":{"alert":"It's ok!","badge":7,"t":"..."},"u":["a%2Fb",1.5e3,null],"s":"😀"}"#)
    }
}
