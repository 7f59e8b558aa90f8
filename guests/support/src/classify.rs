//! `classify-failure`, shared: a provider's error answer (status, headers, body) as one
//! `llm-failure`, by meaning, whatever the envelope. The `openai`, `anthropic` and `gemini`
//! adapters all classify with it (an Anthropic-compatible route of Z.ai, Kimi or a relay answers
//! in any shape; Gemini's errors reach the `openai` adapter through Gemini's OpenAI layer), and so
//! can an outside adapter: its [`Provider`] names what differs.
//!
//! Servers share the envelope `{"error": {"message", "type", "code"}}` loosely (Anthropic's
//! `{"type": "error", "error": {"type", "message"}}` is one form of it) and word things
//! differently, so the code is decided by meaning, strongest evidence first:
//! 1. the error's machine labels (`type`, `code`, `status` strings) when they name a meaning;
//! 2. the wording of the message (a DeepSeek overflow says `code: invalid_request_error`), read by
//!    meaning with the rules of [`crate::meaning`] (overflow and quota in whatever words);
//! 3. Google's rpc status names (`UNAVAILABLE`, `INTERNAL`, ...), over the HTTP status a relay put on
//!    them;
//! 4. the HTTP status;
//! 5. for in-band errors without a status, generic labels such as `server_error`.
//!
//! Last, a rate limit whose stated horizon (`retry-after`, or "retry after 86400 seconds") outlasts
//! a retry is QUOTA_EXCEEDED: waiting a retry's worth will not cure it.
//!
//! Google's error `details` (Gemini's API, and its OpenAI layer) count as labels: the quota that was
//! hit (per day, per minute, a limit of 0) decides between a rate limit and quota exhaustion, since
//! Gemini words both alike; `RetryInfo.retryDelay` is the retry hint when no header gives one.

use serde_json::Value;

use crate::meaning::{self, says_any};
use crate::retry_after::retry_after_ms;
use crate::text::{
    MESSAGE_CHARS, QUOTE_CHARS, clip, excerpt, html_title, looks_like_html, normalize,
    request_id_in_text, status_line,
};
use crate::types::{FailureCode, LlmFailure, ResponseHead, codes};

/// What differs between the adapters that share this classification.
#[derive(Debug, Clone, Copy)]
pub struct Provider {
    /// The headers that carry the provider's request id, the preferred first (OpenAI's
    /// `x-request-id`, Anthropic's `request-id`).
    pub request_id_headers: &'static [&'static str],
    /// Whether the failure's message names the error's type after the provider's message
    /// ("Overloaded (overloaded_error)"): for a provider whose types are documented words users
    /// search for.
    pub type_in_message: bool,
    /// Who answered, in the failure's message ("HTTP 502 Bad Gateway from Gemini, with an HTML
    /// page"): "the provider" when the adapter serves many.
    pub called: &'static str,
}

/// Classify a non-2xx answer. Never fails: a body that is not JSON (a proxy's HTML page, garbage,
/// nothing) is classified by its status, with the start of the body quoted.
pub fn classify_failure(head: &ResponseHead, body: &[u8], provider: &Provider) -> LlmFailure {
    let text = String::from_utf8_lossy(body);
    let status = head.status;
    let parsed = serde_json::from_str::<Value>(text.trim()).ok();
    let info = parsed
        .as_ref()
        .map(ErrorInfo::from_body)
        .filter(ErrorInfo::says_anything);

    // The headers' retry-after, else the wait Google's `RetryInfo` detail states: a header speaks
    // for the route the host calls, a gateway's included (Google's own front ends send none).
    let retry_after = retry_after_ms(head).or_else(|| info.as_ref().and_then(|i| i.retry_delay_ms));
    let retry_after =
        retry_after.map(|ms| meaning::retry_after_in_its_own_unit(ms, &normalize(&text)));
    let (code, message, body_id) = match &info {
        Some(info) => {
            let message = info.describe(
                provider,
                &format!("{} from {}", status_line(status), provider.called),
            );
            let body_id = info.request_id.clone().or_else(|| info.id.clone());
            (info.code(Some(status), retry_after), message, body_id)
        }
        None => {
            let (haystack, message) =
                describe_unstructured(status, &text, parsed.is_some(), provider.called);
            let code = code_for(&[], &haystack, Some(status));
            (
                meaning::spend_window_resetting_soon(
                    meaning::outlasting_rate_limit(code, &haystack, retry_after),
                    Some(status),
                    &haystack,
                    retry_after,
                ),
                message,
                None,
            )
        }
    };
    // A gateway that says in its headers that it blocked the request, and why (Zentinel's AI
    // gateway: a bare "Forbidden" under a 403, with `x-ai-gateway-blocked-reason:
    // prompt-injection`): its guard refused it, unless the reason's words name another meaning.
    let (code, message) = match gateway_block_reason(head) {
        Some(reason) => {
            let words = reason.replace(['-', '_'], " ");
            let code = if words_name_a_meaning(&words) {
                code_for(&[], &normalize(&words), None)
            } else if names_a_guard(&words) {
                codes::CONTENT_FILTER
            } else {
                code
            };
            (
                code,
                format!("{message} (the gateway blocked the request: {reason})"),
            )
        }
        None => (code, message),
    };
    LlmFailure {
        request_id: header_request_id(head, provider)
            .or(body_id)
            .or_else(|| request_id_in_text(&message)),
        message,
        code,
        status: Some(status),
        provider_retry_after_ms: retry_after,
    }
}

/// Classify an error carried inside a 2xx stream or body: `value` is the JSON that holds it (a chat
/// chunk `{"error": {...}}`, a Responses `response` with its `error`, a flat error object). The status
/// is the one the error itself carries, if any; the request id comes from the body, else the 200's
/// `x-request-id` (the id support needs), else the message. A 200's `retry-after` is not read: it does
/// not describe this error; a `RetryInfo` inside the error does.
pub fn classify_in_band(value: &Value, head: &ResponseHead, provider: &Provider) -> LlmFailure {
    let info = ErrorInfo::from_body(value);
    let status = info.status;
    let message = info.describe(
        provider,
        &format!("{} reported an error in the stream", provider.called),
    );
    LlmFailure {
        request_id: info
            .request_id
            .clone()
            .or_else(|| header_request_id(head, provider))
            .or_else(|| request_id_in_text(&message)),
        code: info.code(status, info.retry_delay_ms),
        message,
        status,
        provider_retry_after_ms: info.retry_delay_ms,
    }
}

/// The request id from the first of the provider's request-id headers that has one.
pub fn header_request_id(head: &ResponseHead, provider: &Provider) -> Option<String> {
    provider
        .request_id_headers
        .iter()
        .filter_map(|name| head.header(name))
        .map(str::trim)
        .find(|v| !v.is_empty())
        .map(str::to_string)
}

/// What an error body says, whatever envelope the server uses.
#[derive(Debug, Default)]
struct ErrorInfo {
    message: Option<String>,
    /// Lower-cased machine labels: `type`, string `code`, string `status`, `error_type`.
    labels: Vec<String>,
    /// A status the error carries itself (`code: 429` on OpenRouter, `code: 400` on vLLM).
    status: Option<u16>,
    /// More provider wording to search, such as OpenRouter's upstream `metadata.raw`.
    extra: String,
    request_id: Option<String>,
    /// A body `id`: only used for HTTP error bodies, since in a stream it is the completion's id.
    id: Option<String>,
    /// Google's `RetryInfo.retryDelay` ("26s", "20.04466179s"), in milliseconds.
    retry_delay_ms: Option<u64>,
}

impl ErrorInfo {
    fn from_body(body: &Value) -> ErrorInfo {
        let mut info = ErrorInfo::default();
        match body {
            // Gemini's OpenAI layer has been seen answering `[{"error": {...}}]`.
            Value::Array(items) => {
                return items.first().map(ErrorInfo::from_body).unwrap_or_default();
            }
            Value::String(s) => info.message = non_empty(s).map(|m| clip(&m, MESSAGE_CHARS)),
            Value::Object(o) => {
                info.request_id = o.get("request_id").and_then(string_of);
                info.id = o.get("id").and_then(string_of);
                match o.get("error") {
                    Some(Value::Object(e)) => {
                        info.read_fields(e);
                        if info.request_id.is_none() {
                            info.request_id = e.get("request_id").and_then(string_of);
                        }
                    }
                    // Ollama and TGI: `{"error": "text", "error_type": "..."}`.
                    Some(Value::String(s)) => {
                        info.message = non_empty(s).map(|m| clip(&m, MESSAGE_CHARS));
                        info.read_labels(o);
                        // AgentGPT: `{"error": "OpenAIError", "detail": "Authentication error:
                        // ..."}`, BLOOM's inference server: `{"error": "Exception", "message":
                        // "max supported input length = 2048 for now"}`: the error names a class,
                        // the detail or message beside it says what happened.
                        // (A `message` only beside a class name: beside words of their own,
                        // "Too Many Requests", "Queue timeout", the error says what it means.)
                        // Nor does a code that only names whose error it is (tei-reranker-proxy:
                        // `{"error": "tei_error", "message": "Failed to connect to TEI service:
                        // ..."}`), unlike one that names a meaning (`service_unavailable`). A
                        // code's own words are read as words (Edgen's `{"error":
                        // "no_such_model"}`: "no such model").
                        let one_word = !s.trim().contains(char::is_whitespace);
                        let lower = s.trim().to_ascii_lowercase();
                        // So does HTTP's reason phrase (NestJS: `{"statusCode": 400, "message":
                        // "Text is too long, max length is 1000", "error": "Bad Request"}`): it
                        // restates a status, the message says what happened.
                        let class_name = (one_word
                            && (lower.ends_with("error") || lower.ends_with("exception")))
                            || names_a_reason_phrase(&lower);
                        if let Some(words) = crate::text::words_of_a_code(s) {
                            info.extra.push(' ');
                            info.extra.push_str(&words);
                        }
                        // A code (`{"error": "unauthorized", "message": "Insufficient credits"}`,
                        // Rebuff's): its message says the rest, which may outrank the code.
                        // (NestJS-style `messages`, a list: Twenty's `{"statusCode": 503, "error":
                        // "Error", "messages": ["No AI models are available. ..."]}`.)
                        let beside: &[&str] = if class_name || one_word {
                            &["detail", "message", "messages"]
                        } else {
                            &["detail"]
                        };
                        for key in beside {
                            if let Some(said) = o.get(*key).and_then(words_of)
                                && said.trim() != s.trim()
                            {
                                info.extra.push(' ');
                                info.extra.push_str(&clip(&said, MESSAGE_CHARS));
                            }
                        }
                    }
                    // vLLM's `{"object": "error", "message": ...}`, FastAPI's `{"detail": ...}`.
                    _ => info.read_fields(o),
                }
                // Qdrant's `{"status": {"error": "Service internal error: ..."}}`: the error's words
                // one level down, under `status`.
                if info.message.is_none()
                    && let Some(said) = o
                        .get("status")
                        .and_then(|s| s.get("error"))
                        .and_then(Value::as_str)
                {
                    info.message = non_empty(said).map(|m| clip(&m, MESSAGE_CHARS));
                }
                // A gateway's refusal in the shape of a completion, sent with an error status
                // (APISIX's moderation plugins: `choices[0].message.content` is the reason).
                if info.message.is_none()
                    && let Some(reason) = body
                        .pointer("/choices/0/message/content")
                        .and_then(Value::as_str)
                {
                    info.message = non_empty(reason).map(|m| clip(&m, MESSAGE_CHARS));
                }
                // Another envelope (Cloudflare's `{"errors": [{"code", "message"}]}`, a `header`
                // or `base_resp` beside the data): the first object inside that has a message is
                // the error.
                if info.message.is_none()
                    && let Some(inner) = nested_error_object(body, 0)
                {
                    let (request_id, id) = (info.request_id.take(), info.id.take());
                    info.read_fields(inner);
                    info.request_id =
                        request_id.or_else(|| inner.get("request_id").and_then(string_of));
                    info.id = id;
                }
            }
            _ => {}
        }
        info.read_wrapped();
        info
    }

    /// A relay that wraps the upstream's error body in its own message, as text ("Error from
    /// provider(429): {\"error\": {\"code\": 429, \"message\": ..., \"status\":
    /// \"RESOURCE_EXHAUSTED\"}}"): the upstream's labels are read as this error's, since they say
    /// what the upstream meant. Its message is already in this one's words. Each level reads a
    /// shorter text, so the unwrapping ends.
    /// (The words beside a class or a code, in `extra`, are its message too: "TEI service error
    /// 429 Too Many Requests: {\"error\": \"Model is overloaded\", ...}" beside `tei_error`.)
    fn read_wrapped(&mut self) {
        let mut labels = Vec::new();
        for text in [self.message.as_deref(), Some(self.extra.as_str())] {
            let Some(at) = text.and_then(|t| t.find('{').map(|at| &t[at..])) else {
                continue;
            };
            if let Some(Ok(inner)) = serde_json::Deserializer::from_str(at)
                .into_iter::<Value>()
                .next()
                && inner.is_object()
            {
                labels.extend(ErrorInfo::from_body(&inner).labels);
            }
        }
        self.labels.extend(labels);
    }

