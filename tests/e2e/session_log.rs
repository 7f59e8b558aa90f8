//! The session log through the binary: one writer per session (a file lock, seen from two real
//! processes), `--resume` touching nothing until every check has passed, a torn or malformed tail
//! moved aside, and a reader beside a live writer.

use crate::support::*;
use dsh_host::log::{Event, FileStore};
use std::time::{Duration, Instant};

const SERVER_ERROR: &str = r#"{"status":500,"body":"{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}"}"#;

fn ok(text: &str) -> String {
    format!(r#"{{"completion":{{"text":["{text}"]}}}}"#)
}

fn script(steps: &[&str]) -> String {
    format!(r#"{{"steps":[{}]}}"#, steps.join(","))
}

fn file_bytes(scratch: &Scratch, id: &str) -> Vec<u8> {
    std::fs::read(scratch.sessions().join(format!("{id}.jsonl"))).unwrap()
}

fn torn_file(scratch: &Scratch, id: &str) -> std::path::PathBuf {
    scratch.sessions().join(format!("{id}.jsonl.torn"))
}

/// Waits until the only session holds `n` events of `kind`.
async fn wait_for(scratch: &Scratch, kind: &str, n: usize) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = std::fs::read_dir(scratch.sessions()).is_ok_and(|mut d| d.next().is_some());
        if ready {
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
async fn a_second_writer_of_a_live_session_is_refused_and_a_reader_beside_it_is_fine() {
    // The creator parks in a 60 s backoff (after its durable `llm/retry`), and a `--resume` after
    // its death in what is left of that wait: each alive, holding the lock.
    let mock = mock(&script(&[SERVER_ERROR, &ok("unreachable")])).await;
    let scratch = Scratch::new();
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 60000\n");
    let mut first = scratch
        .command(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&scratch, "llm/retry", 1).await;
    let id = scratch.only_session_id();
    let before = file_bytes(&scratch, &id);

    // The session's creator is alive: a `--resume` of it is refused, and touches nothing.
    let out = scratch
        .run_bin(&["run", "--resume", &id], Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "session '{id}' is being written by another dsh-host process"
        )),
        "{err}"
    );
    assert_eq!(file_bytes(&scratch, &id), before);
    // Reading beside the writer works and calls nothing torn.
    let out = scratch.run_bin(&["log", &id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("retry"), "{}", stdout(&out));
    assert!(!stderr(&out).contains("torn"), "{}", stderr(&out));

    // The creator dies (SIGKILL); a `--resume` takes over and parks in the rest of the backoff.
    first.start_kill().unwrap();
    first.wait().await.unwrap();
    let mut second = scratch
        .command(&["run", "--resume", &id], Some(TEST_KEY))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&scratch, "session/resumed", 1).await;
    let before = file_bytes(&scratch, &id);

    // Two `--resume` at once: the second is refused.
    let out = scratch
        .run_bin(&["run", "--resume", &id], Some(TEST_KEY))
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("another dsh-host process"),
        "{}",
        stderr(&out)
    );
    assert_eq!(file_bytes(&scratch, &id), before);
    assert_eq!(mock.steps_served(), 1, "the refused writers sent nothing");

    second.start_kill().unwrap();
    second.wait().await.unwrap();
    let events = scratch.only_session_events();
    assert_eq!(of_kind(&events, "session/resumed").len(), 1);
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_resume_that_fails_a_check_changes_nothing_and_a_malformed_tail_is_moved_aside() {
    let mock = mock(&script(&[
        &ok("first answer"),
        &ok("second answer"),
        &ok("third answer"),
    ]))
    .await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let id = scratch.only_session_id();
    let valid = file_bytes(&scratch, &id);
    let valid_events = scratch.only_session_events();
    // The field report: a malformed last line WITH its newline. It used to stay in the file, the
    // resumed events went after it, and the session could then be neither read nor resumed.
    let tail = "{\"seq\":99,\"ts\":\"2026-\n";
    let path = scratch.sessions().join(format!("{id}.jsonl"));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, tail.as_bytes()).unwrap();
    drop(f);
    let before = file_bytes(&scratch, &id);

    // `log` reads it, says so, and changes nothing.
    let out = scratch.run_bin(&["log", &id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("torn"), "{}", stderr(&out));
    assert_eq!(file_bytes(&scratch, &id), before);

    // Every later check of `--resume` fails before the file is touched.
    let missing = scratch.dir.path().join("missing.wasm");
    for (args, says) in [
        (vec!["run", "--resume", &id], "no unfinished turn"),
        (
            vec!["run", "--resume", &id, "--provider", "nosuch", "next"],
            "nosuch",
        ),
        (
            vec![
                "run",
                "--resume",
                &id,
                "--adapter",
                missing.to_str().unwrap(),
                "next",
            ],
            "missing.wasm",
        ),
        (
            vec!["run", "--resume", &id, "--base-url", "ftp://x/v1", "next"],
            "ftp",
        ),
    ] {
        let out = scratch.run_bin(&args, Some(TEST_KEY)).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert_eq!(
            file_bytes(&scratch, &id),
            before,
            "{args:?} modified the session"
        );
        assert!(!torn_file(&scratch, &id).exists(), "{args:?}");
    }
    assert_eq!(mock.steps_served(), 1);

    // A resume that passes: the tail goes to `<id>.jsonl.torn` first, the file is cut to its last
    // valid event, and the new events follow it.
    let out = scratch
        .run_bin(&["run", "--resume", &id, "next"], Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "second answer");
    assert!(
        stderr(&out).contains(&format!("{id}.jsonl.torn")),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(torn_file(&scratch, &id)).unwrap(),
        tail
    );
    let after = file_bytes(&scratch, &id);
    assert_eq!(&after[..valid.len()], &valid[..]);
    let events = scratch.only_session_events();
    assert_eq!(&events[..valid_events.len()], &valid_events[..]);
    let resumed = of_kind(&events, "session/resumed")[0];
    assert_eq!(resumed.data["torn_tail"], tail);
    assert_eq!(resumed.data["torn_tail_file"], format!("{id}.jsonl.torn"));
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());

    // And the session stays readable and resumable.
    let out = scratch.run_bin(&["log", &id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("torn"), "{}", stderr(&out));
    let out = scratch
        .run_bin(&["run", "--resume", &id, "again"], Some(TEST_KEY))
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "third answer");
}

#[tokio::test]
async fn log_beside_a_live_writer_mid_line_says_being_written_not_torn() {
    let scratch = Scratch::new();
    let store = FileStore::open(&scratch.sessions()).unwrap();
    let mut log = store.create().unwrap();
    log.append("session/start", serde_json::json!({"provider": "openai"}))
        .unwrap();
    let id = log.id().to_string();
    // This process is the writer; the half of a line it is writing is already in the file.
    let path = store.file_of(&id);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, br#"{"seq":2,"ts":"2026-11-29T21:40"#).unwrap();
    let before = std::fs::read(&path).unwrap();

    let out = scratch.run_bin(&["log", &id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("session/start"), "{}", stdout(&out));
    assert!(stderr(&out).contains("being written"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("torn"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // The writer dies mid-line: the same line is now torn.
    drop(log);
    let out = scratch.run_bin(&["log", &id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("torn"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("being written"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}
