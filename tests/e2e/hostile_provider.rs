//! Providers that misbehave on the wire, each a few lines over a real socket so the host meets the
//! exact bytes: an HTTP/2 provider (TLS with ALPN, its certificate from an internal CA given by
//! `ca_file`) that refuses every stream or sends GOAWAY; response heads beyond hyper's limits; a gzip
//! bomb.

use crate::support::*;
use dsh_host::adapter::{CompletionRequest, HttpPlan, Message, Role};
use dsh_host::network::NetworkPolicy;
use dsh_host::transport::{Credential, Transport};
use dsh_host::watchdog::Watchdog;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls;

// ---- an internal CA and a TLS provider -------------------------------------------------------------

/// A test CA (written to `ca_file`, as an operator would) and a server certificate it signed for
/// 127.0.0.1 and localhost, served with ALPN `h2` only.
struct InternalCa {
    _dir: tempfile::TempDir,
    ca_file: PathBuf,
    server: Arc<rustls::ServerConfig>,
}

fn internal_ca() -> InternalCa {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
        KeyPair, KeyUsagePurpose,
    };
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "dsh-host test internal CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);

    let server_key = KeyPair::generate().unwrap();
    let mut server =
        CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    server
        .distinguished_name
        .push(DnType::CommonName, "llm.internal");
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let server_cert = server.signed_by(&server_key, &issuer).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("internal-ca.pem");
    std::fs::write(&ca_file, ca_cert.pem()).unwrap();

    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![server_cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(server_key.serialize_der().into()),
        )
        .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec()];
    InternalCa {
        _dir: dir,
        ca_file,
        server: Arc::new(config),
    }
}

#[derive(Clone, Copy, Debug)]
enum Refusal {
    /// RST_STREAM(REFUSED_STREAM) on every stream: "not processed, safe to retry" (RFC 9113 8.7).
    RefusedStream,
    /// GOAWAY(NO_ERROR, last stream 0) as soon as a request arrives, then the connection closes: a
    /// draining server telling the client the request was not processed.
    GoAway,
}

/// An HTTP/2 provider over TLS that never answers: it refuses every request as `how` says.
struct H2Provider {
    base_url: String,
    /// Requests (streams) that reached it.
    requests: Arc<AtomicUsize>,
    /// TLS connections, and how many of them negotiated h2 by ALPN.
    connections: Arc<AtomicUsize>,
    h2_connections: Arc<AtomicUsize>,
}

async fn h2_provider(tls: Arc<rustls::ServerConfig>, how: Refusal) -> H2Provider {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("https://{}/v1", listener.local_addr().unwrap());
    let (requests, connections, h2_connections) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
    );
    let counters = (
        requests.clone(),
        connections.clone(),
        h2_connections.clone(),
    );
    let acceptor = tokio_rustls::TlsAcceptor::from(tls);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, (requests, connections, h2_connections)) =
                (acceptor.clone(), counters.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                connections.fetch_add(1, Ordering::SeqCst);
                if tls.get_ref().1.alpn_protocol() == Some(b"h2") {
                    h2_connections.fetch_add(1, Ordering::SeqCst);
                }
                match how {
                    Refusal::RefusedStream => {
                        let Ok(mut conn) = h2::server::handshake(tls).await else {
                            return;
                        };
                        while let Some(Ok((_request, mut respond))) = conn.accept().await {
                            requests.fetch_add(1, Ordering::SeqCst);
                            respond.send_reset(h2::Reason::REFUSED_STREAM);
                        }
                    }
                    // The h2 crate's server reports a stream it has accepted as processed in its GOAWAY;
                    // a draining server that processed nothing is written frame by frame.
                    Refusal::GoAway => goaway_on_first_request(tls, &requests).await,
                }
            });
        }
    });
    H2Provider {
        base_url,
        requests,
        connections,
        h2_connections,
    }
}

