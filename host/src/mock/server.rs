//! The mock server: accepts connections, hands each request the next step, records what it got.

use super::body::{self, Body, Kind};
use super::echo::Echo;
use super::http::{self, BodyWriter, Flow, ReadError};
use super::record::Recorder;
use super::render::{RenderCtx, Shape};
use super::script::{MockScript, ResetPoint, Step};
use anyhow::Context;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// What a client sent, for tests to inspect (e.g. that the credential was inserted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Names lower-cased, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The step that answered it; `None` when the script was exhausted.
    pub step: Option<usize>,
    /// The completion shape the path selected, when a `completion` step answered it; `None` for
    /// other steps and for a path with no shape (answered with a 404).
    pub shape: Option<Shape>,
    /// When the request had been read whole.
    pub received: SystemTime,
}

impl RecordedRequest {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn body_json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::from_slice(&self.body)
    }
}

/// How to run a server beyond its script.
#[derive(Debug, Clone, Default)]
pub struct MockOptions {
    /// Append every request received to this file as JSON Lines (see `docs/mock-script.md`).
    pub record: Option<PathBuf>,
}

struct Shared {
    steps: Vec<Step>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_step: usize,
    requests: Vec<RecordedRequest>,
    recorder: Option<Recorder>,
}

impl Shared {
    /// Takes the next step for a request and records it, under one lock so that the recorded
    /// order and the step order agree. Returns the step and the request's 1-based number.
    fn take_step(&self, req: http::Request) -> (Option<usize>, usize) {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let st = &mut *guard; // a plain borrow, so the recorder and the list can be borrowed apart
        let step = (st.next_step < self.steps.len()).then(|| {
            st.next_step += 1;
            st.next_step - 1
        });
        let shape = step
            .filter(|&i| self.steps[i].completion.is_some())
            .and_then(|_| Shape::for_path(&req.path));
        tracing::debug!(method = %req.method, path = %req.path, ?step, ?shape, "mock request");
        st.requests.push(RecordedRequest {
            method: req.method,
            path: req.path,
            headers: req.headers,
            body: req.body,
            step,
            shape,
            received: SystemTime::now(),
        });
        let number = st.requests.len();
        // Under the same lock, so the file's order is the step order too.
        if let Some(recorder) = &mut st.recorder {
            recorder.write(number, &st.requests[number - 1]);
        }
        (step, number)
    }
}

pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept_task: JoinHandle<()>,
}

impl MockServer {
    /// Binds (use "127.0.0.1:0" for an ephemeral port) and serves in a background tokio task.
    pub async fn start(script: MockScript, addr: SocketAddr) -> anyhow::Result<MockServer> {
        Self::start_with(script, addr, MockOptions::default()).await
    }

    /// `start`, with options (a record file).
    pub async fn start_with(
        script: MockScript,
        addr: SocketAddr,
        options: MockOptions,
    ) -> anyhow::Result<MockServer> {
        script.validate()?;
        let recorder = options.record.as_deref().map(Recorder::open).transpose()?;
        let listener = TcpListener::bind(addr)
            .await
            .with_context(|| format!("mock provider: cannot listen on {addr}"))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            steps: script.steps,
            state: Mutex::new(State {
                recorder,
                ..State::default()
            }),
        });
        let accept_task = tokio::spawn(accept_loop(listener, shared.clone()));
        tracing::info!("mock provider listening on http://{addr}");
        Ok(MockServer {
            addr,
            shared,
            accept_task,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// e.g. "http://127.0.0.1:PORT/v1"
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .requests
            .clone()
    }

    pub fn steps_served(&self) -> usize {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .next_step
    }

    /// Stops accepting and aborts the connection tasks (their `JoinSet` lives in the accept task).
    pub async fn shutdown(mut self) {
        self.accept_task.abort();
        let _ = (&mut self.accept_task).await;
    }
}

