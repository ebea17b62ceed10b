import Hub
import Testing

@Suite("HubConnectionString")
struct HubConnectionStringTests {
    static let secret = "Y2hhbmdlLW1lLXRoaXMtaXMtYS10ZXN0LWtleS0wMTI="
    static let standard =
        "Endpoint=sb://contoso-test.servicebus.windows.net/;SharedAccessKeyName=DefaultFullSharedAccessSignature;"
        + "SharedAccessKey=\(Self.secret)"

    private func failure(_ text: String) -> HubConfigurationError? {
        do {
            _ = try HubConnectionString(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test("the portal's connection string")
    func standardString() throws {
        let connection = try HubConnectionString(parsing: Self.standard)
        #expect(connection.endpoint == "sb://contoso-test.servicebus.windows.net/")
        #expect(connection.keyName == "DefaultFullSharedAccessSignature")
        #expect(connection.key == Self.secret)
        #expect(connection.entityPath == nil)
        #expect(connection.httpsBaseURL == "https://contoso-test.servicebus.windows.net/")
        #expect(
            connection.description
                == "Endpoint=sb://contoso-test.servicebus.windows.net/;SharedAccessKeyName=DefaultFullSharedAccessSignature;"
                + "SharedAccessKey=<redacted>")
        #expect(!"\(connection)".contains(Self.secret))
    }

    @Test("any order, case-insensitive names, whitespace, empty parts, = kept in the key, EntityPath")
    func lenientParsing() throws {
        let text =
            "  ; sharedaccesskey = abc==def= ;;ENTITYPATH=MyHub; SHAREDACCESSKEYNAME=Full ;\n endpoint= sb://ns.example.net ;  "
        let connection = try HubConnectionString(parsing: text)
        #expect(connection.key == "abc==def=")
        #expect(connection.keyName == "Full")
        #expect(connection.endpoint == "sb://ns.example.net")
        #expect(connection.entityPath == "MyHub")
        #expect(connection.httpsBaseURL == "https://ns.example.net/")
        #expect(
            connection.description
                == "Endpoint=sb://ns.example.net;SharedAccessKeyName=Full;SharedAccessKey=<redacted>;EntityPath=MyHub")
    }

    @Test("unknown parts are ignored; empty EntityPath is none; sovereign clouds and https work")
    func variants() throws {
        let withExtra = try HubConnectionString(parsing: Self.standard + ";TransportType=Amqp")
        #expect(withExtra.keyName == "DefaultFullSharedAccessSignature")
        #expect(try HubConnectionString(parsing: Self.standard + ";EntityPath=").entityPath == nil)
        let china = try HubConnectionString(
            parsing: "Endpoint=sb://ns.servicebus.chinacloudapi.cn/;SharedAccessKeyName=k;SharedAccessKey=s")
        #expect(china.httpsBaseURL == "https://ns.servicebus.chinacloudapi.cn/")
        let https = try HubConnectionString(
            parsing: "Endpoint=https://127.0.0.1:8443/;SharedAccessKeyName=k;SharedAccessKey=s")
        #expect(https.httpsBaseURL == "https://127.0.0.1:8443/")
        let upper = try HubConnectionString(
            parsing: "Endpoint=SB://NS.example.net/;SharedAccessKeyName=k;SharedAccessKey=s")
        #expect(upper.endpoint == "SB://NS.example.net/")
        #expect(upper.httpsBaseURL == "https://NS.example.net/")
    }

    @Test("what is missing or wrong is named, and the key never appears")
    func errors() {
        let example =
            "copy the whole connection string of a hub access policy with the Send right, e.g. "
            + "\"Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=DefaultFullSharedAccessSignature;"
            + "SharedAccessKey=<key>\""
        let cases: [(String, String)] = [
            (
                "",
                "the hub connection string is empty; expected "
                    + "\"Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=<policy>;SharedAccessKey=<key>\""
            ),
            (
                "  \n ",
                "the hub connection string is empty; expected "
                    + "\"Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=<policy>;SharedAccessKey=<key>\""
            ),
            (
                "SharedAccessKeyName=k;SharedAccessKey=\(Self.secret)",
                "the hub connection string has no Endpoint part; \(example)"
            ),
            (
                "Endpoint=sb://ns.example.net/;SharedAccessKey=\(Self.secret)",
                "the hub connection string has no SharedAccessKeyName part; \(example)"
            ),
            (
                "Endpoint=sb://ns.example.net/;SharedAccessKeyName=k",
                "the hub connection string has no SharedAccessKey part; \(example)"
            ),
            (
                "Endpoint=sb://ns.example.net/",
                "the hub connection string has no SharedAccessKeyName and no SharedAccessKey part; \(example)"
            ),
            (
                "SharedAccesKey=\(Self.secret)",
                "the hub connection string has no Endpoint, no SharedAccessKeyName, no SharedAccessKey part "
                    + "(unrecognized part \"SharedAccesKey\"); \(example)"
            ),
            (
                "Endpoint=sb://ns.example.net/;SharedAccessKeyName=k;abcdef",
                "part 3 of the hub connection string has no \"=\"; every part must look like Name=value "
                    + "(Endpoint=…, SharedAccessKeyName=…, SharedAccessKey=…)"
            ),
            (
                "Endpoint=sb://ns.example.net/;SharedAccessKeyName=k;SharedAccessKey=\(Self.secret);SharedAccessKey=\(Self.secret)",
                "the hub connection string has more than one SharedAccessKey part; keep exactly one"
            ),
            (
                "Endpoint=;SharedAccessKeyName=k;SharedAccessKey=\(Self.secret)",
                "the hub connection string's Endpoint is empty; expected sb://<namespace>.servicebus.windows.net/"
            ),
            (
                "Endpoint=ns.example.net;SharedAccessKeyName=k;SharedAccessKey=\(Self.secret)",
                "the hub connection string's Endpoint \"ns.example.net\" must start with sb:// "
                    + "(e.g. sb://<namespace>.servicebus.windows.net/)"
            ),
            (
                "Endpoint=http://ns.example.net/;SharedAccessKeyName=k;SharedAccessKey=\(Self.secret)",
                "the hub connection string's Endpoint \"http://ns.example.net/\" must start with sb:// "
                    + "(e.g. sb://<namespace>.servicebus.windows.net/)"
            ),
            (
                "Endpoint=sb:///hub;SharedAccessKeyName=k;SharedAccessKey=\(Self.secret)",
                "the hub connection string's Endpoint \"sb:///hub\" has no valid host name; expected "
                    + "sb://<namespace>.servicebus.windows.net/"
            ),
            (
                "Endpoint=sb://ns.example.net/;SharedAccessKeyName=;SharedAccessKey=\(Self.secret)",
                "the hub connection string's SharedAccessKeyName is empty; give the access policy's name, "
                    + "e.g. DefaultFullSharedAccessSignature"
            ),
            (
                "Endpoint=sb://ns.example.net/;SharedAccessKeyName=k;SharedAccessKey=",
                "the hub connection string's SharedAccessKey is empty; copy the policy's primary or secondary key"
            ),
        ]
        for (text, message) in cases {
            let error = failure(text)
            #expect(error?.message == message, "\(text)")
            #expect(error?.description == message)
            #expect(error.map { !$0.message.contains(Self.secret) } == true)
        }
    }

    @Test("a pasted key is never echoed, not even in part")
    func pastedKey() {
        let bare = failure("Endpoint=sb://ns.example.net/;SharedAccessKeyName=k;\(Self.secret)")
        #expect(
            bare?.message
                == "the hub connection string has no SharedAccessKey part (1 unrecognized part not shown because it "
                + "may be a key); copy the whole connection string of a hub access policy with the Send right, e.g. "
                + "\"Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=DefaultFullSharedAccessSignature;"
                + "SharedAccessKey=<key>\"")
        #expect(bare?.message.contains("Y2hh") == false)
        let several = failure("Endpoint=sb://ns/;Foo=1;a1=2;b-c=3;SharedAccessKeyName=k")
        #expect(
            several?.message.hasPrefix(
                "the hub connection string has no SharedAccessKey part (unrecognized part \"Foo\"; 2 unrecognized "
                    + "parts not shown because they may be keys);") == true)
    }

    @Test("a key pasted into another part is hidden there too")
    func keyInOtherParts() throws {
        let error = failure("Endpoint=s3cr3tKey;SharedAccessKeyName=k;SharedAccessKey=s3cr3tKey")
        #expect(
            error?.message
                == "the hub connection string's Endpoint \"<redacted>\" must start with sb:// "
                + "(e.g. sb://<namespace>.servicebus.windows.net/)")
        let swapped = try HubConnectionString(
            parsing: "Endpoint=sb://ns.example.net/;SharedAccessKeyName=s3cr3tKey;SharedAccessKey=s3cr3tKey")
        #expect(
            swapped.description
                == "Endpoint=sb://ns.example.net/;SharedAccessKeyName=<redacted>;SharedAccessKey=<redacted>")
    }
}
