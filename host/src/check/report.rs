//! What `dsh-host check` found: one row per case (case, expected, got, verdict, and the problems
//! behind a failed verdict), the measurements, and their two forms: a table for a person and the
//! JSON report of docs/check.md for a program.

use serde::Serialize;
use std::fmt::Write as _;

/// One checked case.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Where the case comes from: `corpus/retry-after.json`, a case file's path, `built-in`.
    pub source: String,
    pub case: String,
    pub expected: String,
    pub got: String,
    pub passed: bool,
    /// Why it failed, one line each (empty when it passed).
    pub problems: Vec<String>,
    /// Chunks decoded from the whole body and the guest time per chunk, for stream cases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub micros_per_event: Option<f64>,
}

impl Row {
    pub fn new(source: &str, case: &str, expected: impl Into<String>) -> Self {
        Row {
            source: source.to_string(),
            case: case.to_string(),
            expected: expected.into(),
            got: String::new(),
            passed: true,
            problems: Vec::new(),
            events: None,
            micros_per_event: None,
        }
    }

    /// Records a problem: the row fails.
    pub fn problem(&mut self, what: impl Into<String>) {
        self.passed = false;
        self.problems.push(what.into());
    }

    pub fn problems(&mut self, what: impl IntoIterator<Item = String>) {
        for p in what {
            self.problem(p);
        }
    }
}

/// The guest checked.
#[derive(Debug, Clone, Serialize)]
pub struct GuestDescription {
    pub name: String,
    pub origin: String,
    /// `adapter` or `listener`.
    pub world: &'static str,
    pub contract: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Measurements {
    /// Guest time in the decoder's `feed` and `end` per chunk produced, over every stream case decoded
    /// whole (an adapter's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_micros_per_event: Option<f64>,
    pub events: usize,
    /// The largest linear memory any instance of the guest reached during the check (an adapter's:
    /// a listener's instances live inside `Listener::decide`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_memory_bytes: Option<usize>,
    /// The seed of the random cuttings, samples and fuzz (`--seed`).
    pub seed: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub guest: GuestDescription,
    pub passed: bool,
    pub cases: usize,
    pub failed: usize,
    pub measurements: Measurements,
    pub rows: Vec<Row>,
}

impl Report {
    pub fn new(guest: GuestDescription, rows: Vec<Row>, measurements: Measurements) -> Self {
        let failed = rows.iter().filter(|r| !r.passed).count();
        Report {
            guest,
            passed: failed == 0,
            cases: rows.len(),
            failed,
            measurements,
            rows,
        }
    }

    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serializes")
    }

