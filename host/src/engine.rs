//! The one wasmtime `Engine` of the process, narrowed to what dsh-host needs: engine configuration,
//! the epoch ticker that bounds guest CPU time, the compiled-code cache, and per-store limits.
//!
//! Nothing here knows what an adapter or a listener is; `adapter` and (later) `listener` build on it.

use crate::guests::GuestSource;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use wasmtime::component::{Component, InstancePre, Linker, ResourceTable};
use wasmtime::{
    Config, Engine, ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder, UpdateDeadline,
};
use crate::output::CapturedOutput;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// How often the epoch advances. A guest call yields to tokio at every tick, so a busy guest never
/// holds a worker thread for longer than this.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Limits applied to each store of one guest (one store per attempt or decision).
#[derive(Debug, Clone)]
pub struct GuestLimits {
    /// Wall-clock budget of one call into the guest, counted in epoch ticks.
    pub call_deadline: Duration,
    /// Linear memory cap per instance, in bytes.
    pub memory_bytes: usize,
    /// How much guest stdout/stderr is kept (the rest faults the guest).
    pub output_bytes: usize,
}

impl GuestLimits {
    /// First-party Rust guests are small: a tight cap catches a runaway allocation early.
    pub const BUILTIN_MEMORY_BYTES: usize = 64 << 20;
    /// Third-party guests may be Python or JavaScript components, whose runtimes need far more.
    pub const FILE_MEMORY_BYTES: usize = 512 << 20;
    /// A generous budget per call: real guests answer in micro- to milliseconds.
    pub const CALL_DEADLINE: Duration = Duration::from_secs(10);
    pub const OUTPUT_BYTES: usize = 64 << 10;

    /// The defaults for a guest from `source`.
    pub fn default_for(source: &GuestSource) -> Self {
        let memory_bytes = match source {
            GuestSource::Embedded { .. } => Self::BUILTIN_MEMORY_BYTES,
            GuestSource::File(_) => Self::FILE_MEMORY_BYTES,
        };
        GuestLimits { call_deadline: Self::CALL_DEADLINE, memory_bytes, output_bytes: Self::OUTPUT_BYTES }
    }
}

/// The state each guest store owns: an empty WASI context (nothing granted) and its limits.
pub struct GuestState {
    wasi: WasiCtx,
    table: ResourceTable,
    limits: StoreLimits,
    output: CapturedOutput,
}

impl GuestState {
    fn new(limits: &GuestLimits) -> Self {
        let output = CapturedOutput::new(limits.output_bytes);
        // No preopens, no environment, no arguments, no network: the guest can only compute.
        let wasi = WasiCtxBuilder::new()
            .stdout(output.clone())
            .stderr(output.clone())
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .build();
        GuestState {
            wasi,
            table: ResourceTable::new(),
            limits: StoreLimitsBuilder::new()
                .memory_size(limits.memory_bytes)
                .trap_on_grow_failure(true)
                .build(),
            output,
        }
    }

    /// What the guest printed (stdout and stderr, interleaved), lossily decoded.
    pub fn captured_output(&self) -> String {
        self.output.text()
    }

    fn limiter(&mut self) -> &mut dyn ResourceLimiter {
        &mut self.limits
    }
}

impl WasiView for GuestState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// The process-wide engine plus its compiled-code cache.
#[derive(Clone)]
pub struct GuestEngine {
    inner: Arc<EngineInner>,
}

struct EngineInner {
    engine: Engine,
    cache: Option<CompileCache>,
    ticker_stop: Arc<AtomicBool>,
}

impl Drop for EngineInner {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}

impl GuestEngine {
    /// `cache_dir`: where compiled code is kept (`None` disables the cache).
    pub fn new(cache_dir: Option<PathBuf>) -> Result<Self> {
        let mut config = Config::new();
        config.epoch_interruption(true);
        config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(instance_pool()));
        config.wasm_component_model(true);
        let engine = Engine::new(&config)
            .map_err(|e| anyhow::anyhow!("configuring the wasmtime engine: {}", root_cause(&e)))?;

