//! What an agent sets up once, before any job: its folders (absolute, never one inside
//! another, its own state private to it), the accounts jobs run as, and how jobs are
//! confined (bubblewrap, podman for jobs with an image, or plain processes where a site
//! chose them). Each job then gets its working folder and checkpoint folder from here.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::agent::accounts::{Account, Accounts};
use crate::agent::launch::{self, JobDirs, Launch};
use crate::cli::{AgentArgs, SandboxKind};
use crate::fleet::protocol::Assignment;

pub struct Setup {
    pub state_dir: PathBuf,
    pub logs: PathBuf,
    pub jobs_root: PathBuf,
    pub checkpoint_root: PathBuf,
    pub accounts: Accounts,
    bwrap: Option<PathBuf>,
    pub podman: Option<PathBuf>,
    pub containers_conf: PathBuf,
    network: bool,
    fake_gpus: bool,
}

/// `dir`, made if missing, with `mode`, as an absolute path without links.
fn folder(dir: &Path, mode: Option<u32>) -> Result<PathBuf, String> {
    let shown = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(shown)?;
    if let Some(mode) = mode {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).map_err(shown)?;
    }
    dir.canonicalize().map_err(shown)
}

/// An installed program, by absolute path (a job's PATH never chooses it).
fn installed(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| launch::PATH.into());
    std::env::split_paths(&path)
        .chain(["/usr/bin", "/usr/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

impl Setup {
    pub fn new(args: &AgentArgs) -> Result<Setup, String> {
        let state_dir = folder(&args.state_dir, Some(0o700))?;
        let logs = folder(&state_dir.join("logs"), Some(0o700))?;
        let default_jobs = PathBuf::from(format!("{}-jobs", state_dir.display()));
        // Traversable, not listable: a job reaches its own folder, never sees the others.
        let jobs_root = folder(args.jobs_root.as_deref().unwrap_or(&default_jobs), Some(0o711))?;
        let checkpoint_root = folder(&args.checkpoint_root, None)?;
        for (name, dir) in [("--jobs-root", &jobs_root), ("--checkpoint-root", &checkpoint_root)] {
            if dir.starts_with(&state_dir) || state_dir.starts_with(dir) {
                return Err(format!(
                    "{name} {} and --state-dir {} overlap: jobs would reach the agent's state",
                    dir.display(),
                    state_dir.display()
                ));
            }
        }
        let accounts = Accounts::new(args.run_as.as_deref(), args.run_as_map.as_deref())?;
        let bwrap = match (args.sandbox, installed("bwrap")) {
            (SandboxKind::None, _) => None,
            (_, Some(b)) => Some(b),
            (SandboxKind::Bwrap, None) => return Err("--sandbox bwrap: bubblewrap is not installed".into()),
            (SandboxKind::Auto, None) => {
                tracing::warn!("bubblewrap is not installed: jobs run as plain processes");
                None
            }
        };
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 && !accounts.any() {
            tracing::warn!("jobs run as root (in their sandbox); give --run-as ACCOUNT");
        }
        let podman = installed("podman");
        let containers_conf = match std::env::var_os("CONTAINERS_CONF") {
            Some(c) => PathBuf::from(c),
            None => {
                let conf = state_dir.join("containers.conf");
                std::fs::write(&conf, "[containers]\ndefault_ulimits = []\n")
                    .map_err(|e| format!("{}: {e}", conf.display()))?;
                conf
            }
        };
        Ok(Setup {
            state_dir,
            logs,
            jobs_root,
            checkpoint_root,
            accounts,
            bwrap,
            podman,
            containers_conf,
            network: args.job_network,
            fake_gpus: args.fake_gpus.is_some(),
        })
    }

    /// How jobs are confined, in words, for the agent's first line.
    pub fn describe(&self) -> String {
        let sandbox = if self.bwrap.is_some() { "bubblewrap" } else { "plain processes" };
        let images = if self.podman.is_some() { "podman" } else { "none (podman is not installed)" };
        format!("jobs in {} (sandbox: {sandbox}; images: {images})", self.jobs_root.display())
    }

    /// The job's folders, made and given to its account: a fresh working folder, and its
    /// checkpoint folder (kept across segments).
    pub fn folders(&self, a: &Assignment, account: Option<&Account>) -> Result<JobDirs, String> {
        let name = &a.checkpoint;
        if name.is_empty()
            || name == "."
            || name == ".."
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err(format!("`{name}` is not a checkpoint folder name"));
        }
        let dirs = JobDirs {
            work: self.jobs_root.join(format!("alloc-{}", a.fence.allocation)),
            checkpoint: self.checkpoint_root.join(name),
        };
        let _ = std::fs::remove_dir_all(&dirs.work);
        for dir in [&dirs.work, &dirs.checkpoint] {
            let shown = |e: std::io::Error| format!("{}: {e}", dir.display());
            std::fs::create_dir_all(dir).map_err(shown)?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(shown)?;
            if let Some(u) = account {
                std::os::unix::fs::lchown(dir, Some(u.uid), Some(u.gid)).map_err(shown)?;
            }
        }
        Ok(dirs)
    }

    /// What the shim runs for `a`: in its image, in the sandbox, or plain.
    pub fn launch(
        &self,
        a: &Assignment,
        dirs: &JobDirs,
        account: Option<&Account>,
    ) -> Result<Launch, String> {
        let util = self.fake_gpus.then(|| dirs.work.join(".tidepool-util"));
        let env = launch::job_env(a, dirs, util.as_deref())?;
        match (&a.image, &self.podman, &self.bwrap) {
            (Some(image), Some(podman), _) => {
                launch::podman(podman, &self.containers_conf, image, a, dirs, env, account, self.network)
            }
            (Some(image), None, _) => {
                Err(format!("the job runs in image `{image}`, and this node has no podman to run images"))
            }
            (None, _, Some(bwrap)) => Ok(launch::bwrap(bwrap, a, dirs, env, account, self.network)),
            (None, _, None) => Ok(launch::plain(a, env, account)),
        }
    }

    /// Removes a container the agent started (killed job, or left over from a restart).
    pub fn remove_container(&self, name: &str) {
        if let Some(podman) = &self.podman {
            launch::remove_container(podman, &self.containers_conf, name);
        }
    }
}
