//! How a job is started: its environment, built from nothing (finding 1), and the
//! command line that confines it. A job sees only its working folder and checkpoint
//! folder (writable), the system read-only, a private /tmp, its GPUs' devices, and no
//! network unless the site allows it: in a bubblewrap sandbox, or in its image under
//! podman. Nothing of the agent's (its token, its state, other jobs' folders) and nothing
//! of the server's is in its environment or its view of the file system.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::agent::accounts::Account;
use crate::fleet::protocol::Assignment;

/// The PATH a job starts with (programs of the agent's own are found by absolute path).
pub const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The parts of /etc a sandboxed job sees: enough to name accounts, load libraries and
/// check certificates; never the shadow file or a site's configuration.
const ETC: &[&str] = &[
    "passwd",
    "group",
    "hosts",
    "nsswitch.conf",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "alternatives",
    "ssl",
    "ca-certificates",
    "resolv.conf",
    "os-release",
    "mime.types",
];

/// Variables the C library ignores in privileged programs because they load code or
/// redirect files; a job's env may not set them (the shim and bwrap start from it).
const REFUSED: &[&str] = &[
    "GCONV_PATH",
    "GETCONF_DIR",
    "HOSTALIASES",
    "LOCALDOMAIN",
    "LOCPATH",
    "MALLOC_TRACE",
    "NIS_PATH",
    "NLSPATH",
    "RESOLV_HOST_CONF",
    "RES_OPTIONS",
    "TMPDIR",
    "TZDIR",
    "GLIBC_TUNABLES",
    "HOME",
    "CUDA_VISIBLE_DEVICES",
];

/// A job's two folders, absolute.
pub struct JobDirs {
    pub work: PathBuf,
    pub checkpoint: PathBuf,
}

/// What the shim is to run, as whom, with which environment.
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: BTreeMap<String, String>,
    /// Drop to this account before the program starts.
    pub account: Option<(u32, u32)>,
    /// The podman container to remove when the job is killed.
    pub container: Option<String>,
}

/// Why a key of the assignment's env is refused, if it is.
fn refused(key: &str) -> Option<&'static str> {
    let valid = !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        Some("is not a variable name")
    } else if key.starts_with("TIDEPOOL_") {
        Some("is Tidepool's own")
    } else if key.starts_with("LD_") || REFUSED.contains(&key) {
        Some("is set by the agent or changes how programs load")
    } else {
        None
    }
}

/// The job's whole environment: the allow-list, its `TIDEPOOL_*`, its GPUs, and the env
/// of its assignment.
pub fn job_env(
    a: &Assignment,
    dirs: &JobDirs,
    util_file: Option<&Path>,
) -> Result<BTreeMap<String, String>, String> {
    for (k, v) in &a.env {
        if let Some(why) = refused(k) {
            return Err(format!("environment variable `{k}` {why}"));
        }
        if v.contains('\0') {
            return Err(format!("environment variable `{k}` holds a NUL byte"));
        }
    }
    let mut env = BTreeMap::from([
        ("PATH".to_string(), PATH.to_string()),
        ("LANG".to_string(), std::env::var("LANG").unwrap_or_else(|_| "C.UTF-8".into())),
    ]);
    if let Ok(term) = std::env::var("TERM") {
        env.insert("TERM".into(), term);
    }
    env.extend(a.env.clone());
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let visible: Vec<String> = a.gpus.iter().map(u8::to_string).collect();
    env.insert("HOME".into(), path(&dirs.work));
    env.insert("CUDA_VISIBLE_DEVICES".into(), visible.join(","));
    env.insert("TIDEPOOL_JOB_ID".into(), a.job.to_string());
    env.insert("TIDEPOOL_ALLOCATION_ID".into(), a.fence.allocation.to_string());
    env.insert("TIDEPOOL_CHECKPOINT_DIR".into(), path(&dirs.checkpoint));
    if a.resume {
        env.insert("TIDEPOOL_RESUME".into(), "1".into());
    }
    if let Some(f) = util_file {
        env.insert("TIDEPOOL_FAKE_UTIL_FILE".into(), path(f));
    }
    Ok(env)
}

/// The device files of GPUs `gpus` (and the driver's shared ones) that exist here.
fn gpu_devices(gpus: &[u8]) -> Vec<String> {
    let mut devices: Vec<String> = gpus.iter().map(|g| format!("/dev/nvidia{g}")).collect();
    if !devices.is_empty() {
        devices.extend(["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"].map(String::from));
    }
    devices.retain(|d| Path::new(d).exists());
    devices
}

/// A plain process: the job's shell, as its account, with its environment.
pub fn plain(a: &Assignment, env: BTreeMap<String, String>, account: Option<&Account>) -> Launch {
    Launch {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), a.command.clone().into()],
        env,
        account: account.map(|u| (u.uid, u.gid)),
        container: None,
    }
}

