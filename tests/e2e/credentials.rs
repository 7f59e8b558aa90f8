//! Where the key may go and what a plan may ask for: a plan's mistakes are its adapter's fault and
//! nothing is sent; `{credential}` is honoured only in the provider's credential headers; a preset's
//! key goes only to the preset's own hosts; a key no header can carry stops the start-up.

use crate::support::*;
use dsh_host::adapter::{Adapter, CompletionRequest, Message, Role};
use dsh_host::attempt::{Provider, run_attempt};
use dsh_host::config;
use dsh_host::engine::{GuestEngine, GuestLimits};
use dsh_host::guests::GuestSource;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A loopback port that counts the connections made to it and closes each at once.
struct Counter {
    base_url: String,
    connections: Arc<AtomicUsize>,
}

async fn counter() -> Counter {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = connections.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    Counter {
        base_url,
        connections,
    }
}

impl Counter {
    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

async fn hostile_provider(base_url: &str) -> Provider {
    let engine = GuestEngine::new(Some(shared_cache_dir())).unwrap();
    let source = GuestSource::file(&test_guest("dsh_test_hostile"));
    let adapter = Adapter::load(&engine, &source, GuestLimits::default_for(&source))
        .await
        .unwrap();
    let mut cfg = config::preset("openai-compatible").unwrap();
    cfg.name = "hostile-test".into();
    cfg.base_url = base_url.to_string();
    Provider::new(cfg, Arc::new(adapter), Some(TEST_KEY.into())).unwrap()
}

fn request(model: &str) -> CompletionRequest {
    CompletionRequest::new(model, vec![Message::new(Role::User, "hi")])
}

/// Each bad plan of the hostile guest (its model picks one) with what the failure must name.
const BAD_PLANS: &[(&str, &str)] = &[
    (
        "plan-header-name",
        r#"plan.headers[2] name "bad name" is not a valid HTTP header name"#,
    ),
    (
        "plan-header-value",
        r#"plan.headers[2] value of "x-note" contains a line break at character 2"#,
    ),
    (
        "plan-method",
        r#"plan.method "SUBMIT" is not a method dsh-host sends"#,
    ),
    (
        "plan-url",
        r#"plan.url "/chat/completions" is not an absolute URL"#,
    ),
    (
        "plan-huge-body",
        "plan.body is 33554433 bytes, more than the 32 MiB",
    ),
    (
        "plan-host",
        r#"plan.headers[2] sets "host", which only the host's HTTP client may set"#,
    ),
    (
        "plan-transfer-encoding",
        r#"plan.headers[2] sets "transfer-encoding""#,
    ),
];

/// `{credential}` outside the provider's credential header(s).
const MISPLACED_KEYS: &[(&str, &str)] = &[
    (
        "plan-credential-in-url",
        "plan.url holds {credential}; the key goes only in the provider's credential header(s) (authorization)",
    ),
    ("plan-credential-in-body", "plan.body holds {credential}"),
    (
        "plan-credential-exfil",
        r#"plan.headers[2] "x-exfil" holds {credential}, but this provider's key goes only in authorization"#,
    ),
    (
        "plan-credential-cookie",
        r#"plan.headers[2] "cookie" holds {credential}"#,
    ),
];

#[tokio::test]
async fn a_plans_mistakes_and_misplaced_keys_are_the_adapters_fault_and_nothing_is_sent() {
    let port = counter().await;
    let p = hostile_provider(&port.base_url).await;
    for (mode, expected) in BAD_PLANS.iter().chain(MISPLACED_KEYS) {
        let f = run_attempt(&p, &request(mode), &mut |_| {})
            .await
            .unwrap_err();
        assert_eq!(f.code, "ADAPTER_FAULT", "{mode}: {f}");
        assert!(
            f.message
                .starts_with("guest 'hostile': planned an invalid request: "),
            "{mode}: {}",
            f.message
        );
        assert!(f.message.contains(expected), "{mode}: {}", f.message);
        assert!(!f.message.contains(TEST_KEY), "{mode}: {}", f.message);
    }
    assert_eq!(
        port.connections(),
        0,
        "no plan that failed its checks may open a connection"
    );

    // The same provider does connect for a valid plan: the counter sees it.
    let f = run_attempt(&p, &request("echo"), &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(f.code, "NETWORK", "{f}");
    assert_eq!(port.connections(), 1);
}

#[tokio::test]
async fn an_invalid_plan_fails_once_and_is_not_retried() {
    let port = counter().await;
    let scratch = Scratch::new();
    let hostile = test_guest("dsh_test_hostile");
    let args = [
        "run",
        "--provider",
        "openai-compatible",
        "--base-url",
        &port.base_url,
        "--adapter",
        hostile.to_str().unwrap(),
        "--model",
        "plan-header-value",
        "hi",
    ];
    let out = scratch.run_bin(&args, Some(TEST_KEY)).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ADAPTER_FAULT")
            && stderr(&out).contains(r#"plan.headers[2] value of "x-note""#),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    assert_eq!(of_kind(&events, "llm/failure").len(), 1);
    assert_eq!(failure_code(&events).as_deref(), Some("ADAPTER_FAULT"));
    assert!(
        of_kind(&events, "llm/retry").is_empty(),
        "the retry policy never retries a guest fault"
    );
    assert_eq!(port.connections(), 0);
}

/// `dsh-host run ARGS` with OPENAI_API_KEY set, and nothing else saying where it may go.
async fn run_with_openai_key(scratch: &Scratch, args: &[&str]) -> std::process::Output {
    scratch
        .command(args, None)
        .env("OPENAI_API_KEY", TEST_KEY)
        .output()
        .await
        .expect("dsh-host runs")
}

fn authorization(mock: &dsh_host::mock::MockServer) -> Vec<Option<String>> {
    mock.requests()
        .iter()
        .map(|r| {
            r.headers
                .iter()
                .find(|(n, _)| n == "authorization")
                .map(|(_, v)| v.clone())
        })
        .collect()
}

#[tokio::test]
async fn a_presets_key_does_not_follow_its_base_url_elsewhere() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["answer"]}}]}"#).await;
    let scratch = Scratch::new();
    scratch.config("listeners = []");
    let url = mock.base_url();
    let out =
        run_with_openai_key(&scratch, &["run", "--base-url", &url, "--model", "m", "hi"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("AUTH")
            && err.contains(
                "OPENAI_API_KEY is the key of api.openai.com and is not sent to 127.0.0.1"
            ),
        "{err}"
    );
    assert!(
        err.contains("--api-key-env"),
        "the message names the fix: {err}"
    );
    assert!(
        mock.requests().is_empty(),
        "nothing is sent without the key the preset requires"
    );
}

