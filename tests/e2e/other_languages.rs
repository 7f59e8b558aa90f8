//! Guests written in other languages, built from source by this test run and loaded by the binary:
//! the Gemini adapter (JavaScript, componentize-js, guests/gemini) against Gemini-shaped mock answers,
//! and the retry-budget listener (Python, componentize-py, guests/retry-budget) first in the
//! waterfall. Also the guests' own unit tests (`python3 -m unittest`, `node --test`).

use crate::support::*;
use dsh_host::log::Event;
use serde_json::{Value, json};
use std::process::Output;

const GEMINI_KEY: &str = "AIza-test-0123456789";

// ---- the guests' native unit tests ----------------------------------------------------------------

fn run_native(program: &str, args: &[&str], dir: &str, install: &str) -> std::process::Output {
    let dir = workspace_root().join(dir);
    std::process::Command::new(program)
        .args(args)
        .current_dir(&dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program} in {} ({e}): {install}", dir.display()))
}

#[test]
fn the_python_listeners_unit_tests_pass() {
    let out = run_native(
        "python3",
        &["-m", "unittest", "-v"],
        "guests/retry-budget",
        "install Python 3",
    );
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success(),
        "python3 -m unittest failed:\n{report}"
    );
    assert!(report.contains("\nOK"), "{report}");
    assert!(!report.contains("Ran 0 tests"), "{report}");
}

#[test]
fn the_javascript_adapters_unit_tests_pass() {
    let out = run_native(
        "node",
        &["--test", "test/"],
        "guests/gemini",
        "install Node.js 20",
    );
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "node --test failed:\n{report}");
    assert!(report.contains("# fail 0"), "{report}");
    assert!(!report.contains("# pass 0"), "{report}");
}

// ---- plumbing ---------------------------------------------------------------------------------

/// The mock's base URL in Gemini's shape (`http://127.0.0.1:PORT/v1beta`).
fn gemini_base(mock: &dsh_host::mock::MockServer) -> String {
    format!("{}beta", mock.base_url())
}

/// A dsh.toml with the Gemini adapter built from source as provider `gemini`, then `extra`.
fn gemini_config(scratch: &Scratch, base_url: &str, extra: &str) {
    let guests = other_language_guests();
    scratch.config(&format!(
        "[providers.gemini]\n\
         preset = \"openai-compatible\"\n\
         adapter = {:?}\n\
         api_key_env = \"GEMINI_API_KEY\"\n\
         api_key_required = true\n\
         credential_headers = [\"x-goog-api-key\"]\n\
         base_url = \"{base_url}\"\n\
         model = \"gemini-2.5-flash\"\n\
         [providers.gemini.retry_policy]\n\
         initial_delay_ms = 50\n\
         {extra}",
        guests.gemini.display().to_string()
    ));
}

/// The waterfall with the Python listener first.
fn budget_listeners(budget_ms: u64) -> String {
    format!(
        "[[listeners]]\nwasm = {:?}\nconfig = {{ budget_ms = {budget_ms} }}\n\
         [[listeners]]\nname = \"compaction-basic\"\n\
         [[listeners]]\nname = \"llm-retry\"\n",
        other_language_guests().retry_budget.display().to_string()
    )
}

async fn run_gemini(scratch: &Scratch, args: &[&str]) -> Output {
    let mut full = vec!["run", "--provider", "gemini"];
    full.extend_from_slice(args);
    scratch
        .command(&full, None)
        .env("GEMINI_API_KEY", GEMINI_KEY)
        .output()
        .await
        .expect("dsh-host runs")
}

