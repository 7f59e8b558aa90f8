//! The stream decoder: Messages SSE, tool use, thinking, stop reasons, usage, in-band errors,
//! truncation, non-streaming bodies, garbage. Every body is also decoded in 1-byte and random
//! pieces: the result must not change.

mod common;

use common::{decode, decode_split, decoded, finish_of, finishes, head, sse, text_of, tool_deltas};
use dsh_guest_anthropic::Decoder;
use dsh_guest_anthropic::types::{Chunk, Finish, FinishKind, ToolCallDelta, Usage};
use serde_json::json;

fn stop(kind: FinishKind, reason: &str) -> Chunk {
    Chunk::Finish(Finish {
        kind,
        reason: Some(reason.into()),
        failure: None,
    })
}

const START: &str = r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}"#;
const PING: &str = r#"{"type": "ping"}"#;
const STOP: &str = r#"{"type":"message_stop"}"#;

fn text_block(index: u32, pieces: &[&str]) -> Vec<String> {
    let mut events = vec![format!(
        r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"text","text":""}}}}"#
    )];
    for p in pieces {
        events.push(format!(
            r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"text_delta","text":{}}}}}"#,
            serde_json::to_string(p).unwrap()
        ));
    }
    events.push(format!(
        r#"{{"type":"content_block_stop","index":{index}}}"#
    ));
    events
}

fn message_delta(stop_reason: &str, output_tokens: u64) -> String {
    format!(
        r#"{{"type":"message_delta","delta":{{"stop_reason":{stop_reason},"stop_sequence":null}},"usage":{{"output_tokens":{output_tokens}}}}}"#
    )
}

fn body_of(events: &[String]) -> String {
    let refs: Vec<&str> = events.iter().map(String::as_str).collect();
    sse(&refs)
}

fn usage(input: u64, output: u64, cached: Option<u64>) -> Chunk {
    Chunk::Usage(Usage {
        input_tokens: Some(input),
        output_tokens: Some(output),
        cached_input_tokens: cached,
        reasoning_tokens: None,
    })
}

#[test]
fn text_with_pings_usage_and_end_turn() {
    let mut events = vec![START.to_string(), PING.to_string()];
    events.extend(text_block(0, &["Hel", "lo ☃", ""]));
    events.push(PING.to_string());
    events.push(message_delta("\"end_turn\"", 15));
    events.push(STOP.to_string());
    let chunks = decoded(&body_of(&events));
    assert_eq!(
        chunks,
        vec![
            Chunk::Text("Hello ☃".into()),
            usage(25, 15, Some(0)),
            stop(FinishKind::Stop, "end_turn"),
        ]
    );
}

#[test]
fn every_stop_reason() {
    let cases = [
        ("\"end_turn\"", FinishKind::Stop),
        ("\"stop_sequence\"", FinishKind::Stop),
        ("\"pause_turn\"", FinishKind::Stop),
        ("\"max_tokens\"", FinishKind::Length),
        ("\"model_context_window_exceeded\"", FinishKind::Length),
        ("\"tool_use\"", FinishKind::ToolCalls),
        ("\"refusal\"", FinishKind::ContentFilter),
        ("\"some_future_reason\"", FinishKind::Stop),
    ];
    for (reason, kind) in cases {
        let mut events = vec![START.to_string()];
        events.extend(text_block(0, &["x"]));
        events.push(message_delta(reason, 3));
        events.push(STOP.to_string());
        let f = finish_of(&decoded(&body_of(&events)));
        assert_eq!(f.kind, kind, "{reason}");
        assert_eq!(f.reason.as_deref(), Some(reason.trim_matches('"')));
        assert_eq!(f.failure, None, "{reason}");
    }
    // No stop reason at all: a plain stop.
    let mut events = vec![START.to_string()];
    events.extend(text_block(0, &["x"]));
    events.push(STOP.to_string());
    let f = finish_of(&decoded(&body_of(&events)));
    assert_eq!((f.kind, f.reason), (FinishKind::Stop, None));
}

#[test]
fn cache_tokens_count_as_input_and_message_delta_usage_wins() {
    let start = r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":5000,"output_tokens":1}}}"#;
    // Newer API versions repeat cumulative input counts in message_delta.
    let delta = r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":4,"cache_read_input_tokens":5000,"output_tokens":42}}"#;
    let mut events = vec![start.to_string()];
    events.extend(text_block(0, &["x"]));
    events.push(delta.to_string());
    events.push(STOP.to_string());
    let chunks = decoded(&body_of(&events));
    assert_eq!(chunks[1], usage(4 + 100 + 5000, 42, Some(5000)));
}

