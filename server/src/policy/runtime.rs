//! The sandbox policy modules run in: wasmtime with the component model, no host
//! capabilities at all (the linker is empty: no WASI filesystem, clock, random or
//! sockets), an epoch deadline on every call and a memory limit per store. A store and
//! its instance are kept between calls (see `live`) and recreated after any fault, so a
//! faulted call can never leave state behind for the next.
//! Modules are compiled once, keyed by sha256, and pre-instantiated.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, PoolingAllocationConfig, Store, StoreLimits, StoreLimitsBuilder};

use crate::policy::Kind;
use crate::policy::artifacts::ArtifactCache;
use crate::policy::bindings::{priority, quota, reclaim};
use crate::policy::live::Live;

/// The interface versions this host loads.
pub const SUPPORTED_INTERFACES: &[&str] = &["1.0.0"];

/// What a module may use.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock budget of one call.
    pub deadline: Duration,
    /// Linear memory a module may grow to, over its instance's life.
    pub memory_bytes: usize,
    /// Largest module accepted for upload.
    pub module_bytes: usize,
    /// Calls one instance answers before it is recreated (1: a fresh instance per call).
    /// Bounds what a module's own state between calls (allowed, never relied on) can drift.
    pub reuse_calls: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            deadline: Duration::from_millis(500),
            memory_bytes: 256 << 20,
            module_bytes: 16 << 20,
            reuse_calls: 64,
        }
    }
}

/// Per-store state: only the limiter.
pub struct State {
    limits: StoreLimits,
}

/// A validated module, compiled and pre-instantiated.
pub struct Module {
    pub sha256: String,
    pub kind: Kind,
    pub interface: String,
    pub(crate) pre: Pre,
    /// The instance kept between calls.
    pub(crate) live: Live,
}

pub(crate) enum Pre {
    Priority(priority::PriorityPolicyPre<State>),
    Quota(quota::QuotaPolicyPre<State>),
    Reclaim(reclaim::ReclaimPolicyPre<State>),
}

/// The engine every module runs on.
pub struct Runtime {
    pub(crate) engine: Engine,
    linker: Linker<State>,
    pub limits: Limits,
    tick: Duration,
    compiled: Mutex<HashMap<String, Arc<Module>>>,
    /// Where precompiled artifacts are kept between runs, if anywhere (signed: see
    /// [`ArtifactCache`]).
    artifacts: Option<ArtifactCache>,
    stop: Arc<AtomicBool>,
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl Runtime {
    pub fn new(limits: Limits, artifacts: Option<ArtifactCache>) -> wasmtime::Result<Runtime> {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(64)
            .total_core_instances(64)
            .total_memories(64)
            .total_tables(64)
            .max_memory_size(limits.memory_bytes)
            // A batch of 50,000 jobs fills a few MiB; keeping that much resident between
            // calls replaces page faults on every fresh instance with a memset.
            .linear_memory_keep_resident(16 << 20);
        let mut config = Config::new();
        // Each memory keeps wasmtime's default 4 GiB reservation (address space only):
        // with it the guest's loads and stores need no bounds checks, which a reservation
        // the size of the memory limit forced on every access (measured: the default
        // quota module's own work took ~2x as long). `max_memory_size` and the store's
        // limiter still hold a module to `memory_bytes`.
        config
            .wasm_component_model(true)
            .epoch_interruption(true)
            .allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(pool))
            // Stated, though they are wasmtime's defaults, because the speed of the
            // modules' own work rests on them: Cranelift optimising for speed, and no NaN
            // canonicalisation, which only fixes NaNs' bit patterns (they may differ
            // between CPUs) at a cost on every float operation, while every answer the
            // interface takes is an integer or an enum. Out-of-bounds accesses trap
            // through the guard region (signals), not through inline checks.
            .cranelift_opt_level(wasmtime::OptLevel::Speed)
            .cranelift_nan_canonicalization(false);
        let engine = Engine::new(&config)?;
        // One ticker per engine moves the epoch; a call's deadline is counted in ticks.
        let tick = Duration::from_millis(2);
        let stop = Arc::new(AtomicBool::new(false));
        let (ticker_engine, ticker_stop) = (engine.clone(), stop.clone());
        std::thread::Builder::new().name("policy-epoch".into()).spawn(move || {
            while !ticker_stop.load(Ordering::Relaxed) {
                std::thread::sleep(tick);
                ticker_engine.increment_epoch();
            }
        })?;
        if let Some(cache) = &artifacts {
            cache.prepare()?;
        }
        let mut linker = Linker::new(&engine);
        // The shared types interface is imported for its types alone; it has nothing to
        // call, so an empty instance satisfies it. This is the only import allowed.
        for version in SUPPORTED_INTERFACES {
            linker.instance(&format!("tidepool:policy/types@{version}"))?;
        }
        Ok(Runtime { engine, linker, limits, tick, compiled: Mutex::default(), artifacts, stop })
    }

