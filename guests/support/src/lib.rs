//! Plain-Rust code shared by dsh's first-party Rust guests (the `openai` and `anthropic` adapters,
//! the `llm-retry` and `compaction-basic` listeners), kept once here instead of copied per guest.
//!
//! The guests' logic works on the plain mirrors here, testable natively. The wasm32-only [`wit`]
//! module generates the `dsh:llm/types` WIT types once, converts them to and from the mirrors, and
//! holds the export glue each guest's `bindings.rs` expands. Unused items cost nothing in a
//! component (the `guest` profile links with LTO).

pub mod body;
pub mod json;
pub mod listener;
pub mod meaning;
pub mod retry_after;
pub mod sse;
pub mod text;
pub mod types;
#[cfg(target_arch = "wasm32")]
pub mod wit;

#[cfg(feature = "test-support")]
pub mod fixtures;
