//! `dsh-host serve`: an OpenAI-compatible endpoint over the same runtime as `dsh-host run`.
//!
//! A request is an [`Exchange`] in a session of its own (the same store, waterfall, listeners and
//! log as the CLI): the client sends its whole conversation and runs its own tools, the gateway
//! returns one completion. What is the gateway's own is only what a client sees:
//! - retries are invisible until the first content is forwarded: a streaming response's head is held
//!   (up to `hold_head_ms`) while the waterfall retries, then sent with SSE comment keepalives; after
//!   content has gone out, a failure is final and ends the stream with an error event;
//! - failures map to the statuses the official SDKs raise as the right exceptions ([`status`]), all
//!   with `x-should-retry: false` except load shedding;
//! - `Idempotency-Key` (or `x-dsh-session`) names the session: a completed one is replayed from the
//!   log, a running one is 409, one a dead gateway left open continues with its retry count;
//! - gateway keys, `Host`/`Origin` checks, body and concurrency limits, deadlines, graceful drain.
//!
//! Modules: [`wire`] (the OpenAI format), [`routes`] (model → provider), [`status`] (failure →
//! HTTP), [`auth`] (keys, DNS-rebinding checks), [`metrics`]. None of the recovery or logging logic
//! lives here: that is `session`'s.

// The checks before a request runs (`admit`, `request_deadline`, `find_prior`) return the HTTP
// answer itself as their error: it is sent at once, once per refused request, so boxing it would
// only add an allocation.
#![allow(clippy::result_large_err)]

pub mod auth;
pub mod memory;
pub mod metrics;
pub mod routes;
pub mod status;
pub mod wire;

use crate::attempt::{Completion, Provider, StreamEvent};
use crate::config::{Config, GatewayConfig, GuestRef};
use crate::failure::LlmFailure;
use crate::recovery::AbortSignal;
use crate::runtime::Runtime;
use crate::session::{Exchange, Session, TurnError};
use crate::store::{Event, SessionStore};
use anyhow::{Context, Result, bail};
use auth::{Client, GatewayKeys};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::{Semaphore, mpsc};

/// How `serve` was asked to run.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: SocketAddr,
    pub allow_unauthenticated: bool,
}

/// The gateway's state, shared by every request.
pub struct Gateway {
    runtime: Runtime,
    config: GatewayConfig,
    store: SessionStore,
    keys: GatewayKeys,
    /// Loopback only, no keys: `Host` and `Origin` are checked instead.
    unauthenticated: bool,
    providers: tokio::sync::Mutex<HashMap<String, Arc<Provider>>>,
    total: Arc<Semaphore>,
    per_client: Mutex<HashMap<String, Arc<Semaphore>>>,
    /// Sessions being answered by this process (an idempotent retry of one is 409).
    running: Mutex<HashSet<String>>,
    /// The abort signals of requests in flight, cut when a drain runs out of time.
    in_flight: Mutex<HashMap<String, AbortSignal>>,
    draining: AtomicBool,
    /// Requests answered since the start, however they ended (see `memory`).
    answered: AtomicU64,
    pub metrics: metrics::Metrics,
}

impl Gateway {
    /// Checks the security defaults and loads the key sources; nothing listens yet.
    pub fn new(
        runtime: Runtime,
        store: SessionStore,
        options: &ServeOptions,
    ) -> Result<Arc<Gateway>> {
        let config = runtime.config.gateway.clone();
        let mut keys = GatewayKeys::default();
        if let Some(var) = &config.keys_env {
            let list = std::env::var(var).with_context(|| {
                format!(
                    "[gateway] keys_env = {var:?}, but the environment variable {var} is not set"
                )
            })?;
            keys = keys.merge(GatewayKeys::from_list(
                &list,
                &format!("the environment variable {var}"),
            )?);
        }
        if let Some(file) = &config.keys_file {
            keys = keys.merge(GatewayKeys::from_file(file)?);
        }
        let loopback = auth::is_loopback(&options.listen);
        if keys.is_empty() {
            if !loopback {
                bail!(
                    "refusing to serve {} without gateway keys: anyone who can reach it could spend your provider keys. \
                     Set [gateway] keys_env or keys_file, or listen on 127.0.0.1",
                    options.listen
                );
            }
            if !options.allow_unauthenticated {
                bail!(
                    "no gateway keys are configured: set [gateway] keys_env (e.g. keys_env = \"DSH_GATEWAY_KEYS\") or \
                     keys_file, or pass --allow-unauthenticated to serve loopback clients without a key"
                );
            }
        } else if !loopback && !config.allow_plain_http {
            bail!(
                "refusing to accept gateway keys over plain HTTP on {}: put a TLS-terminating reverse proxy in front \
                 and listen on 127.0.0.1 (see the README), or set [gateway] allow_plain_http = true on a private network",
                options.listen
            );
        }
        Ok(Arc::new(Gateway {
            total: Arc::new(Semaphore::new(config.max_concurrent)),
            unauthenticated: keys.is_empty(),
            runtime,
            config,
            store,
            keys,
            providers: tokio::sync::Mutex::new(HashMap::new()),
            per_client: Mutex::new(HashMap::new()),
            running: Mutex::new(HashSet::new()),
            in_flight: Mutex::new(HashMap::new()),
            draining: AtomicBool::new(false),
            answered: AtomicU64::new(0),
            metrics: metrics::Metrics::default(),
        }))
    }

    pub fn router(self: &Arc<Self>) -> axum::Router {
        axum::Router::new()
            .route("/v1/chat/completions", post(chat_completions))
            .route("/v1/models", get(models))
            .route("/healthz", get(healthz))
            .route("/metrics", get(metrics_text))
            .fallback(not_found)
            .with_state(self.clone())
    }

