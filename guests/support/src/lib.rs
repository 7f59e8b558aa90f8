//! Plain-Rust code shared by dsh's first-party Rust guests (the `openai` and `anthropic` adapters,
//! the `llm-retry` and `compaction-basic` listeners), kept once here instead of copied per guest.
//!
//! No wit-bindgen: the generated WIT types are per crate, so each guest keeps its own `bindings.rs`
//! converting them to the mirrors here. Unused items cost nothing in a component (the `guest`
//! profile links with LTO).

pub mod json;
pub mod listener;
pub mod retry_after;
pub mod sse;
pub mod text;
pub mod types;

#[cfg(feature = "test-support")]
pub mod fixtures;