    fn read_fields(&mut self, e: &serde_json::Map<String, Value>) {
        self.message = MESSAGE_KEYS
            .iter()
            .filter_map(|k| field(e, k))
            .find_map(|v| match v {
                Value::Null => None,
                other => words_of(other).or_else(|| Some(other.to_string())),
            })
            .map(|m| clip(&m, MESSAGE_CHARS));
        self.read_labels(e);
        // A title and its details (Typebot's log `{"status": "error", "description": "OpenAI
        // block returned error", "details": "...status code 429..."}`): the details are words of
        // the error too.
        if let Some(details) = e.get("details").and_then(Value::as_str)
            && self.message.as_deref().is_some_and(|m| m != details.trim())
        {
            self.extra.push(' ');
            self.extra.push_str(&clip(details, MESSAGE_CHARS));
        }
        // FastAPI's `{"detail": {"msg": ..., "type": "bad_input"}}`: the object is the error.
        if let Some(detail) = e.get("detail").and_then(Value::as_object)
            && detail.len() < 16
        {
            if let Some(m) = MESSAGE_KEYS
                .iter()
                .find_map(|k| field(detail, k).and_then(Value::as_str))
                .and_then(non_empty)
            {
                self.message = Some(clip(&m, MESSAGE_CHARS));
            }
            self.read_labels(detail);
        }
        // FastAPI's (Pydantic's) validation list, `{"detail": [{"type": "string_too_long", "loc":
        // ["body", "input"], "msg": "String should have at most 2048 characters", "input":
        // "..."}]}`: the first item is the error, named by the field it is about, and never
        // quoting the input it echoes.
        if let Some(first) = e
            .get("detail")
            .and_then(Value::as_array)
            .and_then(|items| items.first())
            .and_then(Value::as_object)
            && let Some(msg) = first.get("msg").and_then(Value::as_str).and_then(non_empty)
        {
            let field = first
                .get("loc")
                .and_then(Value::as_array)
                .map(|loc| {
                    loc.iter()
                        .map(|part| {
                            part.as_str()
                                .map_or_else(|| part.to_string(), str::to_string)
                        })
                        .collect::<Vec<_>>()
                        .join(".")
                })
                .filter(|f| !f.is_empty());
            self.message = Some(clip(
                &field.map_or_else(|| msg.clone(), |f| format!("{f}: {msg}")),
                MESSAGE_CHARS,
            ));
            self.read_labels(first);
        }
        // Not `error_code`: Baidu's numbers (17, 110, 336003) are its own, not HTTP statuses.
        for key in ["code", "status", "status_code"] {
            if let Some(n) = e.get(key).and_then(Value::as_u64)
                && (100..=599).contains(&n)
                && self.status.is_none()
            {
                self.status = Some(n as u16);
            }
        }
        // OpenRouter nests the upstream provider's own error text here.
        if let Some(raw) = e.get("metadata").and_then(|m| m.get("raw")) {
            self.extra = raw.as_str().map_or_else(|| raw.to_string(), str::to_string);
        }
        // A detail in words beside the message (Letta: "Rate limit exceeded on your API key ..." with
        // the upstream's "Insufficient balance or no resource package. Please recharge." as its
        // `detail`): the provider's words too, and often the cause.
        if let Some(detail) = e.get("detail").and_then(Value::as_str)
            && self.message.as_deref() != Some(detail.trim())
        {
            self.extra.push(' ');
            self.extra.push_str(&clip(detail, MESSAGE_CHARS));
        }
        // A message for people beside the one for programs (EPAM AI DIAL: "Hit token rate limit.
        // Minute limit: ..." and "You've exceeded your daily token limit"): both are the provider's
        // words, and the second often says which budget ran out.
        for key in ["display_message", "user_message"] {
            if let Some(text) = e.get(key).and_then(Value::as_str) {
                self.extra.push(' ');
                self.extra.push_str(text);
            }
        }
        // Azure's content filter: `innererror.code: ResponsibleAIPolicyViolation`.
        if let Some(inner) = e.get("innererror").and_then(Value::as_object) {
            self.read_labels(inner);
        }
        // Google's `details` (Gemini's API, also behind its OpenAI layer).
        if let Some(details) = e.get("details").and_then(Value::as_array) {
            for detail in details.iter().filter_map(Value::as_object) {
                self.read_google_detail(detail);
            }
        }
    }

    /// One of Google's error details. Gemini words every exhausted quota alike ("You exceeded your
    /// current quota, please check your plan and billing details"), per minute or per day: only the
    /// quota that was hit says whether waiting helps. Its id or name saying per day, or a limit of
    /// 0 (a model the plan has no quota for), becomes a quota label; per minute or per second, a
    /// rate label. `RetryInfo.retryDelay` is the wait.
    fn read_google_detail(&mut self, detail: &serde_json::Map<String, Value>) {
        let mut quotas: Vec<(Option<&str>, Option<&str>)> = Vec::new();
        // QuotaFailure: `violations[]` with `quotaId` and `quotaValue`.
        for v in detail
            .get("violations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            quotas.push((
                v.get("quotaId").and_then(Value::as_str),
                v.get("quotaValue").and_then(Value::as_str),
            ));
        }
        // ErrorInfo: `metadata.quota_limit` and `metadata.quota_limit_value`.
        if let Some(m) = detail.get("metadata").and_then(Value::as_object) {
            quotas.push((
                m.get("quota_limit").and_then(Value::as_str),
                m.get("quota_limit_value").and_then(Value::as_str),
            ));
        }
        for (id, value) in quotas {
            let id = id.unwrap_or("").to_ascii_lowercase();
            if value.is_some_and(|v| v.trim() == "0") {
                self.labels.push("quota_limit_zero".into());
            } else if id.contains("perday") || id.contains("perweek") || id.contains("permonth") {
                self.labels.push("quota_per_day".into());
            } else if id.contains("perminute") || id.contains("persecond") {
                self.labels.push("quota_per_minute".into());
            }
        }
        if let Some(delay) = detail.get("retryDelay").and_then(Value::as_str) {
            self.retry_delay_ms = google_duration_ms(delay);
        }
    }

    fn read_labels(&mut self, e: &serde_json::Map<String, Value>) {
        for key in [
            "type",
            "code",
            "status",
            "error_type",
            "error_code",
            "errorCode",
            // Apigee: `"detail": {"errorcode": "policies.ratelimit.QuotaViolation"}`.
            "errorcode",
            "reason",
        ] {
            if let Some(label) = e.get(key).and_then(Value::as_str) {
                let label = label.trim().to_ascii_lowercase();
                if !label.is_empty() && label != "error" {
                    self.labels.push(label);
                }
            }
        }
    }

    /// The provider's message (with the error's type, when the provider wants it named); `what`
    /// says where the error came from when the provider gave no message.
    fn describe(&self, provider: &Provider, what: &str) -> String {
        let kind = self.labels.first();
        match (&self.message, kind) {
            (Some(m), Some(k))
                if provider.type_in_message && !m.to_ascii_lowercase().contains(k.as_str()) =>
            {
                format!("{m} ({k})")
            }
            (Some(m), _) => m.clone(),
            (None, _) if self.labels.is_empty() => format!("{what}, without an error message"),
            (None, _) => format!(
                "{what} ({}), without an error message",
                self.labels.join(", ")
            ),
        }
    }

    fn says_anything(&self) -> bool {
        self.message.is_some() || !self.labels.is_empty() || self.status.is_some()
    }

    fn code(&self, status: Option<u16>, retry_after_ms: Option<u64>) -> FailureCode {
        let haystack = normalize(&format!(
            "{} {}",
            self.message.as_deref().unwrap_or(""),
            self.extra
        ));
        let code = meaning::outlasting_rate_limit(
            code_for(&self.labels, &haystack, status),
            &haystack,
            retry_after_ms,
        );
        meaning::spend_window_resetting_soon(code, status, &haystack, retry_after_ms)
    }
}

/// The value under `key`, else under the same key in another letter case: AWS's services write
/// `Message` (SageMaker's `{"OriginalStatusCode", "OriginalMessage", "Message"}`).
fn field<'a>(map: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).or_else(|| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

/// Whether a gateway's reason for blocking names one of its guards ("prompt injection", "pii",
/// "toxicity", "jailbreak", "moderation", ...), rather than a rule of access ("model not
/// allowed", which the status says).
fn names_a_guard(reason: &str) -> bool {
    meaning::words(&reason.to_ascii_lowercase())
        .iter()
        .any(|w| {
            matches!(
                *w,
                "injection"
                    | "pii"
                    | "toxic"
                    | "toxicity"
                    | "jailbreak"
                    | "moderation"
                    | "guardrail"
                    | "guardrails"
                    | "safety"
                    | "unsafe"
                    | "harmful"
                    | "content"
                    | "policy"
                    | "profanity"
                    | "secrets"
                    | "dlp"
            )
        })
}

/// The reason a gateway's headers give for blocking the request: a `...-blocked-reason` header
/// (`x-ai-gateway-blocked-reason: prompt-injection`), clipped.
fn gateway_block_reason(head: &ResponseHead) -> Option<String> {
    head.headers
        .iter()
        .find(|(k, v)| k.to_ascii_lowercase().ends_with("-blocked-reason") && !v.trim().is_empty())
        .map(|(_, v)| clip(v.trim(), 100))
}

/// The keys an error's message goes by, in the order they are preferred.
const MESSAGE_KEYS: &[&str] = &[
    "message",
    "msg",
    "detail",
    "error_description",
    "error_message",
    "error_msg",
    "errorMessage",
    "errmsg",
    "exceptionMsg",
    "status_msg",
    // Bisheng: `{"status_code": 12046, "status_message": "...", "data": {...}}`.
    "status_message",
    // Apigee's (and SOAP's) fault: `{"fault": {"faultstring": ..., "detail": {"errorcode": ...}}}`.
    "faultstring",
    // Vercel's AI SDK UI message stream: `{"type": "error", "errorText": "..."}`.
    "errorText",
    // Refact's `{"status": "error", "human_readable_message": "timeout"}`.
    "human_readable_message",
    // Last: a Python server's traceback, whose final line names the exception and its message.
    "traceback",
    // Kernel Memory's `{"noResult": true, "noResultReason": "Content moderation"}`.
    "noResultReason",
    // midjourney-proxy's `{"code": 23, "description": "队列已满，请稍后尝试"}` and its failed task's
    // `"failReason": "任务超时"`.
    "failReason",
    "fail_reason",
    "description",
    // GeekAI's stream event `{"type": "error", "body": "您的算力不足，请购买算力。"}`.
    "body",
    // Seldon Core's `{"status": {"info": "404 Not Found: ...", "reason":
    // "MICROSERVICE_INTERNAL_ERROR"}}`: before the reason, which is its label there.
    "info",
    // Elasticsearch's and OpenSearch's `{"error": {"root_cause": [...], "type": ..., "reason":
    // "..."}}`: with no message, the reason is the error's words (it is read as a label too).
    "reason",
    // UiPath's guardrails API: `{"result": "ENTITLEMENTS_MISSING", "details": "Guardrail
    // entitlement is missing"}`. Last: Google's `details` is a list beside its message.
    "details",
];

/// Whether an object carries a message under one of [`MESSAGE_KEYS`] (for a decoder deciding
/// whether a 2xx body that says it failed is an error).
pub fn names_a_message(o: &serde_json::Map<String, Value>) -> bool {
    MESSAGE_KEYS.iter().any(|k| field(o, k).is_some())
}

/// The first object below `value` (breadth first, four levels at most) that carries a message
/// under one of [`MESSAGE_KEYS`]: the error, in an envelope this adapter does not know by name.
fn nested_error_object(value: &Value, depth: usize) -> Option<&serde_json::Map<String, Value>> {
    if depth > 4 {
        return None;
    }
    let children: Vec<&Value> = match value {
        Value::Object(o) => o.values().collect(),
        Value::Array(items) => items.iter().collect(),
        _ => return None,
    };
    let has_message = |o: &&serde_json::Map<String, Value>| {
        MESSAGE_KEYS.iter().any(|k| {
            field(o, k)
                .and_then(Value::as_str)
                .is_some_and(|m| !m.trim().is_empty())
        })
    };
    children
        .iter()
        .filter_map(|c| c.as_object())
        .find(has_message)
        .or_else(|| {
            children
                .iter()
                .find_map(|c| nested_error_object(c, depth + 1))
        })
}

/// The message and the searchable text of a body that is not a JSON error (`json`: it is JSON, in
/// an envelope this adapter does not read and with no message inside, such as `{"success": false}`).
fn describe_unstructured(status: u16, text: &str, json: bool, called: &str) -> (String, String) {
    let line = status_line(status);
    if text.trim().is_empty() {
        return (
            String::new(),
            format!("{line} from {called}, with an empty body"),
        );
    }
    if looks_like_html(text) {
        // A proxy's page: its words (scripts, footers) are not the provider's; only the status counts.
        let what = html_title(text).unwrap_or_else(|| excerpt(text, QUOTE_CHARS));
        return (
            String::new(),
            format!("{line} from {called}, with an HTML page: {what}"),
        );
    }
    let quoted = excerpt(text, QUOTE_CHARS);
    // A body of one code word ("QUEUE_IS_FULL", Fooocus-API's 409) is read as its words too.
    let said = match crate::text::words_of_a_code(&quoted) {
        Some(words) => format!("{quoted} {words}"),
        None => quoted.clone(),
    };
    (
        normalize(&said),
        if json {
            format!(
                "{line} from {called}, with a JSON body in no error shape this adapter knows: {quoted}"
            )
        } else {
            format!("{line} from {called}, with a non-JSON body: {quoted}")
        },
    )
}

/// The canonical code from labels, normalized wording and status (see the module comment).
fn code_for(labels: &[String], text: &str, status: Option<u16>) -> FailureCode {
    meaning_for(labels, text, status).unwrap_or_else(|| {
        in_band_fallback(&Said::new(labels, &meaning::without_guesses(text), status))
    })
}

/// The code that labels, words or a status give (see [`code_for`]); `None` in band when nothing
/// does, where [`in_band_fallback`] decides.
fn meaning_for(labels: &[String], text: &str, status: Option<u16>) -> Option<FailureCode> {
    // A proxy that failed because its upstream did says which status the upstream answered
    // ("Stream request failed: 429", "RateLimitError: Response 504: Gateway Timeout", "Genspark
    // Service Unavailable" under a 500 of its own): that status means more than the proxy's.
    match upstream_status_named(text, status) {
        Some((upstream, words)) => code_by_meaning(labels, &words, Some(upstream)),
        None => code_by_meaning(labels, text, status),
    }
}