        // The ticker is a plain thread: it must keep ticking even when every tokio worker is busy.
        let ticker_stop = Arc::new(AtomicBool::new(false));
        let (weak_engine, stop) = (engine.weak(), ticker_stop.clone());
        std::thread::Builder::new()
            .name("dsh-epoch-ticker".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(EPOCH_TICK);
                    match weak_engine.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })
            .context("starting the epoch ticker thread")?;

        let cache = cache_dir.map(|dir| CompileCache::new(dir, &engine));
        Ok(GuestEngine {
            inner: Arc::new(EngineInner {
                engine,
                cache,
                ticker_stop,
            }),
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// Compiles `bytes` (named `origin` in errors), or loads its compiled code from the cache.
    pub fn compile(&self, origin: &str, bytes: &[u8]) -> Result<Component> {
        if !bytes.starts_with(b"\0asm") {
            anyhow::bail!(
                "{origin} is not a WebAssembly file (it does not start with the \\0asm magic); \
                 build the guest for wasm32-wasip2 or point --adapter at its .wasm output"
            );
        }
        if let Some(cache) = &self.inner.cache
            && let Some(component) = cache.load(&self.inner.engine, bytes)
        {
            return Ok(component);
        }
        let compiled = self.inner.engine.precompile_component(bytes).map_err(|e| {
            anyhow::anyhow!(
                "{origin} is not a valid WebAssembly component: {}",
                root_cause(&e)
            )
        })?;
        if let Some(cache) = &self.inner.cache
            && let Err(e) = cache.store(bytes, &compiled)
        {
            tracing::warn!("could not write the compiled-code cache: {e:#}");
        }
        // SAFETY: `compiled` was produced just now by this very engine.
        unsafe { Component::deserialize(&self.inner.engine, &compiled) }.map_err(|e| {
            anyhow::anyhow!(
                "loading the code just compiled for {origin}: {}",
                root_cause(&e)
            )
        })
    }

    /// Loads a guest for `world`: compiles it (or takes it from the cache), checks that it exports
    /// the world's interface at this host's version, and links its WASI imports with nothing
    /// granted. Returns the guest's origin (for messages) and its `InstancePre`.
    pub fn prepare(
        &self,
        source: &GuestSource,
        world: &WorldSpec,
    ) -> Result<(String, InstancePre<GuestState>)> {
        let origin = source.origin();
        let bytes = source.read()?;
        let component = self.compile(&origin, &bytes)?;
        world.check(self.engine(), &component, &origin)?;

        let mut linker: Linker<GuestState> = Linker::new(self.engine());
        // Rust guests import WASI (stdio, environment, exit) even when they never use it; the context
        // behind these imports grants nothing (see `GuestState::new`).
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)
            .map_err(|e| anyhow::anyhow!("linking WASI: {}", root_cause(&e)))?;
        let instance_pre = linker.instantiate_pre(&component).map_err(|e| {
            // The whole chain: the outer layers name the import, the innermost says what is wrong.
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            anyhow::anyhow!(
                "{origin} cannot be loaded: {}. dsh-host offers guests only WASI 0.2 with nothing \
                 granted (no network, no files, no environment); rebuild the guest without that import",
                chain.join(": ")
            )
        })?;
        Ok((origin, instance_pre))
    }

    /// A fresh store for one attempt, with its memory cap and CPU deadline armed.
    ///
    /// Every new store starts at epoch deadline 0, so the deadline must be set here, every time. The
    /// callback yields to tokio at each tick and traps once the call's budget is spent.
    pub fn new_store(&self, limits: &GuestLimits) -> Store<GuestState> {
        let mut store = Store::new(&self.inner.engine, GuestState::new(limits));
        store.limiter(GuestState::limiter);
        let budget_ticks =
            (limits.call_deadline.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64;
        let mut spent = 0u64;
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |_| {
            spent += 1;
            if spent >= budget_ticks {
                Ok(UpdateDeadline::Interrupt)
            } else {
                Ok(UpdateDeadline::Yield(1))
            }
        });
        store
    }
}

/// The pool every guest instance is allocated from: slots are reserved once and reused, which makes a
/// fresh instance per attempt about twice as cheap as mapping its memory anew (see BENCHMARKS.md).
///
/// Sizing: up to [`POOL_INSTANCES`] guest instances at once in a process (about that many concurrent
/// attempts, plus brief listener decisions), and room for the largest guests (a Python or JavaScript
/// runtime has many modules and large function tables). A memory slot is address space sized for the
/// 4 GiB a config may allow (the per-guest cap is the store limiter's); 2,000 slots reserve about
/// 8 TiB of the 128 TiB a 64-bit process has, and commit nothing until used. An attempt that finds
/// the pool full fails as ADAPTER_FAULT saying so.
fn instance_pool() -> wasmtime::PoolingAllocationConfig {
    let mut pool = wasmtime::PoolingAllocationConfig::new();
    pool.total_component_instances(POOL_INSTANCES)
        .total_core_instances(10 * POOL_INSTANCES)
        .total_memories(POOL_INSTANCES)
        .total_tables(POOL_INSTANCES)
        .total_stacks(POOL_INSTANCES)
        .max_tables_per_module(4)
        .max_memories_per_module(2)
        .table_elements(200_000)
        .max_memory_size(4 << 30);
    pool
}

/// Guest instances (and memories, tables, async stacks) that can be alive at once in one process.
pub const POOL_INSTANCES: u32 = 2_000;

/// A world of the dsh:llm contract, as far as loading needs to know it.
pub struct WorldSpec {
    pub world: &'static str,
    /// The interface a component of this world exports, with the version this host speaks.
    pub export: &'static str,
    /// What to do with a component that is not of this world.
    pub use_instead: &'static str,
}

/// The package's interfaces, to recognise a component of the other world.
const KNOWN_EXPORTS: &[(&str, &str)] = &[
    (
        "dsh:llm/adapter@",
        "a provider adapter (world provider-adapter)",
    ),
    (
        "dsh:llm/listener@",
        "a recovery listener (world recovery-listener)",
    ),
];

