//! A researcher's shell for the command-line tests: their own home and config folder and
//! nothing else set, so `tidepool` runs as a new user runs it (no server named in the
//! environment, the session kept in that config folder).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub struct Shell {
    pub config: PathBuf,
}

impl Shell {
    /// A shell whose home is `dir/home`.
    pub fn in_dir(dir: &Path) -> Shell {
        let home = dir.join("home");
        std::fs::create_dir_all(&home).expect("home folder");
        Shell { config: home.join(".config") }
    }

    /// Runs `tidepool args…` with `stdin` piped in (not a terminal).
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tidepool"))
            .args(args)
            .env("HOME", self.config.parent().expect("config under home"))
            .env("XDG_CONFIG_HOME", &self.config)
            .env_remove("TIDEPOOL_SERVER")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tidepool runs");
        child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("stdin written");
        child.wait_with_output().expect("tidepool ends")
    }

    /// Runs and asserts exit status `code`; stdout and stderr.
    #[track_caller]
    pub fn expect(&self, code: i32, args: &[&str]) -> (String, String) {
        let out = self.run(args, "");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        assert_eq!(out.status.code(), Some(code), "tidepool {args:?}\nstdout: {stdout}\nstderr: {stderr}");
        (stdout, stderr)
    }

    #[track_caller]
    pub fn ok(&self, args: &[&str]) -> String {
        self.expect(0, args).0
    }
}
