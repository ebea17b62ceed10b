import Foundation
import News
import Site

/// The device templates the apps register (`templates/devices/*.json`): what each kind of phone would show.
/// The file name without `.json` names the kind (`ios-french`, `simple`, `fcm-v1`).
///
/// A file is either the template body itself (`{"aps":{"alert":"$(News_French)"}}`) or an installation template
/// exactly as an app registers it, with headers: `{"body": "<the body as a JSON string>", "headers": {"apns-
/// collapse-id": "$(collapseId)"}}`. Header values use the same template language as the body.
public struct DeviceKind: Sendable {
    public var name: String
    public var path: String
    public var template: DeviceTemplate
    /// Sorted by name.
    public var headers: [(name: String, value: DeviceTemplate.Text)] = []
}

/// One rendered header of a device template.
public struct DeviceHeader: Sendable, Hashable {
    public var name: String
    public var value: String
}

/// What one kind of device would receive for one notification, and whether it fits the platforms' 4 KB.
public struct DevicePreview: Sendable {
    public static let payloadLimit = 4096
    public var device: String
    public var payload: String
    public var headers: [DeviceHeader] = []
    /// The payload and the template's headers (`name: value` each): the platforms' 4 KB is counted with room
    /// for what the device template adds on the way.
    public var bytes: Int { headers.reduce(payload.utf8.count) { $0 + $1.name.utf8.count + 2 + $1.value.utf8.count } }
    public var isOverLimit: Bool { bytes > Self.payloadLimit }
}

public enum DeviceCatalog {
    /// The site's device templates: `templates/devices/` in its theme.
    public static func load(_ edition: Edition) -> (kinds: [DeviceKind], problems: [Diagnostic]) {
        load(directory: edition.theme.directory + "/devices", displayPath: Edition.templatesFolder + "/devices")
    }

    /// Loads every `*.json` in `directory` (sorted by name). A missing folder is an empty catalog.
    /// Every invalid template is reported, with its file and, when known, the line and column.
    public static func load(directory: String, displayPath: String) -> (kinds: [DeviceKind], problems: [Diagnostic]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return ([], []) }
        var kinds: [DeviceKind] = []
        var problems: [Diagnostic] = []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = displayPath + "/" + name
            let text: String
            do {
                guard let utf8 = String(validating: try FileSystem.readInput(directory + "/" + name), as: UTF8.self) else {
                    problems.append(Diagnostic(path: path, message: "cannot read the device template (it must be UTF-8 JSON)"))
                    continue
                }
                text = utf8
            } catch {
                problems.append(Diagnostic(path: path, message: "cannot read the device template: \(error.reason)"))
                continue
            }
            do {
                kinds.append(try kind(String(name.dropLast(5)), path: path, text: text))
            } catch {
                if let line = error.line, let column = error.column {
                    problems.append(Diagnostic(path: path, line: line, column: column, message: error.description))
                } else {
                    problems.append(Diagnostic(path: path, message: error.description))
                }
            }
        }
        return (kinds, problems)
    }

    static let installationTemplateKeys = ["body", "headers"]

    static func kind(_ name: String, path: String, text: String) throws(DeviceTemplateError) -> DeviceKind {
        guard let installation = installationTemplate(text) else {
            return DeviceKind(name: name, path: path, template: try DeviceTemplate(json: text))
        }
        for key in installation.keys.sorted() where !installationTemplateKeys.contains(key) {
            var message = "unknown key \"\(key)\" in an installation template (known: body, headers"
            if let close = Suggestion.closest(to: key, in: installationTemplateKeys) { message += "; did you mean \"\(close)\"?" }
            throw DeviceTemplateError(message: message + ")")
        }
        let body = installation["body"] as? String ?? ""
        var kind: DeviceKind
        do {
            kind = DeviceKind(name: name, path: path, template: try DeviceTemplate(json: body))
        } catch {
            throw DeviceTemplateError(message: error.message, path: "body" + (error.path.map { ": " + $0 } ?? ""))
        }
        guard let headers = installation["headers"] else { return kind }
        guard let map = headers as? [String: Any] else {
            throw DeviceTemplateError(message: "headers must be an object of header name to text", path: "headers")
        }
        for (header, value) in map.sorted(by: { $0.key < $1.key }) {
            guard !header.isEmpty, header.utf8.allSatisfy({ isTokenByte($0) }) else {
                throw DeviceTemplateError(message: "\"\(header)\" is not an HTTP header name (letters, digits and - only)", path: "headers")
            }
            guard let text = value as? String else {
                throw DeviceTemplateError(message: "the value must be text (a JSON string)", path: "headers." + header)
            }
            kind.headers.append((header, try DeviceTemplate.Text(text, path: "headers." + header)))
        }
        return kind
    }

    /// The file as an installation template: a JSON object whose `body` is a string holding a JSON object.
    /// Anything else is a bare template body.
    static func installationTemplate(_ text: String) -> [String: Any]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let body = object["body"] as? String,
              (try? JSONSerialization.jsonObject(with: Data(body.utf8))) is [String: Any] else { return nil }
        return object
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
    }

    public static func previews(_ notification: Notification, kinds: [DeviceKind]) -> [DevicePreview] {
        kinds.map { kind in
            DevicePreview(device: kind.name, payload: kind.template.render(notification.properties),
                          headers: kind.headers.map { DeviceHeader(name: $0.name, value: $0.value.render(notification.properties)) })
        }
    }
}
