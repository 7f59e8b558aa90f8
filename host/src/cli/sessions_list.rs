//! `dsh-host sessions list`: the sessions of the sessions directory, newest first, each summed up
//! from its log (id, start, provider, model, turns, the last turn's outcome). Every session is read
//! through the store's read-only reader: a torn tail is noted, a session damaged in the middle is
//! listed as unreadable, and neither stops the listing.

use super::colour::Palette;
use crate::store::{SessionRead, SessionStore};
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use std::io::Write;

/// One session, summed up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub id: String,
    /// The time of its first event (RFC 3339, UTC); None if it holds no valid event.
    pub started: Option<String>,
    /// The provider and model of its latest turn (`session/start`, then `session/resumed` or a
    /// gateway's `session/provider` when one changed them).
    pub provider: Option<String>,
    pub model: Option<String>,
    /// Turns begun.
    pub turns: u64,
    /// The last turn's outcome: `completed`, `failed (CODE)`, `failed (step_limit)`, `running` (a
    /// live writer holds it), `unfinished` (`run --resume` continues it), `no turns`, or
    /// `unreadable: ...` (damaged in the middle; `dsh-host log ID` says where).
    pub outcome: String,
    /// Its file ends in a torn or malformed line (a crash mid-write), which the listing skipped.
    pub torn_tail: bool,
}

/// Sums up one session from what its log holds; `writing`: a live writer holds it.
pub fn summarize(id: &str, read: &SessionRead, writing: bool) -> Summary {
    let mut summary = Summary {
        id: id.to_string(),
        started: read.events.first().map(|e| e.ts.clone()),
        provider: None,
        model: None,
        turns: 0,
        outcome: "no turns".to_string(),
        torn_tail: read.torn_tail.is_some(),
    };
    let text = |v: &Value| v.as_str().map(str::to_string);
    let mut open_turn = None;
    for event in &read.events {
        let d = &event.data;
        match event.kind.as_str() {
            "session/start" | "session/resumed" | "session/provider" => {
                summary.provider = d.get("provider").and_then(text).or(summary.provider.take());
                summary.model = d.get("model").and_then(text).or(summary.model.take());
            }
            "turn/start" => {
                let turn = d
                    .get("turn")
                    .and_then(Value::as_u64)
                    .unwrap_or(summary.turns + 1);
                summary.turns = summary.turns.max(turn);
                open_turn = Some(turn);
                summary.outcome = "unfinished".to_string();
            }
            "turn/end" => {
                open_turn = None;
                let outcome = d
                    .get("outcome")
                    .and_then(text)
                    .unwrap_or_else(|| "ended".into());
                let why = d.get("code").or_else(|| d.get("reason")).and_then(text);
                summary.outcome = match why {
                    Some(why) if outcome != "completed" => format!("{outcome} ({why})"),
                    _ => outcome,
                };
            }
            _ => {}
        }
    }
    if open_turn.is_some() && writing {
        summary.outcome = "running".to_string();
    }
    summary
}

/// Every session of the store, newest first (by start; those without one last).
pub fn list(store: &SessionStore) -> Result<Vec<Summary>> {
    let mut all = Vec::new();
    for id in store.ids()? {
        let summary = match store.read(&id) {
            Ok(read) => {
                let writing = store.is_being_written(&id).unwrap_or(false);
                summarize(&id, &read, writing)
            }
            // Vanished since the directory was listed (deleted, or pruned by another process).
            Err(_) if !store.exists(&id).unwrap_or(true) => continue,
            Err(e) => Summary {
                id: id.clone(),
                started: None,
                provider: None,
                model: None,
                turns: 0,
                outcome: format!("unreadable: {}", first_sentence(&format!("{e:#}"))),
                torn_tail: false,
            },
        };
        all.push(summary);
    }
    all.sort_by(|a, b| b.started.cmp(&a.started).then_with(|| b.id.cmp(&a.id)));
    Ok(all)
}

/// The newest session's id (`dsh-host log --last`).
pub fn newest(store: &SessionStore) -> Result<String> {
    match list(store)?.into_iter().next() {
        Some(s) => Ok(s.id),
        None => anyhow::bail!(
            "no session in {} yet: `dsh-host run` starts one (or choose another directory with --sessions)",
            store.location()
        ),
    }
}

