//! A job's wait timeline (D2): each span of its wait as a band of one colour per kind of
//! reason, left to right from the first span to the last (or now, while it still waits),
//! drawn as SVG markup like the report's charts so the host tests it.

use std::fmt::Write;

use tidepool_api::WaitSpan;

use crate::charts::esc;
use crate::scale::duration;

/// Colours per wait kind; a kind this build does not know is grey.
const KINDS: [(&str, &str); 7] = [
    ("quota", "#c0392b"),
    ("borrowing", "#d35400"),
    ("budget", "#8e44ad"),
    ("capacity", "#0b6e99"),
    ("order", "#5aa469"),
    ("infeasible", "#7f8c8d"),
    ("policy", "#d98c2b"),
];

pub fn colour(kind: &str) -> &'static str {
    KINDS.iter().find(|(k, _)| *k == kind).map_or("#95a5a6", |(_, c)| c)
}

/// A span's end: its close, or `now` while the job still waits for it.
pub fn end_of(w: &WaitSpan, now: i64) -> i64 {
    w.until.unwrap_or(now).max(w.since)
}

/// The timeline's SVG: one band per span, widths proportional to time, with each span's
/// kind, seconds and words in `data-*` attributes and its `<title>`.
pub fn svg(waits: &[WaitSpan], now: i64) -> String {
    let (w, h, bar) = (640.0, 34.0, 18.0);
    let mut out = format!(
        r#"<svg id="job-waits-chart" class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="why the job waited, over time" xmlns="http://www.w3.org/2000/svg">"#
    );
    let (Some(first), Some(last)) = (waits.first(), waits.iter().map(|s| end_of(s, now)).max()) else {
        out.push_str("</svg>");
        return out;
    };
    let total = (last - first.since).max(1) as f64;
    for s in waits {
        let x = (s.since - first.since) as f64 / total * w;
        let width = ((end_of(s, now) - s.since) as f64 / total * w).max(1.0);
        let secs = end_of(s, now) - s.since;
        let _ = write!(
            out,
            r#"<rect class="wait" data-kind="{}" data-seconds="{secs}" x="{x:.1}" y="0" width="{width:.1}" height="{bar}" fill="{}"><title>{}: {} ({})</title></rect>"#,
            esc(&s.kind),
            colour(&s.kind),
            esc(&s.label),
            duration(secs as f64),
            esc(&s.reason)
        );
    }
    let _ = write!(
        out,
        r##"<text x="0" y="{}" font-size="10" fill="#6b7785">waiting since the first reason</text><text x="{w}" y="{}" font-size="10" fill="#6b7785" text-anchor="end">{}</text></svg>"##,
        h - 2.0,
        h - 2.0,
        duration(total)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(kind: &str, since: i64, until: Option<i64>) -> WaitSpan {
        WaitSpan { kind: kind.into(), label: format!("{kind} words"), reason: "r <1>".into(), since, until }
    }

    #[test]
    fn bands_are_proportional_and_an_open_span_runs_to_now() {
        // Three hours on quota, then one hour (so far) for GPUs.
        let waits = [span("quota", 0, Some(10_800)), span("capacity", 10_800, None)];
        let s = svg(&waits, 14_400);
        assert!(s.contains(r#"data-kind="quota" data-seconds="10800" x="0.0" y="0" width="480.0""#), "{s}");
        assert!(
            s.contains(r#"data-kind="capacity" data-seconds="3600" x="480.0" y="0" width="160.0""#),
            "{s}"
        );
        assert!(s.contains("r &lt;1&gt;"), "words are escaped: {s}");
        assert!(s.contains(colour("quota")) && colour("new-kind") == "#95a5a6");
        assert_eq!(svg(&[], 5).matches("<rect").count(), 0);
    }
}