/// HTTP/2 by hand: preface, SETTINGS (and the ACK of the client's), then on the first HEADERS frame
/// a GOAWAY with last stream id 0 and NO_ERROR, and close.
async fn goaway_on_first_request(
    mut tls: tokio_rustls::server::TlsStream<TcpStream>,
    requests: &AtomicUsize,
) {
    const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let frame = |kind: u8, flags: u8, payload: &[u8]| {
        let len = payload.len() as u32;
        let mut f = vec![
            (len >> 16) as u8,
            (len >> 8) as u8,
            len as u8,
            kind,
            flags,
            0,
            0,
            0,
            0,
        ];
        f.extend_from_slice(payload);
        f
    };
    let mut preface = [0u8; 24];
    if tls.read_exact(&mut preface).await.is_err() || preface != PREFACE {
        return;
    }
    if tls.write_all(&frame(0x4, 0, &[])).await.is_err() {
        return;
    }
    loop {
        let mut head = [0u8; 9];
        if tls.read_exact(&mut head).await.is_err() {
            return;
        }
        let len = (head[0] as usize) << 16 | (head[1] as usize) << 8 | head[2] as usize;
        let mut payload = vec![0u8; len];
        if tls.read_exact(&mut payload).await.is_err() {
            return;
        }
        match (head[3], head[4] & 0x1) {
            (0x4, 0) => {
                let _ = tls.write_all(&frame(0x4, 0x1, &[])).await;
            }
            (0x1, _) => {
                requests.fetch_add(1, Ordering::SeqCst);
                // last-stream-id 0 (nothing processed), error code 0 (NO_ERROR).
                let _ = tls.write_all(&frame(0x7, 0, &[0; 8])).await;
                let _ = tls.flush().await;
                let _ = tls.shutdown().await;
                return;
            }
            _ => {}
        }
    }
}

fn count(c: &AtomicUsize) -> usize {
    c.load(Ordering::SeqCst)
}

/// A provider `internal` at `base_url` trusting `ca_file` (if any), retrying NETWORK twice at once.
fn internal_provider_config(scratch: &Scratch, base_url: &str, ca_file: Option<&std::path::Path>) {
    let ca = ca_file
        .map(|f| format!("ca_file = {:?}\n", f.display().to_string()))
        .unwrap_or_default();
    scratch.config(&format!(
        "[providers.internal]\npreset = \"openai-compatible\"\nbase_url = \"{base_url}\"\nmodel = \"m\"\n{ca}\
         [providers.internal.retry_policy]\ninitial_delay_ms = 1\nmax_delay_ms = 5\nmax_retries = 2\n"
    ));
}

