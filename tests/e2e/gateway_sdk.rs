//! Real clients (issue #11 item 6): the official `openai` Python SDK, pinned in
//! tests/sdk/requirements.txt, drives `dsh-host serve` whose upstream is the embedded mock.
//!
//! Each test scripts the mock for one scenario, starts the gateway binary on it (with a gateway key,
//! as a deployment would), runs exactly one test of tests/sdk/test_openai_sdk.py with pytest, and
//! fails with pytest's output unless that test passed. Then it checks what the SDK cannot see: what
//! the upstream received (so a retry by the SDK would show), and the session log.
//!
//! A missing or different SDK fails every test here with the command that installs the pinned one:
//! these tests are never skipped.

use crate::support::*;
use dsh_host::mock::MockServer;
use serde_json::{Value, json};
use std::time::Duration;

const GATEWAY_KEY: &str = "dsh-gw-sdk-0123456789abcdef";

/// The pinned versions, read from tests/sdk/requirements.txt (`name==version` lines).
fn pins() -> Vec<(String, String)> {
    let path = workspace_root().join("tests/sdk/requirements.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, version) = l
                .split_once("==")
                .unwrap_or_else(|| panic!("{}: {l:?} is not pinned with ==", path.display()));
            (name.trim().to_string(), version.trim().to_string())
        })
        .collect()
}

/// Checks once that python3 has exactly the pinned SDK and pytest; otherwise every test fails saying
/// how to install them.
fn check_sdk_installed() {
    static CHECKED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let result = CHECKED.get_or_init(|| {
        let pins = pins();
        let install = "install them with `python3 -m pip install -r tests/sdk/requirements.txt` (scripts/test does)";
        let names: Vec<&str> = pins.iter().map(|(n, _)| n.as_str()).collect();
        let probe = format!(
            "import importlib.metadata as m\nfor n in {names:?}:\n    try: print(n, m.version(n))\n    except m.PackageNotFoundError: print(n, 'missing')"
        );
        let out = std::process::Command::new("python3")
            .args(["-c", &probe])
            .output()
            .map_err(|e| format!("python3 cannot be run ({e}): the gateway's SDK tests need Python 3 with the pinned openai SDK; {install}"))?;
        if !out.status.success() {
            return Err(format!("probing the Python packages failed: {}; {install}", String::from_utf8_lossy(&out.stderr)));
        }
        let found = String::from_utf8_lossy(&out.stdout).into_owned();
        let wrong: Vec<String> = pins
            .iter()
            .filter(|(n, v)| !found.lines().any(|l| l == format!("{n} {v}")))
            .map(|(n, v)| {
                let have = found.lines().find_map(|l| l.strip_prefix(&format!("{n} "))).unwrap_or("missing");
                format!("{n}=={v} (found: {have})")
            })
            .collect();
        if wrong.is_empty() { Ok(()) } else { Err(format!("the gateway's SDK tests need {}; {install}", wrong.join(", "))) }
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// One scenario: its scratch directory (config, sessions) and the gateway serving it.
struct Scenario {
    scratch: Scratch,
    gateway: GatewayProcess,
}

/// Writes a config of `providers` (TOML) with gateway keys and `gateway_extra` under `[gateway]`,
/// and starts the gateway.
async fn scenario(providers: &str, gateway_extra: &str) -> Scenario {
    check_sdk_installed();
    let scratch = Scratch::new();
    scratch.config(&format!(
        "{providers}\n[gateway]\nkeys_env = \"DSH_TEST_GATEWAY_KEYS\"\n{gateway_extra}\n"
    ));
    let gateway = scratch
        .start_gateway(&[], &[("DSH_TEST_GATEWAY_KEYS", GATEWAY_KEY)])
        .await;
    Scenario { scratch, gateway }
}

/// One OpenAI-compatible upstream `up` on `mock`, the default provider.
async fn single(mock: &MockServer, max_retries: u32, initial_delay_ms: u64) -> Scenario {
    scenario(
        &upstream_toml(
            "up",
            "openai-compatible",
            &mock.base_url(),
            max_retries,
            initial_delay_ms,
        ),
        "default_provider = \"up\"",
    )
    .await
}

impl Scenario {
    /// Runs `test_NAME` of tests/sdk/test_openai_sdk.py against the gateway; panics with pytest's
    /// output and the gateway's stderr unless exactly that test ran and passed. Returns what the
    /// test reported.
    async fn pytest(&self, name: &str) -> Value {
        let root = workspace_root();
        let report = self.scratch.dir.path().join("sdk-report.json");
        let node = format!("tests/sdk/test_openai_sdk.py::test_{name}");
        let run = tokio::process::Command::new("python3")
            // No cache directory or bytecode in the source tree; no plugins from the environment.
            .args([
                "-m",
                "pytest",
                &node,
                "-q",
                "-p",
                "no:cacheprovider",
                "-W",
                "error::pytest.PytestUnknownMarkWarning",
            ])
            .current_dir(&root)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
            .env("DSH_GATEWAY_BASE_URL", self.gateway.base_url())
            .env("DSH_GATEWAY_KEY", GATEWAY_KEY)
            .env("DSH_SDK_REPORT", &report)
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(Duration::from_secs(120), run)
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "pytest {node} ran for more than 120 s; gateway stderr:\n{}",
                    self.gateway.stderr()
                )
            })
            .expect("python3 -m pytest runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && text.contains("1 passed") && !text.contains("skipped"),
            "pytest {node} did not pass ({}):\n{text}\n--- gateway stderr:\n{}",
            out.status,
            self.gateway.stderr()
        );
        match std::fs::read_to_string(&report) {
            Ok(json) => serde_json::from_str(&json).unwrap(),
            Err(_) => Value::Null,
        }
    }

    fn events(&self, id: &Value) -> Vec<dsh_host::log::Event> {
        self.scratch
            .session_events(id.as_str().expect("a session id"))
    }
}

