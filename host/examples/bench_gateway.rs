//! The gateway benchmark (issue #11, item 7): `dsh-host serve` against calling the upstream directly
//! and against LiteLLM proxy, side by side in one run, with the same upstream and the same load
//! generator. Prints one Markdown section; `scripts/bench-gateway` installs the pinned tools (oha,
//! LiteLLM proxy), builds this and keeps the section in BENCHMARKS.md.
//!
//! Usage:
//!   bench_gateway upstream [--listen ADDR] [--stream-chunks N] [--stream-interval-ms MS]
//!   bench_gateway report --dsh-host BIN [--oha BIN] [--litellm BIN] [--seconds N] [--streams N]
//!                        [--work DIR] [--quick]
//!
//! The upstream is a fixed-answer HTTP/1.1 server with keep-alive, on the same hyper stack as the
//! gateway: every `POST` gets the same small non-streaming chat completion (JSON), except under
//! `/slow/`, where it streams `--stream-chunks` SSE chunks `--stream-interval-ms` apart. The
//! embedded mock (`dsh-host mock`) answers one request per connection (`connection: close`) and one
//! scripted step per request; it is measured once beside it to show why it is not the baseline.
//!
//! `--quick` needs neither oha nor LiteLLM: a small closed-loop run with the built-in client, a few
//! streams and the memory figures (the test suite runs it; figures are printed, never asserted).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const GATEWAY_KEY: &str = "sk-bench-gateway-0123456789abcdef";
const LITELLM_KEY: &str = "sk-bench-litellm-0123456789abcdef";
const MODEL: &str = "bench-model";
const ANSWER: &str = r#"{"id":"chatcmpl-bench","object":"chat.completion","created":1767225600,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"Hello from the benchmark upstream."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":7,"total_tokens":16}}"#;

fn request_body(model: &str, stream: bool) -> String {
    format!(
        r#"{{"model":"{model}","messages":[{{"role":"user","content":"Say hello."}}],"max_tokens":16,"stream":{stream}}}"#
    )
}

// ---- the upstream ---------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct StreamShape {
    chunks: usize,
    interval: Duration,
}

fn upstream_main(args: &[String]) {
    let mut listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut shape = StreamShape {
        chunks: 20,
        interval: Duration::from_millis(250),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().expect("a value").clone();
        match a.as_str() {
            "--listen" => listen = value().parse().expect("an address"),
            "--stream-chunks" => shape.chunks = value().parse().expect("a number"),
            "--stream-interval-ms" => {
                shape.interval = Duration::from_millis(value().parse().expect("a number"))
            }
            other => panic!("unknown argument {other}"),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen).await.expect("bind");
        println!(
            "bench upstream listening on http://{}/v1",
            listener.local_addr().unwrap()
        );
        let router =
            axum::Router::new().fallback(move |uri: axum::http::Uri, body: axum::body::Bytes| {
                answer(uri, body, shape)
            });
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let service = hyper_util::service::TowerToHyperService::new(router.clone());
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::spawn(async move {
                let _ = conn.await;
            });
        }
    });
}

