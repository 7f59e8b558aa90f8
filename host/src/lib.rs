//! dsh-host: runs LLM provider adapters and recovery listeners as sandboxed WebAssembly components.
//!
//! The host owns every side effect; guests are pure translators. One module per responsibility:
//! see `docs/ARCHITECTURE.md` for the map.

pub mod adapter;
pub mod attempt;
pub mod check;
pub mod cli;
pub mod cli_sessions;
pub mod code_cache;
pub mod compat;
pub mod config;
pub mod cooldown;
pub mod demo;
pub mod engine;
pub mod failure;
pub mod gateway;
pub mod group_commit;
pub mod guests;
pub mod listener;
pub mod log;
pub mod mock;
pub mod network;
pub mod new_project;
pub mod output;
pub mod pg_store;
pub mod plan;
pub mod private_fs;
pub mod recovery;
pub mod redact;
pub mod resume;
pub mod retention;
pub mod runtime;
pub mod session;
pub mod session_import;
pub mod store;
pub mod tools;
pub mod transport;
pub mod watchdog;
pub mod wire;