// ---- mock steps ---------------------------------------------------------------------------------

fn completion(text: &[&str]) -> Value {
    json!({"completion": {"text": text, "usage": {"prompt_tokens": 7, "completion_tokens": 3}}})
}

/// An OpenAI stream chunk carrying `delta`.
fn chunk(delta: Value) -> Value {
    json!({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1, "model": "mock-model",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

fn sent_bodies(mock: &MockServer) -> Vec<Value> {
    mock.requests()
        .iter()
        .map(|r| r.body_json().expect("the gateway sends JSON upstream"))
        .collect()
}

// ---- scenarios ----------------------------------------------------------------------------------

#[tokio::test]
async fn sdk_streaming_text() {
    let mock = mock(&script(&[json!({"completion": {"text": ["Hel", "lo", ", world"], "delay_ms": 5,
                                                     "usage": {"prompt_tokens": 7, "completion_tokens": 3}}})]))
    .await;
    let s = single(&mock, 0, 10).await;
    let report = s.pytest("streaming_text").await;
    let sent = sent_bodies(&mock);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0]["model"], "gpt-test",
        "no route: the default provider gets the client's model"
    );
    assert_eq!(
        sent[0]["messages"],
        json!([{"role": "user", "content": "Say hello."}])
    );
    assert_eq!(
        mock.requests()[0].header("authorization"),
        Some(format!("Bearer {TEST_KEY}").as_str())
    );
    let events = s.events(&report["session"]);
    assert_eq!(of_kind(&events, "turn/end")[0].data["outcome"], "completed");
    assert_eq!(
        of_kind(&events, "turn/end")[0].data["assistant"],
        "Hello, world"
    );
    // The gateway key never reaches the log; the client is named by its key's digest.
    let log = timeline(&events);
    assert!(
        !log.contains(GATEWAY_KEY) && !log.contains(TEST_KEY),
        "{log}"
    );
    assert!(
        of_kind(&events, "gateway/request")[0].data["client"]
            .as_str()
            .unwrap()
            .starts_with("key-")
    );
}

#[tokio::test]
async fn sdk_non_streaming() {
    let mock = mock(&script(&[completion(&["Hello", ", world"])])).await;
    let s = single(&mock, 0, 10).await;
    let report = s.pytest("non_streaming").await;
    let sent = sent_bodies(&mock);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0]["max_tokens"], 64,
        "max_completion_tokens reaches the upstream"
    );
    assert_eq!(sent[0]["temperature"], 0.25);
    assert_eq!(sent[0]["top_p"], 0.5);
    assert_eq!(sent[0]["stop"], json!(["\n\n"]));
    assert_eq!(sent[0]["reasoning_effort"], "low");
    assert_eq!(sent[0]["response_format"], json!({"type": "json_object"}));
    assert_eq!(
        sent[0]["messages"],
        json!([{"role": "system", "content": "Be terse."},
               {"role": "user", "content": [{"type": "text", "text": "Say"}, {"type": "text", "text": "hello."}]}]),
        "text parts stay parts"
    );
    let events = s.events(&report["session"]);
    let start = &of_kind(&events, "turn/start")[0].data;
    assert_eq!(start["exchange"]["messages"], 2);
    assert!(
        start.get("messages").is_none(),
        "by default the log keeps a digest, not the conversation"
    );
}