    /// The provider (its adapter loaded once per process).
    async fn provider(&self, name: &str) -> Result<Arc<Provider>, LlmFailure> {
        let mut cache = self.providers.lock().await;
        if let Some(p) = cache.get(name) {
            return Ok(p.clone());
        }
        let config = self
            .runtime
            .config
            .provider(name)
            .map_err(|e| LlmFailure::new("INVALID_REQUEST", format!("{e:#}")))?
            .clone();
        let config = crate::config::ProviderConfig {
            base_url: crate::config::normalize_base_url(&config.name, &config.base_url)
                .map_err(|e| LlmFailure::new("INVALID_REQUEST", format!("{e:#}")))?,
            ..config
        };
        let provider = self.runtime.provider(config).await.map_err(|e| {
            LlmFailure::new(
                "ADAPTER_FAULT",
                format!("provider '{name}' cannot be loaded: {e:#}"),
            )
        })?;
        cache.insert(name.to_string(), provider.clone());
        Ok(provider)
    }

    /// Authentication and the DNS-rebinding checks; the client on success.
    fn admit(&self, headers: &HeaderMap) -> Result<Client, Response> {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        if !auth::origin_allowed(
            header("origin"),
            &self.config.allowed_origins,
            self.unauthenticated,
        ) {
            return Err(plain_error(
                403,
                "forbidden",
                "origin_not_allowed",
                "this Origin may not call the gateway; add it to [gateway] allowed_origins",
            ));
        }
        if self.unauthenticated {
            if !auth::host_is_loopback(header("host")) {
                return Err(plain_error(
                    403,
                    "forbidden",
                    "host_not_allowed",
                    "an unauthenticated gateway answers only requests addressed to localhost (Host header); configure gateway keys to serve other names",
                ));
            }
            return Ok(Client::anonymous());
        }
        let Some(key) = auth::presented_key(header("authorization"), header("api-key")) else {
            return Err(plain_error(
                401,
                "invalid_request_error",
                "missing_api_key",
                "a gateway key is required: send Authorization: Bearer KEY",
            ));
        };
        self.keys.authenticate(key).ok_or_else(|| {
            plain_error(
                401,
                "invalid_request_error",
                "invalid_api_key",
                "the gateway key is not valid",
            )
        })
    }

    /// The request's slots in the concurrency limits, or `None`: the gateway sheds the request.
    fn admit_load(
        &self,
        client: &Client,
    ) -> Option<(
        tokio::sync::OwnedSemaphorePermit,
        tokio::sync::OwnedSemaphorePermit,
    )> {
        let per = self
            .per_client
            .lock()
            .expect("limits lock")
            .entry(client.id.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(self.config.max_concurrent_per_key)))
            .clone();
        let total = self.total.clone().try_acquire_owned().ok()?;
        let mine = per.try_acquire_owned().ok()?;
        Some((total, mine))
    }

    /// Marks the drain: new requests get 503, requests in flight go on.
    pub fn start_drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Requests answered since the start.
    pub fn answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
    }

    /// Sessions being answered now.
    pub fn running_count(&self) -> usize {
        self.running.lock().expect("running lock").len()
    }

    /// Aborts every request still in flight (their sessions log ABORTED).
    pub fn cut_in_flight(&self) {
        for signal in self.in_flight.lock().expect("in-flight lock").values() {
            signal.abort();
        }
    }
}

// ---- serving ---------------------------------------------------------------------------------

