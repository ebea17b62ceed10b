import Signing
import Testing

private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0f)])
    }
    return text
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

private let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

/// A small independent base64 encoder, so this test target needs nothing but Signing.
private func base64(_ data: [UInt8]) -> String {
    var text = ""
    var index = 0
    while index < data.count {
        let chunk = Array(data[index..<min(index + 3, data.count)])
        let b0 = chunk[0]
        let b1: UInt8 = chunk.count > 1 ? chunk[1] : 0
        let b2: UInt8 = chunk.count > 2 ? chunk[2] : 0
        text.append(base64Alphabet[Int(b0 >> 2)])
        text.append(base64Alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
        text.append(chunk.count > 1 ? base64Alphabet[Int((b1 & 0x0f) << 2 | b2 >> 6)] : "=")
        text.append(chunk.count > 2 ? base64Alphabet[Int(b2 & 0x3f)] : "=")
        index += 3
    }
    return text
}

struct RFC4231Case: Sendable, CustomStringConvertible {
    var name: String
    var key: [UInt8]
    var data: [UInt8]
    var expected: String
    var description: String { name }
}

@Suite("HMAC-SHA256")
struct HMACSHA256Tests {
    static let rfc4231: [RFC4231Case] = [
        RFC4231Case(
            name: "RFC 4231 case 1", key: [UInt8](repeating: 0x0b, count: 20), data: bytes("Hi There"),
            expected: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        RFC4231Case(
            name: "RFC 4231 case 2 (key shorter than the output)", key: bytes("Jefe"),
            data: bytes("what do ya want for nothing?"),
            expected: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        RFC4231Case(
            name: "RFC 4231 case 3", key: [UInt8](repeating: 0xaa, count: 20),
            data: [UInt8](repeating: 0xdd, count: 50),
            expected: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        RFC4231Case(
            name: "RFC 4231 case 4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
            expected: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        RFC4231Case(
            name: "RFC 4231 case 6 (key larger than the block)", key: [UInt8](repeating: 0xaa, count: 131),
            data: bytes("Test Using Larger Than Block-Size Key - Hash Key First"),
            expected: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        RFC4231Case(
            name: "RFC 4231 case 7 (key and data larger than the block)",
            key: [UInt8](repeating: 0xaa, count: 131),
            data: bytes(
                "This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm."),
            expected: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: rfc4231)
    func rfc4231Vector(_ vector: RFC4231Case) {
        let mac = MessageAuthentication.hmacSHA256(key: vector.key, message: vector.data)
        #expect(mac.count == 32)
        #expect(hex(mac) == vector.expected)
    }

    @Test("The vector of the Azure JavaScript SDK's own SAS unit test")
    func hubVectorV0() {
        let mac = MessageAuthentication.hmacSHA256(key: bytes("mysecretkey"), message: bytes("mydata"))
        #expect(base64(mac) == "u0JTQtSbhCo8r7+Yr/RNiJOs7/VwDireHAXovvLBbXo=")
    }

    @Test("empty key and empty message")
    func emptyInputs() {
        let mac = MessageAuthentication.hmacSHA256(key: [], message: [])
        #expect(hex(mac) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("the checked variant gives the same bytes")
    func checkedVariant() throws {
        let mac = try MessageAuthentication.checkedHMACSHA256(
            key: bytes("Jefe"), message: bytes("what do ya want for nothing?"))
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("a different key or message gives a different MAC")
    func sensitivity() {
        let reference = MessageAuthentication.hmacSHA256(key: bytes("key"), message: bytes("message"))
        #expect(MessageAuthentication.hmacSHA256(key: bytes("kez"), message: bytes("message")) != reference)
        #expect(MessageAuthentication.hmacSHA256(key: bytes("key"), message: bytes("messagf")) != reference)
    }
}
