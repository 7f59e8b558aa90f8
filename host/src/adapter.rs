//! Provider adapters: loading a component of world `provider-adapter`, checking it, and calling it
//! with a fresh `Store` per attempt. A component built for an older contract version is called
//! through its own bindings, and what crosses is converted by `compat`; the rest of the host only
//! ever sees the newest contract's types, re-exported here.
//!
//! Host errors (cannot read the file, wrong world) are `anyhow` errors at load time. Guest errors
//! during an attempt (trap, limit exceeded, bad output) are `LlmFailure`s with code `ADAPTER_FAULT`,
//! always prefixed with the guest's name. A store that faulted is never entered again.

use crate::compat::{ContractVersion, GuestInfo, v0_1};
use crate::engine::{GuestEngine, GuestLimits, GuestState, WorldSpec, begin_call, root_cause};
use crate::failure::LlmFailure;
use crate::guests::GuestSource;
use anyhow::Result;
use wasmtime::Store;
use wasmtime::component::ResourceAny;

/// The newest contract (wit/0.2.0): its types are the host's own ([`crate::wire`] adds what the
/// host needs beyond the generated code, including their form in the session log).
pub(crate) mod bindings {
    wasmtime::component::bindgen!({
        path: "../wit/0.2.0",
        world: "provider-adapter",
        exports: { default: async },
        additional_derives: [PartialEq],
    });
}

use bindings::ProviderAdapterPre;
pub use bindings::dsh::llm::types::LlmFailure as WitFailure;
pub use bindings::dsh::llm::types::{
    Chunk, CompletionRequest, ContentPart, Endpoint, FailureCode, Finish, FinishKind,
    GenerationOptions, HttpPlan, JsonSchemaFormat, Message, ReasoningEffort, ResponseFormat,
    ResponseHead, Role, ToolCall, ToolCallDelta, ToolSpec, Usage,
};

/// What a component must export to be an adapter (at a version this host supports).
pub const ADAPTER_WORLD: WorldSpec = WorldSpec {
    world: "provider-adapter",
    interface: "dsh:llm/adapter",
    use_instead: "pass an adapter to --adapter, or set `adapter = ...` under [providers.NAME]",
};

/// A component linked for its contract version.
enum AdapterPre {
    V0_2(ProviderAdapterPre<GuestState>),
    V0_1(v0_1::ProviderAdapterPre<GuestState>),
}

/// One instance's exports, by contract version.
enum AdapterBindings {
    V0_2(bindings::ProviderAdapter),
    V0_1(v0_1::ProviderAdapter),
}

/// A loaded, linked adapter component. Cheap to instantiate: one per attempt.
pub struct Adapter {
    name: String,
    origin: String,
    version: ContractVersion,
    engine: GuestEngine,
    limits: GuestLimits,
    pre: AdapterPre,
}

impl Adapter {
    /// Compiles (or loads from the cache), checks the world, links WASI with nothing granted, and asks
    /// the guest its name.
    pub async fn load(
        engine: &GuestEngine,
        source: &GuestSource,
        limits: GuestLimits,
    ) -> Result<Adapter> {
        let (origin, version, instance_pre) = engine.prepare(source, &ADAPTER_WORLD)?;
        let mismatch = |e: wasmtime::Error| {
            anyhow::anyhow!(
                "{origin} does not match world provider-adapter of {version}: {}",
                root_cause(&e)
            )
        };
        let pre = match version {
            ContractVersion::V0_2 => {
                AdapterPre::V0_2(ProviderAdapterPre::new(instance_pre).map_err(mismatch)?)
            }
            ContractVersion::V0_1 => {
                AdapterPre::V0_1(v0_1::ProviderAdapterPre::new(instance_pre).map_err(mismatch)?)
            }
        };

        let mut adapter = Adapter {
            name: origin.clone(),
            origin,
            version,
            engine: engine.clone(),
            limits,
            pre,
        };
        let mut instance = adapter
            .instantiate()
            .await
            .map_err(|f| anyhow::anyhow!("{}", f.message))?;
        let info = instance
            .info()
            .await
            .map_err(|f| anyhow::anyhow!("{}", f.message))?;
        adapter.name = info.name;
        Ok(adapter)
    }

    /// The name the guest gives itself (`info().name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where it came from (a path or a built-in name).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The contract version it was built for (the host adapts an older one).
    pub fn contract_version(&self) -> ContractVersion {
        self.version
    }

    pub fn limits(&self) -> &GuestLimits {
        &self.limits
    }

