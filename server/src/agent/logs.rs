//! A job's output on its way to the server. Whatever a job prints, the chunks the agent
//! sends are text the server takes (finding 3): cut on UTF-8 boundaries (a character
//! split across two reads waits for its last bytes), invalid bytes as U+FFFD, NUL bytes
//! dropped (PostgreSQL's text refuses them), and small enough once JSON-encoded that a
//! report stays well under the server's body limit, however many control characters
//! (6 bytes each once escaped) or invalid bytes (3 each) they hold.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use crate::fleet::protocol::{Fence, LogChunk};

/// Raw bytes read per chunk: at most 6 times this once encoded, 3 times as text.
pub const RAW_CHUNK: usize = 16 * 1024;
/// Encoded bytes of log chunks per report (the server takes 256 KiB bodies).
pub const REPORT_BUDGET: usize = 128 * 1024;

/// One allocation's output file and how far the agent has read it.
pub struct LogTail {
    pub fence: Fence,
    pub file: PathBuf,
    /// Bytes of the file read into chunks so far.
    pub read: u64,
}

impl LogTail {
    /// The next chunk of output; `ended`: the process is gone, so a character cut at the
    /// end will never be completed. `None`: nothing more to read now.
    pub fn next(&mut self, ended: bool) -> Option<LogChunk> {
        loop {
            let mut f = std::fs::File::open(&self.file).ok()?;
            f.seek(SeekFrom::Start(self.read)).ok()?;
            let mut buf = Vec::with_capacity(RAW_CHUNK);
            f.take(RAW_CHUNK as u64).read_to_end(&mut buf).ok()?;
            let (text, used) = clean(&buf, ended);
            if used == 0 {
                return None;
            }
            let offset = self.read;
            self.read += used as u64;
            // Only NULs: nothing to send, but the bytes are read.
            if !text.is_empty() {
                return Some(LogChunk { fence: self.fence, offset, text });
            }
        }
    }
}

/// The text of `buf` and how many of its bytes it covers: all of them, less an
/// incomplete character at the end unless `ended`.
pub fn clean(buf: &[u8], ended: bool) -> (String, usize) {
    let used = if ended { buf.len() } else { complete_prefix(buf) };
    let text = String::from_utf8_lossy(&buf[..used]);
    let text = if text.contains('\0') { text.replace('\0', "") } else { text.into_owned() };
    (text, used)
}

/// The length of `buf` without a trailing, still incomplete UTF-8 sequence.
fn complete_prefix(buf: &[u8]) -> usize {
    let n = buf.len();
    for back in 1..=n.min(4) {
        let b = buf[n - back];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for the lead
        }
        let needs = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 1, // ASCII, or a byte that never starts a character
        };
        return if needs > back { n - back } else { n };
    }
    n
}

/// Output read and not yet taken by the server, and the output of ended processes still
/// to read.
#[derive(Default)]
pub struct Outbox {
    pub pending: Vec<LogChunk>,
    pub ended: Vec<LogTail>,
}

impl Outbox {
    /// The chunks for the next report, ended processes' output first, at most the budget
    /// (at least one chunk), and whether more waits to be sent.
    pub fn next<'a>(&mut self, running: impl Iterator<Item = &'a mut LogTail>) -> (Vec<LogChunk>, bool) {
        let mut total: usize = self.pending.iter().map(encoded_len).sum();
        let mut full = false;
        let tails = self.ended.iter_mut().map(|t| (t, true)).chain(running.map(|t| (t, false)));
        for (tail, ended) in tails {
            while total < REPORT_BUDGET
                && let Some(chunk) = tail.next(ended)
            {
                total += encoded_len(&chunk);
                self.pending.push(chunk);
            }
            full |= total >= REPORT_BUDGET;
        }
        // An ended process's output read to the end is no longer needed on disk.
        self.ended.retain(|t| {
            let done = t.read >= std::fs::metadata(&t.file).map_or(0, |m| m.len());
            if done {
                let _ = std::fs::remove_file(&t.file);
            }
            !done
        });
        let mut size = 0;
        let take = self
            .pending
            .iter()
            .enumerate()
            .take_while(|(k, c)| {
                size += encoded_len(c);
                *k == 0 || size <= REPORT_BUDGET
            })
            .count();
        (self.pending[..take].to_vec(), full || take < self.pending.len())
    }

    /// The first `n` chunks are the server's now (taken, or refused for good).
    pub fn sent(&mut self, n: usize) {
        self.pending.drain(..n.min(self.pending.len()));
    }
}

/// A chunk's size in a report, as JSON.
pub fn encoded_len(chunk: &LogChunk) -> usize {
    serde_json::to_string(chunk).map_or(usize::MAX, |s| s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_is_never_split_and_nul_is_dropped() {
        let e = "é".as_bytes(); // two bytes
        let buf = [b"ab\0c".as_slice(), &e[..1]].concat();
        assert_eq!(clean(&buf, false), ("abc".to_string(), 4));
        assert_eq!(clean(&buf, true), ("abc\u{fffd}".to_string(), 5));
        let euro = "€".as_bytes(); // three bytes
        assert_eq!(clean(&[b'x', euro[0], euro[1]], false).1, 1);
        assert_eq!(clean(euro, false), ("€".to_string(), 3));
        // Bytes that start no character are not waited for.
        assert_eq!(clean(&[0xff; 5], false), ("\u{fffd}".repeat(5), 5));
    }

    #[test]
    fn the_worst_chunk_stays_within_the_budget() {
        let fence = Fence { allocation: 1, epoch: 1 };
        for byte in [0x01u8, 0xff, 0x00, b'"'] {
            let (text, _) = clean(&[byte; RAW_CHUNK], true);
            let chunk = LogChunk { fence, offset: 0, text };
            assert!(encoded_len(&chunk) <= 6 * RAW_CHUNK + 100, "{byte:#x}");
            assert!(chunk.text.len() <= 3 * RAW_CHUNK);
        }
    }
}
