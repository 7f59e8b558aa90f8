//! Placeholders that make the mock echo the request into its answer, as some real providers do
//! ("Incorrect API key provided: sk-..."): `{{header:NAME}}`, `{{api_key}}`, `{{request.headers}}`.
//!
//! A script's strings are checked once at load (`check`), so an unknown placeholder is a script
//! error naming the field; at answer time `Echo::fill` only substitutes.

use serde_json::Value;
use std::borrow::Cow;

/// For error messages: every placeholder there is.
pub const PLACEHOLDERS: &str = "{{header:NAME}}, {{api_key}} or {{request.headers}}";

enum Placeholder<'a> {
    Header(&'a str),
    ApiKey,
    RequestHeaders,
}

enum Part<'a> {
    Text(&'a str),
    Placeholder(Placeholder<'a>),
}

/// Walks a template. `{{` opens a placeholder only when the text up to the next `}}` looks like
/// a placeholder name (letters, digits, `_ . : -`), so JSON written as text (`{"a":{"b":1}}`) is
/// never mistaken for one. A name that looks like a placeholder but is none is an error: a typo
/// must not go out as literal text.
fn scan<'a>(s: &'a str, mut part: impl FnMut(Part<'a>)) -> Result<(), String> {
    let mut rest = s;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let name = after.find("}}").map(|end| &after[..end]).filter(|n| {
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b))
        });
        let Some(name) = name else {
            // Not a placeholder: keep one `{` and look again from the next one, so `{{{api_key}}}`
            // is a brace around a placeholder.
            part(Part::Text(&rest[..open + 1]));
            rest = &rest[open + 1..];
            continue;
        };
        part(Part::Text(&rest[..open]));
        let placeholder = match name {
            "api_key" => Placeholder::ApiKey,
            "request.headers" => Placeholder::RequestHeaders,
            _ => match name.strip_prefix("header:") {
                Some(h) if !h.is_empty() && !h.contains(':') => Placeholder::Header(h),
                _ => {
                    return Err(format!(
                        "unknown placeholder {{{{{name}}}}}; use {PLACEHOLDERS}"
                    ));
                }
            },
        };
        part(Part::Placeholder(placeholder));
        rest = &after[name.len() + 2..];
    }
    part(Part::Text(rest));
    Ok(())
}

/// Refuses a string with an unknown placeholder; the message names the placeholders there are.
pub fn check(s: &str) -> Result<(), String> {
    scan(s, |_| {})
}

/// Every string of a JSON value (not the keys), checked as `check` does.
pub fn check_json(v: &Value) -> Result<(), String> {
    match v {
        Value::String(s) => check(s),
        Value::Array(items) => items.iter().try_for_each(check_json),
        Value::Object(map) => map.values().try_for_each(check_json),
        _ => Ok(()),
    }
}

/// What a request carried, for the placeholders of the step that answers it.
#[derive(Debug, Clone, Default)]
pub struct Echo {
    /// Names lower-cased, in the order received.
    headers: Vec<(String, String)>,
    /// With the query, for Gemini's `?key=`.
    path: String,
}

impl Echo {
    pub fn new(headers: &[(String, String)], path: &str) -> Echo {
        Echo {
            headers: headers.to_vec(),
            path: path.to_string(),
        }
    }

    /// The template with its placeholders replaced. A string without `{{` is borrowed as is, so
    /// a script without placeholders costs nothing. Header values come out on one line (a line
    /// break, which a valid request cannot carry anyway, becomes a space), so an echo can never
    /// split a response head.
    pub fn fill<'s>(&self, template: &'s str) -> Cow<'s, str> {
        if !template.contains("{{") {
            return Cow::Borrowed(template);
        }
        let mut out = String::with_capacity(template.len());
        // Checked at load; an unchecked (built-in-code) template keeps what it had up to the error.
        let _ = scan(template, |p| match p {
            Part::Text(t) => out.push_str(t),
            Part::Placeholder(Placeholder::Header(name)) => {
                out.push_str(&one_line(self.header(name).unwrap_or_default()))
            }
            Part::Placeholder(Placeholder::ApiKey) => out.push_str(&one_line(&self.api_key())),
            Part::Placeholder(Placeholder::RequestHeaders) => out.push_str(&self.headers_json()),
        });
        Cow::Owned(out)
    }

    /// The value with every string filled; a JSON string stays a JSON string, so what is inserted
    /// is escaped when the value is serialised.
    pub fn fill_json(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.fill(s).into_owned()),
            Value::Array(items) => items.iter().map(|i| self.fill_json(i)).collect(),
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| (k.clone(), self.fill_json(v)))
                .collect(),
            other => other.clone(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The key as a provider reads it: `authorization` without its `Bearer ` scheme, else
    /// `x-api-key` (Anthropic), else `x-goog-api-key` (Gemini), else the `key` query parameter.
    fn api_key(&self) -> String {
        if let Some(auth) = self.header("authorization") {
            return match auth.split_once(' ') {
                Some((scheme, key)) if scheme.eq_ignore_ascii_case("bearer") => key.trim().into(),
                _ => auth.into(),
            };
        }
        if let Some(key) = self
            .header("x-api-key")
            .or_else(|| self.header("x-goog-api-key"))
        {
            return key.into();
        }
        let query = self
            .path
            .split_once('?')
            .map(|(_, q)| q)
            .unwrap_or_default();
        query
            .split('#')
            .next()
            .unwrap_or_default()
            .split('&')
            .find_map(|kv| kv.strip_prefix("key="))
            .unwrap_or_default()
            .into()
    }

    /// Every header as one JSON object (names lower-cased, sorted; a repeated name's values
    /// joined with `, `, as HTTP combines them): valid JSON wherever it is inserted as text.
    fn headers_json(&self) -> String {
        let mut map = serde_json::Map::new();
        for (name, value) in &self.headers {
            let value = one_line(value);
            match map.get_mut(name) {
                Some(Value::String(v)) => {
                    v.push_str(", ");
                    v.push_str(&value);
                }
                _ => {
                    map.insert(name.clone(), Value::String(value.into_owned()));
                }
            }
        }
        Value::Object(map).to_string()
    }
}

fn one_line(s: &str) -> Cow<'_, str> {
    if s.contains(['\r', '\n']) {
        Cow::Owned(s.replace(['\r', '\n'], " "))
    } else {
        Cow::Borrowed(s)
    }
}