/// Thinking is reasoning; each thinking block's start is progress (the watchdog counts it); the
/// thinking blocks, with their signatures, and the redacted ones are the message's provider data,
/// whole, just before the usage and the finish.
#[test]
fn thinking_is_reasoning_and_its_blocks_are_the_messages_provider_data() {
    let events = [
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" harder."}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"42"}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#,
        STOP,
    ];
    let chunks = decoded(&sse(&events));
    let provider_data = json!({"anthropic": {"thinking": [
        {"type": "thinking", "thinking": "Let me think harder.",
         "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
    ]}});
    assert_eq!(
        chunks,
        vec![
            Chunk::Progress("thinking".into()),
            Chunk::Reasoning("Let me think harder.".into()),
            Chunk::Progress("redacted thinking".into()),
            Chunk::Text("42".into()),
            Chunk::ProviderData(provider_data.to_string()),
            usage(25, 9, Some(0)),
            stop(FinishKind::Stop, "end_turn"),
        ]
    );
}

/// A thinking block without a signature cannot be sent back (Anthropic would refuse it): no
/// provider data, only progress and reasoning.
#[test]
fn thinking_without_a_signature_is_not_kept() {
    let events = [
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"hm"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"ok"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}"#,
        STOP,
    ];
    let chunks = decoded(&sse(&events));
    assert!(
        !chunks.iter().any(|c| matches!(c, Chunk::ProviderData(_))),
        "{chunks:?}"
    );
    assert_eq!(
        chunks[..2],
        [
            Chunk::Progress("thinking".into()),
            Chunk::Reasoning("hm".into())
        ]
    );
}

#[test]
fn tool_use_with_input_json_deltas_across_chunks() {
    let events = [
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ncisco, CA\", \"unit\": \"fahrenheit\"}"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02","name":"now","input":{}}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}"#,
        STOP,
    ];
    let chunks = decoded(&sse(&events));
    assert_eq!(text_of(&chunks), "Checking.");
    let delta = |index, id: Option<&str>, name: Option<&str>, args: &str| ToolCallDelta {
        index,
        id: id.map(str::to_string),
        name: name.map(str::to_string),
        arguments: args.into(),
        provider_data: None,
    };
    assert_eq!(
        tool_deltas(&chunks),
        vec![
            delta(
                1,
                Some("toolu_01T1x1fJ34qAmk2tNTrN7Up6"),
                Some("get_weather"),
                ""
            ),
            delta(1, None, None, "{\"location\": \"San Fra"),
            delta(1, None, None, "ncisco, CA\", \"unit\": \"fahrenheit\"}"),
            // A no-argument tool: its arguments are "" (the host reads that as {}).
            delta(2, Some("toolu_02"), Some("now"), ""),
        ]
    );
    let f = finish_of(&chunks);
    assert_eq!(f.kind, FinishKind::ToolCalls);
    assert_eq!(f.reason.as_deref(), Some("tool_use"));
    // Usage comes right before the finish.
    assert_eq!(chunks[chunks.len() - 2], usage(25, 89, Some(0)));
}

#[test]
fn tool_use_in_arbitrary_splits_assembles_the_same_arguments() {
    let events = [
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"é/☃.txt\","}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"text\":\"line\\nline 😀\"}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}"#,
        STOP,
    ];
    let body = sse(&events);
    for seed in 1..=40u64 {
        let sizes = common::random_sizes(body.len(), seed, 9);
        let chunks = decode_split(body.as_bytes(), &sizes);
        let args: String = tool_deltas(&chunks)
            .iter()
            .map(|d| d.arguments.as_str())
            .collect();
        let value: serde_json::Value = serde_json::from_str(&args).expect("assembled JSON");
        assert_eq!(
            value,
            serde_json::json!({"path": "é/☃.txt", "text": "line\nline 😀"}),
            "seed {seed}"
        );
        assert_eq!(finish_of(&chunks).kind, FinishKind::ToolCalls);
    }
}

