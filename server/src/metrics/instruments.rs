//! Histograms and counters of the server's own work, kept in memory: one set per process,
//! the unit Prometheus scrapes. Each is a `static`, so the code it measures needs one line
//! (`let _t = metrics::DISPATCH_CYCLE.time();`) and no handle passed down to it.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use crate::metrics::text::{Exposition, Type};

/// Label values, in the order of the family's label names.
type Key = Vec<String>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding it leaves counts that are still counts.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Label values every scrape shows, observed or not (an increase from a series that did
/// not exist is never seen): per label, its values; every combination is shown. A family
/// without labels always shows its one series; one without seeds only what was observed.
pub type Seeds = &'static [&'static [&'static str]];

fn seeded(labels: &[&str], seeds: Seeds) -> Vec<Key> {
    if seeds.is_empty() && !labels.is_empty() {
        return Vec::new();
    }
    seeds.iter().fold(vec![Vec::new()], |keys, values| {
        keys.iter()
            .flat_map(|k| values.iter().map(move |v| k.iter().cloned().chain([v.to_string()]).collect()))
            .collect()
    })
}

/// A histogram family: cumulative buckets, sum and count per label set.
pub struct Histogram {
    pub name: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    /// Upper bounds, increasing; `+Inf` is implied.
    buckets: &'static [f64],
    seeds: Seeds,
    series: Mutex<BTreeMap<Key, Series>>,
}

#[derive(Clone, Debug, Default)]
struct Series {
    /// Per bucket, the observations that fell in it (not cumulative); the last is `+Inf`.
    counts: Vec<u64>,
    sum: f64,
}

impl Histogram {
    pub const fn new(
        name: &'static str,
        help: &'static str,
        labels: &'static [&'static str],
        buckets: &'static [f64],
        seeds: Seeds,
    ) -> Histogram {
        Histogram { name, help, labels, buckets, seeds, series: Mutex::new(BTreeMap::new()) }
    }

    pub fn observe(&self, labels: &[&str], seconds: f64) {
        let seconds = if seconds.is_finite() { seconds.max(0.0) } else { 0.0 };
        let at = self.buckets.iter().position(|b| seconds <= *b).unwrap_or(self.buckets.len());
        let key: Key = labels.iter().map(|l| l.to_string()).collect();
        let mut series = lock(&self.series);
        let s = series.entry(key).or_default();
        if s.counts.is_empty() {
            s.counts = vec![0; self.buckets.len() + 1];
        }
        s.counts[at] += 1;
        s.sum += seconds;
    }

    /// Times until the guard drops (an early return or an error still counts).
    pub fn time(&'static self) -> Timer {
        Timer { histogram: self, label: None, started: Instant::now() }
    }

    /// The same, for a family with one label.
    pub fn time_with(&'static self, label: &'static str) -> Timer {
        Timer { histogram: self, label: Some(label), started: Instant::now() }
    }

    /// Observations so far with these label values.
    pub fn count(&self, labels: &[&str]) -> u64 {
        let key: Key = labels.iter().map(|l| l.to_string()).collect();
        lock(&self.series).get(&key).map_or(0, |s| s.counts.iter().sum())
    }

    pub fn write(&self, out: &mut Exposition) {
        let mut series = lock(&self.series).clone();
        for key in seeded(self.labels, self.seeds) {
            series.entry(key).or_insert_with(|| Series { counts: vec![0; self.buckets.len() + 1], sum: 0.0 });
        }
        out.family(self.name, self.help, Type::Histogram);
        let (bucket, sum, count) =
            (format!("{}_bucket", self.name), format!("{}_sum", self.name), format!("{}_count", self.name));
        for (key, s) in &series {
            let labels: Vec<(&str, &str)> =
                self.labels.iter().copied().zip(key.iter().map(String::as_str)).collect();
            let mut cumulative = 0;
            for (i, n) in s.counts.iter().enumerate() {
                cumulative += n;
                let le = self.buckets.get(i).map_or("+Inf".to_string(), |b| crate::metrics::text::number(*b));
                let mut with_le = labels.clone();
                with_le.push(("le", &le));
                out.sample(&bucket, &with_le, cumulative as f64);
            }
            out.sample(&sum, &labels, s.sum);
            out.sample(&count, &labels, cumulative as f64);
        }
    }
}

/// Observes the time since its start when dropped.
pub struct Timer {
    histogram: &'static Histogram,
    label: Option<&'static str>,
    started: Instant,
}

impl Drop for Timer {
    fn drop(&mut self) {
        let seconds = self.started.elapsed().as_secs_f64();
        match self.label {
            Some(l) => self.histogram.observe(&[l], seconds),
            None => self.histogram.observe(&[], seconds),
        }
    }
}

/// A counter family.
pub struct Counter {
    pub name: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    seeds: Seeds,
    series: Mutex<BTreeMap<Key, u64>>,
}

impl Counter {
    pub const fn new(
        name: &'static str,
        help: &'static str,
        labels: &'static [&'static str],
        seeds: Seeds,
    ) -> Counter {
        Counter { name, help, labels, seeds, series: Mutex::new(BTreeMap::new()) }
    }

    pub fn inc(&self, labels: &[&str]) {
        *lock(&self.series).entry(labels.iter().map(|l| l.to_string()).collect()).or_default() += 1;
    }

    pub fn get(&self, labels: &[&str]) -> u64 {
        let key: Key = labels.iter().map(|l| l.to_string()).collect();
        lock(&self.series).get(&key).copied().unwrap_or(0)
    }

    pub fn write(&self, out: &mut Exposition) {
        let mut series = lock(&self.series).clone();
        for key in seeded(self.labels, self.seeds) {
            series.entry(key).or_default();
        }
        out.family(self.name, self.help, Type::Counter);
        for (key, n) in &series {
            let labels: Vec<(&str, &str)> =
                self.labels.iter().copied().zip(key.iter().map(String::as_str)).collect();
            out.sample(self.name, &labels, *n as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static H: Histogram = Histogram::new("t_seconds", "t", &["kind"], &[0.1, 1.0], &[&["quota"]]);

    #[test]
    fn seeds_are_every_combination_of_their_values() {
        let keys = seeded(&["kind", "fault"], &[&["a", "b"], &["x", "y", "z"]]);
        assert_eq!(keys.len(), 6);
        assert_eq!(keys[1], vec!["a".to_string(), "y".to_string()]);
        assert_eq!(seeded(&[], &[]), vec![Vec::<String>::new()]);
        assert!(seeded(&["route"], &[]).is_empty());
    }

    #[test]
    fn buckets_are_cumulative_and_seeds_show_at_zero() {
        H.observe(&["priority"], 0.05);
        H.observe(&["priority"], 0.5);
        H.observe(&["priority"], 7.0);
        let mut e = Exposition::default();
        H.write(&mut e);
        let text = e.finish();
        for line in [
            "t_seconds_bucket{kind=\"priority\",le=\"0.1\"} 1",
            "t_seconds_bucket{kind=\"priority\",le=\"1\"} 2",
            "t_seconds_bucket{kind=\"priority\",le=\"+Inf\"} 3",
            "t_seconds_sum{kind=\"priority\"} 7.55",
            "t_seconds_count{kind=\"priority\"} 3",
            "t_seconds_count{kind=\"quota\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing from\n{text}");
        }
        assert_eq!(H.count(&["priority"]), 3);
    }
}
