//! The cost of the sandbox, side by side with native code, in one run:
//! - decode throughput: the same adapter library decoding a 10,000-event stream natively and as a
//!   Wasm component through the host (fresh instance and decoder, whole network reads);
//! - where the Wasm time goes: one read for the whole stream, events that make no chunk, and the
//!   components compiled without the epoch checks of the host's CPU bound;
//! - per-attempt instantiation of a built-in Rust guest from its `InstancePre`.
//!
//! The native side here is compiled with the host's release profile, a weaker build than the
//! guests get (no LTO, 16 codegen units, LLVM's default inlining): BENCHMARKS.md's baseline is
//! `tests/decode-native`, the same functions built with the guests' profile and flags.
//!
//! `cargo bench -p dsh-host --bench sandbox`; `scripts/bench` turns the estimates into a table.

#[path = "native.rs"]
mod native;
#[path = "streams.rs"]
mod streams;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dsh_host::adapter::{Adapter, Chunk, ResponseHead};
use dsh_host::engine::{GuestEngine, GuestLimits};
use std::hint::black_box;

fn sse_head() -> Vec<(String, String)> {
    vec![("content-type".into(), "text/event-stream".into())]
}

fn load(engine: &GuestEngine, rt: &tokio::runtime::Runtime, name: &str) -> Adapter {
    let source = dsh_host::guests::builtin_adapter(name).unwrap();
    rt.block_on(Adapter::load(
        engine,
        &source,
        GuestLimits::default_for(&source),
    ))
    .unwrap()
}

/// Decodes a whole stream in Wasm; returns the number of text chunks (checked against native).
async fn decode_wasm(adapter: &Adapter, reads: &[&[u8]]) -> usize {
    let mut instance = adapter.instantiate().await.unwrap();
    let head = ResponseHead {
        status: 200,
        headers: sse_head(),
        received_at_ms: 0,
    };
    instance.open_decoder(&head).await.unwrap();
    let mut texts = 0;
    for read in reads {
        texts += instance
            .feed(read)
            .await
            .unwrap()
            .iter()
            .filter(|c| matches!(c, Chunk::Text(_)))
            .count();
    }
    texts
        + instance
            .end()
            .await
            .unwrap()
            .iter()
            .filter(|c| matches!(c, Chunk::Text(_)))
            .count()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // No compiled-code cache: the benchmark measures running, not loading.
    let engine = GuestEngine::new(None).unwrap();

    let openai_stream = streams::openai();
    let anthropic_stream = streams::anthropic();
    let openai_reads = streams::reads(&openai_stream);
    let anthropic_reads = streams::reads(&anthropic_stream);
    let openai = load(&engine, &rt, "openai");
    let anthropic = load(&engine, &rt, "anthropic");

    // The two paths must agree before they are compared.
    assert_eq!(
        rt.block_on(decode_wasm(&openai, &openai_reads)),
        native::decode_openai(&openai_reads)
    );
    assert_eq!(
        rt.block_on(decode_wasm(&anthropic, &anthropic_reads)),
        native::decode_anthropic(&anthropic_reads)
    );

    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(streams::EVENTS as u64));
    g.bench_function("openai/native", |b| {
        b.iter(|| black_box(native::decode_openai(black_box(&openai_reads))))
    });
    g.bench_function("openai/wasm", |b| {
        b.to_async(&rt).iter(|| decode_wasm(&openai, &openai_reads))
    });
    g.bench_function("anthropic/native", |b| {
        b.iter(|| black_box(native::decode_anthropic(black_box(&anthropic_reads))))
    });
    g.bench_function("anthropic/wasm", |b| {
        b.to_async(&rt)
            .iter(|| decode_wasm(&anthropic, &anthropic_reads))
    });
    g.finish();

    // Where the Wasm time goes: one feed of the whole stream (per-call cost amortised away), and a
    // stream of events the decoder parses but turns into no chunk (no chunk lifted into the host).
    let whole: Vec<&[u8]> = vec![&openai_stream[..]];
    let ignored_stream = streams::openai_ignored();
    let ignored = streams::reads(&ignored_stream);
    let mut g = c.benchmark_group("decode-breakdown");
    g.throughput(Throughput::Elements(streams::EVENTS as u64));
    g.bench_function("openai/wasm-one-read", |b| {
        b.to_async(&rt).iter(|| decode_wasm(&openai, &whole))
    });
    g.bench_function("openai/native-no-chunks", |b| {
        b.iter(|| black_box(native::decode_openai(black_box(&ignored))))
    });
    g.bench_function("openai/wasm-no-chunks", |b| {
        b.to_async(&rt).iter(|| decode_wasm(&openai, &ignored))
    });
    // The same components on an engine that compiles no epoch checks into them (the host's CPU
    // bound, which the product never runs without): what the bound costs.
    let unbounded = GuestEngine::unbounded_for_benchmarks().unwrap();
    let (openai_unbounded, anthropic_unbounded) = (
        load(&unbounded, &rt, "openai"),
        load(&unbounded, &rt, "anthropic"),
    );
    g.bench_function("openai/wasm-no-cpu-bound", |b| {
        b.to_async(&rt)
            .iter(|| decode_wasm(&openai_unbounded, &openai_reads))
    });
    g.bench_function("anthropic/wasm-no-cpu-bound", |b| {
        b.to_async(&rt)
            .iter(|| decode_wasm(&anthropic_unbounded, &anthropic_reads))
    });
    g.finish();

    let mut g = c.benchmark_group("instantiate");
    for name in ["openai", "anthropic"] {
        let adapter = load(&engine, &rt, name);
        g.bench_function(name, |b| {
            b.to_async(&rt)
                .iter(|| async { black_box(adapter.instantiate().await.unwrap()) })
        });
    }
    // The share of a fresh store (WASI context with nothing granted, limits, epoch callback) alone.
    let limits = GuestLimits::default_for(&dsh_host::guests::builtin_adapter("openai").unwrap());
    g.bench_function("store-only", |b| {
        b.iter(|| black_box(engine.new_store(&limits)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