#[test]
fn tool_use_start_with_whole_input_and_server_tools() {
    let events = [
        START,
        // A proxy that sends the whole input at the start: later deltas would repeat it.
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a"}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a\"}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        // A server tool runs at Anthropic: not a call for the host (tests/fixtures/tool-arguments.json).
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_01R6zRtm9VnRaSJUVkGK9zvM","name":"advisor","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        // A delta for a block that never started: no name to call, dropped.
        r#"{"type":"content_block_delta","index":7,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}"#,
        STOP,
    ];
    let chunks = decoded(&sse(&events));
    assert_eq!(
        tool_deltas(&chunks),
        vec![ToolCallDelta {
            index: 0,
            id: Some("toolu_1".into()),
            name: Some("read".into()),
            arguments: r#"{"path":"a"}"#.into(),
            provider_data: None,
        }]
    );
}

#[test]
fn in_band_error_after_partial_text() {
    let mut events = vec![START.to_string()];
    events.extend(text_block(0, &["Hello"]).into_iter().take(2));
    let mut body = body_of(&events);
    body.push_str("event: error\ndata: {\"type\":\"error\",\"error\":{\"details\":null,\"type\":\"overloaded_error\",\"message\":\"Overloaded\"},\"request_id\":\"req_011CUq\"}\n\n");
    // Anything after the error is ignored.
    body.push_str(&body_of(&[
        message_delta("\"end_turn\"", 3),
        STOP.to_string(),
    ]));
    let chunks = decoded(&body);
    assert_eq!(chunks[0], Chunk::Text("Hello".into()));
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    let f = finish_of(&chunks);
    assert_eq!(f.kind, FinishKind::Error);
    let failure = f.failure.unwrap();
    assert_eq!(failure.code, "OVERLOADED");
    assert_eq!(failure.status, None);
    assert_eq!(failure.request_id.as_deref(), Some("req_011CUq"));
    assert!(
        failure.message.contains("Overloaded"),
        "{}",
        failure.message
    );
}

#[test]
fn in_band_error_types_classify_like_http_bodies() {
    let cases = [
        ("overloaded_error", "Overloaded", "OVERLOADED"),
        ("api_error", "Internal server error", "SERVER_ERROR"),
        ("api_error", "Overloaded", "SERVER_ERROR"),
        ("rate_limit_error", "Rate limited", "RATE_LIMITED"),
        (
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        ("invalid_request_error", "bad", "INVALID_REQUEST"),
        ("authentication_error", "invalid x-api-key", "AUTH"),
        ("timeout_error", "Request timed out", "TIMEOUT"),
        ("something_new", "Unexpected", "SERVER_ERROR"),
    ];
    for (kind, message, code) in cases {
        let body = format!(
            "event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"{kind}\",\"message\":\"{message}\"}}}}\n\n"
        );
        let f = finish_of(&decoded(&body));
        let failure = f.failure.expect("an error finish has a failure");
        assert_eq!(failure.code, code, "{kind}: {message}");
        assert!(!failure.message.is_empty());
    }
    // A text payload and an empty one under `event: error` are errors too.
    for data in ["upstream failure", "{}"] {
        let f = finish_of(&decoded(&format!("event: error\ndata: {data}\n\n")));
        let failure = f.failure.unwrap();
        assert_eq!(failure.code, "SERVER_ERROR", "{data}");
        assert!(!failure.message.trim().is_empty());
    }
}

#[test]
fn in_band_error_takes_the_request_id_header_when_the_body_has_none() {
    let mut d = Decoder::new(head(200, &[("request-id", "req_hdr")]));
    let mut chunks = d.feed(b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
    chunks.extend(d.end());
    let failure = finish_of(&chunks).failure.unwrap();
    assert_eq!(failure.request_id.as_deref(), Some("req_hdr"));
    assert_eq!(failure.provider_retry_after_ms, None);
}

#[test]
fn missing_message_stop_is_no_finish() {
    let mut events = vec![START.to_string()];
    events.extend(text_block(0, &["Partial ans"]).into_iter().take(2));
    assert_eq!(
        decoded(&body_of(&events)),
        vec![Chunk::Text("Partial ans".into())]
    );
    // Even after the stop reason: only message_stop ends a message.
    let mut events = vec![START.to_string()];
    events.extend(text_block(0, &["All of it"]));
    events.push(message_delta("\"end_turn\"", 4));
    assert!(finishes(&decoded(&body_of(&events))).is_empty());
    // Cut inside the last event's JSON.
    let mut body = body_of(&[START.to_string()]);
    body.push_str("event: message_stop\ndata: {\"type\":\"messa");
    assert!(finishes(&decoded(&body)).is_empty());
    // Nothing at all.
    assert!(decode("").is_empty());
    assert!(decoded(&sse(&[PING])).is_empty());
}

#[test]
fn crlf_framing_and_data_without_event_lines() {
    let body = format!(
        "data: {START}\r\n\r\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"hi\"}}}}\r\n\r\ndata: {STOP}\r\n\r\n"
    );
    let chunks = decoded(&body);
    assert_eq!(text_of(&chunks), "hi");
    assert_eq!(finish_of(&chunks).kind, FinishKind::Stop);
}

#[test]
fn non_streaming_message_body() {
    let body = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[
        {"type":"thinking","thinking":"hmm","signature":"x"},
        {"type":"text","text":"Let me check."},
        {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}},
        {"type":"tool_use","id":"toolu_2","name":"now","input":{}}
    ],"stop_reason":"tool_use","stop_sequence":null,
    "usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":30}}"#;
    let chunks = decoded(body);
    assert_eq!(
        chunks,
        vec![
            Chunk::Reasoning("hmm".into()),
            Chunk::Text("Let me check.".into()),
            Chunk::ToolCall(ToolCallDelta {
                index: 2,
                id: Some("toolu_1".into()),
                name: Some("get_weather".into()),
                arguments: r#"{"location":"Paris"}"#.into(),
                provider_data: None,
            }),
            Chunk::ToolCall(ToolCallDelta {
                index: 3,
                id: Some("toolu_2".into()),
                name: Some("now".into()),
                arguments: "{}".into(),
                provider_data: None,
            }),
            Chunk::ProviderData(
                json!({"anthropic": {"thinking": [{"type": "thinking", "thinking": "hmm", "signature": "x"}]}})
                    .to_string()
            ),
            usage(100, 30, Some(90)),
            stop(FinishKind::ToolCalls, "tool_use"),
        ]
    );
    let empty = r#"{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":1200,"output_tokens":3}}"#;
    assert_eq!(
        decoded(empty),
        vec![usage(1200, 3, None), stop(FinishKind::Stop, "end_turn")]
    );
}