/// Serves until SIGTERM or Ctrl-C, then drains: no new connections, in-flight requests finish
/// within `drain_timeout_ms`, the rest are cut (ABORTED in their logs).
pub async fn serve(
    config: Config,
    sessions_dir: &std::path::Path,
    options: ServeOptions,
    ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    // Group commit: a request's end is synced in a batch just after its answer; a retry count is
    // still synced before its wait (see crate::group_commit). Opened first: an unreachable sessions
    // database is reported before the guests are compiled.
    let store =
        SessionStore::open_configured(sessions_dir, &config.sessions)?.with_group_commit()?;
    let runtime = Runtime::new(config, crate::session::default_engine()?, None)
        .await?
        .with_cooldowns(store.cooldowns());
    let gateway = Gateway::new(runtime, store, &options)?;
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .with_context(|| format!("listening on {}", options.listen))?;
    let local = listener.local_addr()?;
    ready(local);
    let router = gateway.router();
    // Memory a burst freed goes back to the system once the gateway is idle again.
    let trimming = tokio::spawn(memory::trim_when_idle(gateway.clone()));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let header_timeout = Duration::from_millis(gateway.config.header_read_timeout_ms);
    let mut shutdown = std::pin::pin!(shutdown_signal());
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                let service = hyper_util::service::TowerToHyperService::new(router.clone());
                let mut builder = hyper::server::conn::http1::Builder::new();
                builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_timeout);
                let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    let _ = connection.await;
                });
            }
            _ = &mut shutdown => break,
        }
    }
    drop(listener);
    trimming.abort();
    gateway.start_drain();
    let drain = Duration::from_millis(gateway.config.drain_timeout_ms);
    eprintln!(
        "draining: {} request(s) in flight, up to {} ms",
        gateway.in_flight.lock().expect("lock").len(),
        drain.as_millis()
    );
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(drain) => {
            gateway.cut_in_flight();
            // The cut requests write their ABORTED and end; give them a moment to.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // Everything answered is durable before the process exits.
    let flushing = gateway.clone();
    tokio::task::spawn_blocking(move || flushing.store.flush())
        .await
        .context("flushing the session logs")?;
    Ok(())
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

// ---- the small endpoints ------------------------------------------------------------------------

async fn healthz(State(gw): State<Arc<Gateway>>) -> Response {
    if gw.draining.load(Ordering::SeqCst) {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response();
    }
    (StatusCode::OK, "ok\n").into_response()
}

async fn metrics_text(State(gw): State<Arc<Gateway>>, headers: HeaderMap) -> Response {
    if let Err(r) = gw.admit(&headers) {
        return r;
    }
    if let Some(commit) = gw.store.group_commit() {
        gw.metrics
            .observe_log_commit(commit.batches(), commit.failures());
    }
    (
        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
        gw.metrics.render(),
    )
        .into_response()
}

/// The configured routes, and each provider's default model as `provider/model`.
async fn models(State(gw): State<Arc<Gateway>>, headers: HeaderMap) -> Response {
    if let Err(r) = gw.admit(&headers) {
        return r;
    }
    let mut ids: Vec<(String, String)> = gw
        .config
        .routes
        .iter()
        .map(|r| (r.model.clone(), r.provider.clone()))
        .collect();
    for (name, p) in &gw.runtime.config.providers {
        if !p.model.is_empty() && (!p.base_url.is_empty() || matches!(p.adapter, GuestRef::File(_)))
        {
            ids.push((format!("{name}/{}", p.model), name.clone()));
        }
    }
    let data: Vec<Value> = ids
        .into_iter()
        .map(|(id, owner)| json!({"id": id, "object": "model", "created": 0, "owned_by": owner}))
        .collect();
    json_response(
        200,
        &json!({"object": "list", "data": data}),
        HeaderMap::new(),
    )
}

async fn not_found() -> Response {
    plain_error(
        404,
        "invalid_request_error",
        "not_found",
        "no such endpoint: the gateway serves POST /v1/chat/completions, GET /v1/models, /healthz and /metrics",
    )
}

// ---- chat completions -----------------------------------------------------------------------

/// Where a request's session stands when it arrives.
enum Prior {
    /// A new session.
    Fresh(String),
    /// A completed exchange: its answer (or its failure) is replayed.
    Done(String, Vec<Event>),
    /// An exchange a dead process left open: continued.
    Open(String),
}

async fn chat_completions(
    State(gw): State<Arc<Gateway>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let started = Instant::now();
    if gw.draining.load(Ordering::SeqCst) {
        return shed_response("the gateway is shutting down");
    }
    let client = match gw.admit(&headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let Some(_permits) = gw.admit_load(&client) else {
        gw.metrics.shed.inc();
        return shed_response("the gateway is at its concurrency limit");
    };
    let read = tokio::time::timeout(
        Duration::from_millis(gw.config.body_read_timeout_ms),
        axum::body::to_bytes(body, gw.config.max_body_bytes),
    )
    .await;
    let bytes = match read {
        Err(_) => {
            return plain_error(
                408,
                "invalid_request_error",
                "request_timeout",
                "the request body did not arrive in time",
            );
        }
        Ok(Err(_)) => {
            let msg = format!(
                "the request body is larger than {} bytes ([gateway] max_body_bytes), or was cut",
                gw.config.max_body_bytes
            );
            return plain_error(413, "invalid_request_error", "request_too_large", &msg);
        }
        Ok(Ok(b)) => b,
    };
    let mut parsed = match wire::parse(&bytes) {
        Ok(p) => p,
        Err(bad) => {
            let mut body =
                status::error_body(&bad.message, "invalid_request_error", "invalid_request");
            body["error"]["param"] = json!(bad.param);
            return json_response(400, &body, final_headers());
        }
    };
    parsed.exchange.log_messages = gw.config.log_messages;
    let is_provider = |p: &str| gw.runtime.config.providers.contains_key(p);
    let Some(plan) = routes::resolve(&gw.config, is_provider, &parsed.client_model) else {
        let msg = format!(
            "the model {:?} is not routed by this gateway: name a provider (`provider/model`), add a [[gateway.routes]] entry, or set [gateway] default_provider",
            parsed.client_model
        );
        return plain_error(404, "invalid_request_error", "model_not_found", &msg);
    };
    let deadline = match request_deadline(&headers, gw.config.request_timeout_ms) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let idempotency = headers
        .get("idempotency-key")
        .or_else(|| headers.get("x-dsh-session"))
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let digest = parsed.exchange.digest();
    let mut prior = match find_prior(&gw, &client, idempotency.as_deref(), &digest) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if let Prior::Open(id) = &prior {
        match wait_for_dead_holder(&gw, id, deadline).await {
            // Whoever held it is gone: what it left may have changed meanwhile (a live holder that
            // finished), so the session is looked at again.
            Ok(true) => match find_prior(&gw, &client, idempotency.as_deref(), &digest) {
                Ok(p) => prior = p,
                Err(r) => return r,
            },
            Ok(false) => {}
            Err(r) => return r,
        }
    }
    let session_id = match &prior {
        Prior::Fresh(id) | Prior::Open(id) => id.clone(),
        Prior::Done(id, events) => return replay(&parsed, id, events),
    };
    if !gw
        .running
        .lock()
        .expect("running lock")
        .insert(session_id.clone())
    {
        return conflict(&session_id);
    }
    gw.metrics.in_flight.inc();
    let running = Running {
        gw: gw.clone(),
        id: session_id.clone(),
    };
    let request = RequestRun {
        gw: gw.clone(),
        client,
        plan,
        parsed,
        session_id,
        prior,
        deadline,
        started,
        running,
    };
    request.answer().await
}

/// Removes a session from the running set (and from what a drain cuts) when its session task ends,
/// however it ends. It lives as long as the task, not the handler: a streamed answer goes on after
/// the handler has returned the head, and must stay 409 to its key and cuttable by a drain.
struct Running {
    gw: Arc<Gateway>,
    id: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.gw
            .running
            .lock()
            .expect("running lock")
            .remove(&self.id);
        self.gw
            .in_flight
            .lock()
            .expect("in-flight lock")
            .remove(&self.id);
        self.gw.metrics.in_flight.dec();
        self.gw.answered.fetch_add(1, Ordering::Relaxed);
    }
}

/// Aborts the session if the handler is dropped (the client went away) before the answer is out.
struct AbortOnDrop(Option<AbortSignal>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(signal) = self.0.take() {
            signal.abort();
        }
    }
}

