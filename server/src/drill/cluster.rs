//! The drill's cluster: real `tidepool serve` processes (this binary) on one database and
//! real agents with fake GPUs, each in a folder of the drill's own, spoken to over
//! loopback HTTP. Everything is killed when the cluster is dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tidepool_api::health::{DispatchRole, Readiness};

/// What every process of the drill shares.
pub struct Shared {
    pub exe: PathBuf,
    pub dir: PathBuf,
    pub database_url: String,
    /// The token secret: every server must sign and check the same tokens.
    pub secret: String,
    pub admin_password: String,
}

/// One `tidepool serve`.
pub struct Server {
    pub addr: String,
    dir: PathBuf,
    child: Option<Child>,
}

/// The name a server's process holds the lease under (see `serve`).
pub const HOSTNAME: &str = "drill";

impl Server {
    pub fn start(shared: &Shared, index: usize) -> Result<Server, String> {
        let addr = format!("127.0.0.1:{}", crate::bench_server::free_port()?);
        let mut server = Server { addr, dir: shared.dir.join(format!("server-{index}")), child: None };
        server.spawn(shared)?;
        Ok(server)
    }

    /// Starts (or restarts, on the same address and folder) the process.
    pub fn spawn(&mut self, shared: &Shared) -> Result<(), String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("server.log"))
            .map_err(|e| e.to_string())?;
        let child = Command::new(&shared.exe)
            .args(["serve", "--no-demo", "--listen", &self.addr, "--database-url", &shared.database_url])
            .arg("--data-dir")
            .arg(&self.dir)
            .env("TIDEPOOL_SECRET", &shared.secret)
            .env("TIDEPOOL_ADMIN_PASSWORD", &shared.admin_password)
            .env("HOSTNAME", HOSTNAME)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start a server: {e}"))?;
        self.child = Some(child);
        Ok(())
    }

    /// The name on the lease while this process holds it.
    pub fn holder(&self) -> Option<String> {
        self.child.as_ref().map(|c| format!("{HOSTNAME}-{}", c.id()))
    }

    pub fn running(&self) -> bool {
        self.child.is_some()
    }

    /// SIGKILL: no shutdown, no lease released, as a crash or a power cut.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits until `/healthz` answers.
    pub async fn wait_alive(&self, http: &reqwest::Client, within: Duration) -> Result<(), String> {
        let until = Instant::now() + within;
        loop {
            let r = http.get(format!("{}/healthz", self.url())).send().await;
            if r.is_ok_and(|r| r.status().is_success()) {
                return Ok(());
            }
            if Instant::now() > until {
                return Err(format!("the server on {} did not come up (see its server.log)", self.addr));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// What `/readyz` says of this server's role.
    pub async fn role(&self, http: &reqwest::Client) -> Option<DispatchRole> {
        let r = http.get(format!("{}/readyz", self.url())).send().await.ok()?;
        let ready: Readiness = r.json().await.ok()?;
        Some(ready.dispatch)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One agent with fake GPUs; killed when dropped.
pub struct Agent(Child);

impl Agent {
    /// The agent `index` knows every server, its own list starting at a different one;
    /// `fake_gpus` is `COUNTxMODEL`.
    pub fn start(
        shared: &Shared,
        index: usize,
        servers: &[String],
        token: &str,
        pool: &str,
        fake_gpus: &str,
    ) -> Result<Agent, String> {
        let mut list = servers.to_vec();
        list.rotate_left(index % servers.len().max(1));
        let dir = shared.dir.join(format!("agent-{index}"));
        let log = log_file(&shared.dir.join(format!("agent-{index}.log")))?;
        let child = Command::new(&shared.exe)
            .args(["agent", "--server", &list.join(","), "--fake-gpus", fake_gpus, "--pool", pool])
            .args(["--sandbox", "none", "--wait-s", "5"])
            .arg("--state-dir")
            .arg(&dir)
            .arg("--checkpoint-root")
            .arg(shared.dir.join("checkpoints"))
            .env("TIDEPOOL_NODE_TOKEN", token)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start an agent: {e}"))?;
        Ok(Agent(child))
    }
}

impl Agent {
    /// The agent's process id (for its CPU time).
    pub fn id(&self) -> u32 {
        self.0.id()
    }
}

fn log_file(path: &Path) -> Result<std::fs::File, String> {
    std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
