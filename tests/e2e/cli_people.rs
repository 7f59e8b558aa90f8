//! The command line a person uses daily, through the binary: the live progress line on a real
//! pseudo-terminal (and nothing of it off one or with `--quiet`), colour and `NO_COLOR`, `run --json`
//! lines checked against docs/cli-json.md, `sessions list` and `log --last` over real logs (a torn
//! one included), `log --follow` beside a writing process, completions and man pages.

use crate::support::*;
use serde_json::Value;
use std::time::{Duration, Instant};

const RATE_LIMITED_1S: &str = r#"{"status":429,"headers":{"retry-after":"1"},"body":"{\"error\":{\"message\":\"Rate limit reached\",\"code\":\"rate_limit_exceeded\"}}"}"#;
/// An answer whose head waits 600 ms, so the spinner has something to wait for.
const SLOW_HELLO: &str =
    r#"{"completion":{"text":["Hel","lo"],"delay_ms":20},"stall_before_headers_ms":600}"#;

/// What a process wrote to its terminal (stdout and stderr, both on one pseudo-terminal of 120
/// columns), and how it ended.
struct Screen {
    status: std::process::ExitStatus,
    text: String,
}

/// Runs `cmd` with its stdout and stderr on a fresh pseudo-terminal (stdin empty), as from a shell.
async fn in_terminal(mut cmd: tokio::process::Command) -> Screen {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors it opened into the two integers, which we then own.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    cmd.stdin(std::process::Stdio::null())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave);
    let mut child = cmd.spawn().expect("dsh-host runs");
    // The parent's copies of the terminal's end go with the command: the reader sees the end of
    // output once the child has exited.
    drop(cmd);
    let reader = std::thread::spawn(move || {
        let mut file = std::fs::File::from(master);
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        // Linux answers EIO once the last writer closed the terminal: that is the end.
        while let Ok(n @ 1..) = file.read(&mut buf) {
            bytes.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let status = child.wait().await.unwrap();
    Screen {
        status,
        text: reader.join().unwrap(),
    }
}

fn fast_retries(scratch: &Scratch) {
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 50\n");
}

#[tokio::test]
async fn on_a_terminal_a_backoff_counts_down_and_a_slow_head_shows_a_spinner() {
    let mock = mock(&script_of(&[RATE_LIMITED_1S, SLOW_HELLO])).await;
    let scratch = Scratch::new();
    let mut cmd = scratch.command(
        &["run", "--base-url", &mock.base_url(), "hi"],
        Some(TEST_KEY),
    );
    cmd.env("NO_COLOR", "1");
    let screen = in_terminal(cmd).await;
    let text = &screen.text;
    assert!(screen.status.success(), "{text}");
    assert!(
        text.contains("RATE_LIMITED — retry 1 of 5 in 0:01, Ctrl-C to stop"),
        "{text:?}"
    );
    assert!(
        text.contains("waiting for the response (attempt 2) 0:0"),
        "{text:?}"
    );
    assert!(text.contains("Hello"), "{text:?}");
    // The live line is cleared, never left among the output: the answer ends the screen.
    let last_line = text.trim_end().lines().last().unwrap_or("");
    assert!(last_line.starts_with("session "), "{text:?}");
    assert!(
        !text.contains("\u{1b}[33m") && !text.contains("\u{1b}[31m"),
        "NO_COLOR: no colour: {text:?}"
    );
}

#[tokio::test]
async fn quiet_or_off_a_terminal_there_is_no_live_line_and_stdout_is_the_answer() {
    let mock = mock(&script_of(&[
        RATE_LIMITED_1S,
        SLOW_HELLO,
        RATE_LIMITED_1S,
        SLOW_HELLO,
    ]))
    .await;
    let scratch = Scratch::new();
    let args = ["run", "--quiet", "--base-url", &mock.base_url(), "hi"];
    let screen = in_terminal(scratch.command(&args, Some(TEST_KEY))).await;
    assert!(screen.status.success(), "{}", screen.text);
    assert_eq!(
        screen.text.trim(),
        "Hello",
        "--quiet: the answer and nothing else"
    );

    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Hello\n");
    let err = stderr(&out);
    assert!(err.contains("[RATE_LIMITED: llm-retry retry 1 in"), "{err}");
    assert!(
        !err.contains("Ctrl-C to stop") && !err.contains("waiting for"),
        "{err}"
    );
    assert!(
        !err.contains('\u{1b}'),
        "no escape sequence off a terminal: {err:?}"
    );
}

#[tokio::test]
async fn a_failure_is_coloured_on_a_terminal_unless_no_color() {
    let unauthorized = r#"{"status":401,"body":"{\"error\":{\"message\":\"Incorrect API key provided\",\"code\":\"invalid_api_key\"}}"}"#;
    let mock = mock(&script_of(&[unauthorized, unauthorized, unauthorized])).await;
    let scratch = Scratch::new();
    let args = ["run", "--base-url", &mock.base_url(), "hi"];

    let mut cmd = scratch.command(&args, Some(TEST_KEY));
    cmd.env_remove("NO_COLOR");
    let screen = in_terminal(cmd).await;
    assert_eq!(screen.status.code(), Some(1), "{}", screen.text);
    assert!(
        screen.text.contains("\u{1b}[31m\u{1b}[1mAUTH"),
        "the code in red: {:?}",
        screen.text
    );

    let mut cmd = scratch.command(&args, Some(TEST_KEY));
    cmd.env("NO_COLOR", "1");
    let screen = in_terminal(cmd).await;
    assert_eq!(screen.status.code(), Some(1));
    assert!(
        screen.text.contains("code:       AUTH"),
        "{:?}",
        screen.text
    );
    assert!(!screen.text.contains("\u{1b}[31m"), "{:?}", screen.text);

    // `log` colours the failure on a terminal, and never off one.
    let id = newest_id(&scratch).await;
    let mut cmd = scratch.command(&["log", &id], None);
    cmd.env_remove("NO_COLOR");
    let screen = in_terminal(cmd).await;
    assert!(
        screen.text.contains("\u{1b}[31m\u{1b}[1mAUTH"),
        "{:?}",
        screen.text
    );
    let out = scratch.run_bin(&["log", &id], None).await;
    assert!(
        stdout(&out).contains(" AUTH (HTTP 401)") && !stdout(&out).contains('\u{1b}'),
        "{}",
        stdout(&out)
    );
}

async fn newest_id(scratch: &Scratch) -> String {
    let out = scratch
        .run_bin(&["sessions", "list", "--json", "-n", "1"], None)
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    line["id"].as_str().unwrap().to_string()
}

/// Parses `run --json` output: every line one JSON object with a `type`.
fn json_lines(out: &std::process::Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| {
            let v: Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:?}"));
            assert!(v["type"].is_string(), "no type: {l}");
            v
        })
        .collect()
}

