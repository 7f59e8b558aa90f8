//! Real-provider timing over loopback: keepalives, long slow streams, NDJSON and chunked framing,
//! dripping bodies and echoed requests, as a client's reads see them.
//!
//! Most tests run on paused tokio time: the server's sleeps then take no real time, and each
//! delayed write still reaches the client as its own read (the runtime delivers the socket's
//! readiness before it fires the next timer), so a 15 s keepalive phase or 2,500 spaced reads
//! cost milliseconds of CI.

use super::server_tests::{exchange, read_all, send, split_response, start};
use super::*;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

const CHAT: &str = "/v1/chat/completions";
const MESSAGES: &str = "/v1/messages";

/// One network read: when it returned (since the request was sent) and what it held.
struct Read {
    at: Duration,
    bytes: Vec<u8>,
}

impl Read {
    fn text(&self) -> &str {
        std::str::from_utf8(&self.bytes).unwrap()
    }
}

/// Every read of the answer until the server closes, the head being in the first ones.
async fn reads(mut s: TcpStream) -> Vec<Read> {
    let started = Instant::now();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = s.read(&mut buf).await.expect("a clean close");
        if n == 0 {
            return out;
        }
        out.push(Read {
            at: started.elapsed(),
            bytes: buf[..n].to_vec(),
        });
    }
}

/// The reads after the one that completes the head (which may hold the first undelayed bytes).
fn body_reads(all: &[Read]) -> &[Read] {
    let mut seen = Vec::new();
    for (i, r) in all.iter().enumerate() {
        seen.extend_from_slice(&r.bytes);
        if seen.windows(4).any(|w| w == b"\r\n\r\n") {
            return &all[i + 1..];
        }
    }
    panic!("no complete head")
}

fn joined(reads: &[Read]) -> String {
    reads.iter().map(Read::text).collect()
}

/// A request with these extra header lines.
async fn send_with(server: &MockServer, path: &str, headers: &str) -> TcpStream {
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    let req =
        format!("POST {path} HTTP/1.1\r\nHost: mock\r\n{headers}Content-Length: 2\r\n\r\n{{}}");
    s.write_all(req.as_bytes()).await.unwrap();
    s
}

/// The chunks of a `transfer-encoding: chunked` body, checking the framing byte for byte.
fn dechunk(mut body: &[u8]) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a size line");
        let size = usize::from_str_radix(std::str::from_utf8(&body[..line_end]).unwrap(), 16)
            .expect("a hex size");
        body = &body[line_end + 2..];
        if size == 0 {
            assert_eq!(body, b"\r\n", "the last chunk ends the body");
            return chunks;
        }
        chunks.push(body[..size].to_vec());
        assert_eq!(&body[size..size + 2], b"\r\n", "a chunk ends with CRLF");
        body = &body[size + 2..];
    }
}

// ---- SSE comments and keepalives -----------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn keepalive_comments_and_pings_go_out_one_read_each() {
    let server = start(
        r#"{"steps": [{"events": [
            {"data": "a"},
            {"sse_comment": "keepalive", "delay_ms": 100, "repeat": 150},
            {"event": "ping", "data": {"type": "ping"}, "delay_ms": 100, "repeat": 2},
            {"data": "b", "delay_ms": 100}
        ]}]}"#,
    )
    .await;
    let all = reads(send(&server, CHAT, "{}").await).await;
    let text = joined(&all);
    let (head, body) = split_response(&text);
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    let ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n";
    assert_eq!(
        body,
        format!(
            "data: a\n\n{}{}data: b\n\n",
            ": keepalive\n\n".repeat(150),
            ping.repeat(2)
        )
    );
    // Each delayed entry is its own read, 100 ms after the one before: 15 s of keepalives.
    let delayed: Vec<&Read> = all
        .iter()
        .skip_while(|r| !r.text().contains("data: a"))
        .skip(1)
        .collect();
    assert_eq!(delayed.len(), 153, "one read per keepalive, ping and event");
    let expected = std::iter::repeat_n(": keepalive\n\n", 150)
        .chain(std::iter::repeat_n(ping, 2))
        .chain(["data: b\n\n"]);
    let mut last = Duration::ZERO;
    for (r, want) in delayed.iter().zip(expected) {
        assert_eq!(r.text(), want);
        assert!(
            r.at >= last + Duration::from_millis(100),
            "{:?} after {last:?}",
            r.at
        );
        last = r.at;
    }
    assert!(last >= Duration::from_millis(15_300), "{last:?}");
}

