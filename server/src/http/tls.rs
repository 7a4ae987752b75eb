//! The TLS side of the listener: the handshake within a deadline, and the client
//! certificate it verified, which travels with every request of the connection.
//!
//! Mutual TLS for agents (`serve --tls-client-ca`): rustls verifies a presented client
//! certificate against the CA during the handshake (an unverifiable one fails it), and
//! lets a connection without one through, for browsers. When the server asks for client
//! certificates, every request carries a [`ClientCertificate`] extension, holding the
//! verified certificate or none; the agent routes (`NodeCaller`, in `http/agent.rs`)
//! refuse a request whose extension holds none, before they look at the node token. A
//! server without `--tls-client-ca` attaches no extension and the agent routes ask for
//! the node token alone.

use std::sync::Arc;

use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use super::listen::{Limits, MAKE_ROOM_AFTER};

/// The end-entity certificate (DER) the client presented and the server's CA verified;
/// `None` when the client presented none.
#[derive(Clone, Debug)]
pub struct ClientCertificate(pub Option<Arc<[u8]>>);

impl ClientCertificate {
    /// The refusal of an agent's request without a verified certificate, if it is one.
    pub fn refusal(&self) -> Option<String> {
        self.0.is_none().then(|| {
            "this server asks agents for a client certificate signed by its client CA \
             (--tls-client-ca): start the agent with --client-cert and --client-key"
                .to_string()
        })
    }
}

/// Completes the handshake within the header timeout. A client that opens a connection
/// and never finishes it is dropped then, or sooner when the connection cap is reached
/// and its handshake has run for a second (as an idle connection makes room).
pub(super) async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    limits: &Limits,
    room: &Notify,
) -> Option<(TlsStream<TcpStream>, ClientCertificate)> {
    let started = Instant::now();
    let deadline = tokio::time::sleep(limits.header_timeout);
    let accept = acceptor.accept(stream);
    tokio::pin!(deadline, accept);
    loop {
        tokio::select! {
            done = &mut accept => match done {
                Ok(stream) => {
                    let leaf = stream.get_ref().1.peer_certificates().and_then(|c| c.first());
                    let cert = ClientCertificate(leaf.map(|c| Arc::from(c.as_ref())));
                    return Some((stream, cert));
                }
                Err(e) => {
                    tracing::debug!(error = %e, "TLS handshake failed");
                    return None;
                }
            },
            _ = &mut deadline => {
                tracing::debug!("TLS handshake not done within the header timeout");
                return None;
            }
            _ = room.notified() => {
                if started.elapsed() >= MAKE_ROOM_AFTER {
                    return None;
                }
            }
        }
    }
}
