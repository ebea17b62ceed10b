import Foundation
import Images
import Testing
import TestSupport

/// The libvips wrapper on its own: headers, upright variants, errors for what is not a photo.
@Suite struct ImagesTests {
    static let turned = Repository.root.appendingPathComponent("media/quake-coast.jpg").path

    @Test func theHeaderIsUprightAndNothingIsDecoded() throws {
        let header = try Images.header(of: Self.turned, displayPath: "media/quake-coast.jpg")
        #expect(header.width == 1440 && header.height == 960 && header.format == .jpeg)   // stored 960×1440, orientation 6
    }

    @Test func variantsAreMadeAtTheRequestedSizesAndNeverEnlarged() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = try Images.header(of: Self.turned, displayPath: "x.jpg")
        let requests = [
            VariantRequest(file: folder.appendingPathComponent("a.webp").path, width: 400, height: 0, crop: false, format: .webp, quality: 80),
            VariantRequest(file: folder.appendingPathComponent("b.jpg").path, width: 3000, height: 0, crop: false, format: .jpeg, quality: 80),
            VariantRequest(file: folder.appendingPathComponent("c.jpg").path, width: 900, height: 900, crop: true, format: .jpeg, quality: 80),
        ]
        let sizes = try Images.make(requests, from: Self.turned, displayPath: "x.jpg", header: header)
        #expect(sizes.map { "\($0.width)x\($0.height)" } == ["400x267", "1440x960", "900x900"])
        for request in requests { #expect(FileManager.default.fileExists(atPath: request.file)) }
    }

    @Test func whatIsNotAPhotoIsAnErrorNamingTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("a.jpg")
        try Data("hello".utf8).write(to: text)
        #expect(throws: ImageError.self) { try Images.header(of: text.path, displayPath: "media/a.jpg") }
        do {
            _ = try Images.header(of: text.path, displayPath: "media/a.jpg")
        } catch {
            #expect(error.path == "media/a.jpg")
            #expect(error.message.hasPrefix("not an image libvips can read"))
        }
        let truncated = folder.appendingPathComponent("t.jpg")
        try Data(contentsOf: URL(fileURLWithPath: Self.turned)).prefix(5000).write(to: truncated)
        let header = try Images.header(of: truncated.path, displayPath: "media/t.jpg")
        let request = VariantRequest(file: folder.appendingPathComponent("out.jpg").path, width: 400, height: 0, crop: false, format: .jpeg, quality: 80)
        #expect(throws: ImageError.self) { try Images.make([request], from: truncated.path, displayPath: "media/t.jpg", header: header) }
        let gif = folder.appendingPathComponent("g.gif")
        let made = try runProgram(URL(fileURLWithPath: "/usr/bin/vips"), ["black", gif.path, "4", "4"])
        #expect(made.status == 0, "\(made.standardError)")
        do {
            _ = try Images.header(of: gif.path, displayPath: "media/g.gif")
            Issue.record("a GIF is not published as a photo")
        } catch {
            #expect(error.message.contains("(GIF); use JPEG, PNG or WebP"), "\(error.message)")
        }
    }
}