impl Drop for MockServer {
    /// A test that forgets `shutdown` must not leave a server running in the runtime.
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    conns.spawn(handle_connection(stream, shared.clone()));
                }
                Err(e) => {
                    // Usually EMFILE: back off instead of spinning.
                    tracing::warn!("mock provider: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            // Reap finished connections so the set does not grow for the server's lifetime.
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

async fn handle_connection(mut stream: TcpStream, shared: Arc<Shared>) {
    // SSE events must leave when written, not when Nagle decides.
    let _ = stream.set_nodelay(true);
    let req = match http::read_request(&mut stream).await {
        Ok(req) => req,
        Err(ReadError::Closed) => return,
        Err(ReadError::Bad(status, msg)) => {
            return http::write_error(
                &mut stream,
                status,
                "mock_bad_request",
                &format!("mock provider: {msg}"),
            )
            .await;
        }
    };
    let path = req.path.clone();
    let echo = Echo::new(&req.headers, &req.path);
    let (step, number) = shared.take_step(req);
    let Some(index) = step else {
        let n = shared.steps.len();
        let msg = format!(
            "mock script exhausted after {n} steps: request #{number} ({path}) has no step to answer it; add a step to the script"
        );
        return http::write_error(&mut stream, 500, "mock_script_exhausted", &msg).await;
    };
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let ctx = RenderCtx {
        step: index,
        created,
        echo,
    };
    serve_step(stream, &shared.steps[index], &ctx, &path).await;
}

async fn serve_step(mut stream: TcpStream, step: &Step, ctx: &RenderCtx, path: &str) {
    let body = match body::plan(step, ctx, path) {
        Ok(body) => body,
        Err(e) => return http::write_error(&mut stream, e.status, e.kind, &e.message).await,
    };
    if let Some(ms) = step.stall_before_headers_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if step.reset == Some(ResetPoint::BeforeHeaders) {
        http::abort_on_close(&stream);
        return; // dropping the stream sends the RST
    }
    let head = response_head(step, body.kind, &ctx.echo);
    let mut out = BodyWriter::new(
        stream,
        step.drip,
        step.stall_after_bytes,
        step.reset_after_bytes,
    );
    // Any write error means the client left; there is no one to tell.
    if !matches!(out.write_head(head.as_bytes()).await, Ok(Flow::Open)) {
        return;
    }
    if send_body(&mut out, body, step.chunked).await == Flow::Open {
        out.finish().await;
    }
}

/// Sends the pieces in order, each after its delay. A delayed piece starts a new write, so it
/// reaches the client on its own, when it is due; pieces with no delay go out together, as a real
/// server's buffered writes do (a zero sleep would still cost a timer tick, about 1 ms, per
/// piece). The buffer is bounded, whatever the length of the stream.
async fn send_body(out: &mut BodyWriter, body: Body<'_>, chunked: bool) -> Flow {
    const FLUSH_AT: usize = 16 * 1024;
    let mut pending: Vec<u8> = Vec::new();
    for piece in body.pieces {
        if piece.delay_ms > 0 {
            if !pending.is_empty() && flush(out, &mut pending).await == Flow::Reset {
                return Flow::Reset;
            }
            tokio::time::sleep(Duration::from_millis(piece.delay_ms)).await;
        }
        if chunked {
            http::put_chunk(&mut pending, &piece.bytes);
        } else {
            pending.extend_from_slice(&piece.bytes);
        }
        if pending.len() >= FLUSH_AT && flush(out, &mut pending).await == Flow::Reset {
            return Flow::Reset;
        }
    }
    if chunked {
        pending.extend_from_slice(http::LAST_CHUNK);
    }
    flush(out, &mut pending).await
}

/// Writes and empties the buffer; `Reset` also when the client is gone.
async fn flush(out: &mut BodyWriter, pending: &mut Vec<u8>) -> Flow {
    let flow = out.write(pending).await.unwrap_or(Flow::Reset);
    pending.clear();
    flow
}

/// The step's headers (placeholders filled) in order, then the framing headers it did not set.
fn response_head(step: &Step, kind: Kind, echo: &Echo) -> String {
    let status = step.status.unwrap_or(200);
    let mut head = format!("HTTP/1.1 {status} {}\r\n", http::reason_phrase(status));
    for (name, value) in &step.headers.0 {
        head.push_str(&format!("{name}: {}\r\n", echo.fill(value)));
    }
    let has = |name| step.headers.has(name);
    if step.chunked {
        if !has("transfer-encoding") {
            head.push_str("transfer-encoding: chunked\r\n");
        }
    } else if let Kind::Raw { len } = kind
        && !has("content-length")
    {
        head.push_str(&format!("content-length: {len}\r\n"));
    }
    match kind {
        Kind::Sse if !has("content-type") => {
            head.push_str("content-type: text/event-stream\r\ncache-control: no-cache\r\n");
        }
        Kind::Ndjson if !has("content-type") => {
            head.push_str("content-type: application/x-ndjson\r\n");
        }
        _ => {}
    }
    if !has("connection") {
        head.push_str("connection: close\r\n");
    }
    head.push_str("\r\n");
    head
}
