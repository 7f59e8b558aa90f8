//! The wasm component export: the shared provider-adapter glue of `dsh-guest-support`.

dsh_guest_support::export_adapter!();
