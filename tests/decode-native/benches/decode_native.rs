//! The decode benchmark's native baseline: the streams and functions of the host's sandbox
//! benchmark (`host/benches/streams.rs`, `host/benches/native.rs`), compiled the way the guests are.
//! `scripts/bench` runs it; its estimates land in `target/native-decode/criterion/decode-native`.

#[path = "../../../host/benches/native.rs"]
mod native;
#[allow(dead_code)] // the sandbox benchmark uses the other streams
#[path = "../../../host/benches/streams.rs"]
mod streams;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let (openai, anthropic) = (streams::openai(), streams::anthropic());
    let (openai_reads, anthropic_reads) = (streams::reads(&openai), streams::reads(&anthropic));
    let mut g = c.benchmark_group("decode-native");
    g.throughput(Throughput::Elements(streams::EVENTS as u64));
    g.bench_function("openai", |b| {
        b.iter(|| black_box(native::decode_openai(black_box(&openai_reads))))
    });
    g.bench_function("anthropic", |b| {
        b.iter(|| black_box(native::decode_anthropic(black_box(&anthropic_reads))))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
