//! The charts' arithmetic: a value axis that ends on a round number with round ticks, the
//! position of a value on it, stacking, and the colour of a heat cell. Labels for the
//! figures (GPU-hours, waits) live here too, so the charts and the tables agree.

/// The smallest 1, 2, 2.5 or 5 × 10^k at or above `v`; 1 for nothing to show.
pub fn nice_max(v: f64) -> f64 {
    if !v.is_finite() || v <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|c| *c >= v * (1.0 - 1e-12))
        .unwrap_or(10.0 * p)
}

/// A value axis from 0 to a round maximum, drawn over `length` pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub max: f64,
    pub length: f64,
}

impl Axis {
    /// An axis that holds `largest`.
    pub fn holding(largest: f64, length: f64) -> Axis {
        Axis { max: nice_max(largest), length }
    }

    /// Pixels from the axis' origin to `v` (clamped to the axis).
    pub fn at(&self, v: f64) -> f64 {
        (v.max(0.0) / self.max).min(1.0) * self.length
    }

    /// Five ticks from 0 to the maximum.
    pub fn ticks(&self) -> Vec<f64> {
        (0..=4).map(|i| self.max * f64::from(i) / 4.0).collect()
    }
}

/// Each value's start and end when stacked from 0, in order.
pub fn stack(values: &[f64]) -> Vec<(f64, f64)> {
    let mut at = 0.0;
    values
        .iter()
        .map(|v| {
            let start = at;
            at += v.max(0.0);
            (start, at)
        })
        .collect()
}

/// A heat cell's colour: white for nothing, the accent's blue at `max`.
pub fn heat(v: f64, max: f64) -> String {
    let share = if max > 0.0 { (v / max).clamp(0.0, 1.0) } else { 0.0 };
    // From near-white (97%) to a deep blue (30%) lightness.
    format!("hsl(200, 80%, {:.0}%)", 97.0 - 67.0 * share)
}

/// A tick's label: whole numbers without decimals, others with one (two below 1).
pub fn tick_label(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Seconds as a short wait: `45 s`, `12 min`, `3.5 h`.
pub fn duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.0} s")
    } else if s < 3600.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_end_on_round_numbers() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(-3.0), 1.0);
        assert_eq!(nice_max(f64::NAN), 1.0);
        assert_eq!(nice_max(1.0), 1.0);
        assert_eq!(nice_max(1.2), 2.0);
        assert_eq!(nice_max(2.2), 2.5);
        assert_eq!(nice_max(37.0), 50.0);
        assert_eq!(nice_max(51.0), 100.0);
        assert_eq!(nice_max(0.03), 0.05);
        assert_eq!(nice_max(1234.0), 2000.0);
    }

    #[test]
    fn values_land_in_proportion() {
        let a = Axis::holding(37.0, 200.0);
        assert_eq!(a.max, 50.0);
        assert_eq!(a.at(25.0), 100.0);
        assert_eq!(a.at(50.0), 200.0);
        assert_eq!(a.at(80.0), 200.0, "clamped");
        assert_eq!(a.at(-1.0), 0.0);
        assert_eq!(a.ticks(), [0.0, 12.5, 25.0, 37.5, 50.0]);
    }

    #[test]
    fn stacks_add_up() {
        assert_eq!(stack(&[2.0, 0.0, 3.5]), [(0.0, 2.0), (2.0, 2.0), (2.0, 5.5)]);
        assert_eq!(stack(&[-1.0, 1.0]), [(0.0, 0.0), (0.0, 1.0)]);
    }

    #[test]
    fn heat_runs_from_white_to_blue() {
        assert_eq!(heat(0.0, 10.0), "hsl(200, 80%, 97%)");
        assert_eq!(heat(10.0, 10.0), "hsl(200, 80%, 30%)");
        assert_eq!(heat(5.0, 0.0), "hsl(200, 80%, 97%)");
    }

    #[test]
    fn labels_read_naturally() {
        assert_eq!(duration(45.0), "45 s");
        assert_eq!(duration(720.0), "12 min");
        assert_eq!(duration(12_600.0), "3.5 h");
        assert_eq!(tick_label(12.5), "12.5");
        assert_eq!(tick_label(50.0), "50");
        assert_eq!(tick_label(0.0125), "0.01");
    }
}
