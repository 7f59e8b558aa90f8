//! Field conditions (issue #10): what real providers and hostile guests do that the fast mock of the
//! other tests never shows. Long slow streams against the guest CPU budget, keepalives against the
//! watchdog, error bodies that drip, providers that echo the key, guests that return without bound,
//! provider-side aborts, and aborts that belong to one turn.
//!
//! These run on real time where the bug lived in real time (the epoch ticker is a real thread), with
//! small numbers so that each test takes a second or two.

use crate::support::*;
use dsh_host::adapter::{Adapter, CompletionRequest, Message, Role};
use dsh_host::attempt::{Completion, Provider, StreamEvent, run_attempt};
use dsh_host::config::{self, ProviderConfig};
use dsh_host::engine::{GuestEngine, GuestLimits};
use dsh_host::failure::LlmFailure;
use dsh_host::guests::GuestSource;
use dsh_host::recovery::Recovery;
use dsh_host::session::{Session, SessionDeps, TurnError};
use dsh_host::store::SessionStore;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn engine() -> GuestEngine {
    GuestEngine::new(Some(shared_cache_dir())).unwrap()
}

async fn builtin(
    engine: &GuestEngine,
    name: &str,
    limits: impl FnOnce(&mut GuestLimits),
) -> Arc<Adapter> {
    let source = dsh_host::guests::builtin_adapter(name).unwrap();
    let mut l = GuestLimits::default_for(&source);
    limits(&mut l);
    Arc::new(Adapter::load(engine, &source, l).await.unwrap())
}

async fn hostile(engine: &GuestEngine) -> Arc<Adapter> {
    let source = GuestSource::file(&test_guest("dsh_test_hostile"));
    let mut limits = GuestLimits::default_for(&source);
    limits.memory_bytes = 256 << 20;
    Arc::new(Adapter::load(engine, &source, limits).await.unwrap())
}

fn provider_config(base_url: &str, model: &str) -> ProviderConfig {
    let mut cfg = config::preset("openai-compatible").unwrap();
    cfg.base_url = base_url.to_string();
    cfg.model = model.to_string();
    cfg
}

fn request(model: &str) -> CompletionRequest {
    CompletionRequest::new(model, vec![Message::new(Role::User, "hi there")])
}

async fn attempt(p: &Provider) -> Result<Completion, LlmFailure> {
    run_attempt(p, &request(&p.config.model), &mut |_| {}).await
}

/// An OpenAI stream of `n` one-word events, `delay_ms` apart: each event its own network read.
fn slow_stream(n: usize, delay_ms: u64) -> String {
    let words: Vec<String> = (0..n).map(|i| format!("\"w{i} \"")).collect();
    format!(
        r#"{{"steps":[{{"completion":{{"text":[{}],"delay_ms":{delay_ms}}}}}]}}"#,
        words.join(",")
    )
}

// ---- 1. the CPU budget counts the guest's own execution of one call -----------------------------

/// The budget is 100 ms (20 ticks); the stream is 300 reads spaced 6 ms apart, so a tick passes
/// between nearly every two reads. When the budget summed the ticks of the whole attempt (and the
/// ticks that passed while the host waited on the network), this stream faulted after about 20
/// reads: the same failure a 30-minute stream of 50,000 reads met against the default 10 s budget.
#[tokio::test]
async fn a_long_slow_stream_completes_within_a_small_per_call_budget() {
    let engine = engine();
    let adapter = builtin(&engine, "openai", |l| {
        l.call_deadline = Duration::from_millis(100)
    })
    .await;
    let mock = mock(&slow_stream(300, 6)).await;
    let p = Provider::new(provider_config(&mock.base_url(), "m"), adapter, None).unwrap();
    let mut reads = 0;
    let done = run_attempt(&p, &request("m"), &mut |e| {
        if let StreamEvent::Text(_) = e {
            reads += 1;
        }
    })
    .await
    .unwrap_or_else(|f| panic!("the stream must complete: {f}"));
    assert!(
        done.text.starts_with("w0 w1 ") && done.text.ends_with("w299 "),
        "{:.80}",
        done.text
    );
    // The reads really were spread out (else the test proves nothing): far more than the budget's ticks.
    assert!(reads > 100, "only {reads} separate reads");
}

