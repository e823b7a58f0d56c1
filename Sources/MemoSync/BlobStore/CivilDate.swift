/// Dates from day numbers, for the few places that write a calendar date without Foundation's
/// calendars (which depend on the machine's settings): S3 request signatures, the `memo`
/// command's ISO 8601 times, the simulated sync client's conflicted-copy names.
package enum CivilDate {
    /// The proleptic Gregorian date of `days` days after 1970-01-01 (negative: before it), by
    /// Howard Hinnant's `civil_from_days`. Exact for every day a 64-bit count can name within
    /// ±10^15 years.
    package static func of(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
