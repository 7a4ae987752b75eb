//! Civil dates to Unix seconds, without a time-zone database: traces are in one zone.

use crate::calendar::days_from_civil;

fn parse_date(s: &str) -> Option<i64> {
    let mut parts = s.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    let days_in_month = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month).contains(&d).then(|| days_from_civil(y, m, d) * 86_400)
}

fn parse_clock(s: &str) -> Option<i64> {
    let mut parts = s.splitn(3, ':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let sec: i64 = parts.next().unwrap_or("0").parse().ok()?;
    ((0..24).contains(&h) && (0..60).contains(&m) && (0..61).contains(&sec))
        .then_some(h * 3600 + m * 60 + sec)
}

/// `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, or seconds since the epoch.
pub fn parse_time(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Ok(secs) = s.parse::<f64>() {
        return (secs.is_finite() && secs.abs() < 1e15).then_some(secs.floor() as i64);
    }
    match s.split_once([' ', 'T']) {
        Some((date, clock)) => Some(parse_date(date)? + parse_clock(clock)?),
        None => parse_date(s),
    }
}

/// The end of a `--to` bound: a bare date includes that whole day.
pub fn parse_until(s: &str) -> Option<i64> {
    let t = parse_time(s)?;
    let bare_date = s.trim().len() == 10 && s.contains('-');
    Some(if bare_date { t + 86_400 } else { t })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_traces_use() {
        assert_eq!(parse_time("1970-01-01 00:00:00"), Some(0));
        assert_eq!(parse_time("2017-10-01 00:00:00"), Some(1_506_816_000));
        assert_eq!(parse_time("2017-10-09 07:01:55"), Some(1_507_532_515));
        assert_eq!(parse_time("2000-02-29"), Some(951_782_400));
        assert_eq!(parse_time("1234.9"), Some(1234));
        assert_eq!(parse_until("2017-11-30"), Some(1_512_086_400));
    }

    #[test]
    fn rejects_what_is_not_a_time() {
        for bad in
            ["", "yesterday", "2017-13-01", "2017-02-30", "2017-10-01 25:00:00", "2017-10-01 10:61", "NaN"]
        {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
