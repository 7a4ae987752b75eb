//! TLS for the server and its clients (rustls, ring). `tidepool serve --tls-cert --tls-key`
//! serves HTTPS; `--tls-client-ca` also asks for client certificates, which browsers may
//! leave out but agents must present (checked by the agent routes). Agents and the command
//! line trust a given CA (`--ca-cert`) instead of the built-in public roots, and agents
//! may present a certificate of their own. Bad files are refused at start with the file's
//! name and what is wrong, never at the first connection.

use std::path::Path;
use std::sync::Arc;

use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;

/// What the listener needs: the handshake's settings, and whether agents must present a
/// verified client certificate.
#[derive(Clone)]
pub struct ServerTls {
    pub config: Arc<rustls::ServerConfig>,
    pub client_ca: bool,
}

fn certificates(flag: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let bad = |why: String| format!("{flag} {}: {why}", path.display());
    std::fs::metadata(path).map_err(|e| bad(e.to_string()))?;
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(format!("not readable as PEM: {e}")))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("not readable as PEM: {e}")))?;
    if certs.is_empty() {
        return Err(bad("holds no certificate (PEM `BEGIN CERTIFICATE` blocks)".into()));
    }
    Ok(certs)
}

fn private_key(flag: &str, path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    let bad = |why: String| format!("{flag} {}: {why}", path.display());
    std::fs::metadata(path).map_err(|e| bad(e.to_string()))?;
    PrivateKeyDer::from_pem_file(path)
        .map_err(|e| bad(format!("holds no private key readable as PEM (PKCS#8, PKCS#1 or SEC1): {e}")))
}

fn roots(flag: &str, path: &Path) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    for cert in certificates(flag, path)? {
        roots
            .add(cert)
            .map_err(|e| format!("{flag} {}: not a usable CA certificate: {e}", path.display()))?;
    }
    Ok(roots)
}

/// The server's TLS settings from its files; HTTP/1.1 only, as the listener serves.
pub fn server(cert: &Path, key: &Path, client_ca: Option<&Path>) -> Result<ServerTls, String> {
    let chain = certificates("--tls-cert", cert)?;
    let key = private_key("--tls-key", key)?;
    let builder = rustls::ServerConfig::builder();
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            // Browsers connect without a certificate; one that is presented must verify.
            let verifier = WebPkiClientVerifier::builder(Arc::new(roots("--tls-client-ca", ca)?))
                .allow_unauthenticated()
                .build()
                .map_err(|e| format!("--tls-client-ca {}: {e}", ca.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder.with_single_cert(chain, key).map_err(|e| {
        format!("--tls-cert {} and --tls-key: {e} (is the key the certificate's?)", cert.display())
    })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(ServerTls { config: Arc::new(config), client_ca: client_ca.is_some() })
}

/// A client's TLS files: a CA to trust instead of the public roots, and an identity
/// (certificate and key) for servers that ask agents for one.
#[derive(Clone, Debug, Default)]
pub struct ClientTls {
    pub ca_cert: Option<std::path::PathBuf>,
    pub client_cert: Option<std::path::PathBuf>,
    pub client_key: Option<std::path::PathBuf>,
}

impl ClientTls {
    /// `builder` with these files applied; checked here, so a bad file stops the start.
    pub fn apply(&self, mut builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, String> {
        if let Some(ca) = &self.ca_cert {
            let mut any = false;
            for cert in certificates("--ca-cert", ca)? {
                any = true;
                let cert = reqwest::Certificate::from_der(&cert)
                    .map_err(|e| format!("--ca-cert {}: {e}", ca.display()))?;
                builder = builder.add_root_certificate(cert);
            }
            roots("--ca-cert", ca)?;
            // The given CA alone: a server with a publicly signed certificate is not it.
            builder = builder.tls_built_in_root_certs(!any);
        }
        match (&self.client_cert, &self.client_key) {
            (None, None) => {}
            (Some(cert), Some(key)) => {
                certificates("--client-cert", cert)?;
                private_key("--client-key", key)?;
                let read = |flag: &str, p: &Path| {
                    std::fs::read(p).map_err(|e| format!("{flag} {}: {e}", p.display()))
                };
                let mut pem = read("--client-cert", cert)?;
                pem.push(b'\n');
                pem.extend(read("--client-key", key)?);
                let identity = reqwest::Identity::from_pem(&pem)
                    .map_err(|e| format!("--client-cert {} and --client-key: {e}", cert.display()))?;
                builder = builder.identity(identity);
            }
            _ => return Err("--client-cert and --client-key go together".into()),
        }
        Ok(builder)
    }
}
