//! Recorded-shape provider streams for the benchmarks: 10,000 events each, cut into network-read
//! sized pieces (the decoder is fed whole reads, not single events, as the host does).

/// Bytes per simulated network read.
pub const READ_BYTES: usize = 16 * 1024;
pub const EVENTS: usize = 10_000;

/// An OpenAI chat-completions stream: role chunk, EVENTS-2 content chunks, finish, usage, [DONE].
pub fn openai() -> Vec<u8> {
    let mut s = String::new();
    let chunk = |delta: &str, finish: &str| {
        format!(
            "data: {{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1764000000,\"model\":\"gpt-4o-mini-2024-07-18\",\"system_fingerprint\":\"fp_bench\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}]}}\n\n"
        )
    };
    s.push_str(&chunk(r#"{"role":"assistant","content":""}"#, "null"));
    for i in 0..EVENTS - 2 {
        s.push_str(&chunk(&format!(r#"{{"content":"word{i} "}}"#), "null"));
    }
    s.push_str(&chunk("{}", r#""stop""#));
    s.push_str("data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1764000000,\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":9998,\"total_tokens\":10010}}\n\n");
    s.push_str("data: [DONE]\n\n");
    s.into_bytes()
}

/// An Anthropic Messages stream: message_start, a text block with EVENTS-5 deltas, message_delta,
/// message_stop.
pub fn anthropic() -> Vec<u8> {
    let mut s = String::new();
    s.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n");
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    for i in 0..EVENTS - 5 {
        s.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"word{i} \"}}}}\n\n"
        ));
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9995}}\n\n");
    s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s.into_bytes()
}

pub fn reads(stream: &[u8]) -> Vec<&[u8]> {
    stream.chunks(READ_BYTES).collect()
}

/// The OpenAI stream's size and framing, but every event is one the decoder parses and ignores
/// (no chunk crosses back): separates the guest's parsing from the cost of returning chunks.
pub fn openai_ignored() -> Vec<u8> {
    String::from_utf8(openai())
        .unwrap()
        .replace(
            "\"choices\":[{\"index\":0,\"delta\"",
            "\"choicez\":[{\"index\":0,\"delta\"",
        )
        .into_bytes()
}
