//! The process-level assembly a CLI or an embedding program starts from: one engine, one transport,
//! the configured listeners loaded once, providers loaded on demand.

use crate::adapter::Adapter;
use crate::attempt::Provider;
use crate::config::{Config, GuestRef, ProviderConfig};
use crate::engine::GuestEngine;
use crate::guests::{self, GuestSource};
use crate::listener::Listener;
use crate::recovery::Recovery;
use crate::session::SessionDeps;
use crate::transport::Transport;
use anyhow::{Context, Result};
use std::sync::Arc;

pub struct Runtime {
    pub engine: GuestEngine,
    pub transport: Transport,
    pub config: Config,
    pub recovery: Arc<Recovery>,
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
            let listener = Listener::load(&engine, &source, &l.config_json)
                .await
                .with_context(|| format!("loading listener #{} ({})", i + 1, source.origin()))?;
            listeners.push(Arc::new(listener));
        }
        Ok(Runtime {
            engine,
            transport: Transport::new()?,
            config,
            recovery: Arc::new(Recovery::new(listeners, random_seed)),
        })
    }

    /// Loads the provider's adapter and reads its key from the environment.
    pub async fn provider(&self, config: ProviderConfig) -> Result<Arc<Provider>> {
        let source = adapter_source(&config.adapter)?;
        let adapter = Adapter::load(&self.engine, &source).await?;
        let credential = std::env::var(&config.api_key_env).ok();
        Ok(Arc::new(Provider::new(
            config,
            Arc::new(adapter),
            credential,
        )))
    }

    pub fn deps(&self, provider: Arc<Provider>) -> SessionDeps {
        SessionDeps {
            provider,
            transport: self.transport.clone(),
            recovery: self.recovery.clone(),
        }
    }
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
