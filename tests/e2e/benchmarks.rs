//! The benchmark report still works: one quick run (small streams, 50 sessions, one start-up each).
//! Figures are printed, never asserted: speed is measured by `scripts/bench`, not by tests.

use std::path::Path;

#[test]
fn the_benchmark_report_runs_quickly_end_to_end() {
    // target/<profile>/examples/bench_report, built by `cargo test` beside the dsh-host binary.
    let bin = Path::new(env!("CARGO_BIN_EXE_dsh-host"));
    let report = bin.parent().unwrap().join("examples").join("bench_report");
    assert!(report.exists(), "cargo test builds the examples: {}", report.display());
    let out = std::process::Command::new(&report).arg("--quick").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    for section in ["## 3. Start-up", "## 4. End to end over loopback", "## 5. Concurrency"] {
        assert!(text.contains(section), "{text}");
    }
    assert!(text.contains("| 50 / 50 |"), "every session completed: {text}");
    println!("{text}");
}
