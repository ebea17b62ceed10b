import HTTP
import Synchronization
import Testing
@testable import Hub

/// Reading the hub's XML answers: a test send's outcome per registration.
@Suite struct HubAnswerTests {
    @Test func testSendOutcomeListsEachRegistrationWithoutItsDeviceHandle() throws {
        let xml = """
        <NotificationOutcome xmlns="http://schemas.microsoft.com/netservices/2010/10/servicebus/connect" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">\
        <Success>1</Success><Failure>1</Failure><Results>\
        <RegistrationResult><ApplicationPlatform>apple</ApplicationPlatform><PnsHandle>secret-token</PnsHandle>\
        <RegistrationId>editor-iphone/localizednewsTemplate</RegistrationId>\
        <Outcome>The Notification was successfully sent to the Push Notification System</Outcome></RegistrationResult>\
        <RegistrationResult><ApplicationPlatform>gcm</ApplicationPlatform><PnsHandle>x</PnsHandle>\
        <RegistrationId>42</RegistrationId><Outcome>The Push Notification System handle for the registration is invalid &amp; &#233;&#x263A;</Outcome></RegistrationResult>\
        </Results></NotificationOutcome>
        """
        let outcome = try #require(TestSendOutcome(xml: xml))
        #expect(outcome.success == 1)
        #expect(outcome.failure == 1)
        #expect(outcome.registrations.map(\.platform) == ["apple", "gcm"])
        #expect(outcome.registrations[0].registrationId == "editor-iphone/localizednewsTemplate")
        #expect(outcome.registrations[1].outcome == "The Push Notification System handle for the registration is invalid & é☺")
        #expect(!"\(outcome)".contains("secret-token"))
    }

    @Test func noTargetsAndNotAnOutcome() {
        let none = TestSendOutcome(xml: #"<NotificationOutcome xmlns="x" xmlns:i="y"><Success>0</Success><Failure>0</Failure><Results i:nil="true"/></NotificationOutcome>"#)
        #expect(none?.registrations == [])
        #expect(none?.success == 0)
        #expect(TestSendOutcome(xml: "") == nil)
        #expect(TestSendOutcome(xml: "<Error><Code>400</Code></Error>") == nil)
    }
}

/// Reading telemetry and deciding when to ask again: pure functions, and the reader over a scripted transport.
@Suite struct TelemetryTests {
    static let details = """
    <NotificationDetails xmlns="http://schemas.microsoft.com/netservices/2010/10/servicebus/connect" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
      <NotificationId>abc-1</NotificationId>
      <Location>sb://ns/hub/messages/abc-1?api-version=2020-06</Location>
      <State>Completed</State>
      <EnqueueTime>2026-11-29T15:00:00Z</EnqueueTime>
      <StartTime>2026-11-29T15:00:01Z</StartTime>
      <EndTime>2026-11-29T15:00:02Z</EndTime>
      <NotificationBody>{&quot;News_English&quot;:&quot;Quake&quot;}</NotificationBody>
      <TargetPlatforms>apple,fcmv1</TargetPlatforms>
      <ApnsOutcomeCounts><Outcome><Name>Success</Name><Count>3</Count></Outcome><Outcome><Name>WrongToken</Name><Count>1</Count></Outcome></ApnsOutcomeCounts>
      <FcmV1OutcomeCounts><Outcome><Name>Success</Name><Count>2</Count></Outcome></FcmV1OutcomeCounts>
      <PnsErrorDetailsUri>https://blob/x</PnsErrorDetailsUri>
    </NotificationDetails>
    """

    @Test func readsTheStateAndEachPlatformsOutcomeCounts() throws {
        let telemetry = try #require(MessageTelemetry(xml: Self.details))
        #expect(telemetry.state == "Completed")
        #expect(telemetry.isFinal)
        #expect(telemetry.enqueueTime == "2026-11-29T15:00:00Z")
        #expect(telemetry.platforms.map(\.platform) == ["apns", "fcmv1"])
        #expect(telemetry.platforms[0].counts == [.init(outcome: "Success", count: 3), .init(outcome: "WrongToken", count: 1)])
        let answer = TelemetryAnswer.interpret(status: 200, body: Array(Self.details.utf8), trackingID: nil)
        #expect(answer.note == "Completed; apns: 3 Success, 1 WrongToken; fcmv1: 2 Success")
        #expect(MessageTelemetry(xml: "<NotificationDetails><State>Enqueued</State></NotificationDetails>")?.isFinal == false)
    }

