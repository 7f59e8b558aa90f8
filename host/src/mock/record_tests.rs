//! The record file: one JSON line per request, in the file as soon as the request is read.

use super::server_tests::{exchange, read_all};
use super::*;
use serde_json::Value;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

async fn start_recording(json: &str, record: &std::path::Path) -> MockServer {
    let options = MockOptions {
        record: Some(record.to_owned()),
    };
    MockServer::start_with(
        MockScript::from_json_str(json).unwrap(),
        "127.0.0.1:0".parse().unwrap(),
        options,
    )
    .await
    .unwrap()
}

fn lines(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn every_request_is_appended_as_it_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("requests.jsonl");
    std::fs::write(&record, "an earlier run\n").unwrap();
    let server = start_recording(
        r#"{"steps": [{"stall_before_headers_ms": 60000}, {"body": "ok"}]}"#,
        &record,
    )
    .await;

    // The first answer stalls for a minute; its request is in the file long before.
    let mut stalled = TcpStream::connect(server.addr()).await.unwrap();
    stalled
        .write_all(b"POST /v1/chat/completions?x=1 HTTP/1.1\r\nAuthorization: Bearer sk-rec\r\nX-Twice: a\r\nX-Twice: b\r\nContent-Length: 13\r\n\r\n{\"stream\":1}\n")
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(30), async {
        while lines(&record).len() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the request is recorded while its answer is still due");
    let all = lines(&record);
    assert_eq!(all[0], "an earlier run", "appended, never truncated");
    let first: Value = serde_json::from_str(&all[1]).unwrap();
    assert_eq!(first["request"], 1);
    assert_eq!(first["step"], 0);
    assert_eq!(first["method"], "POST");
    assert_eq!(first["path"], "/v1/chat/completions?x=1");
    assert_eq!(
        first["headers"],
        serde_json::json!([
            ["authorization", "Bearer sk-rec"],
            ["x-twice", "a"],
            ["x-twice", "b"],
            ["content-length", "13"]
        ])
    );
    assert_eq!(first["body"], "{\"stream\":1}\n");
    assert!(first.get("body_base64").is_none());
    humantime::parse_rfc3339(first["time"].as_str().unwrap()).expect("an RFC 3339 time");

    // A body that is not UTF-8 is recorded in base64; a request past the script, with no step.
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    s.write_all(b"PUT /bin HTTP/1.1\r\nContent-Length: 3\r\n\r\n\xff\x00A")
        .await
        .unwrap();
    assert!(read_all(s).await.0.ends_with(b"ok"));
    let _ = exchange(&server, "/v1/chat/completions").await;
    let all = lines(&record);
    assert_eq!(all.len(), 4);
    let binary: Value = serde_json::from_str(&all[2]).unwrap();
    assert_eq!(
        (binary["method"].as_str(), binary["step"].as_u64()),
        (Some("PUT"), Some(1))
    );
    assert_eq!(binary["body_base64"], "/wBB");
    assert!(binary.get("body").is_none());
    let exhausted: Value = serde_json::from_str(&all[3]).unwrap();
    assert_eq!(
        (exhausted["request"].as_u64(), &exhausted["step"]),
        (Some(3), &Value::Null)
    );
    assert_eq!(exhausted["body"], "{}");
    drop(stalled);
    server.shutdown().await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_new_record_file_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("r.jsonl");
    let server = start_recording(r#"{"steps": []}"#, &record).await;
    let mode = std::fs::metadata(&record).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o077,
        0,
        "it holds the keys the client sent: {mode:o}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_unwritable_record_file_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("missing-dir").join("r.jsonl");
    let err = MockServer::start_with(
        MockScript::default(),
        "127.0.0.1:0".parse().unwrap(),
        MockOptions {
            record: Some(record.clone()),
        },
    )
    .await
    .err()
    .expect("refused");
    let msg = format!("{err:#}");
    assert!(
        msg.contains("record file")
            && msg.contains("missing-dir")
            && msg.contains("writable directory"),
        "{msg}"
    );
}
