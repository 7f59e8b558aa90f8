//! The server end to end over loopback: a raw TCP client where bytes and resets matter, reqwest
//! where the question is what a real HTTP client sees.

use super::*;
use serde_json::Value;
use std::io::ErrorKind;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub(super) async fn start(json: &str) -> MockServer {
    let script = MockScript::from_json_str(json).unwrap();
    MockServer::start(script, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

pub(super) async fn send(server: &MockServer, path: &str, body: &str) -> TcpStream {
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: mock\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    s
}

/// Everything the server sent, and how the connection ended: `Ok` for a clean EOF.
pub(super) async fn read_all(mut s: TcpStream) -> (Vec<u8>, std::io::Result<()>) {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf).await {
            Ok(0) => return (out, Ok(())),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Err(e)),
        }
    }
}

pub(super) async fn exchange(server: &MockServer, path: &str) -> (String, std::io::Result<()>) {
    let (bytes, end) = read_all(send(server, path, "{}").await).await;
    (String::from_utf8(bytes).unwrap(), end)
}

pub(super) fn split_response(text: &str) -> (&str, &str) {
    text.split_once("\r\n\r\n").expect("a complete head")
}

/// The `data:` payloads of an SSE body, in order.
pub(super) fn sse_data(body: &str) -> Vec<&str> {
    body.split("\n\n")
        .filter_map(|ev| ev.lines().find_map(|l| l.strip_prefix("data: ")))
        .collect()
}

const CHAT: &str = "/v1/chat/completions";

#[tokio::test]
async fn raw_step_is_sent_verbatim() {
    let server = start(
        r#"{"steps": [{"status": 429, "headers": {"retry-after": "2", "X-Request-Id": "req_1"},
                       "body": "{\"error\":{\"type\":\"rate_limit\"}}"}]}"#,
    )
    .await;
    let (text, end) = exchange(&server, CHAT).await;
    assert_eq!(
        text,
        "HTTP/1.1 429 Too Many Requests\r\nretry-after: 2\r\nX-Request-Id: req_1\r\ncontent-length: 31\r\n\
         connection: close\r\n\r\n{\"error\":{\"type\":\"rate_limit\"}}"
    );
    end.expect("a clean close");
    server.shutdown().await;
}

#[tokio::test]
async fn base64_body_and_own_content_length_are_kept() {
    // A Content-Length that lies (longer than the body) is a truncation fault a script may want.
    let server = start(r#"{"steps": [{"status": 200, "headers": {"Content-Length": "9"}, "body_base64": "/wA="}]}"#).await;
    let (bytes, _) = read_all(send(&server, CHAT, "").await).await;
    let expected = b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nconnection: close\r\n\r\n\xff\x00";
    assert_eq!(bytes, expected);
}

#[tokio::test]
async fn sse_events_arrive_with_their_delays() {
    let server = start(
        r#"{"steps": [{"events": [
            {"data": "first", "event": "ping"},
            {"data": {"a": [1, 2], "b": "x"}, "delay_ms": 40},
            {"data": "two\nlines", "delay_ms": 40}
        ]}, {"events": [{"data": "x"}], "done": true}]}"#,
    )
    .await;
    let started = Instant::now();
    let mut s = send(&server, CHAT, "{}").await;
    let mut first = Vec::new();
    let mut buf = [0u8; 4096];
    while !first.ends_with(b"data: first\n\n") {
        let n = s.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed early: {:?}", String::from_utf8_lossy(&first));
        first.extend_from_slice(&buf[..n]);
    }
    let (rest, end) = read_all(s).await;
    let total = started.elapsed();
    end.expect("a clean close");
    assert!(
        rest.starts_with(b"data: {"),
        "the second event comes later, on its own"
    );
    let text = String::from_utf8([first, rest].concat()).unwrap();
    let (head, body) = split_response(&text);
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    assert!(
        !head.contains("content-length"),
        "a stream is close-delimited: {head}"
    );
    assert_eq!(
        body,
        "event: ping\ndata: first\n\ndata: {\"a\":[1,2],\"b\":\"x\"}\n\ndata: two\ndata: lines\n\n"
    );
    assert!(
        total >= Duration::from_millis(80),
        "delays add up: {total:?}"
    );

    let (text, _) = exchange(&server, CHAT).await;
    assert_eq!(
        split_response(&text).1,
        "data: x\n\ndata: [DONE]\n\n",
        "done: true ends with [DONE]"
    );
}

