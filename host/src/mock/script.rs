//! The mock script: a JSON list of steps, one per HTTP request, checked before the server starts.
//! The format is documented for users in `docs/mock-script.md`; keep the two in step.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A whole script: `{"steps": [...]}`. Step `i` answers the `i`-th request that reaches the server.
/// Not `Deserialize` on purpose: load it with `from_json_str` / `from_path`, which validate.
#[derive(Debug, Clone, Default)]
pub struct MockScript {
    pub steps: Vec<Step>,
}

/// One answer to one request. Every field is optional; an empty step is `200` with an empty body.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Free text for the reader (JSON has no comments); ignored.
    pub comment: Option<String>,
    /// HTTP status; 200 when absent.
    pub status: Option<u16>,
    /// Sent verbatim, in order. JSON object or list of `[name, value]` pairs (for repeated names).
    #[serde(default)]
    pub headers: Headers,
    /// Raw body text, sent verbatim with a `Content-Length` (unless `headers` has one).
    pub body: Option<String>,
    /// Raw body bytes in standard base64, for bodies that are not UTF-8.
    pub body_base64: Option<String>,
    /// A close-delimited SSE stream of these events.
    pub events: Option<Vec<SseEventSpec>>,
    /// End the stream with `data: [DONE]`. Default: false for `events`; for `completion`, true for
    /// the OpenAI shape and false for the others (which refuse `true`: they never send one).
    pub done: Option<bool>,
    /// Shorthand: a provider-shaped completion stream (the shape follows the request path:
    /// OpenAI Chat Completions, Anthropic Messages or Gemini `streamGenerateContent`).
    pub completion: Option<Completion>,
    /// Wait after reading the request, before sending anything.
    pub stall_before_headers_ms: Option<u64>,
    /// Pause after this many body bytes (at the end if the body is shorter).
    pub stall_after_bytes: Option<StallAfterBytes>,
    /// Reset the connection (TCP RST) instead of answering.
    pub reset: Option<ResetPoint>,
    /// Reset the connection after this many body bytes (at the end if the body is shorter).
    pub reset_after_bytes: Option<u64>,
}

/// Header list that keeps the script's order (a JSON object would otherwise come back sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers(pub Vec<(String, String)>);

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SseEventSpec {
    /// A string is sent as is (one `data:` line per line); any other JSON value is sent compact.
    pub data: serde_json::Value,
    pub event: Option<String>,
    /// Wait this long before sending the event.
    pub delay_ms: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Completion {
    /// Text pieces, one chunk each.
    #[serde(default)]
    pub text: Vec<String>,
    /// Thinking pieces, sent before the text as a thinking content block. Anthropic shape only:
    /// a completion with thinking answering another shape is refused at request time.
    #[serde(default)]
    pub thinking: Vec<String>,
    /// `stop`, `length`, `tool_calls`, `content_filter`, or `null` for no finish chunk (a truncated stream).
    #[serde(default = "default_finish")]
    pub finish: Option<String>,
    pub usage: Option<Usage>,
    /// Wait this long before each chunk (every SSE event of the stream, whatever the shape).
    pub delay_ms: Option<u64>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCallSpec>,
    /// The `model` field of the chunks; `mock-model` when absent.
    pub model: Option<String>,
}

fn default_finish() -> Option<String> {
    Some("stop".into())
}

/// Finish reasons a script may give, in OpenAI's words (each shape maps them to its own); the
/// validator names them in its error.
pub const FINISH_REASONS: &[&str] = &["stop", "length", "tool_calls", "content_filter"];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Defaults to the sum.
    pub total_tokens: Option<u64>,
}

impl Usage {
    /// `total_tokens`, or the sum when the script leaves it out.
    pub fn total(&self) -> u64 {
        self.total_tokens
            .unwrap_or(self.prompt_tokens.saturating_add(self.completion_tokens))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    pub id: String,
    pub name: String,
    /// Argument text pieces, one chunk each; their concatenation is the arguments string.
    #[serde(default)]
    pub arguments: Vec<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StallAfterBytes {
    pub bytes: u64,
    pub ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResetPoint {
    BeforeHeaders,
}

/// Why a script was refused. `Display` names the file (when there is one), the step and the fix.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read mock script {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}{}{message}", file_prefix(file), step.map(|i| format!("steps[{i}]: ")).unwrap_or_default())]
    Invalid {
        file: Option<PathBuf>,
        step: Option<usize>,
        message: String,
    },
}

fn file_prefix(file: &Option<PathBuf>) -> String {
    file.as_ref()
        .map(|p| format!("mock script {}: ", p.display()))
        .unwrap_or_default()
}

fn invalid(step: Option<usize>, message: impl Into<String>) -> ScriptError {
    ScriptError::Invalid {
        file: None,
        step,
        message: message.into(),
    }
}

impl MockScript {
    pub fn from_path(path: &Path) -> Result<MockScript, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::from_json_str(&text).map_err(|e| match e {
            ScriptError::Invalid { step, message, .. } => ScriptError::Invalid {
                file: Some(path.to_owned()),
                step,
                message,
            },
            other => other,
        })
    }

    pub fn from_json_str(text: &str) -> Result<MockScript, ScriptError> {
        let mut current = None;
        let steps = super::de::parse_steps(text, &mut current).map_err(|e| {
            // `current` is the step being read when serde failed, so the error can name it.
            invalid(current, e.to_string())
        })?;
        let script = MockScript { steps };
        script.validate()?;
        Ok(script)
    }

    /// Checks what serde cannot: combinations of options. Also run by `MockServer::start`, so a
    /// script built in code gets the same errors.
    pub fn validate(&self) -> Result<(), ScriptError> {
        for (i, step) in self.steps.iter().enumerate() {
            step.validate().map_err(|m| invalid(Some(i), m))?;
        }
        Ok(())
    }
}

impl Step {
    fn validate(&self) -> Result<(), String> {
        self.validate_head()?;
        let bodies = self.validate_body()?;
        self.validate_faults(&bodies)
    }

