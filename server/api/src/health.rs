//! Health checks for load balancers and monitoring (issue 14, O3): `GET /healthz` says the
//! process answers (no database touched), `GET /readyz` says whether it can serve — the
//! database answers, its migrations are the ones this binary ships — and whether this
//! server dispatches (the lease holder) or stands by. Neither asks for a sign-in.

use serde::{Deserialize, Serialize};

/// `GET /healthz`: the process is up and its HTTP stack answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Alive {
    /// Always `alive`.
    pub status: String,
    /// The server's version (its package version).
    pub version: String,
}

/// Whether this server holds the dispatch lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DispatchRole {
    /// This server holds the lease: it runs the dispatch cycles.
    Leader,
    /// Another server holds the lease, or none does yet: this one serves the API and
    /// takes over when the lease expires.
    Standby,
}

/// One check of `GET /readyz`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// `database` or `migrations`.
    pub name: String,
    pub ok: bool,
    /// What was found: the failure's reason, or what passed.
    pub detail: String,
}

/// `GET /readyz`: 200 when every check passes, 503 (same body) when one fails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Readiness {
    /// Every check passed.
    pub ready: bool,
    /// The checks in order: `database`, then `migrations`.
    pub checks: Vec<Check>,
    /// The first failing check's name; none when ready.
    pub failing: Option<String>,
    /// Leader or standby; standby also when the lease could not be read.
    pub dispatch: DispatchRole,
    /// Who holds the lease now (an unexpired one), and its epoch.
    pub lease_holder: Option<String>,
    pub lease_epoch: Option<i64>,
}
