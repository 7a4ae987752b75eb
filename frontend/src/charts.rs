//! The report's charts, drawn by the app itself as SVG markup (no chart library, no chart
//! service): GPU-hours stacked by day and category, the hour × weekday heatmap, wait
//! percentiles by class, and each budget's burn with its forecast to month end. Every
//! mark carries its figure in `data-*` attributes and a `<title>` (the tooltip).

use std::fmt::Write;

use tidepool_api::reports::{BudgetBurn, DayUsage, WaitStats};
use tidepool_api::usage::HeatCell;

use crate::scale::{Axis, duration, heat, stack, tick_label};
use crate::week::{civil_from_days, days_from_civil};

/// The categories' colours, in stacking order.
pub const CATEGORIES: [(&str, &str); 3] =
    [("training", "#0b6e99"), ("inference", "#5aa469"), ("pretraining", "#d98c2b")];
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// Text safe inside SVG markup.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn open(id: &str, w: f64, h: f64, label: &str) -> String {
    format!(
        r#"<svg id="{id}" class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg">"#,
        esc(label)
    )
}

/// `Mon 23` for `2026-11-23`; the text itself when it is not a date.
pub fn day_label(date: &str) -> String {
    let mut parts = date.splitn(3, '-').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten(), parts.next().flatten()) {
        (Some(y), Some(m), Some(d)) => {
            let days = days_from_civil(y as i32, m, d);
            let (_, _, dd) = civil_from_days(days);
            format!("{} {dd}", WEEKDAYS[(days + 3).rem_euclid(7) as usize])
        }
        _ => date.to_string(),
    }
}

/// A value axis on the left: its grid lines and labels.
fn y_axis(out: &mut String, axis: &Axis, left: f64, top: f64, width: f64) {
    for t in axis.ticks() {
        let y = top + axis.length - axis.at(t);
        let _ = write!(
            out,
            r##"<line class="grid" x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#dde3ea"/>"##,
            left + width
        );
        let _ = write!(
            out,
            r##"<text x="{}" y="{:.1}" text-anchor="end" font-size="10" fill="#6b7785">{}</text>"##,
            left - 4.0,
            y + 3.0,
            tick_label(t)
        );
    }
}

/// GPU-hours by day, stacked by category (training at the bottom).
pub fn stacked_days(days: &[DayUsage]) -> String {
    let (w, h, left, top, plot_h) = (640.0, 240.0, 44.0, 24.0, 180.0);
    let plot_w = w - left - 10.0;
    let totals: Vec<f64> = days.iter().map(|d| d.training + d.inference + d.pretraining).collect();
    let axis = Axis::holding(totals.iter().copied().fold(0.0, f64::max), plot_h);
    let mut out = open("chart-days", w, h, "GPU-hours by day and category");
    y_axis(&mut out, &axis, left, top, plot_w);
    for (i, (name, colour)) in CATEGORIES.iter().enumerate() {
        let x = left + i as f64 * 100.0;
        let _ = write!(
            out,
            r#"<rect x="{x}" y="4" width="10" height="10" fill="{colour}"/><text x="{}" y="13" font-size="11">{name}</text>"#,
            x + 14.0
        );
    }
    let slot = plot_w / days.len().max(1) as f64;
    for (i, d) in days.iter().enumerate() {
        let x = left + slot * i as f64 + slot * 0.2;
        let values = [d.training, d.inference, d.pretraining];
        for ((start, end), (name, colour)) in stack(&values).into_iter().zip(CATEGORIES) {
            if end <= start {
                continue;
            }
            let (y0, y1) = (top + plot_h - axis.at(start), top + plot_h - axis.at(end));
            let _ = write!(
                out,
                r#"<rect class="bar" data-date="{date}" data-category="{name}" data-value="{v:.2}" x="{x:.1}" y="{y1:.1}" width="{bw:.1}" height="{hh:.1}" fill="{colour}"><title>{date} {name}: {v:.1} GPU-hours</title></rect>"#,
                date = esc(&d.date),
                v = end - start,
                bw = slot * 0.6,
                hh = y0 - y1,
            );
        }
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="11">{}</text>"#,
            x + slot * 0.3,
            top + plot_h + 16.0,
            esc(&day_label(&d.date))
        );
    }
    out + "</svg>"
}

