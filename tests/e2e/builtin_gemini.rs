//! The built-in Gemini adapter (guests/gemini-native, embedded in the binary) through `run
//! --provider gemini` against the mock: nothing to build, no Node. A streamed answer, a 429
//! RESOURCE_EXHAUSTED retried after its RetryInfo delay, and a tool round trip whose thought
//! signature goes back with the call.

use crate::support::*;
use serde_json::{Value, json};
use std::process::Output;

const KEY: &str = "AIza-builtin-0123456789";

/// `run --provider gemini` at the mock (its base URL in Gemini's shape, `.../v1beta`), the key named
/// explicitly: the mock is not Google's host, where the preset's key goes by default.
async fn run(mock: &dsh_host::mock::MockServer, scratch: &Scratch, rest: &[&str]) -> Output {
    let base = format!("{}beta", mock.base_url());
    let mut args = vec![
        "run",
        "--provider",
        "gemini",
        "--base-url",
        &base,
        "--api-key-env",
        "DSH_TEST_GEMINI_KEY",
        "--model",
        "gemini-2.5-flash",
    ];
    args.extend_from_slice(rest);
    scratch
        .command(&args, None)
        .env("DSH_TEST_GEMINI_KEY", KEY)
        .output()
        .await
        .expect("dsh-host runs")
}

fn answer(parts: Value, finish: Option<&str>) -> Value {
    let mut candidate = json!({ "content": { "parts": parts, "role": "model" }, "index": 0 });
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
    }
    json!({ "candidates": [candidate], "modelVersion": "gemini-2.5-flash" })
}

#[tokio::test]
async fn the_builtin_gemini_adapter_streams_an_answer_with_the_key_in_x_goog_api_key() {
    let mock = mock(&script(&[sse(&[
        answer(json!([{ "text": "Hello" }]), None),
        json!({ "candidates": [{ "content": { "parts": [{ "text": " from Rust ✓" }], "role": "model" }, "finishReason": "STOP", "index": 0 }],
                "usageMetadata": { "promptTokenCount": 7, "candidatesTokenCount": 4, "thoughtsTokenCount": 2 } }),
    ])]))
    .await;
    let scratch = Scratch::new();
    let out = run(&mock, &scratch, &["--system", "Be terse.", "Say hello"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "Hello from Rust ✓");

    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(
        r.path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(r.header("x-goog-api-key"), Some(KEY));
    assert_eq!(
        r.header("authorization"),
        None,
        "the key goes in x-goog-api-key only"
    );
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        body["contents"],
        json!([{ "role": "user", "parts": [{ "text": "Say hello" }] }])
    );
    assert_eq!(
        body["systemInstruction"],
        json!({ "parts": [{ "text": "Be terse." }] })
    );

    let events = scratch.only_session_events();
    let response = of_kind(&events, "llm/response")[0];
    assert_eq!(response.data["usage"]["input_tokens"], 7);
    assert_eq!(
        response.data["usage"]["output_tokens"], 6,
        "thinking is billed as output"
    );
    let rendered = serde_json::to_string(&events).unwrap();
    assert!(!rendered.contains(KEY), "the key never reaches the log");
}

#[tokio::test]
async fn a_resource_exhausted_429_is_retried_after_its_retry_info_delay() {
    let rate_limited = json!({
        "status": 429,
        "headers": { "content-type": "application/json; charset=UTF-8", "x-request-id": "req-429" },
        "body": json!({ "error": {
            "code": 429,
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                    "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                    "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }] },
                { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.2s" },
            ],
        } }).to_string(),
    });
    let mock = mock(&script(&[
        rate_limited,
        sse(&[answer(json!([{ "text": "made it" }]), Some("STOP"))]),
    ]))
    .await;
    let scratch = Scratch::new();
    let out = run(&mock, &scratch, &["hi"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "made it");
    assert_eq!(mock.requests().len(), 2);

    let events = scratch.only_session_events();
    let failure = &of_kind(&events, "llm/failure")[0].data["failure"];
    assert_eq!(failure["code"], "RATE_LIMITED");
    assert_eq!(failure["provider_retry_after_ms"], 200);
    assert_eq!(failure["request_id"], "req-429");
    let retry = of_kind(&events, "llm/retry")[0];
    assert_eq!(
        retry.data["delay_ms"], 200,
        "the delay is RetryInfo's retryDelay"
    );
    assert_eq!(retry.data["code"], "RATE_LIMITED");
}

#[tokio::test]
async fn a_function_call_round_trip_sends_back_the_response_and_the_thought_signature() {
    let call = answer(
        json!([
            { "text": "Let me compute." },
            { "functionCall": { "name": "calculator", "args": { "expression": "(2 + 3) * 4.5" } },
              "thoughtSignature": "CiQB-real-signature==" },
        ]),
        Some("STOP"),
    );
    let mock = mock(&script(&[
        sse(&[call]),
        sse(&[answer(json!([{ "text": "It is 22.5." }]), Some("STOP"))]),
    ]))
    .await;
    let scratch = Scratch::new();
    let out = run(&mock, &scratch, &["--tools", "What is (2 + 3) * 4.5?"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).trim_end().ends_with("It is 22.5."),
        "{}",
        stdout(&out)
    );

    let events = scratch.only_session_events();
    let result = of_kind(&events, "tool/result")[0];
    assert_eq!(result.data["id"], "call_0");
    let content = result.data["content"].as_str().unwrap().to_string();

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let declarations = first["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap();
    assert!(
        declarations.iter().any(|d| d["name"] == "calculator"),
        "{declarations:?}"
    );
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let contents = second["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3, "{contents:?}");
    assert_eq!(contents[1]["role"], "model");
    assert_eq!(
        contents[1]["parts"][1],
        json!({ "functionCall": { "name": "calculator", "args": { "expression": "(2 + 3) * 4.5" } },
                "thoughtSignature": "CiQB-real-signature==" }),
        "the call goes back with the signature Gemini sent, not the placeholder"
    );
    assert_eq!(contents[2]["role"], "user");
    let response = &contents[2]["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "calculator");
    let expected = serde_json::from_str::<Value>(&content)
        .ok()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({ "output": content }));
    assert_eq!(response["response"], expected);
}

/// Gemini ending at MAX_TOKENS with nothing at all (no text, no thinking) is the silent overflow:
/// the adapter leaves a plain length finish and the host concludes it as for every adapter.
#[tokio::test]
async fn max_tokens_with_nothing_produced_is_the_silent_overflow() {
    let mock = mock(&script(&[sse(&[answer(json!([]), Some("MAX_TOKENS"))])])).await;
    let scratch = Scratch::new();
    let out = run(&mock, &scratch, &["hi"]).await;
    assert!(
        !out.status.success(),
        "an overflow is not an answer: {}",
        stdout(&out)
    );
    let events = scratch.only_session_events();
    let failure = &of_kind(&events, "llm/failure")[0].data["failure"];
    assert_eq!(failure["code"], "CONTEXT_WINDOW_EXCEEDED", "{failure}");
}