/// Whether plain words name a failure's meaning by themselves, read as an in-band error's
/// message: a rule of the labels, the wording or a status named in them decides, not the in-band
/// fallback (a server error, or an invalid request by validation words alone).
pub fn words_name_a_meaning(said: &str) -> bool {
    meaning_for(&[], &normalize(said), None).is_some()
}

/// The upstream's status a proxy's message names, and the message without the exception class
/// names that merely restate a status ("RateLimitError:" before "Response 504"). Only under a
/// proxy's own failure statuses (a 5xx, or a 429 that a client library's error class chose), or in
/// band, where there is no status but the one named: a 4xx of the proxy's own is its own judgement. A status is named as a number after a word that
/// introduces one ("failed: 429", "Response 504", "provider(429)", "status code 403"), or, under a
/// 500 or 502, as a reason phrase ("Service Unavailable", "Gateway Timeout").
fn upstream_status_named(text: &str, status: Option<u16>) -> Option<(u16, String)> {
    const LEADS: &[&str] = &[
        "failed",
        "response",
        "status",
        "code",
        "provider",
        "returned",
        "http",
        "upstream",
        "status_code",
        "statuscode",
        // "Error 403: Forbidden"; FastGPT's key "common:code_error.error_message.403".
        "error",
        "error_message",
        "error_code",
        // A Python traceback's last line, "fastapi.exceptions.HTTPException: 400: Model ... not
        // suport" (MemOS's 500): the exception a handler raised, with its status.
        "httpexception",
    ];
    // In band there is no status of the proxy's own: a status named is all there is ("HTTP Error
    // 429" as a stream's last words).
    let outer = match status {
        None => 0,
        Some(s) if s >= 500 || s == 429 => s,
        Some(_) => return None,
    };
    // A fallback that failed after the upstream's answer ("status 429: err fallback request
    // failed"): the status named is the first attempt's, and the last failure is the proxy's own.
    if text.contains("fallback") {
        return None;
    }
    let words = meaning::words(text);
    // A number after a word that introduces one, or opening the message ("401 Invalid model key
    // or Incorrect local model configuration." under Flowise's 500).
    let numbered = (0..words.len()).find_map(|i| {
        let n = words[i]
            .parse::<u16>()
            .ok()
            .filter(|n| (400..600).contains(n))?;
        // ... or followed by its reason phrase ("Error in llm_complete: 404 page not found",
        // Go's answer for a path it does not serve, relayed by Memobase).
        let phrase_follows = words.get(i + 1).is_some_and(|next| {
            matches!(
                (n, *next),
                (400 | 502, "bad")
                    | (401, "unauthorized")
                    | (403, "forbidden")
                    | (404, "not" | "page")
                    | (429, "too")
                    | (500, "internal")
                    | (503, "service")
                    | (504, "gateway")
            )
        });
        (i == 0 || LEADS.contains(&words[i - 1]) || phrase_follows).then_some(n)
    });
    let phrased = || {
        [
            ("service unavailable", 503),
            ("gateway timeout", 504),
            ("gateway time-out", 504),
        ]
        .iter()
        .find(|(phrase, _)| matches!(outer, 500 | 502) && text.contains(phrase))
        .map(|(_, n)| *n)
    };
    let upstream = numbered.or_else(phrased).filter(|n| *n != outer)?;
    // "upstream error 429: <empty>" only carries the status: the upstream's failure is what the
    // status says, not the service failure "upstream error" would be on its own.
    // Nor does the proxy's own "Internal server error." before the upstream's status ("Internal
    // server error. AxiosError: Request failed with status code 403", suno-api's 500).
    // Nor its "Failed to communicate with upstream service" when the upstream answered with a
    // status ("... vendor gemini API error [401]: authentication_error", go-generative-api-router's
    // 502): the call got through, and the status says what came back.
    let text = text
        .replace("upstream error", "upstream")
        .replace("internal server error", "")
        .replace("failed to communicate with", "");
    let words = text
        .split(' ')
        .filter(|w| {
            !(w.len() > 6
                && w.ends_with("error:")
                && w.chars().all(|c| c.is_alphanumeric() || c == ':'))
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some((upstream, words))
}

/// The code for what an error says (its labels, its words) and its status: see [`code_for`],
/// which may put an upstream's status named in the words in place of the proxy's own.
fn code_by_meaning(labels: &[String], text: &str, status: Option<u16>) -> Option<FailureCode> {
    // The causes the words only guess at in Chinese ("可能是内容违规、输入过长……": perhaps a content
    // violation, an input too long, ...) assert no meaning: the rules read the rest.
    let text = &meaning::without_guesses(text);
    let said = Said::new(labels, text, status);
    by_labels(&said)
        .or_else(|| by_wording(&said))
        .or_else(|| by_rpc_status(&said))
        .or_else(|| status.map(by_status))
}

/// What one error says, as the rules read it.
#[derive(Clone, Copy)]
struct Said<'a> {
    /// Lower-cased machine labels (`type`, `code`, `status`, ...).
    labels: &'a [String],
    /// The normalized words: the message and any other wording the provider sent.
    text: &'a str,
    status: Option<u16>,
    /// A 5xx, or in band a label that says the same (Anthropic's `api_error`, "an unexpected
    /// error internal to Anthropic's systems").
    server_status: bool,
}

impl<'a> Said<'a> {
    fn new(labels: &'a [String], text: &'a str, status: Option<u16>) -> Self {
        let server_status = status.is_some_and(|s| s >= 500)
            || (status.is_none() && labels.iter().any(|l| SERVER_LABELS.contains(&l.as_str())));
        Said {
            labels,
            text,
            status,
            server_status,
        }
    }

    fn label(&self, pred: &dyn Fn(&str) -> bool) -> bool {
        self.labels.iter().any(|l| pred(l))
    }

    fn says(&self, patterns: &[&str]) -> bool {
        patterns.iter().any(|p| self.text.contains(p))
    }
}

/// Step 1: labels that name a meaning, read before any words (with the words that outrank a label
/// where a provider is known to put one label on two meanings, and, after the context and quota
/// labels, the server-side words of [`by_server_side_words`]).
fn by_labels(said: &Said) -> Option<FailureCode> {
    let text = said.text;
    let label = |pred: &dyn Fn(&str) -> bool| said.label(pred);
    let says = |patterns: &[&str]| said.says(patterns);
    // A context label, or one that names the input's limit (DuckDuckGo's `ERR_INPUT_LIMIT`, wrapped
    // by gpt4free).
    // (KoboldAI's `token_overflow`: "Your Max Tokens setting is too low for your current soft
    // prompt and tokenizer to handle".)
    if label(&|l| {
        CONTEXT_LABELS.contains(&l) || l.contains("input_limit") || l.contains("token_overflow")
    }) {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    // A label that says a capacity was exceeded (LangBot's `task_capacity_exceeded`, under a
    // 429): the servers' when the words name no scope of the caller's ("The instance has too
    // many active user operations"), overload; the caller's own ("The Workspace has too many
    // ...") is a rate, read below. A capacity of tokens or a context is a length (read above).
    if label(&|l| l.contains("capacity_exceeded") && !l.contains("token") && !l.contains("context"))
        && !meaning::words(text).iter().any(|w| {
            matches!(
                *w,
                "workspace"
                    | "your"
                    | "you"
                    | "account"
                    | "key"
                    | "project"
                    | "organization"
                    | "org"
                    | "team"
                    | "tenant"
            )
        })
    {
        return Some(codes::OVERLOADED);
    }
    // A validator's string too long in the request's input (Pydantic's `string_too_long` on
    // `body.input`, "String should have at most 2048 characters"): the input over its length, an
    // overflow. The same on a name or an id is the request's own (read as invalid).
    if label(&|l| l == "string_too_long")
        && meaning::words(text).iter().any(|w| {
            matches!(
                *w,
                "input"
                    | "prompt"
                    | "messages"
                    | "message"
                    | "content"
                    | "query"
                    | "text"
                    | "question"
            )
        })
    {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    // A quota label: a known one, or one that says a quota is insufficient ("insufficient_user_quota").
    // A quota merely "exceeded" can be per minute (Cerebras' `request_quota_exceeded`): the words decide.
    if label(&|l| {
        QUOTA_LABELS.contains(&l)
            // Money or a quota said to be short: "insufficient_user_quota", "group_balance_not_enough".
            // ... or spent: "quota_exhausted", "credits_depleted".
            || (["quota", "balance", "credit"].iter().any(|m| l.contains(m))
                && ["insufficient", "not_enough", "exhausted", "depleted", "used_up"]
                    .iter()
                    .any(|w| l.contains(w)))
    }) {
        // ... unless the words name the budget that was hit, and it is per minute or per second
        // ("inference exceeds tpm/rpm limit" under `insufficient_quota`): a vendor putting one
        // label on both, the words say which. Google's quota labels (`quota_limit_zero`,
        // `quota_per_day`) were read from the quota that was hit and already weighed it.
        if meaning::says_only_a_per_minute_budget(text) && !label(&|l| l.starts_with("quota_")) {
            return Some(codes::RATE_LIMITED);
        }
        return Some(codes::QUOTA_EXCEEDED);
    }
    // Words that say the server's side (or one run's cap) whatever label came with them.
    if let Some(code) = by_server_side_words(said) {
        return Some(code);
    }
    // Gemini's finish reasons as an error's code, with no words (Google ADK's event `{"errorCode":
    // "SAFETY", ...}`): a refusal, or the output's budget spent before anything came.
    if label(&|l| {
        matches!(
            l,
            "safety" | "prohibited_content" | "blocklist" | "spii" | "recitation" | "image_safety"
        )
    }) && said.text.trim().is_empty()
    {
        return Some(codes::CONTENT_FILTER);
    }
    if label(&|l| l == "max_tokens") && said.text.trim().is_empty() {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    if label(&|l| {
        l.contains("content_filter")
            || l.contains("content_policy")
            || l == "responsibleaipolicyviolation"
            // A vendor's code for what it judged unsafe ("system_unsafe": the system prompt).
            || l.contains("unsafe")
            || l.contains("moderation")
    }) {
        return Some(codes::CONTENT_FILTER);
    }
    if label(&|l| {
        l.contains("api_key")
            || l.contains("authentication")
            // mem0's `provider_auth_failed`: the provider refused the key it was given.
            || l.contains("auth_failed")
            || l.contains("permission")
            || l == "unauthenticated"
            || l == "unauthorized"
    }) {
        // Refused because money or a quota ran out ("Access forbidden: api key quota exceeded,
        // daily_limit_amount=100", type `permission_error`): waiting will not help, paying will.
        if meaning::says_quota_exhausted(text) {
            return Some(codes::QUOTA_EXCEEDED);
        }
        return Some(codes::AUTH);
    }
    if label(&|l| l.contains("overloaded")) {
        return Some(codes::OVERLOADED);
    }
    // (Dotted names count too: Apigee's `policies.ratelimit.QuotaViolation`.)
    if label(&|l| l.contains("rate_limit") || l.contains(".ratelimit.") || RATE_LABELS.contains(&l))
    {
        // A rate label is often a relay's or a compatible route's catch-all for its 429s (Z.ai's
        // Anthropic route, Kimi for Coding): words that name another meaning outrank it.
        if !label(&|l| l == "quota_per_minute") {
            // A plan's usage cap (MiniMax's `rate_limit_error`: "5-hour usage limit reached ...
            // resets at ..."), money run out ("Insufficient balance ... Please recharge."), a plan
            // without the model, a daily limit used up: waiting a retry's worth will not cure it. A stated wait under an
            // hour keeps it a rate.
            if meaning::says_usage_cap(text) || meaning::says_allowance_spent(text) {
                return Some(codes::QUOTA_EXCEEDED);
            }
            // The servers full, not the account over its rate ("The engine is currently
            // overloaded, please try again later", "Timed out waiting for the inference engine.").
            if (meaning::says_overloaded(text) || says(WAITED_OUT)) && !says(RATE_WORDING) {
                return Some(codes::OVERLOADED);
            }
            // A queue over its limit outranks the rate words beside it ("Too many requests:
            // waiting queue (257) exceeds max-num-seqs (256)." under `rate_limit_exceeded`): the
            // servers' state, stated with its figures.
            if meaning::says_queue_full(text) || meaning::says_threads_taken(text) {
                return Some(codes::OVERLOADED);
            }
        }
        return Some(codes::RATE_LIMITED);
    }
    if label(&|l| l.contains("timeout") || l == "deadline_exceeded") {
        return Some(codes::TIMEOUT);
    }
    None
}

/// Step 1, continued: words that say the failure is on the server's side, or one run's cap, read
/// after the context and quota labels and before every other label, since a relay often puts one
/// generic label on them ("rate_limit_exceeded" on Envoy's reset, "invalid_request_error" on a
/// session it could not open).
fn by_server_side_words(said: &Said) -> Option<FailureCode> {
    let text = said.text;
    let says = |patterns: &[&str]| said.says(patterns);
    // A model the caller must load first ("Model not loaded: Model '...' must be loaded before
    // inference", Foundry Local's 400): the request came before its step, not a server without a
    // model, which "no model loaded" alone says (below).
    if says(&["must be loaded before", "must be loaded first"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // An agent's run at its cap of loops, iterations or steps ("Max loops of 25 exceeded, shutting
    // down."): the run ends there whatever is retried, the allowance of one run; "shutting down"
    // is the run's, not the server's.
    if says_run_cap_reached(text) {
        return Some(codes::QUOTA_EXCEEDED);
    }
    // A guard's inspection that failed, under a 5xx and with no verdict ("Guardrails content
    // inspection failed." under a 502): the check did not run, the server's failure. Under a 4xx, or
    // with a verdict ("request failed content safety check: breached category [hate]"), the
    // content failed it (below).
    if said.server_status && says_guard_check_broke(text) {
        return Some(codes::SERVER_ERROR);
    }
    // Envoy's answer when it got no response from the upstream ("upstream connect error or
    // disconnect/reset before headers. reset reason: connection termination"), under the 5xx it
    // puts on it: the connection to the backend failed, not the servers too busy that a bare 503
    // would say, unless the reason is its circuit breaker's `overflow` (too many requests
    // pending), which is capacity. A gateway's time-out (504) keeps its meaning, and under a 4xx
    // the status decides.
    if said.server_status
        && !matches!(said.status, Some(504 | 524))
        && says(&["upstream connect error", "reset before headers"])
    {
        return Some(if says(&["reset reason: overflow"]) {
            codes::OVERLOADED
        } else {
            codes::SERVER_ERROR
        });
    }
    // "Provider's service is unavailable" under a 400: the server's side, not the request's. Under
    // a 429 the same words say the server has no room, not that the caller went too fast ("Chat
    // completions service is unavailable" from Atoma's node). (Under a 503 the words restate the
    // status, which says overload.)
    if said.status.is_some_and(|s| (400..500).contains(&s))
        && says(&["service is unavailable", "service unavailable"])
    {
        return Some(if said.status == Some(429) {
            codes::OVERLOADED
        } else {
            codes::SERVER_ERROR
        });
    }
    // A proxy's failure to talk to the model API, under the 429 the API answered it with
    // ("Failed to communicate with the language model API." under a 429): the upstream's rate,
    // which the proxy passed on; the words say only that the call did not succeed.
    if said.status == Some(429) && says(&["failed to communicate"]) {
        return Some(codes::RATE_LIMITED);
    }
    // A remedy of fewer parallel requests ("failed to prefill, try again, increasing context size
    // or reducing requests": llama-box's KV cache, shared by the requests in flight, full): the
    // load is the cause, whatever the status and the larger context offered beside it.
    // (Beside a count over the context, "prefill 744 tokens exceed n_ctx_per_seq, try increasing
    // total context size, ... reducing parallel", the remedy is one of many for an overflow: only a
    // failure to be tried again says the load.)
    if says(&[
        "reducing parallel",
        "reduce parallel",
        "reducing requests",
        "reduce requests",
        "fewer parallel",
        "fewer concurrent",
    ]) && says(&["try again"])
        && !says(&["exceed"])
    {
        return Some(codes::OVERLOADED);
    }
    // A model the server failed to load ("Failed to load model 'qwen2.5-7b': Unexpected Error
    // loading the model into memory. Check ... (like Context Length allowed by the model) and
    // resources available"): the server's failure, whatever causes its words guess at. A model
    // the server does not have or cannot serve ("Failed to load model: Model type bert not
    // supported.") is the request's (read later).
    if says(&[
        "failed to load model",
        "error loading the model",
        "error loading model",
    ]) && !says_model_not_offered(text)
        && !says(&[
            "not supported",
            "unsupported",
            "not found",
            "does not exist",
        ])
    {
        return Some(codes::SERVER_ERROR);
    }
    // A service behind the request failed ("Sensitive check error", "Web search error"), whatever the
    // status: before the content and wording rules, which would read its subject.
    // "Server error" (SageMaker's "Received server error (0) from model ..." under a 424) and HTTP
    // 500's reason phrase count only under another status: under a 5xx they say no more than the
    // status, and the words after them may name the request's fault ("500 Internal Server Error:
    // ... Reason: The messages in the chat request are empty.").
    // An upstream too slow or out of reach, said at once ("The API took too long to process your
    // request or could not be reached in a reasonable time", a cURL time-out): the time-out.
    if meaning::says_too_slow(text) && says(&["could not be reached", "cannot be reached"]) {
        return Some(codes::TIMEOUT);
    }
    // A connection to the backend that timed out ("Failed to connect to TEI service: error sending
    // request for url (...): operation timed out"): the upstream did not answer in time, which the
    // connection words below would call a failure.
    if says(&[
        "failed to connect",
        "error sending request",
        "could not connect",
    ]) && says(&["timed out", "connect timeout", "connection timeout"])
    {
        return Some(codes::TIMEOUT);
    }
    // A deadline that passed, under a 5xx, whatever internal error wraps it ("Service internal
    // error: 2 of 2 read operations failed: Timeout error: Deadline Exceeded ... timed out after
    // 60 seconds", Qdrant): the operation got no answer in time.
    if said.server_status
        && !matches!(said.status, Some(503 | 529))
        && says(&["deadline exceeded", "timed out after"])
    {
        return Some(codes::TIMEOUT);
    }
    // An upstream's answer said to be empty, however the proxy words its failure ("provider
    // request failed: invalid response: empty result and no error", Morpheus's 500): the empty
    // answer is the cause named.
    if says_upstream_answer_broken(text) && says_answer_empty(text) {
        return Some(codes::EMPTY_RESPONSE);
    }
    if says(SERVICE_FAILURE_WORDING)
        || says_status_internal(text)
        || says_no_backends_found(text)
        || says_upstream_answer_broken(text)
        || (!said.server_status
            && says(&["server error", "server generate error"])
            // A relay's "Server error:" before the upstream's own words of an overflow ("Server
            // error: Failed to call Bedrock: ValidationException: ... prompt is too long: 227255
            // tokens > 200000 maximum", goose): the overflow is what happened.
            && !meaning::says_context_overflow(text))
    {
        return Some(codes::SERVER_ERROR);
    }
    None
}

/// Step 2: wording, in order of precedence: what the account, the content and the credential are said
/// to be, then the request, then the servers; the order is the rules' judgement where two
/// meanings are named at once.
fn by_wording(said: &Said) -> Option<FailureCode> {
    let Said {
        text,
        status,
        server_status,
        ..
    } = *said;
    let label = |pred: &dyn Fn(&str) -> bool| said.label(pred);
    let says = |patterns: &[&str]| said.says(patterns);
    // HTTP 429's reason phrase and nothing else, under a 503 or 529 ("Too Many Requests" from
    // Modular's MAX when its request queue is full): the words restate a status, and the server's
    // own status says whose limit it is, its own.
    if matches!(status, Some(503 | 529))
        && text.trim().trim_end_matches(['.', '!']) == "too many requests"
    {
        return Some(codes::OVERLOADED);
    }
    // Per-minute budgets are rate limits even when they mention tokens ("Request too large for
    // gpt-4o ... on tokens per min"): waiting helps, compaction is not needed.
    let rate_wording = says(RATE_WORDING);
    // An account shut off ("This billing account is suspended"): someone must restore it, whatever
    // its bill says; only a balance named as run out makes it the money's (below).
    if says_account_shut_off(text)
        && !says(&[
            "insufficient",
            "recharge",
            "balance",
            "top up",
            "arrear",
            "spending limit",
            "spend limit",
            "invoice",
            "credit",
            "余额",
            "欠费",
        ])
    {
        return Some(codes::AUTH);
    }
    // A key's (or an account's) own limit spent, refused with a 401, 402 or 403 rather than a 429
    // ("Unauthorized - Key limit-exceeded"): a spending or usage allowance, not the credential;
    // a rate would come as a 429.
    if matches!(status, Some(401..=403)) && says_key_limit_exceeded(text) {
        return Some(codes::QUOTA_EXCEEDED);
    }
    // No credential set at all ("No API key set for provider: openai. Please add a provider key
    // in your settings or add credits ..."): nothing was billed or refused for money, whatever
    // other remedy the message offers.
    if says_no_credential(text) {
        return Some(codes::AUTH);
    }
    // Money words that only condition a per-minute limit ("You have not yet added your payment
    // method in the billing page and will have reduced rate limits of 3 RPM and 10K TPM"): the
    // limit that was hit is the rate; no money is said to have run out.
    // A quota named only as one of two limits, beside a rate ("API quota or rate limit exceeded.
    // Please try again later.", go-generative-api-router's 429): the proxy does not know which;
    // the one a retry can cure is the rate, and the words ask for a retry.
    if says(&["quota or rate limit", "rate limit or quota"]) {
        return Some(codes::RATE_LIMITED);
    }
    if meaning::says_quota_exhausted(text) && !meaning::says_only_a_per_minute_budget(text) {
        return Some(codes::QUOTA_EXCEEDED);
    }
    // A feature the caller's account is not entitled to ("Guardrail entitlement is missing",
    // UiPath's 403): the account's rights, whatever the feature is, even a guardrail.
    if says(&[
        "entitlement is missing",
        "entitlements are missing",
        "entitlements missing",
        "entitlements_missing",
        "missing entitlement",
        "not entitled to",
    ]) {
        return Some(codes::AUTH);
    }
    // A guardrail (Portkey's, Bedrock's, NeMo's) is a policy check on what goes in or comes out;
    // so is a prompt guard that words its refusal by what it judged (`meaning::says_policy_refusal`).
    if says(CONTENT_WORDING)
        || says_sensitive(text)
        || meaning::words(text)
            .iter()
            .any(|w| *w == "guardrail" || *w == "guardrails")
        || meaning::says_policy_refusal(text)
    {
        return Some(codes::CONTENT_FILTER);
    }
    // An operation the model cannot do, refused as "not allowed" ("You are not allowed to do chat
    // operation from this model": llama-box serving an embedding model): the model's capability,
    // not the caller's access.
    if says_operation_not_for_model(text) {
        return Some(codes::INVALID_REQUEST);
    }
    if says(AUTH_WORDING)
        || says_not_enabled_for_caller(text)
        || says_credential_invalid(text)
        || says_credential_expired_zh(text)
        || says_credential_kind_refused(text)
        || says_client_refused(text)
        || (says(ACCESS_WORDING) && !says(MODEL_NAMED_WRONG))
        || says_bare_forbidden(text)
    {
        return Some(codes::AUTH);
    }
    // A model not ready yet (loading, scaling), refused with a 4xx ("Model my-model is not ready
    // yet." under a 400): the server's state, not the request's fault. Under a 503 it is capacity.
    if status.is_some_and(|s| (400..500).contains(&s)) && says_model_not_ready(text) {
        return Some(codes::SERVER_ERROR);
    }
    // A model the server does not offer ("Model gpt-4-turbo-preview is not supported"), whatever
    // the status (OpenCode Zen answers it with a 401).
    if says_model_not_offered(text) || says_model_disabled(text) {
        return Some(codes::INVALID_REQUEST);
    }
    // A parameter or feature the models here do not take ("'echo' is not supported by
    // encoder-decoder models" under a 500, "grammar-constrained decoding does not support beam
    // search"): the request asked for it, whatever the status.
    if says(&[
        "is not supported by",
        "are not supported by",
        "is not supported for this model",
        "is not supported with",
        "does not support",
        "do not support",
        // "Chat endpoint not implemented for this model" (a 501 from Hayhooks).
        "not implemented for this model",
        "not implemented for model",
        // "Non-streamed chat completions is not implemented": what the request asked for is not
        // done here. A bare "Not Implemented" restates a 501.
        "is not implemented",
        "are not implemented",
        // "WebSocket endpoint not implemented in basic Flask example" (Vanna's 501).
        "endpoint not implemented",
    ]) {
        return Some(codes::INVALID_REQUEST);
    }
    // A choice the request must make ("user has access to multiple subscriptions, must specify
    // subscription using X-MaaS-Subscription header", under a 403): the request's fault.
    if says(&["must specify", "must be specified"]) && !says_no_credential(text) {
        return Some(codes::INVALID_REQUEST);
    }
    // What the request must carry, missing or empty ("The messages in the chat request are
    // empty.", "Job input must contain one of: ..."): the request's fault, whatever the status.
    if says_request_part_empty(text)
        || meaning::says_output_parameter_over_cap(text)
        || says(&["must contain", "must include one of"])
        // "Last message must be from user" (create-llama's 500): the conversation in the wrong
        // order.
        || says(&["must be from user", "must be from the user"])
        // "Exactly one of image_url or image_base64 must be provided" (under OmniServe's 500).
        || (says(&["must be provided", "must be supplied", "has to be set", "must be set", "has to be provided"])
            && !says(&["api key", "api-key", "api_key", "token", "authorization", "credential"]))
        || says(&["exactly one of"])
        || says_request_parameter_constrained(text)
    {
        return Some(codes::INVALID_REQUEST);
    }
    // A parameter the request lacks ("Missing max tokens for rate limited request", "missing
    // required parameter 'messages'"): the request's fault under any status, whatever the rest
    // of the sentence names (here a rate limit the parameter was needed for).
    if says_parameter_missing(text) {
        return Some(codes::INVALID_REQUEST);
    }
    // A gateway with no route for the model (one-api and new-api: "no available channel for model
    // ... under group default", "无可用渠道"): the model is not offered there, whatever the status.
    if says(&["no available channel", "no channel available", "无可用渠道"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // The same said of a provider for the model named ("No copilot provider available:
    // MiniMax-M2.1", AFFiNE). No provider for a service, with no model named ("No provider found
    // for the requested service." under a 503), is capacity, read with the status.
    if text.contains("provider available")
        && (text.contains("provider available:") || text.contains("for model"))
    {
        return Some(codes::INVALID_REQUEST);
    }
    // Every credential of a proxy's pool out for a while ("All cookies are temporarily
    // unavailable."): the accounts behind it are at their limits, which refill; a rate, whatever
    // the proxy's status.
    if says_credential_pool_spent(text) {
        return Some(codes::RATE_LIMITED);
    }
    // An in-band error that says no more than "Empty message" (NocoBase's stream): the answer
    // that came was empty. Under a status it may be the request's own message, which is read
    // as one.
    if said.status.is_none() && text.trim().trim_end_matches('.') == "empty message" {
        return Some(codes::EMPTY_RESPONSE);
    }
    // The model's answer said to be empty ("The model did not return any message content, function
    // call arguments, or tool call arguments.", "Model stopped with error: No output provided"),
    // whatever the status: an empty response, as the host calls one it sees itself.
    if says_answer_empty(text) {
        return Some(codes::EMPTY_RESPONSE);
    }
    // The model's process died, whatever status the server put on it (LM Studio: 400 "The model
    // has crashed without additional information").
    if says(&["has crashed", "model crashed", "process crashed"]) {
        return Some(codes::SERVER_ERROR);
    }
    // A time-out waiting for the engine, answered with a 4xx ("Timed out waiting for the inference
    // engine." under a 429): the server had no room in time. In band or under a 5xx: TIMEOUT, below.
    if status.is_some_and(|s| (400..500).contains(&s)) && says(WAITED_OUT) {
        return Some(codes::OVERLOADED);
    }
    // A queue full or over its limit is the servers without room, under any status; so are its
    // threads all taken.
    if meaning::says_queue_full(text) || meaning::says_threads_taken(text) {
        return Some(codes::OVERLOADED);
    }
    // Words of overload are overload under a 429, in band, and under a 500 or 502 with no label of
    // the server's own error ("Server is busy, please try again later" under chatgpt-api-server's
    // 500: its pool of accounts has none free). A label that says the server's error keeps the
    // status's meaning: Anthropic's 500 `api_error` "Overloaded" is a server error (the fixture
    // anthropic-500-api-error-overloaded). Other 5xx say more by their status (503, 504).
    let labelled_server_error = label(&|l| {
        SERVER_LABELS.contains(&l) || l.contains("server_error") || l.contains("internal")
    });
    if (!server_status || (matches!(status, Some(500 | 502)) && !labelled_server_error))
        && meaning::says_overloaded(text)
    {
        return Some(codes::OVERLOADED);
    }
    // A limit a load balancer puts on the backends behind it ("Exceeded maximum request limit from
    // ai-load-balancer."): the servers have no room, not the account over its rate.
    if !server_status
        && text.contains("limit")
        && (text.contains("load balancer") || text.contains("load-balancer"))
    {
        return Some(codes::OVERLOADED);
    }
    // A limit on what one message may carry ("I can handle up to 10 images per message", "way too
    // large ... up to 20MB of images per message"), under any status, a 429 too: the request's
    // own, not a rate. Its size over the limit is an overflow, anything else an invalid request.
    // A 413 whose words say the body's size is over a limit ("Invalid request body because the
    // size exceeds the maximum size allowed.", ModelArts): the request too large, as the status
    // says, whatever "invalid" beside it.
    if status == Some(413) && says(&["size", "too large", "exceeds"]) && !rate_wording {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    if says_per_message_limit(text) && !rate_wording {
        return Some(
            if says(&["too large", "too big", "mb ", "mb of", "kb of"])
                || meaning::says_context_overflow(text)
            {
                codes::CONTEXT_WINDOW_EXCEEDED
            } else {
                codes::INVALID_REQUEST
            },
        );
    }
    // Every account of a proxy's pool at its concurrency cap ("上游账号当前均达到并发上限", grok2api's
    // 503): the pool has no room, capacity, as "All available ... accounts have reached their
    // concurrency limit" is. One account's or key's cap is a rate (below).
    if says_pool_at_concurrency_cap(text) {
        return Some(codes::OVERLOADED);
    }
    if rate_wording || says_already_in_progress_zh(text) {
        return Some(codes::RATE_LIMITED);
    }
    // A 429 is about throughput ("Too many tokens, please wait"), never one request's length.
    if status != Some(429)
        && (meaning::says_context_overflow(text) || meaning::says_length_figures_over_max(text))
    {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    // The remedy of a new conversation ("This conversation could not be sent to the model.
    // Please start a new chat."): the conversation as sent is at fault; one too long was read
    // above.
    if says(&["start a new chat", "start a new conversation"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // Under a bare 400 too, when the words say something ran out of time ("OpenAI API hits
    // APITimeoutError: Request timed out." and "Line 0 execution timeout for exceeding 600
    // seconds", PromptFlow's `UserError`s): a server that answers every failure with a 400 says
    // nothing by it. A timeout the request set wrong is a parameter's fault.
    let bare_400_timed_out = status == Some(400)
        && (meaning::says_too_slow(text)
            || says(&[
                "execution timeout",
                "apitimeouterror",
                "timeout for exceeding",
            ]))
        && !says(&[
            "invalid timeout",
            "timeout must",
            "timeout should",
            "timeout parameter",
        ]);
    if (status.is_none() || server_status || bare_400_timed_out)
        && (says(&[
            "timeout",
            // "网关超时 | Gateway Time-out".
            "time-out",
            "deadline exceeded",
            // gRPC's name: "status=StatusCode.DEADLINE_EXCEEDED".
            "deadline_exceeded",
            // JavaScript's fetch giving up on its abort signal, as a proxy's timer sets it
            // ("AbortError: This operation was aborted").
            "aborterror",
            "operation was aborted",
            // Chinese: "timed out" ("文件等待处理超时").
            "超时",
            // A stream with no tokens for too long ("Generation stalled mid-stream (60s between
            // tokens)", LoLLMs), what the host's own watchdog calls a time-out.
            "stalled mid-stream",
            "generation stalled",
            "stream stalled",
        ]) || meaning::says_too_slow(text))
    {
        return Some(codes::TIMEOUT);
    }
    // The request itself could not be read or did not validate, whatever the status (FastChat's
    // 500 "1 validation error for Request", KoboldCpp's 500 "Error parsing input." typed `bad_input`).
    if label(&|l| l == "bad_input" || (l.contains("validation") && !names_a_credential(l)))
        || says(INPUT_REJECTED_WORDING)
        || says_parameter_wrong_zh(text)
    {
        return Some(codes::INVALID_REQUEST);
    }
    // An agent or a model that gave nothing, said so and no more ("[Error: agent failed to
    // respond]", an Obsidian agent's answer): the service behind the request failed. Last: beside
    // words of capacity ("temporarily unavailable. All 10 model(s) failed to respond") those
    // decide.
    if says(&["failed to respond"]) && !meaning::says_overloaded(text) {
        return Some(codes::SERVER_ERROR);
    }
    None
}

/// Step 3: Google's rpc status names (`"status": "UNAVAILABLE"`), which say more than the HTTP status a
/// proxy relaying the error may have put on it (a 500 carrying UNAVAILABLE). Labels that are only
/// a category (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...) were read above or fall to the status.
fn by_rpc_status(said: &Said) -> Option<FailureCode> {
    let label = |pred: &dyn Fn(&str) -> bool| said.label(pred);
    if label(&|l| l == "unavailable") {
        return Some(codes::OVERLOADED);
    }
    // The same categories as a server's own type names, under a status that says only "bad
    // request" (PandaWiki answers every failure with a 400) or in band: "forbidden" (a bot not
    // enabled for the key), "internal_error" (a chat that failed). Words of another meaning were
    // read above; a status of its own (402, 503) says more than a generic type.
    if matches!(said.status, None | Some(400)) {
        if label(&|l| l == "forbidden" || l == "permission_denied") {
            return Some(codes::AUTH);
        }
        if label(&|l| {
            matches!(
                l,
                "internal_error" | "internal_server_error" | "server_error"
            )
        }) {
            return Some(codes::SERVER_ERROR);
        }
    }
    if label(&|l| {
        matches!(
            l,
            "internal" | "data_loss" | "unknown" | "cancelled" | "aborted"
        )
    }) {
        return Some(codes::SERVER_ERROR);
    }
    None
}

/// Step 4: the status, when nothing said more.
fn by_status(status: u16) -> FailureCode {
    match status {
        401 | 403 => codes::AUTH,
        402 => codes::QUOTA_EXCEEDED,
        408 => codes::TIMEOUT,
        // Payload Too Large, with nothing said of a per-minute budget (that is a rate limit,
        // decided above): the request itself is too big, and only a smaller one can succeed.
        413 => codes::CONTEXT_WINDOW_EXCEEDED,
        429 => codes::RATE_LIMITED,
        // Failed Dependency: what the request depended on failed (SageMaker: the model's
        // container behind the endpoint). The provider's side, unless the words said otherwise.
        424 => codes::SERVER_ERROR,
        503 | 529 => codes::OVERLOADED,
        // 504 (and Cloudflare's 524) mean a gateway gave up waiting for the model: the same
        // event as our own watchdog's expiry, so TIMEOUT, not SERVER_ERROR. Both are retryable;
        // TIMEOUT tells the user the request was slow rather than broken.
        504 | 524 => codes::TIMEOUT,
        500..=599 => codes::SERVER_ERROR,
        // 3xx: a redirect the host would not follow means a wrong base URL; retrying won't help.
        300..=499 => codes::INVALID_REQUEST,
        _ => codes::SERVER_ERROR,
    }
}

/// Whether a code is what an in-band error without a meaning falls to (`in_band_fallback`: a
/// server error, or an invalid request by its validation words): plain words that get it said
/// nothing an adapter's "unparseable body" failure would not say better.
pub fn said_nothing_in_band(code: FailureCode) -> bool {
    code == codes::SERVER_ERROR || code == codes::INVALID_REQUEST
}

/// Words that came where an answer or an error envelope was expected (a 2xx body of plain text,
/// the content beside a `finish_reason: "error"`), read as an in-band error's message by the
/// adapter's `classify`: the failure they name, or `None` when they are no plain words (an HTML
/// page, a long text: see [`crate::text::plain_words`]) or name no meaning
/// ([`said_nothing_in_band`]).
pub fn failure_named_by_words(
    said: &str,
    classify: impl Fn(&Value) -> LlmFailure,
) -> Option<LlmFailure> {
    let said = crate::text::plain_words(said)?;
    let failure = classify(&serde_json::json!({ "message": said }));
    (!said_nothing_in_band(failure.code) || words_name_a_meaning(said)).then_some(failure)
}

/// Step 5: in band, without a status: generic labels, a request found wrong by its words (Baidu's
/// 200s: "the length of messages must be an odd number", "function_call's name can't be blank",
/// "Unsupported openapi method"), else a server-side failure.
fn in_band_fallback(said: &Said) -> FailureCode {
    let label = |pred: &dyn Fn(&str) -> bool| said.label(pred);
    let says = |patterns: &[&str]| said.says(patterns);
    if label(&|l| {
        l.starts_with("invalid")
            || l.contains("bad_request")
            || l.contains("badrequest")
            || l.contains("not_found")
    }) || says(VALIDATION_WORDING)
    {
        return codes::INVALID_REQUEST;
    }
    codes::SERVER_ERROR
}

/// The message is HTTP 403's reason phrase and little else ("Forbidden", "Forbidden,Contact:
/// waf@...", "Forbidden: region not supported"), as a firewall or front end writes it under a
/// status of its own (456): access refused. "Forbidden" said of a thing ("forbidden content", a
/// forbidden parameter) is not this; content is read before it.
fn says_bare_forbidden(text: &str) -> bool {
    let text = text.trim_start();
    let text = text.strip_prefix("403 ").unwrap_or(text);
    text.strip_prefix("forbidden").is_some_and(|rest| {
        !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == ' ')
    })
}

/// A key's, an account's or a user's own limit said to be exceeded or reached ("Key
/// limit-exceeded", "user limit reached", "API Key has exceeded the allowed limit"), with no
/// per-minute budget named.
fn says_key_limit_exceeded(text: &str) -> bool {
    let words = meaning::words(text);
    let scope = |w: &str| {
        matches!(
            w,
            "key" | "account" | "user" | "workspace" | "organization" | "org" | "team" | "tenant"
        )
    };
    let named = (1..words.len()).any(|i| {
        words[i] == "limit"
            // ... or a scope's cap on what it stores or spends ("Workspace data limit exceeded",
            // Laminar's 403).
            && (scope(words[i - 1])
                || (i >= 2
                    && scope(words[i - 2])
                    && matches!(words[i - 1], "data" | "storage" | "usage" | "spend" | "credit")))
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .any(|w| matches!(*w, "exceeded" | "reached"))
    });
    // The same said the other way round: "API Key has exceeded the allowed limit for
    // "api_requests" meter" (Zuplo's monetization).
    let has_exceeded = (0..words.len()).any(|i| {
        matches!(words[i], "key" | "account" | "user")
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .position(|w| matches!(*w, "exceeded" | "reached"))
                .is_some_and(|at| {
                    let from = i + 1 + at;
                    // ... or its cost cap ("API key has reached the max cost").
                    words[from..(from + 5).min(words.len())]
                        .iter()
                        .any(|w| matches!(*w, "limit" | "cost" | "budget"))
                })
    });
    (named || has_exceeded) && !meaning::says_per_minute_budget(text)
}

/// A model named as not ready ("Model my-model is not ready yet.", "model not ready").
fn says_model_not_ready(text: &str) -> bool {
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        words[i] == "ready"
            && words[i.saturating_sub(2)..i].contains(&"not")
            && words[i.saturating_sub(6)..i].contains(&"model")
    })
}

/// Every account of a proxy's pool at its concurrency cap: "All available Claude Console accounts
/// have reached their concurrency limit" (claude-relay-service), and in Chinese the accounts (账号,
/// 账户) all (均, 全部) at their concurrency cap (并发上限).
fn says_pool_at_concurrency_cap(text: &str) -> bool {
    let words = meaning::words(text);
    let english = (0..words.len()).any(|i| {
        matches!(words[i], "accounts" | "keys") && words[i.saturating_sub(4)..i].contains(&"all")
    }) && words.windows(2).any(|w| w == ["concurrency", "limit"]);
    let chinese = ["账号", "账户"].iter().any(|w| text.contains(w))
        && ["均", "全部", "所有"].iter().any(|w| text.contains(w))
        && text.contains("并发")
        && text.contains("上限");
    english || chinese
}

/// Every credential of a pool (cookies, keys, accounts, tokens) said to be unavailable for a while:
/// "All cookies are temporarily unavailable.", "all keys are temporarily unavailable". A pool with
/// no account at all, or one unavailable for good, is not this.
fn says_credential_pool_spent(text: &str) -> bool {
    let words = meaning::words(text);
    let pool = (0..words.len()).any(|i| {
        words[i] == "all"
            && words[i + 1..(i + 3).min(words.len())].iter().any(|w| {
                matches!(
                    *w,
                    // "credential" too: "All 3 credential(s) exhausted for gemini".
                    "cookies" | "keys" | "accounts" | "tokens" | "credentials" | "credential"
                )
            })
    });
    pool && (text.contains("temporarily unavailable")
        || meaning::words(text).contains(&"exhausted") && !meaning::says_quota_exhausted(text))
}

/// An agent's run said to be at its cap of loops, iterations or steps ("Max loops of 25 exceeded",
/// "Agent stopped due to max iterations"). A request's own steps parameter said to be invalid is
/// not this.
fn says_run_cap_reached(text: &str) -> bool {
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        matches!(words[i], "loops" | "iterations")
            && words[i.saturating_sub(2)..i]
                .iter()
                .any(|w| matches!(*w, "max" | "maximum"))
            && words
                .iter()
                .any(|w| matches!(*w, "exceeded" | "reached" | "stopped"))
    })
}

/// A label that names a credential ("apikey_validation_failed", "invalid_api_key", "token_expired").
fn names_a_credential(label: &str) -> bool {
    ["apikey", "api_key", "token", "credential", "auth"]
        .iter()
        .any(|c| label.contains(c))
}

/// A credential said in Chinese to have expired or lapsed ("您的refresh_token已过期，请重新登录获取"):
/// Chinese runs the words together, so the word rules do not see the credential. A count of
/// tokens ("token数") is a length, not a credential.
fn says_credential_expired_zh(text: &str) -> bool {
    // No valid token ("智谱清言无有效token": the relay holds none for that model), or one said
    // invalid.
    if [
        "无有效token",
        "无有效的token",
        "token无效",
        "token 无效",
        "无有效令牌",
    ]
    .iter()
    .any(|w| text.contains(w))
    {
        return true;
    }
    [
        "token", "令牌", "密钥", "apikey", "api key", "凭证", "cookie",
    ]
    .iter()
    .any(|c| text.contains(c))
        && ["已过期", "过期", "已失效", "失效"]
            .iter()
            .any(|w| text.contains(w))
        && !text.contains("token数")
}

/// The caller's own stream already running, said in Chinese ("已有对话流正在输出": a conversation
/// is already being streamed): one at a time, a rate of the caller's, as "too many requests in
/// progress" is.
fn says_already_in_progress_zh(text: &str) -> bool {
    text.contains("已有") && text.contains("正在")
}

/// A request's parameter (参数) said in Chinese to be missing, wrong, invalid or out of range
/// ("服务必填参数缺失", "服务请求参数dialog错误", "请求参数范围错误"): the request's fault.
fn says_parameter_wrong_zh(text: &str) -> bool {
    // A part of the request said to be required or empty: "prompt不能为空" (the prompt may not be
    // empty), "消息不能为空".
    if [
        "prompt",
        "消息",
        "内容",
        "输入",
        "问题",
        "messages",
        "提示词",
    ]
    .iter()
    .any(|part| {
        text.contains(&format!("{part}不能为空")) || text.contains(&format!("{part} 不能为空"))
    }) {
        return true;
    }
    text.contains("参数")
        && says_any(
            text,
            &[
                "缺失",
                "缺少",
                "错误",
                "无效",
                "不合法",
                "非法",
                "范围",
                "不能为空",
                "必填",
                "格式",
            ],
        )
}

/// A request parameter named with its constraint ("max_output_tokens must be >= 1",
/// "temperature must be between 0 and 2"): the request's fault under any status, a 500 too.
fn says_request_parameter_constrained(text: &str) -> bool {
    const PARAMETERS: &[&str] = &[
        "max_tokens",
        "max_output_tokens",
        "max_new_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "top_k",
        "presence_penalty",
        "frequency_penalty",
        "repetition_penalty",
        "n",
        "seed",
        "stop",
        "logprobs",
        "top_logprobs",
    ];
    // (A sum of the input and the output over the model's limit, "`inputs` tokens +
    // `max_new_tokens` must be <= 4096", is an overflow, read later.)
    let words = meaning::words(text);
    // A parameter allowed one value only ("only n == 1 is supported", Hailo-Ollama).
    let only_value = (0..words.len().saturating_sub(1)).any(|i| {
        words[i] == "only"
            && PARAMETERS.contains(&words[i + 1])
            && meaning::says_any(text, &["supported", "allowed"])
    });
    ((1..words.len()).any(|i| {
        matches!(words[i], "must" | "should")
            && PARAMETERS.contains(&words[i - 1])
            && words.get(i + 1) == Some(&"be")
    }) || only_value)
        && !meaning::says_context_overflow(text)
}

/// A limit said to be per message or per request, with how much one may carry ("I can handle up
/// to 10 images per message", "at most 5 files per request"): the request's own limit.
fn says_per_message_limit(text: &str) -> bool {
    says_any(
        text,
        &[
            "per message",
            "per request",
            "in a single message",
            "in one message",
        ],
    ) && says_any(
        text,
        &[
            "up to",
            "at most",
            "too many",
            "too large",
            "maximum",
            "max ",
        ],
    )
}

/// A guard's check named as failed with no verdict beside it ("Guardrails content inspection
/// failed."): what [`meaning::says_policy_refusal`] would read as the content failing it, said
/// without anything the content was found to be (flagged, violating, breached, blocked, unsafe).
fn says_guard_check_broke(text: &str) -> bool {
    const VERDICTS: &[&str] = &[
        "flagged",
        "violation",
        "violates",
        "violated",
        "breached",
        "breach",
        "blocked",
        "unsafe",
        "harmful",
        "detected",
        "categories",
        "category",
        "pass",
        "passed",
    ];
    let words = meaning::words(text);
    let check = (1..words.len()).any(|i| {
        matches!(words[i], "check" | "inspection" | "scan" | "screening")
            && words[i.saturating_sub(3)..i].iter().any(|w| {
                matches!(
                    *w,
                    "guard" | "guardrail" | "guardrails" | "content" | "safety" | "moderation"
                )
            })
    });
    check
        && words.iter().any(|w| matches!(*w, "failed" | "error"))
        && !words.iter().any(|w| VERDICTS.contains(w))
}

/// The upstream's answer said to be broken: a response, or its stream or content type, invalid,
/// malformed or unexpected ("Stream response Content-Type invalid: text/html; charset=utf-8",
/// "invalid response from upstream"). The request's `response_format` is one word and not this.
fn says_upstream_answer_broken(text: &str) -> bool {
    const BROKEN: &[&str] = &["invalid", "malformed", "unexpected", "unparseable"];
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        words[i] == "response"
            && (i >= 1 && BROKEN.contains(&words[i - 1])
                || words[i + 1..(i + 4).min(words.len())]
                    .iter()
                    .any(|w| BROKEN.contains(w)))
    })
}

/// A pool of backends found empty by discovery ("PREFILL_SERVICE_UNAVAILABLE: No prefill
/// endpoints discovered"): nothing there to serve, a server-side failure, as "no healthy
/// upstream". One endpoint not found ("No endpoint found for path /v1/foo") is a wrong path.
fn says_no_backends_found(text: &str) -> bool {
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        matches!(words[i], "endpoints" | "backends" | "upstreams")
            && words[i.saturating_sub(3)..i].contains(&"no")
            && words
                .get(i + 1)
                .is_some_and(|w| matches!(*w, "discovered" | "registered" | "alive" | "configured"))
    })
}

/// The model's answer said to be empty: no output, or nothing returned ("did not return any
/// message content", "returned no content", "empty completion", "EMPTY RESPONSE", "No response
/// from model."). A request's part said to be empty is [`says_request_part_empty`]; "no output
/// file" or "no output format" names a setting.
fn says_answer_empty(text: &str) -> bool {
    // ("Re-OCR returned no result", paperless-gpt: the vision model's answer.)
    const ANSWER: &[&str] = &[
        "content",
        "result",
        "output",
        "text",
        "message",
        "tokens",
        "choices",
        "completion",
        "response",
    ];
    // Chinese: the response (or what came back) empty ("上游流式响应为空", grok2api).
    if ["响应为空", "返回为空", "回复为空"]
        .iter()
        .any(|w| text.contains(w))
    {
        return true;
    }
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        let next = words.get(i + 1).copied();
        (words[i] == "output"
            && i >= 1
            && words[i - 1] == "no"
            && !next.is_some_and(|w| {
                matches!(
                    w,
                    "file" | "format" | "schema" | "type" | "parser" | "path" | "directory"
                )
            }))
            || (matches!(words[i], "return" | "generate" | "produce")
                && i >= 2
                && words[i - 2..i] == ["did", "not"]
                && words[i + 1..(i + 4).min(words.len())]
                    .iter()
                    .any(|w| ANSWER.contains(w)))
            // "returned no content", "produced no assistant message" (gptme), "generated no text".
            || (matches!(words[i], "returned" | "produced" | "generated")
                && next == Some("no")
                && words[i + 2..(i + 4).min(words.len())]
                    .iter()
                    .any(|w| ANSWER.contains(w)))
            || (words[i] == "empty"
                && next.is_some_and(|w| {
                    matches!(w, "completion" | "output" | "answer" | "response" | "result")
                }))
            // "Google AI Studio Candidate text empty": the answer's text, not a request's part.
            || (words[i] == "empty"
                && i >= 1
                && matches!(words[i - 1], "text" | "output" | "response" | "completion" | "answer")
                && !words[i.saturating_sub(4)..i].iter().any(|w| {
                    matches!(*w, "messages" | "message" | "prompt" | "input" | "query" | "body")
                }))
            // "The response is empty", "the completion was empty".
            || (words[i] == "empty"
                && i >= 2
                && matches!(words[i - 1], "is" | "was")
                && matches!(words[i - 2], "response" | "completion" | "answer" | "output"))
            // "No data was sent by the server." (big-AGI, of Gemini's empty stream).
            || (words[i] == "data"
                && i >= 1
                && words[i - 1] == "no"
                && words[i + 1..(i + 3).min(words.len())]
                    .iter()
                    .any(|w| matches!(*w, "sent" | "received" | "returned")))
            // "The model completed without producing text or a tool call." (Budibase).
            || (words[i] == "without"
                && next.is_some_and(|w| matches!(w, "producing" | "generating" | "returning"))
                && words[i + 2..(i + 4).min(words.len())]
                    .iter()
                    .any(|w| ANSWER.contains(w)))
            // "Chat complete failed, LLM response is None" (MemOS): a Python None where the
            // answer should be.
            || (words[i] == "none"
                && i >= 2
                && matches!(words[i - 1], "is" | "was")
                && matches!(
                    words[i - 2],
                    "response" | "completion" | "answer" | "output" | "content"
                ))
            // "Notion returned empty content.": what came back had nothing in it.
            || (words[i] == "empty"
                && next == Some("content")
                && i >= 1
                && matches!(words[i - 1], "returned" | "produced" | "generated" | "sent"))
            // "No choices in OpenAI response" (claude-code-proxy, of an upstream's completion
            // without any): the answer had nothing in it.
            || (words[i] == "no" && next == Some("choices"))
            // "No response produced by agent", "No completion returned": nothing came back.
            || (words[i] == "no"
                && words
                    .get(i + 1)
                    .is_some_and(|w| matches!(*w, "response" | "completion" | "output" | "answer"))
                && words
                    .get(i + 2)
                    .is_some_and(|w| matches!(*w, "produced" | "returned" | "generated")))
            // "No images generated", "no content generated": nothing came of the generation.
            || (words[i] == "generated"
                && i >= 2
                && words[i - 2] == "no"
                && matches!(
                    words[i - 1],
                    "images"
                        | "image"
                        | "audio"
                        | "speech"
                        | "content"
                        | "output"
                        | "text"
                        | "tokens"
                        | "response"
                ))
            // "no response" and nothing else (chatnio's 503): the answer that did not come.
            || (words.len() == 2 && words == ["no", "response"])
            // "No response from model.": the model said nothing. No response from an upstream or a
            // server is a connection's failure, not an empty answer.
            || (words[i] == "response"
                && i >= 1
                && words[i - 1] == "no"
                && words.get(i + 1) == Some(&"from")
                && words[i + 2..(i + 4).min(words.len())].contains(&"model"))
    })
}

/// A part of the request (its messages, prompt, input, query or body) said to be empty.
fn says_request_part_empty(text: &str) -> bool {
    // No messages, prompt or input to work on ("No messages to process", gptme; "no prompt
    // provided").
    if let [first, part, then, ..] = meaning::words(text)[..]
        && first == "no"
        && matches!(
            part,
            "messages" | "message" | "prompt" | "prompts" | "input" | "query"
        )
        && matches!(
            then,
            "to" | "provided" | "given" | "supplied" | "found" | "were" | "was"
        )
    {
        return true;
    }
    // A part the request must carry not in it ("No user message found in the request").
    if (text.starts_with("no ") || text.contains(" not found in") || text.contains(": no "))
        && meaning::says_any(text, &["found in the request", "found in request"])
    {
        return true;
    }
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        words[i] == "empty"
            && i >= 1
            && matches!(words[i - 1], "is" | "are" | "be" | "was" | "were")
            && words[i.saturating_sub(7)..i].iter().any(|w| {
                matches!(
                    *w,
                    "messages" | "message" | "prompt" | "input" | "query" | "body"
                )
            })
    })
}

