//! Reading a password: a line of stdin when stdin is not a terminal (scripts, tests), else
//! a prompt on the terminal with echo turned off (termios, so no crate is needed).

use std::io::{BufRead, Write};

use crate::client::Failure;

/// Echo off for as long as it lives; the terminal's settings come back when dropped.
struct NoEcho {
    saved: libc::termios,
}

impl NoEcho {
    fn new() -> Option<NoEcho> {
        // SAFETY: termios is plain data; tcgetattr fills it for stdin, a terminal here.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(0, &mut saved) } != 0 {
            return None;
        }
        let mut quiet = saved;
        quiet.c_lflag &= !libc::ECHO;
        quiet.c_lflag |= libc::ECHONL;
        // SAFETY: the settings just read, with echo off.
        (unsafe { libc::tcsetattr(0, libc::TCSANOW, &quiet) } == 0).then_some(NoEcho { saved })
    }
}

impl Drop for NoEcho {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `new`.
        unsafe { libc::tcsetattr(0, libc::TCSANOW, &self.saved) };
    }
}

/// The password for `username` on `server`.
pub fn read(username: &str, server: &str) -> Result<String, Failure> {
    // SAFETY: isatty only inspects the descriptor.
    let terminal = unsafe { libc::isatty(0) } == 1;
    let _quiet = if terminal {
        eprint!("Password for {username} at {server}: ");
        let _ = std::io::stderr().flush();
        Some(NoEcho::new().ok_or_else(|| Failure::Usage("cannot turn off the terminal's echo".into()))?)
    } else {
        None
    };
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Failure::Usage(format!("cannot read the password: {e}")))?;
    let password = line.strip_suffix('\n').unwrap_or(&line);
    let password = password.strip_suffix('\r').unwrap_or(password).to_string();
    if password.is_empty() {
        return Err(Failure::Usage("no password given (on stdin, or typed at the prompt)".into()));
    }
    Ok(password)
}
