//! Shared test plumbing: a mock provider per test, the binary with an isolated environment, the log.

#![allow(dead_code)]

use dsh_host::mock::{MockScript, MockServer};
use dsh_host::store::{Event, SessionStore};
use std::path::{Path, PathBuf};
use std::process::Output;

pub mod steps;
pub use steps::*;

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

    /// The binary, with the scratch environment, ready to spawn. With `key`, the key is in
    /// OPENAI_API_KEY and a `run` is told to send it (`--api-key-env OPENAI_API_KEY`): the mock is
    /// not api.openai.com, and a preset's key goes only to the preset's own host unless configured.
    pub fn command(&self, args: &[&str], key: Option<&str>) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-host"));
        let mut args = args.to_vec();
        if key.is_some() && args.first() == Some(&"run") && !args.contains(&"--api-key-env") {
            args.splice(1..1, ["--api-key-env", "OPENAI_API_KEY"]);
        }
        cmd.args(&args)
            .env("DSH_SESSIONS_DIR", self.sessions())
            .env("DSH_CACHE_DIR", shared_cache_dir())
            .env_remove("OPENAI_API_KEY")
            .env_remove("DSH_LOG")
            .env_remove("DSH_CONFIG")
            // Sessions go to the scratch directory unless a test names a database.
            .env_remove("DSH_SESSIONS_URL")
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

    /// The id of the only session in this scratch dir (its `.jsonl` file; a `.jsonl.torn` beside it
    /// holds moved-aside tails, not a session).
    pub fn only_session_id(&self) -> String {
        let ids: Vec<String> = std::fs::read_dir(self.sessions())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
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

/// The `llm/retry` events as (policy key, delay, code).
pub fn retries(events: &[Event]) -> Vec<(String, u64, String)> {
    of_kind(events, "llm/retry")
        .iter()
        .map(|e| {
            (
                e.data["policy_key"].as_str().unwrap().to_string(),
                e.data["delay_ms"].as_u64().unwrap(),
                e.data["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A test-only guest built by build.rs.
pub fn test_guest(stem: &str) -> PathBuf {
    Path::new(env!("DSH_GUEST_DIR")).join(format!("{stem}.wasm"))
}

// ---- guests in other languages (tests/e2e/other_languages.rs) -----------------------------------

/// The workspace root (the e2e tests belong to the `host` package).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ has a parent")
        .to_path_buf()
}

/// The Python and JavaScript guests, built from their sources by their own toolchains.
pub struct OtherLanguageGuests {
    /// guests/retry-budget (Python, componentize-py): a recovery listener.
    pub retry_budget: PathBuf,
    /// guests/gemini (JavaScript, componentize-js): a provider adapter.
    pub gemini: PathBuf,
}

/// Builds guests/retry-budget and guests/gemini into `target/tmp/other-language-guests` once per test
/// run, then loads both once through the binary so the compiled-code cache the tests share is warm.
///
/// componentize-py and componentize-js do not build reproducibly (the same sources give different
/// bytes, hence a new cache key and a cold compile), so a component is only rebuilt when its inputs
/// changed: a stamp beside it records a hash of its sources, the WIT files and the tool versions.
/// A missing tool fails the test with the command that installs it; nothing is skipped.
pub fn other_language_guests() -> &'static OtherLanguageGuests {
    static GUESTS: std::sync::OnceLock<Result<OtherLanguageGuests, String>> =
        std::sync::OnceLock::new();
    match GUESTS.get_or_init(build_other_language_guests) {
        Ok(guests) => guests,
        Err(e) => panic!("{e}"),
    }
}

fn build_other_language_guests() -> Result<OtherLanguageGuests, String> {
    let root = workspace_root();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("other-language-guests");
    std::fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;

    let python = tool_version(
        "python3",
        &["--version"],
        "install Python 3 (apt-get install python3)",
    )?;
    let componentize_py = tool_version(
        "componentize-py",
        &["--version"],
        "install it with: pip install componentize-py==0.25.1",
    )?;
    let node = tool_version(
        "node",
        &["--version"],
        "install Node.js 20 (apt-get install nodejs npm)",
    )?;
    let gemini_dir = root.join("guests/gemini");
    let lock = std::fs::read(gemini_dir.join("package-lock.json")).unwrap_or_default();
    if !gemini_dir
        .join("node_modules/@bytecodealliance/componentize-js/package.json")
        .exists()
    {
        return Err(format!(
            "componentize-js is not installed for guests/gemini: run (cd {} && npm ci)",
            gemini_dir.display()
        ));
    }

    // Both stay on dsh:llm@0.1.0: they are the proof that 0.1 guests keep working.
    let wit = root.join("wit/0.1.0");
    let retry_budget = out.join("retry_budget.wasm");
    let gemini = out.join("gemini.wasm");
    let jobs: Vec<(PathBuf, u64, std::process::Command)> = vec![
        {
            let stamp = inputs_hash(
                &[&root.join("guests/retry-budget"), &wit],
                &[&python, &componentize_py],
            );
            let mut cmd = std::process::Command::new("bash");
            cmd.arg(root.join("guests/retry-budget/build.sh")).arg(&out);
            (retry_budget.clone(), stamp, cmd)
        },
        {
            let lock = String::from_utf8_lossy(&lock).into_owned();
            let stamp = inputs_hash(&[&gemini_dir, &wit], &[&node, &lock]);
            let mut cmd = std::process::Command::new("node");
            cmd.arg(gemini_dir.join("build.mjs")).arg(&out);
            (gemini.clone(), stamp, cmd)
        },
    ];
    let results: Vec<Result<(), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .into_iter()
            .map(|(wasm, stamp, mut cmd)| {
                s.spawn(move || {
                    let stamp_file = wasm.with_extension("wasm.inputs");
                    let current = std::fs::read_to_string(&stamp_file).unwrap_or_default();
                    if wasm.exists() && current.trim() == stamp.to_string() {
                        return Ok(());
                    }
                    let output = cmd.output().map_err(|e| format!("running {cmd:?}: {e}"))?;
                    if !output.status.success() {
                        return Err(format!(
                            "building {} failed ({cmd:?}, {}):\n{}\n{}",
                            wasm.display(),
                            output.status,
                            String::from_utf8_lossy(&output.stdout),
                            String::from_utf8_lossy(&output.stderr)
                        ));
                    }
                    std::fs::write(&stamp_file, stamp.to_string())
                        .map_err(|e| format!("writing {}: {e}", stamp_file.display()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("build thread"))
            .collect()
    });
    for r in results {
        r?;
    }

    // Load both once (compiling them into the shared cache): a run that fails at once, before any
    // network, with AUTH (no key), which the retry-budget listener gives up on.
    let scratch = Scratch::new();
    scratch.config(&format!(
        "[providers.gemini]\npreset = \"openai-compatible\"\nadapter = {:?}\napi_key_env = \"DSH_WARM_UP_NO_KEY\"\n\
         credential_headers = [\"x-goog-api-key\"]\n\
         api_key_required = true\nbase_url = \"http://127.0.0.1:9/v1beta\"\nmodel = \"gemini-2.5-flash\"\n\
         [[listeners]]\nwasm = {:?}\nconfig = {{ budget_ms = 1 }}\n",
        gemini.display().to_string(),
        retry_budget.display().to_string()
    ));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_dsh-host"))
        .args(["run", "--provider", "gemini", "warm up"])
        .env("DSH_SESSIONS_DIR", scratch.sessions())
        .env("DSH_CACHE_DIR", shared_cache_dir())
        .env("DSH_CONFIG", scratch.dir.path().join("dsh.toml"))
        .env_remove("DSH_WARM_UP_NO_KEY")
        .env_remove("DSH_LOG")
        .output()
        .map_err(|e| format!("running dsh-host to warm the cache: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() != Some(1) || !stderr.contains("AUTH") {
        return Err(format!(
            "loading the guests built from other languages failed ({}):\n{stderr}",
            output.status
        ));
    }
    Ok(OtherLanguageGuests {
        retry_budget,
        gemini,
    })
}

/// `program ARGS` prints a version; otherwise an error saying how to install it.
fn tool_version(program: &str, args: &[&str], install: &str) -> Result<String, String> {
    match std::process::Command::new(program).args(args).output() {
        Ok(o) if o.status.success() => Ok(format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout).trim(),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Ok(o) => Err(format!(
            "`{program} {}` failed ({}): {}; {install}",
            args.join(" "),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("`{program}` cannot be run ({e}); {install}")),
    }
}

/// A hash of every file under `dirs` (except node_modules, __pycache__ and dot-directories) and of
/// `extra`: what a guest build depends on.
fn inputs_hash(dirs: &[&Path], extra: &[&str]) -> u64 {
    use std::hash::{Hash, Hasher};
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "node_modules" || name == "__pycache__" || name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(&path, files);
            } else {
                files.push(path);
            }
        }
    }
    let mut hasher = std::hash::DefaultHasher::new();
    for dir in dirs {
        let mut files = Vec::new();
        walk(dir, &mut files);
        files.sort();
        for file in files {
            file.hash(&mut hasher);
            std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
        }
    }
    extra.hash(&mut hasher);
    hasher.finish()
}

// ---- the gateway (tests/e2e/gateway.rs and gateway_sdk.rs) ------------------------------------

/// The variable the gateway's upstream providers take their key from (`api_key_env`): a key
/// configured for the provider by name, as a real deployment pointing a preset at its own host does.
pub const UPSTREAM_KEY_ENV: &str = "DSH_TEST_UPSTREAM_KEY";

/// `[providers.NAME]` on the mock at `url` with the `preset`'s adapter, the test key, and a fast
/// retry policy without jitter (so the tests can count attempts and backoffs exactly).
pub fn upstream_toml(
    name: &str,
    preset: &str,
    url: &str,
    max_retries: u32,
    initial_delay_ms: u64,
) -> String {
    format!(
        "[providers.{name}]\npreset = {preset:?}\nbase_url = {url:?}\nmodel = \"mock-model\"\n\
         api_key_env = {UPSTREAM_KEY_ENV:?}\napi_key_required = true\n\
         [providers.{name}.retry_policy]\nmax_retries = {max_retries}\ninitial_delay_ms = {initial_delay_ms}\n\
         jitter_ratio = 0.0\n"
    )
}

/// A running `dsh-host serve`: its address (read from the first line of its stdout) and what it has
/// written to stderr so far, for failure messages. Killed when dropped.
pub struct GatewayProcess {
    pub child: tokio::process::Child,
    pub addr: std::net::SocketAddr,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl GatewayProcess {
    /// `http://ADDR/v1`, what an SDK takes as its base URL.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://ADDR` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Sends `signal` (libc::SIGTERM, libc::SIGKILL...) to the process.
    pub fn signal(&self, signal: i32) {
        let pid = self.child.id().expect("the gateway is running") as i32;
        // SAFETY: kill(2) on a child we spawned and have not reaped.
        assert_eq!(
            unsafe { libc::kill(pid, signal) },
            0,
            "kill({pid}, {signal})"
        );
    }

    /// Waits (at most `bound`) for the process to exit.
    pub async fn exit(&mut self, bound: std::time::Duration) -> std::process::ExitStatus {
        match tokio::time::timeout(bound, self.child.wait()).await {
            Ok(status) => status.unwrap(),
            Err(_) => panic!(
                "the gateway did not exit within {bound:?}; stderr:\n{}",
                self.stderr()
            ),
        }
    }
}

impl Scratch {
    /// Starts `dsh-host serve --listen 127.0.0.1:0 EXTRA` with this scratch's config and sessions,
    /// the test upstream key in [`UPSTREAM_KEY_ENV`] and `env`, and waits for its "listening on" line.
    pub async fn start_gateway(&self, extra: &[&str], env: &[(&str, &str)]) -> GatewayProcess {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt};
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut cmd = self.command(&args, None);
        cmd.env(UPSTREAM_KEY_ENV, TEST_KEY)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("dsh-host serve starts");
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut err_pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf).await
                && n > 0
            {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        // The first gateway of a test run may compile the built-in guests into the shared cache.
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(120),
            out.read_line(&mut line),
        )
        .await;
        let text = || String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
        let addr = match read {
            Ok(Ok(n)) if n > 0 => line
                .trim()
                .strip_prefix("dsh-host gateway listening on http://")
                .and_then(|rest| rest.strip_suffix("/v1"))
                .and_then(|a| a.parse().ok())
                .unwrap_or_else(|| {
                    panic!(
                        "unexpected first line from dsh-host serve: {line:?}; stderr:\n{}",
                        text()
                    )
                }),
            Ok(_) => {
                let status = child.wait().await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                panic!(
                    "dsh-host serve exited ({status}) before listening; stderr:\n{}",
                    text()
                )
            }
            Err(_) => panic!(
                "dsh-host serve printed no address within 120 s; stderr:\n{}",
                text()
            ),
        };
        tokio::spawn(async move {
            let mut sink = Vec::new();
            let _ = out.read_to_end(&mut sink).await;
        });
        GatewayProcess {
            child,
            addr,
            stderr,
        }
    }

    /// The events of session `id` in this scratch's sessions directory.
    pub fn session_events(&self, id: &str) -> Vec<Event> {
        SessionStore::open(&self.sessions())
            .unwrap()
            .read(id)
            .unwrap_or_else(|e| panic!("reading session {id}: {e:#}"))
            .events
    }

    /// The ids of every session in this scratch's sessions directory, sorted.
    pub fn session_ids(&self) -> Vec<String> {
        let Ok(dir) = std::fs::read_dir(self.sessions()) else {
            return Vec::new();
        };
        let mut ids: Vec<String> = dir
            .map(|e| {
                e.unwrap()
                    .path()
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        ids.sort();
        ids
    }
}

/// Polls session `id`'s log (every 20 ms, at most `bound`) until `done` holds for its events.
pub async fn wait_for_log(
    scratch: &Scratch,
    id: &str,
    bound: std::time::Duration,
    what: &str,
    done: impl Fn(&[Event]) -> bool,
) -> Vec<Event> {
    let deadline = std::time::Instant::now() + bound;
    loop {
        if scratch.sessions().join(format!("{id}.jsonl")).exists() {
            let events = scratch.session_events(id);
            if done(&events) {
                return events;
            }
            if std::time::Instant::now() > deadline {
                panic!(
                    "session {id}: no {what} within {bound:?}; its log:\n{}",
                    timeline(&events)
                );
            }
        } else if std::time::Instant::now() > deadline {
            panic!("session {id} has no log after {bound:?}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A log as one line per event, for failure messages.
pub fn timeline(events: &[Event]) -> String {
    events
        .iter()
        .map(|e| {
            format!(
                "{} {} {}\n",
                e.seq,
                e.kind,
                serde_json::to_string(&e.data).unwrap()
            )
        })
        .collect()
}

/// The failure code of a session's `llm/error` (the waterfall gave up), if any.
pub fn final_code(events: &[Event]) -> Option<String> {
    of_kind(events, "llm/error")
        .last()
        .map(|e| e.data["failure"]["code"].as_str().unwrap().to_string())
}
