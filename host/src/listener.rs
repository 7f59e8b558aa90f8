//! Recovery listeners: components of world `recovery-listener`, loaded and configured once, then
//! asked for a decision on each failure, each time in a fresh `Store` (a listener is pure, so a fresh
//! instance configured again decides exactly as a long-lived one would, and a fault cannot leak into
//! the next decision). A listener built for an older contract version is called through its own
//! bindings; `compat` converts the context down and the decision up.

use crate::compat::{ContractVersion, v0_1};
use crate::engine::{GuestEngine, GuestLimits, GuestState, WorldSpec, begin_call, root_cause};
use crate::failure::LlmFailure;
use crate::guests::GuestSource;
use anyhow::Result;
use wasmtime::Store;

mod bindings {
    wasmtime::component::bindgen!({
        path: "../wit/0.2.0",
        world: "recovery-listener",
        exports: { default: async },
        additional_derives: [PartialEq],
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
    interface: "dsh:llm/listener",
    use_instead: "list it under [[listeners]] only if it is a listener; an adapter belongs in `adapter = ...` of a provider",
};

/// A component linked for its contract version.
enum ListenerPre {
    V0_2(RecoveryListenerPre<GuestState>),
    V0_1(v0_1::RecoveryListenerPre<GuestState>),
}

/// One instance's exports, by contract version.
enum ListenerBindings {
    V0_2(bindings::RecoveryListener),
    V0_1(v0_1::RecoveryListener),
}

/// A loaded, configured listener.
pub struct Listener {
    name: String,
    config_json: String,
    version: ContractVersion,
    engine: GuestEngine,
    limits: GuestLimits,
    pre: ListenerPre,
}

impl Listener {
    /// Loads the component, asks its name, and configures it once with `config_json`: a listener that
    /// refuses its configuration is refused here, at start-up, with its own words.
    pub async fn load(
        engine: &GuestEngine,
        source: &GuestSource,
        config_json: &str,
        limits: GuestLimits,
    ) -> Result<Listener> {
        let (origin, version, instance_pre) = engine.prepare(source, &LISTENER_WORLD)?;
        let mismatch = |e: wasmtime::Error| {
            anyhow::anyhow!(
                "{origin} does not match world recovery-listener of {version}: {}",
                root_cause(&e)
            )
        };
        let pre = match version {
            ContractVersion::V0_2 => {
                ListenerPre::V0_2(RecoveryListenerPre::new(instance_pre).map_err(mismatch)?)
            }
            ContractVersion::V0_1 => {
                ListenerPre::V0_1(v0_1::RecoveryListenerPre::new(instance_pre).map_err(mismatch)?)
            }
        };
        let mut listener = Listener {
            name: origin.clone(),
            config_json: config_json.to_string(),
            version,
            engine: engine.clone(),
            limits,
            pre,
        };
        let (mut store, bindings) = listener
            .instantiate()
            .await
            .map_err(|f| anyhow::anyhow!("{}", f.message))?;
        let call = begin_call(&mut store);
        let name = match &bindings {
            ListenerBindings::V0_2(b) => b
                .dsh_llm_listener()
                .call_info(&mut store)
                .await
                .map(|i| i.name),
            ListenerBindings::V0_1(b) => b
                .dsh_llm_listener()
                .call_info(&mut store)
                .await
                .map(|i| i.name),
        };
        drop(call);
        let name =
            name.map_err(|e| anyhow::anyhow!("{origin}: info failed: {}", root_cause(&e)))?;
        listener.name = name;
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

    /// The contract version it was built for (the host adapts an older one).
    pub fn contract_version(&self) -> ContractVersion {
        self.version
    }

    async fn instantiate(&self) -> Result<(Store<GuestState>, ListenerBindings), LlmFailure> {
        let mut store = self.engine.new_store(&self.limits);
        let call = begin_call(&mut store);
        let bindings = match &self.pre {
            ListenerPre::V0_2(pre) => pre
                .instantiate_async(&mut store)
                .await
                .map(ListenerBindings::V0_2),
            ListenerPre::V0_1(pre) => pre
                .instantiate_async(&mut store)
                .await
                .map(ListenerBindings::V0_1),
        };
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
    async fn configured(&self) -> Result<(Store<GuestState>, ListenerBindings), LlmFailure> {
        let (mut store, bindings) = self.instantiate().await?;
        let call = begin_call(&mut store);
        let configured = match &bindings {
            ListenerBindings::V0_2(b) => {
                b.dsh_llm_listener()
                    .call_configure(&mut store, &self.config_json)
                    .await
            }
            ListenerBindings::V0_1(b) => {
                b.dsh_llm_listener()
                    .call_configure(&mut store, &self.config_json)
                    .await
            }
        };
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
        let decision = match &bindings {
            ListenerBindings::V0_2(b) => {
                b.dsh_llm_listener()
                    .call_on_failure(&mut store, context)
                    .await
            }
            ListenerBindings::V0_1(b) => b
                .dsh_llm_listener()
                .call_on_failure(&mut store, &v0_1::failure_context(context))
                .await
                .map(v0_1::decision),
        }
        .map_err(|e| {
            LlmFailure::adapter_fault(&self.name, format!("on-failure failed: {}", root_cause(&e)))
        })?;
        drop(call);
        let cap = self.limits.returns.max_delay;
        match decision {
            Decision::Retry(retry) if u128::from(retry.delay_ms) > cap.as_millis() => {
                Err(LlmFailure::adapter_fault(
                    &self.name,
                    format!(
                        "asked to wait {} ms before a retry, more than the cap max_delay_ms = {}; \
                     raise it in the listener's `limits` if such waits are meant",
                        retry.delay_ms,
                        cap.as_millis()
                    ),
                ))
            }
            decision => Ok(decision),
        }
    }
}
