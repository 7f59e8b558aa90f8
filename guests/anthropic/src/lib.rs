//! dsh provider adapter for Anthropic's Messages API (streaming).
//!
//! A pure translator: no I/O, no clock, no key. The logic is plain Rust, tested natively; the wasm
//! component export (`bindings`, wasm32 only) converts the generated WIT types to these.

pub mod classify;
pub mod decode;
mod fast;
pub mod plan;

// Shared with the other Rust guests; re-exported under the old paths so `crate::types` and the
// public API (`dsh_guest_anthropic::types::Chunk`, ...) stay as they were.
pub use dsh_guest_support::{retry_after, sse, text, types};

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use classify::{classify_failure, classify_in_band};
pub use decode::Decoder;
pub use plan::plan_request;
pub use retry_after::retry_after_ms;

/// The adapter's name: the host prefixes every error about this guest with it.
pub const NAME: &str = "anthropic";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
