//! The adapters' typed fast path: what it takes to make it exact.
//!
//! The decoders deserialize the common event shapes into small typed structs and fall back to a
//! `serde_json::Value` for everything else. An event the `Value` parse would reject must stay
//! rejected, and one it accepts must decode the same. serde's own `IgnoredAny`, which derived
//! structs use for the keys they do not name, cannot promise that: serde_json skips such values
//! without checking that a number fits an `f64`, that a `\u` escape is not a lone surrogate, or how
//! deep the nesting goes.
//!
//! So the fast-path structs read their keys by hand ([`skip_unknown`]) and skip every value they
//! do not keep as a [`Skipped`]: read by the very code a `Value` parse runs (`deserialize_any`),
//! with its checks and its depth limit, but kept nowhere. [`Str`] is the fast path's string:
//! borrowed from the event unless it had escapes.
//!
//! (Derived structs used to be guarded by a scan of the whole event before the parse, for the same
//! checks: it cost about a fifth of the decode time.)

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON string, borrowed from the event unless it had escapes.
#[derive(Debug, Default)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(s))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s))
            }
        }
        d.deserialize_str(V).map(Str)
    }
}

impl Str<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

/// A JSON value read as strictly as a `Value` parse reads it (every number, string and nesting
/// level through `deserialize_any`), then dropped. `Option<Skipped>` tells whether a key was
/// present and not `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skipped;

impl<'de> Deserialize<'de> for Skipped {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Skipped;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Skipped, E> {
                Ok(Skipped)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Skipped, E> {
                Ok(Skipped)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Skipped, E> {
                Ok(Skipped)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Skipped, E> {
                Ok(Skipped)
            }
            fn visit_str<E>(self, _: &str) -> Result<Skipped, E> {
                Ok(Skipped)
            }
            fn visit_unit<E>(self) -> Result<Skipped, E> {
                Ok(Skipped)
            }
            fn visit_none<E>(self) -> Result<Skipped, E> {
                Ok(Skipped)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Skipped, D::Error> {
                Skipped::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skipped, A::Error> {
                while seq.next_element::<Skipped>()?.is_some() {}
                Ok(Skipped)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skipped, A::Error> {
                while map.next_entry::<Skipped, Skipped>()?.is_some() {}
                Ok(Skipped)
            }
        }
        d.deserialize_any(V)
    }
}

/// A hand-read struct's key that it does not keep: its value is skipped strictly ([`Skipped`]).
pub fn skip_unknown<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<Skipped>().map(drop)
}

/// A map key read as a string and turned into `T` by `F` at once, borrowed or not: how
/// [`read_by_key!`] tells its keys apart without keeping them.
pub struct KeyBy<F>(pub F);

impl<'de, T, F: FnOnce(&str) -> T> de::DeserializeSeed<'de> for KeyBy<F> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        struct V<F>(F);
        impl<'de, T, F: FnOnce(&str) -> T> Visitor<'de> for V<F> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, s: &str) -> Result<T, E> {
                Ok((self.0)(s))
            }
        }
        d.deserialize_str(V(self.0))
    }
}

/// Which keys of a hand-read struct were seen: a second one is an error, as it is for a derived
/// struct, so the event goes to the `Value` path (which keeps the last).
#[derive(Debug, Default)]
pub struct SeenKeys(u64);

impl SeenKeys {
    /// Marks key number `bit` (below 64) seen; an error naming `name` if it already was.
    pub fn mark<E: de::Error>(&mut self, bit: u32, name: &'static str) -> Result<(), E> {
        let flag = 1u64 << bit;
        if self.0 & flag != 0 {
            return Err(E::duplicate_field(name));
        }
        self.0 |= flag;
        Ok(())
    }
}