fn first_sentence(text: &str) -> String {
    let cut = text.find(": ").map_or(text.len(), |i| i + 2);
    let rest = &text[cut..];
    let end = rest.find(". ").map_or(rest.len(), |i| i + 1);
    format!("{}{}", &text[..cut], &rest[..end])
}

/// `2026-11-29T21:40:00.123Z` as `2026-11-29 21:40:00`.
fn short_time(ts: &str) -> String {
    ts.get(..19)
        .map_or_else(|| ts.to_string(), |t| t.replacen('T', " ", 1))
}

/// Writes the listing: a table for a person, or (`json`) one summary object per line.
pub fn print(
    out: &mut dyn Write,
    summaries: &[Summary],
    json: bool,
    palette: &Palette,
) -> std::io::Result<()> {
    if json {
        for s in summaries {
            writeln!(
                out,
                "{}",
                serde_json::to_string(s).expect("a summary serializes")
            )?;
        }
        return Ok(());
    }
    let rows: Vec<[String; 6]> = summaries
        .iter()
        .map(|s| {
            let outcome = if s.torn_tail {
                format!("{}, torn tail", s.outcome)
            } else {
                s.outcome.clone()
            };
            [
                s.id.clone(),
                s.started.as_deref().map_or("-".into(), short_time),
                s.provider.clone().unwrap_or_else(|| "-".into()),
                s.model.clone().unwrap_or_else(|| "-".into()),
                s.turns.to_string(),
                outcome,
            ]
        })
        .collect();
    let header = [
        "ID",
        "STARTED (UTC)",
        "PROVIDER",
        "MODEL",
        "TURNS",
        "LAST OUTCOME",
    ];
    let mut width = header.map(str::len);
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let pad = |text: &str, w: usize| {
        format!(
            "{text}{}",
            " ".repeat(w.saturating_sub(text.chars().count()))
        )
    };
    let head: Vec<String> = header
        .iter()
        .zip(width)
        .take(5)
        .map(|(h, w)| pad(h, w))
        .collect();
    writeln!(out, "{}  {}", head.join("  "), header[5])?;
    for row in &rows {
        // Padding first, colour after: escape sequences take no column.
        let cells: Vec<String> = row
            .iter()
            .zip(width)
            .take(5)
            .map(|(c, w)| pad(c, w))
            .collect();
        writeln!(
            out,
            "{}  {}  {}",
            palette.dim(&cells[0]),
            cells[1..].join("  "),
            palette.outcome(&row[5])
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_of(lines: &[Value]) -> SessionRead {
        SessionRead {
            events: lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let mut e = l.clone();
                    e["seq"] = json!(i + 1);
                    e["ts"] = json!(format!("2026-11-30T10:00:0{i}.000Z"));
                    serde_json::from_value(e).unwrap()
                })
                .collect(),
            torn_tail: None,
            torn_tail_file: None,
            line_in_progress: false,
        }
    }

    #[test]
    fn a_summary_has_the_latest_provider_the_turn_count_and_the_last_outcome() {
        let read = read_of(&[
            json!({"type": "session/start", "provider": "openai", "model": "gpt-4o"}),
            json!({"type": "turn/start", "turn": 1}),
            json!({"type": "turn/end", "turn": 1, "outcome": "completed"}),
            json!({"type": "session/resumed", "provider": "local", "model": "llama"}),
            json!({"type": "turn/start", "turn": 2}),
            json!({"type": "turn/end", "turn": 2, "outcome": "failed", "code": "RATE_LIMITED"}),
        ]);
        let s = summarize("a", &read, false);
        assert_eq!(s.started.as_deref(), Some("2026-11-30T10:00:00.000Z"));
        assert_eq!(
            (s.provider.as_deref(), s.model.as_deref()),
            (Some("local"), Some("llama"))
        );
        assert_eq!(s.turns, 2);
        assert_eq!(s.outcome, "failed (RATE_LIMITED)");
    }

    #[test]
    fn an_open_turn_is_running_beside_its_writer_and_unfinished_without_one() {
        let read = read_of(&[
            json!({"type": "session/start", "provider": "openai", "model": "m"}),
            json!({"type": "turn/start", "turn": 1}),
            json!({"type": "turn/end", "turn": 1, "outcome": "failed", "reason": "step_limit"}),
            json!({"type": "turn/start", "turn": 2}),
        ]);
        assert_eq!(summarize("a", &read, true).outcome, "running");
        assert_eq!(summarize("a", &read, false).outcome, "unfinished");
        let read = read_of(
            &read.events[..3]
                .iter()
                .map(|e| serde_json::to_value(e).unwrap())
                .collect::<Vec<_>>(),
        );
        assert_eq!(summarize("a", &read, false).outcome, "failed (step_limit)");
        assert_eq!(summarize("a", &read_of(&[]), false).outcome, "no turns");
    }

    #[test]
    fn the_table_aligns_its_columns_and_colours_only_when_asked() {
        let s = |id: &str, outcome: &str| Summary {
            id: id.into(),
            started: Some("2026-11-30T10:00:00.000Z".into()),
            provider: Some("openai".into()),
            model: Some("gpt-4o-mini".into()),
            turns: 3,
            outcome: outcome.into(),
            torn_tail: id == "b",
        };
        let mut out = Vec::new();
        print(
            &mut out,
            &[s("a-long-id", "completed"), s("b", "unfinished")],
            false,
            &Palette::new(false),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "ID         STARTED (UTC)        PROVIDER  MODEL        TURNS  LAST OUTCOME\n\
             a-long-id  2026-11-30 10:00:00  openai    gpt-4o-mini  3      completed\n\
             b          2026-11-30 10:00:00  openai    gpt-4o-mini  3      unfinished, torn tail\n"
        );
        let mut out = Vec::new();
        print(&mut out, &[s("a", "completed")], false, &Palette::new(true)).unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("\u{1b}[32mcompleted")
        );
    }

    #[test]
    fn a_directory_with_torn_and_damaged_logs_is_listed_newest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let start = |ts: &str, model: &str| {
            format!(
                r#"{{"seq":1,"ts":"{ts}","type":"session/start","provider":"openai","model":"{model}"}}"#
            )
        };
        let turn = r#"{"seq":2,"ts":"t","type":"turn/start","turn":1}"#;
        let end = r#"{"seq":3,"ts":"t","type":"turn/end","turn":1,"outcome":"completed"}"#;
        let old = start("2026-11-29T08:00:00.000Z", "old");
        let new = start("2026-11-30T08:00:00.000Z", "new");
        let mid = start("2026-11-29T20:00:00.000Z", "torn");
        std::fs::write(dir.join("old.jsonl"), format!("{old}\n{turn}\n{end}\n")).unwrap();
        std::fs::write(dir.join("new.jsonl"), format!("{new}\n{turn}\n{end}\n")).unwrap();
        // A crash mid-write: the torn line is skipped, the session listed.
        std::fs::write(
            dir.join("mid.jsonl"),
            format!("{mid}\n{turn}\n{{\"seq\":3,\"ts\":\"20"),
        )
        .unwrap();
        std::fs::write(dir.join("mid.jsonl.torn"), "an older tail\n").unwrap();
        // Damage in the middle: listed as unreadable, the rest still listed.
        std::fs::write(dir.join("bad.jsonl"), format!("garbage\n{old}\n")).unwrap();
        std::fs::write(dir.join("notes.txt"), "not a session").unwrap();
        let store = SessionStore::open(dir).unwrap();

        let all = list(&store).unwrap();
        let ids: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["new", "mid", "old", "bad"]);
        assert_eq!(all[0].outcome, "completed");
        assert_eq!(
            (all[1].outcome.as_str(), all[1].torn_tail),
            ("unfinished", true)
        );
        assert!(
            all[3]
                .outcome
                .starts_with("unreadable: session 'bad' line 1"),
            "{}",
            all[3].outcome
        );
        assert_eq!(newest(&store).unwrap(), "new");
        // Listing modifies nothing.
        assert!(
            std::fs::read_to_string(dir.join("mid.jsonl"))
                .unwrap()
                .ends_with("\"20")
        );
    }

    #[test]
    fn an_empty_directory_has_no_newest_session_and_says_how_to_start_one() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::open(tmp.path()).unwrap();
        assert!(list(&store).unwrap().is_empty());
        let err = newest(&store).unwrap_err().to_string();
        assert!(
            err.contains("no session in") && err.contains("dsh-host run"),
            "{err}"
        );
    }
}
