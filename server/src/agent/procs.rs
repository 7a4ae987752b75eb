//! A job's process on this node: started in its own process group (so a stop reaches
//! everything it started), with its GPUs, job id, checkpoint folder and resume flag in
//! the environment, its output in a log file. Stopping is SIGTERM, the grace period to
//! checkpoint, then SIGKILL; a time limit stops it the same way.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::fleet::protocol::{Assignment, Fence, Finished, Outcome};

/// What the agent remembers across its own restarts: the process groups it started.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Remembered {
    pub fence: Fence,
    pub pgid: i32,
}

pub struct Proc {
    pub fence: Fence,
    pub gpus: Vec<u8>,
    pub util_file: PathBuf,
    pub log_file: PathBuf,
    /// Bytes of the log already sent.
    pub log_sent: u64,
    child: tokio::process::Child,
    pub pgid: i32,
    deadline: Option<Instant>,
    /// When SIGTERM went out, why, and the grace given.
    stopping: Option<(Instant, Outcome, Duration)>,
}

pub fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill(2) on a process group we started; a group that has exited gives ESRCH.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Whether `pgid` is alive and is the process we started for `fence` (not a reused pid).
pub fn still_ours(pgid: i32, fence: Fence) -> bool {
    let environ = std::fs::read(format!("/proc/{pgid}/environ")).unwrap_or_default();
    let needle = format!("TIDEPOOL_ALLOCATION_ID={}", fence.allocation);
    environ.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
}

impl Proc {
    pub fn spawn(a: &Assignment, state_dir: &Path, checkpoint_root: &Path) -> Result<Proc, String> {
        let checkpoint = checkpoint_root.join(&a.checkpoint);
        std::fs::create_dir_all(&checkpoint).map_err(|e| format!("{}: {e}", checkpoint.display()))?;
        let logs = state_dir.join("logs");
        let util = state_dir.join("util");
        for dir in [&logs, &util] {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let log_file = logs.join(format!("job-{}-{}.log", a.job, a.fence.allocation));
        let util_file = util.join(a.fence.allocation.to_string());
        let _ = std::fs::remove_file(&util_file);
        let out = std::fs::File::create(&log_file).map_err(|e| format!("{}: {e}", log_file.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let visible: Vec<String> = a.gpus.iter().map(u8::to_string).collect();
        let shim = std::env::current_exe().map_err(|e| format!("cannot find the agent's binary: {e}"))?;
        let mut command = tokio::process::Command::new(shim);
        command
            .args(["agent-shim", "--", "/bin/sh", "-c"])
            .arg(&a.command)
            .envs(&a.env)
            .env("CUDA_VISIBLE_DEVICES", visible.join(","))
            .env("TIDEPOOL_JOB_ID", a.job.to_string())
            .env("TIDEPOOL_ALLOCATION_ID", a.fence.allocation.to_string())
            .env("TIDEPOOL_CHECKPOINT_DIR", &checkpoint)
            .env("TIDEPOOL_FAKE_UTIL_FILE", &util_file)
            .current_dir(&checkpoint)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .kill_on_drop(false);
        if a.resume {
            command.env("TIDEPOOL_RESUME", "1");
        }
        let child = command.spawn().map_err(|e| format!("cannot start the command: {e}"))?;
        let pgid = child.id().ok_or("the command exited at once")? as i32;
        Ok(Proc {
            fence: a.fence,
            gpus: a.gpus.clone(),
            util_file,
            log_file,
            log_sent: 0,
            child,
            pgid,
            deadline: a.time_limit_s.map(|t| Instant::now() + Duration::from_secs(t)),
            stopping: None,
        })
    }

    /// Asks the job to stop: SIGTERM now, SIGKILL after `grace`. Idempotent.
    pub fn stop(&mut self, outcome: Outcome, grace: Duration) {
        if self.stopping.is_none() {
            signal_group(self.pgid, libc::SIGTERM);
            self.stopping = Some((Instant::now(), outcome, grace));
        }
    }

    /// Checks the process: its end if it has ended (the whole group is killed then, so
    /// nothing it started lingers); enforces the time limit (with `grace` to checkpoint)
    /// and the grace period of a stop.
    pub fn poll(&mut self, grace: Duration) -> Option<Finished> {
        if let Ok(Some(status)) = self.child.try_wait() {
            signal_group(self.pgid, libc::SIGKILL);
            let (outcome, grace_used_ms) = match self.stopping {
                Some((at, outcome, _)) => (outcome, Some(at.elapsed().as_millis() as u64)),
                None => (Outcome::Exited, None),
            };
            return Some(Finished { fence: self.fence, outcome, exit_code: status.code(), grace_used_ms });
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stop(Outcome::TimedOut, grace);
        }
        if let Some((at, _, grace)) = self.stopping
            && at.elapsed() >= grace
        {
            signal_group(self.pgid, libc::SIGKILL);
        }
        None
    }

    /// The log's bytes not yet sent, up to `max`, and how many bytes that is.
    pub fn unsent_log(&self, max: usize) -> Option<(String, u64)> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = std::fs::File::open(&self.log_file).ok()?;
        f.seek(SeekFrom::Start(self.log_sent)).ok()?;
        let mut buf = Vec::new();
        f.take(max as u64).read_to_end(&mut buf).ok()?;
        (!buf.is_empty()).then(|| (String::from_utf8_lossy(&buf).into_owned(), buf.len() as u64))
    }
}
