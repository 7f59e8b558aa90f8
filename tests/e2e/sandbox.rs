//! The sandbox and the watchdog: hostile guests, network policy, credentials, stalled streams.
//! Library-level where a test needs two sessions in one process or a pinned name lookup.

use crate::support::*;
use dsh_host::adapter::{Adapter, CompletionRequest, Message, Role};
use dsh_host::attempt::{Completion, Provider, StreamEvent, run_attempt};
use dsh_host::config::{self, ProviderConfig};
use dsh_host::engine::{GuestEngine, GuestLimits};
use dsh_host::failure::LlmFailure;
use dsh_host::guests::GuestSource;
use dsh_host::network::NetworkPolicy;
use dsh_host::transport::{Credential, NameLookup, Transport};
use dsh_host::watchdog::Watchdog;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn engine() -> GuestEngine {
    GuestEngine::new(Some(shared_cache_dir())).unwrap()
}

async fn hostile(engine: &GuestEngine, limits: GuestLimits) -> Arc<Adapter> {
    let source = GuestSource::file(&test_guest("dsh_test_hostile"));
    Arc::new(Adapter::load(engine, &source, limits).await.unwrap())
}

async fn openai(engine: &GuestEngine) -> Arc<Adapter> {
    let source = dsh_host::guests::builtin_adapter("openai").unwrap();
    Arc::new(
        Adapter::load(engine, &source, GuestLimits::default_for(&source))
            .await
            .unwrap(),
    )
}

fn provider_config(base_url: &str, model: &str) -> ProviderConfig {
    let mut cfg = config::preset("openai-compatible").unwrap();
    cfg.base_url = base_url.to_string();
    cfg.model = model.to_string();
    cfg
}

fn provider(adapter: Arc<Adapter>, base_url: &str, model: &str) -> Provider {
    Provider::new(
        provider_config(base_url, model),
        adapter,
        Some(TEST_KEY.into()),
    )
    .unwrap()
}

fn request(model: &str) -> CompletionRequest {
    CompletionRequest::new(model, vec![Message::new(Role::User, "hi there")])
}

async fn attempt(p: &Provider) -> Result<Completion, LlmFailure> {
    run_attempt(p, &request(&p.config.model), &mut |_| {}).await
}

fn small_limits() -> GuestLimits {
    GuestLimits {
        call_deadline: Duration::from_millis(1500),
        memory_bytes: 32 << 20,
        output_bytes: 4096,
        returns: Default::default(),
    }
}

const SLOW_STREAM: &str =
    r#"{"completion":{"text":["one ","two ","three ","four ","five"],"delay_ms":40}}"#;

