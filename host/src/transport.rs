//! The only code that talks to providers: sends an adapter's `HttpPlan` with reqwest and reads the
//! answer, mapping transport errors to canonical failures. One `Transport` per provider: it carries
//! that provider's network policy, key and watchdog.
//!
//! No automatic retries: one `send` is one provider attempt; retrying is the recovery waterfall's
//! decision. reqwest's own retries (HTTP/2 REFUSED_STREAM and GOAWAY) are off; the only retry left
//! below the policy is hyper's resend of a request that was never written to a pooled connection the
//! server had already closed, which the provider never receives. The plan is checked (`plan`) before
//! any connection. The credential is inserted here, only into the provider's credential headers of
//! requests the policy allows, and redacted from every failure; a guest never sees it.
//!
//! Compressed bodies are never inflated: reqwest is built without its gzip/brotli/deflate/zstd
//! features, so no `accept-encoding` is sent and a `content-encoding` answer reaches the adapter as
//! the raw bytes, under the same caps as any body.

use crate::adapter::{CompletionRequest, HttpPlan, ResponseHead};
use crate::failure::LlmFailure;
use crate::network::NetworkPolicy;
use crate::plan;
use crate::redact::{Redactor, StreamRedactor};
use crate::watchdog::{IdleTimer, Watchdog};
use anyhow::Context;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use crate::plan::CREDENTIAL_PLACEHOLDER;

/// Non-2xx bodies are read whole for classification, up to this size.
pub const MAX_ERROR_BODY_BYTES: usize = 1 << 20;

/// A 2xx body larger than this ends the attempt: no completion is that large.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 64 << 20;

/// Redirects followed at most (307/308 to an allowed host only).
const MAX_REDIRECTS: usize = 5;

/// The provider's key, where it comes from and where it may go.
#[derive(Clone)]
pub struct Credential {
    /// The API key, if any. Redacted from every message. Checked when the transport is built: it must
    /// be something an HTTP header can carry.
    pub key: Option<String>,
    /// Where the key comes from, for messages (e.g. `the environment variable OPENAI_API_KEY`).
    pub source: String,
    /// Without a key: how to give one (e.g. `set the environment variable OPENAI_API_KEY`, or why the
    /// preset's key is not sent to this base URL), for the `AUTH` failure.
    pub missing: String,
    /// Without a key: fail (`true`), or send the request without the credential header (`false`, for
    /// local servers such as llama.cpp or Ollama that need none).
    pub required: bool,
    /// The header names (lower-case) that may carry the key (`authorization`, `x-api-key`, ...).
    pub headers: Vec<String>,
}

#[derive(Clone)]
pub struct Transport {
    client: reqwest::Client,
    policy: Arc<NetworkPolicy>,
    credential: Credential,
    watchdog: Watchdog,
    max_response_bytes: usize,
    /// The key's forms, searched in every provider byte before a guest sees it (`None`: no key, or
    /// a placeholder too short to be a secret).
    redactor: Option<Arc<Redactor>>,
    /// The key's name in the fleet's cool-downs, computed once: it is asked for at every attempt.
    key_id: Arc<str>,
}

impl Transport {
    pub fn new(
        policy: NetworkPolicy,
        credential: Credential,
        watchdog: Watchdog,
    ) -> anyhow::Result<Self> {
        Self::build(policy, credential, watchdog, Arc::new(SystemLookup), None)
    }

    /// Like `new`, with the name lookup given: pinned addresses for split-horizon setups, or a
    /// fixed answer in tests. The policy still judges every address it returns.
    pub fn with_lookup(
        policy: NetworkPolicy,
        credential: Credential,
        watchdog: Watchdog,
        lookup: Arc<dyn NameLookup>,
    ) -> anyhow::Result<Self> {
        Self::build(policy, credential, watchdog, lookup, None)
    }

