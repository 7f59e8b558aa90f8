//! The completion shapes: the path rule, and the Anthropic and Gemini streams as a client sees them.

use super::server_tests::{exchange, read_all, send, split_response, sse_data, start};
use super::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;

const MESSAGES: &str = "/v1/messages";
const GEMINI: &str = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";

/// The events of an SSE body: (`event:` name, `data:` payload parsed as JSON).
fn sse_events(body: &str) -> Vec<(Option<&str>, Value)> {
    body.split("\n\n")
        .filter(|ev| !ev.is_empty())
        .map(|ev| {
            let name = ev.lines().find_map(|l| l.strip_prefix("event: "));
            let data: String = ev
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .collect();
            let data = serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {data}"));
            (name, data)
        })
        .collect()
}

/// A completed exchange's status line and events; panics on a reset.
async fn stream(server: &MockServer, path: &str) -> (String, Vec<(Option<String>, Value)>) {
    let (text, end) = exchange(server, path).await;
    end.expect("a clean close");
    let (head, body) = split_response(&text);
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    assert!(!body.contains("[DONE]"), "only OpenAI sends [DONE]: {body}");
    let events = sse_events(body)
        .into_iter()
        .map(|(n, v)| (n.map(str::to_string), v))
        .collect();
    (head.lines().next().unwrap().to_string(), events)
}

fn names(events: &[(Option<String>, Value)]) -> Vec<&str> {
    events
        .iter()
        .map(|(n, _)| n.as_deref().unwrap_or("-"))
        .collect()
}

/// The mock's own JSON error: (status line, error type, message).
async fn error(server: &MockServer, path: &str) -> (String, String, String) {
    let (text, _) = exchange(server, path).await;
    let (head, body) = split_response(&text);
    let v: Value = serde_json::from_str(body).unwrap();
    (
        head.lines().next().unwrap().to_string(),
        v["error"]["type"].as_str().unwrap().to_string(),
        v["error"]["message"].as_str().unwrap().to_string(),
    )
}

#[test]
fn path_rule() {
    use Shape::*;
    let cases: &[(&str, Option<Shape>)] = &[
        ("/v1/chat/completions", Some(OpenAiChat)),
        (
            "/openai/deployments/x/chat/completions?api-version=2024-10-21",
            Some(OpenAiChat),
        ),
        ("/v1/messages", Some(AnthropicMessages)),
        ("/anthropic/v1/messages?beta=true", Some(AnthropicMessages)),
        ("/v1/messages/count_tokens", None),
        ("/v1/messages/batches", None),
        ("/messages", None),
        (GEMINI, Some(GeminiGenerate)),
        (
            "/v1/models/gemini-pro:streamGenerateContent",
            Some(GeminiGenerate),
        ),
        (
            "/v1beta/models/g:streamGenerateContent?key=k&alt=sse#x",
            Some(GeminiGenerate),
        ),
        ("/v1beta/models/g:generateContent", None),
        ("/v1beta/models/g:streamGenerateContent/x", None),
        (":streamGenerateContent", None),
        ("/v1/responses", None),
        ("/", None),
        ("", None),
        // The query never decides the shape.
        ("/v1/other?next=/v1/chat/completions", None),
        ("/v1/other?m=/models/g:streamGenerateContent", None),
    ];
    for (path, want) in cases {
        assert_eq!(Shape::for_path(path), *want, "{path}");
    }
    assert!(Shape::SUPPORTED.contains("/v1/messages") && Shape::SUPPORTED.contains("alt=sse"));
}

