//! The one error shape every failure answers with: `{"error": {"code", "message"}}`.

use serde::{Deserialize, Serialize};

/// The body of every non-2xx answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ErrorDetail {
    /// Stable and machine-readable: `bad-request`, `unauthorized`, `forbidden`,
    /// `not-found`, `conflict`, `unprocessable`, `too-large`, `too-many-requests`,
    /// `internal`, `timeout` (503: the request outlived the server's limit).
    pub code: String,
    /// For a person: what was refused and, where it helps, what to do.
    pub message: String,
}