#[tokio::test(start_paused = true)]
async fn completion_keepalives_go_where_they_are_placed() {
    let server = start(
        r#"{"steps": [
            {"completion": {"text": ["Hi"],
                            "keepalive": {"event": "ping", "data": {"type": "ping"}, "delay_ms": 100,
                                          "repeat": 150, "after_chunks": 2}}},
            {"completion": {"text": ["Hi"], "keepalive": {"sse_comment": "OPENROUTER PROCESSING", "repeat": 3}}},
            {"completion": {"text": ["Hi"], "finish": null,
                            "keepalive": {"sse_comment": "k", "delay_ms": 10, "repeat": 2, "after_chunks": 99}}}
        ]}"#,
    )
    .await;
    // Anthropic: message_start, its ping, then 15 s of pings before the first content block.
    let started = Instant::now();
    let (text, end) = exchange(&server, MESSAGES).await;
    end.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(15));
    let names: Vec<&str> = split_response(&text)
        .1
        .split("\n\n")
        .filter_map(|ev| ev.strip_prefix("event: "))
        .map(|ev| ev.lines().next().unwrap())
        .collect();
    assert_eq!(names[..2], ["message_start", "ping"]);
    assert!(names[2..152].iter().all(|n| *n == "ping"), "{names:?}");
    // Then the text block (start, delta, stop), message_delta and message_stop.
    assert_eq!(names[152], "content_block_start");
    assert_eq!(names.len(), 152 + 5);

    // OpenAI: comments right after the head (as OpenRouter sends them), before any chunk.
    let (text, _) = exchange(&server, CHAT).await;
    let body = split_response(&text).1;
    assert!(
        body.starts_with(&": OPENROUTER PROCESSING\n\n".repeat(3))
            && body[3 * 25..].starts_with("data: {"),
        "{body}"
    );
    assert!(body.ends_with("data: [DONE]\n\n"));

    // Past the last chunk: after it, before [DONE] (here a stream that then ends unfinished).
    let (text, _) = exchange(&server, CHAT).await;
    let body = split_response(&text).1;
    assert!(body.ends_with(": k\n\n: k\n\ndata: [DONE]\n\n"), "{body}");
    assert!(!body.contains("finish_reason\":\""), "{body}");
}

// ---- long slow streams ----------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_long_slow_completion_arrives_one_read_per_piece() {
    const PIECES: usize = 2_500;
    let server = start(&format!(
        r#"{{"steps": [{{"completion": {{"text": ["Once"], "repeat": {{"text": "tok ", "count": {}}},
                                        "delay_ms": 4}}}}]}}"#,
        PIECES - 1
    ))
    .await;
    let all = reads(send(&server, CHAT, "{}").await).await;
    let body = body_reads(&all);
    // The role chunk, every text piece, then the finish chunk with [DONE] (which has no delay of
    // its own, so it goes out with the chunk before it).
    assert_eq!(body.len(), 1 + PIECES + 1);
    let mut text = String::new();
    for r in &body[1..=PIECES] {
        let events: Vec<&str> = r.text().split_terminator("\n\n").collect();
        assert_eq!(events.len(), 1, "one piece per read: {:?}", r.text());
        let chunk: Value = serde_json::from_str(events[0].strip_prefix("data: ").unwrap()).unwrap();
        text.push_str(chunk["choices"][0]["delta"]["content"].as_str().unwrap());
    }
    assert_eq!(text, format!("Once{}", "tok ".repeat(PIECES - 1)));
    assert!(body.last().unwrap().text().ends_with("data: [DONE]\n\n"));
    for pair in body.windows(2) {
        assert!(pair[1].at >= pair[0].at + Duration::from_millis(4));
    }
}

/// A trillion pieces: generated as they go out, or this would never answer. The client reads
/// 256 KiB and leaves; the server must notice and go on serving.
#[tokio::test]
async fn repeats_are_generated_as_they_go_out() {
    let server = start(
        r#"{"steps": [
            {"completion": {"repeat": {"text": "tok ", "count": 1000000000000}}},
            {"events": [{"sse_comment": "keepalive", "repeat": 1000000000000}]},
            {"lines": [{"data": {"x": 1}, "repeat": 1000000000000}], "chunked": true},
            {"body": "still serving"}
        ]}"#,
    )
    .await;
    for path in [CHAT, CHAT, "/api/chat"] {
        let mut s = send(&server, path, "{}").await;
        let mut got = 0;
        let mut buf = vec![0u8; 64 * 1024];
        // A guard against a hang, not a measure of speed.
        tokio::time::timeout(Duration::from_secs(30), async {
            while got < 256 * 1024 {
                let n = s.read(&mut buf).await.unwrap();
                assert!(n > 0, "the stream ended early");
                got += n;
            }
        })
        .await
        .expect("the first 256 KiB arrive");
    }
    let (text, _) = exchange(&server, CHAT).await;
    assert!(text.ends_with("still serving"), "{text}");
}