    /// A fresh instance in a fresh store, for exactly one attempt.
    pub async fn instantiate(&self) -> Result<AdapterInstance, LlmFailure> {
        let mut store = self.engine.new_store(&self.limits);
        let call = begin_call(&mut store);
        let bindings = match &self.pre {
            AdapterPre::V0_2(pre) => pre
                .instantiate_async(&mut store)
                .await
                .map(AdapterBindings::V0_2),
            AdapterPre::V0_1(pre) => pre
                .instantiate_async(&mut store)
                .await
                .map(AdapterBindings::V0_1),
        };
        drop(call);
        let bindings = bindings.map_err(|e| {
            LlmFailure::adapter_fault(
                &self.name,
                format!("could not be instantiated: {}", root_cause(&e)),
            )
        })?;
        Ok(AdapterInstance {
            name: self.name.clone(),
            store,
            bindings,
            decoder: None,
            faulted: None,
        })
    }
}

/// One adapter instance, owned by one attempt. Every call either succeeds or poisons the instance:
/// after a fault, later calls return the same fault without entering the store again.
pub struct AdapterInstance {
    name: String,
    store: Store<GuestState>,
    bindings: AdapterBindings,
    decoder: Option<ResourceAny>,
    faulted: Option<LlmFailure>,
}

impl AdapterInstance {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The high-water mark of this instance's linear memory, in bytes.
    pub fn peak_memory_bytes(&self) -> usize {
        self.store.data().peak_memory_bytes()
    }

    fn guard(&self) -> Result<(), LlmFailure> {
        match &self.faulted {
            Some(f) => Err(f.clone()),
            None => Ok(()),
        }
    }

    fn fault(&mut self, call: &str, error: wasmtime::Error) -> LlmFailure {
        let mut what = format!("{call} failed: {}", root_cause(&error));
        let output = self.store.data().captured_output();
        if !output.trim().is_empty() {
            let tail: String = output
                .chars()
                .rev()
                .take(500)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            what.push_str(&format!(" (guest output: {})", tail.trim()));
        }
        let failure = LlmFailure::adapter_fault(&self.name, what);
        self.faulted = Some(failure.clone());
        failure
    }

    pub async fn info(&mut self) -> Result<GuestInfo, LlmFailure> {
        self.guard()?;
        let _call = begin_call(&mut self.store);
        let result =
            match &self.bindings {
                AdapterBindings::V0_2(b) => b
                    .dsh_llm_adapter()
                    .call_info(&mut self.store)
                    .await
                    .map(|i| GuestInfo {
                        name: i.name,
                        version: i.version,
                    }),
                AdapterBindings::V0_1(b) => b
                    .dsh_llm_adapter()
                    .call_info(&mut self.store)
                    .await
                    .map(|i| GuestInfo {
                        name: i.name,
                        version: i.version,
                    }),
            };
        result.map_err(|e| self.fault("info", e))
    }

    /// Asks the adapter how to send `request`. An `Err` from the guest itself is a request the
    /// provider could never accept; a request an older adapter's contract cannot carry is refused
    /// before the guest is called (`compat`).
    pub async fn plan_request(
        &mut self,
        endpoint: &Endpoint,
        request: &CompletionRequest,
    ) -> Result<HttpPlan, LlmFailure> {
        self.guard()?;
        let result = match &self.bindings {
            AdapterBindings::V0_2(b) => {
                let _call = begin_call(&mut self.store);
                b.dsh_llm_adapter()
                    .call_plan_request(&mut self.store, endpoint, request)
                    .await
                    .map(|r| r.map_err(LlmFailure::from))
            }
            AdapterBindings::V0_1(b) => {
                let request = v0_1::request(&self.name, request)?;
                let _call = begin_call(&mut self.store);
                b.dsh_llm_adapter()
                    .call_plan_request(&mut self.store, &v0_1::endpoint(endpoint), &request)
                    .await
                    .map(|r| r.map(v0_1::http_plan).map_err(v0_1::failure))
            }
        };
        match result {
            Ok(Ok(plan)) => Ok(plan),
            Ok(Err(failure)) => Err(LlmFailure::from_guest(&self.name, failure)),
            Err(e) => Err(self.fault("plan-request", e)),
        }
    }

    pub async fn classify_failure(&mut self, head: &ResponseHead, body: &[u8]) -> LlmFailure {
        if let Err(f) = self.guard() {
            return f;
        }
        let _call = begin_call(&mut self.store);
        let result = match &self.bindings {
            AdapterBindings::V0_2(b) => b
                .dsh_llm_adapter()
                .call_classify_failure(&mut self.store, head, body)
                .await
                .map(LlmFailure::from),
            AdapterBindings::V0_1(b) => b
                .dsh_llm_adapter()
                .call_classify_failure(&mut self.store, &v0_1::response_head(head), body)
                .await
                .map(v0_1::failure),
        };
        match result {
            Ok(failure) => LlmFailure::from_guest(&self.name, failure),
            Err(e) => self.fault("classify-failure", e),
        }
    }