/// `x-dsh-timeout-ms` may lower the gateway's deadline, never raise it.
fn request_deadline(
    headers: &HeaderMap,
    default_ms: u64,
) -> Result<tokio::time::Instant, Response> {
    let mut ms = default_ms;
    if let Some(v) = headers.get("x-dsh-timeout-ms") {
        let asked = v
            .to_str()
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .filter(|n| *n > 0);
        let Some(asked) = asked else {
            return Err(plain_error(
                400,
                "invalid_request_error",
                "invalid_timeout",
                "x-dsh-timeout-ms must be a positive whole number of milliseconds",
            ));
        };
        ms = ms.min(asked);
    }
    Ok(tokio::time::Instant::now() + Duration::from_millis(ms))
}

/// The session an idempotency key names: scoped to the client, so that two clients' keys never meet.
/// `conversation`: the request's digest ([`Exchange::digest`]), which must be the one the key began.
fn find_prior(
    gw: &Gateway,
    client: &Client,
    key: Option<&str>,
    conversation: &str,
) -> Result<Prior, Response> {
    let Some(key) = key else {
        return Ok(Prior::Fresh(fresh_id()));
    };
    if key.is_empty() || key.len() > 256 {
        return Err(plain_error(
            400,
            "invalid_request_error",
            "invalid_idempotency_key",
            "Idempotency-Key must be 1 to 256 characters",
        ));
    }
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(format!("{}\n{key}", client.id)));
    let id = format!("gw-{}", &digest[..32]);
    if !gw
        .store
        .exists(&id)
        .map_err(|e| internal(&format!("{e:#}")))?
    {
        return Ok(Prior::Fresh(id));
    }
    if gw.running.lock().expect("running lock").contains(&id) {
        return Err(conflict(&id));
    }
    let read = gw
        .store
        .read(&id)
        .map_err(|e| internal(&format!("{e:#}")))?;
    // A key names one request. Replaying its answer to another conversation would hand a client
    // the answer to a question it did not ask: refused, as the IETF Idempotency-Key draft says (422).
    let recorded = read
        .events
        .iter()
        .find(|e| e.kind == "turn/start")
        .and_then(|e| e.data.get("exchange")?.get("digest")?.as_str());
    if recorded.is_some_and(|r| r != conversation) {
        return Err(key_reused(&id));
    }
    let open = read
        .events
        .iter()
        .filter(|e| e.kind == "turn/start")
        .count()
        > read.events.iter().filter(|e| e.kind == "turn/end").count();
    let last_end = read.events.iter().rev().find(|e| e.kind == "turn/end");
    // An exchange that ended ABORTED has no result to replay: its client left, its deadline passed, or
    // a drain cut it. The client's retry under the same key runs it again (a new turn of the session).
    let aborted =
        last_end.is_some_and(|e| e.data.get("code").and_then(Value::as_str) == Some("ABORTED"));
    if open || aborted || last_end.is_none() {
        Ok(Prior::Open(id))
    } else {
        Ok(Prior::Done(id, read.events))
    }
}

/// How long after a lease's end the claim is tried: the holder's clock and ours are the database's,
/// but a renewal in flight at the last moment must have landed.
const LEASE_MARGIN: Duration = Duration::from_millis(100);

/// A session another gateway process holds (its lease in PostgreSQL), at a client's retry. A holder
/// that died (a gateway killed mid-request, a lost machine) stops renewing, and its lease lapses
/// within `[sessions] lease`: the retry waits for that, when the request's deadline allows, and then
/// continues the session with its retry count (`Ok(true)`). A holder that renewed meanwhile is alive,
/// still answering this key: 409, saying when to come back. `Ok(false)`: nothing held it.
async fn wait_for_dead_holder(
    gw: &Gateway,
    id: &str,
    deadline: tokio::time::Instant,
) -> Result<bool, Response> {
    let lapses_in = match gw.store.lease_lapses_in(id) {
        Ok(None) => return Ok(false),
        Ok(Some(d)) => d,
        Err(e) => return Err(internal(&format!("{e:#}"))),
    };
    let wake = tokio::time::Instant::now() + lapses_in + LEASE_MARGIN;
    if wake >= deadline {
        return Err(held_elsewhere(id, lapses_in));
    }
    gw.metrics.lease_waits.inc();
    tracing::info!(
        "session {id}: held by another process; waiting {} ms for its lease to lapse",
        lapses_in.as_millis()
    );
    tokio::time::sleep_until(wake).await;
    match gw.store.lease_lapses_in(id) {
        Ok(None) => Ok(true),
        Ok(Some(d)) => Err(held_elsewhere(id, d)),
        Err(e) => Err(internal(&format!("{e:#}"))),
    }
}

fn fresh_id() -> String {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace([':', '-'], "");
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    use sha2::{Digest, Sha256};
    let noise = hex::encode(Sha256::digest(format!(
        "{nanos}{:?}",
        std::thread::current().id()
    )));
    format!("gw-{}-{}", stamp.trim_end_matches('Z'), &noise[..10])
}

/// One request being answered: its session, its targets, its deadline.
struct RequestRun {
    gw: Arc<Gateway>,
    client: Client,
    plan: routes::Plan,
    parsed: wire::Parsed,
    session_id: String,
    prior: Prior,
    deadline: tokio::time::Instant,
    started: Instant,
    running: Running,
}

/// What the session task sends the response side.
enum Outcome {
    Done {
        completion: Completion,
        provider: String,
    },
    Failed {
        failure: LlmFailure,
        provider: String,
    },
    Host(String),
}

