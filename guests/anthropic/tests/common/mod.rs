//! Helpers shared by the integration tests: the shared ones from `dsh_guest_support::fixtures`,
//! the decoding helpers over this adapter's `Decoder`, and its SSE body format.
#![allow(
    dead_code,
    unused_imports,
    reason = "each test crate uses a different subset"
)]

pub use dsh_guest_support::fixtures::{
    finish_of, finishes, head, random_sizes, text_of, tool_deltas,
};

dsh_guest_support::decoding_helpers!(dsh_guest_anthropic::Decoder);

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
