//! ISO weeks as the reports name them (`2026-W48`): reading one, the week before and
//! after, and the week a day falls in. The organisation's time zone cuts the weeks on the
//! server; the page only steps between the names, and starts from the browser's UTC day.

use std::fmt;

/// An ISO 8601 week: weeks start on Monday; week 1 holds the year's first Thursday.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IsoWeek {
    pub year: i32,
    pub week: u32,
}

impl IsoWeek {
    /// `2026-W48` (or `2026-w48`); none for anything else, or a week the year lacks.
    pub fn parse(s: &str) -> Option<IsoWeek> {
        let (year, week) = s.trim().split_once(['W', 'w'])?;
        let year: i32 = year.strip_suffix('-')?.parse().ok()?;
        if week.len() != 2 {
            return None;
        }
        let week: u32 = week.parse().ok()?;
        (1..=weeks_in(year)).contains(&week).then_some(IsoWeek { year, week })
    }

    /// The week holding the day `days` after 1970-01-01.
    pub fn of_day(days: i64) -> IsoWeek {
        // The week belongs to the year of its Thursday.
        let thursday = days - weekday(days) + 3;
        let year = civil_year(thursday);
        let week = (thursday - days_from_civil(year, 1, 1)) / 7 + 1;
        IsoWeek { year, week: week as u32 }
    }

    /// The week holding Unix second `t` (UTC).
    pub fn of_unix(t: i64) -> IsoWeek {
        IsoWeek::of_day(t.div_euclid(86_400))
    }

    pub fn previous(self) -> IsoWeek {
        if self.week > 1 {
            IsoWeek { week: self.week - 1, ..self }
        } else {
            IsoWeek { year: self.year - 1, week: weeks_in(self.year - 1) }
        }
    }

    pub fn next(self) -> IsoWeek {
        if self.week < weeks_in(self.year) {
            IsoWeek { week: self.week + 1, ..self }
        } else {
            IsoWeek { year: self.year + 1, week: 1 }
        }
    }

    /// The week's Monday, in days after 1970-01-01.
    pub fn monday(self) -> i64 {
        let jan4 = days_from_civil(self.year, 1, 4);
        jan4 - weekday(jan4) + 7 * (i64::from(self.week) - 1)
    }
}

impl fmt::Display for IsoWeek {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-W{:02}", self.year, self.week)
    }
}

/// 53 when the year starts on a Thursday, or is a leap year starting on a Wednesday.
pub fn weeks_in(year: i32) -> u32 {
    let jan1 = weekday(days_from_civil(year, 1, 1));
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if jan1 == 3 || (leap && jan1 == 2) { 53 } else { 52 }
}

/// 0 = Monday; 1970-01-01 was a Thursday.
fn weekday(days: i64) -> i64 {
    (days + 3).rem_euclid(7)
}

/// Days after 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub fn days_from_civil(year: i32, month: u32, day: u32) -> i64 {
    let y = i64::from(year) - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The calendar date of a day after 1970-01-01: (year, month, day).
pub fn civil_from_days(days: i64) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    ((yoe + era * 400 + i64::from(month <= 2)) as i32, month, day)
}

fn civil_year(days: i64) -> i32 {
    civil_from_days(days).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> i64 {
        days_from_civil(y, m, d)
    }

    #[test]
    fn dates_round_trip_through_days() {
        assert_eq!(day(1970, 1, 1), 0);
        assert_eq!(day(2000, 3, 1), 11_017);
        for d in [-800_000, -1, 0, 59, 11_016, 20_000, 21_000, 500_000] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(day(y, m, dd), d);
        }
    }

    #[test]
    fn weeks_of_known_days() {
        // Checked against a calendar: 2026-11-23 is the Monday of 2026-W48.
        assert_eq!(IsoWeek::of_day(day(2026, 11, 23)).to_string(), "2026-W48");
        assert_eq!(IsoWeek::of_day(day(2026, 11, 29)).to_string(), "2026-W48");
        assert_eq!(IsoWeek::of_day(day(2026, 11, 30)).to_string(), "2026-W49");
        // 2021-01-03 (a Sunday) still belongs to 2020's week 53; 2024-12-30 to 2025-W01.
        assert_eq!(IsoWeek::of_day(day(2021, 1, 3)).to_string(), "2020-W53");
        assert_eq!(IsoWeek::of_day(day(2024, 12, 30)).to_string(), "2025-W01");
        // Unix second 1,795,000,000 is Wednesday 2026-11-18.
        assert_eq!(IsoWeek::of_unix(1_795_000_000).to_string(), "2026-W47");
    }

    #[test]
    fn long_years_have_53_weeks() {
        let long: Vec<i32> = (2000..=2030).filter(|y| weeks_in(*y) == 53).collect();
        assert_eq!(long, [2004, 2009, 2015, 2020, 2026]);
    }

    #[test]
    fn stepping_crosses_years() {
        let w = |s| IsoWeek::parse(s).unwrap();
        assert_eq!(w("2026-W48").previous().to_string(), "2026-W47");
        assert_eq!(w("2026-W01").previous().to_string(), "2025-W52");
        assert_eq!(w("2021-W01").previous().to_string(), "2020-W53");
        assert_eq!(w("2026-W53").next().to_string(), "2027-W01");
        assert_eq!(w("2025-W52").next().to_string(), "2026-W01");
        assert_eq!(w("2026-W48").monday(), day(2026, 11, 23));
        assert_eq!(w("2021-W01").monday(), day(2021, 1, 4));
    }

    #[test]
    fn bad_names_are_refused() {
        for s in ["", "2026", "2026-W", "2026-W5", "2026-W00", "2025-W53", "2026W48", "x-W01", "2026-W123"] {
            assert_eq!(IsoWeek::parse(s), None, "{s}");
        }
        assert_eq!(IsoWeek::parse(" 2026-w09 "), Some(IsoWeek { year: 2026, week: 9 }));
    }
}
