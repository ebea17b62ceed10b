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