/// "missing" said of a request's parameter: a parameter, field or argument named as such, or
/// required, or a generation setting by its name ("missing max tokens", "missing `model` field").
/// A missing credential is AUTH, decided before this is asked.
fn says_parameter_missing(text: &str) -> bool {
    const PARAMETER: &[&str] = &[
        "parameter",
        "parameters",
        "param",
        "field",
        "fields",
        "argument",
        "arguments",
        "property",
        "required",
        "max",
        "max_tokens",
        "model",
        "messages",
        "prompt",
    ];
    let words = meaning::words(text);
    words.iter().enumerate().any(|(i, w)| {
        *w == "missing"
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .any(|n| PARAMETER.contains(n))
    })
}

/// A status named INTERNAL (gRPC's and absl's name for a server-side failure, as servers built on
/// them report it: "MP status - INTERNAL: CalculatorGraph::Run() failed", "StatusCode.INTERNAL").
fn says_status_internal(text: &str) -> bool {
    let words = meaning::words(text);
    words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "status" | "statuscode" | "status_code")
            && words[i + 1..].iter().take(2).any(|n| *n == "internal")
    })
}

/// "Sensitive" said of the request ("Sensitive chat messages"), not of letter case.
fn says_sensitive(text: &str) -> bool {
    let text = text
        .replace("case sensitive", "")
        .replace("case-sensitive", "");
    meaning::words(&text).contains(&"sensitive")
}