#[test]
fn gemini_needs_alt_sse() {
    let g = Shape::GeminiGenerate;
    assert!(g.check_query(GEMINI).is_ok());
    assert!(
        g.check_query("/m/g:streamGenerateContent?key=k&alt=sse")
            .is_ok()
    );
    assert!(
        g.check_query("/m/g:streamGenerateContent?alt=sse#f")
            .is_ok()
    );
    for bad in [
        "/m/g:streamGenerateContent",
        "/m/g:streamGenerateContent?alt=json",
        "/m/g:streamGenerateContent?xalt=sse",
    ] {
        let msg = g.check_query(bad).unwrap_err();
        assert!(
            msg.contains("alt=sse") && msg.contains("JSON array"),
            "{msg}"
        );
    }
    assert!(Shape::AnthropicMessages.check_query("/v1/messages").is_ok());
    assert!(
        Shape::OpenAiChat
            .check_query("/v1/chat/completions")
            .is_ok()
    );
}

fn completion(json: &str) -> Completion {
    let script =
        MockScript::from_json_str(&format!(r#"{{"steps": [{{"completion": {json}}}]}}"#)).unwrap();
    script.steps[0].completion.clone().unwrap()
}

#[test]
fn render_refuses_what_a_shape_cannot_send() {
    let ctx = RenderCtx {
        step: 3,
        ..RenderCtx::default()
    };
    let thinking = completion(r#"{"thinking": ["hmm"], "text": ["x"]}"#);
    for shape in [Shape::OpenAiChat, Shape::GeminiGenerate] {
        let msg = shape.render(&thinking, None, &ctx).err().unwrap();
        assert!(
            msg.contains("thinking") && msg.contains(shape.name()) && msg.contains("/v1/messages"),
            "{msg}"
        );
    }
    assert!(
        Shape::AnthropicMessages
            .render(&thinking, None, &ctx)
            .is_ok()
    );

    let plain = completion(r#"{"text": ["x"]}"#);
    for shape in [Shape::AnthropicMessages, Shape::GeminiGenerate] {
        let msg = shape.render(&plain, Some(true), &ctx).err().unwrap();
        assert!(
            msg.contains("done: true") && msg.contains("only OpenAI"),
            "{msg}"
        );
        assert!(!shape.render(&plain, Some(false), &ctx).unwrap().1);
        assert!(
            !shape.render(&plain, None, &ctx).unwrap().1,
            "no [DONE] by default"
        );
    }
    assert!(Shape::OpenAiChat.render(&plain, None, &ctx).unwrap().1);
    assert!(
        !Shape::OpenAiChat
            .render(&plain, Some(false), &ctx)
            .unwrap()
            .1
    );

    // Gemini sends whole arguments as an object, so they must parse as one.
    let bad = completion(r#"{"tool_calls": [{"id": "a", "name": "f", "arguments": ["{\"x\":"]}]}"#);
    let msg = Shape::GeminiGenerate
        .render(&bad, None, &ctx)
        .err()
        .unwrap();
    assert!(
        msg.contains("tool_calls[0]") && msg.contains("not JSON") && msg.contains("events"),
        "{msg}"
    );
    let array = completion(
        r#"{"tool_calls": [{"id": "a", "name": "f"}, {"id": "b", "name": "g", "arguments": ["[1]"]}]}"#,
    );
    let msg = Shape::GeminiGenerate
        .render(&array, None, &ctx)
        .err()
        .unwrap();
    assert!(
        msg.contains("tool_calls[1]") && msg.contains("not a JSON object"),
        "{msg}"
    );
    // Other shapes send argument text as is: malformed arguments are a fault worth scripting.
    assert!(Shape::OpenAiChat.render(&bad, None, &ctx).is_ok());
    assert!(Shape::AnthropicMessages.render(&bad, None, &ctx).is_ok());
}

#[test]
fn usage_total_defaults_to_the_sum_without_overflow() {
    let u = |p, c, t| Usage {
        prompt_tokens: p,
        completion_tokens: c,
        total_tokens: t,
    };
    assert_eq!(u(3, 4, None).total(), 7);
    assert_eq!(u(3, 4, Some(9)).total(), 9);
    assert_eq!(u(u64::MAX, 1, None).total(), u64::MAX);
}

#[tokio::test]
async fn anthropic_renders_messages_events() {
    let server = start(
        r#"{"steps": [{"completion": {"thinking": ["Let me ", "think."], "text": ["Hel", "lo"],
            "tool_calls": [{"id": "toolu_1", "name": "read", "arguments": ["{\"a\"", ":1}"]},
                           {"id": "toolu_2", "name": "list"}],
            "finish": "tool_calls", "model": "claude-test",
            "usage": {"prompt_tokens": 7, "completion_tokens": 3}}}]}"#,
    )
    .await;
    let (status, events) = stream(&server, MESSAGES).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(
        names(&events),
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    // Every event names its data's `type`, as the real API does.
    for (name, data) in &events {
        assert_eq!(data["type"].as_str(), name.as_deref());
    }
    let start = &events[0].1["message"];
    assert_eq!(
        (
            &start["id"],
            &start["model"],
            &start["role"],
            &start["content"],
            &start["stop_reason"]
        ),
        (
            &json!("msg_mock_0"),
            &json!("claude-test"),
            &json!("assistant"),
            &json!([]),
            &Value::Null
        )
    );
    assert_eq!(
        start["usage"],
        json!({"input_tokens": 7, "output_tokens": 0})
    );

    // The blocks, in order: thinking (signed), text, each tool call.
    let blocks: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n.as_deref() == Some("content_block_start"))
        .map(|(_, d)| d)
        .collect();
    for (i, b) in blocks.iter().enumerate() {
        assert_eq!(b["index"], i);
    }
    assert_eq!(
        blocks[0]["content_block"],
        json!({"type": "thinking", "thinking": ""})
    );
    assert_eq!(
        blocks[1]["content_block"],
        json!({"type": "text", "text": ""})
    );
    assert_eq!(
        blocks[2]["content_block"],
        json!({"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}})
    );
    assert_eq!(
        blocks[3]["content_block"],
        json!({"type": "tool_use", "id": "toolu_2", "name": "list", "input": {}})
    );
    let deltas = |index: u64, kind: &str, field: &str| -> String {
        events
            .iter()
            .map(|(_, d)| d)
            .filter(|d| {
                d["type"] == "content_block_delta"
                    && d["index"] == index
                    && d["delta"]["type"] == kind
            })
            .map(|d| d["delta"][field].as_str().unwrap())
            .collect()
    };
    assert_eq!(deltas(0, "thinking_delta", "thinking"), "Let me think.");
    assert_eq!(
        deltas(0, "signature_delta", "signature"),
        "mock-signature-0"
    );
    assert_eq!(deltas(1, "text_delta", "text"), "Hello");
    assert_eq!(deltas(2, "input_json_delta", "partial_json"), r#"{"a":1}"#);
    assert_eq!(deltas(3, "input_json_delta", "partial_json"), "");
    // Every stop closes the block just opened.
    let stops: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n.as_deref() == Some("content_block_stop"))
        .map(|(_, d)| &d["index"])
        .collect();
    assert_eq!(stops, [0, 1, 2, 3]);
    assert_eq!(
        events[events.len() - 2].1,
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
               "usage": {"output_tokens": 3}})
    );
    assert_eq!(server.requests()[0].shape, Some(Shape::AnthropicMessages));
}

#[tokio::test]
async fn anthropic_maps_every_finish() {
    let server = start(
        r#"{"steps": [{"completion": {"text": ["a"]}}, {"completion": {"text": ["a"], "finish": "length"}},
                      {"completion": {"finish": "content_filter"}}, {"completion": {"text": [], "finish": "stop"}, "done": false}]}"#,
    )
    .await;
    for want in ["end_turn", "max_tokens", "refusal", "end_turn"] {
        let (_, events) = stream(&server, MESSAGES).await;
        let (name, delta) = &events[events.len() - 2];
        assert_eq!(name.as_deref(), Some("message_delta"));
        assert_eq!(delta["delta"]["stop_reason"], want);
        // Without `usage` the counts are 0, since the real API always sends them.
        assert_eq!(delta["usage"]["output_tokens"], 0);
        assert_eq!(events[0].1["message"]["usage"]["input_tokens"], 0);
        assert_eq!(events.last().unwrap().0.as_deref(), Some("message_stop"));
    }
}