/// `Deserialize` for a fast-path struct of `Option` fields (and `Default`), read by key:
/// `$key => $field` pairs, each key at most once (a second is an error, as for a derived struct),
/// every other key skipped as strictly as a `Value` parse reads it. Strings borrow from the event
/// with [`Str`]; the struct takes one lifetime.
///
/// ```
/// use dsh_guest_support::json::{Skipped, Str};
///
/// #[derive(Default)]
/// struct Delta<'a> {
///     text: Option<Str<'a>>,
///     signature: Option<Skipped>,
/// }
/// dsh_guest_support::read_by_key!(Delta, "a delta", { "text" => text, "signature" => signature });
///
/// # fn main() -> Result<(), serde_json::Error> {
/// let d: Delta = serde_json::from_str(r#"{"text":"hi","type":"text_delta","signature":null}"#)?;
/// assert_eq!(d.text.unwrap().as_str(), "hi");
/// assert!(d.signature.is_none()); // null counts as absent
/// assert!(serde_json::from_str::<Delta>(r#"{"text":"a","text":"b"}"#).is_err());
/// assert!(serde_json::from_str::<Delta>(r#"{"text":"a","n":1e400}"#).is_err());
/// # Ok(())
/// # }
/// ```
///
/// A macro because the structs differ only in their keys, and a generic function cannot name a
/// field's type per key.
#[macro_export]
macro_rules! read_by_key {
    ($ty:ident, $what:literal, { $($key:literal => $field:ident),+ $(,)? }) => {
        impl<'de: 'a, 'a> $crate::json::__private::Deserialize<'de> for $ty<'a> {
            fn deserialize<D: $crate::json::__private::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V<'a>(::std::marker::PhantomData<$ty<'a>>);
                impl<'de: 'a, 'a> $crate::json::__private::Visitor<'de> for V<'a> {
                    type Value = $ty<'a>;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_map<A: $crate::json::__private::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        // The keys this struct keeps, and one for every other; matched once per key
                        // as the key is read, with no string kept.
                        #[allow(non_camel_case_types)]
                        #[derive(Clone, Copy)]
                        enum Key { $($field,)+ __other }
                        let mut out = $ty::default();
                        let mut seen = $crate::json::SeenKeys::default();
                        let by_name = |name: &str| match name { $($key => Key::$field,)+ _ => Key::__other };
                        while let Some(key) = map.next_key_seed($crate::json::KeyBy(by_name))? {
                            match key {
                                $(Key::$field => {
                                    seen.mark(key as u32, $key)?;
                                    out.$field = map.next_value()?;
                                })+
                                Key::__other => $crate::json::skip_unknown(&mut map)?,
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V(::std::marker::PhantomData))
            }
        }
    };
}

/// What [`read_by_key!`] expands to, so that a guest need not name serde's traits itself.
#[doc(hidden)]
pub mod __private {
    pub use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
}

#[cfg(test)]
mod tests {
    use super::Skipped;
    use serde_json::Value;

    /// `Skipped` accepts exactly what a `Value` parse accepts.
    #[test]
    fn skipped_accepts_and_rejects_what_a_value_parse_does() {
        let deep_ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let too_deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let long_number = "9".repeat(400);
        for text in [
            r#"{"a":[1,-2.5,3e10,{"b":"x\n\"y\u00e9 \ud83d\ude00"}],"c":null,"d":true}"#,
            r#"{"n":1e400}"#,
            r#"{"n":-1e400}"#,
            r#"{"s":"\ud800"}"#,
            r#"{"s":"\ud800\u0041"}"#,
            r#"{"s":"\udc00"}"#,
            "{\"s\":\"a\u{1}b\"}",
            r#"{"k\ud800":1}"#,
            r#"{"a":1,}"#,
            r#"[1 2]"#,
            r#"{"a":01}"#,
            deep_ok.as_str(),
            too_deep.as_str(),
            long_number.as_str(),
            "18446744073709551616",
            "",
            "nul",
        ] {
            let value = serde_json::from_str::<Value>(text).is_ok();
            let skipped = serde_json::from_str::<Skipped>(text).is_ok();
            assert_eq!(skipped, value, "{text}");
        }
    }
}