#[test]
fn non_streaming_error_body() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
    let failure = finish_of(&decoded(body)).failure.unwrap();
    assert_eq!(failure.code, "OVERLOADED");
    assert_eq!(failure.request_id.as_deref(), Some("req_1"));
}

#[test]
fn garbage_never_panics_and_never_passes_for_an_answer() {
    let bodies = [
        "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>",
        "not json at all",
        "{\"choices\": []}",
        "[1, 2, 3]",
        "\u{0}\u{1}\u{ff}",
        "{\"type\":\"message\",\"content\":\"oops\"}",
    ];
    for body in bodies {
        let f = finish_of(&decoded(body));
        assert_eq!(f.kind, FinishKind::Error, "{body}");
        let failure = f.failure.unwrap();
        assert_eq!(failure.code, "SERVER_ERROR", "{body}");
        assert!(
            failure.message.contains("unparseable"),
            "{}",
            failure.message
        );
    }
    // Invalid UTF-8 and odd-but-valid JSON events inside a stream.
    let mut odd = b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":\"x\",\"delta\":5}\n\n".to_vec();
    odd.extend_from_slice(b"data: \xff\xfe\n\ndata: {\"type\":\"content_block_start\",\"index\":99999999999,\"content_block\":{\"type\":\"tool_use\",\"id\":7,\"name\":null,\"input\":[]}}\n\n");
    odd.extend_from_slice(b"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":7},\"usage\":{\"output_tokens\":-1}}\n\ndata: null\n\ndata: {\"type\":\"message_stop\"}\n\n");
    let chunks = decode_split(&odd, &[]);
    assert_eq!(finish_of(&chunks).kind, FinishKind::Stop);
    for piece in 1..8 {
        let sizes = vec![piece; odd.len()];
        assert_eq!(decode_split(&odd, &sizes), chunks);
    }
}

#[test]
fn nothing_after_the_finish() {
    let mut d = Decoder::new(head(200, &[]));
    let first = d.feed(sse(&[START, STOP]).as_bytes());
    assert_eq!(finishes(&first).len(), 1);
    assert!(d.feed(sse(&[STOP]).as_bytes()).is_empty());
    assert!(d.end().is_empty());
}

