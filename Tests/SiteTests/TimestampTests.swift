import Testing
@testable import Site

@Suite struct TimestampTests {
    func parse(_ text: String) -> Timestamp? { try? Timestamp.parse(text).get() }

    @Test func parsesOffsetsAndKeepsThem() throws {
        let utc = try #require(parse("2026-11-29T14:05:00Z"))
        #expect(utc.secondsSinceEpoch == 1_795_961_100)
        #expect(utc.rfc3339 == "2026-11-29T14:05:00Z")
        let paris = try #require(parse("2026-11-29T15:05:00+01:00"))
        #expect(paris.secondsSinceEpoch == utc.secondsSinceEpoch)
        #expect(paris.rfc3339 == "2026-11-29T15:05:00+01:00")
        let west = try #require(parse("2026-11-29T09:05-05:00"))
        #expect(west.secondsSinceEpoch == utc.secondsSinceEpoch)
        #expect(parse("2026-11-29T14:05:00.250Z")?.secondsSinceEpoch == 1_795_961_100.25)
        #expect(parse("2024-02-29T00:00:00Z") != nil)
        #expect(west.rfc3339 == "2026-11-29T09:05:00-05:00")
        #expect(parse("0007-01-02T03:04:05+05:45")?.rfc3339 == "0007-01-02T03:04:05+05:45")
        #expect(parse("9999-12-31T23:59:59-12:00")?.rfc3339 == "9999-12-31T23:59:59-12:00")
    }

    @Test func refusesWhatIsNotAnInstant() {
        #expect(Timestamp.parse("2026-11-29").failureMessage == "\"2026-11-29\" has no time; write e.g. 2026-11-29T09:00:00Z (with an offset)")
        #expect(Timestamp.parse("2026-11-29T14:05:00").failureMessage == "\"2026-11-29T14:05:00\" has no offset; add Z for UTC or +hh:mm, e.g. 2026-11-29T14:05:00Z")
        #expect(Timestamp.parse("2026-02-30T10:00:00Z").failureMessage == "\"2026-02-30T10:00:00Z\" is not a calendar date")
        #expect(Timestamp.parse("2026-11-29T24:00:00Z").failureMessage == "\"2026-11-29T24:00:00Z\" has an invalid time of day")
        #expect(Timestamp.parse("29/11/2026").failureMessage?.contains("is not an ISO 8601 date-time") == true)
        #expect(Timestamp.parse("2026-11-29T14:05:00Zjunk").failureMessage?.contains("is not an ISO 8601") == true)
        #expect(Timestamp.parse("").failureMessage != nil)
    }

    @Test func readerClockUsesTheSiteTimeZoneAndThePageLanguage() throws {
        let languages = [Language(code: "en", name: "English"), Language(code: "fr", name: "French"), Language(code: "zh-Hans", name: "Mandarin")]
        let clock = ReaderClock(timeZone: "Asia/Shanghai", languages: languages)
        // 20:30 UTC on the 29th is already the 30th in Shanghai: the URL date follows the site's zone.
        let late = try #require(parse("2026-11-29T20:30:00Z"))
        #expect(clock.localDate(late) == (2026, 11, 30))
        #expect(clock.machineReadable(late) == "2026-11-30T04:30:00+08:00")
        let paris = ReaderClock(timeZone: "Europe/Paris", languages: languages)
        let noon = try #require(parse("2026-11-29T14:05:00Z"))
        #expect(paris.dateTime(noon, in: languages[1]) == "29 novembre 2026 à 15:05")
        #expect(paris.dateTime(noon, in: languages[0]).hasPrefix("November 29, 2026"))
        #expect(paris.day(noon, in: languages[2]) == "2026年11月29日")
    }
}

extension Result where Failure == TimestampError {
    var failureMessage: String? { if case .failure(let e) = self { return e.message } else { return nil } }
}