    /// The table: a header line, one line per case, the problems of failed cases indented below
    /// them, then the measurements and the summary.
    pub fn table(&self) -> String {
        let headers = ["case", "expected", "got", "verdict"];
        let cells: Vec<[String; 4]> = self
            .rows
            .iter()
            .map(|r| {
                [
                    format!("{}: {}", r.source, r.case),
                    r.expected.clone(),
                    r.got.clone(),
                    if r.passed {
                        "pass".into()
                    } else {
                        "FAIL".into()
                    },
                ]
            })
            .collect();
        // The case is never cut (it is what a reader looks for); expected and got are, their whole
        // story is in the problems below a failed row.
        let cap = |column: usize| if column == 0 { usize::MAX } else { COLUMN_CAP };
        let mut widths = headers.map(str::len);
        for row in &cells {
            for (i, (w, cell)) in widths.iter_mut().zip(row.iter()).enumerate() {
                *w = (*w).max(cell.chars().count().min(cap(i)));
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, cells: [&str; 4]| {
            let parts: Vec<String> = cells
                .iter()
                .zip(widths)
                .enumerate()
                .map(|(i, (c, w))| format!("{:<w$}", clip(c, cap(i))))
                .collect();
            let _ = writeln!(out, "{}", parts.join("  ").trim_end());
        };
        let g = &self.guest;
        let _ = writeln!(
            out,
            "checked {} '{}' (dsh:llm@{}) from {}\n",
            g.world, g.name, g.contract, g.origin
        );
        line(&mut out, headers);
        for (row, cells) in self.rows.iter().zip(&cells) {
            line(&mut out, [&cells[0], &cells[1], &cells[2], &cells[3]]);
            for p in &row.problems {
                let _ = writeln!(out, "    - {p}");
            }
        }
        let m = &self.measurements;
        let _ = writeln!(out);
        if let Some(us) = m.decode_micros_per_event {
            let _ = writeln!(
                out,
                "decode time: {us:.1} µs per event over {} events (guest time in feed and end)",
                m.events
            );
        }
        if let Some(bytes) = m.peak_memory_bytes {
            let _ = writeln!(
                out,
                "peak memory: {:.1} MiB (the largest linear memory of any instance)",
                bytes as f64 / (1 << 20) as f64
            );
        }
        let _ = writeln!(
            out,
            "seed: {} (dsh-host check --seed {} replays the same cuttings and fuzz)",
            m.seed, m.seed
        );
        if self.passed {
            let _ = writeln!(out, "{} cases, all pass", self.cases);
        } else {
            let names: Vec<String> = self
                .rows
                .iter()
                .filter(|r| !r.passed)
                .map(|r| format!("{}: {}", r.source, r.case))
                .collect();
            let _ = writeln!(
                out,
                "{} of {} cases FAIL: {}",
                self.failed,
                self.cases,
                names.join("; ")
            );
        }
        out
    }
}

/// An expected or got cell wider than this is cut (the problems below the row say it all).
const COLUMN_CAP: usize = 60;

/// `text` on one line, at most `max` characters (an ellipsis marks the cut).
pub fn clip(text: &str, max: usize) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut out: String = one_line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(rows: Vec<Row>) -> Report {
        let guest = GuestDescription {
            name: "g".into(),
            origin: "g.wasm".into(),
            world: "adapter",
            contract: "0.2.0".into(),
        };
        Report::new(
            guest,
            rows,
            Measurements {
                decode_micros_per_event: Some(1.5),
                events: 4,
                peak_memory_bytes: Some(2 << 20),
                seed: 1,
            },
        )
    }

    #[test]
    fn the_table_lines_up_and_names_failures() {
        let mut bad = Row::new("cases.json", "429 quota", "QUOTA_EXCEEDED");
        bad.got = "RATE_LIMITED".into();
        bad.problem("code RATE_LIMITED, expected QUOTA_EXCEEDED");
        let mut good = Row::new("corpus/status-only.json", "500 empty body", "SERVER_ERROR");
        good.got = "SERVER_ERROR".into();
        let r = report(vec![good, bad]);
        assert!(!r.passed);
        assert_eq!(r.failed, 1);
        let table = r.table();
        let lines: Vec<&str> = table.lines().collect();
        let header = lines.iter().position(|l| l.starts_with("case")).unwrap();
        let verdict_at = lines[header].find("verdict").unwrap();
        assert_eq!(lines[header + 1].find("pass"), Some(verdict_at), "{table}");
        assert_eq!(lines[header + 2].find("FAIL"), Some(verdict_at), "{table}");
        assert!(
            lines[header + 3].contains("- code RATE_LIMITED, expected QUOTA_EXCEEDED"),
            "{table}"
        );
        assert!(
            table.contains("1 of 2 cases FAIL: cases.json: 429 quota"),
            "{table}"
        );
        assert!(
            table.contains("1.5 µs per event over 4 events")
                && table.contains("peak memory: 2.0 MiB"),
            "{table}"
        );
    }

    #[test]
    fn the_json_report_has_the_documented_fields() {
        let r: serde_json::Value =
            serde_json::from_str(&report(vec![Row::new("built-in", "x", "y")]).json()).unwrap();
        assert_eq!(r["passed"], true);
        assert_eq!(r["guest"]["world"], "adapter");
        assert_eq!(r["rows"][0]["case"], "x");
        assert_eq!(r["measurements"]["peak_memory_bytes"], 2 << 20);
        assert_eq!(r["measurements"]["decode_micros_per_event"], 1.5);
    }

    #[test]
    fn clip_keeps_one_line() {
        assert_eq!(clip("a\nb", 10), "a b");
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