/// The fields docs/cli-json.md documents for each type, and their JSON kinds.
fn check_shape(line: &Value) {
    let int = |k: &str| assert!(line[k].is_u64(), "{k} of {line} is not a whole number");
    let text = |k: &str| assert!(line[k].is_string(), "{k} of {line} is not a string");
    let position = |with_attempt: bool| {
        int("turn");
        int("step");
        if with_attempt {
            int("attempt");
        }
    };
    match line["type"].as_str().unwrap() {
        "session" => {
            int("format");
            text("session");
            assert!(
                line["resuming_turn"].is_null() || line["resuming_turn"].is_u64(),
                "{line}"
            );
        }
        "attempt" => position(true),
        "response" => {
            position(true);
            int("status");
        }
        "text" | "reasoning" => {
            position(true);
            text("text");
        }
        "attempt_failed" => {
            position(true);
            assert!(
                line["failure"]["code"].is_string() && line["failure"]["message"].is_string(),
                "{line}"
            );
        }
        "retry" => {
            position(true);
            text("code");
            int("retry");
            int("delay_ms");
            text("policy_key");
        }
        "tool_call" => {
            position(false);
            text("id");
            text("name");
            text("arguments");
        }
        "tool_result" => {
            position(false);
            text("id");
            text("name");
            text("content");
            assert!(line["is_error"].is_boolean(), "{line}");
        }
        "compacted" => {
            position(false);
            int("messages_before");
            int("messages_after");
        }
        "answer" => {
            int("turn");
            text("text");
        }
        "error" => {
            int("turn");
            text("reason");
            text("message");
        }
        "end" => {
            text("session");
            text("outcome");
            int("exit_code");
        }
        other => panic!("undocumented type {other}: {line}"),
    }
}