// ---- NDJSON and chunked framing -------------------------------------------------------------------

const OLLAMA_LINES: &str = r#"{"steps": [{"chunked": true, "lines": [
    {"data": {"model": "llama3.2", "message": {"role": "assistant", "content": "Hel"}, "done": false}, "delay_ms": 20},
    {"data": {"model": "llama3.2", "message": {"role": "assistant", "content": "lo"}, "done": false}, "delay_ms": 20},
    {"data": {"model": "llama3.2", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"}, "delay_ms": 20}
]}]}"#;

#[tokio::test(start_paused = true)]
async fn ndjson_lines_go_out_one_chunk_and_one_read_each() {
    let server = start(OLLAMA_LINES).await;
    let all = reads(send(&server, "/api/chat", "{}").await).await;
    let text = joined(&all);
    let (head, body) = split_response(&text);
    assert!(
        head.contains("transfer-encoding: chunked")
            && head.contains("content-type: application/x-ndjson")
            && !head.contains("content-length"),
        "{head}"
    );
    let lines: Vec<Value> = dechunk(body.as_bytes())
        .iter()
        .map(|c| {
            let line = std::str::from_utf8(c).unwrap();
            assert!(
                line.ends_with('\n') && line.matches('\n').count() == 1,
                "one line per chunk: {line:?}"
            );
            serde_json::from_str(line).unwrap()
        })
        .collect();
    let content: String = lines
        .iter()
        .map(|l| l["message"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(content, "Hello");
    assert_eq!(lines[2]["done_reason"], "stop");
    // Each delayed line is its own read; the last chunk goes out with the last line.
    let body = body_reads(&all);
    assert_eq!(body.len(), 3);
    assert!(body[2].text().ends_with("\r\n0\r\n\r\n"));
    assert!(body[1].at >= body[0].at + Duration::from_millis(20));
}

#[tokio::test]
async fn a_real_client_reads_chunked_ndjson_line_by_line() {
    let server = start(OLLAMA_LINES).await;
    let mut resp = reqwest::Client::new()
        .post(format!("http://{}/api/chat", server.addr()))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["transfer-encoding"], "chunked");
    let mut pieces = Vec::new();
    while let Some(chunk) = resp.chunk().await.unwrap() {
        pieces.push(String::from_utf8(chunk.to_vec()).unwrap());
    }
    assert_eq!(pieces.len(), 3, "{pieces:?}");
    assert!(pieces.iter().all(|p| p.ends_with("}\n")), "{pieces:?}");
}

#[tokio::test]
async fn chunked_frames_every_kind_of_body() {
    let server = start(
        r#"{"steps": [
            {"events": [{"data": "a"}, {"sse_comment": "k"}, {"data": "b"}], "done": true, "chunked": true},
            {"body": "hello", "chunked": true},
            {"chunked": true},
            {"body": "hello", "chunked": true, "reset_after_bytes": 1000}
        ]}"#,
    )
    .await;
    // Undelayed pieces still go out in one write, but each is its own chunk.
    let (text, end) = exchange(&server, CHAT).await;
    end.unwrap();
    let (head, body) = split_response(&text);
    assert!(head.contains("transfer-encoding: chunked") && head.contains("text/event-stream"));
    assert_eq!(
        body,
        "9\r\ndata: a\n\n\r\n5\r\n: k\n\n\r\n9\r\ndata: b\n\n\r\ne\r\ndata: [DONE]\n\n\r\n0\r\n\r\n"
    );
    let (text, _) = exchange(&server, CHAT).await;
    let (head, body) = split_response(&text);
    assert!(
        !head.contains("content-length") && !head.contains("content-type"),
        "{head}"
    );
    assert_eq!(body, "5\r\nhello\r\n0\r\n\r\n");
    let (text, _) = exchange(&server, CHAT).await;
    assert_eq!(
        split_response(&text).1,
        "0\r\n\r\n",
        "an empty body is the last chunk alone"
    );
    // Byte positions count the framing: past the end means the whole body, last chunk included.
    let (bytes, end) = read_all(send(&server, CHAT, "{}").await).await;
    assert!(bytes.ends_with(b"5\r\nhello\r\n0\r\n\r\n"));
    assert_eq!(end.unwrap_err().kind(), std::io::ErrorKind::ConnectionReset);
}