/// A credential named with what is wrong with it ("Access token invalid or no longer valid",
/// "the api key has been revoked"), within two words either way.
const CREDENTIALS: &[&str] = &[
    "token",
    "apikey",
    // "No API keys found" ("api keys" becomes "apikeys").
    "apikeys",
    "api_key",
    // "Missing Authentication header", "invalid authorization".
    "authentication",
    "authorization",
    "accesskey",
    "credential",
    "credentials",
    // A web session's cookies, the credential of proxies over a chat site ("empty cookies").
    "cookie",
    "cookies",
];

/// Credential words as one word each ("api key" → "apikey"), for [`says_credential_invalid`] and
/// [`says_no_credential`].
fn credential_words(text: &str) -> String {
    // "No matching provider key found" (Laminar): a provider's API key.
    text.replace("api key", "apikey")
        .replace("provider key", "apikey")
        .replace("api-key", "apikey")
        .replace("access key", "accesskey")
}

/// No credential there at all: "no" within four words before it, and found, valid, set,
/// configured or provided beside it ("No valid model provider credentials found", "No API key set
/// for provider: openai").
fn says_no_credential(text: &str) -> bool {
    const THERE: &[&str] = &["valid", "found", "set", "configured", "provided"];
    let text = credential_words(text);
    let words = meaning::words(&text);
    // (A key named by its variable counts: "No OPENAI_API_KEY set", Supabase.)
    let credential =
        |w: &str| CREDENTIALS.contains(&w) || w.ends_with("_api_key") || w.ends_with("_api_token");
    // (A bare key too, said to be absent: "No key found for openai", Tiledesk.)
    words.iter().enumerate().any(|(i, w)| {
        (credential(w) || matches!(*w, "key" | "keys"))
            && words[i.saturating_sub(4)..i].contains(&"no")
            && meaning::around(&words, i, 4)
                .iter()
                .any(|n| THERE.contains(n))
    })
    // A key said to be required ("LLM provider API key and model are required", Plane's 400),
    // or asked to be configured ("Please configure at least one AI provider API key", Twenty).
    // (Not a "token": "128000 token capacity required" is a length.)
    || words.iter().enumerate().any(|(i, w)| {
        credential(w)
            && *w != "token"
            && (words[i + 1..(i + 5).min(words.len())].contains(&"required")
                || words[i.saturating_sub(6)..i].contains(&"configure"))
    })
}

