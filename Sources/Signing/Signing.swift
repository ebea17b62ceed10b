// Signing: HMAC-SHA256 over libcrypto (OpenSSL).
//
// This is the only module that imports CCrypto; no C type appears in its public API.

internal import CCrypto

/// A libcrypto call that reported failure.
public struct SigningError: Error, Sendable, CustomStringConvertible {
    /// The C function that failed, e.g. `HMAC`.
    public var call: String
    public var message: String

    public var description: String { "libcrypto \(call) failed: \(message)" }
}

/// Message authentication codes.
///
/// (Deliberately not a type called `HMAC`: that name would hide OpenSSL's `HMAC()` function.)
public enum MessageAuthentication {
    /// The length in bytes of an HMAC-SHA256 result.
    public static let sha256Length = 32

    /// HMAC-SHA256 of `message` keyed with `key` (RFC 2104 / RFC 4231). Always 32 bytes.
    ///
    /// Any key length is accepted, including an empty key. libcrypto fails here only if it cannot allocate
    /// memory; that is not caused by the input and stops the program with a message. Use
    /// `checkedHMACSHA256(key:message:)` to receive that failure as an error instead.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        do {
            return try checkedHMACSHA256(key: key, message: message)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// HMAC-SHA256 of `message` keyed with `key`; throws if libcrypto reports a failure.
    public static func checkedHMACSHA256(key: [UInt8], message: [UInt8]) throws(SigningError) -> [UInt8] {
        // HMAC() takes the key length as a C int. RFC 2104 replaces a key longer than the hash's block size by its
        // hash, so hashing an oversized key first gives the same MAC without narrowing the length.
        if key.count > Int(Int32.max) {
            return try checkedHMACSHA256(key: try sha256(key), message: message)
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outputLength: UInt32 = 0
        // Empty arrays may have no base address; libcrypto wants real pointers, so lend it a dummy byte.
        let dummy: [UInt8] = [0]
        let keyBytes = key.isEmpty ? dummy : key
        let messageBytes = message.isEmpty ? dummy : message
        let result = keyBytes.withUnsafeBufferPointer { keyBuffer in
            messageBytes.withUnsafeBufferPointer { messageBuffer in
                output.withUnsafeMutableBufferPointer { outputBuffer in
                    HMAC(
                        EVP_sha256(),
                        keyBuffer.baseAddress, Int32(key.count),
                        messageBuffer.baseAddress, message.count,
                        outputBuffer.baseAddress, &outputLength)
                }
            }
        }
        try check(result != nil, call: "HMAC", "returned NULL")
        try check(
            Int(outputLength) == sha256Length, call: "HMAC",
            "returned \(outputLength) bytes instead of \(sha256Length)")
        return Array(output.prefix(sha256Length))
    }

    /// SHA-256 digest of `data` (32 bytes); used for keys longer than a C int can describe and for the
    /// push ledger's body hashes. libcrypto fails only when out of memory, which stops the program.
    public static func sha256Digest(_ data: [UInt8]) -> [UInt8] {
        do {
            return try sha256(data)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// SHA-256 digest (used for keys longer than a C int can describe).
    static func sha256(_ data: [UInt8]) throws(SigningError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outputLength: UInt32 = 0
        let dummy: [UInt8] = [0]
        let bytes = data.isEmpty ? dummy : data
        let status = bytes.withUnsafeBufferPointer { buffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                EVP_Digest(buffer.baseAddress, data.count, outputBuffer.baseAddress, &outputLength, EVP_sha256(), nil)
            }
        }
        try check(status == 1, call: "EVP_Digest", "returned \(status)")
        try check(Int(outputLength) == sha256Length, call: "EVP_Digest", "returned \(outputLength) bytes")
        return Array(output.prefix(sha256Length))
    }

    /// The one place where libcrypto results are checked.
    private static func check(_ ok: Bool, call: String, _ detail: @autoclosure () -> String) throws(SigningError) {
        guard ok else { throw SigningError(call: call, message: detail()) }
    }
}
