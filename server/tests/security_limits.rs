//! Server limits (issue 10, finding 7: 1,100 idle connections made the API unreachable):
//! the real server over real sockets. Idle connections past the cap do not lock callers
//! out; a connection that sends half a header, or idles between requests, is closed; a
//! request slower than the request timeout is answered 503. Sign-in is throttled per
//! client address over a real socket too (finding 6).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::live::{free_port, http, login, serve};

fn temp_dir(name: &str) -> String {
    common::fresh_dir(name).to_string_lossy().into_owned()
}

/// Reads until the server closes the connection (or `limit` passes): what it sent, and
/// whether it closed.
fn read_until_closed(s: &mut TcpStream, limit: Duration) -> (String, bool) {
    s.set_read_timeout(Some(limit)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return (String::from_utf8_lossy(&got).into_owned(), true),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return (String::from_utf8_lossy(&got).into_owned(), true);
            }
            Err(_) => return (String::from_utf8_lossy(&got).into_owned(), false),
        }
    }
}

#[test]
fn security_idle_connections_past_the_cap_do_not_lock_callers_out() {
    // The test opens more sockets than the usual soft limit of 1,024 files.
    tidepool::http::listen::raise_fd_limit();
    let addr = format!("127.0.0.1:{}", free_port());
    let dir = temp_dir("idle-flood");
    // A header timeout far longer than the test: only the cap's making room can help.
    let _server =
        serve(&dir, &addr, None, &["--no-demo", "--max-connections", "1000", "--header-timeout-s", "60"]);
    let idle: Vec<TcpStream> = (0..1_100).map(|_| TcpStream::connect(&addr).expect("connect")).collect();
    std::thread::sleep(Duration::from_millis(1_500));
    let started = Instant::now();
    let token = login(&addr, "admin", "admin-pw");
    let (status, body) = http(&addr, "GET", "/api/me", Some(&token), None).expect("me");
    assert_eq!(status, 200, "{body}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    drop(idle);
}

#[test]
fn security_half_a_header_and_an_idle_connection_are_closed() {
    let addr = format!("127.0.0.1:{}", free_port());
    let dir = temp_dir("header-timeout");
    let _server =
        serve(&dir, &addr, None, &["--no-demo", "--header-timeout-s", "1", "--idle-timeout-s", "2"]);
    let mut half = TcpStream::connect(&addr).unwrap();
    half.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: tidepool\r\n").unwrap();
    let started = Instant::now();
    let (_, closed) = read_until_closed(&mut half, Duration::from_secs(10));
    assert!(closed && started.elapsed() < Duration::from_secs(4), "open after {:?}", started.elapsed());
    // A kept-alive connection is answered, then closed once idle past its timeout.
    let mut kept = TcpStream::connect(&addr).unwrap();
    kept.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: tidepool\r\n\r\n").unwrap();
    let started = Instant::now();
    let (answer, closed) = read_until_closed(&mut kept, Duration::from_secs(10));
    assert!(answer.starts_with("HTTP/1.1 200"), "{}", &answer[..answer.len().min(200)]);
    let waited = started.elapsed();
    assert!(
        closed && waited >= Duration::from_millis(1_500) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

#[test]
fn security_a_request_slower_than_the_timeout_is_answered_503() {
    let addr = format!("127.0.0.1:{}", free_port());
    let dir = temp_dir("request-timeout");
    let _server = serve(&dir, &addr, None, &["--no-demo", "--request-timeout-s", "2"]);
    // A body promised and never sent: the handler waits for it until the timeout.
    let mut slow = TcpStream::connect(&addr).unwrap();
    slow.write_all(
        b"POST /api/auth/login HTTP/1.1\r\nHost: tidepool\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"user",
    )
    .unwrap();
    let started = Instant::now();
    let (answer, _) = read_until_closed(&mut slow, Duration::from_secs(10));
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?} after {:?}", started.elapsed());
    assert!(answer.contains("\"timeout\""), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn security_sign_in_over_a_socket_is_throttled_per_address() {
    let addr = format!("127.0.0.1:{}", free_port());
    let dir = temp_dir("address-throttle");
    let _server = serve(&dir, &addr, None, &["--no-demo"]);
    let attempt = |user: &str, password: &str| {
        let body = serde_json::json!({ "username": user, "password": password }).to_string();
        http(&addr, "POST", "/api/auth/login", None, Some(&body)).expect("login").0
    };
    let answers: Vec<u16> = (0..25).map(|i| attempt(&format!("nobody-{i}"), "wrong-password")).collect();
    assert_eq!(answers.iter().filter(|&&s| s == 401).count(), 19, "{answers:?}");
    assert!(answers[19..].iter().all(|&s| s == 429), "{answers:?}");
    // Loopback is blocked now, the admin's right password included.
    assert_eq!(attempt("admin", "admin-pw"), 429);
}