#[tokio::test]
async fn anthropic_empty_and_truncated_streams() {
    let server = start(
        r#"{"steps": [{"completion": {"text": []}},
                      {"completion": {"text": ["Once", " upon"], "finish": null, "usage": {"prompt_tokens": 4, "completion_tokens": 2}}}]}"#,
    )
    .await;
    let (_, events) = stream(&server, MESSAGES).await;
    assert_eq!(
        names(&events),
        ["message_start", "ping", "message_delta", "message_stop"]
    );

    // finish: null ends after the last block: no message_delta, no message_stop, a clean close.
    let (_, events) = stream(&server, MESSAGES).await;
    assert_eq!(
        names(&events),
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop"
        ]
    );
    assert_eq!(events[0].1["message"]["usage"]["input_tokens"], 4);
}

#[tokio::test]
async fn anthropic_events_arrive_with_their_delays() {
    let server =
        start(r#"{"steps": [{"completion": {"text": ["a", "b"], "delay_ms": 25}}]}"#).await;
    let started = Instant::now();
    let mut s = send(&server, MESSAGES, "{}").await;
    let mut first = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&first).contains("text_delta") {
        let n = s.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed early");
        first.extend_from_slice(&buf[..n]);
    }
    let (rest, end) = read_all(s).await;
    end.unwrap();
    let total = started.elapsed();
    let rest = String::from_utf8(rest).unwrap();
    assert!(
        rest.starts_with("event: content_block_delta\n") && rest.contains("\"text\":\"b\""),
        "the second piece comes later, on its own: {rest:?}"
    );
    // message_start, ping, block start, 2 deltas, block stop, message_delta, message_stop.
    assert!(
        total >= Duration::from_millis(8 * 25),
        "a delay before every event: {total:?}"
    );
}

