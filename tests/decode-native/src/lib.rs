//! Nothing but the benchmark in `benches/decode_native.rs`: see this crate's manifest.