/// Each hostile behaviour runs beside a healthy session on a single-threaded runtime: the healthy
/// one must finish first (a busy guest yields at every epoch tick), the hostile one must end as
/// ADAPTER_FAULT naming the guest and the cause, and the same adapter must serve the next attempt.
#[tokio::test(flavor = "current_thread")]
async fn hostile_guests_fault_in_plain_words_while_a_healthy_session_completes() {
    let engine = engine();
    let hostile_adapter = hostile(&engine, small_limits()).await;
    let big = hostile(
        &engine,
        GuestLimits {
            memory_bytes: 512 << 20,
            ..small_limits()
        },
    )
    .await;
    let healthy_adapter = openai(&engine).await;
    let cases: [(&str, &Arc<Adapter>, &str); 5] = [
        ("loop", &hostile_adapter, "exceeded its CPU time limit"),
        ("alloc", &hostile_adapter, "memory"),
        ("recurse", &hostile_adapter, "stack overflow"),
        ("panic", &hostile_adapter, "panics on purpose"),
        ("huge-chunk", &big, "MiB of chunks at once"),
    ];
    for (mode, adapter, cause) in cases {
        // One mock each: which request arrives first must not decide which answer it gets.
        let healthy_mock = mock(&format!(r#"{{"steps":[{SLOW_STREAM}]}}"#)).await;
        let mock =
            mock(r#"{"steps":[{"completion":{"text":["x"]}},{"completion":{"text":["after"]}}]}"#)
                .await;
        let healthy = provider(
            healthy_adapter.clone(),
            &healthy_mock.base_url(),
            "gpt-test",
        );
        let bad = provider((*adapter).clone(), &mock.base_url(), mode);
        let healthy_run = async {
            let r = attempt(&healthy).await;
            (r, Instant::now())
        };
        let hostile_run = async {
            let r = attempt(&bad).await;
            (r, Instant::now())
        };
        let ((good, good_at), (fault, fault_at)) = tokio::join!(healthy_run, hostile_run);
        assert_eq!(good.unwrap().text, "one two three four five", "{mode}");
        let fault = fault.unwrap_err();
        assert_eq!(fault.code, "ADAPTER_FAULT", "{mode}: {fault}");
        assert!(
            fault.message.starts_with("guest 'hostile'"),
            "{mode}: {}",
            fault.message
        );
        assert!(fault.message.contains(cause), "{mode}: {}", fault.message);
        assert!(
            !fault.message.contains("wasm backtrace"),
            "{mode}: plain words, not a dump: {}",
            fault.message
        );
        if mode == "loop" {
            // The spinning guest held the only thread for its whole CPU budget unless it yielded.
            assert!(
                good_at < fault_at,
                "{mode}: the healthy session finished first"
            );
        }
        // The host keeps serving: the next attempt on the same adapter gets a fresh store.
        let next = provider((*adapter).clone(), &mock.base_url(), "echo");
        assert!(
            attempt(&next).await.unwrap().text.contains("hi there"),
            "{mode}"
        );
    }
}

#[tokio::test]
async fn a_guest_that_imports_what_the_host_does_not_offer_is_refused_at_load() {
    let source = GuestSource::file(&test_guest("dsh_test_bad_import"));
    let err = Adapter::load(&engine(), &source, GuestLimits::default_for(&source))
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("dsh_test_bad_import.wasm"), "{err}");
    assert!(err.contains("exfiltrate"), "{err}");
    assert!(err.contains("offers guests only WASI"), "{err}");
}

#[tokio::test]
async fn a_plan_to_a_host_that_is_not_allowed_is_refused_before_any_connection() {
    let mock = mock(r#"{"steps":[]}"#).await;
    let p = provider(
        hostile(&engine(), small_limits()).await,
        &mock.base_url(),
        "bad-host",
    );
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "INVALID_REQUEST");
    assert!(
        f.message
            .contains("'evil.example.com' is not an allowed host of provider"),
        "{}",
        f.message
    );
    assert!(mock.requests().is_empty());
}

#[tokio::test]
async fn the_key_never_enters_guest_memory_and_is_redacted_from_failures() {
    let engine = engine();
    let mock = mock(r#"{"steps":[{"completion":{"text":["fine"]}},
        {"status":401,"body":"{\"error\":{\"message\":\"Incorrect API key provided: sk-test-0123456789abcdef.\",\"code\":\"invalid_api_key\"}}"}]}"#).await;
    let echo = provider(
        hostile(&engine, small_limits()).await,
        &mock.base_url(),
        "echo",
    );
    let seen = attempt(&echo).await.unwrap().text;
    assert!(
        seen.contains("hi there") && seen.contains("chat.completion.chunk"),
        "the echo guest echoes: {seen:.300}"
    );
    assert!(!seen.contains(TEST_KEY), "the key reached the guest");
    let sent = mock.requests()[0]
        .headers
        .iter()
        .find(|(n, _)| n == "authorization")
        .unwrap()
        .1
        .clone();
    assert_eq!(
        sent,
        format!("Bearer {TEST_KEY}"),
        "the host inserted it on the wire"
    );

    let real = provider(openai(&engine).await, &mock.base_url(), "gpt-test");
    let f = attempt(&real).await.unwrap_err();
    assert_eq!(f.code, "AUTH");
    assert!(
        !f.message.contains(TEST_KEY) && f.message.contains("[redacted]"),
        "{}",
        f.message
    );
}

#[tokio::test]
async fn guest_output_beyond_the_cap_is_dropped_not_fatal() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["ok"]}}]}"#).await;
    let p = provider(
        hostile(&engine(), small_limits()).await,
        &mock.base_url(),
        "chatty",
    );
    let r = attempt(&p).await;
    assert!(r.is_ok(), "{:?}", r.err());
}