#[tokio::test]
async fn gemini_renders_generate_content_chunks() {
    let server = start(
        r#"{"steps": [{"completion": {"text": ["Hel", "lo"], "finish": "tool_calls", "model": "gemini-test",
            "tool_calls": [{"id": "c1", "name": "weather", "arguments": ["{\"city\"", ":\"Paris\"}"]},
                           {"id": "c2", "name": "now", "arguments": [" "]}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 12}}}]}"#,
    )
    .await;
    let (status, events) = stream(&server, GEMINI).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(events.iter().all(|(n, _)| n.is_none()), "data lines only");
    let chunks: Vec<&Value> = events.iter().map(|(_, d)| d).collect();
    assert_eq!(chunks.len(), 3, "{chunks:?}");
    for c in &chunks {
        assert_eq!(c["modelVersion"], "gemini-test");
        assert_eq!(c["responseId"], "mock-response-0");
        assert_eq!(c["candidates"].as_array().unwrap().len(), 1);
        assert_eq!(c["candidates"][0]["index"], 0);
        assert_eq!(c["candidates"][0]["content"]["role"], "model");
    }
    assert_eq!(
        chunks[0]["candidates"][0]["content"]["parts"],
        json!([{"text": "Hel"}])
    );
    assert_eq!(
        chunks[1]["candidates"][0]["content"]["parts"],
        json!([{"text": "lo"}])
    );
    // Whole calls, one part each, arguments parsed; blank arguments are {}.
    assert_eq!(
        chunks[2]["candidates"][0]["content"]["parts"],
        json!([{"functionCall": {"name": "weather", "args": {"city": "Paris"}}},
               {"functionCall": {"name": "now", "args": {}}}])
    );
    // Only the last chunk finishes, and carries the usage; tool_calls is STOP in Gemini's words.
    assert!(
        chunks[..2]
            .iter()
            .all(|c| c["candidates"][0].get("finishReason").is_none()
                && c.get("usageMetadata").is_none())
    );
    assert_eq!(chunks[2]["candidates"][0]["finishReason"], "STOP");
    assert_eq!(
        chunks[2]["usageMetadata"],
        json!({"promptTokenCount": 7, "candidatesTokenCount": 3, "totalTokenCount": 12})
    );
    assert_eq!(server.requests()[0].shape, Some(Shape::GeminiGenerate));
}

