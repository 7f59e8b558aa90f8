//! Decode throughput of adapter builds, interleaved in one process: the way to tell whether a
//! change to a guest's code or build flags moves the Wasm decode, on a machine whose noise moves a
//! single criterion run by a third (BENCHMARKS.md).
//!
//! Each round decodes the benchmark stream (`benches/streams.rs`: 10,000 events in 16 KiB reads)
//! once with every component in turn, through the host as the product runs it (a fresh instance
//! and decoder per stream, the CPU bound on); the best and the median of the rounds are printed.
//! Both builds see the same noise, so their ratio holds where the absolute figures do not.
//!
//! ```text
//! cargo run --release -p dsh-host --example decode_ab -- openai 40 A.wasm B.wasm [...]
//! cargo run --release -p dsh-host --example decode_ab -- --no-cpu-bound anthropic 40 A.wasm
//! ```
//!
//! The native baseline of BENCHMARKS.md's section 1 is `tests/decode-native`, not this program.

#[path = "../benches/streams.rs"]
#[allow(dead_code)] // the benchmarks' other streams
mod streams;

use anyhow::{Context, Result, bail};
use dsh_host::adapter::{Adapter, Chunk, ResponseHead};
use dsh_host::engine::{GuestEngine, GuestLimits};
use dsh_host::guests::GuestSource;
use std::time::Instant;

const USAGE: &str = "usage: decode_ab [--no-cpu-bound] openai|anthropic ROUNDS FILE.wasm...";

fn main() -> Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let bound_cpu = match args.iter().position(|a| a == "--no-cpu-bound") {
        Some(i) => {
            args.remove(i);
            false
        }
        None => true,
    };
    let [stream_name, rounds, files @ ..] = args.as_slice() else {
        bail!("{USAGE}");
    };
    let stream = match stream_name.as_str() {
        "openai" => streams::openai(),
        "anthropic" => streams::anthropic(),
        other => bail!("unknown stream '{other}'\n{USAGE}"),
    };
    let rounds: usize = rounds
        .parse()
        .with_context(|| format!("ROUNDS must be a number, not '{rounds}'\n{USAGE}"))?;
    if files.is_empty() || rounds == 0 {
        bail!("{USAGE}");
    }
    let reads = streams::reads(&stream);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let engine = if bound_cpu {
        GuestEngine::new(None)?
    } else {
        GuestEngine::unbounded_for_benchmarks()?
    };
    let mut builds = Vec::new();
    for file in files {
        let source = GuestSource::File(file.into());
        let adapter = rt
            .block_on(Adapter::load(
                &engine,
                &source,
                GuestLimits::default_for(&source),
            ))
            .with_context(|| format!("loading {file}"))?;
        builds.push((file, adapter, Vec::with_capacity(rounds)));
    }
    let mut texts_seen = None;
    for _ in 0..rounds {
        for (file, adapter, times) in &mut builds {
            let started = Instant::now();
            let texts = rt.block_on(decode(adapter, &reads))?;
            times.push(started.elapsed().as_secs_f64() * 1e3);
            // Every build must say the same text, or the comparison means nothing (where a build
            // cuts it into chunks is its own choice: the host joins adjacent pieces).
            if *texts_seen.get_or_insert(texts) != texts {
                bail!("{file} decoded {texts} bytes of text, another build {texts_seen:?}");
            }
        }
    }
    println!(
        "{stream_name}, {} events, {rounds} rounds, CPU bound {}",
        streams::EVENTS,
        if bound_cpu { "on" } else { "off" }
    );
    for (_, _, times) in &mut builds {
        times.sort_by(f64::total_cmp);
    }
    let first_best = builds[0].2[0];
    for (file, _, times) in &builds {
        println!(
            "{file}: best {:.2} ms, median {:.2} ms, best / first's best {:.3}",
            times[0],
            times[times.len() / 2],
            times[0] / first_best
        );
    }
    Ok(())
}

/// One whole stream through a fresh instance: the bytes of text it gave.
async fn decode(adapter: &Adapter, reads: &[&[u8]]) -> Result<usize> {
    let mut instance = adapter.instantiate().await?;
    let head = ResponseHead {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        received_at_ms: 0,
    };
    instance.open_decoder(&head).await?;
    let text_bytes = |chunks: Vec<Chunk>| -> usize {
        let text = |c: &Chunk| match c {
            Chunk::Text(t) => t.len(),
            _ => 0,
        };
        chunks.iter().map(text).sum()
    };
    let mut bytes = 0;
    for read in reads {
        bytes += text_bytes(instance.feed(read).await?);
    }
    Ok(bytes + text_bytes(instance.end().await?))
}
