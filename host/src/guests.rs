//! The first-party guests compiled into the binary (built by `build.rs` for wasm32-wasip2), so
//! `dsh-host` works alone. A `.wasm` path given by the user replaces any of them.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Where a guest's bytes come from.
#[derive(Debug, Clone)]
pub enum GuestSource {
    Embedded {
        name: &'static str,
        bytes: &'static [u8],
    },
    File(PathBuf),
}

impl GuestSource {
    /// A name for errors and logs: the first-party guest's name, or the file's path.
    pub fn origin(&self) -> String {
        match self {
            GuestSource::Embedded { name, .. } => format!("built-in guest '{name}'"),
            GuestSource::File(path) => path.display().to_string(),
        }
    }

    pub fn read(&self) -> Result<std::borrow::Cow<'static, [u8]>> {
        match self {
            GuestSource::Embedded { bytes, .. } => Ok((*bytes).into()),
            GuestSource::File(path) => std::fs::read(path)
                .map(Into::into)
                .with_context(|| format!("reading guest file {}", path.display())),
        }
    }

    pub fn file(path: &Path) -> Self {
        GuestSource::File(path.to_path_buf())
    }
}

/// The built-in adapters, by provider adapter name.
pub fn builtin_adapter(name: &str) -> Option<GuestSource> {
    match name {
        "openai" => Some(GuestSource::Embedded {
            name: "openai",
            bytes: OPENAI,
        }),
        "anthropic" => Some(GuestSource::Embedded {
            name: "anthropic",
            bytes: ANTHROPIC,
        }),
        "gemini" => Some(GuestSource::Embedded {
            name: "gemini",
            bytes: GEMINI,
        }),
        _ => None,
    }
}

/// Names of the built-in adapters, for error messages.
pub const BUILTIN_ADAPTERS: &[&str] = &["openai", "anthropic", "gemini"];

/// The built-in recovery listeners, by name.
pub fn builtin_listener(name: &str) -> Option<GuestSource> {
    match name {
        "llm-retry" => Some(GuestSource::Embedded {
            name: "llm-retry",
            bytes: LLM_RETRY,
        }),
        "compaction-basic" => Some(GuestSource::Embedded {
            name: "compaction-basic",
            bytes: COMPACTION_BASIC,
        }),
        _ => None,
    }
}

pub const BUILTIN_LISTENERS: &[&str] = &["compaction-basic", "llm-retry"];

static OPENAI: &[u8] = include_bytes!(concat!(env!("DSH_GUEST_DIR"), "/dsh_guest_openai.wasm"));
static ANTHROPIC: &[u8] =
    include_bytes!(concat!(env!("DSH_GUEST_DIR"), "/dsh_guest_anthropic.wasm"));
static GEMINI: &[u8] = include_bytes!(concat!(env!("DSH_GUEST_DIR"), "/dsh_guest_gemini.wasm"));
static LLM_RETRY: &[u8] =
    include_bytes!(concat!(env!("DSH_GUEST_DIR"), "/dsh_guest_llm_retry.wasm"));
static COMPACTION_BASIC: &[u8] = include_bytes!(concat!(
    env!("DSH_GUEST_DIR"),
    "/dsh_guest_compaction_basic.wasm"
));