// ---- dripping bodies ------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn an_error_body_drips_one_byte_per_read() {
    let body = r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}"#;
    let server = start(&format!(
        r#"{{"steps": [{{"status": 401, "headers": {{"content-type": "application/json"}},
                       "body": {}, "drip": {{"bytes": 1, "every_ms": 100}}}}]}}"#,
        json!(body)
    ))
    .await;
    let all = reads(send(&server, CHAT, "{}").await).await;
    // The head comes at once, and alone: the first byte of the body waits for its pause.
    assert!(all[0].text().starts_with("HTTP/1.1 401 ") && all[0].text().ends_with("\r\n\r\n"));
    assert!(
        all[0]
            .text()
            .contains(&format!("content-length: {}", body.len()))
    );
    let drips = &all[1..];
    assert_eq!(drips.len(), body.len(), "one byte per read");
    assert!(drips.iter().all(|r| r.bytes.len() == 1));
    assert_eq!(joined(drips), body);
    assert!(drips.last().unwrap().at >= Duration::from_millis(100 * body.len() as u64));
}

#[tokio::test(start_paused = true)]
async fn drips_compose_with_chunks_stalls_and_event_delays() {
    let server = start(
        r#"{"steps": [
            {"body": "abcdef", "drip": {"bytes": 1, "every_ms": 100}, "stall_after_bytes": {"bytes": 3, "ms": 1000}},
            {"events": [{"data": "a"}, {"data": "b", "delay_ms": 500}], "chunked": true,
             "drip": {"bytes": 4, "every_ms": 10}}
        ]}"#,
    )
    .await;
    let all = reads(send(&server, CHAT, "{}").await).await;
    let drips = body_reads(&all);
    let at: Vec<u64> = drips
        .iter()
        .map(|r| r.at.as_millis() as u64 / 100)
        .collect();
    assert_eq!(joined(drips), "abcdef");
    // Bytes 1 to 3 every 100 ms, the stall, then bytes 4 to 6 every 100 ms.
    assert_eq!(at, [1, 2, 3, 14, 15, 16]);

    let all = reads(send(&server, CHAT, "{}").await).await;
    let drips = body_reads(&all);
    assert!(drips.iter().all(|r| r.bytes.len() <= 4));
    let body = joined(drips);
    let chunks = dechunk(body.as_bytes());
    assert_eq!(chunks, [b"data: a\n\n".to_vec(), b"data: b\n\n".to_vec()]);
}

// ---- echoed requests ------------------------------------------------------------------------------

const KEY: &str = "sk-test-0123456789abcdef";

/// A provider that echoes the key in a 401 body, stalling in the middle of the key: the client
/// reads the key in two reads. The stall's byte counts the rendered body, key included.
#[tokio::test(start_paused = true)]
async fn an_echoed_key_can_be_split_across_two_reads() {
    let prefix = r#"{"error":{"message":"Incorrect API key provided: "#;
    let split = prefix.len() + 10;
    let server = start(&format!(
        r#"{{"steps": [{{"status": 401, "headers": {{"x-echo": "{{{{api_key}}}}"}},
            "body": {}, "stall_after_bytes": {{"bytes": {split}, "ms": 200}}}}]}}"#,
        json!(format!(
            r#"{prefix}{{{{api_key}}}}.","type":"invalid_request_error"}}}}"#
        ))
    ))
    .await;
    let all =
        reads(send_with(&server, CHAT, &format!("Authorization: Bearer {KEY}\r\n")).await).await;
    let text = joined(&all);
    let (head, body) = split_response(&text);
    let expected = format!(r#"{prefix}{KEY}.","type":"invalid_request_error"}}}}"#);
    assert_eq!(body, expected);
    assert!(
        head.contains(&format!("content-length: {}", expected.len())),
        "{head}"
    );
    assert!(head.contains(&format!("x-echo: {KEY}")), "{head}");
    assert_eq!(all.len(), 2, "the stall splits the answer in two reads");
    assert!(
        all[0]
            .text()
            .ends_with(&format!("provided: {}", &KEY[..10]))
    );
    assert!(all[1].text().starts_with(&KEY[10..]));
    assert!(all[1].at >= Duration::from_millis(200));
}

