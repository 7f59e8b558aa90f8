//! `dsh-host serve` through the binary, with plain HTTP clients: what an SDK cannot show.
//! Idempotency keys (replay without the provider, 409 while running, the SIGKILL case continued by
//! a new process, scoping per gateway key), gateway-key authentication and the refusals to start,
//! the Host and Origin checks, the body limit, load shedding, the held head and its keepalives, the
//! deadline header, a client leaving during a backoff, compaction reported in a header, and SIGTERM.

use crate::support::*;
use dsh_host::mock::MockServer;
use serde_json::{Value, json};
use std::time::Duration;

const KEY_A: &str = "dsh-gw-a-0123456789abcdef";
const KEY_B: &str = "dsh-gw-b-0123456789abcdef";

fn completion(text: &[&str]) -> Value {
    json!({"completion": {"text": text, "usage": {"prompt_tokens": 5, "completion_tokens": 2}}})
}

/// Holds the answer back `ms` after the request arrived: a request that stays in flight.
fn slow(ms: u64, text: &str) -> Value {
    json!({"stall_before_headers_ms": ms, "completion": {"text": [text]}})
}

/// A chat request body; `stream` asks for SSE.
fn chat(content: &str, stream: bool) -> String {
    json!({"model": "gpt-test", "messages": [{"role": "user", "content": content}], "stream": stream}).to_string()
}

/// A gateway whose default provider `up` is `mock`; `gateway_extra` goes under `[gateway]`.
/// `keys`: the gateway keys (in DSH_TEST_GATEWAY_KEYS); none: the unauthenticated loopback mode.
async fn start(
    scratch: &Scratch,
    mock: &MockServer,
    max_retries: u32,
    initial_delay_ms: u64,
    gateway_extra: &str,
    keys: &[&str],
) -> GatewayProcess {
    let keys_env = if keys.is_empty() {
        ""
    } else {
        "keys_env = \"DSH_TEST_GATEWAY_KEYS\"\n"
    };
    scratch.config(&format!(
        "{}\n[gateway]\ndefault_provider = \"up\"\n{keys_env}{gateway_extra}\n",
        upstream_toml(
            "up",
            "openai-compatible",
            &mock.base_url(),
            max_retries,
            initial_delay_ms
        )
    ));
    let joined = keys.join(",");
    if keys.is_empty() {
        scratch
            .start_gateway(&["--allow-unauthenticated"], &[])
            .await
    } else {
        scratch
            .start_gateway(&[], &[("DSH_TEST_GATEWAY_KEYS", &joined)])
            .await
    }
}