/// The same small budget still stops a guest that loops inside one call.
#[tokio::test]
async fn a_guest_looping_inside_one_call_still_faults_within_its_budget() {
    let engine = engine();
    let source = GuestSource::file(&test_guest("dsh_test_hostile"));
    let mut limits = GuestLimits::default_for(&source);
    limits.call_deadline = Duration::from_millis(100);
    let adapter = Arc::new(Adapter::load(&engine, &source, limits).await.unwrap());
    let mock = mock(r#"{"steps":[]}"#).await;
    let p = Provider::new(provider_config(&mock.base_url(), "loop"), adapter, None).unwrap();
    let started = Instant::now();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "ADAPTER_FAULT");
    assert!(
        f.message.contains("exceeded its CPU time limit per call"),
        "{}",
        f.message
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "stopped near its 100 ms budget, not later: {:?}",
        started.elapsed()
    );
}

/// While no guest runs, the epoch ticker sleeps: an idle host is not woken 200 times a second.
#[tokio::test]
async fn the_epoch_ticker_sleeps_while_no_guest_runs() {
    let engine = engine();
    let adapter = builtin(&engine, "openai", |_| {}).await;
    // Let a tick that was under way when the last call ended land.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let before = engine.ticker().ticks();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        engine.ticker().ticks() - before <= 1,
        "{} ticks while idle",
        engine.ticker().ticks() - before
    );
    // And it runs while a guest does (a looping guest needs it to be stopped at all).
    drop(adapter);
    let looping = {
        let source = GuestSource::file(&test_guest("dsh_test_hostile"));
        let mut limits = GuestLimits::default_for(&source);
        limits.call_deadline = Duration::from_millis(50);
        Arc::new(Adapter::load(&engine, &source, limits).await.unwrap())
    };
    let mock = mock(r#"{"steps":[]}"#).await;
    let p = Provider::new(provider_config(&mock.base_url(), "loop"), looping, None).unwrap();
    let before = engine.ticker().ticks();
    assert_eq!(attempt(&p).await.unwrap_err().code, "ADAPTER_FAULT");
    assert!(
        engine.ticker().ticks() - before >= 10,
        "the ticker ran during the call"
    );
}

// ---- 2. the watchdog counts progress, not bytes -------------------------------------------------

/// A provider that sends a first token, then only `event: ping` every 100 ms for 3 s, against a
/// 500 ms idle timeout: TIMEOUT about half a second after the last token, never STREAM_TRUNCATED
/// at the end of the pings.
#[tokio::test]
async fn pings_do_not_keep_a_stalled_stream_alive() {
    let ping = r#"{"event":"ping","data":{},"delay_ms":100}"#;
    let pings = vec![ping; 30].join(",");
    let mock = mock(&format!(
        r#"{{"steps":[{{"events":[{{"data":{{"choices":[{{"index":0,"delta":{{"content":"first"}},"finish_reason":null}}]}}}},{pings}]}}]}}"#
    ))
    .await;
    let mut cfg = provider_config(&mock.base_url(), "m");
    cfg.stream_idle_timeout = Duration::from_millis(500);
    let p = Provider::new(cfg, builtin(&engine(), "openai", |_| {}).await, None).unwrap();
    let started = Instant::now();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "TIMEOUT", "{f}");
    assert!(
        f.message.contains("no progress") && f.message.contains("500 ms"),
        "{}",
        f.message
    );
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "timed out while the pings went on: {:?}",
        started.elapsed()
    );
}

/// The same with SSE comments (`: keepalive`, as OpenRouter and proxies send them) for 15 s against
/// a 500 ms idle timeout. Before the watchdog counted progress, this ended as STREAM_TRUNCATED at
/// the end of the comments, 15 s later.
#[tokio::test]
async fn keepalive_comments_do_not_keep_a_stalled_stream_alive() {
    let mock = mock(
        r#"{"steps":[{"events":[{"data":{"choices":[{"index":0,"delta":{"content":"first"},"finish_reason":null}]}},
        {"sse_comment":"keepalive","delay_ms":100,"repeat":150}]}]}"#,
    )
    .await;
    let mut cfg = provider_config(&mock.base_url(), "m");
    cfg.stream_idle_timeout = Duration::from_millis(500);
    let p = Provider::new(cfg, builtin(&engine(), "openai", |_| {}).await, None).unwrap();
    let started = Instant::now();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "TIMEOUT", "{f}");
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "timed out while the comments went on: {:?}",
        started.elapsed()
    );
}

/// A fake provider on a raw socket that sends `head`, then `body` one byte every `every`.
async fn dripping_provider(head: &'static str, body: &'static str, every: Duration) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let Ok((mut socket, _)) = listener.accept().await else {
            return;
        };
        let mut buf = [0u8; 4096];
        let _ = socket.read(&mut buf).await;
        let head = head.replace("{len}", &body.len().to_string());
        if socket.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        for b in body.bytes() {
            tokio::time::sleep(every).await;
            if socket.write_all(&[b]).await.is_err() {
                return;
            }
        }
    });
    url
}

