//! dsh provider adapter for Google's Gemini API (`streamGenerateContent?alt=sse`).
//!
//! The built-in port of the JavaScript example guest (`guests/gemini`, kept for the guide): a Rust
//! component is a fraction of the size of a componentized JavaScript one and starts without
//! instantiating a JavaScript engine. A pure translator: no I/O, no clock, no key. The logic is
//! plain Rust, tested natively; the wasm component export (`bindings`, wasm32 only) converts the
//! generated WIT types to these.

pub mod classify;
pub mod decode;
pub mod plan;

pub use dsh_guest_support::{retry_after, sse, text, types};

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use classify::{classify_failure, classify_in_band};
pub use decode::Decoder;
pub use plan::plan_request;

/// The adapter's name: the host prefixes every error about this guest with it.
pub const NAME: &str = "gemini";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
