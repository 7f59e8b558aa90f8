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
    /// An SSE stream of these events (and comments).
    pub events: Option<Vec<SseEventSpec>>,
    /// An NDJSON stream: one JSON value (or raw text) per line, as Ollama's native API streams.
    pub lines: Option<Vec<LineSpec>>,
    /// End the stream with `data: [DONE]`. Default: false for `events`; for `completion`, true for
    /// the OpenAI shape and false for the others (which refuse `true`: they never send one).
    pub done: Option<bool>,
    /// Shorthand: a provider-shaped completion stream (the shape follows the request path:
    /// OpenAI Chat Completions, Anthropic Messages or Gemini `streamGenerateContent`).
    pub completion: Option<Completion>,
    /// Frame the body with `transfer-encoding: chunked`, each event, line or piece its own chunk.
    #[serde(default)]
    pub chunked: bool,
    /// Send the body a few bytes at a time, with a pause before each write.
    pub drip: Option<Drip>,
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

/// One entry of `events`: an event (`data`, with an optional `event` name) or an SSE comment
/// (`sse_comment`), sent `repeat` times, each after `delay_ms`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SseEventSpec {
    /// A string is sent as is (one `data:` line per line); any other JSON value is sent compact.
    pub data: Option<serde_json::Value>,
    pub event: Option<String>,
    /// A comment line (`: TEXT`), which SSE clients skip: how providers send keepalives. Not to
    /// be confused with `comment`, the script's own ignored note.
    pub sse_comment: Option<String>,
    /// Wait this long before sending the event (before each one, when repeated).
    pub delay_ms: Option<u64>,
    /// Send the entry this many times (default 1), generated one at a time as they go out.
    pub repeat: Option<u64>,
}

/// One entry of `lines`: a JSON value sent compact on one line (a string is sent as is), then
/// `\n`; `repeat` times, each after `delay_ms`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    pub data: serde_json::Value,
    pub delay_ms: Option<u64>,
    pub repeat: Option<u64>,
}

/// `completion.keepalive`: an `events` entry (a comment or a ping event, usually repeated with a
/// delay) sent after the first `after_chunks` chunks of the completion.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keepalive {
    pub data: Option<serde_json::Value>,
    pub event: Option<String>,
    pub sse_comment: Option<String>,
    pub delay_ms: Option<u64>,
    pub repeat: Option<u64>,
    /// How many chunks of the completion go before the keepalives; default 0 (right after the
    /// head). More than the completion has: after the last chunk, before any `[DONE]`.
    #[serde(default)]
    pub after_chunks: u64,
}

impl Keepalive {
    /// The keepalive as the `events` entry it is.
    pub fn entry(&self) -> SseEventSpec {
        SseEventSpec {
            data: self.data.clone(),
            event: self.event.clone(),
            sse_comment: self.sse_comment.clone(),
            delay_ms: self.delay_ms,
            repeat: self.repeat,
        }
    }
}

/// `completion.repeat`: `count` more text pieces, each `text`, after the `text` pieces.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatText {
    pub text: String,
    pub count: u64,
}

/// `drip`: the body goes out `bytes` at a time, each write after a pause of `every_ms`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drip {
    pub bytes: u64,
    pub every_ms: u64,
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
    /// More text pieces after `text`, generated one at a time (a long stream in one line).
    pub repeat: Option<RepeatText>,
    /// Keepalive comments or pings inside the stream.
    pub keepalive: Option<Keepalive>,
}

impl Completion {
    /// Whether the completion has any text piece (so a text block, in Anthropic's shape).
    pub fn has_text(&self) -> bool {
        !self.text.is_empty() || self.repeat.is_some()
    }
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
            super::validate::step(step).map_err(|m| invalid(Some(i), m))?;
        }
        Ok(())
    }
}

impl Step {
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

/// Standard base64 with padding, for the record of a body that is not UTF-8.
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= group.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

impl Headers {
    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
    }
}
