//! `classify-failure`: a Gemini error answer (status, headers, body) as one `llm-failure`.
//!
//! Gemini's errors are Google API errors: `{"error": {"code": 429, "message": "...", "status":
//! "RESOURCE_EXHAUSTED", "details": [...]}}` (some front ends wrap it in a one-element array). The
//! code is decided by meaning, strongest evidence first:
//!
//! 1. context overflow wording, whatever the status ("The input token count (1200293) exceeds the
//!    maximum number of tokens allowed (1048576).", Vertex's "input token count is N but model only
//!    supports up to M") → CONTEXT_WINDOW_EXCEEDED;
//! 2. credentials: `ErrorInfo.reason` API_KEY_INVALID & co. (Gemini answers a bad key with 400
//!    INVALID_ARGUMENT), UNAUTHENTICATED, PERMISSION_DENIED, their wording → AUTH;
//! 3. RESOURCE_EXHAUSTED / 429: QUOTA_EXCEEDED when waiting minutes cannot cure it, RATE_LIMITED
//!    otherwise ([`is_lasting_quota`]); billing wording on another status, or 402 → QUOTA_EXCEEDED;
//! 4. the google.rpc status string ([`rpc_code`]);
//! 5. the HTTP status (a proxy's HTML page, an empty body).
//!
//! `provider-retry-after-ms`: RetryInfo.retryDelay, else the retry-after headers.
//! `request-id`: the `x-request-id` (else `request-id`) header.

use serde_json::Value;

use crate::retry_after::retry_after_ms;
use crate::text::{MESSAGE_CHARS, QUOTE_CHARS, clip, excerpt, html_title, looks_like_html, status_line};
use crate::types::{FailureCode, LlmFailure, ResponseHead, codes};

/// What a Google error body says.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ErrorInfo {
    pub message: Option<String>,
    /// The google.rpc status string, upper-case.
    pub status: Option<String>,
    /// The error's own numeric `code`, when it is an HTTP status.
    pub code: Option<u16>,
    /// `ErrorInfo.reason`s, upper-case.
    pub reasons: Vec<String>,
    /// QuotaFailure violations: quota id, metric, subject, description joined.
    pub quotas: Vec<String>,
    /// RetryInfo.retryDelay in milliseconds.
    pub retry_delay_ms: Option<u64>,
    /// Message and localized messages, lower-case: what the patterns are matched on.
    pub wording: String,
}

/// A non-2xx answer. Never fails: a body that is not a Google error is classified by its status.
pub fn classify_failure(head: &ResponseHead, body: &[u8]) -> LlmFailure {
    let status = head.status;
    let text = String::from_utf8_lossy(body);
    let info = serde_json::from_str::<Value>(&text).ok().and_then(|v| error_info(&v));
    let request_id = header_request_id(head);
    match info {
        Some(info) => {
            let message = info.message.clone().unwrap_or_else(|| {
                let rpc = info.status.as_ref().map(|s| format!(" ({s})")).unwrap_or_default();
                format!("{} from Gemini{rpc}, without an error message", status_line(status))
            });
            LlmFailure {
                message,
                code: code_for(&info, Some(status)),
                status: Some(status),
                provider_retry_after_ms: info.retry_delay_ms.or_else(|| retry_after_ms(head)),
                request_id,
            }
        }
        None => LlmFailure {
            message: describe_unstructured(status, &text),
            code: code_for(&ErrorInfo::default(), Some(status)),
            status: Some(status),
            provider_retry_after_ms: retry_after_ms(head),
            request_id,
        },
    }
}

/// An error carried inside a 2xx stream (`data: {"error": {...}}`): classified like a non-2xx body,
/// with the status the error carries itself (`code`), and the request id of the 200's head. The
/// 200's retry-after headers do not describe this error and are not read.
pub fn classify_in_band(value: &Value, head: &ResponseHead) -> LlmFailure {
    let info = error_info(value).unwrap_or_default();
    let message = info.message.clone().unwrap_or_else(|| {
        let rpc = info.status.as_ref().map(|s| format!(" ({s})")).unwrap_or_default();
        format!("Gemini reported an error in the stream{rpc}, without a message")
    });
    LlmFailure {
        message,
        code: code_for(&info, info.code),
        status: info.code,
        provider_retry_after_ms: info.retry_delay_ms,
        request_id: header_request_id(head),
    }
}

