//! `tidepool agent-shim -- COMMAND…`: what the agent starts for each job. It leads the
//! job's process group and runs the command in it; if the agent dies (kill -9, a crash),
//! the shim sees its parent change and kills the whole group, so a job never outlives
//! the agent that answers for it and nothing runs twice once the job is requeued.
//! SIGTERM from a stop reaches the command; the shim itself waits for the command's end
//! and exits with its status.

use std::process::Command;
use std::time::Duration;

extern "C" fn ignore(_: libc::c_int) {}

pub fn run(command: &[String]) -> i32 {
    let Some((program, args)) = command.split_first() else {
        eprintln!("agent-shim: no command");
        return 2;
    };
    // SAFETY: getppid and signal are async-signal-safe; the handler does nothing. A
    // handler (not SIG_IGN) is reset by exec, so the command still receives SIGTERM.
    let parent = unsafe { libc::getppid() };
    unsafe {
        libc::signal(libc::SIGTERM, ignore as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
    let mut child = match Command::new(program).args(args).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("agent-shim: cannot start {program}: {e}");
            return 127;
        }
    };
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
            unsafe {
                libc::kill(0, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