    /// The full constructor: `ca_file`, a PEM file of extra trusted root certificates (a provider
    /// behind an internal CA), is read and checked here, so a wrong path or a file without a
    /// certificate stops the start-up naming the file. A key no HTTP header can carry stops it too.
    pub fn build(
        policy: NetworkPolicy,
        credential: Credential,
        watchdog: Watchdog,
        lookup: Arc<dyn NameLookup>,
        ca_file: Option<&Path>,
    ) -> anyhow::Result<Self> {
        let credential = Credential {
            key: credential.key.filter(|k| !k.is_empty()),
            ..credential
        };
        if let Some(key) = &credential.key {
            check_key(key, &credential.source)?;
        }
        let provider = policy.provider.clone();
        let policy = Arc::new(policy);
        let mut builder = reqwest::Client::builder()
            // Redirects are handled in `send`, where the policy can judge each one.
            .redirect(reqwest::redirect::Policy::none())
            // reqwest retries HTTP/2 REFUSED_STREAM and GOAWAY by default (a refused provider saw 3
            // requests for 1 logged attempt). One send is one provider attempt; the policy retries.
            .retry(reqwest::retry::never())
            .connect_timeout(watchdog.idle().min(Duration::from_secs(30)))
            .dns_resolver(Arc::new(GuardedResolver {
                policy: policy.clone(),
                lookup,
            }))
            .user_agent(concat!("dsh-host/", env!("CARGO_PKG_VERSION")));
        if let Some(path) = ca_file {
            builder = builder.tls_certs_merge(read_ca_file(&provider, path)?);
        }
        let client = builder.build().map_err(|e| match ca_file {
            Some(path) => anyhow::anyhow!(
                "provider '{provider}': ca_file {}: cannot use its certificates: {}",
                path.display(),
                innermost(&e)
            ),
            None => anyhow::anyhow!(
                "provider '{provider}': cannot build the HTTP client: {}",
                innermost(&e)
            ),
        })?;
        let redactor = credential.key.as_deref().and_then(Redactor::new);
        if credential.key.is_some() && redactor.is_none() {
            tracing::warn!(
                "the key of provider '{}' ({}) is shorter than {} characters: it is taken for a placeholder, \
                 not a secret, and is not redacted from provider answers, logs or the terminal",
                policy.provider,
                credential.source,
                crate::redact::MIN_SECRET_LEN
            );
        }
        let key_id = crate::cooldown::key_id(credential.key.as_deref()).into();
        Ok(Transport {
            client,
            policy,
            credential,
            watchdog,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            redactor,
            key_id,
        })
    }

    pub fn with_max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    pub fn policy(&self) -> &NetworkPolicy {
        &self.policy
    }

    pub fn watchdog(&self) -> &Watchdog {
        &self.watchdog
    }

    /// The key's name in the fleet's cool-downs: a digest, never the key ([`crate::cooldown::key_id`]).
    pub fn key_id(&self) -> String {
        self.key_id.to_string()
    }

    /// Removes the key (in every form a provider may echo it) from any text that could reach a
    /// guest, a log or a terminal.
    pub fn redact(&self, text: &str) -> String {
        match &self.redactor {
            Some(r) => r.text(text).into_owned(),
            None => text.to_string(),
        }
    }

    /// The same failure with the key removed from its message.
    pub fn redact_failure(&self, failure: LlmFailure) -> LlmFailure {
        LlmFailure {
            message: self.redact(&failure.message),
            request_id: failure.request_id.map(|r| self.redact(&r)),
            ..failure
        }
    }