#[tokio::test]
async fn gemini_maps_every_finish() {
    let server = start(
        r#"{"steps": [{"completion": {"text": ["a"]}}, {"completion": {"text": ["a"], "finish": "length"}},
                      {"completion": {"text": ["a"], "finish": "content_filter", "usage": {"prompt_tokens": 1, "completion_tokens": 2}}},
                      {"completion": {}}, {"completion": {"finish": "content_filter"}}]}"#,
    )
    .await;
    for want in ["STOP", "MAX_TOKENS", "SAFETY"] {
        let (_, events) = stream(&server, GEMINI).await;
        assert_eq!(
            events.len(),
            1,
            "the finish rides on the last content chunk"
        );
        let c = &events[0].1;
        assert_eq!(c["candidates"][0]["finishReason"], want);
        assert_eq!(
            c["candidates"][0]["content"]["parts"],
            json!([{"text": "a"}])
        );
        if want == "SAFETY" {
            assert_eq!(
                c["usageMetadata"]["totalTokenCount"], 3,
                "total defaults to the sum"
            );
        } else {
            assert!(c.get("usageMetadata").is_none(), "no usage unless scripted");
        }
    }
    // No content: one chunk, a candidate with a finish and no content (Gemini's empty answer).
    for want in ["STOP", "SAFETY"] {
        let (_, events) = stream(&server, GEMINI).await;
        assert_eq!(events.len(), 1);
        assert_eq!(
            events[0].1["candidates"][0],
            json!({"index": 0, "finishReason": want})
        );
    }
}

#[tokio::test]
async fn gemini_truncated_stream_has_no_finish() {
    let server = start(
        r#"{"steps": [{"completion": {"text": ["Once", " upon"], "finish": null, "usage": {"prompt_tokens": 4, "completion_tokens": 2}}},
                      {"completion": {"finish": null}}]}"#,
    )
    .await;
    let (_, events) = stream(&server, GEMINI).await;
    assert_eq!(events.len(), 2);
    for (_, c) in &events {
        assert!(
            c["candidates"][0].get("finishReason").is_none() && c.get("usageMetadata").is_none(),
            "{c}"
        );
    }
    let (text, end) = exchange(&server, GEMINI).await;
    end.unwrap();
    assert_eq!(split_response(&text).1, "", "nothing at all");
}

