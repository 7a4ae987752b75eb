//! A job's process on this node: the shim, leading its own session and process group (so
//! a stop reaches everything it started), running the job as `launch` built it, its output
//! in a log file only the agent reads. Stopping is SIGTERM, the grace period to
//! checkpoint, then SIGKILL (and the job's container removed); a time limit and the
//! agent's self-fencing stop it the same way.

use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::agent::accounts::Account;
use crate::agent::launch::JobDirs;
use crate::agent::logs::LogTail;
use crate::agent::setup::Setup;
use crate::agent::shim;
use crate::fleet::protocol::{Assignment, Fence, Finished, Outcome};

/// What the agent remembers across its own restarts: the process groups it started.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Remembered {
    pub fence: Fence,
    pub pgid: i32,
    /// The job's podman container, if it has one.
    #[serde(default)]
    pub container: Option<String>,
}

pub struct Proc {
    pub fence: Fence,
    pub gpus: Vec<u8>,
    /// The fake-GPU utilisation file, in the job's working folder.
    pub util_file: Option<PathBuf>,
    pub log: LogTail,
    pub work: PathBuf,
    pub container: Option<String>,
    child: tokio::process::Child,
    pub pgid: i32,
    deadline: Option<Instant>,
    /// When SIGTERM went out, why, and the grace given.
    stopping: Option<(Instant, Outcome, Duration)>,
    killed: bool,
}

pub fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill(2) on a process group we started; a group that has exited gives ESRCH.
    // In the first instant of its life the shim has not yet made its session (and group):
    // then the signal goes to the shim alone, which dies of it before starting the job.
    unsafe {
        if libc::kill(-pgid, signal) != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
        {
            libc::kill(pgid, signal);
        }
    }
}

/// SIGTERM to the job: every process of its group but the shim and bubblewrap's own.
/// bwrap dies of SIGTERM, and its sandbox with it (SIGKILL, --die-with-parent), before the
/// job could checkpoint; spared, it exits once the job has.
pub fn terminate(pgid: i32) {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return signal_group(pgid, libc::SIGTERM);
    };
    for entry in procs.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let comm = &stat[open + 1..close];
        let group = stat[close + 1..].split_whitespace().nth(2).and_then(|g| g.parse::<i32>().ok());
        if group == Some(pgid) && pid != pgid && comm != "bwrap" {
            // SAFETY: kill(2) on a process of the job's group; one that has exited gives ESRCH.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
    }
}

/// Whether `pgid` is alive and is the process we started for `fence` (not a reused pid).
pub fn still_ours(pgid: i32, fence: Fence) -> bool {
    let environ = std::fs::read(format!("/proc/{pgid}/environ")).unwrap_or_default();
    let needle = format!("TIDEPOOL_ALLOCATION_ID={}", fence.allocation);
    environ.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
}

/// The shim every job runs under: `tidepool-shim` beside the agent's binary (small, so
/// quick to start), else the agent's own binary as `tidepool agent-shim`.
fn shim_command() -> Result<tokio::process::Command, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the agent's binary: {e}"))?;
    let small = exe.with_file_name("tidepool-shim");
    if small.is_file() {
        return Ok(tokio::process::Command::new(small));
    }
    let mut command = tokio::process::Command::new(exe);
    command.arg("agent-shim");
    Ok(command)
}

impl Proc {
    pub fn spawn(a: &Assignment, setup: &Setup) -> Result<Proc, String> {
        let account = setup.accounts.for_job(a.group.as_deref(), a.user.as_deref());
        let dirs = setup.folders(a, account)?;
        let work = dirs.work.clone();
        // A job that cannot start leaves no folder behind.
        Proc::start(a, setup, dirs, account).inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&work);
        })
    }

    fn start(
        a: &Assignment,
        setup: &Setup,
        dirs: JobDirs,
        account: Option<&Account>,
    ) -> Result<Proc, String> {
        let launch = setup.launch(a, &dirs, account)?;
        let log_file = setup.logs.join(format!("alloc-{}.log", a.fence.allocation));
        let out = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&log_file)
            .map_err(|e| format!("{}: {e}", log_file.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut command = shim_command()?;
        command
            .arg("--")
            .arg(&launch.program)
            .args(&launch.args)
            .env_clear()
            .envs(&launch.env)
            .current_dir(&dirs.work)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .kill_on_drop(false);
        if let Some((uid, gid)) = launch.account {
            command.env(shim::ACCOUNT, format!("{uid}:{gid}"));
        }
        if let Some(name) = &launch.container {
            command.env(shim::CONTAINER, name);
        }
        // The shim makes its own session first thing (`shim::run`), so the agent needs no
        // code run between fork and exec: without it the start is a vfork-style spawn
        // instead of copying the agent's whole address space for every job.
        let child = command.spawn().map_err(|e| format!("cannot start the command: {e}"))?;
        let pgid = child.id().ok_or("the command exited at once")? as i32;
        Ok(Proc {
            fence: a.fence,
            gpus: a.gpus.clone(),
            util_file: launch.env.get("TIDEPOOL_FAKE_UTIL_FILE").map(PathBuf::from),
            log: LogTail { fence: a.fence, file: log_file, read: 0 },
            work: dirs.work,
            container: launch.container,
            child,
            pgid,
            deadline: a.time_limit_s.map(|t| Instant::now() + Duration::from_secs(t)),
            stopping: None,
            killed: false,
        })
    }

    pub fn remembered(&self) -> Remembered {
        Remembered { fence: self.fence, pgid: self.pgid, container: self.container.clone() }
    }

    /// Asks the job to stop: SIGTERM now, SIGKILL after `grace`. Idempotent.
    pub fn stop(&mut self, outcome: Outcome, grace: Duration) {
        if self.stopping.is_none() {
            terminate(self.pgid);
            self.stopping = Some((Instant::now(), outcome, grace));
        }
    }

    pub fn stopping(&self) -> bool {
        self.stopping.is_some()
    }

    /// Checks the process: its end if it has ended (the whole group is killed then, so
    /// nothing it started lingers); enforces the time limit (with `grace` to checkpoint)
    /// and the grace period of a stop.
    pub fn poll(&mut self, grace: Duration, setup: &Setup) -> Option<Finished> {
        if let Ok(Some(status)) = self.child.try_wait() {
            signal_group(self.pgid, libc::SIGKILL);
            let (outcome, grace_used_ms) = match self.stopping {
                Some((at, outcome, _)) => (outcome, Some(at.elapsed().as_millis() as u64)),
                None => (Outcome::Exited, None),
            };
            let _ = std::fs::remove_dir_all(&self.work);
            return Some(Finished { fence: self.fence, outcome, exit_code: status.code(), grace_used_ms });
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stop(Outcome::TimedOut, grace);
        }
        if let Some((at, _, grace)) = self.stopping
            && at.elapsed() >= grace
            && !self.killed
        {
            self.killed = true;
            signal_group(self.pgid, libc::SIGKILL);
            // podman's container lives outside the group: remove it, and only then is the
            // job's end reported.
            if let Some(name) = &self.container {
                setup.remove_container(name);
            }
        }
        None
    }
}
