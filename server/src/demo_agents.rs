//! `serve --demo-agents`: an agent process with fake GPUs for every node in the records,
//! so that on one machine the demo's jobs really run, checkpoint, log and finish. Each
//! agent gets a fresh node token and dies with the server.

use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use sqlx::Row;

use crate::store::Store;

/// The agents, stopped when this is dropped.
pub struct DemoAgents(Vec<Child>);

impl Drop for DemoAgents {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub async fn start(store: &Store, addr: SocketAddr, data_dir: &Path, now: i64) -> Result<DemoAgents, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let nodes = sqlx::query("SELECT name, model, gpus FROM nodes ORDER BY id")
        .fetch_all(&store.pool)
        .await
        .map_err(|e| e.to_string())?;
    let mut agents = DemoAgents(Vec::new());
    for n in nodes {
        let (name, model, gpus): (String, String, i64) = (
            n.try_get(0).map_err(|e| e.to_string())?,
            n.try_get(1).map_err(|e| e.to_string())?,
            n.try_get(2).map_err(|e| e.to_string())?,
        );
        let token = store
            .issue_node_token(&name, "tidepool serve --demo-agents", now)
            .await
            .map_err(|e| e.to_string())?;
        let mut command = Command::new(&exe);
        command
            .args(["agent", "--server", &format!("http://{addr}"), "--fake-gpus", &format!("{gpus}x{model}")])
            .arg("--state-dir")
            .arg(data_dir.join("agents").join(&name))
            .arg("--checkpoint-root")
            .arg(data_dir.join("checkpoints"))
            .env("TIDEPOOL_NODE_TOKEN", token)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: prctl is async-signal-safe; it only asks the kernel to signal the child
        // when the server (its parent) dies, so no agent outlives a killed server.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        agents.0.push(command.spawn().map_err(|e| format!("cannot start the agent of {name}: {e}"))?);
    }
    Ok(agents)
}
