//! An adapter's HTTP plan, checked before any connection: the method, the URL, the header names and
//! values, the body size, and where the credential placeholder may stand. Pure code.
//!
//! A plan that fails a check is the guest's mistake, never the network's: it is `ADAPTER_FAULT`
//! naming the guest and the field (`plan.headers[2] name "bad name"`), which the retry policy does not
//! retry, and nothing is sent. (Left to reqwest, an invalid header became a `NETWORK` failure retried
//! five times without a byte leaving the host.)

use crate::adapter::{CompletionRequest, HttpPlan};
use crate::failure::LlmFailure;
use reqwest::header::HeaderName;

/// The placeholder an adapter puts in a header value where the provider's key goes.
pub const CREDENTIAL_PLACEHOLDER: &str = "{credential}";

/// A request body larger than this is refused: no completion request is that large (a long
/// conversation with images is a few MiB), and the copy out of the guest has already cost memory.
pub const MAX_PLAN_BODY_BYTES: usize = 32 << 20;

/// More headers than this is a guest bug (real adapters set fewer than ten).
pub const MAX_PLAN_HEADERS: usize = 100;

/// The methods a completion request can use. Method names are case-sensitive (RFC 9110), so `post`
/// is refused with a hint rather than sent as a different method.
pub const ALLOWED_METHODS: &[&str] = &["POST", "GET", "PUT", "PATCH"];

/// Headers the host's HTTP client owns: the target host, the framing of the body, the connection.
/// A plan that sets one could send the request (and its key) elsewhere than the URL says, or
/// desynchronise the connection.
pub const FORBIDDEN_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "upgrade",
    "te",
    "trailer",
];

/// A plan that passed every check, in the HTTP client's types. Header values still hold the
/// placeholder, and only in the provider's credential headers: the transport inserts the key.
#[derive(Debug)]
pub struct CheckedPlan<'a> {
    pub method: reqwest::Method,
    pub url: reqwest::Url,
    pub headers: Vec<(HeaderName, &'a str)>,
    pub body: &'a [u8],
}