/// A whole answer: status, headers, body text.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The error code of an OpenAI-shaped error body.
    fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The assistant's text of a non-streaming completion.
    fn text(&self) -> String {
        self.json()["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_else(|| panic!("no content: {}", self.body))
            .to_string()
    }

    fn session(&self) -> String {
        self.header("x-dsh-session")
            .unwrap_or_else(|| panic!("no x-dsh-session ({}): {}", self.status, self.body))
            .to_string()
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// POSTs `body` to /v1/chat/completions with `headers` (and `Bearer key` when given).
async fn post(
    gw: &GatewayProcess,
    key: Option<&str>,
    headers: &[(&str, &str)],
    body: String,
) -> Answer {
    let mut request = http()
        .post(gw.url("/v1/chat/completions"))
        .header("content-type", "application/json")
        .body(body);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST failed: {e}; gateway stderr:\n{}", gw.stderr()));
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.unwrap();
    Answer {
        status,
        headers,
        body,
    }
}

async fn get(gw: &GatewayProcess, path: &str, key: Option<&str>) -> Answer {
    let mut request = http().get(gw.url(path));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.unwrap();
    Answer {
        status,
        headers,
        body,
    }
}

/// A request written by hand (the Host header as given), answered with `connection: close`.
async fn raw(gw: &GatewayProcess, request: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut out))
        .await
        .expect("an answer")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// Waits (at most 20 s) until `mock` has received `n` requests.
async fn requests_reach(mock: &MockServer, n: usize) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while mock.requests().len() < n {
        assert!(
            std::time::Instant::now() < deadline,
            "the upstream received {} of {n} requests",
            mock.requests().len()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The content pieces of an SSE body, in order.
fn sse_texts(body: &str) -> Vec<String> {
    body.split("\n\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .filter(|data| *data != "[DONE]")
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .filter(|t| !t.is_empty())
        .collect()
}

// ---- idempotency ------------------------------------------------------------------------------

#[tokio::test]
async fn an_idempotency_key_replays_a_finished_request_without_the_provider() {
    let quota = openai_error(
        429,
        "You exceeded your current quota",
        "insufficient_quota",
        "insufficient_quota",
        json!({}),
    );
    let mock = mock(&script(&[
        completion(&["Stored ", "answer"]),
        quota,
        completion(&["never used"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 2, 10, "", &[]).await;

    let first = post(
        &gw,
        None,
        &[("idempotency-key", "order-1")],
        chat("hi", false),
    )
    .await;
    assert_eq!(
        (first.status, first.text().as_str()),
        (200, "Stored answer")
    );
    assert!(first.header("x-dsh-replayed").is_none());
    let again = post(
        &gw,
        None,
        &[("idempotency-key", "order-1")],
        chat("hi", false),
    )
    .await;
    assert_eq!(
        (again.status, again.text().as_str()),
        (200, "Stored answer")
    );
    assert_eq!(again.header("x-dsh-replayed"), Some("true"));
    assert_eq!(
        again.session(),
        first.session(),
        "the key names the session"
    );
    // The same stored answer, as the stream a streaming client asked for.
    let streamed = post(
        &gw,
        None,
        &[("idempotency-key", "order-1")],
        chat("hi", true),
    )
    .await;
    assert_eq!(streamed.status, 200);
    assert_eq!(sse_texts(&streamed.body).concat(), "Stored answer");
    assert!(
        streamed.body.ends_with("data: [DONE]\n\n"),
        "{}",
        streamed.body
    );
    assert_eq!(mock.requests().len(), 1, "replays never call the provider");

    // A failure is a result too: replayed, not run again.
    let failed = post(
        &gw,
        None,
        &[("idempotency-key", "order-2")],
        chat("hi", false),
    )
    .await;
    assert_eq!(
        (failed.status, failed.code().as_str()),
        (429, "insufficient_quota")
    );
    assert_eq!(failed.header("x-dsh-failure-code"), Some("QUOTA_EXCEEDED"));
    let failed_again = post(
        &gw,
        None,
        &[("idempotency-key", "order-2")],
        chat("hi", false),
    )
    .await;
    assert_eq!(
        (failed_again.status, failed_again.code().as_str()),
        (429, "insufficient_quota")
    );
    assert_eq!(failed_again.header("x-dsh-replayed"), Some("true"));
    assert_eq!(failed_again.header("x-should-retry"), Some("false"));
    assert_eq!(mock.requests().len(), 2);
    assert_eq!(scratch.session_ids().len(), 2);
}

#[tokio::test]
async fn an_idempotency_key_reused_for_another_conversation_is_refused() {
    let mock = mock(&script(&[
        completion(&["About cats"]),
        completion(&["never used"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 2, 10, "", &[]).await;
    let first = post(
        &gw,
        None,
        &[("idempotency-key", "k")],
        chat("Tell me about cats", false),
    )
    .await;
    assert_eq!(first.status, 200);
    let other = post(
        &gw,
        None,
        &[("idempotency-key", "k")],
        chat("Tell me about dogs", false),
    )
    .await;
    assert_eq!(
        (other.status, other.code().as_str()),
        (422, "idempotency_key_reused"),
        "{}",
        other.body
    );
    assert!(
        other.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another request"),
        "{}",
        other.body
    );
    assert_eq!(other.header("x-should-retry"), Some("false"));
    assert_eq!(
        mock.requests().len(),
        1,
        "the other conversation never reaches the provider"
    );
}

#[tokio::test]
async fn the_same_key_while_its_request_runs_is_409() {
    let mock = mock(&script(&[
        slow(1500, "slow answer"),
        completion(&["never used"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 2, 10, "", &[]).await;
    let running = {
        let (url, body) = (gw.url("/v1/chat/completions"), chat("hi", false));
        tokio::spawn(async move {
            http()
                .post(url)
                .header("idempotency-key", "k")
                .body(body)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        })
    };
    requests_reach(&mock, 1).await;
    let conflict = post(&gw, None, &[("idempotency-key", "k")], chat("hi", false)).await;
    assert_eq!(
        (conflict.status, conflict.code().as_str()),
        (409, "request_in_progress"),
        "{}",
        conflict.body
    );
    assert_eq!(
        conflict.header("x-should-retry"),
        Some("false"),
        "the SDKs retry a 409 unless told not to"
    );
    let first: Value = serde_json::from_str(&running.await.unwrap()).unwrap();
    assert_eq!(first["choices"][0]["message"]["content"], "slow answer");
    assert_eq!(
        format!("chatcmpl-{}", conflict.session()),
        first["id"],
        "the 409 names the running session"
    );
    let after = post(&gw, None, &[("idempotency-key", "k")], chat("hi", false)).await;
    assert_eq!(
        (after.status, after.header("x-dsh-replayed")),
        (200, Some("true"))
    );
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn a_request_killed_with_its_gateway_continues_its_retry_count_in_a_new_process() {
    // Attempt 1: a 429 asking for 2 s; the gateway is SIGKILLed during that wait. A new gateway on
    // the same sessions directory gets the client's retry (same Idempotency-Key): it waits what is
    // left, attempt 2 meets another 429, which must be retry 2 (from the log), not retry 1 again.
    let mock = mock(&script(&[
        rate_limited(Some("2")),
        rate_limited(None),
        completion(&["after the restart"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let mut first = start(&scratch, &mock, 3, 100, "", &[]).await;
    let lost = {
        let (url, body) = (first.url("/v1/chat/completions"), chat("hi", false));
        tokio::spawn(async move {
            http()
                .post(url)
                .header("idempotency-key", "job-7")
                .body(body)
                .send()
                .await
        })
    };
    requests_reach(&mock, 1).await;
    let id = loop {
        if let Some(id) = scratch.session_ids().pop() {
            break id;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let before = wait_for_log(&scratch, &id, Duration::from_secs(20), "llm/retry", |e| {
        !of_kind(e, "llm/retry").is_empty()
    })
    .await;
    first.signal(libc::SIGKILL);
    first.exit(Duration::from_secs(10)).await;
    assert!(
        lost.await.unwrap().is_err(),
        "the first client's connection died with the gateway"
    );
    assert!(
        of_kind(&before, "llm/retry-started").is_empty(),
        "killed during the wait"
    );

    let second = scratch
        .start_gateway(&["--allow-unauthenticated"], &[])
        .await;
    let answer = post(
        &second,
        None,
        &[("idempotency-key", "job-7")],
        chat("hi", false),
    )
    .await;
    assert_eq!(
        (answer.status, answer.text().as_str()),
        (200, "after the restart"),
        "{}",
        answer.body
    );
    assert_eq!(answer.session(), id);

    let events = scratch.session_events(&id);
    let retries: Vec<(u64, u64)> = of_kind(&events, "llm/retry")
        .iter()
        .map(|e| {
            (
                e.data["retry"].as_u64().unwrap(),
                e.data["delay_ms"].as_u64().unwrap(),
            )
        })
        .collect();
    // Retry 1 waited the provider's 2 s; retry 2 is the policy's second backoff (100 * 2).
    assert_eq!(retries, [(1, 2000), (2, 200)], "{}", timeline(&events));
    let attempts: Vec<u64> = of_kind(&events, "llm/request")
        .iter()
        .map(|e| e.data["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(attempts, [1, 2, 3]);
    assert_eq!(of_kind(&events, "gateway/continue").len(), 1);
    assert_eq!(
        of_kind(&events, "turn/start").len(),
        1,
        "the same turn, continued"
    );
    assert_eq!(of_kind(&events, "turn/end")[0].data["outcome"], "completed");
    assert_eq!(mock.requests().len(), 3);
}

#[tokio::test]
async fn idempotency_keys_are_scoped_to_the_gateway_key() {
    let mock = mock(&script(&[
        completion(&["for A"]),
        completion(&["for B"]),
        completion(&["never used"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 0, 10, "", &[KEY_A, KEY_B]).await;
    let a = post(
        &gw,
        Some(KEY_A),
        &[("idempotency-key", "same")],
        chat("hi", false),
    )
    .await;
    let b = post(
        &gw,
        Some(KEY_B),
        &[("idempotency-key", "same")],
        chat("hi", false),
    )
    .await;
    assert_eq!((a.text().as_str(), b.text().as_str()), ("for A", "for B"));
    assert_ne!(a.session(), b.session(), "two clients' keys never meet");
    let a_again = post(
        &gw,
        Some(KEY_A),
        &[("idempotency-key", "same")],
        chat("hi", false),
    )
    .await;
    assert_eq!(
        (a_again.text().as_str(), a_again.header("x-dsh-replayed")),
        ("for A", Some("true"))
    );
    assert_eq!(mock.requests().len(), 2);
    assert_eq!(scratch.session_ids().len(), 2);
}

// ---- who may call -------------------------------------------------------------------------------

#[tokio::test]
async fn gateway_keys_authenticate_every_endpoint_but_healthz() {
    use std::os::unix::fs::PermissionsExt;
    let mock = mock(&script(&[
        completion(&["from env key"]),
        completion(&["from file key"]),
    ]))
    .await;
    let scratch = Scratch::new();
    // One key from the environment, one from a file of hashed keys with a name.
    let file = scratch.dir.path().join("gateway-keys");
    let digest = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(KEY_B.as_bytes()))
    };
    std::fs::write(
        &file,
        format!("# the CI runner\nsha256:{digest} ci-runner\n"),
    )
    .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let gw = start(
        &scratch,
        &mock,
        0,
        10,
        &format!("keys_file = {:?}", file.display().to_string()),
        &[KEY_A],
    )
    .await;

    let none = post(&gw, None, &[], chat("hi", false)).await;
    assert_eq!(
        (none.status, none.code().as_str()),
        (401, "missing_api_key")
    );
    let wrong = post(
        &gw,
        Some("dsh-gw-x-0123456789abcdef"),
        &[],
        chat("hi", false),
    )
    .await;
    assert_eq!(
        (wrong.status, wrong.code().as_str()),
        (401, "invalid_api_key")
    );
    assert_eq!(get(&gw, "/v1/models", None).await.status, 401);
    assert_eq!(
        get(&gw, "/metrics", Some("nope-nope-nope-nope"))
            .await
            .status,
        401
    );
    assert_eq!(mock.requests().len(), 0);
    assert_eq!(
        get(&gw, "/healthz", None).await.status,
        200,
        "a load balancer's probe needs no key"
    );

    let by_env = post(&gw, Some(KEY_A), &[], chat("hi", false)).await;
    assert_eq!(
        (by_env.status, by_env.text().as_str()),
        (200, "from env key")
    );
    let by_file = post(&gw, Some(KEY_B), &[], chat("hi", false)).await;
    assert_eq!(
        (by_file.status, by_file.text().as_str()),
        (200, "from file key")
    );
    let client = |a: &Answer| {
        of_kind(&scratch.session_events(&a.session()), "gateway/request")[0].data["client"].clone()
    };
    assert_eq!(client(&by_file), "ci-runner");
    let env_client = client(&by_env);
    assert!(
        env_client.as_str().unwrap().starts_with("key-"),
        "{env_client}"
    );
    for id in scratch.session_ids() {
        let log = timeline(&scratch.session_events(&id));
        assert!(
            !log.contains(KEY_A) && !log.contains(KEY_B),
            "a gateway key in the log: {log}"
        );
    }
    let models = get(&gw, "/v1/models", Some(KEY_A)).await;
    assert_eq!(models.status, 200);
    assert!(
        models.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "up/mock-model"),
        "{}",
        models.body
    );
    let metrics = get(&gw, "/metrics", Some(KEY_A)).await;
    assert!(
        metrics.body.contains("dsh_gateway_requests_total{"),
        "{}",
        metrics.body
    );
}

/// `dsh-host serve ARGS` that must refuse to start: its exit status and stderr.
async fn refused(scratch: &Scratch, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut cmd = scratch.command(args, None);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_secs(60), cmd.output())
        .await
        .unwrap_or_else(|_| panic!("dsh-host {args:?} did not refuse to start: it is serving"))
        .unwrap();
    (out.status.code(), stderr(&out))
}

#[tokio::test]
async fn serve_refuses_to_start_without_keys_or_with_keys_over_plain_http_off_loopback() {
    let scratch = Scratch::new();
    let (code, err) = refused(&scratch, &["serve", "--listen", "127.0.0.1:0"], &[]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("no gateway keys")
            && err.contains("keys_env")
            && err.contains("--allow-unauthenticated"),
        "{err}"
    );
    let (code, err) = refused(
        &scratch,
        &["serve", "--listen", "0.0.0.0:0", "--allow-unauthenticated"],
        &[],
    )
    .await;
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("refusing to serve 0.0.0.0:0 without gateway keys"),
        "{err}"
    );

    scratch.config("[gateway]\nkeys_env = \"DSH_TEST_GATEWAY_KEYS\"\n");
    let (code, err) = refused(&scratch, &["serve", "--listen", "127.0.0.1:0"], &[]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("DSH_TEST_GATEWAY_KEYS") && err.contains("not set"),
        "{err}"
    );
    let (code, err) = refused(
        &scratch,
        &["serve", "--listen", "0.0.0.0:0"],
        &[("DSH_TEST_GATEWAY_KEYS", KEY_A)],
    )
    .await;
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("plain HTTP") && err.contains("reverse proxy"),
        "{err}"
    );
    assert!(!err.contains(KEY_A));
    let (code, err) = refused(
        &scratch,
        &["serve", "--listen", "127.0.0.1:0"],
        &[("DSH_TEST_GATEWAY_KEYS", "short")],
    )
    .await;
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("gateway key #1 in the environment variable DSH_TEST_GATEWAY_KEYS is shorter than 16 characters"),
        "{err}"
    );
}

#[tokio::test]
async fn unauthenticated_mode_answers_only_loopback_names_and_pages() {
    let mock = mock(&script(&[completion(&["for localhost"])])).await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 0, 10, "", &[]).await;
    let body = chat("hi", false);
    let request = |host: &str, origin: Option<&str>| {
        let origin = origin
            .map(|o| format!("origin: {o}\r\n"))
            .unwrap_or_default();
        format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: {host}\r\n{origin}content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    // DNS rebinding: a page on evil.example whose name now points at 127.0.0.1.
    let rebound = raw(&gw, &request("evil.example", None)).await;
    assert!(rebound.starts_with("HTTP/1.1 403"), "{rebound}");
    assert!(rebound.contains("host_not_allowed"), "{rebound}");
    let rebound_port = raw(
        &gw,
        &request(&format!("evil.example:{}", gw.addr.port()), None),
    )
    .await;
    assert!(rebound_port.starts_with("HTTP/1.1 403"), "{rebound_port}");
    let page = raw(
        &gw,
        &request(
            &format!("localhost:{}", gw.addr.port()),
            Some("https://evil.example"),
        ),
    )
    .await;
    assert!(
        page.starts_with("HTTP/1.1 403") && page.contains("origin_not_allowed"),
        "{page}"
    );
    assert_eq!(mock.requests().len(), 0);
    let local = raw(
        &gw,
        &request(
            &format!("localhost:{}", gw.addr.port()),
            Some("http://localhost:3000"),
        ),
    )
    .await;
    assert!(
        local.starts_with("HTTP/1.1 200") && local.contains("for localhost"),
        "{local}"
    );
}

// ---- limits -------------------------------------------------------------------------------------

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let mock = mock(&script(&[completion(&["small enough"])])).await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 0, 10, "max_body_bytes = 2048", &[]).await;
    let big = post(&gw, None, &[], chat(&"x".repeat(4000), false)).await;
    assert_eq!(
        (big.status, big.code().as_str()),
        (413, "request_too_large"),
        "{}",
        big.body
    );
    assert!(
        big.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_body_bytes")
    );
    assert_eq!(big.header("x-should-retry"), Some("false"));
    let small = post(&gw, None, &[], chat(&"x".repeat(1000), false)).await;
    assert_eq!((small.status, small.text().as_str()), (200, "small enough"));
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn at_the_concurrency_limit_requests_are_shed_with_a_retryable_503() {
    let mock = mock(&script(&[
        slow(1500, "held the slot"),
        completion(&["after the slot freed"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 0, 10, "max_concurrent = 1", &[]).await;
    let holder = {
        let (url, body) = (gw.url("/v1/chat/completions"), chat("hi", false));
        tokio::spawn(async move {
            http()
                .post(url)
                .body(body)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        })
    };
    requests_reach(&mock, 1).await;
    let shed = post(&gw, None, &[], chat("hi", false)).await;
    assert_eq!(
        (shed.status, shed.code().as_str()),
        (503, "gateway_overloaded"),
        "{}",
        shed.body
    );
    assert_eq!(shed.header("retry-after"), Some("1"));
    assert_eq!(
        shed.header("x-should-retry"),
        Some("true"),
        "load shedding is the one retryable refusal"
    );
    assert!(holder.await.unwrap().contains("held the slot"));
    let next = post(&gw, None, &[], chat("hi", false)).await;
    assert_eq!(
        (next.status, next.text().as_str()),
        (200, "after the slot freed")
    );
    assert_eq!(
        mock.requests().len(),
        2,
        "a shed request never reaches the provider"
    );
}

#[tokio::test]
async fn past_the_head_hold_the_stream_starts_with_keepalives_until_content() {
    // Hold the head 100 ms; the backoff after the 429 is 2 s: the head goes during the backoff,
    // then comment keepalives every 100 ms, then the answer.
    let mock = mock(&script(&[
        rate_limited(None),
        completion(&["Hello ", "after the wait"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(
        &scratch,
        &mock,
        2,
        2000,
        "hold_head_ms = 100\nkeepalive_ms = 100",
        &[],
    )
    .await;
    let mut response = http()
        .post(gw.url("/v1/chat/completions"))
        .body(chat("hi", true))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        mock.requests().len(),
        1,
        "the head came during the backoff, before the retry"
    );
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert!(response.headers().get("x-dsh-session").is_some());
    let mut body = String::new();
    while let Some(bytes) = response.chunk().await.unwrap() {
        body.push_str(&String::from_utf8_lossy(&bytes));
    }
    let keepalive = body
        .find(": keepalive\n\n")
        .unwrap_or_else(|| panic!("no keepalive: {body}"));
    let content = body.find("Hello ").unwrap();
    assert!(keepalive < content, "{body}");
    assert_eq!(sse_texts(&body).concat(), "Hello after the wait");
    assert!(body.ends_with("data: [DONE]\n\n"), "{body}");
    assert_eq!(mock.requests().len(), 2);
}

#[tokio::test]
async fn x_dsh_timeout_ms_ends_a_long_backoff_with_a_504() {
    // A 429 and a policy backoff of 30 s: the client's deadline of 2 s ends the request, held or
    // streamed. (2 s, not less: the first attempt and its logged retry must fit before it on a loaded
    // CI machine.) No retry-after: one would start a cool-down that holds the second request before
    // its attempt (a_429_holds_the_other_sessions_of_the_process...), and this is about the backoff.
    let mock = mock(&script(&[
        rate_limited(None),
        rate_limited(None),
        completion(&["never used"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 2, 30_000, "", &[]).await;
    for stream in [false, true] {
        let answer = post(
            &gw,
            None,
            &[("x-dsh-timeout-ms", "2000")],
            chat("hi", stream),
        )
        .await;
        assert_eq!(
            (answer.status, answer.code().as_str()),
            (504, "timeout"),
            "stream: {stream}: {}",
            answer.body
        );
        assert_eq!(answer.header("x-dsh-failure-code"), Some("TIMEOUT"));
        assert_eq!(answer.header("x-should-retry"), Some("false"));
        let events = wait_for_log(
            &scratch,
            &answer.session(),
            Duration::from_secs(10),
            "turn/end",
            |e| !of_kind(e, "turn/end").is_empty(),
        )
        .await;
        assert_eq!(
            of_kind(&events, "llm/retry").len(),
            1,
            "{}",
            timeline(&events)
        );
    }
    assert_eq!(
        mock.requests().len(),
        2,
        "one attempt each, no retry after the deadline"
    );
    let bad = post(
        &gw,
        None,
        &[("x-dsh-timeout-ms", "soon")],
        chat("hi", false),
    )
    .await;
    assert_eq!((bad.status, bad.code().as_str()), (400, "invalid_timeout"));
}

#[tokio::test]
async fn a_client_that_leaves_during_a_backoff_aborts_it_and_its_key_runs_again() {
    let mock = mock(&script(&[
        rate_limited(Some("30")),
        completion(&["on the second try"]),
    ]))
    .await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 2, 10, "", &[]).await;
    // A client whose own timeout (1 s) ends the wait: it closes the connection.
    let gone = reqwest::Client::builder()
        .timeout(Duration::from_secs(1))
        .build()
        .unwrap()
        .post(gw.url("/v1/chat/completions"))
        .header("idempotency-key", "k")
        .body(chat("hi", false))
        .send()
        .await;
    assert!(gone.is_err());
    let id = scratch.session_ids().pop().expect("a session");
    // Bounded well under the 30 s backoff: only the abort ends the session this early.
    let events = wait_for_log(&scratch, &id, Duration::from_secs(10), "ABORTED", |e| {
        !of_kind(e, "turn/end").is_empty()
    })
    .await;
    assert_eq!(
        final_code(&events).as_deref(),
        Some("ABORTED"),
        "{}",
        timeline(&events)
    );
    assert_eq!(mock.requests().len(), 1);

    // An aborted request has no answer to replay: the client's retry under its key runs it again.
    let again = post(&gw, None, &[("idempotency-key", "k")], chat("hi", false)).await;
    assert_eq!(
        (again.status, again.text().as_str()),
        (200, "on the second try"),
        "{}",
        again.body
    );
    assert_eq!(again.session(), id);
    assert!(again.header("x-dsh-replayed").is_none());
    let events = scratch.session_events(&id);
    let ends: Vec<&Value> = of_kind(&events, "turn/end")
        .iter()
        .map(|e| &e.data["outcome"])
        .collect();
    assert_eq!(
        ends,
        [&json!("failed"), &json!("completed")],
        "{}",
        timeline(&events)
    );
    let replayed = post(&gw, None, &[("idempotency-key", "k")], chat("hi", false)).await;
    assert_eq!(
        (replayed.text().as_str(), replayed.header("x-dsh-replayed")),
        ("on the second try", Some("true"))
    );
    assert_eq!(mock.requests().len(), 2);
}

#[tokio::test]
async fn a_compaction_is_reported_in_a_header() {
    let overflow = openai_error(
        400,
        "This model's maximum context length is 8192 tokens.",
        "invalid_request_error",
        "context_length_exceeded",
        json!({}),
    );
    let mock = mock(&script(&[overflow, completion(&["fits now"])])).await;
    let scratch = Scratch::new();
    let gw = start(&scratch, &mock, 2, 10, "", &[]).await;
    let mut messages = vec![json!({"role": "system", "content": "Be brief."})];
    for i in 0..4 {
        messages.push(json!({"role": "user", "content": format!("question {i}")}));
        messages.push(json!({"role": "assistant", "content": format!("answer {i}")}));
    }
    messages.push(json!({"role": "user", "content": "last question"}));
    let body = json!({"model": "gpt-test", "messages": messages}).to_string();
    let answer = post(&gw, None, &[], body).await;
    assert_eq!(
        (answer.status, answer.text().as_str()),
        (200, "fits now"),
        "{}",
        answer.body
    );
    let header = answer
        .header("x-dsh-compacted")
        .unwrap_or_else(|| panic!("no x-dsh-compacted"));
    let sent = mock.requests()[1].body_json().unwrap();
    let after = sent["messages"].as_array().unwrap().len();
    assert_eq!(header, format!("10->{after}"));
    assert!(after < 10);
}

// ---- shutting down ------------------------------------------------------------------------------

#[tokio::test]
async fn sigterm_lets_a_request_in_flight_finish_and_refuses_new_connections() {
    let pieces: Vec<String> = (0..10).map(|i| format!("piece {i} ")).collect();
    let mock = mock(&script(&[
        json!({"completion": {"text": pieces, "delay_ms": 100}}),
    ]))
    .await;
    let scratch = Scratch::new();
    let mut gw = start(&scratch, &mock, 0, 10, "", &[]).await;
    let in_flight = {
        let (url, body) = (gw.url("/v1/chat/completions"), chat("hi", true));
        tokio::spawn(async move {
            http()
                .post(url)
                .body(body)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        })
    };
    requests_reach(&mock, 1).await;
    gw.signal(libc::SIGTERM);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while tokio::net::TcpStream::connect(gw.addr).await.is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "still accepting connections after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let body = in_flight.await.unwrap();
    assert_eq!(sse_texts(&body).concat(), pieces.concat(), "{body}");
    assert!(body.ends_with("data: [DONE]\n\n"));
    let status = gw.exit(Duration::from_secs(20)).await;
    assert!(status.success(), "{status}");
    let events = scratch.session_events(&scratch.session_ids()[0]);
    assert_eq!(of_kind(&events, "turn/end")[0].data["outcome"], "completed");
}

#[tokio::test]
async fn sigterm_cuts_what_outlasts_the_drain_as_aborted() {
    // A minute-long upstream answer; a drain of 300 ms.
    let ticks: Vec<Value> = (0..600)
        .map(|i| json!({"data": {"choices": [{"index": 0, "delta": {"content": format!("tick {i} ")}, "finish_reason": null}]}, "delay_ms": 100}))
        .collect();
    let mock = mock(&script(&[json!({"events": ticks, "done": true})])).await;
    let scratch = Scratch::new();
    let mut gw = start(&scratch, &mock, 0, 10, "drain_timeout_ms = 300", &[]).await;
    let mut response = http()
        .post(gw.url("/v1/chat/completions"))
        .body(chat("hi", true))
        .send()
        .await
        .unwrap();
    let first = response.chunk().await.unwrap().unwrap();
    assert!(!first.is_empty());
    gw.signal(libc::SIGTERM);
    let status = gw.exit(Duration::from_secs(20)).await;
    assert!(status.success(), "{status}");
    let mut rest = String::new();
    while let Ok(Some(bytes)) = response.chunk().await {
        rest.push_str(&String::from_utf8_lossy(&bytes));
    }
    assert!(
        !rest.contains("[DONE]"),
        "a cut answer must not look finished: {rest}"
    );
    let events = scratch.session_events(&scratch.session_ids()[0]);
    assert_eq!(
        final_code(&events).as_deref(),
        Some("ABORTED"),
        "{}",
        timeline(&events)
    );
    assert_eq!(of_kind(&events, "turn/end")[0].data["code"], "ABORTED");
}

// ---- metrics ------------------------------------------------------------------------------------

/// The value of the sample `name{labels}` in a Prometheus text page (labels as the page writes them).
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines().find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

#[tokio::test]
async fn metrics_count_attempts_retries_and_fallbacks_by_the_provider_that_made_them() {
    // A streamed request on a route: the primary's two attempts end in 429s (one retry), the backup
    // answers. Every count must name the provider that made the attempt, not the one that answered.
    let primary = mock(&script(&[rate_limited(None), rate_limited(None)])).await;
    let backup = mock(&script(&[completion(&["from the backup"])])).await;
    let scratch = Scratch::new();
    scratch.config(&format!(
        "{}{}[gateway]\n[[gateway.routes]]\nmodel = \"smart\"\nprovider = \"primary\"\nfallbacks = [\"backup/small\"]\n",
        upstream_toml("primary", "openai-compatible", &primary.base_url(), 1, 10),
        upstream_toml("backup", "openai-compatible", &backup.base_url(), 1, 10)
    ));
    let gw = scratch
        .start_gateway(&["--allow-unauthenticated"], &[])
        .await;
    let body =
        json!({"model": "smart", "messages": [{"role": "user", "content": "hi"}], "stream": true})
            .to_string();
    let answer = post(&gw, None, &[], body).await;
    assert_eq!(
        sse_texts(&answer.body).concat(),
        "from the backup",
        "{}",
        answer.body
    );
    let page = get(&gw, "/metrics", None).await.body;
    let expect = [
        ("dsh_gateway_attempts_total{provider=\"primary\"}", 2.0),
        ("dsh_gateway_attempts_total{provider=\"backup\"}", 1.0),
        (
            "dsh_gateway_retries_total{provider=\"primary\",code=\"RATE_LIMITED\"}",
            1.0,
        ),
        (
            "dsh_gateway_fallbacks_total{provider=\"primary\",code=\"RATE_LIMITED\"}",
            1.0,
        ),
        (
            "dsh_gateway_requests_total{provider=\"backup\",status=\"200\",stream=\"true\"}",
            1.0,
        ),
        (
            "dsh_gateway_first_content_seconds_count{provider=\"backup\"}",
            1.0,
        ),
    ];
    for (series, value) in expect {
        assert_eq!(sample(&page, series), Some(value), "{series} in:\n{page}");
    }
    assert!(
        !page.contains("provider=\"\"") && !page.contains("provider=\"any\""),
        "{page}"
    );
}

// ---- generation options (dsh:llm@0.2.0) -------------------------------------------------------

#[tokio::test]
async fn generation_options_and_images_reach_the_provider_and_a_0_1_adapter_refuses_them_with_a_400()
 {
    // One gateway, two routes: `new` on the built-in OpenAI adapter (0.2.0), `old` on an adapter
    // built against dsh:llm@0.1.0, which cannot carry top_p.
    let upstream = mock(&script(&[completion(&["{\"ok\":true}"])])).await;
    let old_upstream = mock(&script(&[completion(&["never sent"])])).await;
    let scratch = Scratch::new();
    let v0_1 = test_guest("dsh_test_v0_1_adapter");
    scratch.config(&format!(
        "{}{}[gateway]\n[[gateway.routes]]\nmodel = \"new\"\nprovider = \"up\"\n\
         [[gateway.routes]]\nmodel = \"old\"\nprovider = \"old\"\n",
        upstream_toml("up", "openai-compatible", &upstream.base_url(), 0, 10),
        upstream_toml("old", "openai-compatible", &old_upstream.base_url(), 0, 10).replace(
            "[providers.old.retry_policy]",
            &format!(
                "adapter = {:?}\n[providers.old.retry_policy]",
                v0_1.to_str().unwrap()
            )
        ),
    ));
    let gw = scratch
        .start_gateway(&["--allow-unauthenticated"], &[])
        .await;
    let body = |model: &str| {
        json!({
            "model": model,
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "Describe"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
            ]}],
            "top_p": 0.5, "stop": ["END", "STOP"], "max_completion_tokens": 32,
            "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": true}}
        })
        .to_string()
    };

    let answer = post(&gw, None, &[], body("new")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.text(), "{\"ok\":true}");
    let sent = upstream.requests()[0].body_json().unwrap();
    assert_eq!(sent["top_p"], 0.5, "{sent}");
    assert_eq!(sent["stop"], json!(["END", "STOP"]), "{sent}");
    assert_eq!(sent["response_format"]["type"], "json_schema", "{sent}");
    assert_eq!(
        sent["response_format"]["json_schema"]["name"], "answer",
        "{sent}"
    );
    assert_eq!(
        sent["response_format"]["json_schema"]["strict"], true,
        "{sent}"
    );
    let parts = &sent["messages"][0]["content"];
    assert_eq!(parts[0]["text"], "Describe", "{sent}");
    assert_eq!(
        parts[1]["image_url"]["url"], "data:image/png;base64,iVBORw0KGgo=",
        "{sent}"
    );

    let refused = post(&gw, None, &[], body("old")).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert_eq!(
        refused.header("x-dsh-failure-code"),
        Some("INVALID_REQUEST")
    );
    let message = refused.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("v0.1-adapter") && message.contains("0.1.0"),
        "{message}"
    );
    assert!(
        old_upstream.requests().is_empty(),
        "a request the adapter cannot carry was sent"
    );
}

/// Anthropic's signed thinking blocks must go back with the tool-use turn that followed them. The
/// gateway keeps no conversation: it hands them to the client as `extra_content`, and a client that
/// sends the assistant message back as it got it sends them back to Anthropic.
#[tokio::test]
async fn thinking_signatures_round_trip_through_the_client_as_extra_content() {
    use crate::contract::anthropic_stream;
    let thinking =
        json!({"type": "thinking", "thinking": "The clock knows.", "signature": "sig-one"});
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "clock"});
    let upstream = mock(
        &json!({"steps": [
            anthropic_stream(&[thinking.clone(), call], "tool_use"),
            anthropic_stream(&[json!({"type": "text", "text": "It is noon."})], "end_turn"),
        ]})
        .to_string(),
    )
    .await;
    let scratch = Scratch::new();
    scratch.config(&format!(
        "{}[gateway]\ndefault_provider = \"claude\"\n",
        upstream_toml("claude", "anthropic", &upstream.base_url(), 0, 10)
    ));
    let gw = scratch
        .start_gateway(&["--allow-unauthenticated"], &[])
        .await;
    let tools = json!([{"type": "function", "function": {"name": "clock", "parameters": {"type": "object"}}}]);
    let user = json!({"role": "user", "content": "What time is it?"});

    let first = post(
        &gw,
        None,
        &[],
        json!({"model": "claude-test", "messages": [user], "tools": tools}).to_string(),
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    let message = first.json()["choices"][0]["message"].clone();
    assert_eq!(message["tool_calls"][0]["id"], "toolu_1", "{message}");
    assert!(
        message["extra_content"]["dsh"]["provider_data"]
            .as_str()
            .is_some_and(|d| d.contains("sig-one")),
        "{message}"
    );

    let tool = json!({"role": "tool", "tool_call_id": "toolu_1", "content": "12:00"});
    let second = post(
        &gw,
        None,
        &[],
        json!({"model": "claude-test", "messages": [user, message, tool], "tools": tools})
            .to_string(),
    )
    .await;
    assert_eq!(second.status, 200, "{}", second.body);
    assert_eq!(second.text(), "It is noon.");
    let sent = upstream.requests()[1].body_json().unwrap();
    let assistant = &sent["messages"][1];
    assert_eq!(assistant["role"], "assistant", "{sent}");
    assert_eq!(
        assistant["content"][0], thinking,
        "the signed thinking block goes back first: {sent}"
    );
    assert_eq!(assistant["content"][1]["type"], "tool_use", "{sent}");
}

#[tokio::test]
async fn a_429_holds_the_other_sessions_of_the_process_no_longer_than_their_policy_allows() {
    // Sessions in files: the cool-down lives in the gateway's memory. The first request's 429 asks
    // for 3 s, beyond the policy's max_delay_ms (1 s): that request gives up (429 to its client), and
    // the next request, another conversation on the same key and model, is held by the cool-down,
    // but for the policy's 1 s, not the provider's 3 s.
    let mock = mock(&script(&[
        rate_limited(Some("3")),
        completion(&["held, then sent"]),
    ]))
    .await;
    let scratch = Scratch::new();
    scratch.config(&format!(
        "{}max_delay_ms = 1000\n[gateway]\ndefault_provider = \"up\"\n",
        upstream_toml("up", "openai-compatible", &mock.base_url(), 3, 100)
    ));
    let gw = scratch
        .start_gateway(&["--allow-unauthenticated"], &[])
        .await;
    let first = post(&gw, None, &[], chat("first", false)).await;
    assert_eq!(first.status, 429, "{}", first.body);
    let second = post(&gw, None, &[], chat("second", false)).await;
    assert_eq!(
        (second.status, second.text().as_str()),
        (200, "held, then sent"),
        "{}",
        second.body
    );

    let events = scratch.session_events(&second.session());
    let held = of_kind(&events, "llm/cooldown");
    assert_eq!(held.len(), 1, "{}", timeline(&events));
    assert_eq!(
        held[0].data["wait_ms"],
        1000,
        "bounded by max_delay_ms: {}",
        timeline(&events)
    );
    assert!(
        held[0].data["remaining_ms"].as_u64().unwrap() > 1000,
        "{}",
        timeline(&events)
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let gap = requests[1]
        .received
        .duration_since(requests[0].received)
        .unwrap();
    assert!(
        gap >= Duration::from_millis(1000) && gap < Duration::from_millis(2900),
        "held for the cap, not the 3 s: {gap:?}"
    );
    let first_events = scratch.session_events(&first.session());
    assert!(
        of_kind(&first_events, "llm/cooldown").is_empty(),
        "{}",
        timeline(&first_events)
    );
}
