//! The organisation's clock (issue 12): weeks, days, months and "nights and weekends"
//! are cut in its time zone (an IANA name, daylight saving included, from the bundled
//! time-zone database), while every record stays in UTC seconds. Reports ask here for
//! the bounds of an ISO week and for the local hour and weekday of an instant.

use jiff::civil::{Date, ISOWeekDate, Weekday};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};

use crate::input::Invalid;

/// A time zone the organisation keeps.
#[derive(Clone, Debug)]
pub struct OrgZone {
    name: String,
    tz: TimeZone,
}

impl OrgZone {
    /// The zone called `name` (`Europe/Berlin`, `UTC`).
    pub fn named(name: &str) -> Result<OrgZone, Invalid> {
        let tz = TimeZone::get(name).map_err(|_| {
            Invalid(format!("`{name}` is not a time zone: give an IANA name such as Europe/Berlin"))
        })?;
        Ok(OrgZone { name: name.to_string(), tz })
    }

    pub fn utc() -> OrgZone {
        OrgZone { name: "UTC".into(), tz: TimeZone::UTC }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn zoned(&self, t: i64) -> ZonedDateTime {
        Timestamp::from_second(t).unwrap_or(Timestamp::UNIX_EPOCH).to_zoned_datetime(self.tz.clone())
    }

    /// The first second of local midnight starting `date`.
    fn midnight(&self, date: Date) -> i64 {
        date.to_zoned_datetime(self.tz.clone()).map(|z| z.timestamp().as_second()).unwrap_or_default()
    }

    /// The ISO week holding `t`, as `2026-W48`.
    pub fn week_of(&self, t: i64) -> String {
        let w = self.zoned(t).date().iso_week_date();
        format!("{:04}-W{:02}", w.year(), w.week())
    }

    /// `[start, end)` of ISO week `week` (`2026-W48`): local Monday midnight to the next;
    /// 167 or 169 hours long across a daylight-saving change.
    pub fn week_bounds(&self, week: &str) -> Result<(i64, i64), Invalid> {
        let bad = || Invalid(format!("week must look like 2026-W48, not `{week}`"));
        let (year, number) = week.split_once("-W").ok_or_else(bad)?;
        let year: i16 = year.parse().map_err(|_| bad())?;
        let number: i8 = number.parse().map_err(|_| bad())?;
        let monday = ISOWeekDate::new(year, number, Weekday::Monday).map_err(|_| bad())?.date();
        let next = monday.checked_add(jiff::Span::new().days(7)).map_err(|_| bad())?;
        Ok((self.midnight(monday), self.midnight(next)))
    }

    /// The ISO week before `week`.
    pub fn previous_week(&self, week: &str) -> Result<String, Invalid> {
        let (start, _) = self.week_bounds(week)?;
        Ok(self.week_of(start - 1))
    }

    /// The local date of `t`, `2026-11-23`.
    pub fn date_of(&self, t: i64) -> String {
        self.zoned(t).date().to_string()
    }

    /// `[start, end)` of the local day holding `t`.
    pub fn day_bounds(&self, t: i64) -> (i64, i64) {
        let date = self.zoned(t).date();
        let next = date.tomorrow().unwrap_or(date);
        (self.midnight(date), self.midnight(next))
    }

    /// `[start, end)` of the local calendar month holding `t`, and its name `2026-11`.
    pub fn month_of(&self, t: i64) -> (i64, i64, String) {
        let date = self.zoned(t).date();
        let first = date.first_of_month();
        let next = first.checked_add(jiff::Span::new().months(1)).unwrap_or(first);
        (self.midnight(first), self.midnight(next), format!("{:04}-{:02}", first.year(), first.month()))
    }

    /// The local weekday (0 = Monday) and hour (0-23) of `t`: the heatmap's cell.
    pub fn weekday_hour(&self, t: i64) -> (u8, u8) {
        let z = self.zoned(t);
        (z.weekday().to_monday_zero_offset() as u8, z.hour() as u8)
    }

    /// `2026-11-24 14:00`, local.
    pub fn local_hour(&self, t: i64) -> String {
        self.zoned(t).strftime("%Y-%m-%d %H:00").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_are_iso_weeks_of_the_local_calendar() {
        let utc = OrgZone::utc();
        // 2026-11-23 is a Monday.
        let (start, end) = utc.week_bounds("2026-W48").unwrap();
        assert_eq!((utc.date_of(start), end - start), ("2026-11-23".to_string(), 7 * 86_400));
        assert_eq!(utc.week_of(start), "2026-W48");
        assert_eq!(utc.week_of(end - 1), "2026-W48");
        assert_eq!(utc.previous_week("2026-W01").unwrap(), "2025-W52");
        assert!(utc.week_bounds("2026-48").is_err() && utc.week_bounds("2026-W54").is_err());
    }

    #[test]
    fn a_week_across_the_clock_change_has_one_hour_more() {
        let berlin = OrgZone::named("Europe/Berlin").unwrap();
        // Summer time ends on Sunday 2026-10-25: that week is 169 hours long.
        let (start, end) = berlin.week_bounds("2026-W43").unwrap();
        assert_eq!(end - start, 169 * 3600);
        // Its Monday starts at 22:00 UTC the day before (UTC+2).
        assert_eq!(OrgZone::utc().local_hour(start), "2026-10-18 22:00");
        assert_eq!(berlin.weekday_hour(start), (0, 0));
    }

    #[test]
    fn unknown_zones_are_refused_with_an_example() {
        let e = OrgZone::named("Mars/Olympus").unwrap_err();
        assert!(e.0.contains("Europe/Berlin"), "{e}");
    }

    #[test]
    fn months_are_local_months() {
        let tokyo = OrgZone::named("Asia/Tokyo").unwrap();
        // 2026-11-30 20:00 UTC is already December 1st in Tokyo.
        let t = Date::new(2026, 11, 30)
            .unwrap()
            .to_zoned_datetime(TimeZone::UTC)
            .unwrap()
            .timestamp()
            .as_second()
            + 20 * 3600;
        let (start, _, name) = tokyo.month_of(t);
        assert_eq!(name, "2026-12");
        assert_eq!(tokyo.date_of(start), "2026-12-01");
    }
}