async fn answer(
    uri: axum::http::Uri,
    _body: axum::body::Bytes,
    shape: StreamShape,
) -> axum::response::Response {
    use axum::http::HeaderValue;
    if !uri.path().contains("/slow/") {
        let mut r = axum::response::Response::new(axum::body::Body::from(ANSWER));
        r.headers_mut()
            .insert("content-type", HeaderValue::from_static("application/json"));
        return r;
    }
    let chunk = |delta: &str, finish: &str, usage: &str| {
        format!(
            "data: {{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"bench-model\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]{usage}}}\n\n"
        )
    };
    let mut events = vec![(
        Duration::ZERO,
        chunk(r#"{"role":"assistant","content":""}"#, "null", ""),
    )];
    for i in 0..shape.chunks {
        events.push((
            shape.interval,
            chunk(&format!(r#"{{"content":"w{i} "}}"#), "null", ""),
        ));
    }
    events.push((
        Duration::ZERO,
        chunk(
            "{}",
            "\"stop\"",
            r#","usage":{"prompt_tokens":9,"completion_tokens":20,"total_tokens":29}"#,
        ),
    ));
    events.push((Duration::ZERO, "data: [DONE]\n\n".to_string()));
    let stream = futures_util::stream::unfold(events.into_iter(), |mut it| async move {
        let (wait, text) = it.next()?;
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        Some((
            Ok::<_, std::convert::Infallible>(axum::body::Bytes::from(text)),
            it,
        ))
    });
    let mut r = axum::response::Response::new(axum::body::Body::from_stream(stream));
    r.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    r.headers_mut()
        .insert("cache-control", HeaderValue::from_static("no-cache"));
    r
}

// ---- processes --------------------------------------------------------------------------------------

/// A child process killed when dropped.
struct Proc {
    child: Child,
}

impl Proc {
    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns a process whose first stdout line holds its URL after `prefix`; stdout keeps draining.
fn spawn_with_url(name: &'static str, mut cmd: Command, prefix: &str) -> (Proc, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {name}: {e}"));
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let Some(url) = line.trim().strip_prefix(prefix).map(str::to_string) else {
        let _ = child.kill();
        panic!("{name} did not print its address: {line:?}");
    };
    (Proc { child }, url)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A process and all its descendants (LiteLLM may fork workers).
fn tree_pids(root: u32) -> Vec<u32> {
    let mut pids = vec![root];
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // The command name is in parentheses and may hold spaces: the ppid follows the last ')'.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse().ok());
            if let Some(ppid) = ppid {
                parents.push((pid, ppid));
            }
        }
    }
    let mut i = 0;
    while i < pids.len() {
        let p = pids[i];
        pids.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    pids
}

/// Resident memory of a process tree, in bytes.
fn tree_rss(root: u32) -> u64 {
    tree_pids(root).iter().map(|p| rss_of(*p)).sum()
}

/// CPU time (user + system) a process tree has used so far, in seconds.
fn tree_cpu(root: u32) -> f64 {
    // SAFETY: sysconf only reads a constant.
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    tree_pids(root)
        .iter()
        .map(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            let f: Vec<&str> = stat
                .rsplit_once(')')
                .map(|(_, r)| r.split_whitespace().collect())
                .unwrap_or_default();
            // After the name: state is field 3, utime 14 and stime 15 (1-based) of the whole line.
            let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
            (ticks(11) + ticks(12)) / tick
        })
        .sum()
}

fn rss_of(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// Samples a process tree's resident memory every 20 ms until stopped; returns the peak.
struct RssSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RssSampler {
    fn start(pid: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(tree_rss(pid)));
        let (s, p) = (stop.clone(), peak.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(tree_rss(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        RssSampler {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.take().unwrap().join();
        self.peak.load(Ordering::Relaxed)
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The file system holding `path`, from /proc/mounts: `ext4 (/dev/vda)`.
fn filesystem_of(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let mut best: Option<(usize, String)> = None;
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 || !path.starts_with(f[1]) {
            continue;
        }
        if best.as_ref().is_none_or(|(len, _)| f[1].len() >= *len) {
            best = Some((f[1].len(), format!("{} ({} on {})", f[2], f[0], f[1])));
        }
    }
    best.map(|(_, s)| s).unwrap_or_else(|| "unknown".into())
}

// ---- targets ----------------------------------------------------------------------------------------

/// One way to reach the upstream: directly, through the gateway, through LiteLLM.
#[derive(Clone)]
struct Target {
    label: &'static str,
    url: String,
    stream_url: String,
    key: &'static str,
    model: &'static str,
    stream_model: &'static str,
    pid: Option<u32>,
}

fn write_gateway_config(dir: &Path, upstream: &str) -> PathBuf {
    let path = dir.join("dsh.toml");
    let slow = upstream.replace("/v1", "/slow/v1");
    std::fs::write(
        &path,
        format!(
            "# Written by bench_gateway: an openai-compatible provider at the benchmark upstream.\n\
             [providers.bench]\npreset = \"openai-compatible\"\nbase_url = \"{upstream}\"\nmodel = \"{MODEL}\"\n\n\
             [providers.slow]\npreset = \"openai-compatible\"\nbase_url = \"{slow}\"\nmodel = \"{MODEL}\"\n\n\
             [gateway]\ndefault_provider = \"bench\"\nkeys_env = \"DSH_BENCH_GATEWAY_KEYS\"\n\
             # 1,000 concurrent streams from one key: above the defaults (1024 in all, 256 per key).\n\
             max_concurrent = 4096\nmax_concurrent_per_key = 4096\n"
        ),
    )
    .unwrap();
    path
}

fn start_gateway(dsh_host: &Path, config: &Path, sessions: &Path) -> (Proc, String) {
    let mut cmd = Command::new(dsh_host);
    cmd.arg("--config")
        .arg(config)
        .arg("--sessions")
        .arg(sessions)
        .args(["serve", "--listen", "127.0.0.1:0"]);
    cmd.env("DSH_BENCH_GATEWAY_KEYS", GATEWAY_KEY);
    let (p, url) = spawn_with_url("gateway", cmd, "dsh-host gateway listening on ");
    (p, format!("{url}/chat/completions"))
}

fn start_litellm(litellm: &Path, dir: &Path, upstream: &str) -> (Proc, String) {
    let config = dir.join("litellm.yaml");
    let slow = upstream.replace("/v1", "/slow/v1");
    std::fs::write(
        &config,
        format!(
            "model_list:\n  - model_name: {MODEL}\n    litellm_params:\n      model: openai/{MODEL}\n      api_base: {upstream}\n      api_key: sk-bench-upstream\n\
             \x20 - model_name: bench-slow\n    litellm_params:\n      model: openai/{MODEL}\n      api_base: {slow}\n      api_key: sk-bench-upstream\n\
             general_settings:\n  master_key: os.environ/LITELLM_MASTER_KEY\n"
        ),
    )
    .unwrap();
    let port = free_port();
    let mut cmd = Command::new(litellm);
    cmd.arg("--config").arg(&config).args([
        "--host",
        "127.0.0.1",
        "--port",
        &port.to_string(),
        "--num_workers",
        "1",
    ]);
    cmd.env("LITELLM_MASTER_KEY", LITELLM_KEY)
        // No fetch of the model cost map from the network, no telemetry, quiet logs.
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("LITELLM_TELEMETRY", "False")
        .env("LITELLM_LOG", "ERROR")
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(dir.join("litellm.log")).unwrap(),
        ));
    let child = cmd.spawn().expect("starting litellm");
    let p = Proc { child };
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::{Read, Write};
            let _ = s.write_all(
                b"GET /health/liveliness HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n",
            );
            let mut buf = String::new();
            let _ = s.read_to_string(&mut buf);
            if buf.starts_with("HTTP/1.1 200") {
                break;
            }
        }
        assert!(
            Instant::now() < deadline,
            "LiteLLM proxy did not become ready in 180 s (see {})",
            dir.join("litellm.log").display()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    (p, format!("{base}/v1/chat/completions"))
}

// ---- oha ----------------------------------------------------------------------------------------------

#[derive(Clone, Default)]
struct Run {
    rps: f64,
    p50_us: f64,
    p99_us: f64,
    ok: u64,
    total: u64,
    errors: String,
    /// CPU time (user + system) of the path's own process per request; 0 when not measured.
    cpu_per_request_us: f64,
}

/// One oha run against `t`; `extra` sets the load (`-c`, `-z`, `-q`, ...).
fn oha(oha: &Path, t: &Target, extra: &[String]) -> Run {
    let body = request_body(t.model, false);
    let out = Command::new(oha)
        .args([
            "--no-tui",
            "--output-format",
            "json",
            "-m",
            "POST",
            "-T",
            "application/json",
        ])
        .args([
            "-H",
            &format!("authorization: Bearer {}", t.key),
            "-d",
            &body,
        ])
        .args(extra)
        .arg(&t.url)
        .output()
        .expect("running oha");
    assert!(
        out.status.success(),
        "oha failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("oha's JSON");
    let pct = |k: &str| v["latencyPercentiles"][k].as_f64().unwrap_or(f64::NAN) * 1e6;
    let codes = v["statusCodeDistribution"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let ok = codes.get("200").and_then(|n| n.as_u64()).unwrap_or(0);
    let mut total: u64 = codes.values().filter_map(|n| n.as_u64()).sum();
    let mut errors: Vec<String> = codes
        .iter()
        .filter(|(k, _)| *k != "200")
        .map(|(k, n)| format!("{n} × HTTP {k}"))
        .collect();
    if let Some(e) = v["errorDistribution"].as_object() {
        for (k, n) in e {
            total += n.as_u64().unwrap_or(0);
            errors.push(format!("{n} × {k}"));
        }
    }
    Run {
        rps: v["summary"]["requestsPerSec"].as_f64().unwrap_or(0.0),
        p50_us: pct("p50"),
        p99_us: pct("p99"),
        ok,
        total,
        errors: errors.join("; "),
        cpu_per_request_us: 0.0,
    }
}

// ---- the built-in client (quick mode, streams) ---------------------------------------------------------

fn client(connections: usize) -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(connections)
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

async fn post(
    c: &reqwest::Client,
    url: &str,
    key: &str,
    body: String,
) -> Result<reqwest::Response, String> {
    c.post(url)
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| format!("{e}"))
}

/// Closed loop at one connection with the built-in client (quick mode only: oha does the real runs).
async fn closed_loop(t: &Target, n: usize) -> Run {
    let c = client(1);
    let mut times = Vec::with_capacity(n);
    let mut ok = 0;
    let started = Instant::now();
    for _ in 0..n {
        let t0 = Instant::now();
        if let Ok(r) = post(&c, &t.url, t.key, request_body(t.model, false)).await
            && r.status() == 200
            && r.bytes().await.is_ok()
        {
            ok += 1;
        }
        times.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    let rps = n as f64 / started.elapsed().as_secs_f64();
    Run {
        rps,
        p50_us: percentile(&times, 0.5),
        p99_us: percentile(&times, 0.99),
        ok,
        total: n as u64,
        errors: String::new(),
        cpu_per_request_us: 0.0,
    }
}

fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[((s.len() as f64 - 1.0) * p).round() as usize]
}

struct StreamReport {
    completed: usize,
    stalled: usize,
    failed: Vec<String>,
    max_gap_ms: f64,
    first_byte_p50_ms: f64,
    first_byte_p99_ms: f64,
    wall_s: f64,
    peak_rss: u64,
    rss_before: u64,
}

/// `n` streams opened at once; a stream is stalled if it never ends with `[DONE]` and all its
/// chunks, or if two reads of it are further apart than `stall`.
async fn streams(t: &Target, n: usize, chunks: usize, stall: Duration) -> StreamReport {
    let c = client(n);
    let rss_before = t.pid.map(tree_rss).unwrap_or(0);
    let sampler = t.pid.map(RssSampler::start);
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(n);
    for _ in 0..n {
        let (c, url, key, body) = (
            c.clone(),
            t.stream_url.clone(),
            t.key,
            request_body(t.stream_model, true),
        );
        tasks.push(tokio::spawn(async move {
            let t0 = Instant::now();
            let mut r = post(&c, &url, key, body).await?;
            if r.status() != 200 {
                return Err(format!(
                    "HTTP {}: {}",
                    r.status(),
                    r.text().await.unwrap_or_default()
                ));
            }
            let (mut first, mut last, mut gap) = (None, Instant::now(), Duration::ZERO);
            let mut all = Vec::new();
            while let Some(b) = r.chunk().await.map_err(|e| format!("{e}"))? {
                let now = Instant::now();
                first.get_or_insert(now - t0);
                gap = gap.max(now - last);
                last = now;
                all.extend_from_slice(&b);
            }
            let text = String::from_utf8_lossy(&all);
            let pieces = (0..chunks)
                .filter(|i| text.contains(&format!("w{i} ")))
                .count();
            let done = text.contains("data: [DONE]");
            Ok::<_, String>((first.unwrap_or_default(), gap, pieces == chunks && done))
        }));
    }
    let mut report = StreamReport {
        completed: 0,
        stalled: 0,
        failed: Vec::new(),
        max_gap_ms: 0.0,
        first_byte_p50_ms: 0.0,
        first_byte_p99_ms: 0.0,
        wall_s: 0.0,
        peak_rss: 0,
        rss_before,
    };
    let mut firsts = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok((first, gap, whole)) => {
                firsts.push(first.as_secs_f64() * 1e3);
                report.max_gap_ms = report.max_gap_ms.max(gap.as_secs_f64() * 1e3);
                if whole {
                    report.completed += 1;
                }
                if !whole || gap > stall {
                    report.stalled += 1;
                }
            }
            Err(e) => {
                report.stalled += 1;
                if report.failed.len() < 3 {
                    report.failed.push(e.chars().take(200).collect());
                }
            }
        }
    }
    report.wall_s = started.elapsed().as_secs_f64();
    report.first_byte_p50_ms = percentile(&firsts, 0.5);
    report.first_byte_p99_ms = percentile(&firsts, 0.99);
    report.peak_rss = sampler.map(RssSampler::finish).unwrap_or(0);
    report
}

async fn warm_up(t: &Target, n: usize) {
    let c = client(1);
    for _ in 0..n {
        let r = post(&c, &t.url, t.key, request_body(t.model, false))
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", t.label));
        let status = r.status();
        let text = r.text().await.unwrap_or_default();
        assert!(
            status == 200 && text.contains("Hello from the benchmark upstream"),
            "{}: HTTP {status}: {text}",
            t.label
        );
    }
}

// ---- the report --------------------------------------------------------------------------------------

struct Opts {
    dsh_host: PathBuf,
    oha: Option<PathBuf>,
    litellm: Option<PathBuf>,
    seconds: u64,
    streams: usize,
    work: Option<PathBuf>,
    quick: bool,
}

fn opts(args: &[String]) -> Opts {
    let mut o = Opts {
        dsh_host: PathBuf::new(),
        oha: None,
        litellm: None,
        seconds: 10,
        streams: 1_000,
        work: None,
        quick: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().expect("a value").clone();
        match a.as_str() {
            "--dsh-host" => o.dsh_host = value().into(),
            "--oha" => o.oha = Some(value().into()),
            "--litellm" => o.litellm = Some(value().into()),
            "--seconds" => o.seconds = value().parse().expect("a number"),
            "--streams" => o.streams = value().parse().expect("a number"),
            "--work" => o.work = Some(value().into()),
            "--quick" => o.quick = true,
            other => panic!("unknown argument {other}"),
        }
    }
    assert!(
        o.dsh_host.exists(),
        "--dsh-host: no such binary {}",
        o.dsh_host.display()
    );
    if o.quick {
        o.streams = o.streams.min(50);
    }
    o
}

fn us(v: f64) -> String {
    if v.is_nan() {
        "—".into()
    } else if v >= 10_000.0 {
        format!("{:.1} ms", v / 1e3)
    } else {
        format!("{v:.0} µs")
    }
}

fn signed_us(v: f64) -> String {
    if v.is_nan() {
        "—".into()
    } else if v.abs() >= 10_000.0 {
        format!("{:+.1} ms", v / 1e3)
    } else {
        format!("{v:+.0} µs")
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "**missed**" }
}

fn report_main(args: &[String]) {
    let o = opts(args);
    // 1,000 streams need ~1,000 descriptors on each side of each process.
    raise_fd_limit();
    let _tmp;
    let work = match &o.work {
        Some(w) => w.clone(),
        None => {
            _tmp = tempfile::tempdir().unwrap();
            _tmp.path().to_path_buf()
        }
    };
    let sessions = work.join("sessions");
    let _ = std::fs::remove_dir_all(&sessions);
    std::fs::create_dir_all(&sessions).unwrap();
    let load_before = loadavg();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();

    let (chunks, interval_ms) = if o.quick { (5, 50) } else { (20, 250) };
    let mut up = Command::new(std::env::current_exe().unwrap());
    up.args([
        "upstream",
        "--stream-chunks",
        &chunks.to_string(),
        "--stream-interval-ms",
        &interval_ms.to_string(),
    ]);
    let (upstream, up_url) = spawn_with_url("upstream", up, "bench upstream listening on ");
    let config = write_gateway_config(&work, &up_url);
    // The first start after a build compiles the guests into the compiled-code cache, and the
    // compiler's memory stays with the process: what a deployment sees once per upgrade. Measured
    // apart; the benchmark runs against a gateway started with the cache warm, as every later start is.
    // The guests are compiled when the first request needs them, so the first gateway gets one:
    // without it the measured gateway would compile them and keep the compiler's memory.
    let (first, first_url) = start_gateway(&o.dsh_host, &config, &sessions);
    let first_target = Target {
        label: "gateway, first start",
        url: first_url.clone(),
        stream_url: first_url,
        key: GATEWAY_KEY,
        model: MODEL,
        stream_model: "slow/bench-model",
        pid: Some(first.pid()),
    };
    rt.block_on(warm_up(&first_target, 1));
    std::thread::sleep(Duration::from_millis(300));
    let rss_first_start = rss_of(first.pid());
    drop(first);
    let (gateway, gw_url) = start_gateway(&o.dsh_host, &config, &sessions);
    std::thread::sleep(Duration::from_millis(300));
    let rss_started = rss_of(gateway.pid());

    let direct = Target {
        label: "upstream directly",
        url: format!("{up_url}/chat/completions"),
        stream_url: format!("{}/chat/completions", up_url.replace("/v1", "/slow/v1")),
        key: "sk-bench-upstream",
        model: MODEL,
        stream_model: MODEL,
        pid: Some(upstream.pid()),
    };
    let gw = Target {
        label: "gateway (`dsh-host serve`)",
        url: gw_url.clone(),
        stream_url: gw_url.clone(),
        key: GATEWAY_KEY,
        model: MODEL,
        stream_model: "slow/bench-model",
        pid: Some(gateway.pid()),
    };
    rt.block_on(warm_up(&direct, 20));
    rt.block_on(warm_up(&gw, 20));
    std::thread::sleep(Duration::from_millis(500));
    let rss_warm = rss_of(gateway.pid());

    let mut litellm_proc = None;
    let mut targets = vec![direct.clone(), gw.clone()];
    if let (Some(l), false) = (&o.litellm, o.quick) {
        let (p, url) = start_litellm(l, &work, &up_url);
        let t = Target {
            label: "LiteLLM proxy",
            url: url.clone(),
            stream_url: url,
            key: LITELLM_KEY,
            model: MODEL,
            stream_model: "bench-slow",
            pid: Some(p.pid()),
        };
        rt.block_on(warm_up(&t, 20));
        targets.push(t);
        litellm_proc = Some(p);
    }
    let litellm_idle = litellm_proc.as_ref().map(|p| tree_rss(p.pid()));

    let mut out = String::new();
    let w = &mut out;
    writeln!(w, "\n## 6. Gateway (`dsh-host serve`): added latency, throughput, streams and memory, against the upstream directly and LiteLLM proxy\n").unwrap();
    let generator = if o.quick {
        "the built-in Rust client, quick mode: no oha, no LiteLLM, not comparable with a full run"
            .to_string()
    } else {
        format!(
            "oha {}: `oha --no-tui --output-format json -m POST -T application/json -H 'authorization: Bearer KEY' -d BODY URL` plus the load flags below",
            tool_version(o.oha.as_deref(), "--version")
        )
    };
    writeln!(w, "One run, every path side by side: the same upstream (`bench_gateway upstream`, a fixed-answer keep-alive HTTP/1.1 server on the gateway's own hyper stack: a {}-byte non-streaming chat completion for every `POST`, or {chunks} SSE chunks {interval_ms} ms apart under `/slow/`), the same load generator ({generator}), the same request body. Gateway: release build, one `openai-compatible` provider, auth on (a gateway key from `keys_env`), the default recovery waterfall, its session log on {} (one session file per request; its end group-committed just after the answer, one `syncfs` per batch). {}Machine load (1/5/15-min averages) before: {load_before}.\n",
        ANSWER.len(),
        filesystem_of(&sessions),
        match &o.litellm { Some(l) if !o.quick => format!("LiteLLM proxy {} (`litellm --config litellm.yaml --num_workers 1`, master key set, one `openai/` model with `api_base` at the same upstream). ", tool_version(Some(&python_beside(l)), "-c import importlib.metadata as m; print(m.version('litellm'))")), _ => String::new() }).unwrap();

    // a. One connection.
    let secs = o.seconds.to_string();
    let mut one = Vec::new();
    for t in &targets {
        let r = match &o.oha {
            Some(oha_bin) if !o.quick => oha(
                oha_bin,
                t,
                &[
                    "-c".into(),
                    "1".into(),
                    "-z".into(),
                    format!("{secs}s"),
                    "-w".into(),
                ],
            ),
            _ => rt.block_on(closed_loop(t, 200)),
        };
        one.push((t.label, r));
    }
    let mut mock_one = None;
    let mut mock_max = None;
    if let (Some(oha_bin), false) = (&o.oha, o.quick) {
        // The embedded mock as the upstream would be: one step per request, one request per connection.
        let steps = 30_000;
        let script = work.join("mock-script.json");
        let step =
            serde_json::json!({"headers": {"content-type": "application/json"}, "body": ANSWER})
                .to_string();
        std::fs::write(
            &script,
            format!("{{\"steps\":[{}]}}", vec![step; steps].join(",")),
        )
        .unwrap();
        let mut cmd = Command::new(&o.dsh_host);
        cmd.args(["mock", "--script"]).arg(&script);
        let (mock, mock_url) = spawn_with_url("mock", cmd, "mock provider listening on ");
        let t = Target {
            label: "embedded mock directly",
            url: format!("{mock_url}/chat/completions"),
            stream_url: String::new(),
            key: "x",
            model: MODEL,
            stream_model: MODEL,
            pid: Some(mock.pid()),
        };
        mock_one = Some(oha(
            oha_bin,
            &t,
            &["-c".into(), "1".into(), "-n".into(), "5000".into()],
        ));
        mock_max = Some(oha(
            oha_bin,
            &t,
            &["-c".into(), "64".into(), "-n".into(), "20000".into()],
        ));
        drop(mock);
    }
    let base = one[0].1.clone();
    writeln!(
        w,
        "### 6a. Latency at one connection (closed loop, {})\n",
        if o.quick {
            "200 requests".to_string()
        } else {
            format!("`oha -c 1 -z {secs}s -w`")
        }
    )
    .unwrap();
    writeln!(w, "| path | requests/s | p50 | p99 | added p50 | added p99 | target (added) |\n| --- | --- | --- | --- | --- | --- | --- |").unwrap();
    for (label, r) in &one {
        let (a50, a99) = (r.p50_us - base.p50_us, r.p99_us - base.p99_us);
        let target = if label.starts_with("gateway") {
            format!(
                "≤ 100 µs p50 ({}), ≤ 500 µs p99 ({})",
                met(a50 <= 100.0),
                met(a99 <= 500.0)
            )
        } else {
            String::new()
        };
        let added = |v: f64| {
            if *label == base_label(&one) {
                "—".to_string()
            } else {
                signed_us(v)
            }
        };
        writeln!(
            w,
            "| {label} | {:.0} | {} | {} | {} | {} | {target} |{}",
            r.rps,
            us(r.p50_us),
            us(r.p99_us),
            added(a50),
            added(a99),
            errors_note(r)
        )
        .unwrap();
    }
    if let Some(m) = &mock_one {
        writeln!(w, "| embedded mock directly (`dsh-host mock`, `-n 5000`: a new connection per request) | {:.0} | {} | {} | {} | {} | not the baseline |{}", m.rps, us(m.p50_us), us(m.p99_us), signed_us(m.p50_us - base.p50_us), signed_us(m.p99_us - base.p99_us), errors_note(m)).unwrap();
    }
    writeln!(w, "\nAdded = the path's percentile minus the direct path's percentile, from runs of the same length one after the other.").unwrap();
    let (f50, f99) = fsync_probe(&work, if o.quick { 20 } else { 500 });
    writeln!(w, "For scale: one durable point on the sessions directory's disk (create a file, append 300 bytes, `fdatasync`), measured alone: p50 {}, p99 {}. A gateway that synced each request's `turn/end` before answering would add at least this to every request; `dsh-host serve` group-commits it just after the answer (one `syncfs` per batch; a retry is still synced before its wait), so it is not on the request's path.", us(f50), us(f99)).unwrap();

    // b. Fixed rate.
    let mut rate = Vec::new();
    if let (Some(oha_bin), false) = (&o.oha, o.quick) {
        for t in &targets {
            rate.push((
                t.label,
                oha(
                    oha_bin,
                    t,
                    &[
                        "-c".into(),
                        "100".into(),
                        "-q".into(),
                        "1000".into(),
                        "--latency-correction".into(),
                        "-z".into(),
                        format!("{secs}s"),
                        "-w".into(),
                    ],
                ),
            ));
        }
        let base = rate[0].1.clone();
        writeln!(w, "\n### 6b. Latency at a fixed 1,000 requests/s (`oha -c 100 -q 1000 --latency-correction -z {secs}s -w`: coordinated omission corrected)\n").unwrap();
        writeln!(w, "| path | achieved requests/s | p50 | p99 | added p50 | added p99 | answered 200 |\n| --- | --- | --- | --- | --- | --- | --- |").unwrap();
        for (i, (label, r)) in rate.iter().enumerate() {
            let added = |v: f64| {
                if i == 0 {
                    "—".to_string()
                } else {
                    signed_us(v)
                }
            };
            writeln!(
                w,
                "| {label} | {:.0} | {} | {} | {} | {} | {} / {} |{}",
                r.rps,
                us(r.p50_us),
                us(r.p99_us),
                added(r.p50_us - base.p50_us),
                added(r.p99_us - base.p99_us),
                r.ok,
                r.total,
                errors_note(r)
            )
            .unwrap();
        }
    }

    // c. Maximum throughput, with the gateway's resident memory under it.
    let mut max = Vec::new();
    let mut gw_loaded = 0;
    let mut litellm_loaded = None;
    if let (Some(oha_bin), false) = (&o.oha, o.quick) {
        for t in &targets {
            let sampler = t.pid.map(RssSampler::start);
            let cpu0 = t.pid.map(tree_cpu).unwrap_or(0.0);
            let mut r = oha(
                oha_bin,
                t,
                &[
                    "-c".into(),
                    "64".into(),
                    "-z".into(),
                    format!("{secs}s"),
                    "-w".into(),
                ],
            );
            r.cpu_per_request_us =
                (t.pid.map(tree_cpu).unwrap_or(0.0) - cpu0) / r.total.max(1) as f64 * 1e6;
            let peak = sampler.map(RssSampler::finish).unwrap_or(0);
            if t.label.starts_with("gateway") {
                gw_loaded = peak;
            }
            if t.label.starts_with("LiteLLM") {
                litellm_loaded = Some(peak);
            }
            max.push((t.label, r));
        }
        let lite = max
            .iter()
            .find(|(l, _)| l.starts_with("LiteLLM"))
            .map(|(_, r)| r.rps);
        writeln!(
            w,
            "\n### 6c. Maximum throughput (`oha -c 64 -z {secs}s -w`, no rate limit)\n"
        )
        .unwrap();
        writeln!(w, "| path | requests/s | p50 | p99 | answered 200 | CPU per request (the path's process) | × LiteLLM proxy | target |\n| --- | --- | --- | --- | --- | --- | --- | --- |").unwrap();
        for (label, r) in &max {
            let ratio = lite
                .map(|l| format!("{:.1}×", r.rps / l))
                .unwrap_or_else(|| "—".into());
            let target = match (label.starts_with("gateway"), lite) {
                (true, Some(l)) => format!("≥ 50× ({})", met(r.rps / l >= 50.0)),
                (true, None) => "≥ 50× (no LiteLLM run)".into(),
                _ => String::new(),
            };
            writeln!(
                w,
                "| {label} | {:.0} | {} | {} | {} / {} | {:.0} µs | {ratio} | {target} |{}",
                r.rps,
                us(r.p50_us),
                us(r.p99_us),
                r.ok,
                r.total,
                r.cpu_per_request_us,
                errors_note(r)
            )
            .unwrap();
        }
        if let (Some(m), Some(m1)) = (&mock_max, &mock_one) {
            let _ = m1;
            writeln!(w, "| embedded mock directly (`-c 64 -n 20000`) | {:.0} | {} | {} | {} / {} | | | not the baseline |{}", m.rps, us(m.p50_us), us(m.p99_us), m.ok, m.total, errors_note(m)).unwrap();
        }
        writeln!(w, "\nAll processes share the machine's {} cores: the load generator, the upstream and the path under test compete for them, so the gateway's figure includes a process hop the direct path does not make.", cores()).unwrap();
    }

    // d. Concurrent streams.
    let n = o.streams;
    let stall = Duration::from_millis((interval_ms * 8).max(2_000));
    let stream_targets: Vec<&Target> = targets.iter().collect();
    let mut srows = Vec::new();
    for t in stream_targets {
        std::thread::sleep(Duration::from_millis(500));
        let r = rt.block_on(streams(t, n, chunks, stall));
        srows.push((t.label, r));
    }
    writeln!(w, "\n### 6d. {n} concurrent streams (opened at once; each {chunks} chunks {interval_ms} ms apart from the upstream, ≈ {:.1} s)\n", (chunks as u64 * interval_ms) as f64 / 1e3).unwrap();
    writeln!(w, "Stalled = no `[DONE]` with every chunk, or two reads more than {} ms apart. Memory per stream = (peak resident memory during the streams − resident memory just before) / {n}.\n", stall.as_millis()).unwrap();
    writeln!(w, "| path | completed | stalled | longest gap between reads | first byte p50 / p99 | all done after | peak RSS | memory per stream |\n| --- | --- | --- | --- | --- | --- | --- | --- |").unwrap();
    let mut gw_stream_peak = 0;
    for (label, r) in &srows {
        if label.starts_with("gateway") {
            gw_stream_peak = r.peak_rss;
        }
        let per = r.peak_rss.saturating_sub(r.rss_before) as f64 / n as f64 / 1024.0;
        let failed = if r.failed.is_empty() {
            String::new()
        } else {
            format!(
                " first failures: {}",
                r.failed.join(" / ").replace('|', "\\|")
            )
        };
        writeln!(w, "| {label} | {} / {n} | {} | {:.0} ms | {:.1} / {:.1} ms | {:.2} s | {:.1} MiB | {per:.1} KiB |{failed}", r.completed, r.stalled, r.max_gap_ms, r.first_byte_p50_ms, r.first_byte_p99_ms, r.wall_s, mib(r.peak_rss)).unwrap();
    }

    // e. Memory. The gateway gives a burst's freed memory back once idle (gateway::memory, every
    // 5 s): read 2 s after the last run, and again once it has had the time to.
    std::thread::sleep(Duration::from_secs(2));
    let rss_after = rss_of(gateway.pid());
    std::thread::sleep(Duration::from_secs(10));
    let rss_trimmed = rss_of(gateway.pid());
    writeln!(
        w,
        "\n### 6e. Resident memory (VmRSS; peaks sampled every 20 ms)\n"
    )
    .unwrap();
    writeln!(
        w,
        "| process | state | RSS | target |\n| --- | --- | --- | --- |"
    )
    .unwrap();
    writeln!(w, "| gateway | first start after the build, after its first request (compiles the guests when the cache is cold) | {:.1} MiB | |", mib(rss_first_start)).unwrap();
    writeln!(
        w,
        "| gateway | idle, just started (no request yet) | {:.1} MiB | ≤ 30 MiB ({}) |",
        mib(rss_started),
        met(mib(rss_started) <= 30.0)
    )
    .unwrap();
    writeln!(w, "| gateway | idle, after 20 requests (adapter loaded, instance pool warm) | {:.1} MiB | ≤ 30 MiB ({}) |", mib(rss_warm), met(mib(rss_warm) <= 30.0)).unwrap();
    if gw_loaded > 0 {
        writeln!(
            w,
            "| gateway | loaded: peak during the maximum-throughput run | {:.1} MiB | |",
            mib(gw_loaded)
        )
        .unwrap();
    }
    writeln!(
        w,
        "| gateway | loaded: peak during {n} concurrent streams | {:.1} MiB | |",
        mib(gw_stream_peak)
    )
    .unwrap();
    writeln!(
        w,
        "| gateway | idle again, 2 s after the last run | {:.1} MiB | |",
        mib(rss_after)
    )
    .unwrap();
    writeln!(
        w,
        "| gateway | idle again, 12 s after the last run (freed memory given back) | {:.1} MiB | |",
        mib(rss_trimmed)
    )
    .unwrap();
    if let Some(idle) = litellm_idle {
        writeln!(
            w,
            "| LiteLLM proxy (process tree) | idle, after 20 requests | {:.1} MiB | |",
            mib(idle)
        )
        .unwrap();
    }
    if let Some(l) = litellm_loaded {
        writeln!(w, "| LiteLLM proxy (process tree) | loaded: peak during the maximum-throughput run | {:.1} MiB | |", mib(l)).unwrap();
    }
    let files = std::fs::read_dir(&sessions).map(|d| d.count()).unwrap_or(0);
    let bytes: u64 = std::fs::read_dir(&sessions)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    drop(litellm_proc);
    drop(gateway);
    drop(upstream);
    writeln!(w, "\nSession log: {files} session files ({:.1} MiB) written by the gateway during the run. Machine load after: {}.", mib(bytes), loadavg()).unwrap();
    print!("{out}");
}

/// What one durable point costs on this disk, as the gateway pays it per request: a new file in the
/// sessions directory, one appended line, `fdatasync`. Returns p50 and p99 in µs.
fn fsync_probe(dir: &Path, n: usize) -> (f64, f64) {
    use std::io::Write;
    let probe = dir.join("fsync-probe");
    let _ = std::fs::remove_dir_all(&probe);
    std::fs::create_dir_all(&probe).unwrap();
    let line = vec![b'x'; 300];
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let t0 = Instant::now();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(probe.join(format!("{i}.jsonl")))
            .unwrap();
        f.write_all(&line).unwrap();
        f.sync_data().unwrap();
        times.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    let _ = std::fs::remove_dir_all(&probe);
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

fn base_label(one: &[(&'static str, Run)]) -> &'static str {
    one[0].0
}

fn errors_note(r: &Run) -> String {
    if r.errors.is_empty() {
        String::new()
    } else {
        format!(" not 200: {}", r.errors.replace('|', "\\|"))
    }
}

fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0)
}

/// `python` beside a console script (`.../bin/litellm` → `.../bin/python`).
fn python_beside(script: &Path) -> PathBuf {
    script
        .parent()
        .map(|d| d.join("python"))
        .unwrap_or_else(|| "python3".into())
}

fn tool_version(bin: Option<&Path>, arg: &str) -> String {
    let Some(bin) = bin else { return "?".into() };
    let mut cmd = Command::new(bin);
    if let Some(code) = arg.strip_prefix("-c ") {
        cmd.args(["-c", code]);
    } else {
        cmd.arg(arg);
    }
    cmd.output()
        .ok()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .trim_start_matches("oha ")
                .to_string()
        })
        .unwrap_or_else(|| "?".into())
}

fn raise_fd_limit() {
    let mut l: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: get/setrlimit read and write the struct they are given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 && l.rlim_cur < l.rlim_max {
            l.rlim_cur = l.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("upstream") => upstream_main(&args[1..]),
        Some("report") => report_main(&args[1..]),
        _ => {
            eprintln!(
                "usage: bench_gateway upstream [--listen ADDR] [--stream-chunks N] [--stream-interval-ms MS]\n       bench_gateway report --dsh-host BIN [--oha BIN] [--litellm BIN] [--seconds N] [--streams N] [--work DIR] [--quick]"
            );
            std::process::exit(2);
        }
    }
}