    fn validate_head(&self) -> Result<(), String> {
        if let Some(s) = self.status
            && !(100..=999).contains(&s)
        {
            return Err(format!(
                "status {s} is not a three-digit HTTP status; use 100..=999"
            ));
        }
        for (name, value) in &self.headers.0 {
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return Err(format!(
                    "header name {name:?} is not a valid HTTP token; use letters, digits and -"
                ));
            }
            if value.contains(['\r', '\n']) {
                return Err(format!(
                    "header {name:?} has a line break in its value; remove it"
                ));
            }
        }
        Ok(())
    }

    /// Returns the names of the body options given (at most one).
    fn validate_body(&self) -> Result<Vec<&'static str>, String> {
        let bodies: Vec<&str> = [
            ("body", self.body.is_some()),
            ("body_base64", self.body_base64.is_some()),
            ("events", self.events.is_some()),
            ("completion", self.completion.is_some()),
        ]
        .into_iter()
        .filter_map(|(n, set)| set.then_some(n))
        .collect();
        if bodies.len() > 1 {
            return Err(format!(
                "{} are all given; keep only one way of giving the body",
                bodies.join(" and ")
            ));
        }
        if self.done.is_some() && self.events.is_none() && self.completion.is_none() {
            return Err(
                "done applies only to events or completion; remove it or add events".into(),
            );
        }
        if let Some(b64) = &self.body_base64 {
            decode_base64(b64).map_err(|e| format!("body_base64 is not valid base64 ({e}); use the standard alphabet A-Z a-z 0-9 + /"))?;
        }
        if let Some(events) = &self.events {
            for (j, ev) in events.iter().enumerate() {
                if ev
                    .event
                    .as_deref()
                    .is_some_and(|n| n.contains(['\r', '\n']))
                {
                    return Err(format!(
                        "events[{j}].event has a line break; an SSE event name is one line"
                    ));
                }
                if ev.data.as_str().is_some_and(|d| d.contains('\r')) {
                    return Err(format!(
                        "events[{j}].data has a \\r; use \\n to split data lines"
                    ));
                }
            }
        }
        if let Some(f) = self.completion.as_ref().and_then(|c| c.finish.as_ref())
            && !FINISH_REASONS.contains(&f.as_str())
        {
            return Err(format!(
                "unknown completion.finish {f:?}; use one of {}, or null for no finish chunk",
                FINISH_REASONS.join(", ")
            ));
        }
        Ok(bodies)
    }

    fn validate_faults(&self, bodies: &[&str]) -> Result<(), String> {
        if self.reset == Some(ResetPoint::BeforeHeaders) {
            if self.stall_before_headers_ms.is_some() {
                return Err("reset: before_headers and stall_before_headers_ms both act before the headers; keep one (a stall followed by a reset is not supported)".into());
            }
            let sent: Vec<&str> = [
                ("status", self.status.is_some()),
                ("headers", !self.headers.0.is_empty()),
                ("body", !bodies.is_empty()),
                ("stall_after_bytes", self.stall_after_bytes.is_some()),
                ("reset_after_bytes", self.reset_after_bytes.is_some()),
            ]
            .into_iter()
            .filter_map(|(n, set)| set.then_some(n))
            .collect();
            if !sent.is_empty() {
                return Err(format!(
                    "reset: before_headers sends nothing, so {} would be ignored; remove them or use reset_after_bytes",
                    sent.join(", ")
                ));
            }
        }
        if let (Some(stall), Some(reset)) = (self.stall_after_bytes, self.reset_after_bytes) {
            if stall.bytes == reset {
                return Err(format!(
                    "stall_after_bytes and reset_after_bytes are both at byte {reset}; keep one, or stall at an earlier byte"
                ));
            }
            if stall.bytes > reset {
                return Err(format!(
                    "stall_after_bytes at byte {} comes after reset_after_bytes at byte {reset}, so it never happens; stall at an earlier byte",
                    stall.bytes
                ));
            }
        }
        Ok(())
    }

    /// The raw body, if the step gives one (`body` or `body_base64`).
    pub fn raw_body(&self) -> Option<Vec<u8>> {
        match (&self.body, &self.body_base64) {
            (Some(b), _) => Some(b.clone().into_bytes()),
            // Validated at load, so a failure here means the step was built in code unchecked.
            (None, Some(b)) => Some(decode_base64(b).unwrap_or_default()),
            _ => None,
        }
    }
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Standard base64 (RFC 4648), padding optional, ASCII whitespace ignored. Hand-written to avoid a
/// dependency for a test-only feature.
pub(crate) fn decode_base64(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    let mut padding = 0;
    for (pos, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => continue,
            _ => {
                return Err(format!(
                    "unexpected character {:?} at offset {pos}",
                    c as char
                ));
            }
        };
        if padding > 0 {
            return Err(format!("data after padding at offset {pos}"));
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    // 6 leftover bits can never come from whole bytes: the input was cut.
    if bits >= 6 || padding > 2 {
        return Err("truncated input".into());
    }
    Ok(out)
}

impl Headers {
    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
    }
}
