//! The typed fast path of the decoder: the common `chat.completion.chunk` shape read into small
//! structs that borrow their strings from the event, instead of a `serde_json::Value` tree.
//!
//! Anything these structs reject (a field of an unexpected type, a duplicate key) or that
//! [`ChatChunk::is_plain`] does not accept goes to the `Value` path, which stays the reference:
//! the typed path only handles events it decodes exactly as that path would. The structs read
//! their keys by hand so that every value they do not keep is skipped as strictly as a `Value`
//! parse reads it (`dsh_guest_support::json`, which says why serde's derive cannot).

use dsh_guest_support::json::Skipped;
pub(crate) use dsh_guest_support::json::Str;

/// One streamed chat-completions chunk. The fields that send an event to the `Value` path are
/// only checked for presence (`null` counts as absent, as it does there).
#[derive(Default)]
pub(crate) struct ChatChunk<'a> {
    pub choices: Option<Vec<Choice<'a>>>,
    usage: Option<Skipped>,
    x_groq: Option<Skipped>,
    kind: Option<Skipped>,
    error: Option<Skipped>,
    object: Option<Str<'a>>,
}

#[derive(Default)]
pub(crate) struct Choice<'a> {
    pub index: Option<u64>,
    pub delta: Option<Delta<'a>>,
    message: Option<Skipped>,
    pub finish_reason: Option<Str<'a>>,
    /// `finishReason`, a Java server's camelCase (LangChat).
    pub finish_reason_camel: Option<Str<'a>>,
}

#[derive(Default)]
pub(crate) struct Delta<'a> {
    pub content: Option<Str<'a>>,
    pub reasoning_content: Option<Str<'a>>,
    pub reasoning: Option<Str<'a>>,
    pub tool_calls: Option<Vec<ToolCall<'a>>>,
    function_call: Option<Skipped>,
}

#[derive(Default)]
pub(crate) struct ToolCall<'a> {
    pub index: Option<u64>,
    pub id: Option<Str<'a>>,
    pub function: Option<Function<'a>>,
    /// Per-call provider data (Gemini's thought signature): only the `Value` path keeps it.
    extra_content: Option<Skipped>,
}

#[derive(Default)]
pub(crate) struct Function<'a> {
    pub name: Option<Str<'a>>,
    pub arguments: Option<Str<'a>>,
}

dsh_guest_support::read_by_key!(ChatChunk, "a chat completion chunk", {
    "choices" => choices,
    "usage" => usage,
    "x_groq" => x_groq,
    "type" => kind,
    "error" => error,
    "object" => object,
});
dsh_guest_support::read_by_key!(Choice, "a choice", {
    "index" => index,
    "delta" => delta,
    "message" => message,
    "finish_reason" => finish_reason,
    "finishReason" => finish_reason_camel,
});
dsh_guest_support::read_by_key!(Delta, "a delta", {
    "content" => content,
    "reasoning_content" => reasoning_content,
    "reasoning" => reasoning,
    "tool_calls" => tool_calls,
    "function_call" => function_call,
});
dsh_guest_support::read_by_key!(ToolCall, "a tool call", {
    "index" => index,
    "id" => id,
    "function" => function,
    "extra_content" => extra_content,
});
dsh_guest_support::read_by_key!(Function, "a function", {
    "name" => name,
    "arguments" => arguments,
});

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

/// Parses `data` as a plain chunk, if it is one.
pub(crate) fn parse(data: &str) -> Option<ChatChunk<'_>> {
    serde_json::from_str::<ChatChunk>(data)
        .ok()
        .filter(ChatChunk::is_plain)
}
