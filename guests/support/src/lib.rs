//! Plain-Rust code shared by dsh's first-party Rust guests (the `openai` and `anthropic` adapters,
//! the `llm-retry` and `compaction-basic` listeners), kept once here instead of copied per guest.
//!
//! The guests' logic works on the plain mirrors here, testable natively. The wasm32-only [`wit`]
//! module generates the `dsh:llm/types` WIT types once, converts them to and from the mirrors, and
//! holds the export glue each guest's `bindings.rs` expands. Unused items cost nothing in a
//! component (the `guest` profile links with LTO).
//!
//! It is also the SDK of guests outside this repository: `dsh-host new --lang rust` writes these
//! sources into the project's `vendor/dsh-guest-support` (the project depends on it by path; its
//! WIT is then the project's `wit/0.2.0`, which `../../wit/0.2.0` names from there), and
//! docs/writing-guests.md documents what each module offers. Keep it usable from there: no path
//! outside this crate but `../../wit/0.2.0` and, for the test helpers, `../../tests/fixtures`.

pub mod answer;
pub mod body;
pub mod classify;
pub mod json;
pub mod listener;
pub mod meaning;
pub mod retry_after;
pub mod scan;
pub mod sse;
pub mod text;
pub mod types;
#[cfg(target_arch = "wasm32")]
pub mod wit;

#[cfg(feature = "test-support")]
pub mod fixtures;
