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

dsh_guest_support::decoding_helpers!(dsh_guest_openai::Decoder);

/// SSE body from JSON payloads, ended with `[DONE]`.
pub fn sse(payloads: &[&str]) -> String {
    let mut body: String = payloads.iter().map(|p| format!("data: {p}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

/// The code of the failure that closes `chunks` (panics, naming the chunks, when none does).
pub fn failure_code(chunks: &[dsh_guest_openai::types::Chunk]) -> String {
    finish_of(chunks)
        .failure
        .unwrap_or_else(|| panic!("a failure: {chunks:?}"))
        .code
        .as_str()
        .to_string()
}
