import Foundation
import Testing
@testable import Hub
@testable import News
@testable import Site
import TestSupport

/// Expiry, replacement and priority properties, and device templates with headers; no network.
@Suite struct AlertLifeCoreTests {
    static let now = PublishCoreTests.now  // 2026-11-29T15:00:00Z

    static func story(_ extra: String = "") -> String {
        "---\nid: quake\ncategory: World\npublished: 2026-11-29T14:00:00Z\nbreaking: true\ntitle: Quake\n\(extra)---\nBody.\n"
    }

    func properties(_ story: String, config: String = PublishCoreTests.config) throws -> [String: String] {
        let (edition, site) = try PublishCoreTests.edition(["content/a.md": story], config: config)
        _ = site
        let entries = NotificationPlanner(edition: edition, now: Self.now, sent: [:]).plan()
        guard case .send(let notification)? = entries.first else { Issue.record("not planned: \(entries)"); return [:] }
        return notification.properties
    }

    @Test func everySendCarriesItsCollapseIdExpiryAndPriorityInThePlatformsForms() throws {
        let first = try properties(Self.story())
        #expect(first["collapseId"] == "quake")
        #expect(first["expiresAt"] == "2026-11-29T18:00:00Z")   // push.expires defaults to 3 h from the send
        #expect(first["apnsExpiration"] == "1795975200")
        #expect(first["ttl"] == "10800s")
        #expect(first["priority"] == "high")
        #expect(first["apnsPriority"] == "10")
        #expect(first["fcmPriority"] == "HIGH")
        // An update is a new notification (its own notificationId) that replaces the earlier alert (same collapseId).
        let update = try properties(Self.story("push: { revision: 2 }\n"))
        #expect(update["collapseId"] == first["collapseId"])
        #expect(update["notificationId"] == "quake:2")
        // The story's own expiry wins over newsgen.yml's; normal priority lets the phone sleep.
        let config = PublishCoreTests.config + "\n  expires: 1h\n  priority: normal\n"
        #expect(try properties(Self.story(), config: config)["ttl"] == "3600s")
        let short = try properties(Self.story("push: { expires: 20m }\n"), config: config)
        #expect(short["ttl"] == "1200s")
        #expect(short["apnsExpiration"] == "1795965600")
        #expect(short["apnsPriority"] == "5")
        #expect(short["fcmPriority"] == "NORMAL")
    }

    static let installationTemplate = #"""
    {"body": "{\"aps\":{\"alert\":\"$(News_English)\"}}",
     "headers": {"apns-priority": "$(apnsPriority)", "apns-collapse-id": "$(collapseId)", "apns-push-type": "alert"}}
    """#

    @Test func aDeviceTemplateMayCarryHeadersRenderedWithTheTemplateLanguage() throws {
        let kind = try DeviceCatalog.kind("ios", path: "templates/devices/ios.json", text: Self.installationTemplate)
        #expect(kind.headers.map(\.name) == ["apns-collapse-id", "apns-priority", "apns-push-type"])
        let (edition, site) = try PublishCoreTests.edition(["content/a.md": Self.story()])
        _ = site
        guard case .send(let notification)? = NotificationPlanner(edition: edition, now: Self.now, sent: [:]).plan().first else {
            Issue.record("not planned"); return
        }
        let preview = try #require(DeviceCatalog.previews(notification, kinds: [kind]).first)
        #expect(preview.payload == #"{"aps":{"alert":"Quake"}}"#)
        #expect(preview.headers == [DeviceHeader(name: "apns-collapse-id", value: "quake"), DeviceHeader(name: "apns-priority", value: "10"),
                                    DeviceHeader(name: "apns-push-type", value: "alert")])
        // The budget counts the headers too: "name: value" each.
        #expect(preview.bytes == preview.payload.utf8.count + "apns-collapse-id: quake".utf8.count
                + "apns-priority: 10".utf8.count + "apns-push-type: alert".utf8.count)
        // A bare body is still a template of its own, without headers.
        let bare = try DeviceCatalog.kind("simple", path: "s", text: #"{"aps":{"alert":"$(messageParam)"}}"#)
        #expect(bare.headers.isEmpty)
        // A top-level "body" that is not JSON text is part of a bare template.
        #expect(try DeviceCatalog.kind("b", path: "b", text: #"{"body":"$(messageParam)"}"#).headers.isEmpty)
    }

    @Test func thePayloadLimitIsReachedExactlyWithHeaders() {
        let payload = String(repeating: "x", count: 4096 - "apns-id: 12".utf8.count)
        let exact = DevicePreview(device: "d", payload: payload, headers: [DeviceHeader(name: "apns-id", value: "12")])
        #expect(exact.bytes == 4096)
        #expect(!exact.isOverLimit)
        let over = DevicePreview(device: "d", payload: payload, headers: [DeviceHeader(name: "apns-id", value: "123")])
        #expect(over.isOverLimit)
        #expect(!DevicePreview(device: "d", payload: payload + "x").isOverLimit)
    }

    @Test(arguments: [
        (#"{"body": "{}", "header": {}}"#, #"unknown key "header" in an installation template (known: body, headers; did you mean "headers"?)"#),
        (#"{"body": "{}", "headers": {"apns priority": "10"}}"#, #"headers: "apns priority" is not an HTTP header name (letters, digits and - only)"#),
        (#"{"body": "{}", "headers": {"apns-priority": 10}}"#, "headers.apns-priority: the value must be text (a JSON string)"),
        (#"{"body": "{}", "headers": {"apns-id": "$(a) b"}}"#, "headers.apns-id: invalid expression"),
        (##"{"body": "{\"a\":\"#(x\"}"}"##, "body: a: invalid expression"),
    ])
    func badInstallationTemplatesAreExplained(_ text: String, _ message: String) {
        do {
            _ = try DeviceCatalog.kind("k", path: "p", text: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }
}