/// GPUs held by local hour (columns) and weekday (rows), darker for more.
pub fn heatmap(cells: &[HeatCell]) -> String {
    let (left, top, cw, ch) = (36.0, 18.0, 24.0, 20.0);
    let (w, h) = (left + 24.0 * cw + 4.0, top + 7.0 * ch + 20.0);
    let max = cells.iter().map(|c| c.gpus_held).fold(0.0, f64::max);
    let mut out = open("chart-heatmap", w, h, "GPUs held by hour and weekday");
    let _ = write!(
        out,
        r##"<text x="{left}" y="{}" font-size="10" fill="#6b7785">darker: more GPUs held (the darkest: {max:.1})</text>"##,
        h - 4.0
    );
    for hour in (0..24).step_by(3) {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="12" font-size="10" text-anchor="middle">{hour:02}h</text>"#,
            left + (f64::from(hour) + 0.5) * cw
        );
    }
    for (d, name) in WEEKDAYS.iter().enumerate() {
        let _ =
            write!(out, r#"<text x="2" y="{:.1}" font-size="11">{name}</text>"#, top + d as f64 * ch + 14.0);
    }
    for c in cells.iter().filter(|c| c.weekday < 7 && c.hour < 24) {
        let util = c.util_pct.map_or_else(|| "not sampled".to_string(), |u| format!("{u:.0}% busy"));
        let _ = write!(
            out,
            r##"<rect class="cell" data-weekday="{wd}" data-hour="{hr}" data-gpus="{g:.2}" x="{x:.1}" y="{y:.1}" width="{cw1}" height="{ch1}" fill="{fill}" stroke="#fff"><title>{day} {hr:02}:00 — {g:.1} GPUs held, {util}, {idle:.1} idle</title></rect>"##,
            wd = c.weekday,
            hr = c.hour,
            g = c.gpus_held,
            x = left + f64::from(c.hour) * cw,
            y = top + f64::from(c.weekday) * ch,
            cw1 = cw - 1.0,
            ch1 = ch - 1.0,
            fill = heat(c.gpus_held, max),
            day = WEEKDAYS[c.weekday as usize],
            idle = c.gpus_idle,
        );
    }
    out + "</svg>"
}

/// Each class's p50 and p95 wait, as horizontal bars on one time axis.
pub fn wait_bars(waits: &[WaitStats]) -> String {
    let (left, top, row) = (90.0, 22.0, 34.0);
    let w = 640.0;
    let axis = Axis::holding(waits.iter().map(|s| s.p95_s.max(s.p50_s)).fold(0.0, f64::max), w - left - 70.0);
    let h = top + row * waits.len().max(1) as f64 + 6.0;
    let mut out = open("chart-waits", w, h, "Wait percentiles by class");
    let _ = write!(
        out,
        r##"<rect x="{left}" y="4" width="10" height="10" fill="#9cc7dc"/><text x="{}" y="13" font-size="11">p50</text><rect x="{}" y="4" width="10" height="10" fill="#0b6e99"/><text x="{}" y="13" font-size="11">p95</text>"##,
        left + 14.0,
        left + 60.0,
        left + 74.0
    );
    for (i, s) in waits.iter().enumerate() {
        let y = top + row * i as f64;
        let _ = write!(
            out,
            r#"<text x="{}" y="{:.1}" font-size="11" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + 18.0,
            esc(&s.class)
        );
        for (j, (name, v, colour)) in
            [("p50", s.p50_s, "#9cc7dc"), ("p95", s.p95_s, "#0b6e99")].into_iter().enumerate()
        {
            let by = y + 4.0 + j as f64 * 13.0;
            let bw = axis.at(v);
            let _ = write!(
                out,
                r#"<rect class="bar" data-class="{c}" data-stat="{name}" data-value="{v:.0}" x="{left}" y="{by:.1}" width="{bw:.1}" height="11" fill="{colour}"><title>{c} {name}: {d} ({n} jobs, avg {avg})</title></rect><text x="{:.1}" y="{:.1}" font-size="10">{d}</text>"#,
                left + bw + 4.0,
                by + 9.0,
                c = esc(&s.class),
                d = duration(v),
                n = s.jobs,
                avg = duration(s.avg_s),
            );
        }
    }
    out + "</svg>"
}

