//! The only code that talks to providers: sends an adapter's `HttpPlan` with reqwest and reads the
//! answer, mapping transport errors to canonical failures.
//!
//! No automatic retries and no redirects: one `send` is one provider attempt; retrying is the
//! recovery waterfall's decision. The credential is inserted here, never seen by a guest.

use crate::adapter::{HttpPlan, ResponseHead};
use crate::failure::LlmFailure;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The placeholder an adapter puts in a header value where the provider's key goes.
pub const CREDENTIAL_PLACEHOLDER: &str = "{credential}";

/// Non-2xx bodies are read whole for classification, up to this size.
pub const MAX_ERROR_BODY_BYTES: usize = 1 << 20;

/// What the host knows about the provider it is calling, for this attempt.
#[derive(Clone)]
pub struct Destination {
    /// The provider's name (for messages).
    pub provider: String,
    /// The API key, if any. Redacted from every message.
    pub credential: Option<String>,
    /// Where the key comes from, for the "no key" message (e.g. `OPENAI_API_KEY`).
    pub credential_source: String,
    /// Without a key: fail (`true`), or send the request without the credential header (`false`,
    /// for local servers such as llama.cpp or Ollama that need none).
    pub credential_required: bool,
    /// The longest the host waits for the provider (response head, then each body read).
    pub idle_timeout: Duration,
}

#[derive(Clone)]
pub struct Transport {
    client: reqwest::Client,
}

impl Transport {
    pub fn new() -> anyhow::Result<Self> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(30))
            .user_agent(concat!("dsh-host/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Transport { client })
    }

    /// Sends the plan and waits for the response head.
    pub async fn send(
        &self,
        plan: &HttpPlan,
        dest: &Destination,
    ) -> Result<ProviderResponse, LlmFailure> {
        let method = reqwest::Method::from_bytes(plan.method.as_bytes()).map_err(|_| {
            LlmFailure::new(
                "ADAPTER_FAULT",
                format!(
                    "the adapter planned an invalid HTTP method {:?}",
                    plan.method
                ),
            )
        })?;
        let url = reqwest::Url::parse(&plan.url).map_err(|e| {
            LlmFailure::new(
                "ADAPTER_FAULT",
                format!("the adapter planned an invalid URL {:?}: {e}", plan.url),
            )
        })?;
        let mut request = self
            .client
            .request(method, url.clone())
            .body(plan.body.clone());
        for (name, value) in &plan.headers {
            let value = if value.contains(CREDENTIAL_PLACEHOLDER) {
                let Some(key) = &dest.credential else {
                    if !dest.credential_required {
                        continue;
                    }
                    return Err(LlmFailure::new(
                        "AUTH",
                        format!(
                            "provider '{}' needs an API key: set {} (the adapter asked for a credential in header '{}')",
                            dest.provider, dest.credential_source, name
                        ),
                    ));
                };
                value.replace(CREDENTIAL_PLACEHOLDER, key)
            } else {
                value.clone()
            };
            request = request.header(name.as_str(), value);
        }

        let sent = tokio::time::timeout(dest.idle_timeout, request.send()).await;
        let response = match sent {
            Err(_) => {
                return Err(LlmFailure::new(
                    "TIMEOUT",
                    format!(
                        "no response head from {} within {} ms",
                        host_of(&url),
                        dest.idle_timeout.as_millis()
                    ),
                ));
            }
            Ok(Err(e)) => return Err(self.map_error(&e, &url, dest, "sending the request")),
            Ok(Ok(response)) => response,
        };
        let head = ResponseHead {
            status: response.status().as_u16(),
            headers: response
                .headers()
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_ascii_lowercase(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            received_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0),
        };
        Ok(ProviderResponse {
            head,
            response,
            url,
            dest: dest.clone(),
        })
    }

    fn map_error(
        &self,
        e: &reqwest::Error,
        url: &reqwest::Url,
        dest: &Destination,
        doing: &str,
    ) -> LlmFailure {
        map_reqwest_error(e, url, dest, doing)
    }
}

fn host_of(url: &reqwest::Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => url.to_string(),
    }
}

fn map_reqwest_error(
    e: &reqwest::Error,
    url: &reqwest::Url,
    dest: &Destination,
    doing: &str,
) -> LlmFailure {
    let host = host_of(url);
    let cause = redact(&innermost(e), dest);
    let code = if e.is_timeout() { "TIMEOUT" } else { "NETWORK" };
    let what = if e.is_connect() {
        format!("could not connect to {host}: {cause}")
    } else {
        format!("{doing} to {host} failed: {cause}")
    };
    LlmFailure::new(code, what)
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

/// Removes the credential from any text that could reach a log or a terminal.
pub fn redact(text: &str, dest: &Destination) -> String {
    match &dest.credential {
        Some(key) if !key.is_empty() => text.replace(key.as_str(), "[redacted]"),
        _ => text.to_string(),
    }
}

/// An answer whose head has arrived.
pub struct ProviderResponse {
    pub head: ResponseHead,
    response: reqwest::Response,
    url: reqwest::Url,
    dest: Destination,
}

impl ProviderResponse {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.head.status)
    }

    /// The next network read of the body; `Ok(None)` at a clean end.
    pub async fn next_read(&mut self) -> Result<Option<bytes::Bytes>, LlmFailure> {
        match tokio::time::timeout(self.dest.idle_timeout, self.response.chunk()).await {
            Err(_) => Err(LlmFailure::new(
                "TIMEOUT",
                format!(
                    "the stream from {} was idle for {} ms",
                    host_of(&self.url),
                    self.dest.idle_timeout.as_millis()
                ),
            )
            .with_status(self.head.status)),
            Ok(Ok(chunk)) => Ok(chunk),
            Ok(Err(e)) => {
                Err(
                    map_reqwest_error(&e, &self.url, &self.dest, "reading the response body")
                        .with_status(self.head.status),
                )
            }
        }
    }

    /// Reads a (non-2xx) body whole for classification, capped at [`MAX_ERROR_BODY_BYTES`]. A body cut
    /// by the network is classified from what arrived.
    pub async fn read_capped_body(&mut self) -> Vec<u8> {
        let mut body = Vec::new();
        while body.len() < MAX_ERROR_BODY_BYTES {
            match self.next_read().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        body.truncate(MAX_ERROR_BODY_BYTES);
        body
    }
}
