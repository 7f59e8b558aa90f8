//! The typed fast path of the decoder: the common `chat.completion.chunk` shape deserialized into
//! small structs that borrow their strings from the event, instead of a `serde_json::Value` tree.
//!
//! Anything these structs reject (a field of an unexpected type, a duplicate key) or that
//! [`ChatChunk::is_plain`] does not accept goes to the `Value` path, which stays the reference:
//! the typed path only handles events it decodes exactly as that path would.

use serde::Deserialize;
use serde::de::IgnoredAny;

pub(crate) use dsh_guest_support::json::Str;

/// One streamed chat-completions chunk. The fields that send an event to the `Value` path are
/// only checked for presence (`IgnoredAny`; `null` counts as absent, as it does there).
#[derive(Deserialize)]
pub(crate) struct ChatChunk<'a> {
    #[serde(borrow, default)]
    pub choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    usage: Option<IgnoredAny>,
    #[serde(default)]
    x_groq: Option<IgnoredAny>,
    #[serde(default, rename = "type")]
    kind: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
    #[serde(borrow, default)]
    object: Option<Str<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct Choice<'a> {
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(borrow, default)]
    pub delta: Option<Delta<'a>>,
    #[serde(default)]
    message: Option<IgnoredAny>,
    #[serde(borrow, default)]
    pub finish_reason: Option<Str<'a>>,
}

#[derive(Deserialize, Default)]
pub(crate) struct Delta<'a> {
    #[serde(borrow, default)]
    pub content: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub reasoning_content: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub reasoning: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub tool_calls: Option<Vec<ToolCall<'a>>>,
    #[serde(default)]
    function_call: Option<IgnoredAny>,
}

#[derive(Deserialize)]
pub(crate) struct ToolCall<'a> {
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(borrow, default)]
    pub id: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub function: Option<Function<'a>>,
    /// Per-call provider data (Gemini's thought signature): only the `Value` path keeps it.
    #[serde(default)]
    extra_content: Option<IgnoredAny>,
}

#[derive(Deserialize, Default)]
pub(crate) struct Function<'a> {
    #[serde(borrow, default)]
    pub name: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub arguments: Option<Str<'a>>,
}

impl ChatChunk<'_> {
    /// Whether this is a plain streamed chunk, which the `Value` path would hand to `on_chat`
    /// unchanged: choices present; no usage, error, `type` or `object: "error"`; no whole
    /// `message`, no deprecated `function_call` and no tool call's `extra_content` in any choice.
    pub(crate) fn is_plain(&self) -> bool {
        let Some(choices) = &self.choices else {
            return false;
        };
        self.usage.is_none()
            && self.x_groq.is_none()
            && self.kind.is_none()
            && self.error.is_none()
            && self.object.as_ref().is_none_or(|o| o.as_str() != "error")
            && choices.iter().all(|c| {
                c.message.is_none()
                    && c.delta.as_ref().is_none_or(|d| {
                        d.function_call.is_none()
                            && d.tool_calls
                                .as_ref()
                                .is_none_or(|calls| calls.iter().all(|t| t.extra_content.is_none()))
                    })
            })
    }
}

/// Parses `data` as a plain chunk, if it is one and the typed parse is exact for it.
pub(crate) fn parse(data: &str) -> Option<ChatChunk<'_>> {
    if !dsh_guest_support::json::typed_parse_is_exact(data) {
        return None;
    }
    serde_json::from_str::<ChatChunk>(data)
        .ok()
        .filter(ChatChunk::is_plain)
}
