//! The organisation's settings (`GET/PUT /api/settings`, admins write): its time zone
//! (weeks, days and nights are cut in it), the currency and price per GPU-hour of each
//! model (A5), and the webhook finished weeks are posted to.

use serde::{Deserialize, Serialize};

/// The settings as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OrgSettings {
    /// IANA name, `Europe/Berlin`.
    pub time_zone: String,
    /// `EUR`.
    pub currency: String,
    /// Per model, the price of one GPU-hour.
    pub prices: Vec<GpuPrice>,
    /// Where finished weeks are posted (JSON); none: nowhere.
    pub report_webhook: Option<String>,
}

/// One model's price.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GpuPrice {
    pub model: String,
    /// In the settings' currency.
    pub per_gpu_hour: f64,
}