    /// Checks the plan guest `guest` made for `request` (an invalid plan is its `ADAPTER_FAULT`,
    /// before any connection), sends it and waits for the response head (following only redirects
    /// the policy allows).
    pub async fn send(
        &self,
        plan: &HttpPlan,
        guest: &str,
        request: &CompletionRequest,
    ) -> Result<ProviderResponse, LlmFailure> {
        let checked = plan::check(
            plan,
            guest,
            &self.policy.provider,
            &self.credential.headers,
            request,
        )?;
        let method = checked.method;
        let mut url = checked.url;
        let headers = self.headers(&checked.headers)?;
        let body = bytes::Bytes::copy_from_slice(checked.body);
        for _ in 0..=MAX_REDIRECTS {
            // Before any connection: the URL must be allowed; the key goes nowhere else.
            self.policy
                .check_url(&url)
                .map_err(|r| LlmFailure::new("INVALID_REQUEST", format!("refused: {r}")))?;
            let request = self
                .client
                .request(method.clone(), url.clone())
                .headers(headers.clone())
                .body(body.clone());
            let response = self
                .watchdog
                .guard(
                    || format!("no response head from {}", host_of(&url)),
                    request.send(),
                )
                .await?
                .map_err(|e| self.map_error(&e, &url, "sending the request"))?;
            let status = response.status();
            if status.is_redirection() {
                url = self.redirect_target(&url, status.as_u16(), &response)?;
                continue;
            }
            let head = ResponseHead {
                status: status.as_u16(),
                // A provider may echo the request's headers: the key is removed before the guest sees them.
                headers: response
                    .headers()
                    .iter()
                    .map(|(n, v)| {
                        (
                            n.as_str().to_ascii_lowercase(),
                            self.redact(&String::from_utf8_lossy(v.as_bytes())),
                        )
                    })
                    .collect(),
                received_at_ms: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_millis() as u64)
                    .unwrap_or(0),
            };
            let redactor = StreamRedactor::new(self.redactor.clone());
            return Ok(ProviderResponse {
                head,
                response,
                url,
                transport: self.clone(),
                received: 0,
                redactor,
                ended: false,
            });
        }
        Err(LlmFailure::new(
            "INVALID_REQUEST",
            format!("more than {MAX_REDIRECTS} redirects from {}", host_of(&url)),
        ))
    }

    /// The checked plan's headers with the credential inserted (`plan::check` has already refused
    /// the placeholder anywhere but the provider's credential headers). Values are valid: the plan's
    /// were checked, and so was the key when the transport was built.
    fn headers(
        &self,
        planned: &[(reqwest::header::HeaderName, &str)],
    ) -> Result<reqwest::header::HeaderMap, LlmFailure> {
        let mut out = reqwest::header::HeaderMap::with_capacity(planned.len());
        for (name, value) in planned {
            let value = if !value.contains(CREDENTIAL_PLACEHOLDER) {
                reqwest::header::HeaderValue::from_str(value)
            } else {
                match &self.credential.key {
                    Some(key) => reqwest::header::HeaderValue::from_str(
                        &value.replace(CREDENTIAL_PLACEHOLDER, key),
                    )
                    .map(|mut v| {
                        // Never indexed by HPACK, never printed by Debug.
                        v.set_sensitive(true);
                        v
                    }),
                    None if !self.credential.required => continue,
                    None => {
                        return Err(LlmFailure::new(
                            "AUTH",
                            format!(
                                "provider '{}' needs an API key and has none: {} (the adapter asked for it in header '{}')",
                                self.policy.provider, self.credential.missing, name
                            ),
                        ));
                    }
                }
            };
            let value = value.map_err(|_| {
                LlmFailure::new(
                    "INVALID_REQUEST",
                    format!("header '{name}' could not be built after the checks passed"),
                )
            })?;
            out.append(name.clone(), value);
        }
        Ok(out)
    }

    /// A 307/308 to an allowed host is followed (method and body kept); anything else is refused
    /// with the reason, since following it would change the request or leave the provider.
    fn redirect_target(
        &self,
        from: &reqwest::Url,
        status: u16,
        response: &reqwest::Response,
    ) -> Result<reqwest::Url, LlmFailure> {
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok());
        let Some(location) = location else {
            return Err(LlmFailure::new(
                "INVALID_REQUEST",
                format!(
                    "{} answered HTTP {status} without a Location",
                    host_of(from)
                ),
            )
            .with_status(status));
        };
        let target = from.join(location).map_err(|e| {
            LlmFailure::new(
                "INVALID_REQUEST",
                format!(
                    "{} redirected to an invalid URL {location:?}: {e}",
                    host_of(from)
                ),
            )
            .with_status(status)
        })?;
        if let Err(refusal) = self.policy.check_url(&target) {
            return Err(LlmFailure::new(
                "INVALID_REQUEST",
                format!(
                    "refused the redirect from {} to {target}: {refusal}",
                    host_of(from)
                ),
            )
            .with_status(status));
        }
        if !matches!(status, 307 | 308) {
            return Err(LlmFailure::new(
                "INVALID_REQUEST",
                format!("{} answered HTTP {status} redirecting to {target}; only 307/308 keep the request intact, so dsh-host does not follow it: fix the provider's base_url", host_of(from)),
            )
            .with_status(status));
        }
        Ok(target)
    }

    fn map_error(&self, e: &reqwest::Error, url: &reqwest::Url, doing: &str) -> LlmFailure {
        let host = host_of(url);
        let cause = self.redact(&innermost(e));
        if let Some(refusal) = find_refusal(e) {
            return LlmFailure::new(
                "INVALID_REQUEST",
                format!("refused to connect to {host}: {refusal}"),
            );
        }
        if head_too_large(e) {
            // hyper stops reading a head at 100 headers or about 400 KiB: memory and time stay bounded.
            // The same server answers the same way next time, so five retries would only cost time.
            return LlmFailure::new(
                "INVALID_REQUEST",
                format!(
                    "the response head from {host} exceeded dsh-host's limits (at most {} headers and {} KiB of head); \
                     dsh-host stopped reading it and does not retry, since the answer is deterministic: check base_url \
                     points at the provider's API",
                    RESPONSE_MAX_HEADERS,
                    RESPONSE_MAX_HEAD_BYTES >> 10
                ),
            );
        }
        if let Some(refusal) = h2_refusal(e) {
            // Retryable like any network failure, but by the policy, which logs each attempt.
            return LlmFailure::new(
                "NETWORK",
                format!("{host} {refusal}; dsh-host does not resend it by itself"),
            );
        }
        let code = if e.is_timeout() { "TIMEOUT" } else { "NETWORK" };
        let what = if e.is_connect() {
            format!("could not connect to {host}: {cause}")
        } else {
            format!("{doing} to {host} failed: {cause}")
        };
        LlmFailure::new(code, what)
    }
}

