//! docs/writing-guests.md, followed from outside: the shell blocks the guide marks with
//! `<!-- guide-test -->` run in order, as one script, in an empty directory with the built
//! `dsh-host` on PATH and nothing of the repository around, so the guide cannot drift from what
//! works.

use crate::support::*;
use std::path::Path;

const MARK: &str = "<!-- guide-test -->";

/// The marked blocks: each marker must be followed by a ```sh block.
fn walkthrough(guide: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = guide.lines();
    while let Some(line) = lines.next() {
        if line.trim() != MARK {
            continue;
        }
        let fence = lines.next().unwrap_or_default();
        assert_eq!(
            fence.trim(),
            "```sh",
            "a {MARK} marker must be followed by a ```sh block"
        );
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        blocks.push(block.join("\n"));
    }
    blocks
}

#[test]
fn the_marked_blocks_are_found_and_only_they() {
    let guide = "text\n<!-- guide-test -->\n```sh\necho a\necho b\n```\n```sh\nnot this\n```\n<!-- guide-test -->\n```sh\necho c\n```\n";
    assert_eq!(walkthrough(guide), ["echo a\necho b", "echo c"]);
}

#[test]
fn the_guides_walkthrough_works_from_an_empty_directory() {
    let guide = std::fs::read_to_string(workspace_root().join("docs/writing-guests.md")).unwrap();
    let blocks = walkthrough(&guide);
    assert_eq!(blocks.len(), guide.matches(MARK).count());
    assert!(
        blocks.len() >= 3,
        "the guide marks its walkthrough blocks ({MARK})"
    );
    // A failed command stops the script; background mocks are stopped however it ends.
    let script = format!(
        "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n{}\n",
        blocks.join("\n")
    );

    let empty = tempfile::tempdir().unwrap();
    let scratch = Scratch::new();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_dsh-host")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = std::process::Command::new("bash");
    cmd.arg("-c")
        .arg(&script)
        .current_dir(empty.path())
        .stdin(std::process::Stdio::null())
        .env("PATH", path)
        .env("DSH_SESSIONS_DIR", scratch.sessions())
        .env("DSH_CACHE_DIR", shared_cache_dir())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PIP_ROOT_USER_ACTION", "ignore");
    // The test's own cargo settings are for the host build: the guide's cargo starts clean.
    for var in [
        "CARGO_TARGET_DIR",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_PRIMARY_PACKAGE",
        "DSH_CONFIG",
        "DSH_LOG",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("bash runs");
    let stdout = stdout(&out);
    assert!(
        out.status.success(),
        "the guide's walkthrough failed ({}):\n{stdout}\n{}",
        out.status,
        stderr(&out)
    );
    for answer in [
        "Hello from my-adapter",
        "Hello, retried by two-strikes",
        "Hello from hello-js",
    ] {
        assert!(
            stdout.lines().any(|l| l == answer),
            "no `{answer}` in:\n{stdout}"
        );
    }
}