fn says_credential_invalid(text: &str) -> bool {
    const WRONG: &[&str] = &[
        "invalid",
        "expired",
        "revoked",
        "incorrect",
        "wrong",
        "missing",
        "disabled",
        "empty",
    ];
    // (No credential at all is `says_no_credential`, asked before this.)
    let text = credential_words(text);
    let words = meaning::words(&text);
    // A bare key counts when nothing says it is a JSON key or a parameter ("The key provided
    // for openai is not valid or undefined", "You have invalid keys in your model
    // configuration": Tiledesk, Dograh).
    let names_a_field = words.iter().any(|w| {
        matches!(
            *w,
            "json"
                | "body"
                | "payload"
                | "object"
                | "field"
                | "fields"
                | "parameter"
                | "property"
                | "argument"
                | "dict"
                | "schema"
        )
    });
    words.iter().enumerate().any(|(i, w)| {
        (CREDENTIALS.contains(w) || (matches!(*w, "key" | "keys") && !names_a_field))
            && (meaning::around(&words, i, 2)
                .iter()
                .any(|n| WRONG.contains(n))
                // "API Key is not valid" (paperless-ai).
                || words[i + 1..(i + 8).min(words.len())]
                    .windows(2)
                    .any(|w| w == ["not", "valid"])
                // A header named for it, missing ("Missing x-pezzo-api-key header"): the name's
                // own words stand between.
                || (words.get(i + 1) == Some(&"header")
                    && words[i.saturating_sub(4)..i].contains(&"missing")))
    })
}