#[tokio::test]
async fn openai_compatible_never_sends_openai_api_key_unless_told_to() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["one"]}},{"completion":{"text":["two"]}},{"completion":{"text":["three"]}}]}"#).await;
    let url = mock.base_url();

    let scratch = Scratch::new();
    let out = run_with_openai_key(
        &scratch,
        &[
            "run",
            "--provider",
            "openai-compatible",
            "--base-url",
            &url,
            "--model",
            "m",
            "hi",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        authorization(&mock),
        [None::<String>],
        "OPENAI_API_KEY is set, yet nothing reaches an arbitrary --base-url"
    );

    // Told explicitly, by the flag or by the provider's own section, the key goes.
    let scratch = Scratch::new();
    let out = run_with_openai_key(
        &scratch,
        &[
            "run",
            "--provider",
            "openai-compatible",
            "--base-url",
            &url,
            "--model",
            "m",
            "--api-key-env",
            "OPENAI_API_KEY",
            "hi",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let scratch = Scratch::new();
    scratch.config(&format!("[providers.local]\npreset = \"openai-compatible\"\nbase_url = \"{url}\"\nmodel = \"m\"\napi_key_env = \"LOCAL_LLM_KEY\"\n"));
    let out = scratch
        .command(&["run", "--provider", "local", "hi"], None)
        .env("LOCAL_LLM_KEY", "local-key-42")
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let bearer = format!("Bearer {TEST_KEY}");
    assert_eq!(
        authorization(&mock),
        [None, Some(bearer.as_str()), Some("Bearer local-key-42")].map(|v| v.map(str::to_string))
    );
}

#[tokio::test]
async fn a_key_no_header_can_carry_stops_the_start_up_naming_the_variable() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["never"]}}]}"#).await;
    let url = mock.base_url();
    use std::os::unix::ffi::OsStringExt;
    let cases: [(std::ffi::OsString, &str); 4] = [
        (
            "sk-secret-1234\r\n".into(),
            "contains a line break at character 15 of 16",
        ),
        (
            "sk-secret\u{1b}1234".into(),
            "contains a control character at character 10",
        ),
        (" sk-secret-1234".into(), "starts or ends with whitespace"),
        (
            std::ffi::OsString::from_vec(b"sk-secret-\xff".to_vec()),
            "holds bytes that are not text",
        ),
    ];
    for (key, what) in cases {
        let scratch = Scratch::new();
        let out = scratch
            .command(
                &[
                    "run",
                    "--provider",
                    "openai-compatible",
                    "--base-url",
                    &url,
                    "--model",
                    "m",
                    "--api-key-env",
                    "MY_KEY",
                    "hi",
                ],
                None,
            )
            .env("MY_KEY", &key)
            .output()
            .await
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{key:?}: {err}");
        assert!(
            err.contains("the environment variable MY_KEY") && err.contains(what),
            "{key:?}: {err}"
        );
        assert!(
            !err.contains("sk-secret"),
            "the key is never printed: {err}"
        );
    }
    assert!(mock.requests().is_empty());
}
