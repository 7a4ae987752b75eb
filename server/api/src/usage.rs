//! Usage over time (`GET /api/usage?from=&to=&group=&pool=`, V4): when the cluster is
//! busy and when it idles, as an hour-of-day x weekday grid in the organisation's time
//! zone, and GPU-hours by local day. Read from the hourly roll-up of the records.

use serde::{Deserialize, Serialize};

/// The curves over `[from, to)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UsageCurves {
    /// Unix seconds, as asked (clamped to the rolled-up history).
    pub from: i64,
    pub to: i64,
    /// None: every group.
    pub group: Option<String>,
    /// None: every pool.
    pub pool: Option<String>,
    pub time_zone: String,
    /// 7 x 24 cells, Monday 00:00 first: the heatmap.
    pub heatmap: Vec<HeatCell>,
    /// GPU-hours by local day.
    pub days: Vec<DayFigure>,
    /// Hours before this are rolled up; later ones are not in the figures yet.
    pub rolled_until: i64,
}

/// One hour of the week, averaged over the range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HeatCell {
    /// 0 = Monday.
    pub weekday: u8,
    /// 0-23, local.
    pub hour: u8,
    /// GPUs held on average in this hour.
    pub gpus_held: f64,
    /// Average utilisation of the held GPUs, percent; none when nothing was sampled.
    pub util_pct: Option<f64>,
    /// GPUs held while idle, on average.
    pub gpus_idle: f64,
}

/// One local day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DayFigure {
    /// `2026-11-23`.
    pub date: String,
    pub gpu_hours: f64,
    pub busy_gpu_hours: f64,
    pub idle_gpu_hours: f64,
}
