//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test crate uses a different subset")]

use dsh_guest_anthropic::Decoder;
use dsh_guest_anthropic::types::{Chunk, Finish, ResponseHead, ToolCallDelta};

pub fn head(status: u16, headers: &[(&str, &str)]) -> ResponseHead {
    ResponseHead {
        status,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        received_at_ms: 1_696_004_797_000,
    }
}

/// Feed `body` in one piece, then end.
pub fn decode(body: &str) -> Vec<Chunk> {
    decode_split(body.as_bytes(), &[body.len()])
}

/// Feed `body` cut at the given piece sizes (the rest in one last piece), then end.
pub fn decode_split(body: &[u8], sizes: &[usize]) -> Vec<Chunk> {
    decode_split_with(
        &head(200, &[("content-type", "text/event-stream")]),
        body,
        sizes,
    )
}

/// `decode_split` with the given response head.
pub fn decode_split_with(head: &ResponseHead, body: &[u8], sizes: &[usize]) -> Vec<Chunk> {
    let mut decoder = Decoder::new(head.clone());
    let mut out = Vec::new();
    let mut rest = body;
    for &size in sizes {
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        out.extend(decoder.feed(piece));
        rest = tail;
    }
    out.extend(decoder.feed(rest));
    out.extend(decoder.end());
    out
}

/// Piece sizes from a small deterministic generator (xorshift): random-looking, reproducible.
pub fn random_sizes(len: usize, seed: u64, max: usize) -> Vec<usize> {
    let mut state = seed.max(1);
    let mut sizes = Vec::new();
    let mut total = 0;
    while total < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let size = 1 + (state % max as u64) as usize;
        sizes.push(size);
        total += size;
    }
    sizes
}

/// Every way of cutting the body the fixture test uses: whole, 1-byte pieces, random pieces.
pub fn decode_all_ways(body: &str) -> Vec<(String, Vec<Chunk>)> {
    decode_all_ways_with(&head(200, &[("content-type", "text/event-stream")]), body)
}

/// `decode_all_ways` with the given response head.
pub fn decode_all_ways_with(head: &ResponseHead, body: &str) -> Vec<(String, Vec<Chunk>)> {
    let bytes = body.as_bytes();
    let mut runs = vec![
        ("whole".to_string(), decode_split_with(head, bytes, &[])),
        (
            "1-byte pieces".to_string(),
            decode_split_with(head, bytes, &vec![1; bytes.len()]),
        ),
    ];
    for seed in 1..=5u64 {
        let sizes = random_sizes(bytes.len(), seed * 7919, 17);
        runs.push((
            format!("random pieces (seed {seed})"),
            decode_split_with(head, bytes, &sizes),
        ));
    }
    runs
}

pub fn finishes(chunks: &[Chunk]) -> Vec<&Finish> {
    chunks
        .iter()
        .filter_map(|c| {
            if let Chunk::Finish(f) = c {
                Some(f)
            } else {
                None
            }
        })
        .collect()
}

pub fn text_of(chunks: &[Chunk]) -> String {
    chunks
        .iter()
        .filter_map(|c| {
            if let Chunk::Text(t) = c {
                Some(t.as_str())
            } else {
                None
            }
        })
        .collect()
}

/// SSE body from JSON payloads, each as `event: TYPE` (the payload's `type`) plus `data:`, as
/// Anthropic sends them.
pub fn sse(payloads: &[&str]) -> String {
    payloads
        .iter()
        .map(|p| {
            let v: serde_json::Value = serde_json::from_str(p).expect("test payloads are JSON");
            let name = v["type"].as_str().unwrap_or("message");
            format!(
                "event: {name}
data: {p}

"
            )
        })
        .collect()
}

pub fn tool_deltas(chunks: &[Chunk]) -> Vec<ToolCallDelta> {
    chunks
        .iter()
        .filter_map(|c| {
            if let Chunk::ToolCall(d) = c {
                Some(d.clone())
            } else {
                None
            }
        })
        .collect()
}