/// The job's shell in a bubblewrap sandbox.
pub fn bwrap(
    bwrap: &Path,
    a: &Assignment,
    dirs: &JobDirs,
    env: BTreeMap<String, String>,
    account: Option<&Account>,
    network: bool,
) -> Launch {
    let mut args: Vec<OsString> = Vec::new();
    let mut add = |xs: &[&str]| args.extend(xs.iter().map(OsString::from));
    add(&["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"]);
    add(&["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"]);
    for e in ETC {
        let p = format!("/etc/{e}");
        add(&["--ro-bind-try", &p, &p]);
    }
    add(&["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent"]);
    add(&["--cap-drop", "ALL"]);
    if network {
        add(&["--share-net"]);
    }
    for d in gpu_devices(&a.gpus) {
        add(&["--dev-bind", &d, &d]);
    }
    for dir in [&dirs.checkpoint, &dirs.work] {
        args.extend(["--bind".into(), dir.into(), dir.into()]);
    }
    args.extend(["--chdir".into(), dirs.work.clone().into(), "--".into(), "/bin/sh".into(), "-c".into()]);
    args.push(a.command.clone().into());
    Launch { program: bwrap.into(), args, env, account: account.map(|u| (u.uid, u.gid)), container: None }
}

/// Whether `image` is a plain image reference (no option, no shell).
fn valid_image(image: &str) -> bool {
    !image.is_empty()
        && image.len() <= 255
        && !image.starts_with('-')
        && image.chars().all(|c| c.is_ascii_alphanumeric() || "._/:@-".contains(c))
}

/// The container's name for an allocation.
pub fn container_name(allocation: i64) -> String {
    format!("tidepool-{allocation}")
}

/// The job's shell in its image under podman (runc: crun fails on this kind of machine;
/// `containers_conf`: podman's default ulimits cannot be set everywhere).
#[allow(clippy::too_many_arguments)]
pub fn podman(
    podman: &Path,
    containers_conf: &Path,
    image: &str,
    a: &Assignment,
    dirs: &JobDirs,
    env: BTreeMap<String, String>,
    account: Option<&Account>,
    network: bool,
) -> Result<Launch, String> {
    if !valid_image(image) {
        return Err(format!("`{image}` is not an image reference"));
    }
    let name = container_name(a.fence.allocation);
    let mut args: Vec<OsString> = Vec::new();
    let mut add = |xs: &[&str]| args.extend(xs.iter().map(OsString::from));
    add(&["--runtime", "runc", "run", "--rm", "--name", &name, "--pull", "never", "--cap-drop", "all"]);
    add(&["--security-opt", "no-new-privileges"]);
    if !network {
        add(&["--network", "none"]);
    }
    if let Some(u) = account {
        add(&["--user", &format!("{}:{}", u.uid, u.gid)]);
    }
    for d in gpu_devices(&a.gpus) {
        add(&["--device", &d]);
    }
    for dir in [&dirs.checkpoint, &dirs.work] {
        let d = dir.to_string_lossy();
        add(&["--volume", &format!("{d}:{d}")]);
    }
    add(&["--workdir", &dirs.work.to_string_lossy()]);
    // The job's env goes in as flags: podman itself runs with the agent's few variables,
    // so a job's env can never change how podman (root) behaves.
    for (k, v) in &env {
        add(&["--env", &format!("{k}={v}")]);
    }
    add(&["--", image, "/bin/sh", "-c", &a.command]);
    let podman_env = BTreeMap::from([
        ("PATH".to_string(), PATH.to_string()),
        ("HOME".to_string(), std::env::var("HOME").unwrap_or_else(|_| "/root".into())),
        ("CONTAINERS_CONF".to_string(), containers_conf.to_string_lossy().into_owned()),
        ("TIDEPOOL_ALLOCATION_ID".to_string(), a.fence.allocation.to_string()),
    ]);
    Ok(Launch { program: podman.into(), args, env: podman_env, account: None, container: Some(name) })
}

/// Removes a job's container at once (after a SIGKILL of podman, or an agent's death).
pub fn remove_container(podman: &Path, containers_conf: &Path, name: &str) {
    let _ = std::process::Command::new(podman)
        .args(["--runtime", "runc", "rm", "--force", "--ignore", "--time", "0", name])
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", std::env::var_os("HOME").unwrap_or_else(|| "/root".into()))
        .env("CONTAINERS_CONF", containers_conf)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loader_and_tidepool_variables_are_refused() {
        for k in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "TIDEPOOL_NODE_TOKEN",
            "GLIBC_TUNABLES",
            "HOME",
            "A B",
            "1X",
            "",
        ] {
            assert!(refused(k).is_some(), "{k}");
        }
        for k in ["EPOCHS", "NCCL_DEBUG", "PATH", "_x1"] {
            assert!(refused(k).is_none(), "{k}");
        }
        assert!(valid_image("localhost/test:1") && valid_image("reg.io/a/b@sha256:00ff"));
        assert!(!valid_image("--privileged") && !valid_image("a b") && !valid_image("a;b"));
    }
}