/// Checks `plan`, made by guest `guest` for `request` to provider `provider`. `credential_headers`:
/// the lower-case header names this provider's key may go in.
pub fn check<'a>(
    plan: &'a HttpPlan,
    guest: &str,
    provider: &str,
    credential_headers: &[String],
    request: &CompletionRequest,
) -> Result<CheckedPlan<'a>, LlmFailure> {
    let fault = |what: String| {
        LlmFailure::adapter_fault(guest, format!("planned an invalid request: {what}"))
    };

    if !ALLOWED_METHODS.contains(&plan.method.as_str()) {
        let hint = if ALLOWED_METHODS.contains(&plan.method.to_ascii_uppercase().as_str()) {
            " (method names are case-sensitive: write it in capitals)".to_string()
        } else {
            format!(" (allowed: {})", ALLOWED_METHODS.join(", "))
        };
        return Err(fault(format!(
            "plan.method {:?} is not a method dsh-host sends{hint}",
            plan.method
        )));
    }

    if contains_placeholder(&plan.url) {
        return Err(fault(format!(
            "plan.url holds {CREDENTIAL_PLACEHOLDER}; the key goes only in the provider's credential header(s) ({})",
            credential_headers.join(", ")
        )));
    }
    let url = reqwest::Url::parse(&plan.url).map_err(|e| {
        fault(format!(
            "plan.url {:?} is not an absolute URL ({e})",
            plan.url
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(fault(format!(
            "plan.url {:?} is not an http(s) URL with a host",
            plan.url
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // The HTTP client would turn these into an Authorization header the provider's policy never saw.
        return Err(fault(format!(
            "plan.url {:?} carries a user name or password; credentials go in headers",
            redact_userinfo(&url)
        )));
    }

    if plan.headers.len() > MAX_PLAN_HEADERS {
        return Err(fault(format!(
            "plan.headers has {} headers, more than {MAX_PLAN_HEADERS}",
            plan.headers.len()
        )));
    }
    let mut headers = Vec::with_capacity(plan.headers.len());
    for (i, (name, value)) in plan.headers.iter().enumerate() {
        let parsed = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| fault(format!("plan.headers[{i}] name {name:?} is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only)")))?;
        if FORBIDDEN_HEADERS.contains(&parsed.as_str()) {
            return Err(fault(format!(
                "plan.headers[{i}] sets {:?}, which only the host's HTTP client may set (it controls where the request goes and how it is framed)",
                parsed.as_str()
            )));
        }
        if let Some((at, what)) = invalid_value_char(value) {
            return Err(fault(format!(
                "plan.headers[{i}] value of {:?} {what} at character {}; a header value is visible ASCII, spaces and tabs",
                parsed.as_str(),
                at + 1
            )));
        }
        if contains_placeholder(value) && !credential_headers.iter().any(|h| h == parsed.as_str()) {
            return Err(fault(format!(
                "plan.headers[{i}] {:?} holds {CREDENTIAL_PLACEHOLDER}, but this provider's key goes only in {}; \
                 set credential_headers under [providers.{provider}] if the provider really reads its key from {:?}",
                parsed.as_str(),
                credential_headers.join(", "),
                parsed.as_str()
            )));
        }
        headers.push((parsed, value.as_str()));
    }

    if plan.body.len() > MAX_PLAN_BODY_BYTES {
        return Err(fault(format!(
            "plan.body is {} bytes, more than the {} MiB dsh-host sends",
            plan.body.len(),
            MAX_PLAN_BODY_BYTES >> 20
        )));
    }
    // The host never inserts the key into a body, so a placeholder there is an adapter expecting what
    // will not happen -- unless the conversation itself holds the text (a user asking about adapters),
    // which the adapter rightly copied.
    if contains_bytes(&plan.body, CREDENTIAL_PLACEHOLDER.as_bytes())
        && !request_mentions_placeholder(request)
    {
        return Err(fault(format!(
            "plan.body holds {CREDENTIAL_PLACEHOLDER}; the host inserts the key only in the provider's credential header(s) ({})",
            credential_headers.join(", ")
        )));
    }

    Ok(CheckedPlan {
        method: reqwest::Method::from_bytes(plan.method.as_bytes()).expect("an allowed method"),
        url,
        headers,
        body: &plan.body,
    })
}

/// The placeholder, also percent-encoded (a URL parser encodes braces in a path).
fn contains_placeholder(text: &str) -> bool {
    text.contains(CREDENTIAL_PLACEHOLDER) || text.to_ascii_lowercase().contains("%7bcredential%7d")
}

fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn request_mentions_placeholder(request: &CompletionRequest) -> bool {
    request.contains_text(CREDENTIAL_PLACEHOLDER)
}

/// The first character an HTTP header value cannot carry (anything but visible ASCII, space and
/// tab), with its position and a description that does not print it (it may be next to a secret).
pub fn invalid_value_char(value: &str) -> Option<(usize, &'static str)> {
    value.chars().enumerate().find_map(|(i, c)| {
        let what = match c {
            '\r' | '\n' => "contains a line break",
            '\0' => "contains a NUL byte",
            c if c.is_ascii_control() && c != '\t' => "contains a control character",
            c if !c.is_ascii() => "contains a non-ASCII character",
            _ => return None,
        };
        Some((i, what))
    })
}

fn redact_userinfo(url: &reqwest::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string()
}

/// Checks a configured `credential_headers` list: valid names, none the HTTP client owns.
/// Returns the names in lower case.
pub fn check_credential_headers(names: &[String]) -> Result<Vec<String>, String> {
    if names.is_empty() {
        return Err("credential_headers is empty; name the header(s) the provider reads its key from, e.g. [\"authorization\"] \
                    (for a server that needs no key, set api_key_required = false instead)"
            .into());
    }
    names
        .iter()
        .map(|name| {
            let parsed = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                format!("credential_headers has {name:?}, which is not a valid HTTP header name")
            })?;
            if FORBIDDEN_HEADERS.contains(&parsed.as_str()) {
                return Err(format!(
                    "credential_headers has {name:?}, a header only the HTTP client may set"
                ));
            }
            Ok(parsed.as_str().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(text: &str) -> CompletionRequest {
        CompletionRequest::new(
            "m",
            vec![crate::adapter::Message::new(
                crate::adapter::Role::User,
                text,
            )],
        )
    }

    fn plan() -> HttpPlan {
        HttpPlan {
            method: "POST".into(),
            url: "https://api.example.com/v1/chat/completions".into(),
            headers: vec![
                ("authorization".into(), "Bearer {credential}".into()),
                ("content-type".into(), "application/json".into()),
            ],
            body: br#"{"model":"m"}"#.to_vec(),
        }
    }

    fn fault(p: HttpPlan) -> String {
        fault_for(p, "hi")
    }

    fn fault_for(p: HttpPlan, text: &str) -> String {
        let f = check(
            &p,
            "hostile",
            "p",
            &["authorization".into()],
            &request(text),
        )
        .unwrap_err();
        assert_eq!(f.code, "ADAPTER_FAULT", "{f}");
        assert!(
            f.message
                .starts_with("guest 'hostile': planned an invalid request: "),
            "{f}"
        );
        f.message
    }

    #[test]
    fn a_well_formed_plan_passes_with_the_placeholder_in_place() {
        let p = plan();
        let checked = check(&p, "openai", "p", &["authorization".into()], &request("hi")).unwrap();
        assert_eq!(checked.method, reqwest::Method::POST);
        assert_eq!(
            checked.url.as_str(),
            "https://api.example.com/v1/chat/completions"
        );
        assert_eq!(checked.headers[0].0.as_str(), "authorization");
        assert_eq!(checked.headers[0].1, "Bearer {credential}");
    }

    #[test]
    fn methods_outside_the_list_are_refused() {
        for (method, expect) in [
            ("DELETE", "allowed: POST"),
            ("CONNECT", "allowed"),
            ("post", "case-sensitive"),
            ("PO ST", "allowed"),
            ("", "allowed"),
        ] {
            let e = fault(HttpPlan {
                method: method.into(),
                ..plan()
            });
            assert!(
                e.contains("plan.method") && e.contains(expect),
                "{method}: {e}"
            );
        }
    }

    #[test]
    fn urls_must_be_absolute_http_without_userinfo() {
        for (url, expect) in [
            ("/v1/chat/completions", "not an absolute URL"),
            ("ftp://api.example.com/x", "not an http(s) URL"),
            (
                "https://user:hunter2@api.example.com/x",
                "user name or password",
            ),
        ] {
            let e = fault(HttpPlan {
                url: url.into(),
                ..plan()
            });
            assert!(e.contains("plan.url") && e.contains(expect), "{url}: {e}");
            assert!(!e.contains("hunter2"), "the password is not repeated: {e}");
        }
    }

    #[test]
    fn header_names_and_values_are_checked_naming_the_index() {
        let mut p = plan();
        p.headers.push(("bad name".into(), "x".into()));
        let e = fault(p);
        assert!(e.contains(r#"plan.headers[2] name "bad name""#), "{e}");

        for (value, what) in [
            ("a\r\nx-injected: 1", "line break"),
            ("a\0b", "NUL"),
            ("caf\u{e9}", "non-ASCII"),
            ("a\u{7f}", "control"),
        ] {
            let mut p = plan();
            p.headers[1].1 = value.into();
            let e = fault(p);
            assert!(
                e.contains(r#"plan.headers[1] value of "content-type""#) && e.contains(what),
                "{value:?}: {e}"
            );
        }
        let mut p = plan();
        p.headers[1].1 = "text/plain;\tq=1 ".into();
        check(&p, "g", "p", &["authorization".into()], &request("hi")).unwrap();
    }

    #[test]
    fn headers_the_client_owns_are_refused_in_any_case() {
        for name in [
            "Host",
            "content-length",
            "Transfer-Encoding",
            "connection",
            "keep-alive",
            "Proxy-Connection",
            "upgrade",
            "TE",
            "trailer",
        ] {
            let mut p = plan();
            p.headers.push((name.into(), "x".into()));
            let e = fault(p);
            assert!(
                e.contains(&format!("sets {:?}", name.to_ascii_lowercase())),
                "{name}: {e}"
            );
        }
    }

    #[test]
    fn the_placeholder_goes_only_in_credential_headers() {
        let mut p = plan();
        p.headers.push(("x-exfil".into(), "{credential}".into()));
        let e = fault(p);
        assert!(
            e.contains(r#"plan.headers[2] "x-exfil" holds {credential}"#)
                && e.contains("credential_headers under [providers.p]"),
            "{e}"
        );

        let mut p = plan();
        p.headers[0].0 = "Cookie".into();
        assert!(fault(p).contains(r#""cookie" holds {credential}"#));

        for url in [
            "https://api.example.com/v1/x?key={credential}",
            "https://api.example.com/v1/{credential}/x",
            "https://api.example.com/v1/%7Bcredential%7D",
        ] {
            let e = fault(HttpPlan {
                url: url.into(),
                ..plan()
            });
            assert!(e.contains("plan.url holds {credential}"), "{url}: {e}");
        }

        let e = fault(HttpPlan {
            body: br#"{"api_key":"{credential}"}"#.to_vec(),
            ..plan()
        });
        assert!(e.contains("plan.body holds {credential}"), "{e}");

        // A provider whose key goes in another header declares it.
        let mut p = plan();
        p.headers[0] = ("x-goog-api-key".into(), "{credential}".into());
        check(
            &p,
            "gemini",
            "p",
            &["x-goog-api-key".into()],
            &request("hi"),
        )
        .unwrap();
    }

    #[test]
    fn a_conversation_that_mentions_the_placeholder_is_not_the_adapters_fault() {
        let p = HttpPlan {
            body: br#"{"messages":[{"content":"what does Bearer {credential} mean?"}]}"#.to_vec(),
            ..plan()
        };
        check(
            &p,
            "openai",
            "p",
            &["authorization".into()],
            &request("what does Bearer {credential} mean?"),
        )
        .unwrap();
    }

    #[test]
    fn bodies_and_header_lists_are_capped() {
        let e = fault(HttpPlan {
            body: vec![b' '; MAX_PLAN_BODY_BYTES + 1],
            ..plan()
        });
        assert!(
            e.contains("plan.body is 33554433 bytes, more than the 32 MiB"),
            "{e}"
        );
        let mut p = plan();
        p.headers = (0..=MAX_PLAN_HEADERS)
            .map(|i| (format!("x-h{i}"), "v".into()))
            .collect();
        assert!(fault(p).contains("plan.headers has 101 headers"));
    }

    #[test]
    fn configured_credential_headers_are_checked() {
        assert_eq!(
            check_credential_headers(&["X-Api-Key".into()]).unwrap(),
            ["x-api-key"]
        );
        assert!(
            check_credential_headers(&[])
                .unwrap_err()
                .contains("api_key_required = false")
        );
        assert!(
            check_credential_headers(&["bad name".into()])
                .unwrap_err()
                .contains("not a valid HTTP header name")
        );
        assert!(
            check_credential_headers(&["Host".into()])
                .unwrap_err()
                .contains("only the HTTP client")
        );
    }
}