#[tokio::test]
async fn gemini_chunks_arrive_with_their_delays_through_reqwest() {
    let server =
        start(r#"{"steps": [{"completion": {"text": ["a", "b", "c"], "delay_ms": 40}}]}"#).await;
    let started = Instant::now();
    let mut resp = reqwest::Client::new()
        .post(format!("http://{}{GEMINI}", server.addr()))
        .header("x-goog-api-key", "k")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut arrivals = Vec::new();
    let mut body = Vec::new();
    while let Some(bytes) = resp.chunk().await.unwrap() {
        arrivals.push(started.elapsed());
        body.extend_from_slice(&bytes);
    }
    let body = String::from_utf8(body).unwrap();
    let text: String = sse_data(&body)
        .iter()
        .map(|d| serde_json::from_str::<Value>(d).unwrap()["candidates"][0]["content"]["parts"][0]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "abc");
    assert!(arrivals.len() >= 3, "one read per chunk: {arrivals:?}");
    let last = *arrivals.last().unwrap();
    assert!(
        last >= Duration::from_millis(120),
        "a delay before every chunk: {last:?}"
    );
    assert!(
        last - arrivals[0] >= Duration::from_millis(60),
        "streamed, not sent at once: {arrivals:?}"
    );
    let r = &server.requests()[0];
    assert_eq!(
        (r.path.as_str(), r.header("x-goog-api-key")),
        (GEMINI, Some("k"))
    );
}

#[tokio::test]
async fn unrenderable_completions_are_refused_at_request_time() {
    let server = start(
        r#"{"steps": [
            {"completion": {"text": ["x"]}},
            {"completion": {"thinking": ["hmm"], "text": ["x"]}},
            {"completion": {"text": ["x"]}, "done": true},
            {"completion": {"tool_calls": [{"id": "a", "name": "f", "arguments": ["{oops"]}]}},
            {"completion": {"text": ["x"]}},
            {"body": "raw"}
        ]}"#,
    )
    .await;
    let (status, kind, msg) = error(&server, "/v1beta/models/g:streamGenerateContent").await;
    assert!(status.starts_with("HTTP/1.1 400 "), "{status}");
    assert_eq!(kind, "mock_bad_request");
    assert!(msg.contains("steps[0]") && msg.contains("alt=sse"), "{msg}");

    let (status, kind, msg) = error(&server, "/v1/chat/completions").await;
    assert!(status.starts_with("HTTP/1.1 500 "), "{status}");
    assert_eq!(kind, "mock_script_error");
    assert!(
        msg.contains("steps[1]") && msg.contains("thinking"),
        "{msg}"
    );

    let (_, kind, msg) = error(&server, MESSAGES).await;
    assert_eq!(kind, "mock_script_error");
    assert!(
        msg.contains("steps[2]") && msg.contains("Anthropic Messages never sends"),
        "{msg}"
    );

    let (_, kind, msg) = error(&server, GEMINI).await;
    assert_eq!(kind, "mock_script_error");
    assert!(msg.contains("steps[3]: completion.tool_calls[0]"), "{msg}");

    let (status, kind, msg) = error(&server, "/v1beta/models/g:generateContent").await;
    assert!(status.starts_with("HTTP/1.1 404 "), "{status}");
    assert_eq!(kind, "mock_no_shape");
    assert!(
        msg.contains("steps[4] is a completion") && msg.contains(Shape::SUPPORTED),
        "{msg}"
    );

    // A raw step answers any path, and records no shape.
    let (text, _) = exchange(&server, MESSAGES).await;
    assert!(text.ends_with("\r\n\r\nraw"));
    let shapes: Vec<_> = server.requests().iter().map(|r| r.shape).collect();
    assert_eq!(
        shapes,
        [
            Some(Shape::GeminiGenerate),
            Some(Shape::OpenAiChat),
            Some(Shape::AnthropicMessages),
            Some(Shape::GeminiGenerate),
            None,
            None
        ]
    );
}

/// The rendered examples in `docs/mock-script.md` are what the mock sends, byte for byte.
#[test]
fn docs_examples_match_the_renderer() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/mock-script.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let ctx = RenderCtx::default();
    for (marker, shape) in [
        ("is sent to `.../v1/messages` as:", Shape::AnthropicMessages),
        (
            "is sent to `.../models/gemini-2.5-flash:streamGenerateContent?alt=sse` as:",
            Shape::GeminiGenerate,
        ),
    ] {
        let (before, after) = doc
            .split_once(marker)
            .unwrap_or_else(|| panic!("{marker} is gone"));
        let step = before
            .rsplit("```json\n")
            .next()
            .unwrap()
            .split("```")
            .next()
            .unwrap();
        let shown = after.split("```\n").nth(1).unwrap();
        let step: Step = serde_json::from_str(step).unwrap();
        let (events, done) = shape
            .render(step.completion.as_ref().unwrap(), step.done, &ctx)
            .unwrap();
        assert!(!done);
        let sent: Vec<u8> = events.flat_map(|e| e.to_bytes()).collect();
        assert_eq!(shown, String::from_utf8(sent).unwrap(), "{marker}");
    }
}
