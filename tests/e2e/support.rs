//! Shared test plumbing: a mock provider per test, the binary with an isolated environment, the log.

#![allow(dead_code)]

use dsh_host::log::{Event, SessionStore};
use dsh_host::mock::{MockScript, MockServer};
use std::path::{Path, PathBuf};
use std::process::Output;

pub const TEST_KEY: &str = "sk-test-0123456789abcdef";

pub async fn mock(script_json: &str) -> MockServer {
    let script = MockScript::from_json_str(script_json).expect("test script parses");
    MockServer::start(script, ([127, 0, 0, 1], 0).into())
        .await
        .expect("mock starts")
}

/// A scratch home for one test: sessions and compiled-code cache apart from every other test.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn sessions(&self) -> PathBuf {
        self.dir.path().join("sessions")
    }

    /// Writes `dsh.toml` in the scratch dir; later runs use it (through DSH_CONFIG).
    pub fn config(&self, toml: &str) -> PathBuf {
        let path = self.dir.path().join("dsh.toml");
        std::fs::write(&path, toml).unwrap();
        path
    }

    /// The binary, with the scratch environment, ready to spawn.
    pub fn command(&self, args: &[&str], key: Option<&str>) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-host"));
        cmd.args(args)
            .env("DSH_SESSIONS_DIR", self.sessions())
            .env("DSH_CACHE_DIR", shared_cache_dir())
            .env_remove("OPENAI_API_KEY")
            .env_remove("DSH_LOG")
            .env_remove("DSH_CONFIG")
            .env("DSH_RANDOM_SEED", "7")
            .kill_on_drop(true);
        let config = self.dir.path().join("dsh.toml");
        if config.exists() {
            cmd.env("DSH_CONFIG", config);
        }
        if let Some(key) = key {
            cmd.env("OPENAI_API_KEY", key);
        }
        cmd
    }

    /// Runs the binary with `args`, the test key in OPENAI_API_KEY unless `key` is None.
    pub async fn run_bin(&self, args: &[&str], key: Option<&str>) -> Output {
        self.command(args, key)
            .output()
            .await
            .expect("dsh-host runs")
    }

    /// The id of the only session in this scratch dir.
    pub fn only_session_id(&self) -> String {
        let ids: Vec<String> = std::fs::read_dir(self.sessions())
            .unwrap()
            .map(|e| {
                e.unwrap()
                    .path()
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(ids.len(), 1, "expected exactly one session, found {ids:?}");
        ids[0].clone()
    }

    /// Every event of the only session in this scratch dir.
    pub fn only_session_events(&self) -> Vec<Event> {
        SessionStore::open(&self.sessions())
            .unwrap()
            .read(&self.only_session_id())
            .unwrap()
            .events
    }
}

/// The compiled-code cache is shared by the tests of one run: compiling once is enough.
pub fn shared_cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("dsh-cache")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn kinds(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

/// The events of one kind.
pub fn of_kind<'a>(events: &'a [Event], kind: &str) -> Vec<&'a Event> {
    events.iter().filter(|e| e.kind == kind).collect()
}

/// The failure code recorded by the `llm/failure` event.
pub fn failure_code(events: &[Event]) -> Option<String> {
    events
        .iter()
        .find(|e| e.kind == "llm/failure")
        .map(|e| e.data["failure"]["code"].as_str().unwrap().to_string())
}

/// A test-only guest built by build.rs.
pub fn test_guest(stem: &str) -> PathBuf {
    Path::new(env!("DSH_GUEST_DIR")).join(format!("{stem}.wasm"))
}
