//! What the command line keeps between runs, in `$XDG_CONFIG_HOME/tidepool/` (else
//! `~/.config/tidepool/`): `config.json` names the server and user last signed in to;
//! `session.json` holds the tokens (mode 0600, in a 0700 folder). Refreshing happens
//! under a lock on `session.lock`: refresh tokens are good once, so two commands
//! refreshing the same one at once would end the session (reuse detection).

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::client::Failure;

/// Non-secret settings: where to go when no `--server` or TIDEPOOL_SERVER says.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Config {
    pub server: Option<String>,
    pub username: Option<String>,
}

/// A sign-in: the tokens for one server and user.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Session {
    pub server: String,
    pub username: String,
    pub access_token: String,
    /// Unix seconds; refreshed a little before.
    pub access_expires_at: i64,
    /// Good for one refresh; each refresh brings the next.
    pub refresh_token: String,
}

/// The folder: `$XDG_CONFIG_HOME/tidepool`, else `$HOME/.config/tidepool`.
pub fn dir() -> Result<PathBuf, Failure> {
    let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join(".config"),
            None => return Err(Failure::Usage("neither XDG_CONFIG_HOME nor HOME is set".into())),
        },
    };
    Ok(base.join("tidepool"))
}

fn io(what: &str, path: &Path, e: std::io::Error) -> Failure {
    Failure::Usage(format!("{what} {}: {e}", path.display()))
}

/// Creates the folder (0700) if it is missing, and tightens it if it is not.
fn ensure_dir(dir: &Path) -> Result<(), Failure> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| io("cannot create", dir, e))?;
    std::fs::set_permissions(dir, Permissions::from_mode(0o700)).map_err(|e| io("cannot protect", dir, e))
}

fn read<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, Failure> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Failure::Usage(format!("{} is damaged ({e}): delete it and sign in again", path.display()))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("cannot read", path, e)),
    }
}

/// Writes `value` to `path` with mode 0600 through a temporary file, so a reader never
/// sees half a file and the tokens are never readable by others, even for a moment.
fn write<T: Serialize>(path: &Path, value: &T) -> Result<(), Failure> {
    let dir = path.parent().ok_or_else(|| Failure::Usage("no folder for the session".into()))?;
    ensure_dir(dir)?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let json = serde_json::to_vec_pretty(value).map_err(|e| Failure::Usage(e.to_string()))?;
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| io("cannot write", &tmp, e))?;
    file.set_permissions(Permissions::from_mode(0o600)).map_err(|e| io("cannot protect", &tmp, e))?;
    file.write_all(&json).and_then(|()| file.sync_all()).map_err(|e| io("cannot write", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io("cannot write", path, e))
}

pub fn load_config() -> Result<Config, Failure> {
    Ok(read(&dir()?.join("config.json"))?.unwrap_or_default())
}

pub fn save_config(config: &Config) -> Result<(), Failure> {
    write(&dir()?.join("config.json"), config)
}

pub fn load_session() -> Result<Option<Session>, Failure> {
    read(&dir()?.join("session.json"))
}

pub fn save_session(session: &Session) -> Result<(), Failure> {
    write(&dir()?.join("session.json"), session)
}

pub fn forget_session() -> Result<(), Failure> {
    let path = dir()?.join("session.json");
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("cannot delete", &path, e)),
        _ => Ok(()),
    }
}

/// An exclusive lock on the session, released when dropped (the file closes).
pub struct Lock(#[allow(dead_code)] File);

pub fn lock() -> Result<Lock, Failure> {
    let dir = dir()?;
    ensure_dir(&dir)?;
    let path = dir.join("session.lock");
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| io("cannot open", &path, e))?;
    // SAFETY: flock on a descriptor this function owns; blocking until the lock is ours.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io("cannot lock", &path, std::io::Error::last_os_error()));
    }
    Ok(Lock(file))
}

/// The server to talk to: `--server`, else TIDEPOOL_SERVER, else the one signed in to
/// last; `http://` is added to a bare `host:port`.
pub fn server(flag: Option<&str>, config: &Config) -> Option<String> {
    let env = std::env::var("TIDEPOOL_SERVER").ok().filter(|s| !s.trim().is_empty());
    let url = flag.map(str::to_string).or(env).or_else(|| config.server.clone())?;
    let url = url.trim().trim_end_matches('/');
    Some(if url.contains("://") { url.to_string() } else { format!("http://{url}") })
}