fn host_of(url: &reqwest::Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => url.to_string(),
    }
}

/// reqwest's Display stops at the outermost layer ("error sending request"); the useful part
/// ("connection reset by peer", "connection refused") is at the bottom of the chain.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// Limits hyper applies to an HTTP/1 response head (its defaults, which reqwest keeps): a head over
/// either is a parse error, recognised by [`head_too_large`].
pub const RESPONSE_MAX_HEADERS: usize = 100;
pub const RESPONSE_MAX_HEAD_BYTES: usize = 8192 + 4096 * 100;

/// hyper refused the response head as too large (too many headers, or too many bytes).
fn head_too_large(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(h) = s.downcast_ref::<hyper::Error>() {
            // `is_parse_too_large` exists only with hyper's server feature; hyper's text for this
            // parse error is fixed, and the hostile-provider tests fail if it ever changes.
            return h.is_parse() && h.to_string() == "message head is too large";
        }
        source = s.source();
    }
    false
}

/// An HTTP/2 provider's refusal of the request, in words: the protocol's own texts ("not a result
/// of an error" for a GOAWAY) do not say what happened.
fn h2_refusal(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(h) = s.downcast_ref::<h2::Error>() {
            return match h.reason() {
                Some(h2::Reason::REFUSED_STREAM) if h.is_reset() && h.is_remote() => {
                    Some("refused the request over HTTP/2 (RST_STREAM REFUSED_STREAM: it did not process it)".into())
                }
                Some(reason) if h.is_go_away() && h.is_remote() => {
                    Some(format!("closed the HTTP/2 connection (GOAWAY {reason:?}) without answering the request"))
                }
                _ => None,
            };
        }
        source = s.source();
    }
    None
}

/// A key goes into a header value (`Bearer {key}`): refuse at start-up what a header cannot carry,
/// naming where the key came from and what is wrong with it, never the key.
fn check_key(key: &str, source: &str) -> anyhow::Result<()> {
    let len = key.chars().count();
    if let Some((at, what)) = plan::invalid_value_char(key) {
        anyhow::bail!(
            "the API key in {source} cannot be sent in an HTTP header: it {what} at character {} of {len}; \
             fix the value (a trailing line break often comes from a file with Windows line endings)",
            at + 1
        );
    }
    if key.starts_with([' ', '\t']) || key.ends_with([' ', '\t']) {
        anyhow::bail!(
            "the API key in {source} starts or ends with whitespace ({len} characters); remove it"
        );
    }
    Ok(())
}

/// The certificates of a provider's `ca_file`, or an error naming the file and what is wrong.
fn read_ca_file(provider: &str, path: &Path) -> anyhow::Result<Vec<reqwest::Certificate>> {
    let pem = std::fs::read(path).with_context(|| {
        format!(
            "provider '{provider}': cannot read ca_file {}",
            path.display()
        )
    })?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
        anyhow::anyhow!(
            "provider '{provider}': ca_file {} is not a PEM certificate file: {}",
            path.display(),
            innermost(&e)
        )
    })?;
    if certs.is_empty() {
        anyhow::bail!(
            "provider '{provider}': ca_file {} holds no certificate (expected PEM blocks starting with -----BEGIN CERTIFICATE-----)",
            path.display()
        );
    }
    Ok(certs)
}

