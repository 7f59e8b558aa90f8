//! The decode benchmark's native side: the adapters' plain libraries decoding a stream, as the host
//! would feed their components. Shared by the sandbox benchmark (a cross-check against the Wasm
//! path, compiled with the host's release profile) and `tests/decode-native` (the baseline of
//! BENCHMARKS.md section 1, compiled with the guests' profile and flags).

fn sse_head() -> Vec<(String, String)> {
    vec![("content-type".into(), "text/event-stream".into())]
}

/// Decodes a whole stream natively; returns the number of text chunks.
pub fn decode_openai(reads: &[&[u8]]) -> usize {
    use dsh_guest_openai::types::{Chunk, ResponseHead};
    let mut d = dsh_guest_openai::Decoder::new(ResponseHead {
        status: 200,
        headers: sse_head(),
        received_at_ms: 0,
    });
    let mut texts = 0;
    for read in reads {
        texts += d
            .feed(read)
            .iter()
            .filter(|c| matches!(c, Chunk::Text(_)))
            .count();
    }
    texts
        + d.end()
            .iter()
            .filter(|c| matches!(c, Chunk::Text(_)))
            .count()
}

/// Decodes a whole stream natively; returns the number of text chunks.
pub fn decode_anthropic(reads: &[&[u8]]) -> usize {
    use dsh_guest_anthropic::types::{Chunk, ResponseHead};
    let mut d = dsh_guest_anthropic::Decoder::new(ResponseHead {
        status: 200,
        headers: sse_head(),
        received_at_ms: 0,
    });
    let mut texts = 0;
    for read in reads {
        texts += d
            .feed(read)
            .iter()
            .filter(|c| matches!(c, Chunk::Text(_)))
            .count();
    }
    texts
        + d.end()
            .iter()
            .filter(|c| matches!(c, Chunk::Text(_)))
            .count()
}
