import Foundation
import Testing
@testable import Hub

/// Device templates are input files like the theme's: regular and at most 16 MiB, else an error naming the file.
@Suite struct DeviceCatalogTests {
    @Test func aDeviceTemplateThatIsNotARegularFileIsReportedNotRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("newsgen-devices-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"aps": {"alert": "$(title)"}}"#.write(toFile: folder + "/ios.json", atomically: true, encoding: .utf8)
        // Neither a FIFO nor /dev/zero here: read in this process, they would hang it or fill the memory when the
        // rule is broken (InputFileTests runs those against the binary, with a timeout).
        try FileManager.default.createSymbolicLink(atPath: folder + "/null.json", withDestinationPath: "/dev/null")
        try FileManager.default.createDirectory(atPath: folder + "/folder.json", withIntermediateDirectories: false)
        let catalog = DeviceCatalog.load(directory: folder, displayPath: "templates/devices")
        #expect(catalog.kinds.map(\.name) == ["ios"])
        #expect(catalog.problems.map(\.description) == [
            "templates/devices/folder.json: error: cannot read the device template: not a regular file but a folder; newsgen reads only regular files",
            "templates/devices/null.json: error: cannot read the device template: not a regular file but a character device; newsgen reads only regular files",
        ])
    }
}
