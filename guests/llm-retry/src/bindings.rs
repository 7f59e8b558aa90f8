//! The wasm component export: the shared recovery-listener glue of `dsh-guest-support`.

dsh_guest_support::export_listener!();