fn redirect(status: u16, location: &str) -> String {
    format!(r#"{{"status":{status},"headers":{{"location":"{location}"}},"body":""}}"#)
}

#[tokio::test]
async fn redirects_are_followed_only_when_they_keep_the_request_and_the_provider() {
    let engine = engine();
    let adapter = openai(&engine).await;

    let mock1 = mock(&format!(
        r#"{{"steps":[{}]}}"#,
        redirect(307, "https://evil.example.com/v1/chat/completions")
    ))
    .await;
    let f = attempt(&provider(adapter.clone(), &mock1.base_url(), "m"))
        .await
        .unwrap_err();
    assert_eq!(f.code, "INVALID_REQUEST");
    assert!(
        f.message.contains("refused the redirect") && f.message.contains("evil.example.com"),
        "{}",
        f.message
    );

    let mock4 = mock(&format!(
        r#"{{"steps":[{},{{"completion":{{"text":["moved"]}}}}]}}"#,
        redirect(302, "/v1/chat/completions")
    ))
    .await;
    let f = attempt(&provider(adapter.clone(), &mock4.base_url(), "m"))
        .await
        .unwrap_err();
    assert!(f.message.contains("only 307/308"), "{}", f.message);

    let mock5 = mock(&format!(
        r#"{{"steps":[{},{{"completion":{{"text":["moved"]}}}}]}}"#,
        redirect(307, "/v1/chat/completions?moved=1")
    ))
    .await;
    let ok = attempt(&provider(adapter, &mock5.base_url(), "m"))
        .await
        .unwrap();
    assert_eq!(ok.text, "moved");
    assert_eq!(mock5.requests().len(), 2);
    assert_eq!(mock5.requests()[1].method, "POST", "307 keeps the method");
}

#[tokio::test]
async fn plain_http_to_a_non_loopback_host_is_refused_before_connecting() {
    let p = provider(openai(&engine()).await, "http://api.example.com/v1", "m");
    let f = attempt(&p).await.unwrap_err();
    assert_eq!(f.code, "INVALID_REQUEST");
    assert!(f.message.contains("unencrypted"), "{}", f.message);
}

struct Pinned(std::net::IpAddr);

impl NameLookup for Pinned {
    fn lookup(
        &self,
        _host: String,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = std::io::Result<Vec<std::net::IpAddr>>> + Send>,
    > {
        let ip = self.0;
        Box::pin(async move { Ok(vec![ip]) })
    }
}

#[tokio::test]
async fn an_allowed_public_name_that_resolves_into_the_local_network_is_refused() {
    let cfg = provider_config("https://api.example.com/v1", "m");
    let policy = NetworkPolicy::for_provider(&cfg.name, &cfg.base_url, &[]).unwrap();
    let credential = Credential {
        key: Some(TEST_KEY.into()),
        source: "test".into(),
        missing: "test".into(),
        required: true,
        headers: vec!["authorization".into()],
    };
    for ip in ["127.0.0.1", "169.254.169.254", "10.0.0.7"] {
        let transport = Transport::with_lookup(
            policy.clone(),
            credential.clone(),
            Watchdog::new(Duration::from_secs(5)),
            Arc::new(Pinned(ip.parse().unwrap())),
        )
        .unwrap();
        let p = Provider::with_transport(cfg.clone(), openai(&engine()).await, transport);
        let f = attempt(&p).await.unwrap_err();
        assert_eq!(f.code, "INVALID_REQUEST", "{ip}: {f}");
        assert!(
            f.message.contains(&format!("resolved to {ip}")),
            "{ip}: {}",
            f.message
        );
    }
}

#[tokio::test]
async fn response_bodies_are_size_capped() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["aaaaaaaaaa","bbbbbbbbbb","cccccccccc","dddddddddd","eeeeeeeeee"]}}]}"#).await;
    let cfg = provider_config(&mock.base_url(), "m");
    let policy = NetworkPolicy::for_provider(&cfg.name, &cfg.base_url, &[]).unwrap();
    let credential = Credential {
        key: None,
        source: "test".into(),
        missing: "test".into(),
        required: false,
        headers: vec!["authorization".into()],
    };
    let transport = Transport::new(policy, credential, Watchdog::new(Duration::from_secs(5)))
        .unwrap()
        .with_max_response_bytes(300);
    let p = Provider::with_transport(cfg, openai(&engine()).await, transport);
    let f = attempt(&p).await.unwrap_err();
    assert!(f.message.contains("exceeded 300 bytes"), "{}", f.message);
}

// ---- the watchdog ----------------------------------------------------------------------------