#[tokio::test]
async fn sdk_tool_call_round_trip() {
    let call = |id: &str, city: &str| {
        json!({"completion": {"finish": "tool_calls",
               "tool_calls": [{"id": id, "name": "get_weather", "arguments": ["{\"city\"", format!(":\"{city}\"}}")]}]}})
    };
    let mock = mock(&script(&[
        call("call_w1", "Paris"),
        completion(&["It is sunny ", "in Paris."]),
        call("call_w2", "Oslo"),
        completion(&["It is sunny ", "in Oslo."]),
    ]))
    .await;
    let s = single(&mock, 0, 10).await;
    s.pytest("tool_call_round_trip").await;
    let sent = sent_bodies(&mock);
    assert_eq!(sent.len(), 4);
    for body in &sent {
        assert_eq!(
            body["tools"][0]["function"]["name"], "get_weather",
            "the client's tools reach the upstream"
        );
    }
    for (body, id, city) in [
        (&sent[1], "call_w1", "Paris"),
        (&sent[3], "call_w2", "Oslo"),
    ] {
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "{body}");
        assert_eq!(messages[1]["role"], "assistant");
        assert_eq!(messages[1]["tool_calls"][0]["id"], id);
        assert_eq!(
            messages[1]["tool_calls"][0]["function"]["name"],
            "get_weather"
        );
        assert_eq!(
            messages[1]["tool_calls"][0]["function"]["arguments"],
            format!("{{\"city\":\"{city}\"}}")
        );
        assert_eq!(
            messages[2],
            json!({"role": "tool", "tool_call_id": id, "content": format!("sunny, 21 C in {city}")})
        );
    }
}

#[tokio::test]
async fn sdk_rate_limit_is_retried_inside_the_gateway() {
    let mock = mock(&script(&[
        rate_limited(None),
        completion(&["Hello after a 429"]),
        rate_limited(None),
        completion(&["Streamed ", "after a 429"]),
    ]))
    .await;
    let s = single(&mock, 2, 50).await;
    let report = s.pytest("rate_limit_retried_invisibly").await;
    assert_eq!(mock.requests().len(), 4);
    for id in report["sessions"].as_array().unwrap() {
        let events = s.events(id);
        let retries: Vec<(&Value, &Value)> = of_kind(&events, "llm/retry")
            .iter()
            .map(|e| (&e.data["retry"], &e.data["code"]))
            .collect();
        assert_eq!(
            retries,
            [(&json!(1), &json!("RATE_LIMITED"))],
            "{}",
            timeline(&events)
        );
        assert_eq!(of_kind(&events, "turn/end")[0].data["outcome"], "completed");
    }
}

