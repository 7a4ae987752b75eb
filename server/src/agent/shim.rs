//! `tidepool agent-shim -- COMMAND…`: what the agent starts for each job. It leads the
//! job's session and process group and runs the command in it; if the agent dies
//! (kill -9, a crash), the shim sees its parent change and kills the whole group (and the
//! job's container, which podman runs outside the group), so a job never outlives the
//! agent that answers for it and nothing runs twice once the job is requeued.
//! SIGTERM from a stop reaches the command (bwrap's sandbox is in the group; podman
//! passes it into the container); the shim itself waits for the command's end and exits
//! with its status.
//!
//! The agent starts the shim with an environment built from nothing: the job's (for a
//! plain or bwrap job) or podman's few variables, plus two for the shim alone, removed
//! before the command starts: `TIDEPOOL_SHIM_ACCOUNT` (`UID:GID` to drop to) and
//! `TIDEPOOL_SHIM_CONTAINER` (the container to remove if the agent dies).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

pub const ACCOUNT: &str = "TIDEPOOL_SHIM_ACCOUNT";
pub const CONTAINER: &str = "TIDEPOOL_SHIM_CONTAINER";

extern "C" fn ignore(_: libc::c_int) {}

/// The shim's entry point, for `tidepool agent-shim` and `tidepool-shim` alike: its
/// arguments are `[--] COMMAND…`.
pub fn main(args: impl Iterator<Item = std::ffi::OsString>) -> std::process::ExitCode {
    let command: Option<Vec<String>> = args.map(|a| a.into_string().ok()).collect();
    let Some(command) = command else {
        eprintln!("agent-shim: the command is not valid UTF-8");
        return std::process::ExitCode::from(2);
    };
    let skip = usize::from(command.first().is_some_and(|c| c == "--"));
    std::process::ExitCode::from(run(&command[skip..]).clamp(0, 255) as u8)
}

pub fn run(command: &[String]) -> i32 {
    let Some((program, args)) = command.split_first() else {
        // The shim has no log of its own: its stderr is the job's log, where the owner reads why.
        eprintln!("agent-shim: no command");
        return 2;
    };
    let account = std::env::var(ACCOUNT).ok().and_then(|a| {
        let (u, g) = a.split_once(':')?;
        Some((u.parse::<u32>().ok()?, g.parse::<u32>().ok()?))
    });
    let container = std::env::var(CONTAINER).ok();
    // Its own session (not only its own group): the job can reach no terminal of the
    // agent's, and the group the agent signals is the shim's pid.
    // SAFETY: setsid(2) has no memory effects; the shim is never a group leader here.
    unsafe {
        libc::setsid();
    }
    // SAFETY: getppid and signal are async-signal-safe; the handler does nothing. A
    // handler (not SIG_IGN) is reset by exec, so the command still receives SIGTERM.
    let parent = unsafe { libc::getppid() };
    unsafe {
        libc::signal(libc::SIGTERM, ignore as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
    let mut command = Command::new(program);
    command.args(args).env_remove(ACCOUNT).env_remove(CONTAINER);
    if let Some((uid, gid)) = account {
        // std drops the supplementary groups too when it changes the account as root.
        command.uid(uid).gid(gid);
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("agent-shim: cannot start {program}: {e}");
            return 127;
        }
    };
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                use std::os::unix::process::ExitStatusExt;
                return status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
            }
            Ok(None) => {}
            Err(_) => return 1,
        }
        // SAFETY: as above.
        if unsafe { libc::getppid() } != parent {
            // The agent is gone: take the whole job with it (the shim leads the group).
            if let Some(name) = &container {
                let conf = std::env::var_os("CONTAINERS_CONF").unwrap_or_default();
                crate::agent::launch::remove_container(Path::new(program), Path::new(&conf), name);
            }
            unsafe {
                libc::kill(0, libc::SIGKILL);
            }
        }
        // Short jobs end within the first few looks; long ones cost a look every 100 ms.
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}