impl RequestRun {
    async fn answer(self) -> Response {
        let RequestRun {
            gw,
            client,
            plan,
            parsed,
            session_id,
            prior,
            deadline,
            started,
            running,
        } = self;
        let first = &plan.targets[0];
        let provider = match gw.provider(&first.provider).await {
            Ok(p) => p,
            Err(f) => return failure_response(&f, &session_id, None),
        };
        let deps = gw.runtime.deps(provider);
        let committed = Arc::new(AtomicBool::new(false));
        let opened = match &prior {
            Prior::Open(id) => gw
                .store
                .reopen(id)
                .and_then(|(log, read)| Session::resume(deps, log, &read)),
            _ => gw
                .store
                .create_named(&session_id)
                .and_then(|log| Session::start(deps, log, None).map(|s| (s, None))),
        };
        let (session, unfinished) = match opened {
            Ok(s) => s,
            Err(e) => {
                if let Some(held) = e.downcast_ref::<crate::pg_store::LeaseHeld>() {
                    return held_elsewhere(&session_id, held.lapses_in);
                }
                let text = format!("{e:#}");
                if text.contains("another") && text.contains("writ") {
                    return conflict(&session_id);
                }
                return internal(&format!("session {session_id}: {text}"));
            }
        };
        let mut session = session.with_commit_flag(committed.clone());
        let abort = session.abort_signal();
        gw.in_flight
            .lock()
            .expect("in-flight lock")
            .insert(session_id.clone(), abort.clone());
        let guard = AbortOnDrop(Some(abort.clone()));
        let (events_tx, events_rx) = mpsc::unbounded_channel::<StreamEvent>();
        let stream = parsed.stream;
        let include_usage = parsed.include_usage;
        let client_model = parsed.client_model.clone();
        let exchange = parsed.exchange;
        let task_gw = gw.clone();
        let task_committed = committed.clone();
        let client_id = client.id.clone();
        let answering = Arc::new(Mutex::new(first.provider.clone()));
        let task_answering = answering.clone();
        let task = tokio::spawn(async move {
            let _running = running;
            let sink_committed = task_committed.clone();
            let mut sink = move |event: StreamEvent| {
                if matches!(&event, StreamEvent::Text(t) | StreamEvent::Reasoning(t) if !t.is_empty())
                {
                    // Before the event leaves: the session must see the commit if this attempt fails.
                    sink_committed.store(true, Ordering::SeqCst);
                }
                let _ = events_tx.send(event);
            };
            run_targets(
                &task_gw,
                &mut session,
                &client_id,
                plan,
                exchange,
                unfinished,
                &task_committed,
                &task_answering,
                &mut sink,
            )
            .await
        });
        let ctx = ResponseCtx {
            gw: gw.clone(),
            session_id: session_id.clone(),
            client_model,
            include_usage,
            started,
            deadline,
            abort,
            created: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs(),
            answering,
        };
        if stream {
            ctx.stream(task, events_rx, guard).await
        } else {
            ctx.whole(task, events_rx, guard).await
        }
    }
}

