//! Real receivers on loopback for delivery tests: aiosmtpd storing each mail in a maildir
//! (its python is `TIDEPOOL_TEST_SMTPD`, from tests/smtp/venv.sh), and a webhook receiver
//! keeping every body it is posted, refusing the first `refuse` posts with 503.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// aiosmtpd's python, or `None` (the test says it is skipped) when the test command set none.
pub fn smtpd_python() -> Option<String> {
    match std::env::var_os("TIDEPOOL_TEST_SMTPD") {
        Some(p) => Some(p.to_string_lossy().to_string()),
        None => {
            eprintln!(
                "SKIPPED: TIDEPOOL_TEST_SMTPD (aiosmtpd's python, set by tests/run.sh via tests/smtp/venv.sh) is not set"
            );
            None
        }
    }
}

/// aiosmtpd storing each message it accepts in a maildir; killed when dropped.
pub struct SmtpServer {
    child: Child,
    pub port: u16,
    maildir: PathBuf,
}

impl SmtpServer {
    pub async fn start(python: &str, dir: &Path) -> SmtpServer {
        let port = super::live::free_port();
        let maildir = dir.join("maildir");
        let mut child = Command::new(python)
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(&maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("aiosmtpd starts");
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return SmtpServer { child, port, maildir };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("aiosmtpd did not listen on {port}");
    }

    /// The messages received, as text.
    pub fn mails(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.maildir.join("new")) else { return vec![] };
        entries.map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("a mail")).collect()
    }

    /// The messages addressed to `to`.
    pub fn mails_to(&self, to: &str) -> Vec<String> {
        self.mails()
            .into_iter()
            .filter(|m| m.lines().any(|l| l.eq_ignore_ascii_case(&format!("to: {to}"))))
            .collect()
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every POST a [`webhook`] received: (status answered, body).
pub type Posts = Arc<Mutex<Vec<(u16, String)>>>;

/// A webhook receiver on loopback: its URL and what it was posted.
pub async fn webhook(refuse: usize) -> (String, Posts) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let got: Posts = Arc::default();
    let seen = got.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut conn, _)) = listener.accept().await else { return };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            let body = loop {
                let n = conn.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break None;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                let Some(head_end) = text.find("\r\n\r\n") else { continue };
                let length = text[..head_end]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length").then(|| v.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if buf.len() >= head_end + 4 + length {
                    break Some(
                        String::from_utf8_lossy(&buf[head_end + 4..head_end + 4 + length]).to_string(),
                    );
                }
            };
            let Some(body) = body else { continue };
            let status = {
                let mut seen = seen.lock().expect("lock");
                let status = if seen.len() < refuse { 503 } else { 200 };
                seen.push((status, body));
                status
            };
            let answer = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = conn.write_all(answer.as_bytes()).await;
        }
    });
    (url, got)
}