/// An account suspended, deactivated, disabled or banned, named as such within three words, or in
/// Chinese ("账号已被自动封禁 24 小时": the account banned, 账号/账户 with 封禁, 禁用, 冻结 or 停用).
fn says_account_shut_off(text: &str) -> bool {
    // (A login locked too: "登录被锁定，请稍后重试", Yuxi-Know's 423.)
    if ["账号", "账户", "登录"].iter().any(|a| text.contains(a))
        && ["封禁", "禁用", "冻结", "停用", "锁定"]
            .iter()
            .any(|w| text.contains(w))
    {
        return true;
    }
    const SHUT: &[&str] = &[
        "suspended",
        "deactivated",
        "disabled",
        "banned",
        "terminated",
        "blocked",
    ];
    let words = meaning::words(text);
    words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "account" | "organization" | "organisation")
            && meaning::around(&words, i, 3)
                .iter()
                .any(|n| SHUT.contains(n))
    })
}

/// A kind of credential the endpoint does not take ("Personal Access Tokens are not supported for
/// this endpoint", "API keys are not accepted here"): the credential is wrong, not the request.
fn says_credential_kind_refused(text: &str) -> bool {
    const KINDS: &[&str] = &[
        "access token",
        "api key",
        "apikey",
        "user token",
        "oauth token",
        "bearer token",
        "session token",
    ];
    const REFUSED: &[&str] = &[
        "not supported",
        "unsupported",
        "not accepted",
        "not allowed",
        "not valid for",
    ];
    KINDS.iter().any(|kind| {
        text.match_indices(kind).any(|(at, _)| {
            let after: String = text[at + kind.len()..].chars().take(40).collect();
            REFUSED.iter().any(|r| after.contains(r))
        })
    })
}

/// A model the server does not offer: "model" and its name (up to 64 characters: names such as
/// `gpt-4-turbo-preview` are many words) before "is not supported", "not found" or "does not
/// exist", or "unknown model" / "no such model". An access refusal worded beside it ("does not
/// exist or you do not have access to it") is read earlier.
fn says_model_not_offered(text: &str) -> bool {
    if [
        "unknown model",
        "no such model",
        "model not found",
        "model_not_found",
        // "Unsupported model: [gpt-4o], support [ERNIE-4.5-21B-A3B-Paddle] or default".
        "unsupported model",
        "model not supported",
        "model_not_support",
    ]
    .iter()
    .any(|p| text.contains(p))
    {
        return true;
    }
    // A server that says it serves no API for the model ("We do not provide public API for
    // meta-llama/... due to license restrictions").
    if text.contains("do not provide") && (text.contains(" api for") || text.contains("access to"))
    {
        return true;
    }
    // A Python server's model table without the model: a `KeyError` raised on the line that looks
    // it up (`models[model_name]`), as its traceback shows.
    if text.contains("keyerror:") && (text.contains("models[") || text.contains("[model_name]")) {
        return true;
    }
    // In Chinese: the model does not exist ("模型已经不存在啦，请切换模型进行回复": switch models).
    if text.contains("模型") && (text.contains("不存在") || text.contains("请切换模型")) {
        return true;
    }
    const NOT_OFFERED: &[&str] = &[
        "is not supported",
        // "Chatbot not installed or supported" (Willow).
        "not installed",
        // "model 'gpt-4o' is not not yet supported" (sic).
        "not yet supported",
        "not found",
        "does not exist",
    ];
    NOT_OFFERED.iter().any(|phrase| {
        text.match_indices(phrase).any(|(at, _)| {
            let before = &text[..at];
            let from = before.char_indices().rev().nth(63).map_or(0, |(i, _)| i);
            // (A deployment is the model's name where Azure-style servers serve it: "deployment
            // config for gpt-4o not found".)
            // (An agent, an assistant or a bot is the model where agent platforms serve them:
            // LocalAGI's "Agent not found" for the `model` asked.)
            meaning::words(&before[from..]).iter().any(|w| {
                matches!(
                    *w,
                    "model" | "deployment" | "agent" | "assistant" | "bot" | "chatbot" | "workflow"
                )
            })
        })
    })
}

/// HTTP's reason phrase of a status that means nothing by itself, as a string `error` beside the
/// message (NestJS, Express helpers): "Bad Request", "Internal Server Error". A phrase with a
/// meaning of its own ("Too Many Requests", "Unauthorized", "Gateway Timeout") says what the error
/// is, as round 36 judged for words beside a message. `lower` is the error lower-cased.
fn names_a_reason_phrase(lower: &str) -> bool {
    [400, 404, 409, 422, 500, 502]
        .iter()
        .any(|s| crate::text::reason_phrase(*s).eq_ignore_ascii_case(lower.trim()))
}

/// A model, an API or access not enabled for whoever asked ("Copilot model not enabled", Crush
/// relaying GitHub Copilot; "Mirror API is not enabled"; "Cody Gateway access not enabled"): the
/// account's settings or rights, as tuning judges these under a 403. A capability of the server
/// ("Embedding support is not enabled") is the request's: not this.
fn says_not_enabled_for_caller(text: &str) -> bool {
    let words = meaning::words(text);
    (1..words.len()).any(|i| {
        words[i] == "enabled"
            && words[i - 1] == "not"
            && words[i.saturating_sub(4)..i - 1]
                .iter()
                .any(|w| matches!(*w, "model" | "api" | "access" | "service" | "bot"))
            && !words[i.saturating_sub(4)..i].contains(&"support")
    })
}

/// An operation refused for the model, not for the caller: "You are not allowed to do chat
/// operation from this model". Words that name the caller ("your key", "your account") make it an
/// access refusal, read with the credential's words.
fn says_operation_not_for_model(text: &str) -> bool {
    meaning::says_any(text, &["not allowed", "not permitted"])
        && meaning::says_any(
            text,
            &[
                " operation from this model",
                " operation on this model",
                " operation for this model",
                " operations from this model",
                " operations on this model",
                " operations for this model",
            ],
        )
        && !meaning::says_any(
            text,
            &["your key", "your api key", "your account", "this key"],
        )
}

/// A model the server has switched off ("The model gpt-4 is disabled.", xyhelper's
/// `model_disabled`, "模型 gpt-4 已被禁用"): not offered there, so another model must be asked for.
/// The model named as the subject, at most two words before "is disabled" or "has been
/// disabled"; access to a model disabled for a key or an account is not this.
fn says_model_disabled(text: &str) -> bool {
    if text.contains("access") || text.contains("your ") {
        return false;
    }
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        words[i] == "model"
            && words
                .iter()
                .skip(i + 1)
                .take(4)
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| {
                    matches!(*w[0], "is" | "been" | "was")
                        && matches!(*w[1], "disabled" | "invalid")
                })
    }) || (text.contains("模型") && text.contains("已被禁用"))
}

/// The caller refused for who it is, not for what it asked: "this group only allows Claude Code
/// clients", "only available to enterprise accounts". The one allowed is named within three words
/// as a client, user, account, key or app; a value that "only allows" a range is a parameter.
fn says_client_refused(text: &str) -> bool {
    const ONLY: &[&str] = &[
        "only allows",
        "only allowed",
        "only available to",
        "only accessible to",
        "only open to",
    ];
    const WHO: &[&str] = &[
        "client",
        "clients",
        "user",
        "users",
        "account",
        "accounts",
        "key",
        "keys",
        "app",
        "apps",
        "customer",
        "customers",
    ];
    ONLY.iter().any(|only| {
        text.match_indices(only).any(|(at, _)| {
            let after = &text[at + only.len()..];
            meaning::words(after)
                .iter()
                .take(4)
                .any(|w| WHO.contains(w))
        })
    })
}

const CONTEXT_LABELS: &[&str] = &[
    "context_length_exceeded",
    "context_window_exceeded",
    "exceed_context_size_error", // llama.cpp
    "model_context_window_exceeded",
    "request_too_large", // Anthropic: the request over the API's size limit
];
const QUOTA_LABELS: &[&str] = &[
    "insufficient_quota",
    "exceeded_current_quota_error", // Moonshot
    "billing_hard_limit_reached",
    "billing_not_active",
    "budget_exceeded", // LiteLLM proxy: a key's or a team's budget
    "billing_error",   // Anthropic
    "insufficient_balance",
    "insufficient_credits",
    "payment_required",
    "arrearage", // Alibaba DashScope: an unpaid bill
    // Google's quota details (see `read_google_detail`).
    "quota_per_day",
    "quota_limit_zero",
];
/// Labels that name a failure of the provider's own, as a 5xx status does, from a provider with a
/// label of its own for overload: Anthropic's `api_error` beside its `overloaded_error`. Not
/// OpenAI's `server_error`, which is all OpenAI has for "That model is currently overloaded with
/// other requests" in a stream.
const SERVER_LABELS: &[&str] = &["api_error"];
/// OpenAI's 429 `type` is the exhausted budget: `tokens` or `requests`.
const RATE_LABELS: &[&str] = &[
    "tokens",
    "requests",
    "resource_exhausted",
    "too_many_requests",
    "quota_per_minute",
];