/// Runs the exchange on each target in turn: the next only when the waterfall gave up on a
/// retryable failure and nothing has reached the client yet. Each switch is logged.
#[allow(clippy::too_many_arguments)]
async fn run_targets(
    gw: &Gateway,
    session: &mut Session,
    client: &str,
    plan: routes::Plan,
    exchange: Exchange,
    unfinished: Option<crate::resume::UnfinishedTurn>,
    committed: &AtomicBool,
    answering: &Mutex<String>,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> Outcome {
    let mut last: Option<(String, String)> = None;
    for (i, target) in plan.targets.iter().enumerate() {
        if i > 0 {
            let provider = match gw.provider(&target.provider).await {
                Ok(p) => p,
                Err(f) => {
                    return Outcome::Failed {
                        failure: f,
                        provider: target.provider.clone(),
                    };
                }
            };
            let (from, code) = last.take().unwrap_or_default();
            gw.metrics
                .fallbacks
                .get_or_create(&metrics::code(&from, &code))
                .inc();
            if let Err(e) =
                session.switch_provider(provider, &format!("fallback after {code} from {from}"))
            {
                return Outcome::Host(format!("{e:#}"));
            }
        }
        *answering.lock().expect("answering lock") = target.provider.clone();
        // Attempts and retries are counted here, where the provider that made them is known: the
        // response side sees the events after a fallback may have switched providers.
        let mut counted = |event: StreamEvent| {
            match &event {
                StreamEvent::Retrying { code, .. } => {
                    gw.metrics
                        .retries
                        .get_or_create(&metrics::code(&target.provider, code))
                        .inc();
                    gw.metrics
                        .attempts
                        .get_or_create(&metrics::provider(&target.provider))
                        .inc();
                }
                StreamEvent::CoolingDown { code, .. } => {
                    gw.metrics
                        .cooldown_holds
                        .get_or_create(&metrics::code(&target.provider, code))
                        .inc();
                }
                _ => {}
            }
            sink(event);
        };
        let mut exchange = exchange.clone();
        exchange.options.model = Some(target.model.clone());
        let note = json!({"client": client, "target": {"provider": target.provider, "model": target.model}});
        let result = match (i, &unfinished) {
            (0, Some(open)) => {
                if let Err(e) = session.note("gateway/continue", note) {
                    return Outcome::Host(format!("{e:#}"));
                }
                session
                    .continue_exchange(open.clone(), exchange, &mut counted)
                    .await
            }
            _ => {
                if let Err(e) = session.note("gateway/request", note) {
                    return Outcome::Host(format!("{e:#}"));
                }
                session.run_exchange(exchange, &mut counted).await
            }
        };
        // The target's last attempt (each retried one was counted with its retry). Not after an
        // abort, which may have come during a backoff, with no attempt in flight.
        if !matches!(&result, Err(TurnError::Host(_)))
            && !matches!(&result, Err(TurnError::Failed(f)) if f.code == "ABORTED")
        {
            gw.metrics
                .attempts
                .get_or_create(&metrics::provider(&target.provider))
                .inc();
        }
        match result {
            Ok(completion) => {
                return Outcome::Done {
                    completion,
                    provider: target.provider.clone(),
                };
            }
            Err(TurnError::Failed(failure)) => {
                let retryable =
                    crate::failure::RETRYABLE_BY_DEFAULT.contains(&failure.code.as_str());
                if retryable && !committed.load(Ordering::SeqCst) && i + 1 < plan.targets.len() {
                    last = Some((target.provider.clone(), failure.code.clone()));
                    continue;
                }
                return Outcome::Failed {
                    failure,
                    provider: target.provider.clone(),
                };
            }
            Err(TurnError::StepLimit { .. }) => unreachable!("an exchange is one step"),
            Err(TurnError::Host(e)) => return Outcome::Host(format!("{e:#}")),
        }
    }
    Outcome::Host("no target answered".into())
}

/// What the response side needs to write any answer.
struct ResponseCtx {
    gw: Arc<Gateway>,
    session_id: String,
    client_model: String,
    include_usage: bool,
    started: Instant,
    deadline: tokio::time::Instant,
    abort: AbortSignal,
    created: u64,
    /// The provider of the target running now (a fallback changes it), for the first-content metric.
    answering: Arc<Mutex<String>>,
}

impl ResponseCtx {
    fn writer(&self) -> wire::ChunkWriter {
        wire::ChunkWriter {
            id: format!("chatcmpl-{}", self.session_id),
            created: self.created,
            model: self.client_model.clone(),
        }
    }

    fn headers(&self, compacted: &Option<String>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-dsh-session", header_value(&self.session_id));
        if let Some(c) = compacted {
            h.insert("x-dsh-compacted", header_value(c));
        }
        h
    }

    fn record(&self, provider: &str, status: u16, stream: bool, outcome: Option<&Outcome>) {
        let m = &self.gw.metrics;
        m.requests
            .get_or_create(&metrics::RequestLabels {
                provider: provider.into(),
                status: status.to_string(),
                stream: stream.to_string(),
            })
            .inc();
        m.latency
            .get_or_create(&metrics::provider(provider))
            .observe(self.started.elapsed().as_secs_f64());
        match outcome {
            Some(Outcome::Done { completion, .. }) => {
                if let Some(u) = &completion.usage {
                    for (kind, n) in [("input", u.input_tokens), ("output", u.output_tokens)] {
                        m.tokens
                            .get_or_create(&metrics::TokenLabels {
                                provider: provider.into(),
                                kind: kind.into(),
                            })
                            .inc_by(n.unwrap_or(0));
                    }
                }
            }
            Some(Outcome::Failed { failure, .. }) => {
                m.failures
                    .get_or_create(&metrics::code(provider, &failure.code))
                    .inc();
            }
            _ => {}
        }
    }

    /// Notes a compaction the session reported, for the headers. (Attempts and retries are counted
    /// by `run_targets`, which knows their provider.)
    fn observe(&self, event: &StreamEvent, compacted: &mut Option<String>) {
        if let StreamEvent::Compacted { before, after } = event {
            *compacted = Some(format!("{before}->{after}"));
        }
    }

    /// The session's outcome, the deadline, or nothing (the session was aborted by the deadline).
    async fn outcome(
        &self,
        task: &mut tokio::task::JoinHandle<Outcome>,
        deadline_hit: &mut bool,
    ) -> Outcome {
        loop {
            tokio::select! {
                result = &mut *task => {
                    return result.unwrap_or_else(|e| Outcome::Host(format!("the request's task failed: {e}")));
                }
                _ = tokio::time::sleep_until(self.deadline), if !*deadline_hit => {
                    *deadline_hit = true;
                    self.abort.abort();
                }
            }
        }
    }

    /// A failure once the deadline cut the request: TIMEOUT, not the caller's ABORTED.
    fn deadline_failure(&self, failure: LlmFailure, deadline_hit: bool) -> LlmFailure {
        if deadline_hit && failure.code == "ABORTED" {
            return LlmFailure::new(
                "TIMEOUT",
                "the gateway's request deadline passed (request_timeout_ms or x-dsh-timeout-ms)",
            );
        }
        failure
    }

    /// A non-streaming answer: the whole completion, or the failure's status.
    async fn whole(
        self,
        mut task: tokio::task::JoinHandle<Outcome>,
        mut events: mpsc::UnboundedReceiver<StreamEvent>,
        guard: AbortOnDrop,
    ) -> Response {
        let mut deadline_hit = false;
        let outcome = self.outcome(&mut task, &mut deadline_hit).await;
        drop(guard_disarmed(guard));
        let mut compacted = None;
        let provider = outcome_provider(&outcome);
        while let Ok(e) = events.try_recv() {
            self.observe(&e, &mut compacted);
        }
        let response = match &outcome {
            Outcome::Done { completion, .. } => {
                let body = wire::completion_body(
                    &format!("chatcmpl-{}", self.session_id),
                    self.created,
                    &self.client_model,
                    completion,
                );
                json_response(200, &body, self.headers(&compacted))
            }
            Outcome::Failed { failure, .. } => {
                let failure = self.deadline_failure(failure.clone(), deadline_hit);
                failure_response(&failure, &self.session_id, compacted.as_deref())
            }
            Outcome::Host(e) => internal(e),
        };
        self.record(&provider, response.status().as_u16(), false, Some(&outcome));
        response
    }

    /// A streaming answer: the head is held while the waterfall retries invisibly, up to
    /// `hold_head_ms`; then content streams, or SSE comment keepalives until content or the outcome.
    async fn stream(
        self,
        mut task: tokio::task::JoinHandle<Outcome>,
        mut events: mpsc::UnboundedReceiver<StreamEvent>,
        guard: AbortOnDrop,
    ) -> Response {
        let hold_until = (tokio::time::Instant::now()
            + Duration::from_millis(self.gw.config.hold_head_ms))
        .min(self.deadline);
        let mut compacted = None;
        let mut deadline_hit = false;
        let mut first: Option<StreamEvent> = None;
        // Holding the head.
        let finished = loop {
            tokio::select! {
                event = events.recv() => match event {
                    Some(e @ (StreamEvent::Text(_) | StreamEvent::Reasoning(_))) => { first = Some(e); break None; }
                    Some(e) => self.observe(&e, &mut compacted),
                    // The session ended without streaming content: the outcome decides the answer.
                    None => break Some(self.outcome(&mut task, &mut deadline_hit).await),
                },
                // The deadline before any content: nothing is sent yet, so the answer is the status
                // (504), as for a non-streaming request, not a 200 whose stream holds only an error.
                _ = tokio::time::sleep_until(hold_until) => {
                    if hold_until >= self.deadline {
                        break Some(self.outcome(&mut task, &mut deadline_hit).await);
                    }
                    break None;
                }
            }
        };
        if let Some(outcome) = finished {
            drop(guard_disarmed(guard));
            let provider = outcome_provider(&outcome);
            let response = match &outcome {
                Outcome::Done { completion, .. } => {
                    let w = self.writer();
                    let mut body = w.role();
                    if !completion.reasoning.is_empty() {
                        body.push_str(&w.reasoning(&completion.reasoning));
                    }
                    if !completion.text.is_empty() {
                        body.push_str(&w.text(&completion.text));
                    }
                    body.push_str(&w.end(completion, self.include_usage));
                    sse_response(self.headers(&compacted), Body::from(body))
                }
                Outcome::Failed { failure, .. } => {
                    let failure = self.deadline_failure(failure.clone(), deadline_hit);
                    failure_response(&failure, &self.session_id, compacted.as_deref())
                }
                Outcome::Host(e) => internal(e),
            };
            self.record(&provider, response.status().as_u16(), true, Some(&outcome));
            return response;
        }
        // The head goes now: with the first content, or because the hold ran out.
        if first.is_some() {
            let provider = self.answering.lock().expect("answering lock").clone();
            self.gw
                .metrics
                .first_content
                .get_or_create(&metrics::provider(&provider))
                .observe(self.started.elapsed().as_secs_f64());
        }
        let (body_tx, body_rx) = mpsc::channel::<Result<Bytes, std::convert::Infallible>>(64);
        let headers = self.headers(&compacted);
        drop(guard_disarmed(guard));
        tokio::spawn(self.forward(task, events, first, body_tx, deadline_hit));
        let body = Body::from_stream(futures_util::stream::unfold(body_rx, |mut rx| async move {
            rx.recv().await.map(|b| (b, rx))
        }));
        sse_response(headers, body)
    }

    /// After the head: content as it comes, keepalives while none does, then the end or an error
    /// event. A client that goes away aborts the session (ABORTED in its log).
    async fn forward(
        self,
        mut task: tokio::task::JoinHandle<Outcome>,
        mut events: mpsc::UnboundedReceiver<StreamEvent>,
        first: Option<StreamEvent>,
        body: mpsc::Sender<Result<Bytes, std::convert::Infallible>>,
        mut deadline_hit: bool,
    ) {
        let w = self.writer();
        let send = |text: String| {
            let body = body.clone();
            async move { body.send(Ok(Bytes::from(text))).await.is_ok() }
        };
        let mut alive = send(w.role()).await;
        let mut write_event = |e: &StreamEvent| match e {
            StreamEvent::Text(t) if !t.is_empty() => Some(w.text(t)),
            StreamEvent::Reasoning(t) if !t.is_empty() => Some(w.reasoning(t)),
            _ => None,
        };
        if let Some(text) = first.as_ref().and_then(&mut write_event) {
            alive = alive && send(text).await;
        }
        let mut compacted = None;
        let keepalive = Duration::from_millis(self.gw.config.keepalive_ms);
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + keepalive, keepalive);
        while alive {
            tokio::select! {
                event = events.recv() => match event {
                    Some(e) => {
                        self.observe(&e, &mut compacted);
                        if let Some(text) = write_event(&e) {
                            alive = send(text).await;
                        }
                    }
                    None => break,
                },
                _ = tick.tick() => alive = send(": keepalive\n\n".into()).await,
                _ = tokio::time::sleep_until(self.deadline), if !deadline_hit => {
                    deadline_hit = true;
                    self.abort.abort();
                }
            }
        }
        if !alive {
            // The client went away: stop the attempt or the backoff at once.
            self.abort.abort();
        }
        let outcome = self.outcome(&mut task, &mut deadline_hit).await;
        let provider = outcome_provider(&outcome);
        let tail = match &outcome {
            Outcome::Done { completion, .. } => w.end(completion, self.include_usage),
            Outcome::Failed { failure, .. } => {
                let failure = self.deadline_failure(failure.clone(), deadline_hit);
                let r = status::for_failure(&failure);
                w.error(&status::error_body(
                    &status::client_message(&failure),
                    r.error_type,
                    &r.error_code,
                ))
            }
            Outcome::Host(e) => w.error(&status::error_body(
                &format!("host error: {e}"),
                "server_error",
                "host_error",
            )),
        };
        if alive {
            let _ = send(tail).await;
        }
        self.record(
            &provider,
            if alive { 200 } else { 499 },
            true,
            Some(&outcome),
        );
    }
}

