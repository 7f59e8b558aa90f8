//! A component that exports the adapter interface of a dsh:llm version newer than this host knows
//! (0.3.0): the host must refuse it at load, naming the versions it supports, rather than fail
//! later on a missing function.
#![cfg(target_arch = "wasm32")]

wit_bindgen::generate!({
    inline: r#"
        package dsh:llm@0.3.0;
        interface adapter {
            record adapter-info { name: string, version: string }
            info: func() -> adapter-info;
        }
        world provider-adapter {
            export adapter;
        }
    "#,
});

use exports::dsh::llm::adapter::{AdapterInfo, Guest};

struct Future;

impl Guest for Future {
    fn info() -> AdapterInfo {
        AdapterInfo {
            name: "from-the-future".into(),
            version: "0.3.0".into(),
        }
    }
}

export!(Future);
