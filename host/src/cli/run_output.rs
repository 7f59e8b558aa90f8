//! The two ways `dsh-host run` reports a turn: for a person ([`super::answer::AnswerPrinter`]: the
//! answer on stdout, notices and the live line on stderr) or for a program (`--json`,
//! [`super::json_lines::JsonLines`]: one JSON object per line on stdout, see docs/cli-json.md).

use crate::attempt::StreamEvent;
use crate::resume::UnfinishedTurn;
use crate::session::TurnError;

/// How the run ended, with the exit status it gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Completed,
    /// A canonical failure, or the step limit.
    Failed,
    /// Ctrl-C.
    Interrupted,
    /// The host could not do its job (the log could not be written).
    HostError,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
            Outcome::Interrupted => "interrupted",
            Outcome::HostError => "host_error",
        }
    }

    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Completed => 0,
            Outcome::Failed => super::EXIT_TURN_FAILED,
            Outcome::Interrupted => super::EXIT_INTERRUPTED,
            Outcome::HostError => super::EXIT_HOST_ERROR,
        }
    }
}

pub trait RunOutput: Send {
    /// The session is open; `resuming`: the unfinished turn it continues first.
    fn start(&mut self, session: &str, resuming: Option<&UnfinishedTurn>);
    /// Something happened in the turn (streamed text, an attempt, a retry, a tool call...).
    fn event(&mut self, event: StreamEvent);
    /// A turn completed with this answer.
    fn answer(&mut self, text: &str);
    /// The turn failed.
    fn failed(&mut self, error: &TurnError);
    /// The run is over.
    fn end(&mut self, session: &str, outcome: Outcome);
}