/// A 401 whose body drips a byte every 50 ms (10 s in all) against a 400 ms idle timeout: the read
/// is bounded, and the status still classifies it.
#[tokio::test]
async fn an_error_body_that_drips_is_read_within_the_idle_timeout() {
    let url = dripping_provider(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n\r\n",
        r#"{"error":{"message":"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys and more text to make it drip for a long while ...........","type":"invalid_request_error","code":"invalid_api_key"}}"#,
        Duration::from_millis(50),
    )
    .await;
    let mut cfg = provider_config(&url, "m");
    cfg.stream_idle_timeout = Duration::from_millis(400);
    let p = Provider::new(cfg, builtin(&engine(), "openai", |_| {}).await, None).unwrap();
    let started = Instant::now();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "AUTH", "{f}");
    assert_eq!(f.status, Some(401));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the dripping body held the attempt {:?}",
        started.elapsed()
    );
}

/// A stream that drips real content slowly (each token within the idle time) is progress: it completes.
#[tokio::test]
async fn a_slow_stream_with_real_tokens_is_never_timed_out() {
    let mock = mock(&slow_stream(12, 150)).await;
    let mut cfg = provider_config(&mock.base_url(), "m");
    cfg.stream_idle_timeout = Duration::from_millis(400);
    let p = Provider::new(cfg, builtin(&engine(), "openai", |_| {}).await, None).unwrap();
    let done = attempt(&p).await.unwrap();
    assert!(done.text.ends_with("w11 "), "{}", done.text);
}

// ---- 4. the key never enters guest memory, in any form ------------------------------------------

const KEY: &str = "sk-proj-Zq8v1TxY2kLm9/Qa+Rt5Uw3Ez7Np0Jc4";

/// Every form a hostile guest could give the key to slip past an exact-match redaction: the echo
/// guest returns what it saw verbatim, reversed, spaced out and hex-encoded.
fn assert_no_key(text: &str, what: &str) {
    let reversed: String = KEY.chars().rev().collect();
    let spaced: String = KEY.chars().flat_map(|c| [c, ' ']).collect();
    let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
    for (form, needle) in [
        ("verbatim", KEY),
        ("reversed", &reversed),
        ("spaced", &spaced),
        ("hex", &hex),
        ("tail", "Jc4"),
    ] {
        assert!(
            !text.contains(needle),
            "{what} holds the key ({form}): {text:.400}"
        );
    }
}

fn echo_provider(adapter: Arc<Adapter>, base_url: &str) -> Provider {
    Provider::new(provider_config(base_url, "echo"), adapter, Some(KEY.into())).unwrap()
}

#[tokio::test]
async fn a_provider_echoing_the_key_in_a_401_body_and_headers_never_hands_it_to_the_guest() {
    use base64::Engine as _;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("user:{KEY}"));
    let body = serde_json::to_string(&format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. Basic {basic}","url":"https://x/?key={}"}}}}"#,
        KEY.replace('/', "%2F").replace('+', "%2B")
    ))
    .unwrap();
    let mock = mock(&format!(
        r#"{{"steps":[{{"status":401,"headers":{{"x-echo-authorization":"Bearer {KEY}"}},"body":{body}}}]}}"#
    ))
    .await;
    let p = echo_provider(hostile(&engine()).await, &mock.base_url());
    let f = attempt(&p).await.unwrap_err();
    assert!(
        f.message.contains("Incorrect API key provided: [redacted]"),
        "the guest saw the body: {:.300}",
        f.message
    );
    assert_no_key(&f.message, "the failure message");
    assert_no_key(f.request_id.as_deref().unwrap_or(""), "the request id");
    assert!(
        !f.message.contains(&basic[8..30]),
        "the base64 form reached the guest: {:.400}",
        f.message
    );
}