fn watchdog_config() -> &'static str {
    "[providers.openai]\nstream_idle_timeout_ms = 300\n[providers.openai.retry_policy]\ninitial_delay_ms = 50\n"
}

async fn recovered_from_timeout(stall: &str) {
    let mock = mock(&format!(
        r#"{{"steps":[{stall},{{"completion":{{"text":["after the stall"]}}}}]}}"#
    ))
    .await;
    let scratch = Scratch::new();
    scratch.config(watchdog_config());
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("after the stall"));
    let events = scratch.only_session_events();
    assert_eq!(failure_code(&events).as_deref(), Some("TIMEOUT"));
    let retried: Vec<&str> = of_kind(&events, "llm/retry")
        .iter()
        .map(|e| e.data["code"].as_str().unwrap())
        .collect();
    assert_eq!(retried, ["TIMEOUT"]);
}

#[tokio::test]
async fn a_stall_before_the_headers_times_out_and_is_retried() {
    recovered_from_timeout(r#"{"completion":{"text":["never"]},"stall_before_headers_ms":3000}"#)
        .await;
}

#[tokio::test]
async fn a_stall_mid_body_times_out_and_is_retried() {
    recovered_from_timeout(r#"{"completion":{"text":["partial ","never ","finished"]},"stall_after_bytes":{"bytes":200,"ms":3000}}"#).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_slower_than_the_idle_timeout_never_sees_a_timeout() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["a","b","c","d"],"delay_ms":20}}]}"#).await;
    let mut cfg = provider_config(&mock.base_url(), "m");
    cfg.stream_idle_timeout = Duration::from_millis(150);
    let p = Provider::new(cfg, openai(&engine()).await, None).unwrap();
    let mut texts = 0;
    let mut slow_sink = |e: StreamEvent| {
        if let StreamEvent::Text(_) = e {
            texts += 1;
            // The consumer holds each chunk twice as long as the provider may stay silent.
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    let done = run_attempt(&p, &request("m"), &mut slow_sink)
        .await
        .unwrap();
    assert_eq!(done.text, "abcd");
    // Pieces that arrive while the consumer holds one come in one later read (one event): at least
    // two holds, each twice the idle timeout, happened while the provider was silent.
    assert!(texts >= 2, "{texts}");
}

#[tokio::test]
async fn an_abort_before_the_timer_expires_stays_aborted() {
    use dsh_host::recovery::Recovery;
    use dsh_host::session::{Session, SessionDeps, TurnError};
    use dsh_host::store::SessionStore;
    let mock =
        mock(r#"{"steps":[{"completion":{"text":["late"]},"stall_before_headers_ms":2000}]}"#)
            .await;
    let mut cfg = provider_config(&mock.base_url(), "m");
    cfg.stream_idle_timeout = Duration::from_millis(400);
    let p = Arc::new(Provider::new(cfg, openai(&engine()).await, None).unwrap());
    let scratch = Scratch::new();
    let store = SessionStore::open(&scratch.sessions()).unwrap();
    let deps = SessionDeps::new(p, Arc::new(Recovery::new(vec![], Some(1))));
    let mut session = Session::start(deps, store.create().unwrap(), None).unwrap();
    let abort = session.abort_signal();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        abort.abort();
    });
    let outcome = session.run_turn("hi", &mut |_| {}).await;
    let Err(TurnError::Failed(f)) = outcome else {
        panic!("expected a failure")
    };
    assert_eq!(f.code, "ABORTED");
    // Let the idle timer's moment pass: nothing may turn the abort into a timeout afterwards.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let events = store.read(session.id()).unwrap().events;
    let codes: Vec<&str> = of_kind(&events, "llm/failure")
        .iter()
        .map(|e| e.data["failure"]["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["ABORTED"]);
}

#[tokio::test]
async fn nonsense_idle_timeouts_are_refused_at_start_up() {
    for bad in ["0", "-5", "nan", "inf", "1e12", "0.0001"] {
        let scratch = Scratch::new();
        scratch.config(&format!(
            "[providers.openai]\nstream_idle_timeout_ms = {bad}\n"
        ));
        let out = scratch.run_bin(&["run", "hi"], Some(TEST_KEY)).await;
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&out).contains("stream_idle_timeout_ms"),
            "{bad}: {}",
            stderr(&out)
        );
    }
}
