//! `dsh-host mock --record FILE`: the binary writes every request it receives as a JSON line,
//! in the file while the server still runs.

use crate::support::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

/// The record's lines, once there are `n` of them (a guard against a hang, not a measure of speed).
async fn wait_for_lines(path: &Path, n: usize) -> Vec<Value> {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            // Only whole lines: the writer may be in the middle of one.
            let lines: Vec<&str> = text
                .split_inclusive('\n')
                .filter(|l| l.ends_with('\n'))
                .collect();
            if lines.len() >= n {
                return lines
                    .iter()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{} never had {n} lines", path.display()))
}

#[tokio::test]
async fn the_mock_subcommand_records_every_request() {
    let scratch = Scratch::new();
    let script = scratch.dir.path().join("script.json");
    let record = scratch.dir.path().join("requests.jsonl");
    std::fs::write(
        &script,
        r#"{"steps":[{"completion":{"text":["recorded"]}},{"status":401,"body":"no"}]}"#,
    )
    .unwrap();
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-host"))
        .args([
            "mock",
            "--script",
            script.to_str().unwrap(),
            "--record",
            record.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut out = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let first = out.next_line().await.unwrap().unwrap();
    let url = first
        .strip_prefix("mock provider listening on ")
        .expect(&first)
        .to_string();
    let second = out.next_line().await.unwrap().unwrap();
    assert!(
        second.contains("recording every request to") && second.contains("requests.jsonl"),
        "{second}"
    );

    let client = reqwest::Client::new();
    let answer = client
        .post(format!("{url}/chat/completions"))
        .header("authorization", format!("Bearer {TEST_KEY}"))
        .body(r#"{"model":"m","stream":true}"#)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(answer.contains("recorded"), "{answer}");
    let lines = wait_for_lines(&record, 1).await;
    let r = &lines[0];
    assert_eq!(
        (r["request"].as_u64(), r["step"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(
        (r["method"].as_str(), r["path"].as_str()),
        (Some("POST"), Some("/v1/chat/completions"))
    );
    assert!(
        r["headers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h[0] == "authorization" && h[1] == format!("Bearer {TEST_KEY}")),
        "{r}"
    );
    assert_eq!(r["body"], r#"{"model":"m","stream":true}"#);

    let status = client
        .put(format!("{url}/upload"))
        .body(vec![0xffu8, 0x00, 0x41])
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 401);
    let lines = wait_for_lines(&record, 2).await;
    assert_eq!(
        (lines[1]["method"].as_str(), lines[1]["step"].as_u64()),
        (Some("PUT"), Some(1))
    );
    assert_eq!(lines[1]["body_base64"], "/wBB");
    server.kill().await.unwrap();
}

#[tokio::test]
async fn a_record_file_that_cannot_be_written_is_refused() {
    let scratch = Scratch::new();
    let script = scratch.dir.path().join("script.json");
    std::fs::write(&script, r#"{"steps":[]}"#).unwrap();
    let record = scratch.dir.path().join("no-such-dir").join("r.jsonl");
    let out = scratch
        .run_bin(
            &[
                "mock",
                "--script",
                script.to_str().unwrap(),
                "--record",
                record.to_str().unwrap(),
            ],
            None,
        )
        .await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("record file") && err.contains("no-such-dir"),
        "{err}"
    );
}
