//! The benchmark reports still work: quick runs (small streams, 50 sessions or streams, no oha or LiteLLM).
//! Figures are printed, never asserted: speed is measured by `scripts/bench`, not by tests.

use std::path::Path;

#[test]
fn the_benchmark_report_runs_quickly_end_to_end() {
    // target/<profile>/examples/bench_report, built by `cargo test` beside the dsh-host binary.
    let bin = Path::new(env!("CARGO_BIN_EXE_dsh-host"));
    let report = bin.parent().unwrap().join("examples").join("bench_report");
    assert!(
        report.exists(),
        "cargo test builds the examples: {}",
        report.display()
    );
    let out = std::process::Command::new(&report)
        .arg("--quick")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for section in [
        "## 3. Start-up",
        "## 4. End to end over loopback",
        "## 5. Concurrency",
    ] {
        assert!(text.contains(section), "{text}");
    }
    assert!(
        text.contains("| 50 / 50 |"),
        "every session completed: {text}"
    );
    println!("{text}");
}

/// The gateway benchmark's quick mode (no oha, no LiteLLM): the upstream, the gateway with auth on,
/// a few requests at one connection and 50 concurrent streams through each path.
#[test]
fn the_gateway_benchmark_runs_quickly_end_to_end() {
    let bin = Path::new(env!("CARGO_BIN_EXE_dsh-host"));
    let bench = bin.parent().unwrap().join("examples").join("bench_gateway");
    assert!(
        bench.exists(),
        "cargo test builds the examples: {}",
        bench.display()
    );
    let out = std::process::Command::new(&bench)
        .args(["report", "--quick", "--dsh-host"])
        .arg(bin)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for section in [
        "## 6. Gateway",
        "### 6a. Latency at one connection",
        "### 6d. 50 concurrent streams",
        "### 6e. Resident memory",
    ] {
        assert!(text.contains(section), "{text}");
    }
    // Every stream completed, directly and through the gateway.
    assert_eq!(text.matches("| 50 / 50 | 0 |").count(), 2, "{text}");
    println!("{text}");
}

/// The session-store benchmark's quick mode on both backends: PostgreSQL is the test cluster
/// (`DSH_TEST_POSTGRES_URL`, as for tests/e2e/postgres.rs; a database of its own).
#[test]
fn the_store_benchmark_runs_quickly_on_both_backends() {
    let url = std::env::var("DSH_TEST_POSTGRES_URL")
        .expect("DSH_TEST_POSTGRES_URL is not set: scripts/test starts a PostgreSQL cluster (see tests/e2e/postgres.rs)");
    let database = format!("dsh_bench_{}", std::process::id());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .batch_execute(&format!("CREATE DATABASE {database}"))
            .await
            .unwrap();
    });
    let (server, _) = url.rsplit_once('/').unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_dsh-host"));
    let report = bin.parent().unwrap().join("examples").join("bench_report");
    let out = std::process::Command::new(&report)
        .args([
            "--quick",
            "--store-only",
            "--postgres",
            &format!("{server}/{database}"),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for row in [
        "### 7a. Durable appends",
        "| JSON Lines files |",
        "| PostgreSQL (loopback) |",
        "### 7b. 50 concurrent sessions",
    ] {
        assert!(text.contains(row), "{row}: {text}");
    }
    assert_eq!(
        text.matches("| 50 / 50 |").count(),
        2,
        "every session completed on each backend: {text}"
    );
    assert!(
        !text.contains(&url),
        "the URL (and its password) is never printed: {text}"
    );
    println!("{text}");
}
