//! `dsh-host log`: a session's timeline (or its raw events with `--json`), the newest session's with
//! `--last`, and with `--follow` the events another process appends, as they come (until Ctrl-C).
//! On a terminal, failure codes, retries and outcomes are coloured.

use super::colour::Palette;
use crate::store::Event;
use anyhow::{Result, bail};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// How often `--follow` looks for new events.
const FOLLOW_EVERY: Duration = Duration::from_millis(200);

/// Which session `log` shows.
pub enum Which {
    Id(String),
    Newest,
}

pub async fn show(
    config_path: Option<&Path>,
    sessions_dir: &Path,
    which: Which,
    json: bool,
    follow: bool,
) -> Result<ExitCode> {
    let store = super::open_sessions(config_path, sessions_dir)?;
    let id = match which {
        Which::Id(id) => id,
        Which::Newest => super::sessions_list::newest(&store)?,
    };
    let read = store.read(&id)?;
    if read.events.is_empty() && read.torn_tail.is_none() && !read.line_in_progress && !follow {
        bail!("session '{id}' is empty");
    }
    let palette = Palette::stdout();
    let mut out = std::io::stdout().lock();
    if !print_events(&mut out, &read.events, json, &palette) {
        return Ok(ExitCode::SUCCESS);
    }
    drop(out);
    if let Some(torn) = &read.torn_tail {
        eprintln!(
            "warning: session '{id}' ends in a torn or malformed line (the writer stopped mid-line), skipped here; the next `dsh-host run --resume {id}` moves it to {id}.jsonl.torn: {:.120}",
            torn.trim_end()
        );
    }
    if read.line_in_progress && !follow {
        eprintln!(
            "note: session '{id}' is being written by a running dsh-host; its last line is not finished yet and is not shown"
        );
    }
    if !follow {
        return Ok(ExitCode::SUCCESS);
    }
    let mut follower = store.follow(&id, read.events.last().map_or(0, |e| e.seq))?;
    loop {
        tokio::time::sleep(FOLLOW_EVERY).await;
        let events = follower.poll()?;
        if !print_events(&mut std::io::stdout().lock(), &events, json, &palette) {
            return Ok(ExitCode::SUCCESS);
        }
    }
}

/// Writes events; false once stdout is gone (`log ... | head`), which ends the command quietly.
fn print_events(out: &mut dyn Write, events: &[Event], json: bool, palette: &Palette) -> bool {
    for event in events {
        let line = if json {
            serde_json::to_string(event).expect("an event serializes")
        } else {
            timeline_line(event, palette)
        };
        if writeln!(out, "{line}").is_err() {
            return false;
        }
    }
    out.flush().is_ok()
}

/// One timeline line (as the demo prints it), its type and failure code coloured by what happened.
pub fn timeline_line(event: &Event, palette: &Palette) -> String {
    let mut detail = crate::demo::describe_detail(event);
    let kind = format!("{:<17}", event.kind);
    let code = event
        .data
        .get("failure")
        .and_then(|f| f.get("code"))
        .or_else(|| event.data.get("code"))
        .and_then(|c| c.as_str());
    let kind = match event.kind.as_str() {
        "llm/failure" | "llm/error" | "recovery/listener-fault" => palette.failure(&kind),
        "llm/retry" | "llm/retry-started" | "llm/cooldown" => palette.retry(&kind),
        "turn/end" if event.data.get("outcome").and_then(|o| o.as_str()) == Some("completed") => {
            palette.success(&kind)
        }
        "turn/end" => palette.failure(&kind),
        _ => kind,
    };
    if let Some(code) = code.filter(|_| palette.enabled()) {
        let styled = if matches!(event.kind.as_str(), "llm/retry" | "llm/cooldown") {
            palette.retry(code)
        } else {
            palette.failure(code)
        };
        detail = detail.replacen(code, &styled, 1);
    }
    format!(
        "#{:<3} {} {kind} {detail}",
        event.seq,
        palette.dim(&event.ts)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(kind: &str, data: serde_json::Value) -> Event {
        let mut e = data;
        e["seq"] = json!(4);
        e["ts"] = json!("2026-11-30T10:00:00.000Z");
        e["type"] = json!(kind);
        serde_json::from_value(e).unwrap()
    }

    #[test]
    fn without_colour_a_line_is_the_demo_timeline_line() {
        let e = event(
            "llm/failure",
            json!({"failure": {"code": "RATE_LIMITED", "message": "slow down"}}),
        );
        assert_eq!(
            timeline_line(&e, &Palette::new(false)),
            crate::demo::describe_event(&e)
        );
    }

    #[test]
    fn with_colour_codes_and_outcomes_stand_out() {
        let on = Palette::new(true);
        let failure = event(
            "llm/failure",
            json!({"failure": {"code": "RATE_LIMITED", "message": "slow down"}}),
        );
        let line = timeline_line(&failure, &on);
        assert!(line.contains(&on.failure("RATE_LIMITED")), "{line:?}");
        let done = event("turn/end", json!({"turn": 1, "outcome": "completed"}));
        assert!(timeline_line(&done, &on).contains(&on.success(&format!("{:<17}", "turn/end"))));
        let failed = event(
            "turn/end",
            json!({"turn": 1, "outcome": "failed", "code": "AUTH"}),
        );
        let line = timeline_line(&failed, &on);
        assert!(
            line.contains(&on.failure("AUTH"))
                && line.contains(&on.failure(&format!("{:<17}", "turn/end"))),
            "{line:?}"
        );
    }
}
