import Synchronization
import Foundation

/// An instant written in the story's front matter, ISO 8601 with an explicit offset (`Z` or `+hh:mm`).
/// Keeps the offset it was written with, for outputs that show it (JSON-LD, feeds).
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z (fractions kept).
    public var secondsSinceEpoch: Double
    /// The offset the editor wrote, in seconds east of UTC.
    public var offsetSeconds: Int

    public init(secondsSinceEpoch: Double, offsetSeconds: Int = 0) {
        self.secondsSinceEpoch = secondsSinceEpoch
        self.offsetSeconds = offsetSeconds
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.secondsSinceEpoch < b.secondsSinceEpoch }
    public static func == (a: Timestamp, b: Timestamp) -> Bool {
        a.secondsSinceEpoch == b.secondsSinceEpoch && a.offsetSeconds == b.offsetSeconds
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(secondsSinceEpoch); hasher.combine(offsetSeconds) }

    public var date: Date { Date(timeIntervalSince1970: secondsSinceEpoch) }

    /// RFC 3339 in the original offset, whole seconds: `2026-11-29T15:40:00+01:00`, `2026-11-29T14:05:00Z`.
    public var description: String { rfc3339 }

    public var rfc3339: String {
        let local = Int((secondsSinceEpoch).rounded(.down)) + offsetSeconds
        let (y, m, d, hh, mm, ss) = Self.civil(local)
        // Built as bytes: dates are written tens of thousands of times per build (pages, cards, feeds, JSON-LD).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(25)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            if value < 0 || value >= divisor * 10 { bytes += Array(pad(value, width).utf8); return }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(y, 4); bytes.append(UInt8(ascii: "-")); digits(m, 2); bytes.append(UInt8(ascii: "-")); digits(d, 2)
        bytes.append(UInt8(ascii: "T")); digits(hh, 2); bytes.append(UInt8(ascii: ":")); digits(mm, 2)
        bytes.append(UInt8(ascii: ":")); digits(ss, 2)
        if offsetSeconds == 0 { bytes.append(UInt8(ascii: "Z")) } else {
            bytes.append(offsetSeconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let a = abs(offsetSeconds)
            digits(a / 3600, 2); bytes.append(UInt8(ascii: ":")); digits(a % 3600 / 60, 2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fraction]](Z|±HH:MM)`. Returns a reason on failure.
    public static func parse(_ text: String) -> Result<Timestamp, TimestampError> {
        let chars = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= chars.count else { return nil }
            var value = 0
            for k in 0..<digits {
                let c = chars[i + k]
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            i += digits
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < chars.count, chars[i] == c else { return false }
            i += 1
            return true
        }
        let shape = TimestampError("\"\(text)\" is not an ISO 8601 date-time with an offset, e.g. 2026-11-29T14:05:00Z or 2026-11-29T15:05:00+01:00")
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2) else { return .failure(shape) }
        guard i < chars.count else {
            return .failure(TimestampError("\"\(text)\" has no time; write e.g. \(text)T09:00:00Z (with an offset)"))
        }
        guard expect(84) || expect(116), let hour = number(2), expect(58), let minute = number(2) else { return .failure(shape) }
        var second = 0
        var fraction = 0.0
        if expect(58) {
            guard let s = number(2) else { return .failure(shape) }
            second = s
            if expect(46) {
                var scale = 0.1
                var any = false
                while i < chars.count, chars[i] >= 48, chars[i] <= 57 {
                    fraction += Double(chars[i] - 48) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                if !any { return .failure(shape) }
            }
        }
        var offset = 0
        if expect(90) || expect(122) {
            offset = 0
        } else if i < chars.count, chars[i] == 43 || chars[i] == 45 {
            let negative = chars[i] == 45
            i += 1
            guard let oh = number(2), expect(58), let om = number(2), oh <= 18, om < 60 else { return .failure(shape) }
            offset = (oh * 3600 + om * 60) * (negative ? -1 : 1)
        } else {
            return .failure(TimestampError("\"\(text)\" has no offset; add Z for UTC or +hh:mm, e.g. \(text)Z"))
        }
        guard i == chars.count else { return .failure(shape) }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            return .failure(TimestampError("\"\(text)\" is not a calendar date"))
        }
        guard hour < 24, minute < 60, second < 60 else {
            return .failure(TimestampError("\"\(text)\" has an invalid time of day"))
        }
        let days = daysFromCivil(year, month, day)
        let seconds = Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return .success(Timestamp(secondsSinceEpoch: seconds, offsetSeconds: offset))
    }

    /// The years a story's date may fall in, as written, in UTC and in the site's time zone. Four digits keep every
    /// RFC 3339 date newsgen writes valid; from 1900 on, the calendar the pages show dates in is the proleptic
    /// Gregorian one the URLs use (before October 1582 it is the Julian calendar, another day), and time zones
    /// have left the local mean times whose offsets are not whole minutes.
    public static let years = 1900...9999

    /// Why this instant cannot be a story's date on a site in `timeZone`, or nil when it can.
    func yearProblem(siteTimeZone identifier: String) -> String? {
        let seconds = Int(secondsSinceEpoch.rounded(.down))
        let written = Self.civil(seconds + offsetSeconds).0, utc = Self.civil(seconds).0
        let range = "dates must be in the years \(Self.years.lowerBound) to \(Self.years.upperBound)"
        if !Self.years.contains(written) { return "is in the year \(written); \(range)" }
        if !Self.years.contains(utc) { return "is in the year \(utc) in UTC; \(range)" }
        // A zone is never a day away from UTC: only the first and last year need it.
        guard utc == Self.years.lowerBound || utc == Self.years.upperBound else { return nil }
        let zone = TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0)!
        let local = Self.civil(seconds + zone.secondsFromGMT(for: date)).0
        if !Self.years.contains(local) { return "is in the year \(local) in the site's time zone (\(identifier)); \(range)" }
        return nil
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// (year, month, day, hour, minute, second) of a count of seconds since the epoch (already shifted to local time).
    package static func civil(_ seconds: Int) -> (Int, Int, Int, Int, Int, Int) {
        var days = seconds / 86400
        var rest = seconds % 86400
        if rest < 0 { rest += 86400; days -= 1 }
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (y, m, d, rest / 3600, rest % 3600 / 60, rest % 60)
    }
}

public struct TimestampError: Error, Sendable, Hashable {
    public var message: String
    package init(_ message: String) { self.message = message }
}

package func pad(_ value: Int, _ width: Int = 2) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

/// Turns instants into what readers see: dates in the page's language and the site's time zone.
/// Formatting styles are built once per language and shared across threads (they are value types).
public struct ReaderClock: Sendable {
    public let timeZone: TimeZone
    private let offsets = ZoneOffsets()
    private let styles: [String: Date.FormatStyle]
    private let dayStyles: [String: Date.FormatStyle]

    public init(timeZone identifier: String, languages: [Language]) {
        let zone = TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0)!
        timeZone = zone
        var styles: [String: Date.FormatStyle] = [:]
        var dayStyles: [String: Date.FormatStyle] = [:]
        for language in languages {
            var style = Date.FormatStyle(date: .long, time: .shortened)
            style.locale = Locale(identifier: language.code)
            style.timeZone = zone
            styles[language.code] = style
            var day = Date.FormatStyle(date: .long, time: .omitted)
            day.locale = Locale(identifier: language.code)
            day.timeZone = zone
            dayStyles[language.code] = day
        }
        self.styles = styles
        self.dayStyles = dayStyles
    }

    static func isKnownTimeZone(_ identifier: String) -> Bool { TimeZone(identifier: identifier) != nil }

    /// "29 novembre 2026 à 15:05" for fr in Europe/Paris.
    public func dateTime(_ timestamp: Timestamp, in language: Language) -> String {
        guard let style = styles[language.code] else { return timestamp.rfc3339 }
        return timestamp.date.formatted(style)
    }

    public func day(_ timestamp: Timestamp, in language: Language) -> String {
        guard let style = dayStyles[language.code] else { return timestamp.rfc3339 }
        return timestamp.date.formatted(style)
    }

    /// The local calendar date of an instant in the site's time zone: used in story URLs.
    public func localDate(_ timestamp: Timestamp) -> (year: Int, month: Int, day: Int) {
        let offset = offsetFromGMT(timestamp)
        let (y, m, d, _, _, _) = Timestamp.civil(Int(timestamp.secondsSinceEpoch.rounded(.down)) + offset)
        return (y, m, d)
    }

    /// The instant in the site's time zone as RFC 3339 (`2026-11-29T15:05:00+01:00`), for `<time datetime>`. An
    /// offset that is not a whole number of minutes (a local mean time) cannot be written in RFC 3339: then UTC.
    public func machineReadable(_ timestamp: Timestamp) -> String {
        let offset = offsetFromGMT(timestamp)
        return Timestamp(secondsSinceEpoch: timestamp.secondsSinceEpoch, offsetSeconds: offset % 60 == 0 ? offset : 0).rfc3339
    }

    /// The zone's offset from UTC at an instant: `TimeZone.secondsFromGMT`, which asks ICU (7,000 instructions a
    /// call, and a build asks for every story several times), remembered per quarter of an hour. No time zone
    /// changes its offset twice within 15 minutes, so when the offset is the same at both ends of a quarter it is
    /// the offset throughout; a quarter with a change in it is never remembered.
    ///
    /// Before that, most instants fall in a stretch of about 24 days (2^21 seconds) in which the zone does not change
    /// its offset at all: ICU says so (the same offset at both ends and no transition in between, which ICU reports
    /// for any change, daylight saving or not), and then the whole stretch has one answer. A site's stories are
    /// minutes apart, so this asks ICU a few times a month instead of twice a story.
    func offsetFromGMT(_ timestamp: Timestamp) -> Int {
        let seconds = timestamp.secondsSinceEpoch.rounded(.down)
        guard seconds.magnitude < 1e15 else { return timeZone.secondsFromGMT(for: timestamp.date) }
        let stretch = Int(seconds) >> 21   // floor division by 2^21, for negative instants too
        switch offsets.stretches.withLock({ $0[stretch] }) {
        case .some(.some(let offset)): return offset
        case .some(.none): break   // the offset changes within this stretch: by quarter hour below
        case .none:
            let constant = constantOffset(from: stretch << 21, through: (stretch << 21) + (1 << 21) - 1)
            offsets.stretches.withLock { $0[stretch] = .some(constant) }
            if let constant { return constant }
        }
        let quarter = Int(seconds) >= 0 ? Int(seconds) / 900 : (Int(seconds) - 899) / 900
        if let offset = offsets.known.withLock({ $0[quarter] }) { return offset }
        let start = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(quarter * 900)))
        let end = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(quarter * 900 + 899)))
        guard start == end else { return timeZone.secondsFromGMT(for: timestamp.date) }
        offsets.known.withLock { $0[quarter] = start }
        return start
    }

    /// The zone's offset throughout `first...last` (seconds since 1970) when it does not change in between, else nil.
    func constantOffset(from first: Int, through last: Int) -> Int? {
        let start = Date(timeIntervalSince1970: Double(first))
        let offset = timeZone.secondsFromGMT(for: start)
        guard timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(last))) == offset else { return nil }
        if let change = timeZone.nextDaylightSavingTimeTransition(after: start), change.timeIntervalSince1970 <= Double(last) {
            return nil
        }
        return offset
    }
}

/// `ReaderClock`'s remembered offsets: by stretch of 2^21 seconds since 1970 (nil for a stretch in which the offset
/// changes), and by quarter of an hour in those stretches.
package final class ZoneOffsets: Sendable {
    let stretches = Mutex<[Int: Int?]>([:])
    package let known = Mutex<[Int: Int]>([:])
}