#[tokio::test]
async fn run_json_is_one_documented_object_per_line_with_attempt_numbers() {
    // A stream that ends without a finish: STREAM_TRUNCATED, retried.
    let cut = r#"{"events":[{"data":{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}}]}"#;
    let call = r#"{"completion":{"finish":"tool_calls","tool_calls":[{"id":"c1","name":"calculator","arguments":["{\"expression\"",":\"2+2\"}"]}]}}"#;
    let answer = r#"{"completion":{"text":["Fo","ur"],"delay_ms":10}}"#;
    let mock = mock(&script_of(&[cut, call, answer])).await;
    let scratch = Scratch::new();
    fast_retries(&scratch);
    let out = scratch
        .run_bin(
            &[
                "run",
                "--json",
                "--tools",
                "--base-url",
                &mock.base_url(),
                "2+2?",
            ],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    lines.iter().for_each(check_shape);
    let mut kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    // The text of one network read is one delta: how many reads the answer takes is the network's.
    kinds.dedup_by(|a, b| *a == "text" && a == b);
    assert_eq!(
        kinds,
        [
            "session",
            "attempt",
            "response",
            "text",
            "attempt_failed",
            "retry", // attempt 1, cut
            "attempt",
            "response",
            "tool_call",
            "tool_result", // attempt 2 calls the calculator
            "attempt",
            "response",
            "text",
            "answer",
            "end" // step 2 answers
        ],
        "{lines:#?}"
    );
    let id = scratch.only_session_id();
    assert_eq!(lines[0]["session"], id.as_str());
    assert_eq!(lines[0]["format"], 1);
    assert_eq!(
        lines[3]["attempt"], 1,
        "the cut attempt's text is marked as attempt 1"
    );
    assert_eq!(lines[4]["failure"]["code"], "STREAM_TRUNCATED");
    assert_eq!(
        (lines[5]["code"].as_str(), lines[5]["retry"].as_u64()),
        (Some("STREAM_TRUNCATED"), Some(1))
    );
    assert_eq!(
        (lines[6]["step"].as_u64(), lines[6]["attempt"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(lines[8]["arguments"], r#"{"expression":"2+2"}"#);
    assert_eq!(
        (lines[9]["content"].as_str(), lines[9]["is_error"].as_bool()),
        (Some("4"), Some(false))
    );
    // A program that drops the text of failed attempts keeps exactly the answer.
    let failed: Vec<(u64, u64)> = lines
        .iter()
        .filter(|l| l["type"] == "attempt_failed")
        .map(|l| (l["step"].as_u64().unwrap(), l["attempt"].as_u64().unwrap()))
        .collect();
    let kept: String = lines
        .iter()
        .filter(|l| l["type"] == "text")
        .filter(|l| {
            !failed.contains(&(l["step"].as_u64().unwrap(), l["attempt"].as_u64().unwrap()))
        })
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(kept, "Four");
    assert_eq!(
        lines[lines.len() - 2],
        serde_json::json!({"type": "answer", "turn": 1, "text": "Four"})
    );
    assert_eq!(
        lines[lines.len() - 1],
        serde_json::json!({"type": "end", "session": id, "outcome": "completed", "exit_code": 0})
    );
    // Attempt numbers are the log's.
    let logged: Vec<(u64, u64)> = of_kind(&scratch.only_session_events(), "llm/request")
        .iter()
        .map(|e| {
            (
                e.data["step"].as_u64().unwrap(),
                e.data["attempt"].as_u64().unwrap(),
            )
        })
        .collect();
    let announced: Vec<(u64, u64)> = lines
        .iter()
        .filter(|l| l["type"] == "attempt")
        .map(|l| (l["step"].as_u64().unwrap(), l["attempt"].as_u64().unwrap()))
        .collect();
    assert_eq!(announced, logged);
}

#[tokio::test]
async fn run_json_reports_a_failed_turn_and_keeps_its_exit_code() {
    let unauthorized = r#"{"status":401,"headers":{"x-request-id":"req_1"},"body":"{\"error\":{\"message\":\"Incorrect API key provided\",\"code\":\"invalid_api_key\"}}"}"#;
    let mock = mock(&script_of(&[unauthorized])).await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(
            &["run", "--json", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = json_lines(&out);
    lines.iter().for_each(check_shape);
    let error = lines
        .iter()
        .find(|l| l["type"] == "error")
        .expect("an error line");
    assert_eq!(error["reason"], "failure");
    assert_eq!(error["failure"]["code"], "AUTH");
    assert_eq!(error["failure"]["status"], 401);
    assert_eq!(error["failure"]["request_id"], "req_1");
    let end = lines.last().unwrap();
    assert_eq!(
        (end["outcome"].as_str(), end["exit_code"].as_u64()),
        (Some("failed"), Some(1))
    );
    assert!(!stdout(&out).contains(TEST_KEY));
}

#[tokio::test]
async fn sessions_list_and_log_last_over_real_logs_with_a_torn_one() {
    let ok = |text: &str| format!(r#"{{"completion":{{"text":["{text}"]}}}}"#);
    let unauthorized =
        r#"{"status":401,"body":"{\"error\":{\"message\":\"Incorrect API key provided\"}}"}"#;
    let mock = mock(&script_of(&[&ok("one"), &ok("two"), unauthorized])).await;
    let scratch = Scratch::new();
    let mut ids = Vec::new();
    for (model, prompt) in [("m-first", "a"), ("m-second", "b"), ("m-third", "c")] {
        let out = scratch
            .run_bin(
                &[
                    "run",
                    "--base-url",
                    &mock.base_url(),
                    "--model",
                    model,
                    prompt,
                ],
                Some(TEST_KEY),
            )
            .await;
        ids.push(newest_id(&scratch).await);
        assert!(out.status.code().is_some(), "{}", stderr(&out));
        // Start times are kept to the millisecond: keep them apart.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The second one crashed mid-write: a torn line at its end.
    let second = scratch.sessions().join(format!("{}.jsonl", ids[1]));
    let mut bytes = std::fs::read(&second).unwrap();
    bytes.extend_from_slice(br#"{"seq":99,"ts":"2026-"#);
    std::fs::write(&second, &bytes).unwrap();

    let out = scratch.run_bin(&["sessions", "list"], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let rows: Vec<&str> = table.lines().collect();
    assert!(
        rows[0].starts_with("ID") && rows[0].contains("LAST OUTCOME"),
        "{table}"
    );
    assert_eq!(rows.len(), 4, "{table}");
    for (row, (id, model, outcome)) in rows[1..].iter().zip([
        (&ids[2], "m-third", "failed (AUTH)"),
        (&ids[1], "m-second", "completed, torn tail"),
        (&ids[0], "m-first", "completed"),
    ]) {
        assert!(row.starts_with(id.as_str()), "newest first: {table}");
        assert!(
            row.contains(" openai ") && row.contains(model) && row.ends_with(outcome),
            "{row}"
        );
    }
    assert!(!table.contains('\u{1b}'));
    assert_eq!(
        std::fs::read(&second).unwrap(),
        bytes,
        "listing modifies nothing"
    );

    let out = scratch
        .run_bin(&["sessions", "list", "--json", "--limit", "2"], None)
        .await;
    let listed: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[1]["id"], ids[1].as_str());
    assert_eq!(listed[1]["turns"], 1);
    assert_eq!(listed[1]["torn_tail"], true);
    assert!(
        stderr(&out).contains("1 older session(s) not shown"),
        "{}",
        stderr(&out)
    );

    let out = scratch.run_bin(&["log", "--last"], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("turn 1 failed (AUTH)"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        stdout(&out),
        stdout(&scratch.run_bin(&["log", &ids[2]], None).await)
    );
}

#[tokio::test]
async fn log_follow_prints_what_another_process_writes_as_it_comes() {
    // The writer waits 1 s (a retry-after) between its first failure and its answer.
    let mock = mock(&script_of(&[
        RATE_LIMITED_1S,
        r#"{"completion":{"text":["late"]}}"#,
    ]))
    .await;
    let scratch = Scratch::new();
    let mut writer = scratch
        .command(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Follow from as early as the session exists.
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_dir(scratch.sessions()).map_or(true, |mut d| d.next().is_none()) {
        assert!(Instant::now() < deadline, "no session within a minute");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let id = scratch.only_session_id();
    let mut follower = scratch
        .command(&["log", &id, "--follow", "--json"], None)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(follower.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let follow = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let event: Value = serde_json::from_str(&line).unwrap();
            seen.push(event["seq"].as_u64().unwrap());
            if event["type"] == "turn/end" {
                return event;
            }
        }
        panic!("log --follow ended before the turn did");
    };
    let end = tokio::time::timeout(Duration::from_secs(60), follow)
        .await
        .expect("the turn ends within a minute");
    assert_eq!(end["outcome"], "completed");
    assert!(writer.wait().await.unwrap().success());
    // Every event once, in order, as the writer wrote them.
    let logged: Vec<u64> = scratch
        .only_session_events()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seen, logged);
    // It follows until stopped.
    assert!(
        follower.try_wait().unwrap().is_none(),
        "--follow keeps following"
    );
    follower.kill().await.unwrap();
}

#[tokio::test]
async fn completions_and_man_pages_come_from_the_command_line_definitions() {
    let scratch = Scratch::new();
    let out = scratch.run_bin(&["completions", "bash"], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let bash = stdout(&out);
    assert!(
        bash.contains("complete -F _dsh__host")
            && bash.contains("sessions")
            && bash.contains("--follow"),
        "{bash}"
    );
    for shell in ["zsh", "fish"] {
        let out = scratch.run_bin(&["completions", shell], None).await;
        assert!(
            out.status.success() && stdout(&out).contains("dsh-host"),
            "{shell}: {}",
            stderr(&out)
        );
    }
    let out = scratch.run_bin(&["completions", "tcsh"], None).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("possible values: bash"),
        "{}",
        stderr(&out)
    );

    let out = scratch.run_bin(&["man"], None).await;
    let page = stdout(&out);
    assert!(
        page.starts_with(".ie") || page.contains(".TH dsh-host 1"),
        "{page}"
    );
    assert!(page.contains("completions"), "{page}");
    let dir = scratch.dir.path().join("man1");
    let out = scratch
        .run_bin(&["man", "--dir", dir.to_str().unwrap()], None)
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    for page in [
        "dsh-host.1",
        "dsh-host-run.1",
        "dsh-host-sessions-list.1",
        "dsh-host-log.1",
    ] {
        let text =
            std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page}: {text}");
    }
    let run = std::fs::read_to_string(dir.join("dsh-host-run.1")).unwrap();
    assert!(run.contains("json") && run.contains("quiet"), "{run}");
}
