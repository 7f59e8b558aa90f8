//! Durable appends on each session-store backend, one writer: events per second and the latency of
//! one durable point (p50, p99). A first measure for issue #13's benchmarks, not yet in scripts/bench.
//!
//!   cargo run --release -p dsh-host --example store_append [-- N]
//!
//! Files in a temporary directory under target/; PostgreSQL at DSH_BENCH_POSTGRES_URL (or
//! DSH_TEST_POSTGRES_URL, e.g. from scripts/postgres-test-cluster), skipped with a note when neither
//! is set.

use dsh_host::store::SessionStore;
use serde_json::json;
use std::time::{Duration, Instant};

fn measure(label: &str, store: &SessionStore, n: usize) {
    let mut log = store.create().unwrap();
    log.append("session/start", json!({"provider": "bench"})).unwrap();
    let mut latencies = Vec::with_capacity(n);
    let started = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        log.append_durable("llm/retry", json!({"turn": 1, "step": 1, "retry": i, "delay_ms": 1000, "code": "RATE_LIMITED"}))
            .unwrap();
        latencies.push(t.elapsed());
    }
    let total = started.elapsed();
    latencies.sort();
    let at = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{label:<12} {n} durable appends in {:.2} s: {:.0} events/s, p50 {:.3} ms, p99 {:.3} ms",
        total.as_secs_f64(),
        n as f64 / total.as_secs_f64(),
        ms(at(0.50)),
        ms(at(0.99))
    );
}

fn main() {
    let n: usize = std::env::args().nth(1).map_or(2000, |a| a.parse().expect("N: a whole number"));
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    let dir = tempfile::tempdir_in(&target).unwrap();
    measure("json lines", &SessionStore::open(dir.path()).unwrap(), n);
    match std::env::var("DSH_BENCH_POSTGRES_URL").or_else(|_| std::env::var("DSH_TEST_POSTGRES_URL")) {
        Ok(url) => {
            let store = dsh_host::pg_store::PgStore::connect(&url, Duration::from_secs(30)).unwrap();
            measure("postgresql", &SessionStore::Postgres(store), n);
        }
        Err(_) => println!("postgresql   not measured: set DSH_BENCH_POSTGRES_URL"),
    }
}
