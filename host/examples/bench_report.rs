//! Runs the benchmarks that need whole processes or many sessions, reads criterion's estimates for
//! the rest, and prints one Markdown report (figures, ratios, machine, commands). `scripts/bench`
//! runs everything and keeps the output in BENCHMARKS.md.
//!
//! Usage: bench_report [--quick] [--js-adapter FILE.wasm] [--python-listener FILE.wasm]
//!                     [--postgres URL] [--store-only]
//!   --postgres URL: section 7 also measures PostgreSQL at URL (a database the report may create
//!                   tables in; scripts/bench starts a throwaway cluster for it)
//!   --store-only:   section 7 alone (`scripts/bench --store`)

use dsh_host::attempt::Provider;
use dsh_host::config::{self, Config, RetryPolicy};
use dsh_host::engine::GuestEngine;
use dsh_host::mock::{MockScript, MockServer};
use dsh_host::pg_store::PgStore;
use dsh_host::runtime::Runtime;
use dsh_host::session::{Session, SessionDeps};
use dsh_host::store::SessionStore;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Args {
    quick: bool,
    js_adapter: Option<PathBuf>,
    python_listener: Option<PathBuf>,
    postgres: Option<String>,
    store_only: bool,
}

fn args() -> Args {
    let mut a = Args {
        quick: false,
        js_adapter: None,
        python_listener: None,
        postgres: None,
        store_only: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => a.quick = true,
            // Absolute: the Python listener is named in a config file elsewhere.
            "--js-adapter" => {
                a.js_adapter = it
                    .next()
                    .map(|p| std::fs::canonicalize(p).expect("the JS adapter file"))
            }
            "--python-listener" => {
                a.python_listener = it
                    .next()
                    .map(|p| std::fs::canonicalize(p).expect("the Python listener file"))
            }
            "--postgres" => a.postgres = Some(it.next().expect("--postgres URL")),
            "--store-only" => a.store_only = true,
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

fn host_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/examples/bench_report -> target/<profile>/dsh-host
    let bin = exe.parent().unwrap().parent().unwrap().join("dsh-host");
    assert!(
        bin.exists(),
        "build the binary first: cargo build --release -p dsh-host ({})",
        bin.display()
    );
    bin
}

fn target_dir() -> PathBuf {
    host_binary()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf()
}

/// CPU time (user + system) of all waited-for children so far.
fn children_cpu() -> Duration {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

fn completion_script(chunks: usize, copies: usize) -> String {
    let pieces: Vec<String> = (0..chunks).map(|i| format!("\"w{i} \"")).collect();
    let step = format!(r#"{{"completion":{{"text":[{}]}}}}"#, pieces.join(","));
    format!(r#"{{"steps":[{}]}}"#, vec![step; copies].join(","))
}

/// Starts `dsh-host mock` in its own process (so its CPU is not counted) and returns it with its URL.
/// A mock provider process, killed when dropped: a report that panics must not leave a server
/// running (nor holding its parent's stderr, which a test waiting on this report reads to the end).
struct MockProcess(std::process::Child);

impl MockProcess {
    fn kill(&mut self) -> std::io::Result<()> {
        self.0.kill()
    }

    fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        self.0.wait()
    }
}

impl Drop for MockProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_mock(script: &str, dir: &Path) -> (MockProcess, String) {
    let path = dir.join(format!("script-{}.json", rand_suffix()));
    std::fs::write(&path, script).unwrap();
    let mut child = Command::new(host_binary())
        .args(["mock", "--script", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut line = String::new();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    reader.read_line(&mut line).unwrap();
    // Keep draining: the mock must never see a closed stdout.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let url = line
        .trim()
        .strip_prefix("mock provider listening on ")
        .unwrap()
        .to_string();
    (MockProcess(child), url)
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[((s.len() as f64 - 1.0) * p).round() as usize]
}

/// Criterion's mean estimate (ns) for `group/function` (criterion keeps every crate's estimates
/// under the workspace's `target/criterion`, whatever `--target-dir` built the benchmark).
fn criterion_ns(group: &str, function: &str) -> Option<f64> {
    let path = target_dir()
        .join("criterion")
        .join(group)
        .join(function.replace('/', "_"))
        .join("new/estimates.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

/// CPU per streamed chunk of `dsh-host run` (the whole process: engine, adapter, HTTP, decode, log).
fn cpu_dsh_host(url: &str, dir: &Path) -> Duration {
    let before = children_cpu();
    let out = Command::new(host_binary())
        .args([
            "run",
            "--provider",
            "openai-compatible",
            "--base-url",
            url,
            "--model",
            "m",
            "bench",
        ])
        .env("DSH_SESSIONS_DIR", dir.join("sessions"))
        .env("DSH_CACHE_DIR", dir.join("cache"))
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    children_cpu() - before
}

/// The baseline: a plain reqwest client reading and parsing the same SSE (this binary, child mode).
fn cpu_plain_client(url: &str) -> Duration {
    let before = children_cpu();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--plain-client", url])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    children_cpu() - before
}

/// Child mode: POST, read the SSE stream, parse every event's JSON, collect the text. Single-threaded
/// runtime, like `dsh-host run`, so the two differ only in what they do per chunk.
fn plain_client(url: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let mut resp = client
            .post(format!("{url}/chat/completions"))
            .header("content-type", "application/json")
            .body(r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"bench"}]}"#)
            .send()
            .await
            .unwrap();
        let mut buf = Vec::new();
        let mut text = String::new();
        while let Some(bytes) = resp.chunk().await.unwrap() {
            buf.extend_from_slice(&bytes);
            while let Some(end) = buf.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = buf.drain(..end + 2).collect();
                let line = String::from_utf8_lossy(&event);
                if let Some(data) = line.trim().strip_prefix("data: ") {
                    if data == "[DONE]" {
                        continue;
                    }
                    let v: serde_json::Value = serde_json::from_str(data).unwrap();
                    if let Some(t) = v["choices"][0]["delta"]["content"].as_str() {
                        text.push_str(t);
                    }
                }
            }
        }
        assert!(!text.is_empty());
    });
}

/// Time from spawning `dsh-host run` until the mock has the request, with the given cache dir.
async fn start_to_first_request(
    extra: &[&str],
    config: Option<&Path>,
    cache: &Path,
    sessions: &Path,
) -> Duration {
    let mock = MockServer::start(
        MockScript::from_json_str(&completion_script(1, 1)).unwrap(),
        ([127, 0, 0, 1], 0).into(),
    )
    .await
    .unwrap();
    let url = mock.base_url();
    let mut args: Vec<&str> = vec![
        "run",
        "--provider",
        "openai-compatible",
        "--base-url",
        &url,
        "--model",
        "m",
    ];
    args.extend_from_slice(extra);
    args.push("hi");
    let mut cmd = tokio::process::Command::new(host_binary());
    cmd.args(&args)
        .env("DSH_CACHE_DIR", cache)
        .env("DSH_SESSIONS_DIR", sessions)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(c) = config {
        cmd.env("DSH_CONFIG", c);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    loop {
        if !mock.requests().is_empty() {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            use tokio::io::AsyncReadExt;
            let _ = child.stderr.take().unwrap().read_to_string(&mut err).await;
            panic!("dsh-host {args:?} exited ({status}) before sending a request: {err}");
        }
        tokio::time::sleep(Duration::from_micros(200)).await;
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no request within 2 minutes"
        );
    }
    let took = started.elapsed();
    child.wait().await.unwrap();
    took
}

async fn startup(
    label: &str,
    extra: &[&str],
    config: Option<&Path>,
    dir: &Path,
    runs: usize,
) -> (String, f64, f64) {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    for i in 0..runs {
        let cache = dir.join(format!("cache-{label}-{i}"));
        cold.push(
            start_to_first_request(extra, config, &cache, &dir.join("sessions"))
                .await
                .as_secs_f64()
                * 1e3,
        );
        warm.push(
            start_to_first_request(extra, config, &cache, &dir.join("sessions"))
                .await
                .as_secs_f64()
                * 1e3,
        );
    }
    (label.to_string(), median(cold), median(warm))
}

/// Where the sessions of a measurement are kept.
enum Backend<'a> {
    Files(&'a Path),
    Postgres(&'a str),
}

impl Backend<'_> {
    fn open(&self) -> SessionStore {
        match self {
            Backend::Files(dir) => SessionStore::open(dir).unwrap(),
            Backend::Postgres(url) => {
                SessionStore::Postgres(PgStore::connect(url, Duration::from_secs(30)).unwrap())
            }
        }
    }

    fn label(&self) -> &'static str {
        match self {
            Backend::Files(_) => "JSON Lines files",
            Backend::Postgres(_) => "PostgreSQL (loopback)",
        }
    }
}

/// What [`concurrency`] measured.
struct Crowd {
    per_session_mib: f64,
    p50_ms: f64,
    p99_ms: f64,
    solo_ms: f64,
    wall_ms: f64,
    completed: usize,
}

/// `sessions` sessions in one process, each meeting one 429 then, after a 1 s backoff, a streamed
/// answer; their logs and the fleet's cool-downs in `backend`.
///
/// The 429 carries no retry-after: with one, the first session's 429 would start a cool-down that
/// holds every other session's first attempt (the fleet's back-pressure, as a real provider asks),
/// after which the mock, which answers by its script's order and not by time, would still send them
/// their 429. The backoff is the policy's own (1 s, no jitter); every attempt still asks the store
/// for a cool-down.
async fn concurrency(sessions: usize, dir: &Path, backend: Backend<'_>) -> Crowd {
    let mut steps: Vec<String> = vec![r#"{"status":429,"body":"{\"error\":{\"message\":\"Rate limit reached\",\"code\":\"rate_limit_exceeded\"}}"}"#.to_string(); sessions];
    let answer = r#"{"completion":{"text":["one ","two ","three ","four ","five"]}}"#.to_string();
    // The solo baseline first (its own 429 and answer), then the crowd.
    let mut all = vec![steps[0].clone(), answer.clone()];
    all.append(&mut steps);
    all.extend(std::iter::repeat_n(answer, sessions));
    let (mut mock, url) = spawn_mock(&format!(r#"{{"steps":[{}]}}"#, all.join(",")), dir);

    let mut cfg = config::preset("openai-compatible").unwrap();
    cfg.base_url = url;
    cfg.model = "bench-model".into();
    cfg.retry_policy = RetryPolicy {
        initial_delay_ms: 1000,
        jitter_ratio: 0.0,
        ..RetryPolicy::default()
    };
    let mut config = Config::builtin();
    config
        .listeners
        .retain(|l| matches!(&l.guest, dsh_host::config::GuestRef::Builtin(n) if n == "llm-retry"));
    // Opened off the runtime: the PostgreSQL store's calls block, as they do for the CLI.
    let store = Arc::new(tokio::task::block_in_place(|| backend.open()));
    let runtime = Runtime::new(
        config,
        GuestEngine::new(Some(dir.join("cache"))).unwrap(),
        Some(1),
    )
    .await
    .unwrap()
    .with_cooldowns(store.cooldowns());
    let provider: Arc<Provider> = runtime.provider(cfg).await.unwrap();
    let deps = runtime.deps(provider);

    let run_one = |deps: SessionDeps, store: Arc<SessionStore>| async move {
        let mut session = Session::start(deps, store.create().unwrap(), None).unwrap();
        let t = Instant::now();
        let ok = session.run_turn("hi", &mut |_| {}).await.is_ok();
        (t.elapsed().as_secs_f64() * 1e3, ok)
    };
    let (solo_ms, solo_ok) = run_one(deps.clone(), store.clone()).await;
    assert!(solo_ok);

    let rss_before = rss_bytes();
    let peak = Arc::new(std::sync::atomic::AtomicU64::new(rss_before));
    let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let (peak, sampling) = (peak.clone(), sampling.clone());
        tokio::spawn(async move {
            while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                peak.fetch_max(rss_bytes(), std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let started = Instant::now();
    let handles: Vec<_> = (0..sessions)
        .map(|_| tokio::spawn(run_one(deps.clone(), store.clone())))
        .collect();
    let mut times = Vec::new();
    let mut completed = 0;
    for h in handles {
        let (ms, ok) = h.await.unwrap();
        times.push(ms);
        completed += ok as usize;
    }
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    sampling.store(false, std::sync::atomic::Ordering::Relaxed);
    sampler.await.unwrap();
    let _ = mock.kill();
    let _ = mock.wait();
    let per_session_mib = (peak
        .load(std::sync::atomic::Ordering::Relaxed)
        .saturating_sub(rss_before)) as f64
        / sessions as f64
        / (1 << 20) as f64;
    let added: Vec<f64> = times.iter().map(|t| t - solo_ms).collect();
    Crowd {
        per_session_mib,
        p50_ms: percentile(&added, 0.5),
        p99_ms: percentile(&added, 0.99),
        solo_ms,
        wall_ms,
        completed,
    }
}

/// `n` durable appends (an `llm/retry` event each, the durable point before a backoff) to one
/// session log: events per second, and the p50 and p99 of one durable point in milliseconds.
fn durable_appends(store: &SessionStore, n: usize) -> (f64, f64, f64) {
    let mut log = store.create().unwrap();
    log.append("session/start", serde_json::json!({"provider": "bench"}))
        .unwrap();
    let mut latencies = Vec::with_capacity(n);
    let started = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        log.append_durable("llm/retry", serde_json::json!({"turn": 1, "step": 1, "retry": i, "delay_ms": 1000, "code": "RATE_LIMITED"}))
            .unwrap();
        latencies.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let total = started.elapsed().as_secs_f64();
    (
        n as f64 / total,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
    )
}

/// Section 7: both session-store backends, measured in the same run.
fn store_section(out: &mut String, rt: &tokio::runtime::Runtime, a: &Args, dir: &Path) {
    let appends = if a.quick { 200 } else { 5_000 };
    let crowd = if a.quick { 50 } else { 1_000 };
    let files_dir = dir.join("store-files");
    let mut backends = vec![Backend::Files(&files_dir)];
    if let Some(url) = &a.postgres {
        backends.push(Backend::Postgres(url));
    }
    writeln!(
        out,
        "\n## 7. Session store: JSON Lines files against PostgreSQL\n"
    )
    .unwrap();
    if a.postgres.is_none() {
        writeln!(out, "PostgreSQL not measured: no `--postgres URL` (scripts/bench starts a throwaway cluster when PostgreSQL is installed).\n").unwrap();
    }
    writeln!(out, "### 7a. Durable appends, one writer ({appends} `llm/retry` events, each a durable point: an fsync, or a committed transaction)\n").unwrap();
    writeln!(out, "| backend | durable events/s | p50 | p99 | events/s against the files |\n| --- | --- | --- | --- | --- |").unwrap();
    let mut base = None;
    for backend in &backends {
        let (eps, p50, p99) = durable_appends(&backend.open(), appends);
        let base = *base.get_or_insert(eps);
        writeln!(
            out,
            "| {} | {eps:.0} | {p50:.3} ms | {p99:.3} ms | {:.2}× |",
            backend.label(),
            eps / base
        )
        .unwrap();
    }
    writeln!(out, "\n### 7b. {crowd} concurrent sessions in one process, each a 429 then (1 s later) a streamed answer\n").unwrap();
    writeln!(out, "Logs and the fleet's cool-downs in each backend (with PostgreSQL: the `dsh_cooldowns` row every attempt reads).\n").unwrap();
    writeln!(out, "| backend | completed | all done in | added latency p50 | added latency p99 | solo turn | memory per session (peak) | wall time against the files |\n| --- | --- | --- | --- | --- | --- | --- | --- |").unwrap();
    let mut base = None;
    for backend in backends {
        let label = backend.label();
        let c = rt.block_on(concurrency(crowd, dir, backend));
        let base = *base.get_or_insert(c.wall_ms);
        writeln!(
            out,
            "| {label} | {} / {crowd} | {:.0} ms | {:.1} ms | {:.1} ms | {:.0} ms | {:.3} MiB | {:.2}× |",
            c.completed, c.wall_ms, c.p50_ms, c.p99_ms, c.solo_ms, c.per_session_mib, c.wall_ms / base
        )
        .unwrap();
    }
    writeln!(out, "\nAdded latency = a session's turn time minus the same turn run alone (both include the 1 s backoff).").unwrap();
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .nth(1)
        .and_then(|k| k.parse::<u64>().ok())
        .map(|k| k / 1024 / 1024)
        .unwrap_or(0);
    format!(
        "{} cores ({cpu}), {mem} GiB RAM, {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
        std::env::consts::OS
    )
}

fn main() {
    let raw: Vec<String> = std::env::args().collect();
    if raw.get(1).map(String::as_str) == Some("--plain-client") {
        plain_client(&raw[2]);
        return;
    }
    let a = args();
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut out = String::new();
    if a.store_only {
        store_section(&mut out, &rt, &a, dir.path());
        print!("{}", out.trim_start());
        return;
    }
    writeln!(out, "# Benchmarks\n").unwrap();
    writeln!(out, "Machine: {}. Produced by `scripts/bench` (criterion: `cargo bench -p dsh-host --bench sandbox` and the native baseline `tests/decode-native`; sections 3-5: `target/release/examples/bench_report`; section 6: `scripts/bench-gateway`, alone with `scripts/bench --gateway`; section 7: `bench_report --store-only`, alone with `scripts/bench --store`, PostgreSQL 15 on a throwaway loopback cluster). Release builds.\n", machine()).unwrap();

    // 1. Decode throughput (criterion: the host's sandbox benchmark and tests/decode-native).
    writeln!(
        out,
        "## 1. Decode throughput (10,000-event streams, fed as 16 KiB network reads)\n"
    )
    .unwrap();
    writeln!(out, "Native: the adapters' plain libraries built with the guests' profile and wasm32 flags (`tests/decode-native`). Wasm: the components through the host, CPU bound on, as the product runs them; then the same without the bound's epoch checks, to show what it costs.\n").unwrap();
    writeln!(out, "| stream | native (events/s) | Wasm through the host (events/s) | Wasm / native | Wasm, no CPU bound | its ratio | target |").unwrap();
    writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |").unwrap();
    let events_per_s = |ns: f64| 10_000.0 / (ns / 1e9);
    let mut cross_check = Vec::new();
    for shape in ["openai", "anthropic"] {
        let native = criterion_ns("decode-native", shape);
        let wasm = criterion_ns("decode", &format!("{shape}/wasm"));
        let unbounded = criterion_ns("decode-breakdown", &format!("{shape}/wasm-no-cpu-bound"));
        match (native, wasm, unbounded) {
            (Some(n), Some(w), Some(u)) => {
                let (n, w, u) = (events_per_s(n), events_per_s(w), events_per_s(u));
                writeln!(
                    out,
                    "| {shape} | {:.2} M | {:.2} M | {:.2}× | {:.2} M | {:.2}× | ≥ 0.8× |",
                    n / 1e6,
                    w / 1e6,
                    w / n,
                    u / 1e6,
                    u / n
                )
                .unwrap();
            }
            _ => writeln!(
                out,
                "| {shape} | (run `scripts/bench`: it runs both benchmarks) | | | | | |"
            )
            .unwrap(),
        }
        if let Some(ns) = criterion_ns("decode", &format!("{shape}/native")) {
            cross_check.push(format!("{shape} {:.2} M events/s", events_per_s(ns) / 1e6));
        }
    }
    if !cross_check.is_empty() {
        writeln!(out, "\nThe same native code built with the host's release profile (no LTO, LLVM's default inlining), as the sandbox benchmark runs it beside the Wasm path: {}.", cross_check.join(", ")).unwrap();
    }

    // 2. Instantiation (criterion).
    writeln!(
        out,
        "\n## 2. Per-attempt instantiation (fresh Store + instance from InstancePre)\n"
    )
    .unwrap();
    writeln!(out, "| guest | time | target |\n| --- | --- | --- |").unwrap();
    for g in ["openai", "anthropic"] {
        match criterion_ns("instantiate", g) {
            Some(ns) => writeln!(out, "| {g} | {:.1} µs | ≤ 10 µs |", ns / 1e3).unwrap(),
            None => writeln!(out, "| {g} | (no criterion estimate) | ≤ 10 µs |").unwrap(),
        }
    }

    // 3. Start-up.
    let runs = if a.quick { 1 } else { 5 };
    writeln!(
        out,
        "\n## 3. Start-up: process start to the first request leaving the host (median of {runs})\n"
    )
    .unwrap();
    writeln!(out, "| guest | cold (empty compiled-code cache) | warm | target (warm) |\n| --- | --- | --- | --- |").unwrap();
    let mut rows = vec![rt.block_on(startup(
        "Rust (built-in openai adapter + 2 listeners)",
        &[],
        None,
        dir.path(),
        runs,
    ))];
    let mut targets = vec!["≤ 50 ms"];
    if let Some(js) = &a.js_adapter {
        let js = js.to_str().unwrap().to_string();
        // The Gemini adapter puts its key in x-goog-api-key: the provider must allow that header.
        let cfg = dir.path().join("js.toml");
        std::fs::write(
            &cfg,
            "[providers.openai-compatible]\ncredential_headers = [\"x-goog-api-key\"]\n",
        )
        .unwrap();
        rows.push(rt.block_on(startup(
            "JavaScript (gemini adapter)",
            &["--adapter", &js],
            Some(&cfg),
            dir.path(),
            runs,
        )));
        targets.push("≤ 100 ms");
    }
    if let Some(py) = &a.python_listener {
        let cfg = dir.path().join("py.toml");
        std::fs::write(&cfg, format!("[[listeners]]\nwasm = \"{}\"\nconfig = {{ budget_ms = 60000 }}\n[[listeners]]\nname = \"llm-retry\"\n", py.display())).unwrap();
        rows.push(rt.block_on(startup(
            "Python (retry-budget listener)",
            &[],
            Some(&cfg),
            dir.path(),
            runs,
        )));
        targets.push("≤ 100 ms");
    }
    for ((label, cold, warm), target) in rows.iter().zip(targets) {
        writeln!(out, "| {label} | {cold:.1} ms | {warm:.1} ms | {target} |").unwrap();
    }

    // 4. End to end over loopback.
    let chunks = if a.quick { 1_000 } else { 10_000 };
    let (mut mock, url) = spawn_mock(&completion_script(chunks, 3), dir.path());
    let (mut small_mock, small_url) = spawn_mock(&completion_script(1, 3), dir.path());
    let mut dsh = Vec::new();
    let mut plain = Vec::new();
    for _ in 0..3 {
        let big = cpu_dsh_host(&url, dir.path()).as_secs_f64();
        let fixed = cpu_dsh_host(&small_url, dir.path()).as_secs_f64();
        dsh.push((big - fixed) / (chunks - 1) as f64);
    }
    let _ = (mock.kill(), small_mock.kill());
    let _ = (mock.wait(), small_mock.wait());
    let (mut mock, url) = spawn_mock(&completion_script(chunks, 3), dir.path());
    let (mut small_mock, small_url) = spawn_mock(&completion_script(1, 3), dir.path());
    for _ in 0..3 {
        let big = cpu_plain_client(&url).as_secs_f64();
        let fixed = cpu_plain_client(&small_url).as_secs_f64();
        plain.push((big - fixed) / (chunks - 1) as f64);
    }
    let _ = (mock.kill(), small_mock.kill());
    let _ = (mock.wait(), small_mock.wait());
    let (d, p) = (median(dsh) * 1e6, median(plain) * 1e6);
    writeln!(out, "\n## 4. End to end over loopback: a {chunks}-chunk completion from the mock (separate process)\n").unwrap();
    writeln!(out, "CPU time per chunk of the whole client process (user + system, fixed start-up cost subtracted by a 1-chunk run; median of 3).\n").unwrap();
    writeln!(
        out,
        "| client | CPU per chunk | ratio | target |\n| --- | --- | --- | --- |"
    )
    .unwrap();
    writeln!(
        out,
        "| plain Rust reqwest client, parsing each event's JSON | {p:.2} µs | 1.00× | |"
    )
    .unwrap();
    writeln!(
        out,
        "| `dsh-host run` (Wasm adapter, session log) | {d:.2} µs | {:.2}× | ≤ 1.5× |",
        d / p
    )
    .unwrap();

    // 5. Concurrency.
    let n = if a.quick { 50 } else { 1_000 };
    let c = rt.block_on(concurrency(
        n,
        dir.path(),
        Backend::Files(&dir.path().join("crowd")),
    ));
    writeln!(out, "\n## 5. Concurrency: {n} sessions in one process, each a 429 then (1 s later) a streamed answer\n").unwrap();
    writeln!(out, "| sessions completed | resident memory per session (peak) | added latency p50 | added latency p99 | solo turn | target |\n| --- | --- | --- | --- | --- | --- |").unwrap();
    writeln!(
        out,
        "| {} / {n} | {:.3} MiB | {:.1} ms | {:.1} ms | {:.0} ms | ≤ 2 MiB per session |",
        c.completed, c.per_session_mib, c.p50_ms, c.p99_ms, c.solo_ms
    )
    .unwrap();
    writeln!(out, "\nAdded latency = a session's turn time minus the same turn run alone (both include the 1 s backoff).").unwrap();
    print!("{out}");
}
