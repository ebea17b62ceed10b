// Shared access signature (SAS) tokens for the hub's Authorization header, as the official SDKs make them.

import Signing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds `SharedAccessSignature …` Authorization header values, .NET/docs style:
///
/// * `sr`  = percentEncode(lowercase(resourceURI)), lowercase hex escapes;
/// * string to sign = `sr + "\n" + expiry` (one LF byte);
/// * `sig` = percent-encoded base64(HMAC-SHA256(UTF-8 bytes of the key text, string to sign)) — the key is
///   used as text, NOT base64-decoded, even though it looks like base64. The escapes in `sig` are UPPERCASE
///   (`%2B %2F %3D`), as Java's `URLEncoder` writes them, so that the SDKs' tokens (the test vectors in
///   AccessSignatureTests) come out byte for byte; the service percent-decodes `sig`, so their case does not matter to it;
/// * header value `SharedAccessSignature sr=…&sig=…&se=…&skn=…`.
public enum AccessSignature {
    /// The Authorization header value for `resourceURI` (e.g. `https://ns.servicebus.windows.net/MyHub`),
    /// valid until `expiry` (seconds since 1970-01-01 UTC).
    public static func token(resourceURI: String, keyName: String, key: String, expiry: Int) -> String {
        let sr = percentEncode(resourceURI.lowercased())
        let se = String(expiry)
        let signature = signatureBase64(encodedResource: sr, expiry: se, key: key)
        return
            "SharedAccessSignature sr=\(sr)&sig=\(percentEncode(signature, uppercaseHex: true))&se=\(se)&skn=\(percentEncode(keyName))"
    }

    /// The base64 signature (before percent-encoding) over the already-encoded resource and the expiry text.
    public static func signatureBase64(encodedResource: String, expiry: String, key: String) -> String {
        let mac = MessageAuthentication.hmacSHA256(
            key: Array(key.utf8), message: Array((encodedResource + "\n" + expiry).utf8))
        return Data(mac).base64EncodedString()
    }

    /// Percent-encodes the UTF-8 bytes of `s`, keeping only `A–Z a–z 0–9 - _ . ~` and writing every other byte
    /// as `%xx` with LOWERCASE hex digits (`https://a/b` → `https%3a%2f%2fa%2fb`, `+` → `%2b`, `=` → `%3d`).
    public static func percentEncode(_ s: String) -> String {
        percentEncode(s, uppercaseHex: false)
    }

    /// Percent-encoding with the same kept set (RFC 3986 unreserved), hex digits in the case asked for.
    /// (Also the device template language's `%()`, with uppercase hex.)
    static func percentEncode(_ s: String, uppercaseHex: Bool) -> String {
        let hexDigits: [UInt8] = Array((uppercaseHex ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
