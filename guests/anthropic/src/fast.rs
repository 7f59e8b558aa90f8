//! The typed fast path of the decoder: `content_block_delta` events deserialized into small
//! structs that borrow their strings from the event, instead of a `serde_json::Value` tree.
//!
//! Anything these structs reject (a field of an unexpected type, a duplicate key), and every other
//! event type, goes to the `Value` path, which stays the reference: the typed path only handles
//! events it decodes exactly as that path would.

use serde::Deserialize;

pub(crate) use dsh_guest_support::json::Str;

/// A `content_block_delta` event.
#[derive(Deserialize)]
pub(crate) struct BlockDelta<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<Str<'a>>,
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(borrow, default)]
    pub delta: Option<Delta<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct Delta<'a> {
    #[serde(borrow, default, rename = "type")]
    pub kind: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub text: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub thinking: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub partial_json: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub signature: Option<Str<'a>>,
}

/// Parses `data` as a `content_block_delta` (its `type` says so), if the typed parse is exact for
/// it.
pub(crate) fn parse(data: &str) -> Option<BlockDelta<'_>> {
    if !dsh_guest_support::json::typed_parse_is_exact(data) {
        return None;
    }
    serde_json::from_str::<BlockDelta>(data).ok().filter(|e| {
        e.kind
            .as_ref()
            .is_some_and(|k| k.as_str() == "content_block_delta")
    })
}
