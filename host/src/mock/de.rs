//! Serde plumbing for the script: errors that name the step, and headers that keep their order.

use super::script::{Headers, Step};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

/// Reads `{"steps": [...], "comment": ...}` in one pass, noting in `current` the index of the step
/// being read. One pass (rather than parsing to `Value` first) keeps serde_json's line and column in
/// the error and the script's header order.
pub fn parse_steps(text: &str, current: &mut Option<usize>) -> serde_json::Result<Vec<Step>> {
    let cell = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let result = ScriptVisitor(&cell).deserialize(&mut de);
    *current = cell.get();
    let steps = result?;
    de.end()?; // trailing characters after the object
    Ok(steps)
}

struct ScriptVisitor<'a>(&'a Cell<Option<usize>>);

impl<'de> DeserializeSeed<'de> for ScriptVisitor<'_> {
    type Value = Vec<Step>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Step>, D::Error> {
        d.deserialize_map(self)
    }
}

const SCRIPT_FIELDS: &[&str] = &["steps", "comment"];

impl<'de> Visitor<'de> for ScriptVisitor<'_> {
    type Value = Vec<Step>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(r#"a mock script object {"steps": [...]}"#)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Step>, A::Error> {
        let mut steps = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "steps" if steps.is_some() => return Err(de::Error::duplicate_field("steps")),
                "steps" => steps = Some(map.next_value_seed(StepsSeed(self.0))?),
                // Free text for the reader (JSON has no comments); ignored.
                "comment" => drop(map.next_value::<String>()?),
                other => return Err(de::Error::unknown_field(other, SCRIPT_FIELDS)),
            }
        }
        steps.ok_or_else(|| de::Error::missing_field("steps"))
    }
}

struct StepsSeed<'a>(&'a Cell<Option<usize>>);

impl<'de> DeserializeSeed<'de> for StepsSeed<'_> {
    type Value = Vec<Step>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Step>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for StepsSeed<'_> {
    type Value = Vec<Step>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of steps")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Step>, A::Error> {
        let mut steps = Vec::new();
        loop {
            self.0.set(Some(steps.len()));
            match seq.next_element::<Step>()? {
                Some(step) => steps.push(step),
                None => break,
            }
        }
        self.0.set(None);
        Ok(steps)
    }
}

impl<'de> de::Deserialize<'de> for Headers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Headers;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("headers as an object of names to string values, or a list of [name, value] pairs")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Headers, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    out.push((k, v));
                }
                Ok(Headers(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Headers, A::Error> {
                let mut out = Vec::new();
                while let Some(pair) = seq.next_element::<(String, String)>()? {
                    out.push(pair);
                }
                Ok(Headers(out))
            }
        }
        d.deserialize_any(V)
    }
}