fn guard_disarmed(mut guard: AbortOnDrop) -> AbortOnDrop {
    guard.0 = None;
    guard
}

fn outcome_provider(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Done { provider, .. } | Outcome::Failed { provider, .. } => provider.clone(),
        Outcome::Host(_) => "none".into(),
    }
}

/// A completed exchange answered again from its log, without the provider.
fn replay(parsed: &wire::Parsed, id: &str, events: &[Event]) -> Response {
    let Some(end) = events.iter().rev().find(|e| e.kind == "turn/end") else {
        return internal("the session has no end to replay");
    };
    if end.data.get("outcome").and_then(Value::as_str) == Some("completed") {
        let completion = Completion {
            text: end
                .data
                .get("assistant")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            reasoning: end
                .data
                .get("reasoning")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            tool_calls: end
                .data
                .get("tool_calls")
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default(),
            usage: end
                .data
                .get("usage")
                .and_then(|v| serde_json::from_value(v.clone()).ok()),
            finish_reason: end
                .data
                .get("finish_reason")
                .and_then(Value::as_str)
                .map(str::to_string),
            truncated_by_length: false,
            provider_data: end
                .data
                .get("provider_data")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        let mut headers = HeaderMap::new();
        headers.insert("x-dsh-session", header_value(id));
        headers.insert("x-dsh-replayed", HeaderValue::from_static("true"));
        let created = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        if parsed.stream {
            let w = wire::ChunkWriter {
                id: format!("chatcmpl-{id}"),
                created,
                model: parsed.client_model.clone(),
            };
            let mut body = w.role();
            if !completion.text.is_empty() {
                body.push_str(&w.text(&completion.text));
            }
            body.push_str(&w.end(&completion, parsed.include_usage));
            return sse_response(headers, Body::from(body));
        }
        return json_response(
            200,
            &wire::completion_body(
                &format!("chatcmpl-{id}"),
                created,
                &parsed.client_model,
                &completion,
            ),
            headers,
        );
    }
    let failure = events
        .iter()
        .rev()
        .find(|e| e.kind == "llm/error")
        .and_then(|e| e.data.get("failure"))
        .and_then(|f| serde_json::from_value::<LlmFailure>(f.clone()).ok())
        .unwrap_or_else(|| LlmFailure::new("SERVER_ERROR", "the request failed"));
    let mut response = failure_response(&failure, id, None);
    response
        .headers_mut()
        .insert("x-dsh-replayed", HeaderValue::from_static("true"));
    response
}

// ---- responses -------------------------------------------------------------------------------

fn header_value(text: &str) -> HeaderValue {
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}

/// Headers of a final failure: the SDKs must not run the waterfall again.
fn final_headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("x-should-retry", HeaderValue::from_static("false"));
    h
}

