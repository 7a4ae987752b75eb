//! Certificates made in the test (rcgen) and an HTTPS client for live servers: a CA, the
//! server's certificate for 127.0.0.1 and localhost, an agent's client certificate, and a
//! second CA with its own client certificate (trusted by nobody).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use serde_json::Value;

use super::live::Proc;

/// PEM files in a folder of the test's own.
pub struct Pki {
    pub ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
    pub other_ca: PathBuf,
    pub other_client_cert: PathBuf,
    pub other_client_key: PathBuf,
}

struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
}

fn ca(name: &str) -> Ca {
    let key = KeyPair::generate().expect("key");
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
    Ca { cert: params.self_signed(&key).expect("CA"), key }
}

/// A certificate for `names` signed by `ca`, for a server or a client: (cert, key) PEM.
fn leaf(ca: &Ca, names: &[&str], usage: ExtendedKeyUsagePurpose) -> (String, String) {
    let key = KeyPair::generate().expect("key");
    let mut params =
        CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("params");
    params.distinguished_name.push(DnType::CommonName, names[0]);
    params.extended_key_usages = vec![usage];
    let cert = params.signed_by(&key, &ca.cert, &ca.key).expect("signed");
    (cert.pem(), key.serialize_pem())
}

impl Pki {
    pub fn new(dir: &Path) -> Pki {
        let write = |name: &str, pem: &str| {
            let path = dir.join(name);
            std::fs::write(&path, pem).expect("PEM file");
            path
        };
        let (ours, other) = (ca("Tidepool test CA"), ca("Someone else's CA"));
        let (server_cert, server_key) =
            leaf(&ours, &["127.0.0.1", "localhost"], ExtendedKeyUsagePurpose::ServerAuth);
        let (client_cert, client_key) = leaf(&ours, &["lab-0"], ExtendedKeyUsagePurpose::ClientAuth);
        let (other_cert, other_key) = leaf(&other, &["lab-0"], ExtendedKeyUsagePurpose::ClientAuth);
        Pki {
            ca: write("ca.pem", &ours.cert.pem()),
            server_cert: write("server.pem", &server_cert),
            server_key: write("server-key.pem", &server_key),
            client_cert: write("client.pem", &client_cert),
            client_key: write("client-key.pem", &client_key),
            other_ca: write("other-ca.pem", &other.cert.pem()),
            other_client_cert: write("other-client.pem", &other_cert),
            other_client_key: write("other-client-key.pem", &other_key),
        }
    }
}

/// A blocking HTTPS client trusting `ca` (a browser that was told to trust it): no
/// client certificate unless one is given.
pub struct Https {
    pub base: String,
    rt: tokio::runtime::Runtime,
    http: reqwest::Client,
}

impl Https {
    pub fn new(addr: &str, ca: &Path, identity: Option<(&Path, &Path)>) -> Https {
        let pem = std::fs::read(ca).expect("CA file");
        let mut builder = reqwest::Client::builder()
            .add_root_certificate(reqwest::Certificate::from_pem(&pem).expect("CA"))
            .tls_built_in_root_certs(false)
            .timeout(Duration::from_secs(20));
        if let Some((cert, key)) = identity {
            let mut pem = std::fs::read(cert).expect("cert");
            pem.extend(std::fs::read(key).expect("key"));
            builder = builder.identity(reqwest::Identity::from_pem(&pem).expect("identity"));
        }
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        Https { base: format!("https://{addr}"), rt, http: builder.build().expect("client") }
    }

    /// (status, JSON body or Null); Err: the request did not get through (its cause).
    pub fn try_call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<(u16, Value), String> {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        if let Some(b) = body {
            request = request.json(&b);
        }
        self.rt.block_on(async move {
            let response = request.send().await.map_err(|e| chain(&e))?;
            let status = response.status().as_u16();
            let bytes = response.bytes().await.map_err(|e| chain(&e))?;
            Ok((status, serde_json::from_slice(&bytes).unwrap_or(Value::Null)))
        })
    }

    /// A request whose answer must be 2xx.
    #[track_caller]
    pub fn call(&self, method: &str, path: &str, token: &str, body: Option<Value>) -> Value {
        let (status, v) = self.try_call(method, path, Some(token), body).expect("request");
        assert!((200..300).contains(&status), "{method} {path}: {status} {v}");
        v
    }

    #[track_caller]
    pub fn login(&self, user: &str, password: &str) -> String {
        let body = serde_json::json!({ "username": user, "password": password });
        let (status, v) = self.try_call("POST", "/api/auth/login", None, Some(body)).expect("login");
        assert_eq!(status, 200, "{v}");
        v["access_token"].as_str().expect("token").to_string()
    }
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// `tidepool serve` over HTTPS on `addr` with `pki`'s server certificate (and `extra`
/// flags), up once `/healthz` answers over TLS.
pub fn serve_https(dir: &str, addr: &str, pki: &Pki, database: Option<&str>, extra: &[&str]) -> Proc {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tidepool"));
    cmd.args(["serve", "--data-dir", dir, "--listen", addr, "--dispatch-interval-s", "1"])
        .arg("--tls-cert")
        .arg(&pki.server_cert)
        .arg("--tls-key")
        .arg(&pki.server_key)
        .args(extra);
    if let Some(url) = database {
        cmd.args(["--database-url", url]);
    }
    let child = cmd.env("TIDEPOOL_ADMIN_PASSWORD", "admin-pw").stdout(Stdio::null()).stderr(Stdio::null());
    let server = Proc(child.spawn().expect("server starts"));
    let client = Https::new(addr, &pki.ca, None);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !matches!(client.try_call("GET", "/healthz", None, None), Ok((200, _))) {
        assert!(Instant::now() < deadline, "the HTTPS server did not come up");
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}

/// `tidepool agent` for node token `token` (4 fake T4 GPUs in pool `lab`) against
/// `server` with `flags` (its TLS files); stderr goes to `log`.
pub fn agent(server: &str, dir: &str, name: &str, token: &str, flags: &[(&str, &Path)], log: &Path) -> Proc {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tidepool"));
    cmd.args(["agent", "--server", server, "--fake-gpus", "4xT4", "--pool", "lab", "--wait-s", "1"]).args([
        "--state-dir",
        &format!("{dir}/{name}"),
        "--checkpoint-root",
        &format!("{dir}/ckpt"),
    ]);
    for (flag, file) in flags {
        cmd.arg(flag).arg(file);
    }
    let log = std::fs::File::create(log).expect("agent log");
    let child: Child = cmd
        .env("TIDEPOOL_NODE_TOKEN", token)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("agent starts");
    Proc(child)
}
