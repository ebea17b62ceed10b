import Testing
@testable import News
import NewsFixtures

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

    /// The remembered offsets are the zone's own, at every minute around daylight-saving changes (whole hour,
    /// half hour, and a zone whose offset is not a whole hour), asked in any order.
    @Test func rememberedZoneOffsetsAreTheZonesOwn() throws {
        for (zone, around) in [("Europe/Paris", "2026-03-29T01:00:00Z"), ("Europe/Paris", "2026-10-25T01:00:00Z"),
                               ("America/New_York", "2026-11-01T06:00:00Z"), ("Australia/Lord_Howe", "2026-04-04T15:00:00Z"),
                               ("Asia/Kathmandu", "2026-06-01T00:00:00Z"), ("Africa/Monrovia", "1972-01-07T00:44:30Z"),
                               ("UTC", "2026-11-29T00:00:00Z")] {
            let clock = ReaderClock(timeZone: zone, languages: [])
            let center = try #require(parse(around)).secondsSinceEpoch
            var instants = stride(from: center - 7_200, through: center + 7_200, by: 60).map { $0 }
            instants += instants.map { $0 + 59 }
            instants.shuffle()
            for seconds in instants {
                let instant = Timestamp(secondsSinceEpoch: seconds)
                #expect(clock.offsetFromGMT(instant) == clock.timeZone.secondsFromGMT(for: instant.date), "\(zone) \(seconds)")
            }
        }
    }

    /// The same over years, every 97 minutes, in zones with daylight saving, with changes of standard offset
    /// (Pyongyang 2015 and 2018, Samoa skipping 30 December 2011, Volgograd's back and forth) and without any change.
    @Test func rememberedZoneOffsetsAreTheZonesOwnOverYears() throws {
        for (zone, from, to) in [("Europe/Paris", "2024-01-01T00:00:00Z", "2027-01-01T00:00:00Z"),
                                 ("Asia/Pyongyang", "2015-01-01T00:00:00Z", "2019-01-01T00:00:00Z"),
                                 ("Pacific/Apia", "2011-06-01T00:00:00Z", "2012-06-01T00:00:00Z"),
                                 ("Europe/Volgograd", "2018-01-01T00:00:00Z", "2021-06-01T00:00:00Z"),
                                 ("Australia/Lord_Howe", "2025-01-01T00:00:00Z", "2026-06-01T00:00:00Z"),
                                 ("UTC", "1969-06-01T00:00:00Z", "1971-06-01T00:00:00Z")] {
            let clock = ReaderClock(timeZone: zone, languages: [])
            let start = try #require(parse(from)).secondsSinceEpoch
            let end = try #require(parse(to)).secondsSinceEpoch
            var instants = Array(stride(from: start, through: end, by: 97 * 60))
            instants.shuffle()
            for seconds in instants {
                let instant = Timestamp(secondsSinceEpoch: seconds)
                #expect(clock.offsetFromGMT(instant) == clock.timeZone.secondsFromGMT(for: instant.date), "\(zone) \(seconds)")
            }
        }
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

    /// A story's date must be in the years 1900 to 9999 as written, in UTC and in the site's time zone.
    @Test func storyDatesAreLimitedToTheYears1900To9999InEveryOffset() throws {
        func problem(_ text: String, _ zone: String) throws -> String? {
            try #require(parse(text)).yearProblem(siteTimeZone: zone)
        }
        let range = "dates must be in the years 1900 to 9999"
        #expect(try problem("9999-12-31T23:59:59Z", "Asia/Tokyo") == "is in the year 10000 in the site's time zone (Asia/Tokyo); \(range)")
        #expect(try problem("9999-12-31T23:59:59Z", "UTC") == nil)
        #expect(try problem("9999-12-31T23:59:59Z", "America/New_York") == nil)
        #expect(try problem("9999-12-31T20:00:00-05:00", "America/New_York") == "is in the year 10000 in UTC; \(range)")
        #expect(try problem("0000-01-01T00:00:00Z", "UTC") == "is in the year 0; \(range)")
        #expect(try problem("1582-10-10T12:00:00Z", "Europe/Paris") == "is in the year 1582; \(range)")
        #expect(try problem("1900-01-01T00:30:00+01:00", "Europe/Paris") == "is in the year 1899 in UTC; \(range)")
        #expect(try problem("1900-01-01T02:00:00Z", "America/Los_Angeles") == "is in the year 1899 in the site's time zone (America/Los_Angeles); \(range)")
        #expect(try problem("1900-01-01T00:00:00Z", "Europe/London") == nil)
        #expect(try problem("2026-11-29T14:05:00Z", "Pacific/Kiritimati") == nil)
    }

    /// Every RFC 3339 date newsgen writes for a date it accepts is valid: four-digit years at both ends of the
    /// range, and UTC where the site's zone had an offset of seconds (local mean time, Paris until 1911).
    @Test func everyRFC3339DateWrittenIsValid() throws {
        let shape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/
        let languages = [Language(code: "en", name: "English")]
        for zone in ["Asia/Tokyo", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Europe/Paris", "Africa/Monrovia", "UTC"] {
            let clock = ReaderClock(timeZone: zone, languages: languages)
            for text in ["1900-01-01T12:00:00Z", "1905-06-01T12:00:00+00:09", "9999-12-31T00:00:00Z", "9999-12-30T23:59:59-12:00",
                         "1968-06-01T12:00:00Z"] {
                let timestamp = try #require(parse(text))
                guard timestamp.yearProblem(siteTimeZone: zone) == nil else { continue }
                #expect(timestamp.rfc3339.wholeMatch(of: shape) != nil, "\(text) as written")
                let local = clock.machineReadable(timestamp)
                #expect(local.wholeMatch(of: shape) != nil, "\(text) in \(zone): \(local)")
                // The same instant, to the second.
                #expect(try #require(parse(local)).secondsSinceEpoch == timestamp.secondsSinceEpoch.rounded(.down), "\(text) in \(zone): \(local)")
            }
        }
        #expect(ReaderClock(timeZone: "Europe/Paris", languages: languages).machineReadable(try #require(parse("1905-06-01T12:00:00Z")))
                == "1905-06-01T12:00:00Z")
    }
}

extension Result where Failure == TimestampError {
    var failureMessage: String? { if case .failure(let e) = self { return e.message } else { return nil } }
}
