//! The typed fast path (`content_block_delta` events) against the `serde_json::Value` path it
//! shortcuts: every stream must decode to the same chunks either way, and the events the fast
//! path must leave alone must be left alone.

mod common;

use common::{head, random_sizes};
use dsh_guest_anthropic::Decoder;
use dsh_guest_anthropic::decode::fast_path_takes;
use dsh_guest_anthropic::types::Chunk;

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

/// `(event name, data)` pairs into a stream that starts a text, a thinking and a tool block
/// (indices 0, 1, 2) first and ends with `message_stop`.
fn body(events: &[(&str, &str)]) -> String {
    let start = [
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#,
        ),
    ];
    let end = [
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    start
        .iter()
        .chain(events)
        .chain(&end)
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn same_both_ways(events: &[(&str, &str)]) -> Vec<Chunk> {
    let body = body(events);
    let bytes = body.as_bytes();
    let reference = run(bytes, &[], false);
    for sizes in [
        vec![],
        vec![1; bytes.len()],
        random_sizes(bytes.len(), 11, 40),
    ] {
        assert_eq!(run(bytes, &sizes, true), reference, "{body}");
    }
    reference
}

const D: &str = "content_block_delta";

const TYPED: &[(&str, &str)] = &[
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"plain ☃ é 😀"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"line\nnext \"quoted\" caf\u00e9 \ud83d\ude00 back\\slash"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hmm \u00e9\n"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"abc"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"is \u00e9\\n\"}"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"not a tool block"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"text in a thinking block"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"no block start"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":null}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"no index"}}"#,
    ),
    (
        "",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"no event name"}}"#,
    ),
];

const FALLBACK: &[(&str, &str)] = &[
    ("ping", r#"{"type":"ping"}"#),
    (
        D,
        r#"{"type":"content_block_delta","index":0.0,"delta":{"type":"text_delta","text":"float index"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"junk":"\udc00"}"#,
    ),
    (
        D,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"junk":-2E999}"#,
    ),
    (
        D,
        r#"{"index":0,"delta":{"type":"text_delta","text":"type from the event name"}}"#,
    ),
    (D, r#"{"type":"content_block_stop","index":0}"#),
];

#[test]
fn fast_path_takes_block_deltas_and_leaves_the_rest() {
    for (_, e) in TYPED {
        assert!(fast_path_takes(e), "not typed: {e}");
    }
    for (_, e) in FALLBACK {
        assert!(!fast_path_takes(e), "typed: {e}");
    }
}

#[test]
fn each_event_decodes_the_same_either_way() {
    for e in TYPED.iter().chain(FALLBACK) {
        same_both_ways(&[*e]);
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
            .any(|c| matches!(c, Chunk::Reasoning(t) if t == "hmm \u{e9}\n"))
    );
    assert!(
        chunks
            .iter()
            .any(|c| matches!(c, Chunk::ToolCall(t) if t.arguments == "is \u{e9}\\n\"}"))
    );
    same_both_ways(&[TYPED, FALLBACK].concat());
    same_both_ways(&[FALLBACK, TYPED].concat());
}
