//! Text for people: aligned tables, times in UTC with how long ago, durations; and the
//! inverse for flags (`90m`, `4h`).

use crate::calendar::civil_from_days;

/// Columns padded to their widest cell; the last column is left ragged (it holds the
/// long text: reasons, messages).
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let last = cells.len().saturating_sub(1);
        let mut out = String::new();
        for (i, cell) in cells.into_iter().enumerate() {
            if i == last {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        out.trim_end().to_string()
    };
    let mut out = vec![line(headers.to_vec())];
    out.extend(rows.iter().map(|r| line(r.iter().map(String::as_str).collect())));
    out.join("\n")
}

/// `2026-11-30 10:14:43 UTC`.
pub fn utc(t: i64) -> String {
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", secs / 3600, secs / 60 % 60, secs % 60)
}

/// `3m`, `2h 5m`, `4d 1h`: the two largest units.
pub fn span(s: i64) -> String {
    let s = s.max(0);
    let (d, h, m) = (s / 86_400, s / 3600 % 24, s / 60 % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, m) => format!("{m}m"),
        (0, h, 0) => format!("{h}h"),
        (0, h, m) => format!("{h}h {m}m"),
        (d, 0, _) => format!("{d}d"),
        (d, h, _) => format!("{d}d {h}h"),
    }
}

/// `5m ago`, `in 2h`, `now`.
pub fn relative(t: i64, now: i64) -> String {
    match t - now {
        -5..=5 => "now".into(),
        d if d > 0 => format!("in {}", span(d)),
        d => format!("{} ago", span(-d)),
    }
}

/// A time with how far it is from now.
pub fn when(t: i64, now: i64) -> String {
    format!("{} ({})", utc(t), relative(t, now))
}

/// Seconds from `3600`, `90m`, `4h`, `2d` or `1h30m`.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let bad = || format!("`{text}` is not a duration: seconds, or like 90m, 4h, 2d, 1h30m");
    let (mut total, mut number) = (0u64, String::new());
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(bad()),
        };
        let n: u64 = number.parse().map_err(|_| bad())?;
        total = n.checked_mul(unit).and_then(|v| total.checked_add(v)).ok_or_else(bad)?;
        number.clear();
    }
    if !number.is_empty() {
        total = number.parse::<u64>().ok().and_then(|n| total.checked_add(n)).ok_or_else(bad)?;
    }
    if total == 0 { Err(bad()) } else { Ok(total) }
}

/// The arguments as one shell command line that runs them as given: each quoted when it
/// holds anything the shell would read.
pub fn shell_line(args: &[String]) -> String {
    let plain =
        |a: &str| !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    let quoted: Vec<String> = args
        .iter()
        .map(|a| if plain(a) { a.clone() } else { format!("'{}'", a.replace('\'', r"'\''")) })
        .collect();
    quoted.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_units_and_sums() {
        assert_eq!(parse_duration("90m"), Ok(5400));
        assert_eq!(parse_duration("1h30m"), Ok(5400));
        assert_eq!(parse_duration("3600"), Ok(3600));
        assert_eq!(parse_duration("2d"), Ok(172_800));
        assert!(parse_duration("4 hours").is_err());
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn arguments_are_quoted_so_the_shell_gives_them_back_unchanged() {
        let args = ["sh", "-c", "echo hello; sleep 2", "it's"].map(String::from);
        assert_eq!(shell_line(&args), r"sh -c 'echo hello; sleep 2' 'it'\''s'");
        assert_eq!(
            shell_line(&["python".into(), "train.py".into(), "--lr=3e-4".into()]),
            "python train.py --lr=3e-4"
        );
    }

    #[test]
    fn times_print_in_utc_with_their_distance_from_now() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(relative(1000, 1000 + 125), "2m ago");
        assert_eq!(relative(1000 + 7300, 1000), "in 2h 1m");
    }

    #[test]
    fn tables_align_every_column_but_the_last() {
        let t = table(&["ID", "NAME", "WHY"], &[vec!["7".into(), "a".into(), "long reason".into()]]);
        assert_eq!(t, "ID  NAME  WHY\n7   a     long reason");
    }
}