/// Keepalives are no progress: a `ping` (Anthropic sends them during long waits) yields no chunk,
/// so the host's watchdog still times out a stream that only pings.
#[test]
fn pings_yield_nothing() {
    let ping = r#"{"type":"ping"}"#;
    let body = format!(
        "event: message_start\ndata: {START}\n\n{}",
        format!("event: ping\ndata: {ping}\n\n").repeat(50)
    );
    assert_eq!(decoded(&body), Vec::<Chunk>::new());
}

#[test]
fn a_guards_refusal_in_plain_words_under_a_200_is_a_content_filter() {
    for (body, content_type) in [
        ("Rejected by guardrails moderation", "text/plain"),
        (r#""Request blocked by Llama Guard""#, "application/json"),
    ] {
        let failure = finish_of(&common::decode_200(body, content_type))
            .failure
            .expect("a failure");
        assert_eq!(failure.code.as_str(), "CONTENT_FILTER", "{body}");
    }
    // Other plain words stay an unparseable body.
    for (body, content_type) in [
        ("Hello from the proxy", "text/plain"),
        (r#""ok""#, "application/json"),
    ] {
        let failure = finish_of(&common::decode_200(body, content_type))
            .failure
            .expect("a failure");
        assert_eq!(failure.code.as_str(), "SERVER_ERROR", "{body}");
        assert!(failure.message.contains("neither"), "{}", failure.message);
    }
}

#[test]
fn a_message_whose_stop_reason_names_an_error_is_that_error() {
    // khanon's oai-reverse-proxy answers its errors as an Anthropic message with a 200.
    let body = json!({
        "id": "error-1", "type": "message", "role": "assistant", "model": "claude-3-opus",
        "content": [{"type": "text", "text": "### **Proxy error (HTTP 429 Too Many Requests)**\n\nThe proxy encountered an error.\n\n*You've exceeded your token quota for this model type.*"}],
        "stop_reason": "Proxy error (HTTP 429 Too Many Requests)", "stop_sequence": null
    })
    .to_string();
    let chunks = common::decode_200(&body, "application/json");
    let failure = finish_of(&chunks).failure.expect("a failure");
    assert_eq!(failure.code.as_str(), "QUOTA_EXCEEDED", "{chunks:?}");
    assert!(
        text_of(&chunks).is_empty(),
        "the report is not an answer: {chunks:?}"
    );
}

#[test]
fn a_short_answer_that_is_an_error_report_is_that_error_and_a_declared_empty_body_is_empty() {
    // A proxy in Anthropic's shape streaming its upstream's failure as the answer.
    let mut events = vec![START.to_string()];
    events.extend(text_block(
        0,
        &[
            "Error: 429 - ",
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}}"#,
        ],
    ));
    events.push(message_delta(r#""end_turn""#, 3));
    events.push(r#"{"type":"message_stop"}"#.to_string());
    let f = finish_of(&decoded(&body_of(&events)));
    assert_eq!(f.kind, FinishKind::Error);
    assert_eq!(f.failure.expect("a failure").code.as_str(), "RATE_LIMITED");
    // An answer that opens with "Error:" and names no failure is an answer.
    let mut events = vec![START.to_string()];
    events.extend(text_block(0, &["Error: division by zero on line 3."]));
    events.push(message_delta(r#""end_turn""#, 3));
    events.push(r#"{"type":"message_stop"}"#.to_string());
    let f = finish_of(&decoded(&body_of(&events)));
    assert_eq!((f.kind, f.failure), (FinishKind::Stop, None));
    // `content-length: 0`: complete and empty.
    let chunks = common::decode_split_with(&head(200, &[("content-length", "0")]), b"", &[0]);
    assert_eq!(
        finish_of(&chunks).failure.expect("a failure").code.as_str(),
        "EMPTY_RESPONSE"
    );
}

#[test]
fn a_json_body_in_no_anthropic_shape_is_read_by_its_words() {
    // A bot's own envelope under a 200: the words inside name the failure.
    let body = r#"{"code":2,"detail":"Too many requests, please retry later"}"#;
    let failure = finish_of(&common::decode_200(body, "application/json"))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "RATE_LIMITED");
    // A chat message inside is an answer, never read; with nothing else, still unparseable.
    let body = r#"{"messages":[{"role":"assistant","content":"Rate limit exceeded"}]}"#;
    let failure = finish_of(&common::decode_200(body, "application/json"))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "SERVER_ERROR");
    assert!(
        failure.message.contains("unparseable"),
        "{}",
        failure.message
    );
}
