//! The SSE decoder against Gemini streams (streamGenerateContent?alt=sse). Every body decoded with
//! `decoded` is also decoded in 1-byte and random pieces: the result must not change. Ported case
//! for case from the JavaScript example guest's tests, plus thought signatures (contract 0.2).

mod common;

use common::{decode, decode_split_with, decoded, head, part, response, sse};
use dsh_guest_gemini::Decoder;
use dsh_guest_gemini::decode::usage_of;
use dsh_guest_gemini::plan::signature_of;
use dsh_guest_gemini::types::{Chunk, Finish, FinishKind, LlmFailure, ToolCallDelta, Usage};
use serde_json::json;

fn finish(kind: FinishKind, reason: &str) -> Chunk {
    Chunk::Finish(Finish {
        kind,
        reason: Some(reason.into()),
        failure: None,
    })
}

fn last_failure(chunks: &[Chunk]) -> &LlmFailure {
    match chunks.last() {
        Some(Chunk::Finish(Finish {
            kind: FinishKind::Error,
            failure: Some(f),
            ..
        })) => f,
        other => panic!("expected an error finish last, got {other:?}"),
    }
}

fn decode_with(body: &str, headers: &[(&str, &str)]) -> Vec<Chunk> {
    let mut all = vec![("content-type", "text/event-stream")];
    all.extend_from_slice(headers);
    decode_split_with(&head(200, &all), body.as_bytes(), &[body.len()])
}

fn call(index: u32, id: &str, name: &str, arguments: &str) -> Chunk {
    Chunk::ToolCall(ToolCallDelta {
        index,
        id: Some(id.into()),
        name: Some(name.into()),
        arguments: arguments.into(),
        provider_data: None,
    })
}