fn find_refusal(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<crate::network::Refusal>() {
            return Some(r.to_string());
        }
        source = s.source();
    }
    None
}

/// Turns a host name into addresses.
pub trait NameLookup: Send + Sync {
    fn lookup(
        &self,
        host: String,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = std::io::Result<Vec<std::net::IpAddr>>> + Send>,
    >;
}

/// The system resolver (getaddrinfo through tokio).
pub struct SystemLookup;

impl NameLookup for SystemLookup {
    fn lookup(
        &self,
        host: String,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = std::io::Result<Vec<std::net::IpAddr>>> + Send>,
    > {
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .map(|a| a.ip())
                .collect())
        })
    }
}

/// Resolves names, then drops (and, if nothing is left, refuses) the addresses the policy forbids:
/// an allowed public name must not lead into the local network.
struct GuardedResolver {
    policy: Arc<NetworkPolicy>,
    lookup: Arc<dyn NameLookup>,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_string();
        let lookup = self.lookup.lookup(host.clone());
        Box::pin(async move {
            let mut allowed = Vec::new();
            let mut refusal = None;
            for ip in lookup.await? {
                match policy.check_ip(&host, ip) {
                    Ok(()) => allowed.push(SocketAddr::new(ip, 0)),
                    Err(r) => refusal = Some(r),
                }
            }
            match (allowed.is_empty(), refusal) {
                (true, Some(r)) => Err(Box::new(r) as Box<dyn std::error::Error + Send + Sync>),
                _ => Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs),
            }
        })
    }
}

/// An answer whose head has arrived. Its bytes leave it only with the key removed.
pub struct ProviderResponse {
    pub head: ResponseHead,
    response: reqwest::Response,
    url: reqwest::Url,
    transport: Transport,
    received: usize,
    redactor: StreamRedactor,
    ended: bool,
}

impl ProviderResponse {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.head.status)
    }

    /// The next network read of the body, with the key removed; `Ok(None)` at a clean end. The wait
    /// is bounded by `timer` (the watchdog's: only the caller knows what counts as progress).
    pub async fn next_read(
        &mut self,
        timer: &IdleTimer,
    ) -> Result<Option<bytes::Bytes>, LlmFailure> {
        loop {
            if self.ended {
                return Ok(None);
            }
            let raw = self.next_raw_read(timer).await?;
            let clean = match raw {
                Some(read) => self.redactor.push(read),
                None => {
                    self.ended = true;
                    self.redactor.finish()
                }
            };
            // A read held back whole (it may begin the key) is no read for the guest yet.
            if !clean.is_empty() {
                return Ok(Some(clean));
            }
        }
    }

    async fn next_raw_read(
        &mut self,
        timer: &IdleTimer,
    ) -> Result<Option<bytes::Bytes>, LlmFailure> {
        let host = host_of(&self.url);
        let status = self.head.status;
        let read = timer
            .guard(
                || format!("the stream from {host} made no progress"),
                self.response.chunk(),
            )
            .await
            .map_err(|f| f.with_status(status))?;
        match read {
            Ok(Some(chunk)) => {
                self.received += chunk.len();
                if self.received > self.transport.max_response_bytes {
                    return Err(LlmFailure::new(
                        "SERVER_ERROR",
                        format!("the response from {host} exceeded {} bytes; dsh-host stopped reading it", self.transport.max_response_bytes),
                    )
                    .with_status(status));
                }
                Ok(Some(chunk))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(self
                .transport
                .map_error(&e, &self.url, "reading the response body")
                .with_status(status)),
        }
    }

    /// Reads a (non-2xx) body whole for classification, with the key removed, capped at
    /// [`MAX_ERROR_BODY_BYTES`]. The whole read is bounded by one stream idle timeout from the head
    /// (an error body's bytes are no progress: a body dripping a byte at a time cannot hold the
    /// attempt). A body cut by the network or by that bound is classified from what arrived.
    pub async fn read_capped_body(&mut self) -> Vec<u8> {
        let timer = self.transport.watchdog.arm();
        let mut body = Vec::new();
        while body.len() < MAX_ERROR_BODY_BYTES {
            match self.next_read(&timer).await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        body.truncate(MAX_ERROR_BODY_BYTES);
        body
    }
}