#[tokio::test]
async fn streams_echo_the_request_in_every_shape() {
    let server = start(
        r#"{"steps": [
            {"completion": {"text": ["Your key: ", "{{api_key}}"]}},
            {"completion": {"text": ["Key {{api_key}}"], "thinking": ["{{header:x-request-id}}"]}},
            {"events": [{"data": {"echo": "{{header:x-quoted}}", "all": "{{request.headers}}"}},
                        {"data": "raw {{header:x-request-id}}"}]},
            {"lines": [{"data": {"content": "{{api_key}}"}}, {"data": "{{request.headers}}"}]}
        ]}"#,
    )
    .await;
    let headers =
        format!("Authorization: Bearer {KEY}\r\nX-Request-Id: req-7\r\nX-Quoted: say \"hi\"\r\n");
    let (bytes, _) = read_all(send_with(&server, CHAT, &headers).await).await;
    let text = String::from_utf8(bytes).unwrap();
    let content: String = super::server_tests::sse_data(split_response(&text).1)
        .iter()
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|c| {
            c["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(content, format!("Your key: {KEY}"));

    let (bytes, _) = read_all(
        send_with(
            &server,
            MESSAGES,
            &format!("x-api-key: {KEY}\r\nX-Request-Id: req-7\r\n"),
        )
        .await,
    )
    .await;
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains(&format!(r#""text":"Key {KEY}""#)), "{text}");
    assert!(text.contains(r#""thinking":"req-7""#), "{text}");

    let (bytes, _) = read_all(send_with(&server, CHAT, &headers).await).await;
    let text = String::from_utf8(bytes).unwrap();
    let data = super::server_tests::sse_data(split_response(&text).1);
    let first: Value = serde_json::from_str(data[0]).unwrap();
    assert_eq!(first["echo"], "say \"hi\"", "escaped inside JSON data");
    let all: Value = serde_json::from_str(first["all"].as_str().unwrap()).unwrap();
    assert_eq!(all["authorization"], format!("Bearer {KEY}"));
    assert_eq!(data[1], "raw req-7");

    let (bytes, _) = read_all(send_with(&server, "/api/chat", &headers).await).await;
    let text = String::from_utf8(bytes).unwrap();
    let lines: Vec<Value> = split_response(&text)
        .1
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["content"], KEY);
    assert_eq!(lines[1]["x-request-id"], "req-7");
}

// ---- the docs -------------------------------------------------------------------------------------

/// The step in the ```json block just before `marker` in docs/mock-script.md, and the text after it.
fn doc_example(marker: &str) -> (String, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/mock-script.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let (before, after) = doc
        .split_once(marker)
        .unwrap_or_else(|| panic!("{marker} is gone"));
    let step = before.rsplit("```json\n").next().unwrap();
    let step = step.split("```").next().unwrap();
    (format!(r#"{{"steps": [{step}]}}"#), after.to_string())
}

/// The NDJSON example is what a client reads, chunk for chunk.
#[tokio::test(start_paused = true)]
async fn docs_ndjson_example_is_what_the_client_reads() {
    let (script, after) = doc_example("is sent as three reads");
    let shown = after.split("```\n").nth(1).unwrap();
    let server = start(&script).await;
    let all = reads(send(&server, "/api/chat", "{}").await).await;
    let text = joined(&all);
    let (head, body) = split_response(&text);
    let (shown_head, shown_body) = shown.split_once("\n\n").unwrap();
    assert_eq!(head.replace("\r\n", "\n"), shown_head);
    let chunks = dechunk(body.as_bytes());
    let mut expected = String::new();
    for chunk in &chunks {
        expected.push_str(&format!(
            "{:x}\n{}\n",
            chunk.len(),
            std::str::from_utf8(chunk).unwrap()
        ));
    }
    expected.push_str("0\n\n");
    assert_eq!(shown_body, expected);
    assert_eq!(body_reads(&all).len(), 3);
}

/// The echo example's stall falls 10 bytes into the key, as the docs say.
#[tokio::test(start_paused = true)]
async fn docs_echo_split_example_splits_the_key_after_ten_bytes() {
    // The block right after the sentence that describes it.
    let (_, after) = doc_example("so the client reads the first 10 bytes of the");
    let step = after
        .split("```json\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let script = format!(r#"{{"steps": [{step}]}}"#);
    let server = start(&script).await;
    let all =
        reads(send_with(&server, CHAT, &format!("Authorization: Bearer {KEY}\r\n")).await).await;
    assert_eq!(all.len(), 2);
    assert!(
        all[0]
            .text()
            .ends_with(&format!("provided: {}", &KEY[..10])),
        "{}",
        all[0].text()
    );
    assert!(all[1].text().starts_with(&KEY[10..]));
}
