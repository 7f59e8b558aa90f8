//! `dsh-host run` against the mock: what the user sees, the exit status, the log, the request sent.

use crate::support::*;

fn run_args<'a>(base_url: &'a str, prompt: &'a str) -> Vec<&'a str> {
    vec!["run", "--base-url", base_url, "--model", "gpt-test", prompt]
}

#[tokio::test]
async fn a_streamed_answer_reaches_stdout_and_the_log() {
    let mock = mock(
        r#"{"steps":[{"completion":{"text":["Hel","lo, ","world"],"delay_ms":5,
        "usage":{"prompt_tokens":3,"completion_tokens":4}}}]}"#,
    )
    .await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(&run_args(&mock.base_url(), "Say hello"), Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "Hello, world");

    let events = scratch.only_session_events();
    assert_eq!(
        kinds(&events),
        [
            "session/start",
            "turn/start",
            "llm/request",
            "llm/response",
            "turn/end"
        ]
    );
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    let response = &events[3];
    assert_eq!(response.data["finish_reason"], "stop");
    assert_eq!(response.data["usage"]["output_tokens"], 4);
    assert_eq!(events[4].data["assistant"], "Hello, world");

    // The provider got the key the host inserted, and the adapter's request shape.
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/chat/completions");
    let auth = req
        .headers
        .iter()
        .find(|(n, _)| n == "authorization")
        .map(|(_, v)| v.as_str());
    assert_eq!(auth, Some(format!("Bearer {TEST_KEY}").as_str()));
    let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["stream"], true);
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(body["messages"][0]["content"], "Say hello");

    // The key is nowhere in the log.
    let log_text = std::fs::read_to_string(
        std::fs::read_dir(scratch.sessions())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path(),
    )
    .unwrap();
    assert!(!log_text.contains(TEST_KEY));
}

/// Runs one failing scenario without recovery listeners and returns (stderr, events).
async fn failing(script: &str) -> (String, Vec<dsh_host::log::Event>) {
    let mock = mock(script).await;
    let scratch = Scratch::new();
    scratch.config("listeners = []");
    let out = scratch
        .run_bin(&run_args(&mock.base_url(), "hi"), Some(TEST_KEY))
        .await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed turn exits 1; stderr: {}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    assert_eq!(
        kinds(&events),
        [
            "session/start",
            "turn/start",
            "llm/request",
            "llm/failure",
            "llm/error",
            "turn/end"
        ]
    );
    assert_eq!(events[5].data["outcome"], "failed");
    (stderr(&out), events)
}

#[tokio::test]
async fn a_429_is_rate_limited_with_retry_after_and_request_id() {
    let (err, events) = failing(r#"{"steps":[{"status":429,
        "headers":{"retry-after":"7","x-request-id":"req_abc"},
        "body":"{\"error\":{\"message\":\"Rate limit reached for gpt-4o\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"}]}"#).await;
    assert!(
        err.contains("RATE_LIMITED (HTTP 429): Rate limit reached for gpt-4o"),
        "{err}"
    );
    assert!(err.contains("request id: req_abc"), "{err}");
    let f = &events[3].data["failure"];
    assert_eq!(f["code"], "RATE_LIMITED");
    assert_eq!(f["status"], 429);
    assert_eq!(f["provider_retry_after_ms"], 7000);
    assert_eq!(f["request_id"], "req_abc");
}

#[tokio::test]
async fn each_kind_of_http_failure_is_classified() {
    let cases = [
        (
            500,
            r#"{"error":{"message":"The server had an error","type":"server_error","code":null}}"#,
            "SERVER_ERROR",
        ),
        (
            503,
            r#"{"error":{"message":"That model is currently overloaded with other requests.","type":"server_error"}}"#,
            "OVERLOADED",
        ),
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 4097 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            "AUTH",
        ),
        (
            429,
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
            "QUOTA_EXCEEDED",
        ),
        (
            404,
            r#"{"error":{"message":"The model `gpt-9` does not exist","type":"invalid_request_error","code":"model_not_found"}}"#,
            "INVALID_REQUEST",
        ),
        (502, "<html><body>Bad gateway</body></html>", "SERVER_ERROR"),
    ];
    for (status, body, code) in cases {
        let script = serde_json::json!({"steps": [{"status": status, "body": body}]}).to_string();
        let (err, events) = failing(&script).await;
        assert_eq!(
            failure_code(&events).as_deref(),
            Some(code),
            "HTTP {status}: {err}"
        );
        assert!(err.contains(&format!("code:       {code}")), "{err}");
        assert_eq!(events[3].data["failure"]["status"], status);
    }
}

