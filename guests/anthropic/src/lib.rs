//! dsh provider adapter for Anthropic's Messages API (streaming).
//!
//! A pure translator: no I/O, no clock, no key. The logic is plain Rust, tested natively; the wasm
//! component export (`bindings`, wasm32 only) converts the generated WIT types to these.

pub mod classify;
pub mod decode;
pub mod plan;
pub mod retry_after;
pub mod sse;
pub mod text;
pub mod types;

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use classify::{classify_failure, classify_in_band};
pub use decode::Decoder;
pub use plan::plan_request;
pub use retry_after::retry_after_ms;

/// The adapter's name: the host prefixes every error about this guest with it.
pub const NAME: &str = "anthropic";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
