//! The wasm component export (wasm32 only): the SDK's recovery-listener glue, which generates the
//! bindings from `wit/0.2.0` and converts between them and the plain types `lib.rs` works on.

dsh_guest_support::export_listener!(wit = "wit/0.2.0");
