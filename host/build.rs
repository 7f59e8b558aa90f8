//! Builds the first-party guests (and the test-only guests) for wasm32-wasip2, so that `cargo build`
//! and `cargo test` on a fresh clone need nothing but the `wasm32-wasip2` target installed.
//!
//! The guests are built by a nested cargo with its own target directory: sharing the outer one would
//! deadlock on cargo's build-directory lock. Their `.wasm` files land in `OUT_DIR`, which
//! `DSH_GUEST_DIR` names for `include_bytes!` and for the tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (package, artifact stem) of every guest built here.
const GUESTS: &[(&str, &str)] = &[
    ("dsh-guest-openai", "dsh_guest_openai"),
    ("dsh-guest-llm-retry", "dsh_guest_llm_retry"),
    ("dsh-guest-compaction-basic", "dsh_guest_compaction_basic"),
    ("dsh-guest-anthropic", "dsh_guest_anthropic"),
    ("dsh-guest-gemini", "dsh_guest_gemini"),
    ("dsh-test-wrong-world", "dsh_test_wrong_world"),
    ("dsh-test-hostile", "dsh_test_hostile"),
    ("dsh-test-bad-import", "dsh_test_bad_import"),
    ("dsh-test-v0-1-adapter", "dsh_test_v0_1_adapter"),
    ("dsh-test-future-version", "dsh_test_future_version"),
    ("dsh-test-split-variant", "dsh_test_split_variant"),
];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.parent().unwrap().to_path_buf();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());

    // Cargo.toml: the workspace's [profile.guest] decides how the guests are compiled;
    // .cargo/config.toml: the flags of their wasm32 builds.
    for watched in [
        "guests",
        "wit",
        "tests/guests",
        "Cargo.toml",
        "Cargo.lock",
        ".cargo/config.toml",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=DSH_GUEST_CARGO");
    println!("cargo:rerun-if-env-changed=DSH_GUEST_RUSTFLAGS");

    let target_dir = root.join("target").join("guest-build");
    let cargo = std::env::var("DSH_GUEST_CARGO")
        .or_else(|_| std::env::var("CARGO"))
        .unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args([
            "build",
            "--target",
            "wasm32-wasip2",
            "--profile",
            "guest",
            "--target-dir",
        ])
        .arg(&target_dir);
    for (package, _) in GUESTS {
        cmd.args(["-p", package]);
    }
    // The outer build's flags are for the host target; never leak them into the wasm build.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_PRIMARY_PACKAGE",
    ] {
        cmd.env_remove(var);
    }
    if let Ok(flags) = std::env::var("DSH_GUEST_RUSTFLAGS") {
        cmd.env("RUSTFLAGS", flags);
    }
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("could not run cargo to build the guests: {e}"));
    if !status.success() {
        panic!(
            "building the guests for wasm32-wasip2 failed (see the cargo output above). \
             If the target is missing, install it with: rustup target add wasm32-wasip2"
        );
    }
    for (_, stem) in GUESTS {
        let built = target_dir
            .join("wasm32-wasip2")
            .join("guest")
            .join(format!("{stem}.wasm"));
        copy(&built, &out_dir.join(format!("{stem}.wasm")));
    }
    println!("cargo:rustc-env=DSH_GUEST_DIR={}", out_dir.display());
}

fn copy(from: &Path, to: &Path) {
    std::fs::copy(from, to)
        .unwrap_or_else(|e| panic!("copying {} to {}: {e}", from.display(), to.display()));
}