#[tokio::test]
async fn a_reset_before_the_headers_is_network() {
    let (err, events) = failing(r#"{"steps":[{"reset":"before_headers"}]}"#).await;
    assert_eq!(failure_code(&events).as_deref(), Some("NETWORK"), "{err}");
}

#[tokio::test]
async fn a_reset_mid_stream_is_network_and_the_partial_text_goes_to_stderr() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["partial ","answer ","never ","finished"],"delay_ms":20},
        "reset_after_bytes":500}]}"#).await;
    let scratch = Scratch::new();
    scratch.config("listeners = []");
    let out = scratch
        .run_bin(&run_args(&mock.base_url(), "hi"), Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // Stdout is a pipe: it holds answers only; what the failed attempt streamed is on stderr.
    assert_eq!(stdout(&out), "", "no answer, so nothing on stdout");
    assert!(
        stderr(&out).contains("[partial text of the failed attempt, discarded: partial"),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    assert_eq!(
        failure_code(&events).as_deref(),
        Some("NETWORK"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn a_stream_that_ends_without_a_finish_is_truncated() {
    let (err, events) = failing(r#"{"steps":[{"events":[
        {"data":{"choices":[{"index":0,"delta":{"content":"One, two,"},"finish_reason":null}]}}]}]}"#).await;
    assert_eq!(
        failure_code(&events).as_deref(),
        Some("STREAM_TRUNCATED"),
        "{err}"
    );
    assert!(err.contains("without a finish"), "{err}");
}

#[tokio::test]
async fn an_empty_completion_is_an_error_not_a_silent_success() {
    let (err, events) = failing(r#"{"steps":[{"completion":{"text":[],"finish":"stop"}}]}"#).await;
    assert_eq!(
        failure_code(&events).as_deref(),
        Some("EMPTY_RESPONSE"),
        "{err}"
    );
}

#[tokio::test]
async fn an_error_inside_a_200_stream_is_classified() {
    let (err, events) = failing(r#"{"steps":[{"events":[
        {"data":{"choices":[{"index":0,"delta":{"content":"Go"},"finish_reason":null}]}},
        {"data":{"error":{"message":"That model is currently overloaded with other requests.","type":"server_error","code":null}}}],
        "done":true}]}"#).await;
    assert_eq!(
        failure_code(&events).as_deref(),
        Some("OVERLOADED"),
        "{err}"
    );
}

#[tokio::test]
async fn without_a_key_the_openai_preset_fails_as_auth_before_sending() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["never"]}}]}"#).await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(&run_args(&mock.base_url(), "hi"), None)
        .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("OPENAI_API_KEY"), "{}", stderr(&out));
    assert_eq!(
        failure_code(&scratch.only_session_events()).as_deref(),
        Some("AUTH")
    );
    assert!(
        mock.requests().is_empty(),
        "nothing may be sent without the key"
    );
}

#[tokio::test]
async fn openai_compatible_servers_need_no_key() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["local ","model"]}}]}"#).await;
    let scratch = Scratch::new();
    let url = mock.base_url();
    let mut args = run_args(&url, "hi");
    args.splice(1..1, ["--provider", "openai-compatible"]);
    let out = scratch.run_bin(&args, None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "local model");
    assert!(
        mock.requests()[0]
            .headers
            .iter()
            .all(|(n, _)| n != "authorization")
    );
}

#[tokio::test]
async fn nothing_listening_is_network() {
    // Bind then drop: a loopback port with nobody behind it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let scratch = Scratch::new();
    scratch.config("listeners = []");
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = scratch.run_bin(&run_args(&url, "hi"), Some(TEST_KEY)).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("NETWORK"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("could not connect to 127.0.0.1:{port}")),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn log_prints_a_timeline_and_raw_json() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["hi"]}}]}"#).await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(&run_args(&mock.base_url(), "hello"), Some(TEST_KEY))
        .await;
    assert!(out.status.success());
    let session_id = std::fs::read_dir(scratch.sessions())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let session_id = session_id
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        stderr(&out).contains(&session_id),
        "the run names its session: {}",
        stderr(&out)
    );

    let timeline = scratch.run_bin(&["log", &session_id], None).await;
    assert!(timeline.status.success());
    let text = stdout(&timeline);
    assert!(
        text.contains("turn/start") && text.contains("user says \"hello\""),
        "{text}"
    );

    let raw = scratch.run_bin(&["log", &session_id, "--json"], None).await;
    let lines: Vec<serde_json::Value> = stdout(&raw)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["type"], "session/start");

    let escape = scratch.run_bin(&["log", "../../etc/passwd"], None).await;
    assert_eq!(escape.status.code(), Some(2));
    assert!(
        stderr(&escape).contains("invalid session id"),
        "{}",
        stderr(&escape)
    );
}

