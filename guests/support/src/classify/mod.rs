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
//!
//! Where things are: this module holds the entry points and the order of the steps; `steps` the
//! steps themselves; `phrases` the meanings they ask of the words (beside [`crate::meaning`]);
//! `wording` the labels and phrases they look for; `error_info` the reading of an error body.

use serde_json::Value;

use crate::meaning::{self, says_any};
use crate::retry_after::retry_after_ms;
use crate::text::{
    MESSAGE_CHARS, QUOTE_CHARS, clip, excerpt, html_title, looks_like_html, normalize,
    request_id_in_text, status_line,
};
use crate::types::{FailureCode, LlmFailure, ResponseHead, codes};

mod error_info;
mod phrases;
mod steps;
mod wording;

pub use error_info::names_a_message;
use error_info::*;
use phrases::*;
use steps::*;
use wording::*;

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
    // (A 422 or a 424 of an app that failed its upstream call is its own wrapper too: 10xCards's
    // 422 "Failed to generate flashcards ..." with "OpenRouter API error: 401 Unauthorized".)
    let outer = match status {
        None => 0,
        Some(s) if s >= 500 || matches!(s, 422 | 424 | 429) => s,
        // (Under a 400 only when the words say an upstream returned it: "OpenAI API returned
        // status 429", ScamBuster's wrapper of every upstream failure.)
        Some(400) if text.contains("returned status") || text.contains("api returned") => 400,
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
        // (Or after a Chinese "failed" or "error": "模型请求失败（401）", the model request failed
        // with a 401, a NodeBB plugin's 503.)
        let chinese_lead =
            i > 0 && (words[i - 1].ends_with("失败") || words[i - 1].ends_with("错误"));
        (i == 0 || LEADS.contains(&words[i - 1]) || phrase_follows || chinese_lead).then_some(n)
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
        || says_something_not_found(said.text)
    {
        return codes::INVALID_REQUEST;
    }
    codes::SERVER_ERROR
}