#[tokio::test]
async fn a_200_stream_echoing_the_key_never_hands_it_to_the_guest_even_split_across_reads() {
    let event = |text: &str| {
        format!(
            r#"{{"data":{{"choices":[{{"index":0,"delta":{{"content":"{text}"}},"finish_reason":null}}]}}}}"#
        )
    };
    let events = [
        event(&format!("your header was Bearer {KEY} ok")),
        event("done"),
    ]
    .join(",");
    // The key's position in the body, so that the provider pauses (a separate read) in its middle.
    let prefix =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"your header was Bearer ";
    let middle = prefix.len() + KEY.len() / 2;
    for stall in [
        None,
        Some(middle),
        Some(prefix.len() + 1),
        Some(prefix.len() + KEY.len() - 1),
    ] {
        let stall = stall
            .map(|b| format!(r#","stall_after_bytes":{{"bytes":{b},"ms":120}}"#))
            .unwrap_or_default();
        let mock = mock(&format!(
            r#"{{"steps":[{{"events":[{events}],"done":true{stall}}}]}}"#
        ))
        .await;
        let p = echo_provider(hostile(&engine()).await, &mock.base_url());
        let done = attempt(&p).await.unwrap();
        assert!(
            done.text.contains("your header was Bearer [redacted] ok"),
            "{stall}: {:.300}",
            done.text
        );
        assert_no_key(&done.text, &format!("the completion ({stall})"));
    }
}

/// Through the binary: nothing of the key on stdout, stderr or in the session log.
#[tokio::test]
async fn the_terminal_and_the_log_never_show_an_echoed_key() {
    let mock = mock(&format!(
        r#"{{"steps":[{{"status":401,"body":"{{\"error\":{{\"message\":\"Incorrect API key provided: {KEY}\"}}}}"}}]}}"#
    ))
    .await;
    let scratch = Scratch::new();
    scratch.config("listeners = []\n");
    let hostile = test_guest("dsh_test_hostile");
    let args = [
        "run",
        "--base-url",
        &mock.base_url(),
        "--model",
        "echo",
        "--adapter",
        hostile.to_str().unwrap(),
        "hi",
    ];
    let out = scratch.run_bin(&args, Some(KEY)).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Incorrect API key provided: [redacted]"),
        "{}",
        stderr(&out)
    );
    assert_no_key(&stdout(&out), "stdout");
    assert_no_key(&stderr(&out), "stderr");
    let log = std::fs::read_to_string(
        scratch
            .sessions()
            .join(format!("{}.jsonl", scratch.only_session_id())),
    )
    .unwrap();
    assert_no_key(&log, "the session log");
}

/// A placeholder key ("k", common for local servers) is not a secret: text is never mangled.
#[tokio::test]
async fn a_placeholder_key_is_not_redacted_from_text() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["kick ","the ","kettle"]}}]}"#).await;
    let p = Provider::new(
        provider_config(&mock.base_url(), "m"),
        builtin(&engine(), "openai", |_| {}).await,
        Some("k".into()),
    )
    .unwrap();
    assert_eq!(attempt(&p).await.unwrap().text, "kick the kettle");
    assert_eq!(
        mock.requests()[0].header("authorization"),
        Some("Bearer k"),
        "it is still sent"
    );
}

// ---- 8. host caps on what a guest returns -------------------------------------------------------

#[tokio::test]
async fn a_guest_inventing_100000_tool_calls_faults_at_the_cap() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["x"]}}]}"#).await;
    let p = Provider::new(
        provider_config(&mock.base_url(), "many-calls"),
        hostile(&engine()).await,
        None,
    )
    .unwrap();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "ADAPTER_FAULT");
    assert!(
        f.message.starts_with("guest 'hostile'")
            && f.message.contains("more than 128 tool calls")
            && f.message.contains("max_tool_calls"),
        "{}",
        f.message
    );
}

#[tokio::test]
async fn a_guest_returning_more_than_the_completion_cap_faults() {
    let mock = mock(&slow_stream(3, 30)).await;
    let p = Provider::new(
        provider_config(&mock.base_url(), "big-completion"),
        hostile(&engine()).await,
        None,
    )
    .unwrap();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "ADAPTER_FAULT");
    assert!(
        f.message.contains("more than 16 MiB of completion")
            && f.message.contains("max_completion_mb"),
        "{}",
        f.message
    );
}

