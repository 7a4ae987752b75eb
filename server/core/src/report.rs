//! The weekly report's arithmetic (A5, O4, Q3), pure so each figure can be checked by
//! hand: percentiles by nearest rank, the overlap of a span with a week, cost from
//! GPU-seconds and a price in cents, the budget forecast at the month's pace, and the
//! short label a wait reason is counted under.

/// Average, median and 95th percentile of some values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    pub avg: f64,
    pub p50: f64,
    pub p95: f64,
}

/// The `p`-th percentile (0 < p <= 100) by nearest rank: the smallest value with at least
/// p% of the values at or below it. Chosen over interpolation because the answer is
/// always one of the observed values, which a reader can find in the records. 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

/// The spread of `values` (any order).
pub fn spread(values: &[f64]) -> Spread {
    if values.is_empty() {
        return Spread::default();
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Spread {
        avg: sorted.iter().sum::<f64>() / sorted.len() as f64,
        p50: percentile(&sorted, 50.0),
        p95: percentile(&sorted, 95.0),
    }
}

/// Seconds of `[from, to)` inside `[start, end)`.
pub fn overlap(from: i64, to: i64, start: i64, end: i64) -> i64 {
    (to.min(end) - from.max(start)).max(0)
}

/// Hours, from seconds (GPU-seconds to GPU-hours).
pub fn hours(seconds: i64) -> f64 {
    seconds as f64 / 3600.0
}

/// What `gpu_s` GPU-seconds cost at `cents` per GPU-hour, in the currency's units,
/// rounded to the cent.
pub fn cost(gpu_s: i64, cents: i64) -> f64 {
    let cents = (i128::from(gpu_s) * i128::from(cents) + 1800) / 3600;
    cents as f64 / 100.0
}

/// What a month will have spent at its end if it goes on at the pace of `[month_start,
/// cut)`: `spent` scaled to the whole month. Before any time passed, the spend itself.
pub fn forecast(spent: f64, month_start: i64, cut: i64, month_end: i64) -> f64 {
    let elapsed = cut - month_start;
    if elapsed <= 0 { spent } else { spent * (month_end - month_start) as f64 / elapsed as f64 }
}

/// Change from `before` to `now` as a ratio (`0.25`: a quarter more); none from zero.
pub fn change(before: f64, now: f64) -> Option<f64> {
    (before != 0.0).then(|| (now - before) / before)
}

/// Indexes of the `n` largest and `n` smallest `values`, ties to the earlier index.
pub fn extremes(values: &[f64], n: usize) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    let busiest = order.iter().copied().take(n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
    let idlest = order.iter().copied().take(n).collect();
    (busiest, idlest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank_are_observed_values() {
        let waits = [600.0, 60.0, 0.0, 3600.0, 120.0];
        let s = spread(&waits);
        // Sorted: 0, 60, 120, 600, 3600. p50: rank ceil(2.5) = 3 -> 120; p95: rank 5 -> 3600.
        assert_eq!((s.p50, s.p95), (120.0, 3600.0));
        assert_eq!(s.avg, 876.0);
        // 20 values 1..=20: p95 is rank 19.
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(spread(&v).p95, 19.0);
        assert_eq!(spread(&[]), Spread::default());
        assert_eq!(percentile(&[7.0], 50.0), 7.0);
    }

    #[test]
    fn overlap_is_the_part_inside_the_week() {
        assert_eq!(overlap(0, 100, 50, 200), 50);
        assert_eq!(overlap(60, 70, 50, 200), 10);
        assert_eq!(overlap(300, 400, 50, 200), 0);
    }

    #[test]
    fn cost_is_gpu_hours_times_the_price_to_the_cent() {
        // 8 GPUs for 90 minutes at 2.50 a GPU-hour: 12 GPU-hours, 30.00.
        assert_eq!(cost(8 * 5400, 250), 30.0);
        // One GPU-second at 1.00 an hour rounds to nothing; 18 seconds to one cent (0.005 up).
        assert_eq!(cost(1, 100), 0.0);
        assert_eq!(cost(18, 100), 0.01);
    }

    #[test]
    fn the_forecast_keeps_the_months_pace() {
        // 100 GPU-hours in the first 10 of 30 days: 300 by the end.
        assert_eq!(forecast(100.0, 0, 10 * 86_400, 30 * 86_400), 300.0);
        assert_eq!(forecast(5.0, 100, 100, 200), 5.0);
    }

    #[test]
    fn extremes_break_ties_by_the_earlier_hour() {
        let (busy, idle) = extremes(&[1.0, 5.0, 5.0, 0.0, 2.0], 2);
        assert_eq!(busy, vec![1, 2]);
        assert_eq!(idle, vec![3, 0]);
        assert_eq!(change(10.0, 15.0), Some(0.5));
        assert_eq!(change(0.0, 3.0), None);
    }
}
