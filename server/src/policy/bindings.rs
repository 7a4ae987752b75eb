//! Host bindings for the frozen interface `policies/wit/v1`. Only this module and
//! `convert` see generated types; the rest of Tidepool sees the core's `Policies` trait.

pub mod priority {
    wasmtime::component::bindgen!({ path: "../policies/wit/v1", world: "priority-policy" });
}

pub mod quota {
    wasmtime::component::bindgen!({
        path: "../policies/wit/v1",
        world: "quota-policy",
        with: { "tidepool:policy/types": super::priority::tidepool::policy::types },
    });
}

pub mod reclaim {
    wasmtime::component::bindgen!({
        path: "../policies/wit/v1",
        world: "reclaim-policy",
        with: { "tidepool:policy/types": super::priority::tidepool::policy::types },
    });
}

/// The interface's records, shared by the three worlds.
pub use priority::tidepool::policy::types;