pub fn header_request_id(head: &ResponseHead) -> Option<String> {
    ["x-request-id", "request-id"]
        .iter()
        .filter_map(|name| head.header(name))
        .map(str::trim)
        .find(|v| !v.is_empty())
        .map(str::to_string)
}

fn non_blank(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// What a Google error body says, or `None` if it is not such a body.
pub fn error_info(value: &Value) -> Option<ErrorInfo> {
    if let Value::Array(items) = value {
        return items.first().and_then(error_info);
    }
    let e = value.as_object()?.get("error")?;
    if let Some(s) = e.as_str() {
        let s = s.trim();
        return (!s.is_empty()).then(|| ErrorInfo {
            message: Some(clip(s, MESSAGE_CHARS)),
            wording: s.to_lowercase(),
            ..ErrorInfo::default()
        });
    }
    let e = e.as_object()?;
    // A relay that quotes the upstream error as JSON text inside its own message.
    if let Some(m) = e.get("message").and_then(Value::as_str).map(str::trim)
        && m.starts_with('{')
        && let Some(inner) = serde_json::from_str::<Value>(m).ok().and_then(|v| error_info(&v))
    {
        return Some(inner);
    }
    let details: &[Value] = e.get("details").and_then(Value::as_array).map_or(&[], Vec::as_slice);
    let mut info = ErrorInfo {
        message: non_blank(e.get("message")).map(|m| clip(&m, MESSAGE_CHARS)),
        status: non_blank(e.get("status")).map(|s| s.to_uppercase()),
        code: e
            .get("code")
            .and_then(Value::as_u64)
            .filter(|c| (100..=599).contains(c))
            .map(|c| c as u16),
        retry_delay_ms: retry_info_ms(details),
        ..ErrorInfo::default()
    };
    let mut wording = vec![info.message.clone().unwrap_or_default()];
    for d in details.iter().filter_map(Value::as_object) {
        let kind = d.get("@type").and_then(Value::as_str).unwrap_or("");
        if kind.ends_with("google.rpc.ErrorInfo")
            && let Some(reason) = d.get("reason").and_then(Value::as_str)
        {
            info.reasons.push(reason.to_uppercase());
        }
        if kind.ends_with("google.rpc.QuotaFailure")
            && let Some(violations) = d.get("violations").and_then(Value::as_array)
        {
            for v in violations.iter().filter_map(Value::as_object) {
                let parts: Vec<&str> = ["quotaId", "quotaMetric", "subject", "description"]
                    .iter()
                    .filter_map(|k| v.get(*k).and_then(Value::as_str))
                    .collect();
                info.quotas.push(parts.join(" "));
            }
        }
        if kind.ends_with("google.rpc.LocalizedMessage")
            && let Some(m) = d.get("message").and_then(Value::as_str)
        {
            wording.push(m.to_string());
        }
    }
    info.wording = wording.join(" ").to_lowercase();
    if info.message.is_none() && info.status.is_none() && info.code.is_none() && info.reasons.is_empty() {
        return None;
    }
    Some(info)
}

/// A google.protobuf.Duration in its JSON form (`"37s"`, `"1.5s"`, `"20.04466179s"`), or the
/// `{seconds, nanos}` object some clients print, in whole milliseconds.
pub fn parse_duration(value: &Value) -> Option<u64> {
    let ms = match value {
        Value::String(s) => {
            let number = s.trim().strip_suffix('s')?;
            let plain = !number.is_empty()
                && number.chars().all(|c| c.is_ascii_digit() || c == '.')
                && number.matches('.').count() <= 1
                && !number.starts_with('.')
                && !number.ends_with('.');
            if !plain {
                return None;
            }
            number.parse::<f64>().ok()? * 1000.0
        }
        Value::Object(o) => {
            let n = |k: &str| match o.get(k) {
                None => Some(0.0),
                Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
                Some(v) => v.as_f64(),
            };
            n("seconds")? * 1000.0 + n("nanos")? / 1e6
        }
        _ => return None,
    };
    // Beyond u64 (about 1.8e19 ms) is garbage, not a hint.
    (0.0..1.8e19).contains(&ms).then(|| ms.round() as u64)
}

/// The RetryInfo delay among an error's `details`, if any.
pub fn retry_info_ms(details: &[Value]) -> Option<u64> {
    details.iter().filter_map(Value::as_object).find_map(|d| {
        let kind = d.get("@type").and_then(Value::as_str).unwrap_or("");
        if kind.ends_with("google.rpc.RetryInfo") {
            d.get("retryDelay").and_then(parse_duration)
        } else {
            None
        }
    })
}

const AUTH_REASONS: &[&str] = &[
    "API_KEY_INVALID", "API_KEY_EXPIRED", "API_KEY_SERVICE_BLOCKED", "API_KEY_HTTP_REFERRER_BLOCKED",
    "API_KEY_IP_ADDRESS_BLOCKED", "API_KEY_ANDROID_APP_BLOCKED", "API_KEY_IOS_APP_BLOCKED",
    "ACCESS_TOKEN_EXPIRED", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "ACCESS_TOKEN_TYPE_UNSUPPORTED",
    "CREDENTIALS_MISSING", "ACCOUNT_STATE_INVALID", "SERVICE_DISABLED", "CONSUMER_INVALID",
    "CONSUMER_SUSPENDED", "USER_PROJECT_DENIED", "IAM_PERMISSION_DENIED",
];

const AUTH_WORDING: &[&str] = &[
    "api key not valid", "api key not found", "api key expired", "invalid api key",
    "reported as leaked", "unregistered callers", "missing required authentication",
    "request had invalid authentication credentials", "permission denied", "does not have permission",
    "api has not been used in project",
];

/// Billing wording: waiting will not cure it, the account needs attention.
const BILLING_WORDING: &[&str] = &[
    "prepayment credits", "credits are depleted", "enable billing", "billing account",
    "billing is not enabled", "spending cap", "spend cap", "monthly spending limit",
];

/// Context overflow, by meaning (the wording of Gemini and Vertex, and the generic forms).
fn says_overflow(w: &str) -> bool {
    if let Some(at) = w.find("input token count") {
        let rest = &w[at..];
        // "The input token count (N) exceeds ...", in one sentence.
        if rest.find(" exceeds").is_some_and(|upto| !rest[..upto].contains('.')) {
            return true;
        }
        // Vertex: "input token count is N but (the) model only supports up to M".
        if rest.contains(" but model only supports up to") || rest.contains(" but the model only supports up to") {
            return true;
        }
    }
    if w.contains("exceeds the maximum number of tokens allowed")
        || w.contains("input too long")
        || w.contains("input is too long")
        || w.contains("prompt is too long")
    {
        return true;
    }
    ["exceeds ", "exceed ", "exceeding ", "beyond ", "over "].iter().any(|verb| {
        w.match_indices(verb).any(|(i, _)| {
            let mut rest = &w[i + verb.len()..];
            for filler in ["the ", "its ", "your "] {
                rest = rest.strip_prefix(filler).unwrap_or(rest);
            }
            for filler in ["model's ", "models ", "model "] {
                rest = rest.strip_prefix(filler).unwrap_or(rest);
            }
            ["context window", "context length", "maximum context"].iter().any(|t| rest.starts_with(t))
        })
    })
}

/// A 429 RESOURCE_EXHAUSTED that waiting will not cure (QUOTA_EXCEEDED) rather than a rate limit.
///
/// Gemini words every quota 429 the same ("You exceeded your current quota, please check your plan
/// and billing details"), per-minute ones included, so the wording alone decides nothing. What does:
/// - a violated QuotaFailure whose quota id or metric is per day: the next chance is tomorrow;
/// - a limit of 0 ("Quota exceeded for metric: ..., limit: 0"): the plan has no quota for this
///   model at all, and no wait ever helps;
/// - billing wording (prepayment credits depleted, spending cap reached).
///
/// Everything else (per-minute ids, no details at all) is RATE_LIMITED.
pub fn is_lasting_quota(info: &ErrorInfo) -> bool {
    let per_day = info.quotas.iter().any(|q| {
        let q = q.to_lowercase();
        q.contains("perday") || q.contains("per day") || q.contains("per_day") || q.contains("daily")
    });
    per_day || says_limit_zero(&info.wording) || BILLING_WORDING.iter().any(|w| info.wording.contains(w))
}

/// "limit: 0" or "limit:0" as a whole number.
fn says_limit_zero(w: &str) -> bool {
    w.match_indices("limit:").any(|(i, m)| {
        let rest = w[i + m.len()..].trim_start_matches(' ');
        let bytes = rest.as_bytes();
        let word_start = i == 0 || !w.as_bytes()[i - 1].is_ascii_alphanumeric();
        word_start && bytes.first() == Some(&b'0') && !bytes.get(1).is_some_and(|b| b.is_ascii_alphanumeric())
    })
}

/// The code a google.rpc status string names, if it names one.
pub fn rpc_code(status: &str) -> Option<FailureCode> {
    Some(match status {
        "UNAVAILABLE" => codes::OVERLOADED,
        // ABORTED is a concurrency conflict on the server (retryable); CANCELLED, the provider
        // cancelled on its side: the code ABORTED is reserved for the caller's own abort.
        "INTERNAL" | "UNKNOWN" | "DATA_LOSS" | "ABORTED" | "CANCELLED" => codes::SERVER_ERROR,
        "DEADLINE_EXCEEDED" => codes::TIMEOUT,
        "INVALID_ARGUMENT" | "NOT_FOUND" | "FAILED_PRECONDITION" | "OUT_OF_RANGE" | "UNIMPLEMENTED"
        | "ALREADY_EXISTS" => codes::INVALID_REQUEST,
        "UNAUTHENTICATED" | "PERMISSION_DENIED" => codes::AUTH,
        _ => return None,
    })
}

/// The canonical code for what an error says (`info`) and the HTTP status, if any.
pub fn code_for(info: &ErrorInfo, status: Option<u16>) -> FailureCode {
    let w = info.wording.as_str();
    let says = |list: &[&str]| list.iter().any(|p| w.contains(p));
    let rpc = info.status.as_deref();

    // 1. An overflow, whatever status carried it; not an output limit.
    if says_overflow(w) && !w.contains("max_output_tokens") && !w.contains("maxoutputtokens") {
        return codes::CONTEXT_WINDOW_EXCEEDED;
    }
    // 2. Credentials.
    if info.reasons.iter().any(|r| AUTH_REASONS.contains(&r.as_str()))
        || matches!(rpc, Some("UNAUTHENTICATED" | "PERMISSION_DENIED"))
        || says(AUTH_WORDING)
    {
        return codes::AUTH;
    }
    // 3. Quotas and rate limits.
    if rpc == Some("RESOURCE_EXHAUSTED") || status == Some(429) || info.code == Some(429) {
        return if is_lasting_quota(info) { codes::QUOTA_EXCEEDED } else { codes::RATE_LIMITED };
    }
    if says(BILLING_WORDING) || status == Some(402) {
        return codes::QUOTA_EXCEEDED;
    }
    // 4. The rpc status names the meaning.
    if let Some(code) = rpc.and_then(rpc_code) {
        return code;
    }
    // 5. The HTTP status (the error's own `code` in a stream).
    match status.or(info.code) {
        None => codes::SERVER_ERROR,
        Some(401 | 403) => codes::AUTH,
        Some(408 | 504 | 524) => codes::TIMEOUT,
        Some(499) => codes::SERVER_ERROR,
        Some(503 | 529) => codes::OVERLOADED,
        Some(s) if s >= 500 => codes::SERVER_ERROR,
        Some(s) if s >= 300 => codes::INVALID_REQUEST,
        Some(_) => codes::SERVER_ERROR,
    }
}

fn describe_unstructured(status: u16, text: &str) -> String {
    let line = status_line(status);
    if text.trim().is_empty() {
        return format!("{line} from Gemini, with an empty body");
    }
    if looks_like_html(text) {
        let what = html_title(text).unwrap_or_else(|| excerpt(text, QUOTE_CHARS));
        return format!("{line} from Gemini, with an HTML page: {what}");
    }
    format!(
        "{line} from Gemini, with a body that is not a Google API error: {}",
        excerpt(text, QUOTE_CHARS)
    )
}
