//! The typed fast path (common `chat.completion.chunk` shapes) against the `serde_json::Value`
//! path it shortcuts: every event must decode to the same chunks either way, and the events the
//! fast path must leave alone (usage, errors, odd shapes) must be left alone.

mod common;

use common::{head, random_sizes};
use dsh_guest_openai::Decoder;
use dsh_guest_openai::decode::fast_path_takes;
use dsh_guest_openai::types::Chunk;

/// Decode `body` cut at `sizes`, with or without the fast path.
fn run(body: &[u8], sizes: &[usize], fast: bool) -> Vec<Chunk> {
    let head = head(200, &[("content-type", "text/event-stream")]);
    let mut d = if fast {
        Decoder::new(head)
    } else {
        Decoder::without_fast_path(head)
    };
    let mut out = Vec::new();
    let mut rest = body;
    for &n in sizes {
        let n = n.min(rest.len());
        out.extend(d.feed(&rest[..n]));
        rest = &rest[n..];
    }
    out.extend(d.feed(rest));
    out.extend(d.end());
    Chunk::join_adjacent_text(&mut out);
    out
}

fn body(events: &[&str]) -> String {
    let mut s: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    s.push_str("data: [DONE]\n\n");
    s
}

fn same_both_ways(events: &[&str]) -> Vec<Chunk> {
    let body = body(events);
    let bytes = body.as_bytes();
    let reference = run(bytes, &[], false);
    for sizes in [
        vec![],
        vec![1; bytes.len()],
        random_sizes(bytes.len(), 7, 40),
    ] {
        assert_eq!(run(bytes, &sizes, true), reference, "{body}");
    }
    reference
}

/// Plain chunks: the fast path takes them, and decodes them as the `Value` path does.
const TYPED: &[&str] = &[
    r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"line\nnext \"quoted\" caf\u00e9 \ud83d\ude00 back\\slash \/ \t"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"plain ☃ é 😀"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think \u00e9\n"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning":"other"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"not this"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning_content":null,"reasoning":"this"}}]}"#,
    r#"{"choices":[{"index":1,"delta":{"content":"second choice, ignored"}},{"delta":{"content":"no index is 0"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Par"}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"is \u00e9\\n\"}"}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","function":{"name":"f","arguments":null}},{"type":"function"}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":null,"finish_reason":""}],"usage":null}"#,
    r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
];

/// Events the fast path must hand to the `Value` path.
const FALLBACK: &[&str] = &[
    r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}"#,
    r#"{"choices":[{"index":0,"delta":{}}],"x_groq":{"usage":{"prompt_tokens":1}}}"#,
    r#"{"object":"error","choices":[],"message":"bad"}"#,
    r#"{"error":{"message":"overloaded","type":"server_error"},"choices":[]}"#,
    r#"{"type":"response.output_text.delta","delta":"x","choices":[]}"#,
    r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"parts"}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"function_call":{"name":"f","arguments":"{}"}}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"a":1}}}]}}]}"#,
    r#"{"choices":[{"index":0.0,"delta":{"content":"float index"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"x"}}],"junk":"\ud800"}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"x"}}],"junk":1e400}"#,
    r#"{"choices":null,"usage":null}"#,
];

#[test]
fn fast_path_takes_plain_chunks_and_leaves_the_rest() {
    for e in TYPED {
        assert!(fast_path_takes(e), "not typed: {e}");
    }
    for e in FALLBACK {
        assert!(!fast_path_takes(e), "typed: {e}");
    }
}

#[test]
fn each_event_decodes_the_same_either_way() {
    for e in TYPED.iter().chain(FALLBACK) {
        same_both_ways(&[e]);
    }
}

#[test]
fn streams_decode_the_same_either_way() {
    let chunks = same_both_ways(TYPED);
    assert!(
        chunks
            .iter()
            .any(|c| matches!(c, Chunk::Text(t) if t.contains("caf\u{e9} \u{1F600}")))
    );
    assert!(
        chunks
            .iter()
            .any(|c| matches!(c, Chunk::ToolCall(t) if t.arguments == "is \u{e9}\\n\"}"))
    );
    same_both_ways(&[TYPED, FALLBACK].concat());
    same_both_ways(&[FALLBACK, TYPED].concat());
    // An error finish from the fast path ends the stream as the `Value` path's does.
    same_both_ways(&[
        TYPED[1],
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}"#,
        TYPED[2],
    ]);
}

#[test]
fn values_the_fast_path_skips_are_read_as_strictly_as_the_value_path_reads_them() {
    // Nesting past serde_json's limit, under a key the fast path does not keep: rejected both ways.
    let deep = format!(
        r#"{{"choices":[{{"index":0,"delta":{{"content":"x"}}}}],"junk":{}{}}}"#,
        "[".repeat(130),
        "]".repeat(130)
    );
    assert!(!fast_path_takes(&deep));
    same_both_ways(&[&deep]);
    // Numbers with exponents, and long ones, that fit an f64: taken, and decoded the same.
    let numbers = format!(
        r#"{{"choices":[{{"index":0,"delta":{{"content":"x"}}}}],"junk":[1.5e3,-2E-7,{}]}}"#,
        "9".repeat(300)
    );
    assert!(fast_path_takes(&numbers));
    same_both_ways(&[&numbers]);
    // A control character inside a skipped string is an error both ways.
    let control =
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}],\"junk\":\"a\u{1}b\"}";
    assert!(!fast_path_takes(control));
    same_both_ways(&[control]);
}