/// Each budget's month: spent (solid), the forecast to month end (light), and the budget
/// (a line); a forecast past the budget is red.
pub fn budget_burn(budgets: &[BudgetBurn]) -> String {
    let (left, top, row, w) = (190.0, 8.0, 30.0, 640.0);
    let largest = budgets
        .iter()
        .map(|b| b.budget_gpu_hours.max(b.forecast_gpu_hours).max(b.spent_gpu_hours))
        .fold(0.0, f64::max);
    let axis = Axis::holding(largest, w - left - 170.0);
    let h = top + row * budgets.len().max(1) as f64 + 4.0;
    let mut out = open("chart-budgets", w, h, "Budget burn and forecast to month end");
    for (i, b) in budgets.iter().enumerate() {
        let y = top + row * i as f64;
        let name = esc(&format!("{} {} {}", b.group, b.model, b.category));
        let over = b.forecast_gpu_hours > b.budget_gpu_hours;
        let fc = if over { "#e8a29d" } else { "#b9d7e6" };
        let (spent, forecast, budget) =
            (axis.at(b.spent_gpu_hours), axis.at(b.forecast_gpu_hours), axis.at(b.budget_gpu_hours));
        let _ = write!(
            out,
            r##"<text x="{}" y="{:.1}" font-size="11" text-anchor="end">{name}</text><g class="budget" data-spent="{s:.1}" data-forecast="{f:.1}" data-budget="{bu:.1}" data-over="{over}"><title>{name} {month}: spent {s:.1} of {bu:.1} GPU-hours, forecast {f:.1}</title><rect x="{left}" y="{y:.1}" width="{forecast:.1}" height="18" fill="{fc}"/><rect x="{left}" y="{y:.1}" width="{spent:.1}" height="18" fill="#0b6e99"/><line x1="{bx:.1}" x2="{bx:.1}" y1="{:.1}" y2="{:.1}" stroke="#1d2733" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="10">{s:.0} of {bu:.0}, forecast {f:.0}</text></g>"##,
            left - 6.0,
            y + 13.0,
            y - 2.0,
            y + 20.0,
            left + axis.length + 8.0,
            y + 13.0,
            month = esc(&b.month),
            s = b.spent_gpu_hours,
            f = b.forecast_gpu_hours,
            bu = b.budget_gpu_hours,
            bx = left + budget,
        );
    }
    out + "</svg>"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn days_stack_in_proportion() {
        let svg = stacked_days(&sample::report().days);
        assert!(svg.starts_with("<svg id=\"chart-days\""));
        // Two days of 293 px each; the tallest holds 20 GPU-hours: the axis ends at 20,
        // 180 px high, so 16 GPU-hours are 144 px.
        assert!(svg.contains(r#"data-date="2026-11-24" data-category="training" data-value="16.00" x="395.6" y="60.0" width="175.8" height="144.0""#), "{svg}");
        assert!(svg.contains(r#"data-category="inference" data-value="4.00" x="395.6" y="24.0" width="175.8" height="36.0""#), "{svg}");
        assert!(!svg.contains(r#"data-category="pretraining" data-value"#), "empty layers draw nothing");
        assert!(svg.contains(">Tue 24<"));
        assert!(svg.ends_with("</svg>"));
    }

    #[test]
    fn the_heatmap_has_a_cell_per_hour() {
        let svg = heatmap(&sample::cells());
        assert_eq!(svg.matches("class=\"cell\"").count(), 168);
        assert!(svg.contains(r#"data-weekday="1" data-hour="14" data-gpus="8.00" x="372.0" y="38.0" width="23" height="19" fill="hsl(200, 80%, 30%)""#), "{svg}");
        assert!(svg.contains("Tue 14:00 — 8.0 GPUs held, 90% busy"));
        assert!(svg.contains("Mon 00:00 — 0.0 GPUs held, not sampled"));
    }

    #[test]
    fn waits_and_budgets_scale_to_the_largest() {
        let r = sample::report();
        let svg = wait_bars(&r.waits);
        // 200 s is the axis' end (480 px wide): p50 60 s is 144 px.
        assert!(
            svg.contains(
                r#"data-class="batch" data-stat="p95" data-value="200" x="90" y="39.0" width="480.0""#
            ),
            "{svg}"
        );
        assert!(svg.contains(r#"data-stat="p50" data-value="60" x="90" y="26.0" width="144.0""#), "{svg}");
        assert!(svg.contains("3.3 min") || svg.contains("3 min"));
        let svg = budget_burn(&r.budgets);
        assert!(
            svg.contains(r#"data-spent="60.0" data-forecast="120.0" data-budget="100.0" data-over="true""#),
            "{svg}"
        );
        assert!(svg.contains("#e8a29d"), "a forecast past the budget is red");
    }

    #[test]
    fn text_is_escaped_and_dates_named() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(day_label("2026-11-29"), "Sun 29");
        assert_eq!(day_label("soon"), "soon");
        let mut days = sample::report().days;
        days[0].date = "<x>".into();
        assert!(!stacked_days(&days).contains("<x>"));
    }
}