/// A wait for the engine (a slot, a worker) that ran out: the server had no room in time.
const WAITED_OUT: &[&str] = &["timed out waiting for", "timeout waiting for"];
/// The request could not be read or did not validate.
const INPUT_REJECTED_WORDING: &[&str] = &[
    "validation error",
    // JSON Schema's bounds on a parameter ("0 is less than the minimum of 1 - 'max_tokens'",
    // api-for-open-llm's 500).
    "is less than the minimum of",
    "is greater than the maximum of",
    // A JSON Schema validator's words for the request's document ("[] is too short - 'messages'",
    // "'model' is a required property", "123 is not of type 'string'").
    "is too short",
    "is a required property",
    // The request's body not read ("request.body is undefined", "invalid OpenAI request body"),
    // and Easegress's "failed to create AI context: ..." (its reading of the client's request).
    "body is undefined",
    "invalid request body",
    "invalid openai request body",
    "unsupported request path",
    "failed to create ai context",
    // Pydantic's "Field required" ("status 500: err model field required").
    "field required",
    // BLOOM's inference server: "max supported batch size = 4 for now".
    "max supported batch size",
    "is not of type",
    "additional properties are not allowed",
    "is not valid under any of the given schemas",
    "parsing input",
    "parse input",
    "parsing the input",
    "parsing request",
    "parsing the request",
    "parse the request",
];
/// A service the provider runs behind the request failed: a server-side failure under any status.
/// A server down for maintenance or without a model loaded is one too.
const SERVICE_FAILURE_WORDING: &[&str] = &[
    "under maintenance",
    "for maintenance",
    // The server's own configuration broken ("Configuration error: tts-1 voice 'alloy' is missing
    // 'model:' setting"): nothing the request did.
    "configuration error",
    // The engine failing mid-generation ("Inference error: Could not decode next token").
    "decode next token",
    // A server not provisioned for the service asked ("service not provisioned" under a 503).
    "not provisioned",
    // A server not set up to serve ("Service is not available" from llama-cpp-python when no model
    // is set up), not one too busy, which says "unavailable" or "overloaded".
    "service is not available",
    // The same said as not ready ("Service Not Ready" under a 503): a service not up yet or not
    // set up, not one with too much to do.
    "service not ready",
    "service is not ready",
    "server not ready",
    "server is not ready",
    "no model loaded",
    "no models are",
    "no model is loaded",
    "model not loaded",
    "model is not loaded",
    "was unloaded",
    "network error",
    "check error",
    "search error",
    "internal error",
    "upstream error",
    "backend error",
    // A server going away ("The inference scheduler is shutting down."): not one too busy.
    "shutting down",
    // "All model workers has been shutdown: llama" (DJL Serving).
    "been shutdown",
    "been shut down",
    // "Engine thread has shut down" (crane): the engine gone, not busy.
    "has shut down",
    // The provider's own connection to its backend failed ("finishConnect(..) failed: Connection
    // refused: 10.137.1.77:80" under a 400): nothing the request did.
    "connection refused",
    "failed to connect",
    // "Error connecting to translation service: ..." (DeepLXToV1API's 400): its upstream out of
    // reach, nothing the request did.
    "error connecting to",
    // "Failed to communicate with upstream: [Errno 8] nodename nor servname provided, or not known".
    "failed to communicate",
    "nodename nor servname",
    "name or service not known",
    "name resolution",
    // HAProxy's 503 page: every backend down (failing its health checks); Envoy's and
    // agentgateway's words for the same.
    "no server is available to handle this request",
    "no healthy upstream",
    // Apache ShenYu: "Can not find healthy upstream url after failover!".
    "find healthy upstream",
    "no healthy backend",
    // "No reachable backends found." (ollama_proxy_server's 503).
    "no reachable backend",
    // A provider's outage or a failure it could not name ("OpenAI is experiencing issues", "There
    // was an unexpected issue getting a response from the AI model").
    "is experiencing issues",
    "experiencing an outage",
    "unexpected issue",
    "getting a response",
    // A proxy's failover that failed too ("status 429: err fallback request failed"): the
    // proxy's own failure, whatever status the first attempt got.
    "fallback request failed",
    "fallback failed",
    // Chinese: every attempt failed, and no fallback model ("当前模型重试3次均失败，且无可用降级模型",
    // ruoyi-ai's retry helper).
    "次均失败",
    "无可用降级",
    // A proxy over a chat site that could not open a session there ("Error getting a new session,
    // please try again later").
    "getting a new session",
    "get a new session",
    "create a new session",
    // The gateway got nothing back from the upstream ("Failed to get response from provider").
    "failed to get response",
    "failed to get a response",
    // The gateway's own rate limiter failed ("rate limit failed"), not the account over its rate.
    "rate limit failed",
    "rate limiter failed",
    "could not connect",
    "couldn't connect",
    // "The endpoint cannot be reached" (Lunar's 503): the upstream unreachable, not busy.
    "cannot be reached",
    "could not be reached",
    "connection reset",
    "no route to host",
    // A balancer whose every upstream failed ("All providers failed" under llm-lb's 503): the
    // backends failed; nothing says they were too busy.
    "all providers failed",
    "all upstreams failed",
    "all backends failed",
];
/// An in-band error that says what is wrong with the request.
const VALIDATION_WORDING: &[&str] = &[
    // What the request named is not there ("Assistant does not exist").
    "does not exist",
    "must be",
    "must not",
    "must start with",
    "should be",
    "should not",
    // QAnything (sic): "fail, top_k should less than or equal to 100".
    "should less than",
    "should greater than",
    // "Flow must have a ChatInput component to be compatible with OpenAI Responses API".
    "must have",
    "can't be blank",
    "cannot be blank",
    "can't be empty",
    "cannot be empty",
    "is required",
    "unsupported",
    "not supported",
    "invalid",
    "malformed",
    // What the request asked for unknown to the server, or its body unreadable ("Request type
    // '...' was not recognized", "Request did not contain properly formatted json!": Mantella).
    "not recognized",
    "not recognised",
    "unrecognized",
    "unrecognised",
    "properly formatted",
];
const CONTENT_WORDING: &[&str] = &[
    // Italian: a question "not relevant or not safe" (Tiledesk's input guard: "Domanda non
    // pertinente o non sicura."), content not allowed or inappropriate.
    "non sicura",
    "non sicuro",
    "contenuto non consentito",
    "contenuto inappropriato",
    // "Message was filtered" (chatgpt-on-wechat): its filter stopped the message.
    "was filtered",
    "been filtered",
    "content management policy",
    "content policy",
    "content_policy",
    "content filter",
    "content_filter",
    // Gateways' prompt guards: "Request was filtered by Lakera Guard", "request failed content
    // safety check", "Content moderation failed in the following categories".
    "was filtered by",
    // WSO2's guardrails: "action": "GUARDRAIL_INTERVENED", "... semantic prompt guard constraints".
    "prompt guard",
    "guardrail_intervened",
    // Guardrails AI's validators refusing the output: "Validation failed for field with errors:
    // must be exactly two words" (a field of the guarded output, not of the request).
    "validation failed for field with errors",
    "content safety",
    "content moderation",
    "moderation failed",
    "moderation violation",
    "failed moderation",
    "safety system",
    "input was flagged",
    "was flagged by",
    // MiniMax: "input new_sensitive (1026)"; Chinese providers: "sensitive content" (敏感).
    "new_sensitive",
    "sensitive content",
    "sensitive words",
    "敏感",
    // Chinese: blocked for compliance ("内容由于合规问题已被阻止生成"), content in violation.
    "合规问题",
    "内容违规",
    // German: "Die Anfrage wurde wegen unangemessener Inhalte automatisch blockiert." (telli).
    "unangemessene",
    // "Detected undesirable content with potential risk: Violence (4)" (Chat Copilot).
    "undesirable content",
    // "不要提问违禁内容" (do not ask about prohibited content: a keyword guard's refusal).
    "违禁内容",
    "违规内容",
    "阻止生成",
];
const AUTH_WORDING: &[&str] = &[
    // "Error authenticating with the LLM provider. Please check your API key" (OpenHands).
    "error authenticating",
    "failed authenticating",
    "error while authenticating",
    "check your api key",
    // A caller's address or identity not on the list ("Container not allowed for address",
    // Ritual's Infernet node).
    "not allowed for address",
    "address not allowed",
    "not whitelisted",
    "not on the allowlist",
    "not in the allowlist",
    // The server's own key for its upstream not set ("OPENAI_API_KEY environment variable not
    // found", Farfalle): no credential to call with.
    "api_key environment variable not found",
    "api_key environment variable is not set",
    "api_key not set",
    "api key not set",
    // "API key not configured for LLM provider 'openai'" (Opik's playground): no key to call with.
    "api key not configured",
    "api key is not configured",
    // "DAILY_API_KEY not configured on server" (Pipecat's runner): a key by its variable.
    "api_key not configured",
    "api_key is not configured",
    // A session cookie to renew ("Failed to get session id, you may need to update the
    // SUNO_COOKIE"): the credential behind a relay.
    "update the cookie",
    "update your cookie",
    "_cookie",
    "failed to get session id",
    // "Bad request: API key is required" (Windmill's AI proxy, under a 400).
    "api key is required",
    "api key required",
    "api_key is required",
    // A credential the server does not hold ("OAuth token is not available": Cherry Studio's
    // Anthropic provider signed out).
    "token is not available",
    "token not available",
    // Access refused where the caller is ("access to Anthropic models is not available in your
    // region (CN)" under Zed's 451).
    "not available in your region",
    "not available in your country",
    "unsupported region",
    "unsupported country",
    "region not supported",
    "country not supported",
    // A relay that could not turn its token into an authorization ("Failed to get authorization
    // from token", copilot-gpt4-service's 500).
    "failed to get authorization",
    "failed to obtain authorization",
    // A relay over a chat site whose session has no login ("Not logged in. Visit /auth to scan QR
    // code." under doubao2api's 503): the credential behind it is missing.
    "not logged in",
    "login required",
    "incorrect api key",
    "invalid api key",
    // "OpenAI API key rejected" (DataLine's error event).
    "api key rejected",
    "key was rejected",
    "invalid_api_key",
    "api key not valid",
    "no api key provided",
    "didn't provide an api key",
    "missing api key",
    "invalid authentication",
    "authentication failed",
    "authentication error",
    // A gateway whose own key the upstream refused ("the gateway could not authenticate with the
    // upstream provider" under a 502): a credential to fix, not a server to retry.
    "could not authenticate",
    "failed to authenticate",
    "unable to authenticate",
    // APIPark: "key not found" (the API key the request carried is not known).
    "key not found",
    // "Ensure a valid API key is being used", "please provide a valid API key".
    "a valid api key",
    "authentication required",
    "unauthorized",
    "unauthenticated",
    "invalid credentials",
    "invalid token",
    "invalid access token",
    "token expired",
    "token has expired",
    "api key is invalid",
    "api key not found",
    "permission denied",
    "access denied",
    "not authorized",
    // iFlytek's error names run together: "AppIdNoAuthError".
    "noauth",
    // Chinese: "authentication failed", "the API key is invalid".
    // An account the provider will not serve ("Account cannot be used, please contact the
    // administrator"), and a session to log in to again ("please re-login").
    "account cannot be used",
    "account can't be used",
    "please re-login",
    "please log in again",
    "please login again",
    "鉴权失败",
    "认证失败",
    "身份验证失败",
    "api key 无效",
    "apikey 无效",
];
/// An account or project without the right to what it asked for: "Project ... is not allowed to
/// use Publisher Model ...", "you do not have access to this model". A parameter that "is not
/// allowed" is an invalid request, so the use or access is named; and "does not exist or you do
/// not have access to it" is a wrong model name first (see `code_for`).
/// The model asked for named as not there or wrong: beside permission words ("The model `x` does
/// not exist or you do not have access to it", "Incorrect model ID ... or you do not have
/// permission to use this model") the request is what to fix, not the key.
const MODEL_NAMED_WRONG: &[&str] = &[
    "not found",
    "does not exist",
    "not exist",
    "incorrect model",
    "invalid model",
    "unknown model",
    // A remedy that names the model ("Your API key does not have access to your current model.
    // Please use a different model."): the request is to change, not the key.
    "use a different model",
    "choose a different model",
];
const ACCESS_WORDING: &[&str] = &[
    "no permission",
    "not allowed to use",
    "not allowed to access",
    "not permitted to use",
    "not permitted to access",
    "do not have access",
    "does not have access",
    "don't have access",
    "doesn't have access",
    "not have permission",
];
const RATE_WORDING: &[&str] = &[
    "rate limit",
    "rate_limit",
    "ratelimit",
    "too many requests",
    "tokens per min",
    "requests per min",
    "per minute",
    // "The request exceeds the maximum tokens per second" (llama-box's cap, under a 410).
    "per second",
    "tokens per sec",
    "requests per sec",
    // ChatGPT's message cap per model ("You have sent too many messages to the model. Please try
    // again later.", `model_cap_exceeded`), which clears within minutes.
    "sent too many messages",
    "throttl",
    "slow down",
    // Queries per second, also inside iFlytek's "AppIdQpsOverFlowError".
    "qps",
    "too many concurrent",
    // "Many concurrent requests, ... Please retry." (Atoma), "maximum concurrent requests".
    "concurrent requests",
    "concurrency limit",
    // Chinese: "requests too frequent", "rate limit", "throttled".
    "请求过于频繁",
    "请求频率",
    "速率限制",
    "限流",
    // The caller's own conversations still running ("There are conversations in progress.
    // Please try again later.", NocoBase): one at a time, a rate of the caller's.
    "conversations in progress",
    "conversation in progress",
    // The caller's own token budget ("You have exceeded your token limit for this model").
    "your token limit",
    // Chinese: asking too fast ("提问太快啦，请休息一下再问我吧", chatgpt-on-wechat).
    "提问太快",
    // Chinese per-minute caps: "已超出类别 C 每分钟上限（10 次/分）".
    "每分钟",
    "次/分",
    // Chinese concurrency limits: "部门同时在线会话数已达上限" (simultaneous sessions at the cap).
    "并发数",
    "并发限制",
    "并发上限",
    "同时在线",
];

/// A protobuf JSON duration, "26s" or "20.04466179s", in milliseconds (rounded).
fn google_duration_ms(text: &str) -> Option<u64> {
    let seconds: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// A message's words: a string, or a list of strings (NestJS's `"message": ["email must be an
/// email", ...]`), joined.
fn words_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => non_empty(s),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
            non_empty(
                &items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        }
        _ => None,
    }
}

fn string_of(v: &Value) -> Option<String> {
    v.as_str().and_then(non_empty)
}

fn non_empty(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.to_string())
}