    @Test func theHubsNotesWhenThereIsNoTelemetry() {
        #expect(TelemetryAnswer.interpret(status: 403, body: [], trackingID: nil) == .notAvailable)
        #expect(TelemetryAnswer.notAvailable.note.contains("Standard tier"))
        #expect(TelemetryAnswer.interpret(status: 404, body: [], trackingID: nil) == .notFound)
        #expect(TelemetryAnswer.notFound.note.contains("HTTP 404"))
        #expect(TelemetryAnswer.interpret(status: 401, body: [], trackingID: "t-1") == .failed("HTTP 401 (tracking id t-1): the hub refused the key (wrong key or key name)"))
        #expect(TelemetryAnswer.interpret(status: 200, body: Array("<x/>".utf8), trackingID: nil) == .failed("HTTP 200 without a NotificationDetails document"))
    }

    @Test func pollingAsksSoonThenLessOftenAndStopsAtAnOutcomeOrTheWait() throws {
        let polling = TelemetryPolling(maximumWait: 30)
        #expect((1...6).map { polling.delay(after: .notFound, attempt: $0, elapsed: 0) } == [1, 2, 4, 8, 10, 10])
        #expect(polling.delay(after: .notFound, attempt: 5, elapsed: 20) == 10)
        #expect(polling.delay(after: .notFound, attempt: 5, elapsed: 20.5) == nil)   // would end after the wait
        let enqueued = try #require(MessageTelemetry(xml: "<NotificationDetails><State>Enqueued</State></NotificationDetails>"))
        #expect(polling.delay(after: .details(enqueued), attempt: 1, elapsed: 0) == 1)
        let counted = try #require(MessageTelemetry(xml: "<NotificationDetails><State>Processing</State><ApnsOutcomeCounts><Outcome><Name>Success</Name><Count>1</Count></Outcome></ApnsOutcomeCounts></NotificationDetails>"))
        #expect(polling.delay(after: .details(counted), attempt: 1, elapsed: 0) == nil)
        #expect(polling.delay(after: .details(try #require(MessageTelemetry(xml: Self.details))), attempt: 1, elapsed: 0) == nil)
        #expect(polling.delay(after: .notAvailable, attempt: 1, elapsed: 0) == nil)
        #expect(polling.delay(after: .failed("x"), attempt: 1, elapsed: 0) == nil)
    }

    @Test func theReaderSignsAGetAndWaitsUntilTheFirstOutcome() async throws {
        let transport = PublishCoreTests.ScriptedTransport([
            .success(HTTPResponse(status: 404)), .success(HTTPResponse(status: 404)),
            .success(HTTPResponse(status: 200, body: Array(Self.details.utf8))),
        ])
        let sleeps = PublishCoreTests.SleepLog()
        var reader = TelemetryReader(connection: HubConnection(baseURL: "https://ns.example/", hubName: "news", keyName: "Full", key: "k"),
                                     transport: transport)
        reader.clock = { 1_795_964_400 }
        reader.sleep = { seconds in sleeps.withLock { $0.append(seconds) } }
        let answer = await reader.wait("abc 1/2", polling: TelemetryPolling(maximumWait: 30))
        guard case .details(let details) = answer else { Issue.record("\(answer)"); return }
        #expect(details.state == "Completed")
        #expect(sleeps.withLock { $0 } == [1, 2])
        let requests = transport.seen.withLock { $0 }
        #expect(requests.count == 3)
        #expect(requests[0].method == "GET")
        #expect(requests[0].url == "https://ns.example/news/messages/abc%201%2F2?api-version=2020-06")
        #expect(requests[0].headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("SharedAccessSignature sr=") })
    }
}