#[test]
fn a_streamed_text_answer_with_usage() {
    let body = sse(&[
        response(
            json!([part("Hel", json!({}))]),
            None,
            Some(json!({ "promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6 })),
        ),
        response(
            json!([part("lo, wörld ✓", json!({}))]),
            None,
            Some(json!({ "promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8 })),
        ),
        response(
            json!([part("!", json!({}))]),
            Some("STOP"),
            Some(
                json!({ "promptTokenCount": 5, "candidatesTokenCount": 4, "totalTokenCount": 9, "cachedContentTokenCount": 2 }),
            ),
        ),
    ]);
    assert_eq!(
        decoded(&body),
        vec![
            Chunk::Text("Hello, wörld ✓!".into()),
            Chunk::Usage(Usage {
                input_tokens: Some(5),
                output_tokens: Some(4),
                cached_input_tokens: Some(2),
                reasoning_tokens: None
            }),
            finish(FinishKind::Stop, "STOP"),
        ]
    );
}

#[test]
fn thought_parts_are_reasoning_and_thinking_tokens_count_as_output() {
    let body = sse(&[
        response(
            json!([part("Let me think.", json!({ "thought": true }))]),
            None,
            None,
        ),
        response(
            json!([part("Answer.", json!({}))]),
            Some("STOP"),
            Some(
                json!({ "promptTokenCount": 3, "candidatesTokenCount": 2, "thoughtsTokenCount": 10 }),
            ),
        ),
    ]);
    let chunks = decoded(&body);
    assert_eq!(
        chunks[..2],
        [
            Chunk::Reasoning("Let me think.".into()),
            Chunk::Text("Answer.".into())
        ]
    );
    assert_eq!(
        chunks[2],
        Chunk::Usage(Usage {
            input_tokens: Some(3),
            output_tokens: Some(12),
            cached_input_tokens: None,
            reasoning_tokens: Some(10)
        })
    );
}

#[test]
fn function_calls_are_whole_tool_call_deltas_and_the_finish_is_tool_calls() {
    let body = sse(&[
        response(
            json!([part("Checking.", json!({})), { "functionCall": { "name": "get_weather", "args": { "city": "Paris", "days": 2 } } }]),
            None,
            None,
        ),
        response(
            json!([{ "functionCall": { "name": "list_files" } }, { "functionCall": { "name": "echo", "args": { "a": [1, { "b": null }] }, "id": "fc-7" } }]),
            Some("STOP"),
            None,
        ),
    ]);
    assert_eq!(
        decoded(&body),
        vec![
            Chunk::Text("Checking.".into()),
            call(0, "call_0", "get_weather", r#"{"city":"Paris","days":2}"#),
            call(1, "call_1", "list_files", "{}"),
            call(2, "fc-7", "echo", r#"{"a":[1,{"b":null}]}"#),
            finish(FinishKind::ToolCalls, "STOP"),
        ]
    );
}

#[test]
fn a_calls_thought_signature_is_kept_as_its_provider_data() {
    let body = sse(&[response(
        json!([{ "functionCall": { "name": "f", "args": {} }, "thoughtSignature": "CiQB0e2Kb+sig==" },
               { "functionCall": { "name": "g", "args": {} } }]),
        Some("STOP"),
        None,
    )]);
    let chunks = decoded(&body);
    let Chunk::ToolCall(first) = &chunks[0] else {
        panic!("{chunks:?}")
    };
    assert_eq!(
        signature_of(first.provider_data.as_deref()).as_deref(),
        Some("CiQB0e2Kb+sig==")
    );
    let Chunk::ToolCall(second) = &chunks[1] else {
        panic!("{chunks:?}")
    };
    assert_eq!(
        second.provider_data, None,
        "only the part that carries a signature has one"
    );
}

#[test]
fn max_tokens_is_length() {
    let chunks = decode(&sse(&[response(
        json!([part("Once upon", json!({}))]),
        Some("MAX_TOKENS"),
        None,
    )]));
    assert_eq!(
        chunks.last(),
        Some(&finish(FinishKind::Length, "MAX_TOKENS"))
    );
}

#[test]
fn safety_recitation_and_friends_are_content_filter_finishes() {
    for reason in [
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "LANGUAGE",
        "IMAGE_SAFETY",
    ] {
        let body = sse(&[
            response(json!([part("Partial ", json!({}))]), None, None),
            json!({ "candidates": [{ "finishReason": reason, "index": 0, "safetyRatings": [{ "category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": true }] }] }),
        ]);
        assert_eq!(
            decode(&body).last(),
            Some(&finish(FinishKind::ContentFilter, reason)),
            "{reason}"
        );
    }
}

#[test]
fn a_blocked_prompt_is_a_content_filter_finish() {
    let body = sse(&[json!({
        "promptFeedback": { "blockReason": "SAFETY", "safetyRatings": [{ "category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH" }] },
        "usageMetadata": { "promptTokenCount": 8, "totalTokenCount": 8 },
    })]);
    assert_eq!(
        decoded(&body),
        vec![
            Chunk::Usage(Usage {
                input_tokens: Some(8),
                ..Usage::default()
            }),
            finish(FinishKind::ContentFilter, "SAFETY"),
        ]
    );
}

#[test]
fn nothing_produced_is_empty_response() {
    let empty = decode(&sse(&[
        json!({ "candidates": [{ "content": { "parts": [], "role": "model" }, "finishReason": "STOP", "index": 0 }] }),
    ]));
    assert_eq!(empty.len(), 1);
    let f = last_failure(&empty);
    assert_eq!(f.code, "EMPTY_RESPONSE");
    assert!(
        f.message
            .contains("finishReason STOP) without any text or function call"),
        "{}",
        f.message
    );
    // Only whitespace is nothing either.
    let blank = decode(&sse(&[response(
        json!([part("  \n", json!({}))]),
        Some("STOP"),
        None,
    )]));
    assert_eq!(last_failure(&blank).code, "EMPTY_RESPONSE");
    // Thinking that used up the output budget.
    let thought = decode(&sse(&[response(
        json!([part("hmm", json!({ "thought": true }))]),
        Some("MAX_TOKENS"),
        Some(json!({ "promptTokenCount": 3, "thoughtsTokenCount": 100 })),
    )]));
    assert_eq!(last_failure(&thought).code, "EMPTY_RESPONSE");
    assert!(
        last_failure(&thought)
            .message
            .contains("thinking used the whole budget; raise max-tokens")
    );
    // The length limit with nothing at all, not even thinking: the silent overflow, left to the
    // host (a plain length finish, which it concludes as CONTEXT_WINDOW_EXCEEDED).
    let silent = decode(&sse(&[
        json!({ "candidates": [{ "content": { "parts": [], "role": "model" }, "finishReason": "MAX_TOKENS", "index": 0 }] }),
    ]));
    assert_eq!(
        silent.last(),
        Some(&finish(FinishKind::Length, "MAX_TOKENS"))
    );
    // A stream of responses without any candidate.
    let none = decode_with(
        &sse(&[
            json!({ "usageMetadata": { "promptTokenCount": 4 } }),
            json!({ "candidates": [] }),
        ]),
        &[("x-request-id", "r-1")],
    );
    let f = last_failure(&none);
    assert_eq!(f.code, "EMPTY_RESPONSE");
    assert!(f.message.contains("no candidates"));
    assert_eq!(f.request_id.as_deref(), Some("r-1"));
}

#[test]
fn a_malformed_function_call_is_empty_response_a_missing_signature_invalid_request() {
    let bad = decode(&sse(&[
        json!({ "candidates": [{ "content": { "parts": [] }, "finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": "Malformed function call: print(" }] }),
    ]));
    let Some(Chunk::Finish(f)) = bad.last() else {
        panic!("{bad:?}")
    };
    assert_eq!(f.kind, FinishKind::Error);
    assert_eq!(f.reason.as_deref(), Some("MALFORMED_FUNCTION_CALL"));
    assert_eq!(last_failure(&bad).code, "EMPTY_RESPONSE");
    let sig = decode(&sse(&[
        json!({ "candidates": [{ "finishReason": "MISSING_THOUGHT_SIGNATURE" }] }),
    ]));
    assert_eq!(last_failure(&sig).code, "INVALID_REQUEST");
}

#[test]
fn other_with_text_is_a_stop() {
    let chunks = decode(&sse(&[response(
        json!([part("ok", json!({}))]),
        Some("OTHER"),
        None,
    )]));
    assert_eq!(chunks.last(), Some(&finish(FinishKind::Stop, "OTHER")));
}

#[test]
fn an_in_band_error_ends_the_stream_with_an_error_finish_classified_like_a_non_2xx_body() {
    let body = sse(&[
        response(json!([part("Going", json!({}))]), None, None),
        json!({ "error": { "code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE" } }),
        response(json!([part("ignored", json!({}))]), Some("STOP"), None),
    ]);
    let chunks = decode_with(&body, &[("x-request-id", "rid-5")]);
    assert_eq!(chunks.len(), 2);
    assert_eq!(chunks[0], Chunk::Text("Going".into()));
    assert_eq!(
        last_failure(&chunks),
        &LlmFailure {
            message: "The model is overloaded. Please try again later.".into(),
            code: "OVERLOADED".parse_code(),
            status: Some(503),
            provider_retry_after_ms: None,
            request_id: Some("rid-5".into()),
        }
    );
    let quota = decoded(&sse(&[
        json!({ "error": { "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "x",
        "details": [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s" }] } }),
    ]));
    assert_eq!(last_failure(&quota).code, "RATE_LIMITED");
    assert_eq!(last_failure(&quota).provider_retry_after_ms, Some(3000));
}

trait ParseCode {
    fn parse_code(self) -> dsh_guest_gemini::types::FailureCode;
}
impl ParseCode for &str {
    fn parse_code(self) -> dsh_guest_gemini::types::FailureCode {
        dsh_guest_gemini::types::FailureCode::parse(self).unwrap()
    }
}

#[test]
fn a_stream_cut_before_its_finish_has_no_finish() {
    assert_eq!(
        decoded(&sse(&[response(
            json!([part("Once upon", json!({}))]),
            None,
            None
        )])),
        vec![Chunk::Text("Once upon".into())]
    );
    // Cut in the middle of an event.
    let cut = format!(
        "{}data: {{\"candidates\":[{{\"content\":{{\"par",
        sse(&[response(json!([part("a", json!({}))]), None, None)])
    );
    assert_eq!(decoded(&cut), vec![Chunk::Text("a".into())]);
    assert_eq!(decode(""), vec![]);
}

#[test]
fn the_finish_is_emitted_as_soon_as_it_arrives_and_nothing_after_it_counts() {
    let mut d = Decoder::new(head(200, &[("content-type", "text/event-stream")]));
    let first =
        d.feed(sse(&[response(json!([part("x", json!({}))]), Some("STOP"), None)]).as_bytes());
    assert!(matches!(first.last(), Some(Chunk::Finish(_))));
    assert_eq!(
        d.feed(sse(&[response(json!([part("more", json!({}))]), None, None)]).as_bytes()),
        vec![]
    );
    assert_eq!(d.end(), vec![]);
}

#[test]
fn a_body_without_sse_framing_is_read_as_json() {
    let body = json!([
        response(json!([part("Hi", json!({}))]), None, None),
        response(
            json!([part(" there", json!({}))]),
            Some("STOP"),
            Some(json!({ "promptTokenCount": 1, "candidatesTokenCount": 2 }))
        ),
    ])
    .to_string();
    let chunks = decoded(&body);
    assert_eq!(chunks[0], Chunk::Text("Hi there".into()));
    assert!(matches!(chunks[1], Chunk::Usage(_)));
    assert_eq!(chunks[2], finish(FinishKind::Stop, "STOP"));
    let err = decode(
        &json!({ "error": { "code": 500, "message": "boom", "status": "INTERNAL" } }).to_string(),
    );
    assert_eq!(last_failure(&err).code, "SERVER_ERROR");
}

#[test]
fn an_unparseable_body_is_server_error_naming_what_came() {
    let chunks = decode_split_with(
        &head(200, &[("content-type", "text/html")]),
        b"<html><title>Oops</title></html>",
        &[100],
    );
    assert_eq!(chunks.len(), 1);
    let f = last_failure(&chunks);
    assert_eq!(f.code, "SERVER_ERROR");
    assert!(
        f.message.contains(r#"an HTML page titled "Oops""#),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("content-type text/html"),
        "{}",
        f.message
    );
}

#[test]
fn non_json_data_and_comments_are_skipped() {
    let body = format!(
        ": keep-alive\n\ndata: not json\n\n{}",
        sse(&[response(
            json!([part("fine", json!({}))]),
            Some("STOP"),
            None
        )])
    );
    assert_eq!(
        decoded(&body),
        vec![Chunk::Text("fine".into()), finish(FinishKind::Stop, "STOP")]
    );
}

#[test]
fn usage_of_reads_only_counts() {
    assert_eq!(usage_of(&json!({})), None);
    assert_eq!(
        usage_of(&json!({ "promptTokenCount": 1, "candidatesTokenCount": -1 })),
        Some(Usage {
            input_tokens: Some(1),
            ..Usage::default()
        })
    );
}

#[test]
fn a_gateways_refusal_in_an_answer_without_usage_is_a_content_filter() {
    // Apigee's Model Armor sample: the refusal as the candidate's text, no usageMetadata.
    let refusal = r#"{ "candidates": [ { "content": { "role": "model", "parts": [ { "text": "Your prompt contains PII info, which is not allowed for privacy reasons" } ] }, "finishReason": "STOP" } ], "modelVersion": "gemini-2.0-flash" }"#;
    assert_eq!(
        last_failure(&common::decode_200(refusal, "application/json"))
            .code
            .as_str(),
        "CONTENT_FILTER"
    );
    // The same words with usage counted are the model's answer, delivered; so is an answer
    // without usage whose words are no refusal.
    let counted = r#"{ "candidates": [ { "content": { "role": "model", "parts": [ { "text": "Your prompt contains PII info, which is not allowed for privacy reasons" } ] }, "finishReason": "STOP" } ], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 14, "totalTokenCount": 19} }"#;
    let plain = r#"{ "candidates": [ { "content": { "role": "model", "parts": [ { "text": "Hello there" } ] }, "finishReason": "STOP" } ] }"#;
    for body in [counted, plain] {
        let chunks = common::decode_200(body, "application/json");
        assert!(
            matches!(
                chunks.last(),
                Some(Chunk::Finish(Finish {
                    kind: FinishKind::Stop,
                    ..
                }))
            ),
            "{body}: {chunks:?}"
        );
    }
}
