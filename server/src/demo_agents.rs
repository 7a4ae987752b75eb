//! `serve --demo-agents`: an agent process with fake GPUs for every node in the records,
//! so that on one machine the demo's jobs really run, checkpoint, log and finish. Each
//! agent gets a fresh node token and dies with the server. They follow the rules of any
//! agent (finding 1): started with nothing of the server's environment but their token,
//! their state, jobs and checkpoints in a folder beside the data folder (never in it),
//! and, when the server runs as root, their jobs as `nobody`.

use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use sqlx::Row;

use crate::fleet::tokens;
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
    let home = agents_home(data_dir)?;
    // SAFETY: geteuid has no preconditions.
    let run_as = (unsafe { libc::geteuid() } == 0 && crate::agent::accounts::lookup("nobody").is_ok())
        .then_some("nobody");
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
        let new = tokens::Issue { node: name.clone(), ..tokens::Issue::default() };
        let token = tokens::issue_as(store, &new, "tidepool serve --demo-agents", now)
            .await
            .map_err(|e| e.to_string())?
            .token;
        let mut command = Command::new(&exe);
        command
            .args(["agent", "--server", &format!("http://{addr}"), "--fake-gpus", &format!("{gpus}x{model}")])
            .arg("--state-dir")
            .arg(home.join("state").join(&name))
            .arg("--jobs-root")
            .arg(home.join("jobs").join(&name))
            .arg("--checkpoint-root")
            .arg(home.join("checkpoints"))
            .args(run_as.iter().flat_map(|a| ["--run-as", a]))
            .env_clear()
            .env("PATH", crate::agent::launch::PATH)
            .env("TIDEPOOL_NODE_TOKEN", token)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: prctl and umask are async-signal-safe; it only asks the kernel to signal the child
        // when the server (its parent) dies, so no agent outlives a killed server.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                // The server's own mask (077, for its data folder) would make the shared
                // checkpoint and jobs folders untraversable by the jobs' account; the
                // agent sets its private folders' modes itself.
                libc::umask(0o022);
                Ok(())
            });
        }
        agents.0.push(command.spawn().map_err(|e| format!("cannot start the agent of {name}: {e}"))?);
    }
    Ok(agents)
}

/// `DATA-agents`, beside the data folder: jobs never run inside the server's data.
fn agents_home(data_dir: &Path) -> Result<PathBuf, String> {
    let data = data_dir.canonicalize().map_err(|e| format!("{}: {e}", data_dir.display()))?;
    let name = data.file_name().map_or("tidepool".into(), |n| n.to_string_lossy().into_owned());
    let home = data.with_file_name(format!("{name}-agents"));
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    // Reachable by the jobs' account on the way to their folders; listable by no one else.
    std::fs::set_permissions(&home, std::os::unix::fs::PermissionsExt::from_mode(0o711))
        .map_err(|e| format!("{}: {e}", home.display()))?;
    Ok(home)
}
