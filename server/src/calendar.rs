//! Civil dates (proleptic Gregorian, UTC) to and from Unix seconds, without a time-zone
//! database: archive years and monthly budgets are counted in UTC.

/// Days since 1970-01-01 of a date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day number (the inverse of [`days_from_civil`]).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `[start, end)` of a calendar year in Unix seconds.
pub fn year_bounds(year: i64) -> (i64, i64) {
    (days_from_civil(year, 1, 1) * 86_400, days_from_civil(year + 1, 1, 1) * 86_400)
}

/// The first second of the calendar month holding `t`.
pub fn month_start(t: i64) -> i64 {
    let (y, m, _) = civil_from_days(t.div_euclid(86_400));
    days_from_civil(y, m, 1) * 86_400
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_bounds() {
        for day in [-800_000, -1, 0, 1, 59, 10_957, 20_000, 2_000_000] {
            let (y, m, d) = civil_from_days(day);
            assert_eq!(days_from_civil(y, m, d), day);
        }
        assert_eq!(year_bounds(2026), (1_767_225_600, 1_798_761_600));
        // 2026-11-29 21:30 UTC is in the month that began 2026-11-01.
        assert_eq!(month_start(1_795_901_400), 1_793_491_200);
        assert_eq!(month_start(1_793_491_200), 1_793_491_200);
    }
}
