//! Driving one adapter instance the way an attempt does: a response head and body in, the chunks
//! and the attempt's outcome out. The outcome is made by the attempt's own assembly
//! ([`crate::attempt::Assembly`]), so a case ends exactly as a real attempt would: a stream without
//! a finish is `STREAM_TRUNCATED`, a finish without text `EMPTY_RESPONSE`, an error finish its
//! failure. A fresh instance per run: a fault poisons an instance, and runs must not share state.

use crate::adapter::{Adapter, Chunk, ResponseHead};
use crate::attempt::{Assembly, Completion};
use crate::failure::LlmFailure;
use std::time::{Duration, Instant};

/// One run of the decoder over a body.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// What the feeds returned, in order.
    pub fed: Vec<Chunk>,
    /// What `end` returned.
    pub ended: Vec<Chunk>,
    pub outcome: Result<Completion, LlmFailure>,
    /// Time spent in the decoder's calls (`feed` and `end`), the guest's own time.
    pub decoder_time: Duration,
    pub peak_memory_bytes: usize,
}

impl Decoded {
    pub fn chunks(&self) -> impl Iterator<Item = &Chunk> {
        self.fed.iter().chain(&self.ended)
    }

    /// Whether the guest faulted (trapped, broke a limit, returned what it may not).
    pub fn faulted(&self) -> Option<&LlmFailure> {
        self.outcome
            .as_ref()
            .err()
            .filter(|f| f.code == "ADAPTER_FAULT")
    }
}

/// Opens a decoder on `head` in a fresh instance and feeds it `body` cut at `sizes` (the rest in a
/// last piece; empty pieces are not fed, as the network never delivers one), then ends it.
pub async fn decode(
    adapter: &Adapter,
    head: &ResponseHead,
    body: &[u8],
    sizes: &[usize],
) -> Decoded {
    let mut run = Decoded {
        fed: Vec::new(),
        ended: Vec::new(),
        outcome: Ok(Completion::default()),
        decoder_time: Duration::ZERO,
        peak_memory_bytes: 0,
    };
    let mut instance = match adapter.instantiate().await {
        Ok(instance) => instance,
        Err(failure) => {
            run.outcome = Err(failure);
            return run;
        }
    };
    let guest = instance.name().to_string();
    let mut assembly = Assembly::new(&guest, adapter.limits().returns);
    let mut ignore = |_: crate::attempt::StreamEvent| {};
    let outcome = async {
        instance.open_decoder(head).await?;
        for piece in pieces(body, sizes) {
            let started = Instant::now();
            let chunks = instance.feed(piece).await;
            run.decoder_time += started.elapsed();
            let chunks = chunks?;
            assembly.absorb(chunks.clone(), &mut ignore)?;
            run.fed.extend(chunks);
        }
        let started = Instant::now();
        let chunks = instance.end().await;
        run.decoder_time += started.elapsed();
        let chunks = chunks?;
        assembly.absorb(chunks.clone(), &mut ignore)?;
        run.ended = chunks;
        Ok::<(), LlmFailure>(())
    }
    .await;
    run.outcome = match outcome {
        Ok(()) => assembly.conclude(head.status),
        Err(failure) => Err(failure),
    };
    run.peak_memory_bytes = instance.peak_memory_bytes();
    run
}

/// `classify-failure` on a fresh instance, with the status filled in as an attempt does. Also the
/// instance's peak memory.
pub async fn classify(adapter: &Adapter, head: &ResponseHead, body: &[u8]) -> (LlmFailure, usize) {
    let mut instance = match adapter.instantiate().await {
        Ok(instance) => instance,
        Err(failure) => return (failure, 0),
    };
    let mut failure = instance.classify_failure(head, body).await;
    failure.status.get_or_insert(head.status);
    (failure, instance.peak_memory_bytes())
}

/// `body` cut at `sizes`, then the rest; no empty piece.
fn pieces<'b>(body: &'b [u8], sizes: &[usize]) -> Vec<&'b [u8]> {
    let mut out = Vec::new();
    let mut rest = body;
    for &size in sizes {
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        if !piece.is_empty() {
            out.push(piece);
        }
        rest = tail;
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Piece sizes from a small seeded generator (xorshift): random-looking, reproducible.
pub fn random_sizes(len: usize, seed: u64, max: usize) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut sizes = Vec::new();
    let mut total = 0;
    while total < len {
        let size = 1 + rng.below(max as u64) as usize;
        sizes.push(size);
        total += size;
    }
    sizes
}

/// xorshift64: the check's only source of randomness, seeded so a failure can be replayed
/// (`--seed`). Not cryptography.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        // xorshift never leaves 0; mix the seed so nearby seeds give unrelated streams.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform enough in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_body_in_order_without_empty_ones() {
        let body = b"abcdefghij";
        assert_eq!(pieces(body, &[]), vec![&body[..]]);
        assert_eq!(pieces(body, &[3, 0, 3]), vec![&b"abc"[..], b"def", b"ghij"]);
        assert_eq!(pieces(body, &[1; 10]).len(), 10);
        assert!(pieces(b"", &[]).is_empty());
        let sizes = random_sizes(1000, 7, 17);
        assert_eq!(pieces(&[0u8; 1000], &sizes).concat().len(), 1000);
        assert!(sizes.iter().all(|s| (1..=17).contains(s)));
    }

    #[test]
    fn the_generator_is_seeded() {
        let a: Vec<u64> = {
            let mut r = Rng::new(3);
            (0..5).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::new(3);
            (0..5).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = Rng::new(4);
            (0..5).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(Rng::new(0).next_u64(), Rng::new(0).next_u64());
    }
}
