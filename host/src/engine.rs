//! The one wasmtime `Engine` of the process, narrowed to what dsh-host needs: engine configuration,
//! the epoch ticker that bounds guest CPU time, the compiled-code cache (kept by `code_cache`), and
//! per-store limits.
//!
//! Nothing here knows what an adapter or a listener is; `adapter` and (later) `listener` build on it.

use crate::code_cache::CodeCache;
use crate::compat::ContractVersion;
use crate::guests::GuestSource;
use crate::output::CapturedOutput;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use wasmtime::component::{Component, InstancePre, Linker, ResourceTable};
use wasmtime::{
    Config, Engine, ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder, UpdateDeadline,
};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// How often the epoch advances while a guest runs. A guest call yields to tokio at every tick, so a
/// busy guest never holds a worker thread for longer than this.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Limits applied to each store of one guest (one store per attempt or decision).
#[derive(Debug, Clone)]
pub struct GuestLimits {
    /// CPU budget of one call into the guest (plan, classify, feed, end, configure, decide, and the
    /// instantiation itself): counted in epoch ticks that pass while that call's code runs, afresh
    /// at every call. Time in which the guest is not running (the host waiting on the network, or
    /// the call parked behind other tasks after a yield) is never counted.
    pub call_deadline: Duration,
    /// Linear memory cap per instance, in bytes.
    pub memory_bytes: usize,
    /// How much guest stdout/stderr is kept (the rest faults the guest).
    pub output_bytes: usize,
    /// The host's caps on what the guest returns.
    pub returns: ReturnCaps,
}

/// The host's caps on what a guest may return, whatever its memory allows: a hostile or broken guest
/// must not make the host assemble, keep and log without bound. Exceeding one is `ADAPTER_FAULT`
/// naming the guest and the cap. Each is configurable (`adapter_limits`, a listener's `limits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReturnCaps {
    /// Distinct tool calls in one completion (an adapter's).
    pub max_tool_calls: usize,
    /// Text, reasoning and tool-call bytes of one completion together (an adapter's).
    pub max_completion_bytes: usize,
    /// The longest wait one retry decision may ask for (a listener's).
    pub max_delay: Duration,
}

impl ReturnCaps {
    /// OpenAI accepts at most 128 tools in a request; real completions call a handful.
    pub const MAX_TOOL_CALLS: usize = 128;
    /// About four million tokens: far beyond any model's output, well below what hurts the host.
    pub const MAX_COMPLETION_BYTES: usize = 16 << 20;
    /// A single wait longer than an hour looks like a hang to everyone waiting on it.
    pub const MAX_DELAY: Duration = Duration::from_secs(3600);
}

impl Default for ReturnCaps {
    fn default() -> Self {
        ReturnCaps {
            max_tool_calls: Self::MAX_TOOL_CALLS,
            max_completion_bytes: Self::MAX_COMPLETION_BYTES,
            max_delay: Self::MAX_DELAY,
        }
    }
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
        GuestLimits {
            call_deadline: Self::CALL_DEADLINE,
            memory_bytes,
            output_bytes: Self::OUTPUT_BYTES,
            returns: ReturnCaps::default(),
        }
    }
}

/// The state each guest store owns: an empty WASI context (nothing granted), its limits, and the
/// CPU budget of the call in progress.
pub struct GuestState {
    wasi: WasiCtx,
    table: ResourceTable,
    limits: PeakLimiter,
    output: CapturedOutput,
    ticker: Arc<Ticker>,
    /// The budget of one call, in ticks, and the ticks the call in progress has run for.
    budget_ticks: u64,
    spent_ticks: u64,
}

impl GuestState {
    fn new(limits: &GuestLimits, ticker: Arc<Ticker>) -> Self {
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
            limits: PeakLimiter {
                limits: StoreLimitsBuilder::new()
                    .memory_size(limits.memory_bytes)
                    .trap_on_grow_failure(true)
                    .build(),
                peak_memory_bytes: 0,
            },
            output,
            ticker,
            budget_ticks: (limits.call_deadline.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64,
            spent_ticks: 0,
        }
    }

    /// What the guest printed (stdout and stderr, interleaved), lossily decoded.
    pub fn captured_output(&self) -> String {
        self.output.text()
    }

    /// The largest a linear memory of this store has grown to (its high-water mark), in bytes.
    pub fn peak_memory_bytes(&self) -> usize {
        self.limits.peak_memory_bytes
    }

    fn limiter(&mut self) -> &mut dyn ResourceLimiter {
        &mut self.limits
    }
}

/// The store's limits, recording the high-water mark of linear memory on the way (`dsh-host
/// check` reports it). Memory only grows, so the last growth allowed is the peak; recording it costs
/// nothing between growths.
struct PeakLimiter {
    limits: StoreLimits,
    peak_memory_bytes: usize,
}