#[tokio::test]
async fn sdk_does_not_retry_a_final_rate_limit() {
    // The gateway's policy: one retry, so two upstream attempts. A third request would mean the SDK
    // ran the waterfall again; it would get step 2's answer and the test's pytest.raises would fail.
    let mock = mock(&script(&[
        rate_limited(Some("1")),
        rate_limited(Some("1")),
        completion(&["too late"]),
    ]))
    .await;
    let s = single(&mock, 1, 10).await;
    let report = s.pytest("final_rate_limit_not_retried").await;
    assert_eq!(
        mock.requests().len(),
        2,
        "the gateway's two attempts, and nothing from the SDK"
    );
    let events = s.events(&report["session"]);
    assert_eq!(final_code(&events).as_deref(), Some("RATE_LIMITED"));
    assert_eq!(of_kind(&events, "llm/retry").len(), 1);
    assert_eq!(s.scratch.session_ids().len(), 1, "one request, one session");
}

#[tokio::test]
async fn sdk_sees_a_context_overflow_as_bad_request() {
    let overflow = openai_error(
        400,
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens. Please reduce the length of the messages.",
        "invalid_request_error",
        json!("context_length_exceeded"),
        json!({}),
    );
    let mock = mock(&script(&[overflow, completion(&["unreachable"])])).await;
    let s = single(&mock, 2, 10).await;
    let report = s.pytest("context_overflow").await;
    assert_eq!(
        mock.requests().len(),
        1,
        "one user message cannot be compacted; nothing to retry"
    );
    let events = s.events(&report["session"]);
    assert_eq!(
        final_code(&events).as_deref(),
        Some("CONTEXT_WINDOW_EXCEEDED")
    );
}

#[tokio::test]
async fn sdk_raises_a_failure_after_content_instead_of_truncating() {
    let reset = json!({"events": [
        {"data": chunk(json!({"role": "assistant", "content": ""}))},
        {"data": chunk(json!({"content": "Once upon"}))},
        {"data": chunk(json!({"content": " a time"})), "delay_ms": 20},
    ], "reset_after_bytes": 1_000_000});
    let in_band = json!({"events": [
        {"data": chunk(json!({"role": "assistant", "content": "Going"}))},
        {"data": {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}, "delay_ms": 20},
    ], "done": true});
    // Two retries allowed, and answers waiting: only the commit can stop the gateway from using them.
    let mock = mock(&script(&[
        reset,
        in_band,
        completion(&["not used"]),
        completion(&["not used"]),
    ]))
    .await;
    let s = single(&mock, 2, 10).await;
    let report = s.pytest("midstream_failure_raised").await;
    assert_eq!(
        mock.requests().len(),
        2,
        "no retry once content reached the client"
    );
    let sessions = report["sessions"].as_array().unwrap();
    for (id, code) in sessions.iter().zip(["NETWORK", "SERVER_ERROR"]) {
        let events = s.events(id);
        assert_eq!(
            final_code(&events).as_deref(),
            Some(code),
            "{}",
            timeline(&events)
        );
        let reason = of_kind(&events, "llm/error")[0].data["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(reason.contains("already reached the client"), "{reason}");
    }
}

#[tokio::test]
async fn sdk_reaches_an_anthropic_upstream() {
    let mock = mock(&script(&[
        json!({"completion": {"thinking": ["The user greets."], "text": ["Hello ", "from Claude"], "model": "claude-sonnet-4-5",
                              "usage": {"prompt_tokens": 11, "completion_tokens": 4}}}),
        json!({"completion": {"text": ["Hello again"], "model": "claude-sonnet-4-5"}}),
    ]))
    .await;
    // The anthropic preset pointed at the mock: its key named for it with api_key_env, since a
    // preset's own key only goes to its own host.
    let s = scenario(
        &upstream_toml("anthropic", "anthropic", &mock.base_url(), 0, 10),
        "",
    )
    .await;
    s.pytest("anthropic_upstream").await;
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.header("x-api-key"), Some(TEST_KEY));
        assert!(r.header("anthropic-version").is_some());
        let body = r.body_json().unwrap();
        assert_eq!(
            body["model"], "claude-sonnet-4-5",
            "the provider/ prefix is the gateway's"
        );
        assert_eq!(body["system"], "Be brief.", "{body}");
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": [{"type": "text", "text": "Hi Claude."}]}]),
            "{body}"
        );
    }
    assert_eq!(requests[1].body_json().unwrap()["max_tokens"], 100);
}

