//! Loading guests: third-party `.wasm` files, refusals with messages that name the file and the fix,
//! and the compiled-code cache.

use crate::support::*;
use dsh_host::adapter::Adapter;
use dsh_host::engine::{GuestEngine, GuestLimits};
use dsh_host::guests::GuestSource;

#[tokio::test]
async fn a_malformed_wasm_is_refused_naming_the_file() {
    let scratch = Scratch::new();
    let bad = scratch.dir.path().join("broken-adapter.wasm");
    std::fs::write(&bad, b"this is not wasm at all").unwrap();
    let out = scratch
        .run_bin(
            &[
                "run",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--adapter",
                bad.to_str().unwrap(),
                "hi",
            ],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("broken-adapter.wasm") && err.contains("not a WebAssembly file"),
        "{err}"
    );

    // Right magic, garbage after it: the validator's complaint, still naming the file.
    std::fs::write(&bad, b"\0asm\x0d\x00\x01\x00garbage").unwrap();
    let out = scratch
        .run_bin(
            &[
                "run",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--adapter",
                bad.to_str().unwrap(),
                "hi",
            ],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("broken-adapter.wasm") && err.contains("not a valid WebAssembly component"),
        "{err}"
    );
}

/// A core module (what `cargo build --target wasm32-wasip1` or a C toolchain makes) is not a
/// component: the error says so and how to wrap it.
#[tokio::test]
async fn a_core_module_is_refused_naming_the_fix() {
    let scratch = Scratch::new();
    let core = scratch.dir.path().join("core-module.wasm");
    // The smallest valid core module: magic and version 1, no sections.
    std::fs::write(&core, b"\0asm\x01\x00\x00\x00").unwrap();
    let args = [
        "run",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--adapter",
        core.to_str().unwrap(),
        "hi",
    ];
    let out = scratch.run_bin(&args, Some(TEST_KEY)).await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("core-module.wasm")
            && err.contains("core WebAssembly module, not a component"),
        "{err}"
    );
    assert!(
        err.contains("wasm-tools component new") && err.contains("wasm32-wasip2"),
        "{err}"
    );
}

#[tokio::test]
async fn a_component_of_another_world_is_refused_naming_what_is_missing() {
    let scratch = Scratch::new();
    let wrong = test_guest("dsh_test_wrong_world");
    let out = scratch
        .run_bin(
            &[
                "run",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--adapter",
                wrong.to_str().unwrap(),
                "hi",
            ],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("dsh_test_wrong_world.wasm"), "{err}");
    assert!(
        err.contains("must export dsh:llm/adapter@0.2.0") && err.contains("@0.1.0"),
        "{err}"
    );
    assert!(
        err.contains("greet"),
        "it says what the component does export: {err}"
    );
}

#[tokio::test]
async fn a_missing_adapter_file_is_refused_naming_it() {
    let scratch = Scratch::new();
    let out = scratch
        .run_bin(
            &[
                "run",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--adapter",
                "/nonexistent/adapter.wasm",
                "hi",
            ],
            Some(TEST_KEY),
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/adapter.wasm"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn a_third_party_adapter_file_replaces_the_built_in_one() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["from ","a file"]}}]}"#).await;
    let scratch = Scratch::new();
    let file = test_guest("dsh_guest_openai");
    let out = scratch
        .run_bin(
            &[
                "run",
                "--base-url",
                &mock.base_url(),
                "--adapter",
                file.to_str().unwrap(),
                "hi",
            ],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "from a file");
    let start = &scratch.only_session_events()[0];
    assert_eq!(start.data["adapter"], "openai");
    assert!(
        start.data["adapter_origin"]
            .as_str()
            .unwrap()
            .ends_with("dsh_guest_openai.wasm")
    );
}

#[tokio::test]
async fn compiled_code_is_cached_and_a_corrupt_cache_entry_is_recompiled() {
    let cache = tempfile::tempdir().unwrap();
    let source = GuestSource::file(&test_guest("dsh_guest_openai"));
    let engine = GuestEngine::new(Some(cache.path().to_path_buf())).unwrap();
    Adapter::load(&engine, &source, GuestLimits::default_for(&source))
        .await
        .unwrap();
    // Beside the entries: the cache's key (see the e2e tests in on_disk.rs for what it guards).
    let entries: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "key")
        .collect();
    assert_eq!(
        entries.len(),
        1,
        "one compiled file per component: {entries:?}"
    );
    assert!(entries[0].extension().unwrap() == "cwasm");

    // A second engine (a second start) loads the cached code.
    let engine2 = GuestEngine::new(Some(cache.path().to_path_buf())).unwrap();
    let adapter = Adapter::load(&engine2, &source, GuestLimits::default_for(&source))
        .await
        .unwrap();
    assert_eq!(adapter.name(), "openai");

    // A corrupt entry is replaced, not fatal.
    std::fs::write(&entries[0], b"corrupt").unwrap();
    let engine3 = GuestEngine::new(Some(cache.path().to_path_buf())).unwrap();
    Adapter::load(&engine3, &source, GuestLimits::default_for(&source))
        .await
        .unwrap();
    assert!(
        std::fs::read(&entries[0]).unwrap().len() > 1000,
        "the entry was rewritten"
    );
}
