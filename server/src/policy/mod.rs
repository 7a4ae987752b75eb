//! The policy host: priority, quota and reclaim policies as sandboxed WebAssembly
//! components. The core sees only its `Policies` trait; generated bindings stay in
//! `bindings` and `convert` (as zed's extension host keeps them from the editor).

pub mod artifacts;
mod bindings;
pub mod build;
pub mod call;
pub mod conformance;
mod convert;
pub mod desk;
pub mod host;
mod live;
pub mod manage;
pub mod registry;
pub mod runtime;
mod scratch;
pub mod select;
pub mod shadow;
pub mod shown;
pub mod version;

pub use call::Fault;
pub use host::{PolicyEvent, WasmPolicies};
pub use runtime::{Limits, Module, Runtime};

/// The three kinds of policy, one WIT world each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Priority,
    Quota,
    Reclaim,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Priority, Kind::Quota, Kind::Reclaim];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Priority => "priority",
            Kind::Quota => "quota",
            Kind::Reclaim => "reclaim",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}