fn text_response(text: &str, finish: Option<&str>) -> Value {
    let mut candidate =
        json!({ "content": { "parts": [{ "text": text }], "role": "model" }, "index": 0 });
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
    }
    json!({ "candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "mock-resp" })
}

fn ok_step(text: &str) -> Value {
    sse(&[text_response(text, Some("STOP"))])
}

/// A non-2xx Google error answer.
fn error_step(status: u16, rpc: &str, message: &str, details: Value) -> Value {
    let mut error = json!({ "code": status, "message": message, "status": rpc });
    if details != Value::Null {
        error["details"] = details;
    }
    json!({
        "status": status,
        "headers": { "content-type": "application/json; charset=UTF-8", "x-request-id": format!("req-{status}") },
        "body": json!({ "error": error }).to_string(),
    })
}

fn llm_error(events: &[Event]) -> &Event {
    of_kind(events, "llm/error")
        .first()
        .copied()
        .unwrap_or_else(|| panic!("no llm/error in {:?}", kinds(events)))
}

// ---- the Gemini adapter (JavaScript) ----------------------------------------------------------

#[tokio::test]
async fn gemini_streams_a_text_answer_from_the_native_api() {
    let mock = mock(&script(&[sse(&[
        json!({ "candidates": [{ "content": { "parts": [{ "text": "Hello" }], "role": "model" }, "index": 0 }],
                "usageMetadata": { "promptTokenCount": 9, "candidatesTokenCount": 1, "totalTokenCount": 10 } }),
        json!({ "candidates": [{ "content": { "parts": [{ "text": ", Gemini ✓" }], "role": "model" }, "finishReason": "STOP", "index": 0 }],
                "usageMetadata": { "promptTokenCount": 9, "candidatesTokenCount": 4, "totalTokenCount": 13 } }),
    ])]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["--system", "Be terse.", "Say hello"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "Hello, Gemini ✓");

    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.method, "POST");
    assert_eq!(
        r.path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(r.header("x-goog-api-key"), Some(GEMINI_KEY));
    assert_eq!(
        r.header("authorization"),
        None,
        "the key goes in x-goog-api-key only"
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        body,
        json!({
            "contents": [{ "role": "user", "parts": [{ "text": "Say hello" }] }],
            "systemInstruction": { "parts": [{ "text": "Be terse." }] },
        })
    );

    let events = scratch.only_session_events();
    let response = of_kind(&events, "llm/response")[0];
    assert_eq!(response.data["finish_reason"], "STOP");
    assert_eq!(response.data["usage"]["input_tokens"], 9);
    assert_eq!(response.data["usage"]["output_tokens"], 4);
    let start = of_kind(&events, "session/start")[0];
    assert_eq!(start.data["provider"], "gemini");
    assert_eq!(
        start.data["adapter"], "gemini",
        "the name the JavaScript guest gives itself"
    );
    assert_eq!(start.data["model"], "gemini-2.5-flash");
}

#[tokio::test]
async fn gemini_function_calls_run_the_tool_and_go_back_as_function_responses() {
    let call = json!({
        "candidates": [{ "content": { "role": "model", "parts": [
            { "text": "Let me compute." },
            { "functionCall": { "name": "calculator", "args": { "expression": "(2 + 3) * 4.5" } } },
        ] }, "finishReason": "STOP", "index": 0 }],
    });
    let mock = mock(&script(&[sse(&[call]), ok_step("It is 22.5.")])).await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["--tools", "What is (2 + 3) * 4.5?"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).trim_end().ends_with("It is 22.5."),
        "{}",
        stdout(&out)
    );

    let events = scratch.only_session_events();
    let response = of_kind(&events, "llm/response")[0];
    assert_eq!(
        response.data["tool_calls"],
        json!([{ "id": "call_0", "name": "calculator", "arguments": "{\"expression\":\"(2 + 3) * 4.5\"}" }])
    );
    let result = of_kind(&events, "tool/result")[0];
    assert_eq!(result.data["id"], "call_0");
    let content = result.data["content"].as_str().unwrap();

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    // The tools, declared with their schemas narrowed to what Gemini's `parameters` accepts.
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let declarations = first["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap();
    let calculator = declarations
        .iter()
        .find(|d| d["name"] == "calculator")
        .unwrap();
    assert_eq!(calculator["parameters"]["type"], "object");
    assert_eq!(calculator["parameters"]["required"], json!(["expression"]));
    assert_eq!(
        calculator["parameters"]["properties"]["expression"]["type"],
        "string"
    );
    assert!(
        calculator["parameters"]
            .get("additionalProperties")
            .is_none(),
        "{calculator}"
    );
    let clock = declarations.iter().find(|d| d["name"] == "clock").unwrap();
    assert!(
        clock.get("parameters").is_none(),
        "no parameters at all: {clock}"
    );

    // The next step sends the call back (with Google's signature placeholder) and its result.
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let expected_response = match serde_json::from_str::<Value>(content) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({ "output": content }),
    };
    assert_eq!(
        second["contents"],
        json!([
            { "role": "user", "parts": [{ "text": "What is (2 + 3) * 4.5?" }] },
            { "role": "model", "parts": [
                { "text": "Let me compute." },
                { "functionCall": { "name": "calculator", "args": { "expression": "(2 + 3) * 4.5" } },
                  "thoughtSignature": "skip_thought_signature_validator" },
            ] },
            { "role": "user", "parts": [
                { "functionResponse": { "name": "calculator", "response": expected_response } },
            ] },
        ])
    );
}

#[tokio::test]
async fn the_mocks_own_gemini_shape_decodes_and_an_empty_answer_is_retried() {
    // The mock's `completion` shorthand renders Gemini's shape for a Gemini path: an independent
    // rendering of the same stream, including Gemini's empty answer (a finish with no content).
    let mock = mock(&script(&[
        json!({ "completion": { "text": [], "model": "gemini-2.5-flash" } }),
        json!({ "completion": { "text": ["Hel", "lo"], "model": "gemini-2.5-flash",
                                "usage": { "prompt_tokens": 7, "completion_tokens": 2 } } }),
    ]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["hi"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "Hello");
    let events = scratch.only_session_events();
    let failure = &of_kind(&events, "llm/failure")[0].data["failure"];
    assert_eq!(failure["code"], "EMPTY_RESPONSE");
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .contains("Gemini finished (finishReason STOP) without any text"),
        "the adapter says what Gemini sent: {failure}"
    );
    assert_eq!(retries(&events).len(), 1);
    let usage = &of_kind(&events, "llm/response")[0].data["usage"];
    assert_eq!(
        (
            usage["input_tokens"].as_u64(),
            usage["output_tokens"].as_u64()
        ),
        (Some(7), Some(2))
    );
}

#[tokio::test]
async fn a_gemini_safety_stop_is_content_filter_and_not_retried() {
    let mock = mock(&script(&[
        sse(&[
            text_response("The first step is", None),
            json!({ "candidates": [{ "finishReason": "SAFETY", "index": 0, "safetyRatings": [
                { "category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true }] }] }),
        ]),
        ok_step("unreachable"),
    ]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["How do I ...?"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("code:       CONTENT_FILTER"),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    assert_eq!(failure_code(&events).as_deref(), Some("CONTENT_FILTER"));
    assert!(retries(&events).is_empty());
    assert_eq!(mock.steps_served(), 1);
}

#[tokio::test]
async fn gemini_resource_exhausted_with_retry_info_is_retried_after_exactly_that_delay() {
    let rate_limited = error_step(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        json!([
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.3s" },
        ]),
    );
    let mock = mock(&script(&[rate_limited, ok_step("made it")])).await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["hi"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "made it");
    let events = scratch.only_session_events();
    let failure = &of_kind(&events, "llm/failure")[0].data["failure"];
    assert_eq!(failure["code"], "RATE_LIMITED");
    assert_eq!(failure["provider_retry_after_ms"], 300);
    assert_eq!(failure["request_id"], "req-429");
    assert_eq!(
        retries(&events),
        [("llm-retry".to_string(), 300, "RATE_LIMITED".to_string())],
        "the delay is RetryInfo's retryDelay"
    );
}

#[tokio::test]
async fn gemini_unavailable_is_overloaded_and_retried() {
    let mock = mock(&script(&[
        error_step(
            503,
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
            Value::Null,
        ),
        ok_step("second try"),
    ]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["hi"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let events = scratch.only_session_events();
    assert_eq!(failure_code(&events).as_deref(), Some("OVERLOADED"));
    let r = retries(&events);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].2, "OVERLOADED");
    assert!((40..=60).contains(&r[0].1), "50 ms ± 20 %: {r:?}");
}

#[tokio::test]
async fn a_gemini_error_inside_the_stream_is_classified_and_retried() {
    let mock = mock(&script(&[
        sse(&[
            text_response("Part", None),
            json!({ "error": { "code": 500, "message": "An internal error has occurred.", "status": "INTERNAL" } }),
        ]),
        ok_step("whole answer"),
    ]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["hi"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("whole answer\n"), "{}", stdout(&out));
    let events = scratch.only_session_events();
    let failure = &of_kind(&events, "llm/failure")[0].data["failure"];
    assert_eq!(failure["code"], "SERVER_ERROR");
    assert_eq!(failure["status"], 500);
}

#[tokio::test]
async fn the_gemini_token_count_overflow_is_context_window_exceeded() {
    let mock = mock(&script(&[
        error_step(
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
            Value::Null,
        ),
        ok_step("unreachable"),
    ]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), "");
    let out = run_gemini(&scratch, &["a very long prompt"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("code:       CONTEXT_WINDOW_EXCEEDED"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("request id: req-400"),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    // compaction-basic has nothing to drop (one user message) and says so; nothing is retried.
    assert_eq!(llm_error(&events).data["listener"], "compaction-basic");
    assert!(retries(&events).is_empty());
    assert_eq!(mock.steps_served(), 1);
}

// ---- the retry-budget listener (Python), first in the waterfall -------------------------------

#[tokio::test]
async fn the_budget_listener_gives_up_on_quota_exceeded_at_once_saying_what_to_do() {
    let daily = error_step(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        json!([
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.05s" },
        ]),
    );
    let mock = mock(&script(&[daily, ok_step("unreachable")])).await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), &budget_listeners(60_000));
    let out = run_gemini(&scratch, &["hi"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("code:       QUOTA_EXCEEDED"),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    let error = llm_error(&events);
    assert_eq!(error.data["listener"], "retry-budget");
    let reason = error.data["reason"].as_str().unwrap();
    assert!(reason.contains("check the billing and plan"), "{reason}");
    assert!(reason.contains("provider gemini"), "{reason}");
    assert!(retries(&events).is_empty());
    assert_eq!(mock.steps_served(), 1);
}

#[tokio::test]
async fn the_budget_listener_gives_up_on_auth_naming_the_key_variable() {
    let bad_key = error_step(
        400,
        "INVALID_ARGUMENT",
        "API key not valid. Please pass a valid API key.",
        json!([{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                 "domain": "googleapis.com", "metadata": { "service": "generativelanguage.googleapis.com" } }]),
    );
    let mock = mock(&script(&[bad_key])).await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), &budget_listeners(60_000));
    let out = run_gemini(&scratch, &["hi"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let events = scratch.only_session_events();
    assert_eq!(failure_code(&events).as_deref(), Some("AUTH"));
    let error = llm_error(&events);
    assert_eq!(error.data["listener"], "retry-budget");
    assert!(
        error.data["reason"]
            .as_str()
            .unwrap()
            .contains("api_key_env under [providers.gemini]"),
        "{:?}",
        error.data
    );
}

#[tokio::test]
async fn a_failure_within_the_budget_is_left_to_llm_retry() {
    let mock = mock(&script(&[
        error_step(
            500,
            "INTERNAL",
            "An internal error has occurred.",
            Value::Null,
        ),
        error_step(503, "UNAVAILABLE", "The model is overloaded.", Value::Null),
        ok_step("third time lucky"),
    ]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), &budget_listeners(10_000));
    let out = run_gemini(&scratch, &["hi"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().last().unwrap(), "third time lucky");
    let events = scratch.only_session_events();
    let r = retries(&events);
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(r.iter().all(|(key, _, _)| key == "llm-retry"), "{r:?}");
    assert_eq!(
        (r[0].2.as_str(), r[1].2.as_str()),
        ("SERVER_ERROR", "OVERLOADED")
    );
    assert!(of_kind(&events, "recovery/listener-fault").is_empty());
}

#[tokio::test]
async fn a_retry_that_would_exceed_the_budget_is_given_up_before_llm_retry_retries() {
    // initial_delay_ms 50: the first retry waits 40..60 ms (within 100 ms); the second would add up
    // to 100 * 1.2 = 120 ms, over the budget whatever the first waited.
    let failing = error_step(
        500,
        "INTERNAL",
        "An internal error has occurred.",
        Value::Null,
    );
    let mock = mock(&script(&[
        failing.clone(),
        failing.clone(),
        failing,
        ok_step("unreachable"),
    ]))
    .await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), &budget_listeners(100));
    let out = run_gemini(&scratch, &["hi"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let events = scratch.only_session_events();
    let r = retries(&events);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].0, "llm-retry");
    let error = llm_error(&events);
    assert_eq!(error.data["listener"], "retry-budget");
    let reason = error.data["reason"].as_str().unwrap();
    assert!(reason.contains("would wait 120 ms"), "{reason}");
    assert!(
        reason.contains(&format!(
            "{} ms already scheduled by the 1 earlier retry",
            r[0].1
        )),
        "{reason}"
    );
    assert!(reason.contains("over the budget of 100 ms"), "{reason}");
    assert_eq!(mock.steps_served(), 2);
}

#[tokio::test]
async fn a_provider_retry_delay_beyond_the_budget_is_given_up_without_waiting() {
    let slow = error_step(
        429,
        "RESOURCE_EXHAUSTED",
        "Resource has been exhausted (e.g. check quota).",
        json!([{ "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s" }]),
    );
    let mock = mock(&script(&[slow, ok_step("unreachable")])).await;
    let scratch = Scratch::new();
    gemini_config(&scratch, &gemini_base(&mock), &budget_listeners(5_000));
    let started = std::time::Instant::now();
    let out = run_gemini(&scratch, &["hi"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let events = scratch.only_session_events();
    assert!(retries(&events).is_empty());
    let reason = llm_error(&events).data["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("would wait 37000 ms (the provider's retry-after"),
        "{reason}"
    );
    assert!(reason.contains("over the budget of 5000 ms"), "{reason}");
}

#[tokio::test]
async fn the_budget_listeners_configuration_is_checked_at_start_up() {
    let guests = other_language_guests();
    let wasm = guests.retry_budget.display().to_string();
    for (config, expect) in [
        ("{}", "needs `budget_ms`"),
        (
            "{ budget_ms = 0 }",
            "budget_ms must be a positive whole number",
        ),
        (
            "{ budget_ms = 100, retry_policy = { max_retries = 3 } }",
            "[providers.NAME.retry_policy]",
        ),
        ("{ budget_ms = 100, budgett = 5 }", "unknown key `budgett`"),
    ] {
        let scratch = Scratch::new();
        scratch.config(&format!(
            "[[listeners]]\nwasm = {wasm:?}\nconfig = {config}\n"
        ));
        let out = scratch
            .run_bin(
                &["run", "--base-url", "http://127.0.0.1:9/v1", "hi"],
                Some(TEST_KEY),
            )
            .await;
        assert_eq!(out.status.code(), Some(2), "{config}: {}", stderr(&out));
        assert!(stderr(&out).contains(expect), "{config}: {}", stderr(&out));
    }
}
