//! Choosing who decides, for the simulator and the benchmark: the built-in policies, the
//! default modules, or modules named one by one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tidepool_core::{NativePolicies, Policies};

use crate::policy::{Kind, Limits, Runtime, WasmPolicies};

/// Where the default modules are: `TIDEPOOL_POLICY_DIR`, else `policies/` in the build's
/// target folder (beside `debug/` or `release/`, where the test command builds them).
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TIDEPOOL_POLICY_DIR") {
        return PathBuf::from(dir);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(|target| target.join("policies")))
        .unwrap_or_else(|| PathBuf::from("policies"))
}

/// Modules for each kind (`None`: the built-in policy decides).
#[derive(Clone, Debug, Default)]
pub struct ModuleFiles {
    pub priority: Option<PathBuf>,
    pub quota: Option<PathBuf>,
    pub reclaim: Option<PathBuf>,
}

impl ModuleFiles {
    /// The default modules; `fifo` picks the first-come-first-served priority module.
    pub fn defaults(fifo: bool) -> ModuleFiles {
        let dir = default_dir();
        let priority = if fifo { "fifo.wasm" } else { "priority.wasm" };
        ModuleFiles {
            priority: Some(dir.join(priority)),
            quota: Some(dir.join("quota.wasm")),
            reclaim: Some(dir.join("reclaim.wasm")),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.priority.is_none() && self.quota.is_none() && self.reclaim.is_none()
    }

    /// Loads and activates every named module; fails with the file and the reasons.
    pub fn load(&self, native: NativePolicies) -> Result<Box<dyn Policies + Send + Sync>, String> {
        self.load_with(native, Limits::default())
    }

    /// As [`ModuleFiles::load`], the modules running under `limits`.
    pub fn load_with(
        &self,
        native: NativePolicies,
        limits: Limits,
    ) -> Result<Box<dyn Policies + Send + Sync>, String> {
        if self.is_empty() {
            return Ok(Box::new(native));
        }
        let runtime = Runtime::new(limits, None).map_err(|e| format!("policy runtime: {e:#}"))?;
        let runtime = Arc::new(runtime);
        let policies = WasmPolicies::new(runtime.clone());
        for (kind, file) in
            [(Kind::Priority, &self.priority), (Kind::Quota, &self.quota), (Kind::Reclaim, &self.reclaim)]
        {
            let Some(file) = file else { continue };
            let module = load_file(&runtime, file)?;
            if module.kind != kind {
                return Err(format!(
                    "{}: a {} policy, given as the {} policy",
                    file.display(),
                    module.kind.name(),
                    kind.name()
                ));
            }
            policies.activate(module);
        }
        Ok(Box::new(policies))
    }
}

fn load_file(runtime: &Runtime, file: &Path) -> Result<Arc<crate::policy::Module>, String> {
    let bytes = std::fs::read(file).map_err(|e| {
        format!(
            "{}: {e} (the test command builds the default modules; or set TIDEPOOL_POLICY_DIR)",
            file.display()
        )
    })?;
    runtime.load(&bytes).map_err(|errors| format!("{}: {}", file.display(), errors.join("; ")))
}
