import Foundation
import Hub
import Signing
import Testing

@Suite("AccessSignature (SAS tokens)")
struct AccessSignatureTests {
    static let keyName = "DefaultFullSharedAccessSignature"
    static let key = "Y2hhbmdlLW1lLXRoaXMtaXMtYS10ZXN0LWtleS0wMTI="

    @Test("V2: hub audience, lowercased, lowercase hex")
    func vectorV2() {
        let token = AccessSignature.token(
            resourceURI: "https://contoso-test.servicebus.windows.net/MyHub", keyName: Self.keyName, key: Self.key,
            expiry: 1_700_000_000)
        #expect(
            token
                == "SharedAccessSignature sr=https%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub"
                + "&sig=sBwNOu50vAx7rWYQJwgGD8p7LGgLyNiSSTO8DcRj2Yg%3D&se=1700000000&skn=DefaultFullSharedAccessSignature"
        )
    }

    @Test("V3: .NET style resource; signature contains + and /")
    func vectorV3() {
        let token = AccessSignature.token(
            resourceURI: "http://contoso-test.servicebus.windows.net/myhub/messages/", keyName: Self.keyName,
            key: Self.key, expiry: 1_893_456_000)
        #expect(
            token
                == "SharedAccessSignature sr=http%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub%2fmessages%2f"
                + "&sig=yQR8oVCPU35v%2F7tHCGeV9XAtnoTn%2Bakep6z%2Fc8%2FTY6Y%3D&se=1893456000&skn=DefaultFullSharedAccessSignature"
        )
        #expect(
            AccessSignature.signatureBase64(
                encodedResource: "http%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub%2fmessages%2f",
                expiry: "1893456000", key: Self.key) == "yQR8oVCPU35v/7tHCGeV9XAtnoTn+akep6z/c8/TY6Y=")
    }

    @Test("V1 and W1: the signature is over the raw sr text as given")
    func rawResourceIsSigned() {
        #expect(
            AccessSignature.signatureBase64(
                encodedResource: "https%3A%2F%2Fcontoso-test.servicebus.windows.net%2F", expiry: "1700000000",
                key: Self.key) == "WK8jpQW+j6zw0R2VUJsGpiFLxngz+Mul7g+MkkR8ahI=")
        #expect(
            AccessSignature.signatureBase64(
                encodedResource: "https%3A%2F%2Fcontoso-test.servicebus.windows.net%2FMyHub", expiry: "1700000000",
                key: Self.key) == "GFqFQkE8M+L3GmPOd+U+ycCelmxD1sAca8Btkw28TpM=")
    }

    @Test("N1: a base64-decoded key gives a different signature (and we do not decode)")
    func negativeN1() throws {
        let decoded = try #require(Data(base64Encoded: Self.key))
        let v1Message = Array("https%3A%2F%2Fcontoso-test.servicebus.windows.net%2F\n1700000000".utf8)
        let wrong = Data(MessageAuthentication.hmacSHA256(key: Array(decoded), message: v1Message))
            .base64EncodedString()
        #expect(wrong == "q0KvqhQOK2PMVopKyi0Y90FJOPJeo37OJbn+ZCwUAgc=")
        #expect(wrong != "WK8jpQW+j6zw0R2VUJsGpiFLxngz+Mul7g+MkkR8ahI=")

        // The same mistake on V2's inputs would not produce V2's token.
        let v2Message = Array("https%3a%2f%2fcontoso-test.servicebus.windows.net%2fmyhub\n1700000000".utf8)
        let wrongV2 = Data(MessageAuthentication.hmacSHA256(key: Array(decoded), message: v2Message))
            .base64EncodedString()
        let token = AccessSignature.token(
            resourceURI: "https://contoso-test.servicebus.windows.net/MyHub", keyName: Self.keyName, key: Self.key,
            expiry: 1_700_000_000)
        #expect(wrongV2 != "sBwNOu50vAx7rWYQJwgGD8p7LGgLyNiSSTO8DcRj2Yg=")
        #expect(token.contains("sig=sBwNOu50vAx7rWYQJwgGD8p7LGgLyNiSSTO8DcRj2Yg%3D&"))
    }

    @Test("percent-encoding keeps only A-Z a-z 0-9 - _ . ~ and writes lowercase hex")
    func percentEncoding() {
        #expect(AccessSignature.percentEncode("AZaz09-_.~") == "AZaz09-_.~")
        #expect(AccessSignature.percentEncode("a+b/c=d:e?f&g h") == "a%2bb%2fc%3dd%3ae%3ff%26g%20h")
        #expect(AccessSignature.percentEncode("!*'()") == "%21%2a%27%28%29")
        #expect(AccessSignature.percentEncode("é€") == "%c3%a9%e2%82%ac")
        #expect(AccessSignature.percentEncode("") == "")
    }

    @Test("the key name is percent-encoded in skn")
    func keyNameEncoded() {
        let token = AccessSignature.token(resourceURI: "https://a/", keyName: "my rule", key: "k", expiry: 1)
        #expect(token.hasSuffix("&se=1&skn=my%20rule"))
        #expect(token.hasPrefix("SharedAccessSignature sr=https%3a%2f%2fa%2f&sig="))
    }
}
