//! Small text helpers shared by the adapters' classifiers and decoders.

/// Bodies quoted into a failure message are cut to this many characters: enough to recognise an
/// HTML error page or a proxy's complaint, short enough for a log line.
pub const QUOTE_CHARS: usize = 300;

/// A provider's own message is kept verbatim, but not without bound (a server's validation dump
/// can run to kilobytes).
pub const MESSAGE_CHARS: usize = 2000;

/// `text` cut to `max` characters (with `…`), otherwise unchanged.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// `text` with runs of whitespace collapsed to one space, cut to `max` characters (with `…`).
pub fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
            count += 1;
        }
        for c in word.chars() {
            if count >= max {
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// Lower-cased, whitespace-collapsed, backticks removed: the form message patterns are matched on,
/// so that `max_tokens` and a message broken across lines still match.
pub fn normalize(text: &str) -> String {
    text.replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A code written as one word with underscores ("no_such_model", "QUEUE_IS_FULL"), in the words it
/// is made of, lower-cased ("no such model"): what the wording rules read of it. `None` for
/// anything else (words with spaces, a word without an underscore).
pub fn words_of_a_code(text: &str) -> Option<String> {
    let word = text.trim();
    (!word.contains(char::is_whitespace) && word.contains('_'))
        .then(|| word.replace('_', " ").to_ascii_lowercase())
}

/// The words of a key in camelCase or snake_case ("exceededBillingLimit" → "exceeded billing
/// limit", "rate_limited" → "rate limited"), lower-cased: a flag's name read as words. `None`
/// for a key of one word, which names no more than itself.
pub fn words_of_a_key(key: &str) -> Option<String> {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in key.trim().chars() {
        if c == '_' || c == '-' {
            out.push(' ');
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower {
            out.push(' ');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_lowercase());
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    out.contains(' ').then_some(out)
}

/// The words of a class name in CamelCase ("PromptTooLongException" → "prompt too long
/// exception", "OpenAIError" → "open ai error"), lower-cased: a word break before each capital
/// that follows a lower-case letter, or that starts a word after a run of capitals. `None` for
/// text that is not one such word.
pub fn words_of_a_class(text: &str) -> Option<String> {
    let word = text.trim().trim_end_matches(['.', '!']);
    let chars: Vec<char> = word.chars().collect();
    let camel = !chars.is_empty()
        && chars.iter().all(char::is_ascii_alphanumeric)
        && chars[0].is_ascii_uppercase()
        && chars
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    if !camel {
        return None;
    }
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        let after_lower = i > 0 && chars[i - 1].is_ascii_lowercase();
        let starts_word = i > 0
            && chars[i - 1].is_ascii_uppercase()
            && chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
        if c.is_ascii_uppercase() && (after_lower || starts_word) {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    Some(out)
}

/// A text short enough to be a sentence or two in plain words, and not an HTML page: what an
/// adapter reads as an error's words when a 2xx body is neither an answer nor an error envelope
/// (kgateway's "Rejected by guardrails moderation"). `None` for anything else.
pub fn plain_words(text: &str) -> Option<&str> {
    const GUARD_TEXT_CHARS: usize = 1_000;
    let said = text.trim();
    (!said.is_empty() && said.len() <= GUARD_TEXT_CHARS && !looks_like_html(said)).then_some(said)
}

/// Whether the body looks like an HTML page (a proxy's or CDN's error page).
pub fn looks_like_html(text: &str) -> bool {
    let start = text
        .trim_start()
        .get(..15)
        .unwrap_or(text.trim_start())
        .to_ascii_lowercase();
    start.starts_with("<!doctype html")
        || start.starts_with("<html")
        || start.starts_with("<head")
        || start.starts_with("<body")
        || start.starts_with("<?xml")
}

/// The `<title>` of an HTML page, if it has a non-empty one.
pub fn html_title(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title = excerpt(text.get(start..end)?, QUOTE_CHARS);
    (!title.is_empty()).then_some(title)
}

/// A request id quoted in a message, as OpenAI does in its 5xx texts: "(Please include the request
/// ID 500d9fff2057e4af93a280f67002c342 in your message.)" or "request ID req_540c…".
pub fn request_id_in_text(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("request id") {
        let after = from + pos + "request id".len();
        let rest = text[after..].trim_start_matches([' ', ':', '=', '\'', '"']);
        let id: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        // "request ID in your email" must not yield "in": a real id is long and has digits.
        if id.len() >= 8 && id.chars().any(|c| c.is_ascii_digit()) {
            return Some(id);
        }
        from = after;
    }
    None
}

/// The standard reason phrase of an HTTP status, for messages built without provider wording.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        524 => "A Timeout Occurred",
        529 => "Overloaded",
        _ => "",
    }
}

/// `HTTP 429 Too Many Requests`, or `HTTP 599` for a status without a standard phrase.
pub fn status_line(status: u16) -> String {
    match reason_phrase(status) {
        "" => format!("HTTP {status}"),
        phrase => format!("HTTP {status} {phrase}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_collapses_and_cuts_on_char_boundaries() {
        assert_eq!(excerpt("  a \n\t b  ", 10), "a b");
        assert_eq!(excerpt("ééééé", 3), "ééé…");
        assert_eq!(excerpt("", 3), "");
        assert_eq!(clip("a\nbcd", 3), "a\nb…");
        assert_eq!(clip("abc", 3), "abc");
    }

    #[test]
    fn request_ids_in_openai_wording() {
        let m = "contact us (Please include the request ID 500d9fff2057e4af93a280f67002c342 in your message.)";
        assert_eq!(
            request_id_in_text(m).as_deref(),
            Some("500d9fff2057e4af93a280f67002c342")
        );
        let m = "include the request ID req_540c6eaab7f4556b2baa22bcba915d51 in your email.";
        assert_eq!(
            request_id_in_text(m).as_deref(),
            Some("req_540c6eaab7f4556b2baa22bcba915d51")
        );
        assert_eq!(
            request_id_in_text("Please include the request ID in your email"),
            None
        );
        assert_eq!(request_id_in_text("no id here"), None);
    }

    #[test]
    fn html_detection_and_title() {
        let page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
        assert!(looks_like_html(page));
        assert_eq!(html_title(page).as_deref(), Some("502 Bad Gateway"));
        assert!(!looks_like_html("{\"error\":1}"));
        assert_eq!(html_title("<html><title></title></html>"), None);
    }
}
