//! Precompiled policy modules kept on disk between runs. Loading one is running native
//! code in the server, so an artifact is trusted only if it carries a MAC made with a
//! key derived from the server's secret: a file that anyone else wrote or changed (a job
//! on the same machine, a restored backup from elsewhere) is recompiled from the module's
//! bytes instead of loaded. The folder is the server's own (0700).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Where artifacts live and the key that signs them.
#[derive(Clone)]
pub struct ArtifactCache {
    dir: PathBuf,
    key: [u8; 32],
}

const MAC_BYTES: usize = 32;

/// HMAC-SHA256 (RFC 2104) over the parts, in order.
fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    for p in parts {
        inner.update(p);
    }
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl ArtifactCache {
    /// A cache in `dir` whose artifacts are signed with a key derived from `secret`.
    pub fn new(dir: PathBuf, secret: &[u8]) -> ArtifactCache {
        ArtifactCache { dir, key: hmac(secret, &[b"tidepool policy artifacts v1"]) }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes the folder, readable and writable by the server's user only.
    pub fn prepare(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }

    fn path(&self, sha256: &str) -> PathBuf {
        self.dir.join(format!("{sha256}.cwasm"))
    }

    /// The artifact compiled from the module `sha256`, if one is stored and its MAC holds.
    pub fn read(&self, sha256: &str) -> Option<Vec<u8>> {
        let file = std::fs::read(self.path(sha256)).ok()?;
        if file.len() <= MAC_BYTES {
            return None;
        }
        let (mac, artifact) = file.split_at(MAC_BYTES);
        same(mac, &hmac(&self.key, &[sha256.as_bytes(), artifact])).then(|| artifact.to_vec())
    }

    /// Stores `artifact` for the module `sha256`: written aside, then renamed into place.
    pub fn write(&self, sha256: &str, artifact: &[u8]) -> std::io::Result<()> {
        let mac = hmac(&self.key, &[sha256.as_bytes(), artifact]);
        let tmp = self.dir.join(format!("{sha256}.cwasm.tmp"));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp)?;
        std::io::Write::write_all(&mut file, &mac)?;
        std::io::Write::write_all(&mut file, artifact)?;
        drop(file);
        std::fs::rename(&tmp, self.path(sha256))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_the_rfc_4231_vector() {
        // RFC 4231, test case 2.
        let mac = hmac(b"Jefe", &[b"what do ya want ", b"for nothing?"]);
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn an_artifact_signed_with_another_key_or_for_another_module_is_refused() {
        let dir = std::env::temp_dir().join(format!("tidepool-artifacts-unit-{}", std::process::id()));
        let ours = ArtifactCache::new(dir.clone(), b"our secret, long enough to matter");
        ours.prepare().unwrap();
        ours.write("aa", b"native code").unwrap();
        assert_eq!(ours.read("aa").as_deref(), Some(&b"native code"[..]));
        let theirs = ArtifactCache::new(dir.clone(), b"someone else's secret, also long");
        assert_eq!(theirs.read("aa"), None, "a MAC made with another key");
        std::fs::copy(ours.path("aa"), ours.path("bb")).unwrap();
        assert_eq!(ours.read("bb"), None, "an artifact renamed to another module");
        let mut forged = std::fs::read(ours.path("aa")).unwrap();
        *forged.last_mut().unwrap() ^= 1;
        std::fs::write(ours.path("aa"), forged).unwrap();
        assert_eq!(ours.read("aa"), None, "a changed byte");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
