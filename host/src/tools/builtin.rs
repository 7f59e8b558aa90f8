//! The CLI's built-in tool set (`dsh-host run --tools`, and the demo): a clock and a calculator.
//! Small on purpose: enough to show a turn of several steps, a tool error and its correction.

use super::ToolRegistry;
use serde_json::{Value, json};
use std::time::SystemTime;

/// The names of the built-in tools, in the order they are offered.
pub const BUILTIN_TOOLS: &[&str] = &["clock", "calculator"];

/// A registry holding `clock` and `calculator`.
pub fn builtin_tools() -> ToolRegistry {
    let mut tools = ToolRegistry::new();
    tools
        .register(
            "clock",
            "The current date and time in UTC (RFC 3339, e.g. 2026-11-29T21:40:00Z). Takes no arguments.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            |_| async { Ok(humantime::format_rfc3339_seconds(SystemTime::now()).to_string()) },
        )
        .expect("the clock tool registers");
    tools
        .register(
            "calculator",
            "Evaluates an arithmetic expression: numbers, + - * /, parentheses. Example: (2 + 3) * 4.5",
            json!({
                "type": "object",
                "properties": {
                    "expression": {
                        "type": "string",
                        "description": "The expression, e.g. \"(2 + 3) * 4.5\""
                    }
                },
                "required": ["expression"],
                "additionalProperties": false
            }),
            |args: Value| async move {
                let expression = args["expression"].as_str().unwrap_or_default();
                evaluate(expression).map(format_number)
            },
        )
        .expect("the calculator tool registers");
    tools
}

/// Evaluates `+ - * /` and parentheses over decimal numbers (with an optional exponent), with the
/// usual precedence; unary `+` and `-`. Errors say what is wrong and where.
pub fn evaluate(expression: &str) -> Result<f64, String> {
    let mut p = Parser {
        chars: expression.chars().collect(),
        pos: 0,
        depth: 0,
    };
    p.skip_spaces();
    if p.pos == p.chars.len() {
        return Err("the expression is empty".into());
    }
    let value = p.sum()?;
    p.skip_spaces();
    if let Some(c) = p.peek() {
        return Err(format!(
            "unexpected {c:?} at position {} (only numbers, + - * / and parentheses are understood)",
            p.pos + 1
        ));
    }
    if !value.is_finite() {
        return Err("the result is too large to represent".into());
    }
    Ok(value)
}

/// Whole numbers without a fraction (`42`, not `42.0`); others as Rust prints them.
pub fn format_number(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// Nesting deeper than this is refused (it would only be an attack on the stack).
const MAX_DEPTH: u32 = 200;

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: u32,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut value = self.product()?;
        loop {
            self.skip_spaces();
            match self.peek() {
                Some('+') => {
                    self.pos += 1;
                    value += self.product()?;
                }
                Some('-') => {
                    self.pos += 1;
                    value -= self.product()?;
                }
                _ => return Ok(value),
            }
        }
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut value = self.factor()?;
        loop {
            self.skip_spaces();
            match self.peek() {
                Some('*') => {
                    self.pos += 1;
                    value *= self.factor()?;
                }
                Some('/') => {
                    let at = self.pos + 1;
                    self.pos += 1;
                    let divisor = self.factor()?;
                    if divisor == 0.0 {
                        return Err(format!("division by zero (the '/' at position {at})"));
                    }
                    value /= divisor;
                }
                _ => return Ok(value),
            }
        }
    }

    fn factor(&mut self) -> Result<f64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "the expression nests deeper than {MAX_DEPTH} levels"
            ));
        }
        let value = self.factor_inner();
        self.depth -= 1;
        value
    }

    fn factor_inner(&mut self) -> Result<f64, String> {
        self.skip_spaces();
        match self.peek() {
            Some('-') => {
                self.pos += 1;
                Ok(-self.factor()?)
            }
            Some('+') => {
                self.pos += 1;
                self.factor()
            }
            Some('(') => {
                let open = self.pos + 1;
                self.pos += 1;
                let value = self.sum()?;
                self.skip_spaces();
                if self.peek() != Some(')') {
                    return Err(format!(
                        "the '(' at position {open} is never closed with ')'"
                    ));
                }
                self.pos += 1;
                Ok(value)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) => Err(format!(
                "expected a number or '(' at position {}, found {c:?}",
                self.pos + 1
            )),
            None => Err("the expression ends where a number was expected".into()),
        }
    }

    fn number(&mut self) -> Result<f64, String> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
            self.pos += 1;
        }
        // An exponent: 1e3, 2.5E-4.
        if matches!(self.peek(), Some('e' | 'E')) {
            let mark = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.pos += 1;
            }
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else {
                self.pos = mark;
            }
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        text.parse::<f64>()
            .map_err(|_| format!("{text:?} at position {} is not a number", start + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_with_precedence_and_parentheses() {
        for (expr, want) in [
            ("2+2", 4.0),
            ("2 + 3 * 4", 14.0),
            ("(2 + 3) * 4", 20.0),
            ("-3 - -2", -1.0),
            ("7 / 2", 3.5),
            ("1.5e3 + .5", 1500.5),
            (" ( ( 1 ) ) ", 1.0),
            ("10 - 4 - 3", 3.0),
            ("64 / 4 / 2", 8.0),
            ("+5", 5.0),
        ] {
            assert_eq!(evaluate(expr), Ok(want), "{expr}");
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        let cases = [
            ("", "empty"),
            ("   ", "empty"),
            ("1 / 0", "division by zero"),
            ("1 / (2 - 2)", "division by zero"),
            ("(1 + 2", "never closed"),
            ("2 +", "ends where a number was expected"),
            ("2 ^ 3", "unexpected '^' at position 3"),
            ("two", "expected a number"),
            ("1..2", "is not a number"),
            ("1e999 * 10", "too large"),
        ];
        for (expr, want) in cases {
            let err = evaluate(expr).unwrap_err();
            assert!(err.contains(want), "{expr:?}: {err}");
        }
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(evaluate(&deep).unwrap_err().contains("nests deeper"));
    }

    #[test]
    fn whole_numbers_print_without_a_fraction() {
        assert_eq!(format_number(4.0), "4");
        assert_eq!(format_number(-12.0), "-12");
        assert_eq!(format_number(3.5), "3.5");
        assert_eq!(format_number(1e20), "100000000000000000000");
    }

    #[tokio::test]
    async fn the_builtin_tools_answer() {
        let tools = builtin_tools();
        assert_eq!(tools.names(), BUILTIN_TOOLS);
        let (_, out) = tools.call("calculator", r#"{"expression":"6*7"}"#).await;
        assert_eq!((out.content.as_str(), out.is_error), ("42", false));
        let (_, out) = tools.call("calculator", r#"{"expression":"1/0"}"#).await;
        assert!(out.is_error);
        assert!(
            out.content
                .starts_with("Error: `calculator` failed: division by zero"),
            "{}",
            out.content
        );
        let (parsed, out) = tools.call("clock", "").await;
        assert_eq!(parsed.stored_text(), "{}");
        assert!(!out.is_error);
        humantime::parse_rfc3339(&out.content).expect("an RFC 3339 time");
        assert!(out.content.ends_with('Z'), "UTC: {}", out.content);
    }
}
