//! The mock server: accepts connections, hands each request the next step, records what it got.

use super::http::{self, BodyWriter, Flow, ReadError};
use super::render::{DONE, RenderCtx, Shape, SseEvent};
use super::script::{MockScript, ResetPoint, Step};
use anyhow::Context;
use std::net::SocketAddr;
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

struct Shared {
    steps: Vec<Step>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_step: usize,
    requests: Vec<RecordedRequest>,
}

impl Shared {
    /// Takes the next step for a request and records it, under one lock so that the recorded
    /// order and the step order agree. Returns the step and the request's 1-based number.
    fn take_step(&self, req: http::Request) -> (Option<usize>, usize) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
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
        });
        (step, st.requests.len())
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
        script.validate()?;
        let listener = TcpListener::bind(addr)
            .await
            .with_context(|| format!("mock provider: cannot listen on {addr}"))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            steps: script.steps,
            state: Mutex::default(),
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
    let (step, number) = shared.take_step(req);
    let Some(index) = step else {
        let n = shared.steps.len();
        let msg = format!(
            "mock script exhausted after {n} steps: request #{number} ({path}) has no step to answer it; add a step to the script"
        );
        return http::write_error(&mut stream, 500, "mock_script_exhausted", &msg).await;
    };
    serve_step(stream, &shared.steps[index], index, &path).await;
}

enum Body {
    Fixed(Vec<u8>),
    Stream { events: Vec<SseEvent>, done: bool },
}

async fn serve_step(mut stream: TcpStream, step: &Step, index: usize, path: &str) {
    let body = match plan_body(step, index, path) {
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
    let head = response_head(step, &body);
    let mut out = BodyWriter::new(stream, step.stall_after_bytes, step.reset_after_bytes);
    // Any write error means the client left; there is no one to tell.
    if !matches!(out.write_head(head.as_bytes()).await, Ok(Flow::Open)) {
        return;
    }
    match body {
        Body::Fixed(bytes) => {
            if !matches!(out.write(&bytes).await, Ok(Flow::Open)) {
                return;
            }
        }
        Body::Stream { events, done } => {
            // Events with no delay go out together, as a real server's buffered writes do; a
            // zero sleep would still cost a timer tick (about 1 ms) per event.
            let mut pending: Vec<u8> = Vec::new();
            for ev in events {
                if ev.delay_ms > 0 {
                    if !pending.is_empty() && !matches!(out.write(&std::mem::take(&mut pending)).await, Ok(Flow::Open)) {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(ev.delay_ms)).await;
                }
                pending.extend_from_slice(&ev.to_bytes());
                if pending.len() >= 16 * 1024 && !matches!(out.write(&std::mem::take(&mut pending)).await, Ok(Flow::Open)) {
                    return;
                }
            }
            if done {
                pending.extend_from_slice(DONE);
            }
            if !pending.is_empty() && !matches!(out.write(&pending).await, Ok(Flow::Open)) {
                return;
            }
        }
    }
    out.finish().await;
}

/// Why a step cannot answer this request; sent as the mock's own JSON error.
struct PlanError {
    status: u16,
    kind: &'static str,
    message: String,
}

fn plan_body(step: &Step, index: usize, path: &str) -> Result<Body, PlanError> {
    if let Some(events) = &step.events {
        let events = events.iter().map(SseEvent::from_spec).collect();
        return Ok(Body::Stream {
            events,
            done: step.done.unwrap_or(false),
        });
    }
    if let Some(c) = &step.completion {
        let shape = Shape::for_path(path).ok_or_else(|| PlanError {
            status: 404,
            kind: "mock_no_shape",
            message: format!(
                "mock provider: steps[{index}] is a completion, but the request path {path} has no completion shape; the mock renders completions for {}",
                Shape::SUPPORTED
            ),
        })?;
        shape.check_query(path).map_err(|msg| PlanError {
            status: 400,
            kind: "mock_bad_request",
            message: format!("mock provider: steps[{index}]: {msg}"),
        })?;
        let created = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let ctx = RenderCtx {
            step: index,
            created,
        };
        let (events, done) = shape.render(c, step.done, &ctx).map_err(|msg| PlanError {
            status: 500,
            kind: "mock_script_error",
            message: format!("mock provider: steps[{index}]: {msg}"),
        })?;
        return Ok(Body::Stream { events, done });
    }
    Ok(Body::Fixed(step.raw_body().unwrap_or_default()))
}

/// The step's headers verbatim, then the framing headers it did not set itself.
fn response_head(step: &Step, body: &Body) -> String {
    let status = step.status.unwrap_or(200);
    let mut head = format!("HTTP/1.1 {status} {}\r\n", http::reason_phrase(status));
    for (name, value) in &step.headers.0 {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match body {
        Body::Fixed(bytes) if !step.headers.has("content-length") => {
            head.push_str(&format!("content-length: {}\r\n", bytes.len()));
        }
        Body::Stream { .. } if !step.headers.has("content-type") => {
            head.push_str("content-type: text/event-stream\r\ncache-control: no-cache\r\n");
        }
        _ => {}
    }
    if !step.headers.has("connection") {
        head.push_str("connection: close\r\n");
    }
    head.push_str("\r\n");
    head
}
