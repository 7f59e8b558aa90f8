//! Embedded mock LLM provider: a scriptable fake HTTP server for the demo and the tests.
//!
//! Each step of a [`MockScript`] answers one request, in order of arrival: a verbatim answer
//! (status, headers, body), an SSE stream, or a provider-shaped completion (OpenAI, Anthropic or
//! Gemini, chosen by the request path), with faults (stalls, TCP resets) at chosen points. Every
//! request is recorded for inspection. Format: `docs/mock-script.md`.

mod de;
mod http;
mod render;
mod script;
mod server;

#[cfg(test)]
mod script_tests;
#[cfg(test)]
mod server_tests;
#[cfg(test)]
mod shape_tests;

pub use render::{RenderCtx, Shape, SseEvent};
pub use script::{
    Completion, FINISH_REASONS, Headers, MockScript, ResetPoint, ScriptError, SseEventSpec,
    StallAfterBytes, Step, ToolCallSpec, Usage,
};
pub use server::{MockServer, RecordedRequest};
