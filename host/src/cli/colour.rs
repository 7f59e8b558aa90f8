//! Colour for the terminal: failure codes and outcomes stand out in `run` and `log`. Colour is on
//! only when the stream is a terminal and `NO_COLOR` is unset or empty (https://no-color.org); piped
//! or redirected output never holds an escape sequence.

use console::Style;
use std::io::IsTerminal;

/// The styles of one output stream; every method returns its text unchanged when colour is off.
#[derive(Debug, Clone)]
pub struct Palette {
    enabled: bool,
}

impl Palette {
    pub fn new(enabled: bool) -> Self {
        Palette { enabled }
    }

    /// Colour for stderr, where `run` writes everything but the answer.
    pub fn stderr() -> Self {
        Palette::new(wanted(
            std::io::stderr().is_terminal(),
            std::env::var_os("NO_COLOR"),
        ))
    }

    /// Colour for stdout (`log`, `sessions list`).
    pub fn stdout() -> Self {
        Palette::new(wanted(
            std::io::stdout().is_terminal(),
            std::env::var_os("NO_COLOR"),
        ))
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    fn paint(&self, style: Style, text: &str) -> String {
        style.force_styling(self.enabled).apply_to(text).to_string()
    }

    /// A canonical failure code (`RATE_LIMITED`), or `error:`.
    pub fn failure(&self, text: &str) -> String {
        self.paint(Style::new().red().bold(), text)
    }

    /// A retry, or an outcome not final yet (`unfinished`).
    pub fn retry(&self, text: &str) -> String {
        self.paint(Style::new().yellow(), text)
    }

    /// A completed turn.
    pub fn success(&self, text: &str) -> String {
        self.paint(Style::new().green(), text)
    }

    /// What is there for reference (a session id, a time).
    pub fn dim(&self, text: &str) -> String {
        self.paint(Style::new().dim(), text)
    }

    /// An outcome as `sessions list` and `log` show it: `completed`, `failed (CODE)`, `unfinished`...
    pub fn outcome(&self, text: &str) -> String {
        if text.starts_with("completed") {
            self.success(text)
        } else if text.starts_with("failed") || text.starts_with("unreadable") {
            self.failure(text)
        } else {
            self.retry(text)
        }
    }
}

/// Colour is wanted on a terminal, unless `NO_COLOR` holds a value.
pub fn wanted(is_terminal: bool, no_color: Option<std::ffi::OsString>) -> bool {
    is_terminal && no_color.is_none_or(|v| v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        assert!(wanted(true, None));
        assert!(
            wanted(true, Some("".into())),
            "an empty NO_COLOR is unset (no-color.org)"
        );
        assert!(!wanted(true, Some("1".into())));
        assert!(!wanted(false, None));
    }

    #[test]
    fn a_palette_that_is_off_returns_the_text_unchanged() {
        let off = Palette::new(false);
        assert_eq!(off.failure("RATE_LIMITED"), "RATE_LIMITED");
        assert_eq!(off.outcome("completed"), "completed");
        let on = Palette::new(true);
        let red = on.failure("RATE_LIMITED");
        assert!(
            red.starts_with("\u{1b}[") && red.contains("RATE_LIMITED"),
            "{red:?}"
        );
        assert!(
            on.outcome("completed").contains("\u{1b}[32m"),
            "completed is green"
        );
        assert!(
            on.outcome("failed (AUTH)").contains("\u{1b}[31m"),
            "failed is red"
        );
        assert!(
            on.outcome("unfinished").contains("\u{1b}[33m"),
            "unfinished is yellow"
        );
    }
}
