import Foundation
import FuzzSupport
import Hub

/// libFuzzer's entry point: the input is a device template (JSON), then, after a NUL byte, the notification's
/// properties as `name=value` lines (the seed scenario's four when there are none). A template that parses must
/// render to JSON: what the hub would push to a phone.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceTemplate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let pieces = UnsafeBufferPointer(start: data, count: size).split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let json = String(decoding: pieces[0], as: UTF8.self)
    var properties = [
        "News_English": "Magnitude 7.1 earthquake \"strikes\" off the coast",
        "News_French": "Séisme de magnitude 7,1 : alerte levée",
        "News_Mandarin": "近海发生7.1级地震",
        "messageParam": "42",
    ]
    if pieces.count > 1 {
        properties = [:]
        for line in String(decoding: pieces[1], as: UTF8.self).split(separator: "\n") {
            let name = line.prefix { $0 != "=" }
            properties[String(name)] = String(line.dropFirst(name.count + 1))
        }
    }
    guard let template = try? DeviceTemplate(json: json) else { return 0 }
    let payload = template.render(properties)
    require((try? JSONSerialization.jsonObject(with: Data(payload.utf8), options: [.fragmentsAllowed])) != nil,
            "the template \(json) renders to a payload that is not JSON: \(payload)")
    return 0
}
