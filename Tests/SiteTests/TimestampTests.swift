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
}

extension Result where Failure == TimestampError {
    var failureMessage: String? { if case .failure(let e) = self { return e.message } else { return nil } }
}
