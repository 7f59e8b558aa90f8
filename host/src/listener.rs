//! Recovery listeners: components of world `recovery-listener`, loaded and configured once, then
//! asked for a decision on each failure, each time in a fresh `Store` (a listener is pure, so a fresh
//! instance configured again decides exactly as a long-lived one would, and a fault cannot leak into
//! the next decision).

use crate::engine::{GuestEngine, GuestLimits, GuestState, WorldSpec, begin_call, root_cause};
use crate::failure::LlmFailure;
use crate::guests::GuestSource;
use anyhow::Result;
use wasmtime::Store;

mod bindings {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "recovery-listener",
        exports: { default: async },
        additional_derives: [serde::Serialize, serde::Deserialize, PartialEq],
        // One set of contract types for the whole host: the adapter's.
        with: { "dsh:llm/types": crate::adapter::bindings::dsh::llm::types },
    });
}

use bindings::RecoveryListenerPre;
pub use bindings::exports::dsh::llm::listener::{
    Decision, EarlierRetry, FailureContext, RetryDecision,
};

pub const LISTENER_WORLD: WorldSpec = WorldSpec {
    world: "recovery-listener",
    export: "dsh:llm/listener@0.1.0",
    use_instead: "list it under [[listeners]] only if it is a listener; an adapter belongs in `adapter = ...` of a provider",
};

/// A loaded, configured listener.
pub struct Listener {
    name: String,
    config_json: String,
    engine: GuestEngine,
    limits: GuestLimits,
    pre: RecoveryListenerPre<GuestState>,
}

impl Listener {
    /// Loads the component, asks its name, and configures it once with `config_json`: a listener that
    /// refuses its configuration is refused here, at start-up, with its own words.
    pub async fn load(engine: &GuestEngine, source: &GuestSource, config_json: &str, limits: GuestLimits) -> Result<Listener> {
        let (origin, instance_pre) = engine.prepare(source, &LISTENER_WORLD)?;
        let pre = RecoveryListenerPre::new(instance_pre).map_err(|e| {
            anyhow::anyhow!(
                "{origin} does not match world recovery-listener: {}",
                root_cause(&e)
            )
        })?;
        let mut listener = Listener {
            name: origin.clone(),
            config_json: config_json.to_string(),
            engine: engine.clone(),
            limits,
            pre,
        };
        let (mut store, bindings) = listener
            .instantiate()
            .await
            .map_err(|f| anyhow::anyhow!("{}", f.message))?;
        let call = begin_call(&mut store);
        let info = bindings
            .dsh_llm_listener()
            .call_info(&mut store)
            .await;
        drop(call);
        let info = info
            .map_err(|e| anyhow::anyhow!("{origin}: info failed: {}", root_cause(&e)))?;
        listener.name = info.name;
        drop(store);
        // Configure in a store of its own: the same path every decision takes.
        listener
            .configured()
            .await
            .map_err(|f| anyhow::anyhow!("{}", f.message))?;
        Ok(listener)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    async fn instantiate(
        &self,
    ) -> Result<(Store<GuestState>, bindings::RecoveryListener), LlmFailure> {
        let mut store = self.engine.new_store(&self.limits);
        let call = begin_call(&mut store);
        let bindings = self.pre.instantiate_async(&mut store).await;
        drop(call);
        let bindings = bindings.map_err(|e| {
            LlmFailure::adapter_fault(
                &self.name,
                format!("could not be instantiated: {}", root_cause(&e)),
            )
        })?;
        Ok((store, bindings))
    }

    /// A fresh instance with its configuration applied.
    async fn configured(
        &self,
    ) -> Result<(Store<GuestState>, bindings::RecoveryListener), LlmFailure> {
        let (mut store, bindings) = self.instantiate().await?;
        let call = begin_call(&mut store);
        let configured = bindings
            .dsh_llm_listener()
            .call_configure(&mut store, &self.config_json)
            .await;
        drop(call);
        match configured {
            Ok(Ok(())) => Ok((store, bindings)),
            Ok(Err(refusal)) => Err(LlmFailure::adapter_fault(
                &self.name,
                format!("refused its configuration {}: {refusal}", self.config_json),
            )),
            Err(e) => Err(LlmFailure::adapter_fault(
                &self.name,
                format!("configure failed: {}", root_cause(&e)),
            )),
        }
    }

    /// Asks for a decision. A listener that faults is reported as `ADAPTER_FAULT` naming it; the
    /// waterfall treats that as a give-up, never as a retry.
    pub async fn decide(&self, context: &FailureContext) -> Result<Decision, LlmFailure> {
        let (mut store, bindings) = self.configured().await?;
        let call = begin_call(&mut store);
        let decision = bindings
            .dsh_llm_listener()
            .call_on_failure(&mut store, context)
            .await
            .map_err(|e| {
                LlmFailure::adapter_fault(
                    &self.name,
                    format!("on-failure failed: {}", root_cause(&e)),
                )
            })?;
        drop(call);
        let cap = self.limits.returns.max_delay;
        match decision {
            Decision::Retry(retry) if u128::from(retry.delay_ms) > cap.as_millis() => Err(LlmFailure::adapter_fault(
                &self.name,
                format!(
                    "asked to wait {} ms before a retry, more than the cap max_delay_ms = {}; \
                     raise it in the listener's `limits` if such waits are meant",
                    retry.delay_ms,
                    cap.as_millis()
                ),
            )),
            decision => Ok(decision),
        }
    }
}
