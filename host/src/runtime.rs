//! The process-level assembly a CLI or an embedding program starts from: one engine,
//! the configured listeners loaded once, providers loaded on demand.

use crate::adapter::Adapter;
use crate::attempt::Provider;
use crate::config::{Config, GuestRef, LimitsOverride, ProviderConfig};
use crate::cooldown::CoolDowns;
use crate::engine::{GuestEngine, GuestLimits};
use crate::guests::{self, GuestSource};
use crate::listener::Listener;
use crate::recovery::Recovery;
use crate::session::SessionDeps;
use anyhow::{Context, Result};
use std::sync::Arc;

pub struct Runtime {
    pub engine: GuestEngine,
    pub config: Config,
    pub recovery: Arc<Recovery>,
    /// The fleet's cool-downs every session of this process honours: in memory unless a front end
    /// gives the session store's ([`Runtime::with_cooldowns`]).
    pub cooldowns: Arc<CoolDowns>,
}

impl Runtime {
    /// Loads and configures every listener of the waterfall: a listener that cannot load or refuses
    /// its configuration stops the start-up, naming it.
    pub async fn new(
        config: Config,
        engine: GuestEngine,
        random_seed: Option<u64>,
    ) -> Result<Runtime> {
        let mut listeners = Vec::new();
        for (i, l) in config.listeners.iter().enumerate() {
            let source = listener_source(&l.guest)?;
            let limits = limits_for(&source, &l.limits);
            let listener = Listener::load(&engine, &source, &l.config_json, limits)
                .await
                .with_context(|| format!("loading listener #{} ({})", i + 1, source.origin()))?;
            listeners.push(Arc::new(listener));
        }
        Ok(Runtime {
            engine,
            config,
            recovery: Arc::new(Recovery::new(listeners, random_seed)),
            cooldowns: Arc::new(CoolDowns::local()),
        })
    }

    /// Shares cool-downs through `cooldowns` (the session store's: [`crate::store::SessionStore::cooldowns`]).
    pub fn with_cooldowns(mut self, cooldowns: CoolDowns) -> Self {
        self.cooldowns = Arc::new(cooldowns);
        self
    }

    /// Loads the provider's adapter and reads its key from the environment.
    pub async fn provider(&self, config: ProviderConfig) -> Result<Arc<Provider>> {
        let source = adapter_source(&config.adapter)?;
        let limits = limits_for(&source, &config.adapter_limits);
        let adapter = Adapter::load(&self.engine, &source, limits).await?;
        // A variable the provider may not send (a preset's key, with the base URL pointed elsewhere)
        // is not even read.
        let key = match config.key_env() {
            Ok(var) => read_key(var)?,
            Err(_) => None,
        };
        Ok(Arc::new(Provider::new(config, Arc::new(adapter), key)?))
    }

    pub fn deps(&self, provider: Arc<Provider>) -> SessionDeps {
        SessionDeps {
            provider,
            recovery: self.recovery.clone(),
            cooldowns: self.cooldowns.clone(),
        }
    }
}

/// The key in environment variable `var`, if set. Never printed: a value that is not text is
/// refused naming the variable only (the transport refuses one a header cannot carry).
fn read_key(var: &str) -> Result<Option<String>> {
    match std::env::var(var) {
        Ok(key) => Ok(Some(key)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => anyhow::bail!(
            "the environment variable {var} holds bytes that are not text; an API key is plain ASCII: fix its value"
        ),
    }
}

/// The guest's default limits with the config's overrides applied.
pub fn limits_for(source: &GuestSource, overrides: &LimitsOverride) -> GuestLimits {
    let mut limits = GuestLimits::default_for(source);
    if let Some(mb) = overrides.memory_mb {
        limits.memory_bytes = (mb as usize) << 20;
    }
    if let Some(ms) = overrides.call_timeout_ms {
        limits.call_deadline = std::time::Duration::from_millis(ms);
    }
    if let Some(n) = overrides.max_tool_calls {
        limits.returns.max_tool_calls = n as usize;
    }
    if let Some(mb) = overrides.max_completion_mb {
        limits.returns.max_completion_bytes = (mb as usize) << 20;
    }
    if let Some(ms) = overrides.max_delay_ms {
        limits.returns.max_delay = std::time::Duration::from_millis(ms);
    }
    limits
}

pub fn adapter_source(adapter: &GuestRef) -> Result<GuestSource> {
    match adapter {
        GuestRef::File(path) => Ok(GuestSource::file(path)),
        GuestRef::Builtin(name) => guests::builtin_adapter(name).with_context(|| {
            format!(
                "no built-in adapter '{name}' (built in: {}); give a .wasm path instead",
                guests::BUILTIN_ADAPTERS.join(", ")
            )
        }),
    }
}

pub fn listener_source(listener: &GuestRef) -> Result<GuestSource> {
    match listener {
        GuestRef::File(path) => Ok(GuestSource::file(path)),
        GuestRef::Builtin(name) => guests::builtin_listener(name).with_context(|| {
            format!(
                "no built-in listener '{name}' (built in: {}); use `wasm = \"path.wasm\"` for a listener component",
                guests::BUILTIN_LISTENERS.join(", ")
            )
        }),
    }
}
