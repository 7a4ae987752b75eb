//! The global view (V1, V2): pools → nodes → GPUs with who holds each GPU, since and
//! until when (`GET /api/nodes`), and capacity per pool (`GET /api/pools`).

use serde::{Deserialize, Serialize};

/// Every node, by pool and name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodesView {
    pub nodes: Vec<Node>,
}

/// One node and its GPUs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Node {
    pub id: i64,
    pub name: String,
    pub pool: String,
    pub model: String,
    /// In service: jobs may be placed on it.
    pub healthy: bool,
    /// GPUs nobody holds.
    pub free: i64,
    /// One slot per GPU: who holds it, or none when it is free.
    pub gpus: Vec<Option<GpuHolder>>,
}

/// The job holding a GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GpuHolder {
    /// The job's id.
    pub job: i64,
    /// The job's name.
    pub name: String,
    pub group: String,
    /// Unix seconds.
    pub since: i64,
    /// When its time limit ends; none without one.
    pub until: Option<i64>,
}

/// Capacity per pool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PoolsView {
    pub pools: Vec<Pool>,
}

/// One pool's capacity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Pool {
    pub pool: String,
    pub nodes: i64,
    pub healthy_nodes: i64,
    /// The GPU models its nodes have.
    pub models: Vec<String>,
    /// GPUs on its healthy nodes.
    pub gpus: i64,
    /// GPUs jobs hold.
    pub held: i64,
    pub free: i64,
    /// GPUs pending jobs ask for on the pool's models.
    pub pending_gpus: i64,
    /// `surplus`, or `tight` when little is free.
    pub status: String,
}
