//! What file system a node's folders lie on, and the one kind an agent warns about: ext4
//! without a journal. Every job makes three fresh inodes (its working folder, its
//! checkpoint folder, its log) and frees two at its end. Without a journal, ext4 will
//! not hand out an inode freed in the last minute or more, and checks every such inode
//! one by one while looking for a free one, so each new job's folders cost more the
//! more jobs ended recently. Measured with `bench e2e` (5,000 trivial jobs): 1.4 ms of the agent's
//! CPU a job with its folders on such a disk, 0.14 ms on tmpfs.

use std::path::Path;

/// A mounted file system: its type and the device it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct Mount {
    pub fstype: String,
    pub source: String,
    pub point: String,
}

impl Mount {
    /// ext4 whose device has no journal (the kernel lists each journal it runs).
    pub fn ext4_without_journal(&self, journals: &[String]) -> bool {
        let device = self.source.rsplit('/').next().unwrap_or_default();
        self.fstype == "ext4"
            && !device.is_empty()
            && !journals.iter().any(|j| j.rsplit_once('-').is_some_and(|(d, _)| d == device))
    }

    /// In words, for logs and benchmark figures: "tmpfs", "ext4 without a journal".
    pub fn describe(&self, journals: &[String]) -> String {
        if self.ext4_without_journal(journals) {
            "ext4 without a journal".to_string()
        } else {
            self.fstype.clone()
        }
    }
}

/// Mount points escape space, tab, newline and backslash as octal (`\040`).
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest.get(i + 1..i + 4).and_then(|o| u8::from_str_radix(o, 8).ok());
        match code {
            Some(c) => {
                out.push(char::from(c));
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The mount holding `path` (absolute, without links) in a `/proc/self/mountinfo` text:
/// the one with the longest mount point that contains it, the last mounted on a tie.
pub fn mount_of(mountinfo: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.lines() {
        // `id parent major:minor root point options [optional…] - fstype source options`
        let Some((left, right)) = line.split_once(" - ") else { continue };
        let Some(point) = left.split(' ').nth(4).map(unescape) else { continue };
        let mut right = right.split(' ');
        let (Some(fstype), Some(source)) = (right.next(), right.next()) else { continue };
        if !path.starts_with(&point) {
            continue;
        }
        if best.as_ref().is_none_or(|b| point.len() >= b.point.len()) {
            best = Some(Mount { fstype: fstype.into(), source: unescape(source), point });
        }
    }
    best
}

/// The journals the kernel runs (`/proc/fs/jbd2`: one entry per device, `vda-8`).
pub fn journals() -> Vec<String> {
    std::fs::read_dir("/proc/fs/jbd2")
        .map(|d| d.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
        .unwrap_or_default()
}

/// The file system `dir` lies on, in words; None where the system does not say.
pub fn describe(dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    Some(mount_of(&mountinfo, &dir)?.describe(&journals()))
}

/// A warning for each of the node's folders on ext4 without a journal.
pub fn warn_if_slow(folders: &[(&str, &Path)]) {
    let Ok(mountinfo) = std::fs::read_to_string("/proc/self/mountinfo") else { return };
    let journals = journals();
    for (name, dir) in folders {
        if mount_of(&mountinfo, dir).is_some_and(|m| m.ext4_without_journal(&journals)) {
            tracing::warn!(
                folder = %dir.display(),
                "{name} is on ext4 without a journal: creating each job's folders slows down \
                 as jobs end (the file system checks every recently freed inode); a \
                 journaled file system or tmpfs avoids it"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
23 22 0:21 / /dev/shm rw,relatime shared:2 - tmpfs tmpfs rw,size=1024k
24 22 259:1 / /scratch\\040disk rw,relatime shared:3 - ext4 /dev/nvme0n1p1 rw
25 22 0:30 / /tmp rw - tmpfs tmpfs rw
26 25 254:0 /x /tmp/bind rw - ext4 /dev/vda rw";

    fn at(path: &str) -> Mount {
        mount_of(MOUNTINFO, Path::new(path)).expect("a mount")
    }

    #[test]
    fn the_longest_containing_mount_point_wins() {
        assert_eq!(at("/home/a").point, "/");
        assert_eq!(at("/dev/shm/jobs").fstype, "tmpfs");
        assert_eq!(at("/scratch disk/jobs").source, "/dev/nvme0n1p1");
        assert_eq!(at("/tmp/x").fstype, "tmpfs");
        assert_eq!(at("/tmp/bind/y").fstype, "ext4");
        // A sibling whose name starts the same is not inside the mount.
        assert_eq!(at("/tmpfoo").point, "/");
    }

    #[test]
    fn only_ext4_without_a_listed_journal_is_flagged() {
        let journals = vec!["nvme0n1p1-8".to_string()];
        assert!(at("/var/lib/agent").ext4_without_journal(&journals));
        assert_eq!(at("/var/lib/agent").describe(&journals), "ext4 without a journal");
        assert!(!at("/scratch disk/jobs").ext4_without_journal(&journals));
        assert!(!at("/dev/shm").ext4_without_journal(&journals));
        assert_eq!(at("/dev/shm").describe(&journals), "tmpfs");
        // With its journal listed, the root disk is fine.
        assert!(!at("/").ext4_without_journal(&["vda-8".to_string()]));
    }
}
