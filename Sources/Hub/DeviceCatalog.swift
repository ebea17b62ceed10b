import Foundation
import Site

/// The device templates the apps register (`templates/devices/*.json`): what each kind of phone would show.
/// The file name without `.json` names the kind (`ios-french`, `simple`, `fcm-v1`).
public struct DeviceKind: Sendable {
    public var name: String
    public var path: String
    public var template: DeviceTemplate
}

/// What one kind of device would receive for one notification, and whether it fits the platforms' 4 KB.
public struct DevicePreview: Sendable {
    public static let payloadLimit = 4096
    public var device: String
    public var payload: String
    public var bytes: Int { payload.utf8.count }
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
                kinds.append(DeviceKind(name: String(name.dropLast(5)), path: path, template: try DeviceTemplate(json: text)))
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

    public static func previews(_ notification: Notification, kinds: [DeviceKind]) -> [DevicePreview] {
        kinds.map { DevicePreview(device: $0.name, payload: $0.template.render(notification.properties)) }
    }
}