impl ResourceLimiter for PeakLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.limits.memory_growing(current, desired, maximum)?;
        if allowed {
            self.peak_memory_bytes = self.peak_memory_bytes.max(desired);
        }
        Ok(allowed)
    }

    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.limits.memory_grow_failed(error)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn table_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.limits.table_grow_failed(error)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
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
    cache: Option<CodeCache>,
    ticker: Arc<Ticker>,
}

impl Drop for EngineInner {
    fn drop(&mut self) {
        self.ticker.stop();
    }
}

/// The epoch ticker's schedule: it ticks only while at least one guest call is in progress, and
/// sleeps on a condition variable otherwise, so an idle host (a backoff, a slow stream between
/// reads, a gateway with no traffic) is not woken 200 times a second.
///
/// The ticker is a plain thread rather than a tokio task: it must keep ticking when every tokio
/// worker is busy running a guest.
pub struct Ticker {
    state: Mutex<TickerState>,
    wake: Condvar,
    ticks: AtomicU64,
}

struct TickerState {
    running_calls: usize,
    stopped: bool,
}

impl Ticker {
    fn new() -> Arc<Self> {
        Arc::new(Ticker {
            state: Mutex::new(TickerState {
                running_calls: 0,
                stopped: false,
            }),
            wake: Condvar::new(),
            ticks: AtomicU64::new(0),
        })
    }

    /// Epoch ticks so far in this process (for tests and diagnostics).
    pub fn ticks(&self) -> u64 {
        self.ticks.load(Ordering::Relaxed)
    }

    fn call_started(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.running_calls += 1;
        if state.running_calls == 1 {
            self.wake.notify_one();
        }
    }

    fn call_ended(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.running_calls = state.running_calls.saturating_sub(1);
    }

    fn stop(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stopped = true;
        self.wake.notify_one();
    }

