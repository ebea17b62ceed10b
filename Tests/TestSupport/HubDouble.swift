import Foundation

/// The loopback Notification Hubs test double (Tests/HubDouble/hub_double.py) running for one test.
public final class HubDouble: @unchecked Sendable {
    // @unchecked: the process handle and port are set once in init and only read afterwards.
    public static let hubName = "newsgen-test"
    public static let sendKey = "c2VuZC1rZXktZm9yLXRlc3RzLW9ubHktMDEyMzQ1Njc4OQ=="
    public static let listenKey = "bGlzdGVuLWtleS1mb3ItdGVzdHMtb25seS0wMTIzNDU2Nzg5"

    public let port: Int
    private let process: Process
    private let configFile: URL

    /// Installations as the hub double's config takes them.
    public init(installations: [[String: Any]] = [], tier: String = "standard") throws {
        let config: [String: Any] = [
            "hub": Self.hubName, "tier": tier,
            "rules": [
                ["name": "DefaultFullSharedAccessSignature", "key": Self.sendKey, "rights": ["Listen", "Manage", "Send"]],
                ["name": "DefaultListenSharedAccessSignature", "key": Self.listenKey, "rights": ["Listen"]],
            ],
            "installations": installations,
        ]
        configFile = FileManager.default.temporaryDirectory.appendingPathComponent("hub-double-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: config).write(to: configFile)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.root.appendingPathComponent("Tests/HubDouble/hub_double.py").path,
                             "--config", configFile.path, "--port", "0"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(10) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("LISTENING "), let port = Int(text.dropFirst("LISTENING ".count)) else {
            process.terminate()
            throw NSError(domain: "HubDouble", code: 1, userInfo: [NSLocalizedDescriptionKey: "hub double did not start: \(text)"])
        }
        self.port = port
    }

    deinit {
        // SIGKILL: a child may inherit a signal mask that blocks SIGTERM, and a test must never hang on cleanup.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: configFile)
    }

    public var endpoint: String { "http://127.0.0.1:\(port)/" }

    public func connectionString(key: String = HubDouble.sendKey, keyName: String = "DefaultFullSharedAccessSignature") -> String {
        "Endpoint=sb://127.0.0.1:\(port)/;SharedAccessKeyName=\(keyName);SharedAccessKey=\(key)"
    }

    /// The environment newsgen publish needs to reach this hub.
    public func environment(key: String = HubDouble.sendKey, keyName: String = "DefaultFullSharedAccessSignature") -> [String: String] {
        ["NEWSGEN_HUB_CONNECTION_STRING": connectionString(key: key, keyName: keyName),
         "NEWSGEN_HUB_NAME": Self.hubName, "NEWSGEN_HUB_ENDPOINT": endpoint]
    }

    @discardableResult
    public func control(_ path: String, method: String = "GET", json: Any? = nil) throws -> Any {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let data = try LoopbackHTTP.request(port: port, method: method, path: "/_control/" + path, body: body)
        guard !data.isEmpty else { return [:] as [String: Any] }
        return try JSONSerialization.jsonObject(with: data)
    }

    public func requests() throws -> [[String: Any]] { try control("requests") as? [[String: Any]] ?? [] }
    public func deliveries() throws -> [[String: Any]] { try control("deliveries") as? [[String: Any]] ?? [] }
    /// Data-plane sends (POST …/messages) only.
    public func sends() throws -> [[String: Any]] {
        try requests().filter { ($0["method"] as? String) == "POST" && (($0["path"] as? String) ?? "").contains("/messages") }
    }
    public func inject(_ faults: [[String: Any]]) throws { try control("faults", method: "POST", json: faults) }
    /// Faults given as JSON text (test arguments must be Sendable).
    public func inject(json text: String) throws {
        try control("faults", method: "POST", json: try JSONSerialization.jsonObject(with: Data(text.utf8)))
    }
}
