//! Recovery through the binary and the mock: the waterfall, the llm-retry policy, compaction, the
//! durable retry count, resume after SIGKILL, and Ctrl-C during a backoff.

use crate::support::*;
use dsh_host::log::Event;
use std::time::{Duration, Instant};

const SERVER_ERROR: &str = r#"{"status":500,"body":"{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}"}"#;

fn ok(text: &str) -> String {
    format!(r#"{{"completion":{{"text":["{text}"]}}}}"#)
}

fn args(url: &str) -> Vec<&str> {
    vec!["run", "--base-url", url, "hi"]
}

fn ts(e: &Event) -> std::time::SystemTime {
    humantime::parse_rfc3339(&e.ts).unwrap()
}

fn retries(events: &[Event]) -> Vec<(u64, u64, String)> {
    of_kind(events, "llm/retry")
        .iter()
        .map(|e| {
            (
                e.data["retry"].as_u64().unwrap(),
                e.data["delay_ms"].as_u64().unwrap(),
                e.data["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn fast_policy(extra: &str) -> String {
    format!("[providers.openai.retry_policy]\ninitial_delay_ms = 50\n{extra}\n")
}

#[tokio::test]
async fn a_429_with_retry_after_waits_that_long_then_succeeds() {
    let mock = mock(&script_of(&[
        r#"{"status":429,"headers":{"retry-after":"1"},"body":"{\"error\":{\"message\":\"Rate limit reached\",\"code\":\"rate_limit_exceeded\"}}"}"#,
        &ok("made it"),
    ]))
    .await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(&args(&mock.base_url()), Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "made it");
    assert!(
        stderr(&out).contains("[RATE_LIMITED: llm-retry retry 1 in 1000 ms]"),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    assert_eq!(retries(&events), [(1, 1000, "RATE_LIMITED".into())]);
    let retry = of_kind(&events, "llm/retry")[0];
    assert_eq!(retry.data["policy_key"], "llm-retry");
    assert_eq!(retry.data["provider"], "openai");
    let started = of_kind(&events, "llm/retry-started")[0];
    let waited = ts(started).duration_since(ts(retry)).unwrap();
    assert!(
        waited >= Duration::from_millis(990),
        "waited only {waited:?}"
    );
    assert_eq!(mock.steps_served(), 2);
}

#[tokio::test]
async fn two_server_errors_then_success_back_off_exponentially() {
    let mock = mock(&script_of(&[
        SERVER_ERROR,
        SERVER_ERROR,
        &ok("third time lucky"),
    ]))
    .await;
    let scratch = Scratch::new();
    scratch.config(&fast_policy(""));
    let out = scratch
        .run_bin(&args(&mock.base_url()), Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().last().unwrap(), "third time lucky");
    let r = retries(&scratch.only_session_events());
    assert_eq!(r.len(), 2);
    assert_eq!((r[0].0, r[1].0), (1, 2));
    // 50 ms then 100 ms, each times a jitter within ±20 %.
    assert!((40..=60).contains(&r[0].1), "{r:?}");
    assert!((80..=120).contains(&r[1].1), "{r:?}");
    let kinds = kinds(&scratch.only_session_events())
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    assert_eq!(kinds.iter().filter(|k| *k == "llm/request").count(), 3);
}

const RETRY_AFTER_10: &str = r#"{"status":429,"headers":{"retry-after":"10"},"body":"{\"error\":{\"message\":\"Rate limit reached\",\"code\":\"rate_limit_exceeded\"}}"}"#;

#[tokio::test]
async fn a_retry_after_beyond_the_cap_gives_up_in_normal_mode() {
    let mock = mock(&script_of(&[RETRY_AFTER_10, &ok("unreachable")])).await;
    let scratch = Scratch::new();
    scratch.config(&fast_policy("max_delay_ms = 2000"));
    let out = scratch
        .run_bin(&args(&mock.base_url()), Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("RATE_LIMITED"), "{}", stderr(&out));
    let events = scratch.only_session_events();
    assert!(retries(&events).is_empty());
    assert_eq!(mock.steps_served(), 1);
}

#[tokio::test]
async fn a_retry_after_beyond_the_cap_falls_back_to_the_own_delay_in_always_mode() {
    let mock = mock(&script_of(&[RETRY_AFTER_10, &ok("anyway")])).await;
    let scratch = Scratch::new();
    scratch.config(&fast_policy("max_delay_ms = 2000\nmode = \"always\""));
    let out = scratch
        .run_bin(&args(&mock.base_url()), Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let r = retries(&scratch.only_session_events());
    assert_eq!(r.len(), 1);
    assert!(
        (40..=60).contains(&r[0].1),
        "its own delay, not the provider's 10 s: {r:?}"
    );
}

#[tokio::test]
async fn a_non_retryable_failure_is_not_retried() {
    let mock = mock(&script_of(&[
        r#"{"status":400,"body":"{\"error\":{\"message\":\"Invalid value for 'temperature'\",\"type\":\"invalid_request_error\"}}"}"#,
        &ok("unreachable"),
    ]))
    .await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(&args(&mock.base_url()), Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(1));
    let events = scratch.only_session_events();
    assert_eq!(failure_code(&events).as_deref(), Some("INVALID_REQUEST"));
    assert!(retries(&events).is_empty());
    assert_eq!(of_kind(&events, "llm/request").len(), 1);
    let error = of_kind(&events, "llm/error")[0];
    assert!(
        error.data["reason"]
            .as_str()
            .unwrap()
            .contains("no listener retries INVALID_REQUEST")
    );
}

#[tokio::test]
async fn max_retries_exhausted_exits_non_zero_with_the_last_failure() {
    let mock = mock(&script_of(&[
        SERVER_ERROR,
        SERVER_ERROR,
        SERVER_ERROR,
        &ok("unreachable"),
    ]))
    .await;
    let scratch = Scratch::new();
    scratch.config(&fast_policy("max_retries = 2"));
    let out = scratch
        .run_bin(&args(&mock.base_url()), Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("code:       SERVER_ERROR"),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    assert_eq!(retries(&events).len(), 2);
    let error = of_kind(&events, "llm/error")[0];
    assert_eq!(error.data["listener"], "llm-retry");
    assert!(
        error.data["reason"].as_str().unwrap().contains("exhausted"),
        "{:?}",
        error.data
    );
    assert_eq!(mock.steps_served(), 3);
}

#[tokio::test]
async fn a_context_overflow_is_compacted_and_retried_then_succeeds() {
    let overflow = r#"{"status":400,"body":"{\"error\":{\"message\":\"This model's maximum context length is 4097 tokens.\",\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}"}"#;
    let mock = mock(&script_of(&[
        &ok("first answer"),
        &ok("second answer"),
        overflow,
        &ok("third answer"),
    ]))
    .await;
    let scratch = Scratch::new();
    let url = mock.base_url();
    let out = scratch
        .run_bin(
            &["run", "--base-url", &url, "--system", "be brief", "first"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let id = scratch.only_session_id();
    for prompt in ["second", "third"] {
        let out = scratch
            .run_bin(&["run", "--resume", &id, prompt], Some(TEST_KEY))
            .await;
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let requests = mock.requests();
    assert_eq!(requests.len(), 4);
    let messages = |i: usize| -> Vec<String> {
        let body: serde_json::Value = serde_json::from_slice(&requests[i].body).unwrap();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                format!(
                    "{}:{}",
                    m["role"].as_str().unwrap(),
                    m["content"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    assert_eq!(
        messages(2),
        [
            "system:be brief",
            "user:first",
            "assistant:first answer",
            "user:second",
            "assistant:second answer",
            "user:third"
        ]
    );
    let compacted = messages(3);
    assert!(compacted.len() < 6, "{compacted:?}");
    assert_eq!(compacted.first().unwrap(), "system:be brief");
    assert_eq!(compacted.last().unwrap(), "user:third");
    assert!(
        !compacted.contains(&"user:first".to_string()),
        "the oldest exchange goes first: {compacted:?}"
    );
    let events = scratch.only_session_events();
    let retry = of_kind(&events, "llm/retry")[0];
    assert_eq!(retry.data["policy_key"], "compaction-basic");
    assert_eq!(retry.data["code"], "CONTEXT_WINDOW_EXCEEDED");
    assert_eq!(
        retry.data["messages"].as_array().unwrap().len(),
        compacted.len()
    );
}

/// Waits until the session log holds `n` events of `kind`.
async fn wait_for(scratch: &Scratch, kind: &str, n: usize) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(entries) = std::fs::read_dir(scratch.sessions())
            && entries.count() == 1
        {
            let events = scratch.only_session_events();
            if of_kind(&events, kind).len() >= n {
                return events;
            }
        }
        assert!(
            Instant::now() < deadline,
            "no {n} {kind} events within a minute"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn killed_during_a_backoff_then_resumed_continues_the_count_from_the_log() {
    let mock = mock(&script_of(&[
        SERVER_ERROR,
        SERVER_ERROR,
        SERVER_ERROR,
        &ok("recovered after resume"),
    ]))
    .await;
    let scratch = Scratch::new();
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 400\n");
    let mut child = scratch
        .command(&args(&mock.base_url()), Some(TEST_KEY))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let before = wait_for(&scratch, "llm/retry", 2).await;
    child.start_kill().unwrap(); // SIGKILL, during the second backoff (~800 ms)
    child.wait().await.unwrap();
    assert_eq!(retries(&before).len(), 2);
    assert!(
        of_kind(&before, "llm/retry-started").len() == 1,
        "killed before the second wait ended"
    );
    // A crash mid-write leaves a torn line; resume must survive it and keep its text.
    let file = scratch
        .sessions()
        .join(format!("{}.jsonl", scratch.only_session_id()));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    std::io::Write::write_all(&mut f, br#"{"seq":99,"ts":"2026-"#).unwrap();
    drop(f);

    let id = scratch.only_session_id();
    let out = scratch
        .run_bin(&["run", "--resume", &id], Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("recovered after resume"));
    assert!(stderr(&out).contains("torn"), "{}", stderr(&out));

    let events = scratch.only_session_events();
    let r = retries(&events);
    let numbers: Vec<u64> = r.iter().map(|x| x.0).collect();
    assert_eq!(
        numbers,
        [1, 2, 3],
        "the count continues from the log, not from zero"
    );
    // Nothing lost, nothing duplicated: the old events are intact and sequence numbers run 1..=N.
    assert_eq!(&events[..before.len()], &before[..]);
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
    let resumed = of_kind(&events, "session/resumed")[0];
    assert_eq!(resumed.data["torn_tail"], r#"{"seq":99,"ts":"2026-"#);
    assert_eq!(of_kind(&events, "turn/start").len(), 1);
    assert_eq!(of_kind(&events, "turn/end").len(), 1);
    assert_eq!(mock.steps_served(), 4);
}

#[tokio::test]
async fn sigint_during_a_long_backoff_ends_at_once_as_aborted() {
    let mock = mock(&script_of(&[SERVER_ERROR, &ok("unreachable")])).await;
    let scratch = Scratch::new();
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 60000\n");
    let mut child = scratch
        .command(&args(&mock.base_url()), Some(TEST_KEY))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&scratch, "llm/retry", 1).await;
    let pid = child.id().unwrap().to_string();
    let sent = Instant::now();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = child.wait().await.unwrap();
    let took = sent.elapsed();
    // "Within a second" is the requirement; the bound here is looser so a loaded CI machine cannot
    // make it flaky, while a backoff that ignored the signal (60 s) still fails it.
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(status.code(), Some(130));
    let events = scratch.only_session_events();
    let codes: Vec<&str> = of_kind(&events, "llm/failure")
        .iter()
        .map(|e| e.data["failure"]["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["SERVER_ERROR", "ABORTED"]);
    assert_eq!(of_kind(&events, "turn/end")[0].data["code"], "ABORTED");
    assert_eq!(mock.steps_served(), 1);
}

#[tokio::test]
async fn a_retry_policy_given_to_the_llm_retry_listener_is_refused_saying_where_it_belongs() {
    let scratch = Scratch::new();
    scratch.config(
        "[[listeners]]\nname = \"llm-retry\"\nconfig = { retry_policy = { max_retries = 3 } }\n",
    );
    let out = scratch
        .run_bin(
            &["run", "--base-url", "http://127.0.0.1:9/v1", "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("[providers.NAME.retry_policy]"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn a_config_with_an_unknown_key_is_refused_naming_the_file_and_key() {
    let scratch = Scratch::new();
    scratch.config("[providers.openai]\nmodle = \"gpt-4o\"\n");
    let out = scratch.run_bin(&["run", "hi"], Some(TEST_KEY)).await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("dsh.toml") && err.contains("modle"), "{err}");
}

#[tokio::test]
async fn resuming_a_session_id_that_escapes_the_directory_is_refused() {
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(&["run", "--resume", "../../etc/passwd"], Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid session id"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn resuming_a_finished_session_without_a_prompt_says_what_to_do() {
    let mock = mock(&script_of(&[&ok("done")])).await;
    let scratch = Scratch::new();
    assert!(
        scratch
            .run_bin(&args(&mock.base_url()), Some(TEST_KEY))
            .await
            .status
            .success()
    );
    let id = scratch.only_session_id();
    let out = scratch
        .run_bin(&["run", "--resume", &id], Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no unfinished turn; give a PROMPT"),
        "{}",
        stderr(&out)
    );
}