/// Three logged attempts (one try, two retries) must be three requests at the provider, each a
/// NETWORK failure: reqwest's own retry of refused streams would have sent three per attempt.
async fn one_request_per_logged_attempt(how: Refusal) {
    let ca = internal_ca();
    let provider = h2_provider(ca.server.clone(), how).await;
    let scratch = Scratch::new();
    internal_provider_config(&scratch, &provider.base_url, Some(&ca.ca_file));
    let out = scratch
        .run_bin(
            &["run", "--provider", "internal", "--model", "m", "hi"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(1), "{how:?}: {}", stderr(&out));

    let events = scratch.only_session_events();
    let failures = of_kind(&events, "llm/failure");
    let codes: Vec<&str> = failures
        .iter()
        .map(|e| e.data["failure"]["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["NETWORK"; 3], "{how:?}: {}", stderr(&out));
    assert_eq!(
        of_kind(&events, "llm/retry").len(),
        2,
        "NETWORK is retryable: the policy retried twice"
    );
    assert_eq!(
        count(&provider.requests),
        failures.len(),
        "{how:?}: one request per logged attempt"
    );
    assert!(count(&provider.connections) >= 1);
    assert_eq!(
        count(&provider.h2_connections),
        count(&provider.connections),
        "every connection spoke HTTP/2"
    );
    let message = failures[0].data["failure"]["message"].as_str().unwrap();
    let expected = match how {
        Refusal::RefusedStream => {
            "refused the request over HTTP/2 (RST_STREAM REFUSED_STREAM: it did not process it)"
        }
        Refusal::GoAway => {
            "closed the HTTP/2 connection (GOAWAY NO_ERROR) without answering the request"
        }
    };
    assert!(
        message.starts_with("127.0.0.1:") && message.contains(expected),
        "{how:?}: {message}"
    );
}

#[tokio::test]
async fn an_http2_provider_refusing_every_stream_gets_one_request_per_logged_attempt() {
    one_request_per_logged_attempt(Refusal::RefusedStream).await;
}

#[tokio::test]
async fn an_http2_provider_sending_goaway_gets_one_request_per_logged_attempt() {
    one_request_per_logged_attempt(Refusal::GoAway).await;
}

#[tokio::test]
async fn ca_file_is_what_makes_an_internal_ca_trusted_and_is_checked_at_start_up() {
    let ca = internal_ca();
    let provider = h2_provider(ca.server.clone(), Refusal::RefusedStream).await;

    // Without it, the internal CA is unknown: the handshake fails and no request is made.
    let scratch = Scratch::new();
    internal_provider_config(&scratch, &provider.base_url, None);
    let out = scratch
        .run_bin(&["run", "--provider", "internal", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).to_lowercase().contains("certificate"),
        "{}",
        stderr(&out)
    );
    assert_eq!(count(&provider.requests), 0);

    // A wrong path, or a file with no certificate, stops the start-up naming the file.
    let scratch = Scratch::new();
    let missing = scratch.dir.path().join("no-such-ca.pem");
    internal_provider_config(&scratch, &provider.base_url, Some(&missing));
    let out = scratch
        .run_bin(&["run", "--provider", "internal", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("provider 'internal': cannot read ca_file")
            && stderr(&out).contains("no-such-ca.pem"),
        "{}",
        stderr(&out)
    );

    let not_pem = scratch.dir.path().join("key-not-cert.pem");
    std::fs::write(&not_pem, "this is not a certificate\n").unwrap();
    internal_provider_config(&scratch, &provider.base_url, Some(&not_pem));
    let out = scratch
        .run_bin(&["run", "--provider", "internal", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("key-not-cert.pem holds no certificate"),
        "{}",
        stderr(&out)
    );
    assert_eq!(count(&provider.requests), 0);
}

// ---- a raw HTTP/1.1 provider ------------------------------------------------------------------------

/// What the raw provider writes after reading a request.
#[derive(Clone)]
enum Answer {
    /// These bytes, then close.
    Bytes(Arc<Vec<u8>>),
    /// A status line, then one header whose value is `size` bytes, written in 64 KiB pieces until
    /// the client stops reading.
    HugeHeader { size: usize },
}

/// An HTTP/1.1 provider on a raw socket: records each request head, answers with `answer`, and
/// counts connections and the bytes it managed to write.
struct RawProvider {
    base_url: String,
    connections: Arc<AtomicUsize>,
    heads: Arc<Mutex<Vec<String>>>,
    written: Arc<AtomicU64>,
}

async fn raw_provider(answer: Answer) -> RawProvider {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let provider = RawProvider {
        base_url,
        connections: Arc::default(),
        heads: Arc::default(),
        written: Arc::default(),
    };
    let (connections, heads, written) = (
        provider.connections.clone(),
        provider.heads.clone(),
        provider.written.clone(),
    );
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            connections.fetch_add(1, Ordering::SeqCst);
            let (answer, heads, written) = (answer.clone(), heads.clone(), written.clone());
            tokio::spawn(async move {
                let Some(head) = read_request(&mut socket).await else {
                    return;
                };
                heads.lock().unwrap().push(head);
                match answer {
                    Answer::Bytes(bytes) => {
                        if socket.write_all(&bytes).await.is_ok() {
                            written.fetch_add(bytes.len() as u64, Ordering::SeqCst);
                        }
                    }
                    Answer::HugeHeader { size } => {
                        let start =
                            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-huge: ";
                        let piece = vec![b'a'; 64 << 10];
                        let mut sent = 0;
                        let mut ok = socket.write_all(start).await.is_ok();
                        while ok && sent < size {
                            ok = socket.write_all(&piece).await.is_ok();
                            if ok {
                                sent += piece.len();
                                written.store(sent as u64, Ordering::SeqCst);
                            }
                        }
                    }
                }
                let _ = socket.shutdown().await;
            });
        }
    });
    provider
}

/// Reads one request (head and `content-length` body); returns the head.
async fn read_request(socket: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    while buf.len() < end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(head)
}

/// `dsh-host run` with the default waterfall (llm-retry, default policy) against `base_url`.
async fn run_default_policy(scratch: &Scratch, base_url: &str) -> std::process::Output {
    scratch
        .run_bin(
            &[
                "run",
                "--provider",
                "openai-compatible",
                "--base-url",
                base_url,
                "--model",
                "m",
                "hi",
            ],
            None,
        )
        .await
}

/// A head over hyper's limits is refused once, as INVALID_REQUEST, with no retry: the same
/// provider would answer the same way five more times.
async fn refused_once_not_retried(
    provider: &RawProvider,
    out: &std::process::Output,
    scratch: &Scratch,
) -> String {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    let events = scratch.only_session_events();
    assert_eq!(of_kind(&events, "llm/failure").len(), 1, "{}", stderr(out));
    assert_eq!(
        failure_code(&events).as_deref(),
        Some("INVALID_REQUEST"),
        "{}",
        stderr(out)
    );
    assert!(of_kind(&events, "llm/retry").is_empty());
    assert_eq!(count(&provider.connections), 1);
    let message = of_kind(&events, "llm/failure")[0].data["failure"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("exceeded dsh-host's limits (at most 100 headers and 408 KiB of head)")
            && message.contains("does not retry")
            && message.contains("base_url"),
        "{message}"
    );
    message
}

#[tokio::test]
async fn ten_thousand_response_headers_are_refused_once_not_retried() {
    let mut answer = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n".to_vec();
    for i in 0..10_000 {
        answer.extend_from_slice(format!("x-h-{i}: v\r\n").as_bytes());
    }
    answer.extend_from_slice(b"content-length: 0\r\n\r\n");
    let provider = raw_provider(Answer::Bytes(Arc::new(answer))).await;
    let scratch = Scratch::new();
    let out = run_default_policy(&scratch, &provider.base_url).await;
    refused_once_not_retried(&provider, &out, &scratch).await;
}

#[tokio::test]
async fn a_100_mb_response_header_is_refused_once_after_a_bounded_read() {
    let size = 100 << 20;
    let provider = raw_provider(Answer::HugeHeader { size }).await;
    let scratch = Scratch::new();
    let out = run_default_policy(&scratch, &provider.base_url).await;
    refused_once_not_retried(&provider, &out, &scratch).await;
    // The host stopped at hyper's ~408 KiB; what else left the provider sat in socket buffers.
    let written = provider.written.load(Ordering::SeqCst);
    assert!(
        written < 32 << 20,
        "the provider wrote {written} bytes of header before the host hung up"
    );
}

// ---- compressed bodies -----------------------------------------------------------------------------

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

fn gunzip_len(data: &[u8]) -> usize {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out.len()
}

fn plan_to(base_url: &str) -> HttpPlan {
    HttpPlan {
        method: "POST".into(),
        url: format!("{base_url}/chat/completions"),
        headers: vec![("content-type".into(), "application/json".into())],
        body: b"{}".to_vec(),
    }
}

fn transport(base_url: &str) -> Transport {
    let policy = NetworkPolicy::for_provider("bomb", base_url, &[]).unwrap();
    let credential = Credential {
        key: None,
        source: "none".into(),
        missing: "none".into(),
        required: false,
        headers: vec!["authorization".into()],
    };
    Transport::new(policy, credential, Watchdog::new(Duration::from_secs(10))).unwrap()
}

#[tokio::test]
async fn a_gzip_bomb_reaches_the_adapter_as_the_raw_bytes_never_inflated() {
    let inflated = 8 << 20;
    let bomb = gzip(&vec![0u8; inflated]);
    assert_eq!(
        gunzip_len(&bomb),
        inflated,
        "a real bomb: {} bytes that inflate to 8 MiB",
        bomb.len()
    );
    let mut answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\ncontent-length: {}\r\n\r\n",
        bomb.len()
    )
    .into_bytes();
    answer.extend_from_slice(&bomb);
    let provider = raw_provider(Answer::Bytes(Arc::new(answer))).await;
    let request = CompletionRequest::new("m", vec![Message::new(Role::User, "hi")]);

    // The bytes the host would feed the decoder, read by the same code path `run_attempt` uses.
    let mut response = transport(&provider.base_url)
        .send(&plan_to(&provider.base_url), "test", &request)
        .await
        .unwrap();
    assert_eq!(
        response
            .head
            .headers
            .iter()
            .find(|(n, _)| n == "content-encoding")
            .map(|(_, v)| v.as_str()),
        Some("gzip")
    );
    let mut fed = Vec::new();
    let idle = dsh_host::watchdog::Watchdog::new(std::time::Duration::from_secs(30)).arm();
    while let Some(read) = response.next_read(&idle).await.unwrap() {
        fed.extend_from_slice(&read);
    }
    assert_eq!(
        fed, bomb,
        "the adapter gets the compressed bytes as they came, not 8 MiB"
    );

    // Nothing invited compression: the request advertised no encoding.
    let head = provider.heads.lock().unwrap()[0].to_ascii_lowercase();
    assert!(!head.contains("accept-encoding"), "{head}");

    // The caps count those raw bytes.
    let capped = transport(&provider.base_url).with_max_response_bytes(bomb.len() / 2);
    let mut response = capped
        .send(&plan_to(&provider.base_url), "test", &request)
        .await
        .unwrap();
    let failure = loop {
        match response.next_read(&idle).await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the cap was not applied"),
            Err(f) => break f,
        }
    };
    assert!(
        failure
            .message
            .contains(&format!("exceeded {} bytes", bomb.len() / 2)),
        "{failure}"
    );
}
