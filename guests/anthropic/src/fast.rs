//! The typed fast path of the decoder: `content_block_delta` events deserialized into small
//! structs that borrow their strings from the event, instead of a `serde_json::Value` tree.
//!
//! Anything these structs reject (a field of an unexpected type, a duplicate key), and every other
//! event type, goes to the `Value` path, which stays the reference: the typed path only handles
//! events it decodes exactly as that path would. The structs read their keys by hand so that
//! every value they do not keep is skipped as strictly as a `Value` parse reads it
//! (`dsh_guest_support::json`, which says why serde's derive cannot).

pub(crate) use dsh_guest_support::json::Str;

/// A `content_block_delta` event.
#[derive(Default)]
pub(crate) struct BlockDelta<'a> {
    kind: Option<Str<'a>>,
    pub index: Option<u64>,
    pub delta: Option<Delta<'a>>,
}

#[derive(Default)]
pub(crate) struct Delta<'a> {
    pub kind: Option<Str<'a>>,
    pub text: Option<Str<'a>>,
    pub thinking: Option<Str<'a>>,
    pub partial_json: Option<Str<'a>>,
    pub signature: Option<Str<'a>>,
}

dsh_guest_support::read_by_key!(BlockDelta, "a content_block_delta event", {
    "type" => kind,
    "index" => index,
    "delta" => delta,
});
dsh_guest_support::read_by_key!(Delta, "a delta", {
    "type" => kind,
    "text" => text,
    "thinking" => thinking,
    "partial_json" => partial_json,
    "signature" => signature,
});

/// Parses `data` as a `content_block_delta` (its `type` says so).
pub(crate) fn parse(data: &str) -> Option<BlockDelta<'_>> {
    serde_json::from_str::<BlockDelta>(data).ok().filter(|e| {
        e.kind
            .as_ref()
            .is_some_and(|k| k.as_str() == "content_block_delta")
    })
}