    /// A fresh store with the memory limit and the call deadline armed.
    pub(crate) fn store(&self) -> Store<State> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.limits.memory_bytes)
            .instances(4)
            .trap_on_grow_failure(true)
            .build();
        let mut store = Store::new(&self.engine, State { limits });
        store.limiter(|s| &mut s.limits);
        store.set_epoch_deadline(self.deadline_ticks());
        store
    }

    /// One call's deadline in epoch ticks (armed again before every call).
    pub(crate) fn deadline_ticks(&self) -> u64 {
        self.limits.deadline.as_nanos().div_ceil(self.tick.as_nanos()).max(1) as u64
    }

    /// Loads a module: size cap, component of a known world and interface version,
    /// nothing imported, exports of the right types; compiled once per sha256.
    pub fn load(&self, bytes: &[u8]) -> Result<Arc<Module>, Vec<String>> {
        let sha256 = sha256_hex(bytes);
        if let Some(m) = self.compiled.lock().expect("cache lock").get(&sha256) {
            return Ok(m.clone());
        }
        if bytes.len() > self.limits.module_bytes {
            return Err(vec![format!(
                "module is {} bytes; the limit is {} bytes",
                bytes.len(),
                self.limits.module_bytes
            )]);
        }
        // A component's preamble: magic, then version 0x0d and layer 1 (a core module has layer 0).
        if bytes.len() < 8 || &bytes[0..4] != b"\0asm" {
            return Err(vec!["not a WebAssembly binary".into()]);
        }
        if bytes[6..8] != [1, 0] {
            return Err(vec![
                "a core WebAssembly module, not a component: build with the policy SDK and \
                 `tidepool policy build`"
                    .into(),
            ]);
        }
        let component = self.compile(&sha256, bytes).map_err(|e| vec![format!("does not compile: {e:#}")])?;
        let (kind, interface) = self.identify(&component)?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(|e| vec![format!("cannot instantiate: {e:#}")])?;
        let pre = match kind {
            Kind::Priority => priority::PriorityPolicyPre::new(pre).map(Pre::Priority),
            Kind::Quota => quota::QuotaPolicyPre::new(pre).map(Pre::Quota),
            Kind::Reclaim => reclaim::ReclaimPolicyPre::new(pre).map(Pre::Reclaim),
        }
        .map_err(|e| vec![format!("exports do not match the {} interface: {e:#}", kind.name())])?;
        let module = Arc::new(Module { sha256: sha256.clone(), kind, interface, pre, live: Live::default() });
        self.compiled.lock().expect("cache lock").insert(sha256, module.clone());
        Ok(module)
    }

    fn compile(&self, sha256: &str, bytes: &[u8]) -> wasmtime::Result<Component> {
        let Some(cache) = &self.artifacts else { return Component::new(&self.engine, bytes) };
        if let Some(artifact) = cache.read(sha256) {
            // SAFETY: the artifact's MAC proves this server (holder of the secret) wrote it
            // with `Component::serialize` for the module `sha256`; wasmtime also checks
            // the engine's compatibility hash before use. Anything else was recompiled.
            if let Ok(c) = unsafe { Component::deserialize(&self.engine, &artifact) } {
                return Ok(c);
            }
        }
        let component = Component::new(&self.engine, bytes)?;
        cache.write(sha256, &component.serialize()?)?;
        Ok(component)
    }

    /// The world and interface version a component implements, from its export name
    /// (`tidepool:policy/<kind>@<version>`); a component may import nothing.
    fn identify(&self, component: &Component) -> Result<(Kind, String), Vec<String>> {
        let ty = component.component_type();
        let mut errors: Vec<String> = ty
            .imports(&self.engine)
            .filter(|(name, _)| {
                !SUPPORTED_INTERFACES.iter().any(|v| *name == format!("tidepool:policy/types@{v}"))
            })
            .map(|(name, _)| {
                format!(
                    "imports `{name}`: policy modules get no host capabilities (no WASI, no host functions)"
                )
            })
            .collect();
        let exports: Vec<String> = ty.exports(&self.engine).map(|(name, _)| name.to_string()).collect();
        let found = exports.iter().find_map(|name| {
            let (kind, version) = name.strip_prefix("tidepool:policy/")?.split_once('@')?;
            Some((Kind::parse(kind), version.to_string(), name))
        });
        match found {
            _ if exports.len() != 1 => errors.push(format!(
                "must export exactly one policy interface (priority, quota or reclaim); exports {exports:?}"
            )),
            None => errors.push(format!("exports {exports:?}, not a tidepool:policy interface")),
            Some((None, _, name)) => errors.push(format!("`{name}` is not a known policy kind")),
            Some((Some(_), version, _)) if !SUPPORTED_INTERFACES.contains(&version.as_str()) => errors.push(
                format!("interface version {version} is not supported (this server loads {SUPPORTED_INTERFACES:?})"),
            ),
            Some((Some(kind), version, _)) if errors.is_empty() => return Ok((kind, version)),
            Some(_) => {}
        }
        Err(errors)
    }
}