    /// The thread's loop: park while no guest call runs, else advance the epoch every tick.
    fn run(&self, engine: wasmtime::EngineWeak) {
        loop {
            {
                let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                while state.running_calls == 0 && !state.stopped {
                    state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                }
                if state.stopped {
                    return;
                }
            }
            std::thread::sleep(EPOCH_TICK);
            match engine.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => return,
            }
            self.ticks.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One call into a guest, from entry to return (or to the drop of its future): while it lives, the
/// ticker runs. Made by [`begin_call`], which also gives the call its fresh CPU budget.
#[must_use = "the call's budget and the ticker hold only while the guard lives"]
pub struct GuestCall {
    ticker: Arc<Ticker>,
}

impl Drop for GuestCall {
    fn drop(&mut self) {
        self.ticker.call_ended();
    }
}

/// Starts a call into the guest of `store`: its CPU budget starts afresh (a long stream of feeds
/// never adds up to one call's budget), and the ticker runs until the returned guard is dropped.
/// Every call into a guest (instantiation included) goes through here.
pub fn begin_call(store: &mut Store<GuestState>) -> GuestCall {
    let state = store.data_mut();
    state.spent_ticks = 0;
    let ticker = state.ticker.clone();
    // Relative to the current epoch: ticks that passed while the guest was not running are gone.
    store.set_epoch_deadline(1);
    ticker.call_started();
    GuestCall { ticker }
}

impl GuestEngine {
    /// `cache_dir`: where compiled code is kept (`None` disables the cache; so does a directory that
    /// cannot be trusted, with a warning: see `code_cache`).
    pub fn new(cache_dir: Option<PathBuf>) -> Result<Self> {
        Self::build(cache_dir, true)
    }

    /// An engine whose guests' CPU time is **not** bounded: no epoch checks are compiled into their
    /// code, so a guest that loops forever hangs the thread that runs it. It exists only so that the
    /// benchmarks can show what the bound costs (BENCHMARKS.md, section 1); nothing in the product
    /// uses it, and no cache is kept for it.
    #[doc(hidden)]
    pub fn unbounded_for_benchmarks() -> Result<Self> {
        Self::build(None, false)
    }

    fn build(cache_dir: Option<PathBuf>, bound_cpu: bool) -> Result<Self> {
        let mut config = Config::new();
        // Epoch interruption puts a check at every function entry and loop head of guest code: it is
        // what lets a call's CPU budget stop a guest that never returns, and it costs about a fifth
        // of the decode throughput (BENCHMARKS.md).
        config.epoch_interruption(bound_cpu);
        config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(
            instance_pool(),
        ));
        config.wasm_component_model(true);
        // For profiling guests with `perf`: /tmp/perf-PID.map names the compiled guest functions.
        if std::env::var_os("DSH_GUEST_PERFMAP").is_some_and(|v| v == "1") {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config)
            .map_err(|e| anyhow::anyhow!("configuring the wasmtime engine: {}", root_cause(&e)))?;

        let ticker = Ticker::new();
        let (weak_engine, thread_ticker) = (engine.weak(), ticker.clone());
        std::thread::Builder::new()
            .name("dsh-epoch-ticker".into())
            .spawn(move || thread_ticker.run(weak_engine))
            .context("starting the epoch ticker thread")?;

        let cache = cache_dir.and_then(|dir| CodeCache::open(dir, &engine));
        Ok(GuestEngine {
            inner: Arc::new(EngineInner {
                engine,
                cache,
                ticker,
            }),
        })
    }

    /// The epoch ticker (its tick count shows whether it ran).
    pub fn ticker(&self) -> &Ticker {
        &self.inner.ticker
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
        // The version field after the magic: 1 for a core module, 0x0d (and layer 1) for a component.
        if bytes.get(4..8) == Some(&[1, 0, 0, 0]) {
            anyhow::bail!(
                "{origin} is a core WebAssembly module, not a component: dsh-host loads components of the \
                 dsh:llm worlds. Build Rust guests for wasm32-wasip2 (which makes components), or wrap a \
                 wasm32-wasip1 module with `wasm-tools component new {origin} --adapt \
                 wasi_snapshot_preview1.reactor.wasm -o guest.component.wasm` (see docs/writing-guests.md)"
            );
        }
        if let Some(cache) = &self.inner.cache
            && let Some(component) = cache.load(&self.inner.engine, origin, bytes)
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
    /// the world's interface at a contract version this host supports, and links its WASI imports
    /// with nothing granted. Returns the guest's origin (for messages), its contract version and
    /// its `InstancePre`.
    pub fn prepare(
        &self,
        source: &GuestSource,
        world: &WorldSpec,
    ) -> Result<(String, ContractVersion, InstancePre<GuestState>)> {
        let origin = source.origin();
        let bytes = source.read()?;
        let component = self.compile(&origin, &bytes)?;
        let version = world.check(self.engine(), &component, &origin)?;

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
        Ok((origin, version, instance_pre))
    }

    /// A fresh store for one attempt, with its memory cap and CPU budget armed.
    ///
    /// Each call into it must go through [`begin_call`], which resets the budget and sets the epoch
    /// deadline (every new store starts at deadline 0). The callback runs only while guest code runs
    /// and sees the epoch pass its deadline: it counts that tick against the call in progress, yields
    /// to tokio, and traps once the call's budget is spent.
    pub fn new_store(&self, limits: &GuestLimits) -> Store<GuestState> {
        let mut store = Store::new(
            &self.inner.engine,
            GuestState::new(limits, self.inner.ticker.clone()),
        );
        store.limiter(GuestState::limiter);
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(|mut ctx| {
            let state = ctx.data_mut();
            state.spent_ticks += 1;
            if state.spent_ticks >= state.budget_ticks {
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
    /// The interface a component of this world exports, without its version: `dsh:llm/adapter`.
    /// The version it carries says which contract the component was built for.
    pub interface: &'static str,
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
    /// The contract version of the component's export of this world's interface, or an error that
    /// names exactly what is wrong: another world, a version this host does not support (naming
    /// those it does), or no dsh:llm export at all.
    pub fn check(
        &self,
        engine: &Engine,
        component: &Component,
        origin: &str,
    ) -> Result<ContractVersion> {
        let exports: Vec<String> = component
            .component_type()
            .exports(engine)
            .map(|(name, _)| name.to_string())
            .collect();
        if let Some(export) = exports
            .iter()
            .find(|e| e.split('@').next() == Some(self.interface))
        {
            let found = export.split_once('@').map_or("", |(_, v)| v);
            return ContractVersion::parse(found).ok_or_else(|| {
                anyhow::anyhow!(
                    "{origin} exports {export}, a version of the dsh:llm contract this dsh-host does not \
                     support: it supports {}. Rebuild the guest against wit/{}/ of this release (a \
                     guest built for a newer contract needs a newer dsh-host)",
                    ContractVersion::supported_list(),
                    ContractVersion::NEWEST.as_str()
                )
            });
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
        let older: Vec<String> = ContractVersion::SUPPORTED[1..]
            .iter()
            .map(|v| format!("@{}", v.as_str()))
            .collect();
        anyhow::bail!(
            "{origin} is not of world {}: it must export {}@{} (this host also loads {}; see wit/), but \
             it exports {listed}",
            self.world,
            self.interface,
            ContractVersion::NEWEST.as_str(),
            older.join(", ")
        )
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
        Trap::MemoryOutOfBounds => {
            "trapped: out-of-bounds memory access (in Rust and C guests usually a stack overflow)"
                .into()
        }
        Trap::AllocationTooLarge => "exceeded its memory limit".into(),
        other => format!("trapped: {other}"),
    }
}