#[tokio::test]
async fn completion_renders_openai_chunks() {
    let server = start(
        r#"{"steps": [{"completion": {"text": ["Hel", "lo"], "finish": "tool_calls", "delay_ms": 2,
            "usage": {"prompt_tokens": 7, "completion_tokens": 3},
            "tool_calls": [{"id": "call_1", "name": "read", "arguments": ["{\"a\"", ":1}"]}]}}]}"#,
    )
    .await;
    let (text, end) = exchange(&server, CHAT).await;
    end.unwrap();
    let data = sse_data(split_response(&text).1);
    assert_eq!(data.last(), Some(&"[DONE]"));
    let chunks: Vec<Value> = data[..data.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    for c in &chunks {
        assert_eq!(c["object"], "chat.completion.chunk");
        assert_eq!(c["id"], "chatcmpl-mock-0");
        assert_eq!(c["model"], "mock-model");
        assert!(c["created"].as_u64().unwrap() > 1_600_000_000);
    }
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let deltas: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"].get(0))
        .map(|ch| &ch["delta"])
        .collect();
    let content: String = deltas
        .iter()
        .filter_map(|d| d["content"].as_str())
        .collect();
    assert_eq!(content, "Hello");
    let calls: Vec<&Value> = deltas
        .iter()
        .filter_map(|d| d["tool_calls"].get(0))
        .collect();
    assert_eq!(
        (
            calls[0]["index"].as_u64(),
            &calls[0]["id"],
            &calls[0]["function"]["name"]
        ),
        (Some(0), &"call_1".into(), &"read".into())
    );
    let args: String = calls
        .iter()
        .map(|c| c["function"]["arguments"].as_str().unwrap())
        .collect();
    assert_eq!(args, r#"{"a":1}"#);
    // The finish chunk, then usage in its own chunk with no choices, as OpenAI sends them.
    let n = chunks.len();
    assert_eq!(chunks[n - 2]["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(chunks[n - 2]["choices"][0]["delta"], serde_json::json!({}));
    assert_eq!(chunks[n - 1]["choices"], serde_json::json!([]));
    assert_eq!(
        chunks[n - 1]["usage"],
        serde_json::json!({"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10})
    );
    assert!(
        chunks[..n - 2]
            .iter()
            .all(|c| c["choices"][0]["finish_reason"].is_null())
    );
}

#[tokio::test]
async fn completion_without_finish_is_a_truncated_stream() {
    let server =
        start(r#"{"steps": [{"completion": {"text": ["x"], "finish": null}, "done": false}]}"#)
            .await;
    let (text, _) = exchange(&server, CHAT).await;
    let data = sse_data(split_response(&text).1);
    assert_eq!(data.len(), 2, "role and content chunks only: {data:?}");
    assert!(!text.contains("finish_reason\":\"") && !text.contains("[DONE]"));
}

#[tokio::test]
async fn completion_on_an_unknown_path_says_so() {
    let server = start(r#"{"steps": [{"completion": {"text": ["x"]}}]}"#).await;
    let (text, _) = exchange(&server, "/v1/responses").await;
    assert!(text.starts_with("HTTP/1.1 404 "), "{text}");
    assert!(
        text.contains("steps[0] is a completion") && text.contains("/chat/completions"),
        "{text}"
    );
}

#[tokio::test]
async fn stall_before_headers_trips_a_client_timeout() {
    let server = start(r#"{"steps": [{"stall_before_headers_ms": 250, "body": "late"}]}"#).await;
    let mut s = send(&server, CHAT, "{}").await;
    let mut b = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(40), s.read(&mut b)).await;
    assert!(early.is_err(), "nothing arrives during the stall");
    let (bytes, end) = read_all(s).await;
    end.unwrap();
    assert!(
        String::from_utf8_lossy(&bytes).ends_with("late"),
        "the answer follows the stall"
    );

    // And what reqwest (the host's client) reports.
    let server = start(r#"{"steps": [{"stall_before_headers_ms": 5000}]}"#).await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_millis(40))
        .build()
        .unwrap();
    let err = client
        .post(format!("{}/chat/completions", server.base_url()))
        .send()
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
}

#[tokio::test]
async fn stall_after_bytes_pauses_mid_body() {
    let server = start(
        r#"{"steps": [{"body": "0123456789", "stall_after_bytes": {"bytes": 4, "ms": 250}}]}"#,
    )
    .await;
    let mut s = send(&server, CHAT, "{}").await;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !got.ends_with(b"\r\n\r\n0123") {
        let n = tokio::time::timeout(Duration::from_millis(500), s.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        got.extend_from_slice(&buf[..n]);
    }
    let stalled = tokio::time::timeout(Duration::from_millis(40), s.read(&mut buf)).await;
    assert!(stalled.is_err(), "byte 5 waits for the stall");
    let (rest, end) = read_all(s).await;
    end.unwrap();
    assert_eq!(rest, b"456789");
}

#[tokio::test]
async fn reset_before_headers_is_a_connection_reset() {
    let server =
        start(r#"{"steps": [{"reset": "before_headers"}, {"reset": "before_headers"}]}"#).await;
    let (bytes, end) = read_all(send(&server, CHAT, "{}").await).await;
    assert!(bytes.is_empty());
    assert_eq!(end.unwrap_err().kind(), ErrorKind::ConnectionReset);

    let err = reqwest::Client::new()
        .post(format!("{}/chat/completions", server.base_url()))
        .send()
        .await
        .unwrap_err();
    assert!(!err.is_timeout() && err.is_request(), "{err:?}");
}

#[tokio::test]
async fn reset_after_bytes_cuts_the_body_with_a_reset() {
    let server = start(
        r#"{"steps": [
            {"body": "0123456789", "reset_after_bytes": 4},
            {"events": [{"data": "a"}, {"data": "b", "delay_ms": 5}], "reset_after_bytes": 9},
            {"body": "short", "reset_after_bytes": 1000},
            {"body": "x", "reset_after_bytes": 0}
        ]}"#,
    )
    .await;
    let (bytes, end) = read_all(send(&server, CHAT, "").await).await;
    assert!(
        bytes.ends_with(b"\r\n\r\n0123"),
        "{:?}",
        String::from_utf8_lossy(&bytes)
    );
    assert_eq!(end.unwrap_err().kind(), ErrorKind::ConnectionReset);

    // reqwest sees the headers, then an error while reading the body, never a clean end.
    let resp = reqwest::Client::new()
        .post(format!("{}/chat/completions", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let err = resp.bytes().await.unwrap_err();
    assert!(err.is_body() || err.is_decode(), "{err:?}");

    // Past the end of the body: the whole body, then a reset instead of a FIN.
    let (bytes, end) = read_all(send(&server, CHAT, "").await).await;
    assert!(bytes.ends_with(b"short"));
    assert_eq!(end.unwrap_err().kind(), ErrorKind::ConnectionReset);

    // At byte 0: the head only.
    let (bytes, end) = read_all(send(&server, CHAT, "").await).await;
    assert!(bytes.ends_with(b"\r\n\r\n"));
    assert_eq!(end.unwrap_err().kind(), ErrorKind::ConnectionReset);
}

#[tokio::test]
async fn steps_are_served_in_order_then_exhausted() {
    let server = start(r#"{"steps": [{"body": "a"}, {"status": 503, "body": "b"}]}"#).await;
    let (one, _) = exchange(&server, CHAT).await;
    let (two, _) = exchange(&server, CHAT).await;
    let (three, end) = exchange(&server, CHAT).await;
    end.unwrap();
    assert!(one.starts_with("HTTP/1.1 200 OK") && one.ends_with("\r\n\r\na"));
    assert!(two.starts_with("HTTP/1.1 503 Service Unavailable") && two.ends_with("\r\n\r\nb"));
    assert!(three.starts_with("HTTP/1.1 500 "), "{three}");
    let err: Value = serde_json::from_str(split_response(&three).1).unwrap();
    let msg = err["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("mock script exhausted after 2 steps: request #3"),
        "{msg}"
    );
    assert_eq!(server.steps_served(), 2);
    let steps: Vec<_> = server.requests().iter().map(|r| r.step).collect();
    assert_eq!(steps, [Some(0), Some(1), None]);
}

#[tokio::test]
async fn concurrent_requests_each_get_their_own_step() {
    let server =
        start(r#"{"steps": [{"body": "0"}, {"body": "1"}, {"body": "2"}, {"body": "3"}]}"#).await;
    let answers = futures_join(&server, 4).await;
    let mut bodies: Vec<String> = answers
        .iter()
        .map(|t| split_response(t).1.to_string())
        .collect();
    bodies.sort();
    assert_eq!(bodies, ["0", "1", "2", "3"]);
    // The recorded step agrees with the step that answered.
    let mut steps: Vec<_> = server.requests().iter().map(|r| r.step.unwrap()).collect();
    steps.sort();
    assert_eq!(steps, [0, 1, 2, 3]);
}

async fn futures_join(server: &MockServer, n: usize) -> Vec<String> {
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..n {
        let addr = server.addr();
        tasks.spawn(async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
                .await
                .unwrap();
            String::from_utf8(read_all(s).await.0).unwrap()
        });
    }
    tasks.join_all().await
}

#[tokio::test]
async fn records_what_the_client_sent() {
    let server = start(r#"{"steps": [{"body": "ok"}]}"#).await;
    let resp = reqwest::Client::new()
        .post(format!("{}/chat/completions", server.base_url()))
        .header("Authorization", "Bearer sk-test")
        .header("Content-Type", "application/json")
        .body(r#"{"model":"m","stream":true}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.text().await.unwrap(), "ok");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.step),
        ("POST", "/v1/chat/completions", Some(0))
    );
    assert_eq!(r.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(r.header("AUTHORIZATION"), Some("Bearer sk-test"));
    assert!(r.headers.iter().all(|(n, _)| *n == n.to_ascii_lowercase()));
    assert_eq!(r.body_json().unwrap()["stream"], true);
    assert_eq!(server.base_url(), format!("http://{}/v1", server.addr()));
}

#[tokio::test]
async fn bad_requests_are_refused_without_taking_a_step() {
    let server = start(r#"{"steps": [{"body": "a"}]}"#).await;
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    s.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n")
        .await
        .unwrap();
    let text = String::from_utf8(read_all(s).await.0).unwrap();
    assert!(
        text.starts_with("HTTP/1.1 413 ") && text.contains("exceeds"),
        "{text}"
    );

    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    s.write_all(b"garbage\r\n\r\n").await.unwrap();
    assert!(
        String::from_utf8(read_all(s).await.0)
            .unwrap()
            .starts_with("HTTP/1.1 400 ")
    );
    assert_eq!(server.steps_served(), 0);

    // A request split across writes is still read whole.
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    s.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Le")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    s.write_all(b"ngth: 4\r\n\r\nab").await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    s.write_all(b"cd").await.unwrap();
    assert!(
        String::from_utf8(read_all(s).await.0)
            .unwrap()
            .ends_with("\r\n\r\na")
    );
    assert_eq!(server.requests()[0].body, b"abcd");
}

#[tokio::test]
async fn start_refuses_an_invalid_script() {
    let script = MockScript {
        steps: vec![Step {
            reset_after_bytes: Some(1),
            stall_after_bytes: Some(StallAfterBytes { bytes: 1, ms: 1 }),
            ..Step::default()
        }],
    };
    let err = MockServer::start(script, "127.0.0.1:0".parse().unwrap())
        .await
        .err()
        .unwrap();
    assert!(err.to_string().contains("steps[0]: "), "{err}");
}

#[tokio::test]
async fn shutdown_closes_open_connections_and_the_port() {
    let server = start(r#"{"steps": [{"stall_before_headers_ms": 60000}]}"#).await;
    let addr = server.addr();
    let s = send(&server, CHAT, "{}").await;
    // Let the connection task take its step before shutting down.
    while server.steps_served() == 0 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    server.shutdown().await;
    let (bytes, _) = tokio::time::timeout(Duration::from_secs(2), read_all(s))
        .await
        .expect("closed, not stalled");
    assert!(bytes.is_empty());
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "nothing listens any more"
    );
}