#[tokio::test]
async fn the_mock_subcommand_serves_any_client() {
    let scratch = Scratch::new();
    let script = scratch.dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"steps":[{"completion":{"text":["served ","by ","the ","binary"]}}]}"#,
    )
    .unwrap();
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-host"))
        .args(["mock", "--script", script.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let first = lines.next_line().await.unwrap().unwrap();
    let url = first
        .strip_prefix("mock provider listening on ")
        .expect(&first)
        .to_string();
    let out = scratch.run_bin(&run_args(&url, "hi"), Some(TEST_KEY)).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "served by the binary");
    server.kill().await.unwrap();
}

#[tokio::test]
async fn a_bad_mock_script_is_refused_naming_the_file() {
    let scratch = Scratch::new();
    let script = scratch.dir.path().join("bad.json");
    std::fs::write(&script, r#"{"steps":[{"stauts":200}]}"#).unwrap();
    let out = scratch
        .run_bin(&["mock", "--script", script.to_str().unwrap()], None)
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bad.json"), "{}", stderr(&out));
}

#[tokio::test]
async fn the_demo_runs_on_a_fresh_machine_and_recovers_every_retryable_failure() {
    let scratch = Scratch::new();
    let out = scratch.run_bin(&["demo"], None).await;
    assert!(
        out.status.success(),
        "stdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    for code in [
        "RATE_LIMITED",
        "SERVER_ERROR",
        "NETWORK",
        "EMPTY_RESPONSE",
        "CONTEXT_WINDOW_EXCEEDED",
    ] {
        assert!(
            text.contains(&format!("retry 1 of {code}")),
            "demo output lacks the recovery of {code}: {text}"
        );
    }
    assert!(
        text.contains("no retry: no listener retries AUTH"),
        "{text}"
    );
    assert!(text.contains("Hello from the mock provider!"), "{text}");
    assert!(text.contains("compacted from"), "{text}");
    // The malformed tool call: an error result the model corrects in its next step.
    assert!(
        text.contains("[tool calculator({\"expression\": \"6 * 7\",}) → Error: the arguments of `calculator` are not valid JSON"),
        "{text}"
    );
    assert!(
        text.contains("[tool calculator({\"expression\":\"6 * 7\"}) → 42]"),
        "{text}"
    );
    let events = scratch.only_session_events();
    assert_eq!(of_kind(&events, "llm/retry").len(), 5);
    assert_eq!(of_kind(&events, "turn/end").len(), 7);
    assert_eq!(of_kind(&events, "step/end").len(), 2);
}

/// A real provider cut mid-stream, then retried: `run ... > answer.txt` holds exactly the final
/// answer, once; the failed attempt's partial text is on stderr, marked.
#[tokio::test]
async fn stdout_off_a_terminal_holds_exactly_the_final_answer() {
    let mock = mock(
        r#"{"steps":[
        {"completion":{"text":["Hel","lo ","from ","fake ","Ollama"],"delay_ms":30},"reset_after_bytes":500},
        {"completion":{"text":["Hello ","from ","fake ","Ollama"],"delay_ms":5}}]}"#,
    )
    .await;
    let scratch = Scratch::new();
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 10\n");
    let out = scratch
        .run_bin(&run_args(&mock.base_url(), "hi"), Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Hello from fake Ollama\n");
    let err = stderr(&out);
    assert!(
        err.contains("[partial text of the failed attempt, discarded: Hel"),
        "{err}"
    );
    assert!(err.contains("NETWORK: llm-retry retry 1"), "{err}");
}

#[tokio::test]
async fn a_preset_without_a_default_model_needs_the_flag() {
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(
            &[
                "run",
                "--provider",
                "openai-compatible",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "hi",
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("no default model") && err.contains("--model"),
        "{err}"
    );
}

#[tokio::test]
async fn run_help_lists_every_preset() {
    let out = Scratch::new().run_bin(&["run", "--help"], None).await;
    assert!(out.status.success());
    let help = stdout(&out);
    for preset in dsh_host::config::PRESETS {
        assert!(
            help.contains(preset),
            "{preset} missing from run --help:\n{help}"
        );
    }
}