#[tokio::test]
async fn sdk_sends_anthropic_thinking_back_with_the_message_it_got() {
    use crate::contract::anthropic_stream;
    let thinking =
        json!({"type": "thinking", "thinking": "The clock knows.", "signature": "sig-one"});
    let mock = mock(&json!({"steps": [
        anthropic_stream(&[thinking.clone(), json!({"type": "tool_use", "id": "toolu_1", "name": "clock"})], "tool_use"),
        anthropic_stream(&[json!({"type": "text", "text": "It is noon."})], "end_turn"),
    ]}).to_string())
    .await;
    let s = scenario(
        &upstream_toml("anthropic", "anthropic", &mock.base_url(), 0, 10),
        "",
    )
    .await;
    s.pytest("thinking_round_trip").await;
    let second = mock.requests()[1].body_json().unwrap();
    assert_eq!(
        second["messages"][1]["content"][0], thinking,
        "the SDK sent the signed thinking back: {second}"
    );
    assert_eq!(
        second["messages"][1]["content"][1]["id"], "toolu_1",
        "{second}"
    );
}

#[tokio::test]
async fn sdk_gets_the_route_fallback_answer() {
    let overloaded = openai_error(
        503,
        "The engine is currently overloaded",
        "server_error",
        Value::Null,
        json!({}),
    );
    let primary = mock(&script(&[
        overloaded.clone(),
        overloaded,
        completion(&["primary never answers"]),
    ]))
    .await;
    let backup = mock(&script(&[completion(&["Hello ", "from the fallback"])])).await;
    let providers = format!(
        "{}{}",
        upstream_toml("primary", "openai-compatible", &primary.base_url(), 1, 10),
        upstream_toml("backup", "openai-compatible", &backup.base_url(), 1, 10)
    );
    let routes = "[[gateway.routes]]\nmodel = \"smart\"\nprovider = \"primary\"\nupstream_model = \"big\"\nfallbacks = [\"backup/small\"]\n";
    let s = scenario(&providers, routes).await;
    let report = s.pytest("route_fallback").await;
    let primary_models: Vec<Value> = sent_bodies(&primary)
        .iter()
        .map(|b| b["model"].clone())
        .collect();
    assert_eq!(
        primary_models,
        [json!("big"), json!("big")],
        "the primary's policy: one retry"
    );
    let backup_models: Vec<Value> = sent_bodies(&backup)
        .iter()
        .map(|b| b["model"].clone())
        .collect();
    assert_eq!(backup_models, [json!("small")]);
    let events = s.events(&report["session"]);
    let switch = of_kind(&events, "session/provider");
    assert_eq!(switch.len(), 1, "{}", timeline(&events));
    assert_eq!(switch[0].data["provider"], "backup");
    assert_eq!(
        switch[0].data["reason"],
        "fallback after OVERLOADED from primary"
    );
    assert_eq!(
        of_kind(&events, "turn/end").last().unwrap().data["outcome"],
        "completed"
    );
}

#[tokio::test]
async fn sdk_closing_a_stream_aborts_the_upstream_request() {
    // A long, slow upstream answer (a minute): the client reads two pieces and closes the stream.
    let ticks: Vec<Value> = (0..600)
        .map(|i| json!({"data": chunk(json!({"content": format!("tick {i} ")})), "delay_ms": 100}))
        .collect();
    let mock = mock(&script(&[
        json!({"events": ticks, "done": true}),
        completion(&["not used"]),
    ]))
    .await;
    let s = single(&mock, 2, 10).await;
    let report = s.pytest("client_disconnect").await;
    let id = report["session"].as_str().unwrap().to_string();
    // Bounded well under the upstream's minute: only an abort ends the session this early.
    let events = wait_for_log(&s.scratch, &id, Duration::from_secs(20), "ABORTED", |e| {
        !of_kind(e, "turn/end").is_empty()
    })
    .await;
    assert_eq!(
        final_code(&events).as_deref(),
        Some("ABORTED"),
        "{}",
        timeline(&events)
    );
    assert_eq!(of_kind(&events, "turn/end")[0].data["code"], "ABORTED");
    assert_eq!(mock.requests().len(), 1, "an abort is never retried");
}