/// A listener asking for a wait above its cap is a listener fault (logged and skipped), never a wait.
#[tokio::test]
async fn a_listener_delay_above_its_cap_is_a_fault_not_a_wait() {
    let mock =
        mock(r#"{"steps":[{"status":500,"body":"{\"error\":{\"message\":\"boom\"}}"}]}"#).await;
    let scratch = Scratch::new();
    scratch.config(
        "[providers.openai.retry_policy]\ninitial_delay_ms = 60000\nmax_delay_ms = 60000\n\
         [[listeners]]\nname = \"llm-retry\"\nlimits = { max_delay_ms = 1000 }\n",
    );
    let started = Instant::now();
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "--model", "m", "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(30), "it waited");
    let events = scratch.only_session_events();
    let fault = &of_kind(&events, "recovery/listener-fault")[0].data;
    let message = fault["failure"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("more than the cap max_delay_ms = 1000"),
        "{fault:?}"
    );
    assert!(of_kind(&events, "llm/retry").is_empty());
}

// ---- 11. aborts belong to a turn; a provider's abort is a provider failure ----------------------

#[tokio::test]
async fn an_abort_ends_its_turn_only() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["late"]},"stall_before_headers_ms":3000},{"completion":{"text":["second ","turn"]}}]}"#).await;
    let p = Arc::new(
        Provider::new(
            provider_config(&mock.base_url(), "m"),
            builtin(&engine(), "openai", |_| {}).await,
            None,
        )
        .unwrap(),
    );
    let scratch = Scratch::new();
    let store = SessionStore::open(&scratch.sessions()).unwrap();
    let deps = SessionDeps::new(p, Arc::new(Recovery::new(vec![], Some(1))));
    let mut session = Session::start(deps, store.create().unwrap(), None).unwrap();
    let abort = session.abort_signal();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        abort.abort();
    });
    let Err(TurnError::Failed(f)) = session.run_turn("first", &mut |_| {}).await else {
        panic!("expected ABORTED")
    };
    assert_eq!(f.code, "ABORTED");
    let second = session
        .run_turn("second", &mut |_| {})
        .await
        .expect("the next turn runs");
    assert_eq!(second.text, "second turn");
}

/// OpenAI-compatible servers may end a stream with `finish_reason: "cancelled"`: the provider
/// stopped on its side. That goes through the waterfall (retried), never as the caller's ABORTED.
#[tokio::test]
async fn a_provider_side_abort_is_retried_as_a_provider_failure() {
    let mock = mock(
        r#"{"steps":[
        {"events":[{"data":{"choices":[{"index":0,"delta":{"content":"Hal"},"finish_reason":null}]}},
                   {"data":{"choices":[{"index":0,"delta":{},"finish_reason":"cancelled"}]}}],"done":true},
        {"completion":{"text":["Hello"]}}]}"#,
    )
    .await;
    let scratch = Scratch::new();
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 10\n");
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "--model", "m", "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Hello\n");
    let events = scratch.only_session_events();
    let retried: Vec<&str> = of_kind(&events, "llm/retry")
        .iter()
        .map(|e| e.data["code"].as_str().unwrap())
        .collect();
    assert_eq!(retried, ["SERVER_ERROR"]);
}

/// Anthropic pings during long waits (`event: ping`); a stream that only pings after its start is
/// stalled, and a thinking block's start is progress.
#[tokio::test]
async fn anthropic_pings_are_no_progress_but_a_thinking_block_is() {
    let start = r#"{"event":"message_start","data":{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":3,"output_tokens":1}}}}"#;
    let ping = r#"{"event":"ping","data":{"type":"ping"},"delay_ms":100}"#;
    let thinking = r#"{"event":"content_block_start","data":{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}},"delay_ms":150}"#;
    let anthropic = |base_url: &str| {
        let mut cfg = config::preset("anthropic").unwrap();
        cfg.base_url = base_url.to_string();
        cfg.stream_idle_timeout = Duration::from_millis(500);
        cfg
    };
    let engine = engine();
    let adapter = builtin(&engine, "anthropic", |_| {}).await;

    let pings = vec![ping; 30].join(",");
    let mock1 = mock(&format!(r#"{{"steps":[{{"events":[{start},{pings}]}}]}}"#)).await;
    let p = Provider::new(
        anthropic(&mock1.base_url()),
        adapter.clone(),
        Some(TEST_KEY.into()),
    )
    .unwrap();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "TIMEOUT", "{f}");

    // Two pings, then a thinking block 350 ms after the head, then pings again: the block restarted
    // the timer, so the stream lives past the 500 ms it had from the head (to about 850 ms), then stalls.
    let mock2 = mock(&format!(
        r#"{{"steps":[{{"events":[{start},{ping},{ping},{thinking},{pings}]}}]}}"#
    ))
    .await;
    let p = Provider::new(anthropic(&mock2.base_url()), adapter, Some(TEST_KEY.into())).unwrap();
    let started = Instant::now();
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "TIMEOUT", "{f}");
    assert!(
        started.elapsed() > Duration::from_millis(700),
        "the thinking block was progress: {:?}",
        started.elapsed()
    );
}
