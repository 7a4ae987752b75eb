//! A node's GPUs: from the NVIDIA driver (NVML) when there is one, or a fake inventory
//! (`--fake-gpus 8xA100-80G`) whose utilisation comes from the jobs themselves: a job
//! writes a percentage to `$TIDEPOOL_FAKE_UTIL_FILE`, else its GPUs read as busy.

use std::collections::HashMap;
use std::path::PathBuf;

use nvml_wrapper::Nvml;

use crate::fleet::protocol::{GpuInfo, GpuSample};

const FAKE_MEMORY_MB: u64 = 81_920;

pub enum Gpus {
    Fake { model: String, count: u8 },
    Nvml(Box<Nvml>),
}

impl Gpus {
    /// The fake inventory `COUNTxMODEL`, or the driver's GPUs.
    pub fn discover(fake: Option<&str>) -> Result<Gpus, String> {
        if let Some(spec) = fake {
            let (count, model) = spec
                .split_once('x')
                .ok_or_else(|| format!("--fake-gpus is COUNTxMODEL (e.g. 8xA100-80G), not `{spec}`"))?;
            let count: u8 =
                count.parse().map_err(|_| format!("--fake-gpus: `{count}` is not a GPU count"))?;
            if !(1..=64).contains(&count) || model.is_empty() {
                return Err("--fake-gpus: 1 to 64 GPUs of a named model".into());
            }
            return Ok(Gpus::Fake { model: model.to_string(), count });
        }
        let nvml = Nvml::init()
            .map_err(|e| format!("no NVIDIA driver ({e}); use --fake-gpus to run without GPUs"))?;
        Ok(Gpus::Nvml(Box::new(nvml)))
    }

    pub fn inventory(&self) -> Result<Vec<GpuInfo>, String> {
        match self {
            Gpus::Fake { model, count } => Ok((0..*count)
                .map(|i| GpuInfo {
                    index: i,
                    uuid: format!("GPU-fake-{i}"),
                    model: model.clone(),
                    memory_total_mb: FAKE_MEMORY_MB,
                })
                .collect()),
            Gpus::Nvml(nvml) => {
                let n = nvml.device_count().map_err(|e| e.to_string())?;
                (0..n.min(64))
                    .map(|i| {
                        let d = nvml.device_by_index(i).map_err(|e| e.to_string())?;
                        Ok(GpuInfo {
                            index: i as u8,
                            uuid: d.uuid().map_err(|e| e.to_string())?,
                            model: d.name().map_err(|e| e.to_string())?.replace(' ', "-"),
                            memory_total_mb: d.memory_info().map_err(|e| e.to_string())?.total >> 20,
                        })
                    })
                    .collect()
            }
        }
    }

    /// Utilisation now. `busy` maps each GPU in use to its job's utilisation file.
    pub fn sample(&self, busy: &HashMap<u8, PathBuf>) -> Vec<GpuSample> {
        match self {
            Gpus::Fake { count, .. } => (0..*count)
                .map(|i| {
                    let util = busy.get(&i).map_or(0, |file| read_util(file).unwrap_or(100));
                    let memory_used_mb = if busy.contains_key(&i) { FAKE_MEMORY_MB / 2 } else { 0 };
                    GpuSample { index: i, util_pct: util.min(100), memory_used_mb }
                })
                .collect(),
            Gpus::Nvml(nvml) => (0..nvml.device_count().unwrap_or(0).min(64))
                .filter_map(|i| {
                    let d = nvml.device_by_index(i).ok()?;
                    Some(GpuSample {
                        index: i as u8,
                        util_pct: d.utilization_rates().ok()?.gpu.min(100) as u8,
                        memory_used_mb: d.memory_info().ok()?.used >> 20,
                    })
                })
                .collect(),
        }
    }
}

/// A percentage a job wrote to its utilisation file. The file is the job's: a link, a
/// pipe or a huge file must not make the agent read anything else, block or fill memory.
fn read_util(file: &std::path::Path) -> Option<u8> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(file)
        .ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    f.take(16).read_to_string(&mut text).ok()?;
    text.trim().parse::<u8>().ok()
}
