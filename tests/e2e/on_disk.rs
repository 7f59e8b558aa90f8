//! What the host keeps on disk, through the binary: private session logs, a compiled-code cache whose
//! entries cannot be swapped, secrets files only the user can read, and retention (`sessions prune`).

use crate::support::*;
use dsh_host::engine::GuestEngine;
use dsh_host::log::FileStore;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const ANSWER: &str = r#"{"steps":[{"completion":{"text":["fine"]}}]}"#;
const DAY: Duration = Duration::from_secs(86_400);

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn session_logs_are_private_and_a_sessions_dir_others_may_write_is_refused() {
    let mock = mock(ANSWER).await;
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let id = scratch.only_session_id();
    assert_eq!(mode(&scratch.sessions()), 0o700);
    assert_eq!(mode(&scratch.sessions().join(format!("{id}.jsonl"))), 0o600);

    chmod(&scratch.sessions(), 0o777);
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&scratch.sessions().display().to_string()),
        "{err}"
    );
    assert!(
        err.contains("other users may write it (mode 777)") && err.contains("chmod 700"),
        "{err}"
    );
    assert_eq!(
        mock.requests().len(),
        1,
        "nothing was sent for the refused run"
    );
}

/// The `.cwasm` entries in `root`.
fn entries(root: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cwasm"))
        .collect();
    entries.sort();
    entries
}

/// Compiles a built-in adapter into the cache at `root`; returns its entry.
fn compile_builtin(root: &Path, name: &str) -> PathBuf {
    let before = entries(root);
    let engine = GuestEngine::new(Some(root.to_path_buf())).unwrap();
    let source = dsh_host::guests::builtin_adapter(name).unwrap();
    engine
        .compile(&source.origin(), &source.read().unwrap())
        .unwrap();
    let new: Vec<PathBuf> = entries(root)
        .into_iter()
        .filter(|e| !before.contains(e))
        .collect();
    assert_eq!(new.len(), 1, "one entry for {name}: {new:?}");
    new[0].clone()
}

#[tokio::test]
async fn a_cache_entry_swapped_for_another_guests_is_recompiled_never_run() {
    let scratch = Scratch::new();
    let cache = scratch.dir.path().join("cache");
    let root = cache.join("compiled");
    std::fs::create_dir_all(&root).unwrap();
    chmod(&root, 0o700);
    let openai = compile_builtin(&root, "openai");
    let anthropic = compile_builtin(&root, "anthropic");
    // Anthropic's valid entry under OpenAI's name: wasmtime alone would load it and run it.
    std::fs::copy(&anthropic, &openai).unwrap();

    let mock =
        mock(r#"{"steps":[{"completion":{"text":["fine"]}},{"completion":{"text":["fine"]}}]}"#)
            .await;
    // One `run` on the mock with this cache, saying at `info` what it compiles.
    let run = || {
        let mut command = scratch.command(
            &[
                "run",
                "--base-url",
                &mock.base_url(),
                "--model",
                "gpt-test",
                "hi",
            ],
            Some(TEST_KEY),
        );
        command.env("DSH_CACHE_DIR", &cache).env("DSH_LOG", "info");
        async move { command.output().await.unwrap() }
    };
    let out = run().await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(stdout(&out).trim_end(), "fine");
    // The OpenAI adapter made the request (Anthropic's code would have posted to /v1/messages).
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert!(
        err.contains("compiling built-in guest 'openai' again")
            && err.contains(&openai.display().to_string())
            && err.contains("authentication code does not match"),
        "{err}"
    );
    // The entry was replaced by OpenAI's own code, which the next start loads without a word.
    assert_ne!(
        std::fs::read(&openai).unwrap(),
        std::fs::read(&anthropic).unwrap()
    );
    let out = run().await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("compiling built-in guest"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn a_gateway_keys_file_others_may_read_is_refused_naming_it() {
    let scratch = Scratch::new();
    let keys = scratch.dir.path().join("gateway-keys");
    std::fs::write(&keys, format!("sha256:{} ci\n", "ab".repeat(32))).unwrap();
    chmod(&keys, 0o644);
    scratch.config(&format!(
        "[gateway]\nkeys_file = {:?}\n",
        keys.display().to_string()
    ));
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        scratch.run_bin(&["serve", "--listen", "127.0.0.1:0"], None),
    )
    .await
    .expect("serve refuses at start-up instead of serving");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("the gateway keys file")
            && err.contains(&keys.display().to_string())
            && err.contains("chmod 600"),
        "{err}"
    );
}

/// Sessions `ids` in the scratch sessions directory, each last written `age` ago.
fn old_sessions(scratch: &Scratch, sessions: &[(&str, Duration)]) {
    let store = FileStore::open(&scratch.sessions()).unwrap();
    for (id, age) in sessions {
        store
            .create_named(id)
            .unwrap()
            .append("session/start", serde_json::json!({}))
            .unwrap();
        let file = std::fs::File::options()
            .append(true)
            .open(store.file_of(id))
            .unwrap();
        file.set_modified(SystemTime::now() - *age).unwrap();
    }
}

fn session_ids(scratch: &Scratch) -> Vec<String> {
    let store = FileStore::open(&scratch.sessions()).unwrap();
    store
        .list_sessions()
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect()
}

#[tokio::test]
async fn sessions_prune_deletes_old_sessions_and_a_dry_run_lists_them_first() {
    let scratch = Scratch::new();
    old_sessions(
        &scratch,
        &[("fresh", DAY), ("old", 45 * DAY), ("older", 90 * DAY)],
    );

    let out = scratch
        .run_bin(
            &["sessions", "prune", "--older-than", "30d", "--dry-run"],
            None,
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = stdout(&out);
    let listed: Vec<&str> = listing
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(listed, ["older", "old"]);
    assert!(
        stderr(&out).contains("would delete 2 session(s)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(session_ids(&scratch), ["fresh", "old", "older"]);

    let out = scratch
        .run_bin(&["sessions", "prune", "--older-than", "30d"], None)
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2);
    assert!(
        stderr(&out).contains("deleted 2 session(s)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(session_ids(&scratch), ["fresh"]);

    // No age given and none configured: an error saying how to give one.
    let out = scratch.run_bin(&["sessions", "prune"], None).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--older-than 30d") && stderr(&out).contains("[sessions]"),
        "{}",
        stderr(&out)
    );
    let out = scratch
        .run_bin(&["sessions", "prune", "--older-than", "soon"], None)
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("\"soon\" is not a duration"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn configured_retention_prunes_when_run_starts_and_nothing_is_pruned_unless_set() {
    let mock =
        mock(r#"{"steps":[{"completion":{"text":["one"]}},{"completion":{"text":["two"]}}]}"#)
            .await;
    let scratch = Scratch::new();
    old_sessions(&scratch, &[("ancient", 400 * DAY)]);
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        session_ids(&scratch).len(),
        2,
        "without [sessions] retention nothing is deleted"
    );

    scratch.config("[sessions]\nretention = \"30d\"\n");
    let out = scratch
        .run_bin(
            &["run", "--base-url", &mock.base_url(), "hi"],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let ids = session_ids(&scratch);
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(!ids.contains(&"ancient".to_string()), "{ids:?}");
}
