import Foundation
import Testing
import TestSupport

/// The hub double's own tests (Python unittest), run as part of `swift test` so CI exercises them.
@Suite struct HubDoubleSelfTests {
    @Test func pythonTestsOfTheHubDoublePass() throws {
        let result = try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-m", "unittest", "discover", "-s", "Tests/HubDouble"], in: Repository.root)
        #expect(result.status == 0, "\(result.standardError.suffix(3000))")
        #expect(result.standardError.contains("OK"))
    }
}
