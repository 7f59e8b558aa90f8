//! Embedded mock LLM provider: a scriptable fake HTTP server for the demo and the tests.
//!
//! Each step of a [`MockScript`] answers one request, in order of arrival: a verbatim answer
//! (status, headers, body), an SSE or NDJSON stream, or a provider-shaped completion (OpenAI,
//! Anthropic or Gemini, chosen by the request path), with the timing of real providers (delays,
//! keepalives, dripping bodies, chunked framing), echoes of the request, and faults (stalls, TCP
//! resets) at chosen points. Every request is recorded for inspection, in memory and optionally in
//! a JSON Lines file. Format: `docs/mock-script.md`.

mod body;
mod de;
mod echo;
mod http;
mod record;
mod render;
mod script;
mod server;
mod validate;

#[cfg(test)]
mod echo_tests;
#[cfg(test)]
mod record_tests;
#[cfg(test)]
mod script_tests;
#[cfg(test)]
mod server_tests;
#[cfg(test)]
mod shape_tests;
#[cfg(test)]
mod traffic_tests;

pub use echo::Echo;
pub use render::{RenderCtx, Shape, SseEvent};
pub use script::{
    Completion, Drip, FINISH_REASONS, Headers, Keepalive, LineSpec, MockScript, RepeatText,
    ResetPoint, ScriptError, SseEventSpec, StallAfterBytes, Step, ToolCallSpec, Usage,
};
pub use server::{MockOptions, MockServer, RecordedRequest};