impl WorldSpec {
    /// Names exactly what is wrong when a component does not export this world at this version.
    pub fn check(&self, engine: &Engine, component: &Component, origin: &str) -> Result<()> {
        let exports: Vec<String> = component
            .component_type()
            .exports(engine)
            .map(|(name, _)| name.to_string())
            .collect();
        if exports.iter().any(|e| e == self.export) {
            return Ok(());
        }
        let unversioned = self.export.split('@').next().unwrap_or(self.export);
        if let Some(other) = exports
            .iter()
            .find(|e| e.split('@').next() == Some(unversioned))
        {
            anyhow::bail!(
                "{origin} was built for {other}, but this dsh-host speaks {}; rebuild it against the \
                 wit/ directory of this release",
                self.export
            );
        }
        for (prefix, what) in KNOWN_EXPORTS {
            if exports.iter().any(|e| e.starts_with(prefix)) {
                anyhow::bail!(
                    "{origin} is {what}, not what is needed here (world {}); {}",
                    self.world,
                    self.use_instead
                );
            }
        }
        let listed = if exports.is_empty() {
            "nothing".to_string()
        } else {
            exports.join(", ")
        };
        anyhow::bail!(
            "{origin} is not of world {}: it must export {} (see wit/), but it exports {listed}",
            self.world,
            self.export
        )
    }
}

/// Compiled code on disk, keyed by the component's hash and the engine's compatibility hash, so a
/// second start does not recompile and an upgraded wasmtime never loads stale code.
struct CompileCache {
    dir: PathBuf,
    engine_key: String,
}

impl CompileCache {
    fn new(dir: PathBuf, engine: &Engine) -> Self {
        let mut hasher = StableHasher(Sha256::new());
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_key = hex::encode(&hasher.0.finalize()[..8]);
        CompileCache { dir, engine_key }
    }

    fn path_for(&self, bytes: &[u8]) -> PathBuf {
        let digest = hex::encode(Sha256::digest(bytes));
        self.dir
            .join(format!("{}-{}.cwasm", &digest[..32], self.engine_key))
    }

    fn load(&self, engine: &Engine, bytes: &[u8]) -> Option<Component> {
        let path = self.path_for(bytes);
        // Read into memory rather than `deserialize_file`: that one maps the file, and a cache file
        // truncated or rewritten in place by anyone while we run would then kill the process with
        // SIGBUS. A read costs a few milliseconds for the largest guests; a crash costs a session.
        let compiled = std::fs::read(&path).ok()?;
        // SAFETY: the file was written by `store` below from this engine's own output, under a name
        // that binds it to both the source bytes and the engine's compatibility hash. wasmtime still
        // checks its header; a corrupt or foreign file is an error, handled by recompiling.
        match unsafe { Component::deserialize(engine, &compiled) } {
            Ok(component) => Some(component),
            Err(e) => {
                tracing::warn!(
                    "ignoring unusable cached code {}: {}",
                    path.display(),
                    root_cause(&e)
                );
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    fn store(&self, bytes: &[u8], compiled: &[u8]) -> Result<()> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("creating {}", self.dir.display()))?;
        let path = self.path_for(bytes);
        // Write then rename: a crash never leaves a half-written file under the final name.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, compiled).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &path)
            .with_context(|| format!("renaming into {}", path.display()))?;
        Ok(())
    }
}

/// Adapts `Sha256` to `std::hash::Hasher` so wasmtime's `impl Hash` can be digested stably.
struct StableHasher(Sha256);

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        unreachable!("only the digest is used")
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// The default cache directory: `$DSH_CACHE_DIR`, else `$XDG_CACHE_HOME/dsh-host`, else
/// `~/.cache/dsh-host`, with `compiled/` below it.
pub fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("DSH_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| Path::new(&d).join("dsh-host")))
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/dsh-host")))?;
    Some(base.join("compiled"))
}

/// The innermost cause of a wasmtime error, in plain words (no wasm backtrace dump).
pub fn root_cause(error: &wasmtime::Error) -> String {
    if let Some(trap) = error.downcast_ref::<wasmtime::Trap>() {
        return describe_trap(*trap);
    }
    for cause in error.chain() {
        if let Some(trap) = cause.downcast_ref::<wasmtime::Trap>() {
            return describe_trap(*trap);
        }
    }
    error
        .chain()
        .last()
        .map(|c| c.to_string())
        .unwrap_or_else(|| error.to_string())
}

fn describe_trap(trap: wasmtime::Trap) -> String {
    use wasmtime::Trap;
    match trap {
        Trap::Interrupt => "exceeded its CPU time limit per call and was stopped".into(),
        Trap::StackOverflow => "overflowed its stack".into(),
        Trap::UnreachableCodeReached => {
            "trapped (unreachable code reached: usually a panic or abort in the guest)".into()
        }
        // A Rust or C guest keeps its stack in linear memory: overflowing it runs below address 0.
        Trap::MemoryOutOfBounds => "trapped: out-of-bounds memory access (in Rust and C guests usually a stack overflow)".into(),
        Trap::AllocationTooLarge => "exceeded its memory limit".into(),
        other => format!("trapped: {other}"),
    }
}
