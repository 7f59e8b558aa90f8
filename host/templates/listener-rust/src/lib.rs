//! {{name}}: a dsh-host recovery listener (world `recovery-listener` of dsh:llm@0.2.0, in
//! `wit/0.2.0`).
//!
//! As generated: "two strikes". A transient failure (`RATE_LIMITED`, `OVERLOADED`, `SERVER_ERROR`)
//! is retried at most `max_retries` times (default 2) per step, after the provider's retry-after
//! when it gave one, else after `delay_ms` (default 1000); then it gives up. Every other failure is
//! delegated to the next listener of the waterfall. Change `decide` to your policy.
//!
//! A listener only decides: the host waits, logs and calls the provider. It is a pure function of
//! its input (the host's random sample is in the context); the host creates a fresh instance and
//! calls `configure` before every decision, so the configuration kept below is always this
//! listener's own. The logic is plain Rust, tested natively (`cargo test`); `bindings.rs` is the
//! component export, compiled for wasm32 only.

use dsh_guest_support::listener::{Decision, FailureContext, RetryDecision, codes};
use serde_json::Value;
use std::cell::Cell;

#[cfg(target_arch = "wasm32")]
mod bindings;

/// The listener's name: the host prefixes every error about this guest with it.
pub const NAME: &str = "{{name}}";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The key of this listener's retries in the session log (`llm/retry` `policy_key`).
pub const POLICY_KEY: &str = "{{name}}";
/// The longest wait the host accepts from a listener (an hour).
pub const MAX_DELAY_MS: u64 = 3_600_000;

/// The `config = {...}` of this listener's `[[listeners]]` entry in dsh.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub max_retries: u32,
    pub delay_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_retries: 2,
            delay_ms: 1000,
        }
    }
}

/// The configuration as JSON: `{}` (or nothing) for the defaults; unknown keys are refused by name.
pub fn parse_config(config_json: &str) -> Result<Config, String> {
    let mut config = Config::default();
    if config_json.trim().is_empty() {
        return Ok(config);
    }
    let value: Value = serde_json::from_str(config_json)
        .map_err(|e| format!("{NAME}: the config is not valid JSON ({e})"))?;
    let Value::Object(map) = value else {
        return Err(format!(
            "{NAME}: the config must be a table, e.g. {{ max_retries = 2 }}"
        ));
    };
    for (key, value) in map {
        match key.as_str() {
            "max_retries" => {
                config.max_retries = value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| {
                        format!("{NAME}: max_retries must be a whole number, got {value}")
                    })?
            }
            "delay_ms" => {
                config.delay_ms =
                    value
                        .as_u64()
                        .filter(|&ms| ms <= MAX_DELAY_MS)
                        .ok_or_else(|| {
                            format!("{NAME}: delay_ms must be 0 to {MAX_DELAY_MS}, got {value}")
                        })?
            }
            other => {
                return Err(format!(
                    "{NAME}: unknown config key `{other}` (it takes max_retries and delay_ms)"
                ));
            }
        }
    }
    Ok(config)
}

thread_local! {
    static CONFIG: Cell<Option<Config>> = const { Cell::new(None) };
}

/// Called by the host at load and before every decision, with this listener's config.
pub fn configure(config_json: &str) -> Result<(), String> {
    let config = parse_config(config_json)?;
    CONFIG.with(|c| c.set(Some(config)));
    Ok(())
}

/// The decision for one failure, with the configuration `configure` kept.
pub fn on_failure(context: &FailureContext) -> Decision {
    match CONFIG.with(Cell::get) {
        Some(config) => decide(&config, context),
        None => Decision::GiveUp(format!("{NAME}: on-failure was called before configure")),
    }
}

/// The policy itself.
pub fn decide(config: &Config, context: &FailureContext) -> Decision {
    let failure = &context.failure;
    if ![codes::RATE_LIMITED, codes::OVERLOADED, codes::SERVER_ERROR].contains(&failure.code) {
        return Decision::Delegate;
    }
    // The count lives in the session log, so a resumed process continues it.
    let spent = context
        .earlier_retries
        .iter()
        .filter(|r| r.policy_key == POLICY_KEY)
        .count();
    if spent >= config.max_retries as usize {
        return Decision::GiveUp(format!(
            "{NAME}: {} after {spent} retries ({})",
            failure.code, failure.message
        ));
    }
    let delay_ms = failure.provider_retry_after_ms.unwrap_or(config.delay_ms);
    if delay_ms > MAX_DELAY_MS {
        return Decision::GiveUp(format!(
            "{NAME}: the provider asks to wait {} s, longer than an hour",
            delay_ms / 1000
        ));
    }
    Decision::Retry(RetryDecision {
        delay_ms,
        policy_key: POLICY_KEY.to_string(),
        replace_messages: None,
    })
}