    pub async fn open_decoder(&mut self, head: &ResponseHead) -> Result<(), LlmFailure> {
        self.guard()?;
        let _call = begin_call(&mut self.store);
        let result = match &self.bindings {
            AdapterBindings::V0_2(b) => {
                b.dsh_llm_adapter()
                    .decoder()
                    .call_constructor(&mut self.store, head)
                    .await
            }
            AdapterBindings::V0_1(b) => {
                b.dsh_llm_adapter()
                    .decoder()
                    .call_constructor(&mut self.store, &v0_1::response_head(head))
                    .await
            }
        };
        let decoder = result.map_err(|e| self.fault("decoder constructor", e))?;
        self.decoder = Some(decoder);
        Ok(())
    }

    /// Feeds one network read to the decoder.
    pub async fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Chunk>, LlmFailure> {
        self.guard()?;
        let decoder = self.decoder.expect("open_decoder before feed");
        let _call = begin_call(&mut self.store);
        let result = match &self.bindings {
            AdapterBindings::V0_2(b) => b
                .dsh_llm_adapter()
                .decoder()
                .call_feed(&mut self.store, decoder, bytes)
                .await
                .map(Ok),
            AdapterBindings::V0_1(b) => b
                .dsh_llm_adapter()
                .decoder()
                .call_feed(&mut self.store, decoder, bytes)
                .await
                .map(|chunks| v0_1::chunks(&self.name, chunks)),
        };
        let chunks = result.map_err(|e| self.fault("decoder.feed", e))?;
        self.checked("decoder.feed", chunks)
    }

    /// Tells the decoder the body is complete.
    pub async fn end(&mut self) -> Result<Vec<Chunk>, LlmFailure> {
        self.guard()?;
        let decoder = self.decoder.expect("open_decoder before end");
        let _call = begin_call(&mut self.store);
        let result = match &self.bindings {
            AdapterBindings::V0_2(b) => b
                .dsh_llm_adapter()
                .decoder()
                .call_end(&mut self.store, decoder)
                .await
                .map(Ok),
            AdapterBindings::V0_1(b) => b
                .dsh_llm_adapter()
                .decoder()
                .call_end(&mut self.store, decoder)
                .await
                .map(|chunks| v0_1::chunks(&self.name, chunks)),
        };
        let chunks = result.map_err(|e| self.fault("decoder.end", e))?;
        self.checked("decoder.end", chunks)
    }

    /// Chunks that could not be taken up from an older contract (a code it could not type) fault
    /// the instance like any other guest misbehaviour.
    fn checked(
        &mut self,
        call: &str,
        chunks: Result<Vec<Chunk>, LlmFailure>,
    ) -> Result<Vec<Chunk>, LlmFailure> {
        match chunks {
            Ok(chunks) => self.check_size(call, chunks),
            Err(failure) => {
                self.faulted = Some(failure.clone());
                Err(failure)
            }
        }
    }

    /// A decoder turns network reads into chunks of about their size; one that returns far more is
    /// broken or hostile, and its output is not passed on.
    fn check_size(&mut self, call: &str, chunks: Vec<Chunk>) -> Result<Vec<Chunk>, LlmFailure> {
        let bytes: usize = chunks.iter().map(chunk_bytes).sum();
        if bytes > MAX_CHUNK_BYTES_PER_CALL {
            let failure = LlmFailure::adapter_fault(
                &self.name,
                format!(
                    "{call} returned {:.1} MiB of chunks at once; the limit is {} MiB",
                    bytes as f64 / (1 << 20) as f64,
                    MAX_CHUNK_BYTES_PER_CALL >> 20
                ),
            );
            self.faulted = Some(failure.clone());
            return Err(failure);
        }
        Ok(chunks)
    }
}

/// The most chunk data one decoder call may return.
pub const MAX_CHUNK_BYTES_PER_CALL: usize = 16 << 20;

fn chunk_bytes(chunk: &Chunk) -> usize {
    match chunk {
        Chunk::Text(t) | Chunk::Reasoning(t) | Chunk::Progress(t) | Chunk::ProviderData(t) => {
            t.len()
        }
        Chunk::ToolCall(d) => {
            d.arguments.len()
                + d.id.as_ref().map_or(0, String::len)
                + d.name.as_ref().map_or(0, String::len)
                + d.provider_data.as_ref().map_or(0, String::len)
        }
        Chunk::Usage(_) => 0,
        Chunk::Finish(f) => f.failure.as_ref().map_or(0, |x| x.message.len()),
    }
}