fn json_response(status: u16, body: &Value, headers: HeaderMap) -> Response {
    let mut response = (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        body.to_string(),
    )
        .into_response();
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response.headers_mut().extend(headers);
    response
}

fn sse_response(headers: HeaderMap, body: Body) -> Response {
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert("cache-control", HeaderValue::from_static("no-cache"));
    h.extend(headers);
    response
}

/// A gateway-level refusal (not a provider failure): final unless it is load shedding.
fn plain_error(status: u16, error_type: &str, code: &str, message: &str) -> Response {
    json_response(
        status,
        &status::error_body(message, error_type, code),
        final_headers(),
    )
}

fn internal(message: &str) -> Response {
    plain_error(
        500,
        "server_error",
        "host_error",
        &format!("host error: {message}"),
    )
}

fn conflict(session: &str) -> Response {
    let mut r = plain_error(
        409,
        "invalid_request_error",
        "request_in_progress",
        &format!(
            "session {session} is being answered by another request; retry once it has finished"
        ),
    );
    r.headers_mut()
        .insert("x-dsh-session", header_value(session));
    r
}

/// 409 for a session another gateway process is answering (its lease lives): the client may come
/// back once the lease would lapse (`retry-after`, which the official SDKs honour), to be answered
/// from the log, or continued if that process died.
fn held_elsewhere(session: &str, lapses_in: Duration) -> Response {
    let secs = lapses_in.as_secs() + 1;
    let message = format!(
        "session {session} is being answered by another gateway process; retry in {secs} s: its answer is then \
         replayed, or the request continued if that process has died"
    );
    let mut r = json_response(
        409,
        &status::error_body(&message, "invalid_request_error", "request_in_progress"),
        HeaderMap::new(),
    );
    r.headers_mut()
        .insert("x-dsh-session", header_value(session));
    r.headers_mut()
        .insert("retry-after", header_value(&secs.to_string()));
    r.headers_mut()
        .insert("x-should-retry", HeaderValue::from_static("true"));
    r
}

fn key_reused(session: &str) -> Response {
    let mut r = plain_error(
        422,
        "invalid_request_error",
        "idempotency_key_reused",
        "this Idempotency-Key was first used with another request (another conversation or tools): send a new key with a new request",
    );
    r.headers_mut()
        .insert("x-dsh-session", header_value(session));
    r
}

/// Load shedding: retryable, and says when.
fn shed_response(why: &str) -> Response {
    let mut r = json_response(
        503,
        &status::error_body(
            &format!("{why}; retry shortly"),
            "overloaded_error",
            "gateway_overloaded",
        ),
        HeaderMap::new(),
    );
    r.headers_mut()
        .insert("retry-after", HeaderValue::from_static("1"));
    r.headers_mut()
        .insert("x-should-retry", HeaderValue::from_static("true"));
    r
}

fn failure_response(failure: &LlmFailure, session: &str, compacted: Option<&str>) -> Response {
    let r = status::for_failure(failure);
    let mut headers = final_headers();
    headers.insert("x-dsh-session", header_value(session));
    headers.insert("x-dsh-failure-code", header_value(&failure.code));
    if let Some(s) = r.retry_after_s {
        headers.insert("retry-after", header_value(&s.to_string()));
    }
    if let Some(c) = compacted {
        headers.insert("x-dsh-compacted", header_value(c));
    }
    json_response(
        r.status,
        &status::error_body(
            &status::client_message(failure),
            r.error_type,
            &r.error_code,
        ),
        headers,
    )
}
