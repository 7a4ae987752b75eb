//! Loading the modules `tests/build-policies.sh` builds.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tidepool::policy::{Limits, Module, Runtime};

/// Where the built modules are: `TIDEPOOL_POLICY_DIR`, else `policies/` in the target dir.
pub fn dir() -> PathBuf {
    let dir = std::env::var_os("TIDEPOOL_POLICY_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_BIN_EXE_tidepool"))
            .parent()
            .and_then(|p| p.parent())
            .expect("target dir")
            .join("policies")
    });
    assert!(
        dir.join("priority.wasm").is_file(),
        "no modules in {}: run tests/build-policies.sh",
        dir.display()
    );
    dir
}

pub fn bytes(name: &str) -> Vec<u8> {
    let path = dir().join(format!("{name}.wasm"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A runtime with a short deadline, so a runaway module is cut quickly.
pub fn runtime(deadline: Duration) -> Arc<Runtime> {
    let limits = Limits { deadline, memory_bytes: 64 << 20, ..Limits::default() };
    Arc::new(Runtime::new(limits, None).expect("runtime"))
}

pub fn load(runtime: &Runtime, name: &str) -> Arc<Module> {
    runtime.load(&bytes(name)).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}
