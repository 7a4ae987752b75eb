//! The arithmetic of usage history (issue 12, R2, V4): cutting time spans into UTC hours,
//! the figures one agent sample adds, and the sums of the hourly roll-up. Pure: the
//! server reads the records and writes the rows; every figure is an exact integer.

use std::ops::AddAssign;

/// Seconds in an hour.
pub const HOUR: i64 = 3600;

/// The first second of the UTC hour holding `t`.
pub fn hour_of(t: i64) -> i64 {
    t.div_euclid(HOUR) * HOUR
}

/// `[from, to)` cut at hour boundaries: `(hour, seconds)` for each hour it touches,
/// in order; empty when `to <= from`.
pub fn split_hours(from: i64, to: i64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut t = from;
    while t < to {
        let hour = hour_of(t);
        let end = (hour + HOUR).min(to);
        out.push((hour, end - t));
        t = end;
    }
    out
}

/// The figures of one hour (or of a group of hours): what `usage_hours` holds per row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// GPU-seconds held (allocations' spans).
    pub held_gpu_s: i64,
    /// GPU-seconds covered by agents' samples.
    pub sampled_gpu_s: i64,
    /// Sum of utilisation % x GPU-seconds (busy GPU-seconds = this / 100).
    pub util_pct_gpu_s: i64,
    /// GPU-seconds below the idle threshold while held.
    pub idle_gpu_s: i64,
    /// Jobs whose first placement fell in the hour.
    pub jobs_started: i64,
    pub jobs_finished: i64,
    /// Summed waits (first start - submission) of the jobs started.
    pub wait_s: i64,
}

impl AddAssign for Figures {
    fn add_assign(&mut self, o: Figures) {
        self.held_gpu_s += o.held_gpu_s;
        self.sampled_gpu_s += o.sampled_gpu_s;
        self.util_pct_gpu_s += o.util_pct_gpu_s;
        self.idle_gpu_s += o.idle_gpu_s;
        self.jobs_started += o.jobs_started;
        self.jobs_finished += o.jobs_finished;
        self.wait_s += o.wait_s;
    }
}

/// GPU-seconds held by an allocation of `gpus` GPUs over `[start, end)` (`end` None:
/// still held), clipped to `[from, to)` and cut into hours.
pub fn held_by_hour(start: i64, end: Option<i64>, gpus: i64, from: i64, to: i64) -> Vec<(i64, i64)> {
    let end = end.unwrap_or(to).min(to);
    split_hours(start.max(from), end).into_iter().map(|(h, s)| (h, s * gpus)).collect()
}

/// What one agent report says of an allocation's GPUs: the utilisation of each GPU it
/// reported, in percent.
pub fn sample_rates(utils: &[i64], idle_threshold_pct: i64) -> Figures {
    Figures {
        sampled_gpu_s: utils.len() as i64,
        util_pct_gpu_s: utils.iter().map(|u| u.clamp(&0, &100)).sum(),
        idle_gpu_s: utils.iter().filter(|u| **u < idle_threshold_pct).count() as i64,
        ..Figures::default()
    }
}

/// Where a sample's interval starts: the previous sample, else when the agent first
/// reported the allocation running, else its start; never more than `cap_s` before
/// `now`, so a long silence is not invented.
pub fn sample_since(
    sampled_at: Option<i64>,
    acked_at: Option<i64>,
    started_at: i64,
    now: i64,
    cap_s: i64,
) -> i64 {
    sampled_at.or(acked_at).unwrap_or(started_at).max(now - cap_s).min(now)
}

/// The sample's figures over `[since, now)` at per-second `rates` (from [`sample_rates`]),
/// cut into hours: the utilisation held constant since the previous report.
pub fn sample_by_hour(rates: Figures, since: i64, now: i64) -> Vec<(i64, Figures)> {
    split_hours(since, now)
        .into_iter()
        .map(|(h, s)| {
            let f = Figures {
                sampled_gpu_s: rates.sampled_gpu_s * s,
                util_pct_gpu_s: rates.util_pct_gpu_s * s,
                idle_gpu_s: rates.idle_gpu_s * s,
                ..Figures::default()
            };
            (h, f)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 1_999_998_000; // an hour's first second (1999998000 = 555555 x 3600)

    #[test]
    fn spans_are_cut_at_hour_boundaries() {
        assert_eq!(hour_of(H + 3599), H);
        assert_eq!(hour_of(-1), -3600);
        assert_eq!(split_hours(H + 3000, H + 4000), vec![(H, 600), (H + 3600, 400)]);
        assert_eq!(split_hours(H, H + 7200), vec![(H, 3600), (H + 3600, 3600)]);
        assert!(split_hours(H, H).is_empty() && split_hours(H + 5, H).is_empty());
    }

    #[test]
    fn held_spans_are_clipped_to_the_window() {
        // 4 GPUs from 00:50 to 02:10: 10 min, 60 min, 10 min.
        let (start, end) = (H + 3000, H + 2 * 3600 + 600);
        assert_eq!(
            held_by_hour(start, Some(end), 4, H, H + 3 * 3600),
            vec![(H, 2400), (H + 3600, 14_400), (H + 7200, 2400)]
        );
        // Only the middle hour asked for; a live allocation is held to the window's end.
        assert_eq!(held_by_hour(start, Some(end), 4, H + 3600, H + 7200), vec![(H + 3600, 14_400)]);
        assert_eq!(held_by_hour(start, None, 2, H, H + 3600), vec![(H, 1200)]);
        assert!(held_by_hour(start, Some(end), 4, H + 3 * 3600, H + 4 * 3600).is_empty());
    }

    #[test]
    fn a_sample_splits_across_the_hour_it_crosses() {
        // Two GPUs at 80 % and 2 %, threshold 5 %: one is idle.
        let rates = sample_rates(&[80, 2], 5);
        assert_eq!((rates.sampled_gpu_s, rates.util_pct_gpu_s, rates.idle_gpu_s), (2, 82, 1));
        let pieces = sample_by_hour(rates, H + 3590, H + 3620);
        assert_eq!(pieces.len(), 2);
        assert_eq!((pieces[0].0, pieces[0].1.sampled_gpu_s, pieces[0].1.util_pct_gpu_s), (H, 20, 820));
        assert_eq!((pieces[1].0, pieces[1].1.idle_gpu_s, pieces[1].1.util_pct_gpu_s), (H + 3600, 20, 1640));
    }

    #[test]
    fn the_first_sample_counts_from_the_ack_and_silences_are_capped() {
        assert_eq!(sample_since(None, Some(H + 10), H, H + 20, 30), H + 10);
        assert_eq!(sample_since(None, None, H, H + 20, 30), H);
        assert_eq!(sample_since(Some(H + 15), Some(H + 10), H, H + 20, 30), H + 15);
        // An hour of silence counts only the cap.
        assert_eq!(sample_since(Some(H), None, H, H + 3600, 30), H + 3570);
    }

    #[test]
    fn figures_add_up() {
        let mut f = Figures { held_gpu_s: 1, jobs_started: 1, wait_s: 5, ..Figures::default() };
        f += Figures { held_gpu_s: 2, jobs_finished: 1, wait_s: 7, ..Figures::default() };
        assert_eq!((f.held_gpu_s, f.jobs_started, f.jobs_finished, f.wait_s), (3, 1, 1, 12));
    }
}
