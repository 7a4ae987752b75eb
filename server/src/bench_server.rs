//! The server the end-to-end benchmarks measure: a real `tidepool serve` on loopback, in
//! a folder of its own, spoken to over real HTTP, stopped and cleaned away when dropped —
//! so the figures they print are what users go through, not a component's.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tidepool_api::{Login, Tokens};

use crate::agent::client::Client;

/// A running server; killed and its folder removed when dropped.
pub struct BenchServer {
    child: Child,
    dir: PathBuf,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

/// A fresh folder for the bench `name` (the server's data folder).
pub fn bench_dir(name: &str) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("tidepool-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

pub fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// The server's log: discarded, or kept in the file `TIDEPOOL_BENCH_LOG` names (each
/// cycle's duration is there, to see where a run's time went).
fn log_to() -> Result<Stdio, String> {
    let Some(path) = std::env::var_os("TIDEPOOL_BENCH_LOG") else { return Ok(Stdio::null()) };
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&path);
    file.map(Stdio::from).map_err(|e| format!("TIDEPOOL_BENCH_LOG {}: {e}", Path::new(&path).display()))
}

impl BenchServer {
    /// `tidepool serve --no-demo` on `dir` with the initial admin's `password` and the
    /// `extra` flags (a database URL, limits).
    pub fn start(dir: &Path, password: &str, extra: &[&str]) -> Result<BenchServer, String> {
        let addr = format!("127.0.0.1:{}", free_port()?);
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let child = Command::new(exe)
            .args(["serve", "--no-demo", "--listen", &addr, "--data-dir"])
            .arg(dir)
            .args(extra)
            .env("TIDEPOOL_ADMIN_PASSWORD", password)
            .stdout(Stdio::null())
            .stderr(log_to()?)
            .spawn()
            .map_err(|e| format!("cannot start the server: {e}"))?;
        Ok(BenchServer { child, dir: dir.to_path_buf(), addr })
    }

    /// The server's process id (for its CPU time).
    pub fn id(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for BenchServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Signs `username` in on a server that may still be starting and answers the access
/// token: while it cannot be reached (or answers 5xx) it is tried again for a minute; a
/// refusal is an error at once.
pub async fn sign_in(base: &str, username: &str, password: &str) -> Result<String, String> {
    let anon = Client::new(base, String::new())?;
    let body = Login { username: username.into(), password: password.into() };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match anon.post_within::<_, Tokens>("/api/auth/login", &body, Duration::from_secs(60)).await {
            Ok(t) => return Ok(t.access_token),
            Err(f) if !f.elsewhere => return Err(format!("sign-in as {username}: {}", f.message)),
            Err(f) if Instant::now() > deadline => {
                return Err(format!("the server did not come up: {}", f.message));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}
