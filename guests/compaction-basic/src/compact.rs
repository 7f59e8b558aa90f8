//! Dropping the oldest exchanges of a conversation.
//!
//! The shape of a conversation, as this module reads it:
//! - system messages stay, wherever they are;
//! - the latest user turn (the last user message and everything after it) stays;
//! - what precedes the latest user turn is a sequence of exchanges: a user message and the
//!   assistant and tool messages that follow it until the next user message. Messages before the
//!   first user message (a greeting, or the tail of an earlier compaction) form one exchange of
//!   their own.
//!
//! Dropping whole exchanges from the oldest one keeps an assistant's tool calls with their results,
//! since the results follow the call before the next user message. A malformed conversation (a tool
//! result after a later user message) is still never split: a cut that would separate a tool result
//! from the call it answers is skipped.

use crate::types::{Message, Role};

/// What [`compact`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compacted {
    /// The shorter conversation.
    pub messages: Vec<Message>,
    /// How many exchanges were dropped (at least one).
    pub dropped_exchanges: usize,
    /// How many exchanges there were to drop.
    pub droppable_exchanges: usize,
}

/// Why [`compact`] could not shorten the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CannotCompact {
    /// There is no user message: nothing is an earlier exchange.
    NoUserTurn,
    /// Only system messages precede the latest user turn.
    NothingBeforeLatestTurn,
    /// Every cut would separate a tool result from the call it answers.
    ToolCallsSpanTurns,
}

/// Drops about half of the droppable exchanges (at least one; `ceil(n / 2)`), oldest first, so that
/// repeated overflows converge in O(log n) retries.
pub fn compact(messages: &[Message]) -> Result<Compacted, CannotCompact> {
    let Some(latest) = messages.iter().rposition(|m| m.role == Role::User) else {
        return Err(CannotCompact::NoUserTurn);
    };

    // Where each droppable exchange begins; dropping k exchanges drops every non-system message
    // before `cut(k)`.
    let mut starts = Vec::new();
    for (i, m) in messages[..latest].iter().enumerate() {
        if m.role == Role::System {
            continue;
        }
        if m.role == Role::User || starts.is_empty() {
            starts.push(i);
        }
    }
    let n = starts.len();
    if n == 0 {
        return Err(CannotCompact::NothingBeforeLatestTurn);
    }
    let cut = |k: usize| if k < n { starts[k] } else { latest };

    let answered = answered_calls(messages);
    let keeps_pairs = |c: usize| {
        answered
            .iter()
            .all(|&(call, result)| !(call < c && result >= c))
    };

    let target = n.div_ceil(2);
    let k = (target..=n)
        .chain((1..target).rev())
        .find(|&k| keeps_pairs(cut(k)))
        .ok_or(CannotCompact::ToolCallsSpanTurns)?;
    let c = cut(k);

    let kept = messages
        .iter()
        .enumerate()
        .filter(|(i, m)| *i >= c || m.role == Role::System)
        .map(|(_, m)| m.clone())
        .collect();
    Ok(Compacted {
        messages: kept,
        dropped_exchanges: k,
        droppable_exchanges: n,
    })
}

/// Every (index of the assistant message that made a call, index of the tool message answering it).
/// A tool result answers the nearest earlier assistant call with its id (some models reuse ids).
fn answered_calls(messages: &[Message]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (j, m) in messages.iter().enumerate() {
        if m.role != Role::Tool {
            continue;
        }
        let Some(id) = &m.tool_call_id else { continue };
        let call = messages[..j]
            .iter()
            .rposition(|a| a.role == Role::Assistant && a.tool_calls.iter().any(|c| &c.id == id));
        if let Some(i) = call {
            pairs.push((i, j));
        }
    }
    pairs
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::types::ToolCall;

    pub fn msg(role: Role, content: &str) -> Message {
        Message::new(role, content)
    }
    pub fn system(s: &str) -> Message {
        msg(Role::System, s)
    }
    pub fn user(s: &str) -> Message {
        msg(Role::User, s)
    }
    pub fn assistant(s: &str) -> Message {
        msg(Role::Assistant, s)
    }
    pub fn call(s: &str, ids: &[&str]) -> Message {
        Message {
            tool_calls: ids
                .iter()
                .map(|id| ToolCall::new(*id, "read_file", "{}"))
                .collect(),
            ..msg(Role::Assistant, s)
        }
    }
    pub fn result(id: &str, s: &str) -> Message {
        Message {
            tool_call_id: Some(id.to_string()),
            ..msg(Role::Tool, s)
        }
    }

    /// system, then `n` exchanges "u0"/"a0" .. and the latest turn "latest".
    pub fn conversation(n: usize) -> Vec<Message> {
        let mut ms = vec![system("sys")];
        for i in 0..n {
            ms.push(user(&format!("u{i}")));
            ms.push(assistant(&format!("a{i}")));
        }
        ms.push(user("latest"));
        ms
    }

    pub fn contents(ms: &[Message]) -> Vec<String> {
        ms.iter().map(|m| m.text().into_owned()).collect()
    }

    #[test]
    fn drops_the_oldest_half_keeping_system_and_latest() {
        let c = compact(&conversation(4)).unwrap();
        assert_eq!(
            contents(&c.messages),
            ["sys", "u2", "a2", "u3", "a3", "latest"]
        );
        assert_eq!((c.dropped_exchanges, c.droppable_exchanges), (2, 4));

        let c = compact(&conversation(5)).unwrap();
        assert_eq!(
            contents(&c.messages),
            ["sys", "u3", "a3", "u4", "a4", "latest"]
        );
        assert_eq!((c.dropped_exchanges, c.droppable_exchanges), (3, 5));

        // At least one.
        let c = compact(&conversation(1)).unwrap();
        assert_eq!(contents(&c.messages), ["sys", "latest"]);
        let c = compact(&conversation(2)).unwrap();
        assert_eq!(contents(&c.messages), ["sys", "u1", "a1", "latest"]);
    }

    #[test]
    fn the_latest_turn_stays_whole() {
        let mut ms = conversation(2);
        ms.extend([
            call("looking", &["c1"]),
            result("c1", "r1"),
            assistant("almost"),
        ]);
        let c = compact(&ms).unwrap();
        assert_eq!(
            contents(&c.messages),
            ["sys", "u1", "a1", "latest", "looking", "r1", "almost"]
        );
    }

    #[test]
    fn system_messages_stay_wherever_they_are() {
        let ms = vec![
            system("sys"),
            user("u0"),
            system("note"),
            assistant("a0"),
            user("u1"),
            assistant("a1"),
            user("latest"),
        ];
        let c = compact(&ms).unwrap();
        assert_eq!(contents(&c.messages), ["sys", "note", "u1", "a1", "latest"]);
    }

    #[test]
    fn tool_calls_and_results_go_together() {
        let ms = vec![
            system("sys"),
            user("u0"),
            call("c-a", &["a", "b"]),
            result("a", "ra"),
            result("b", "rb"),
            assistant("a0"),
            user("u1"),
            call("c-c", &["c"]),
            result("c", "rc"),
            assistant("a1"),
            user("latest"),
        ];
        let c = compact(&ms).unwrap();
        assert_eq!(
            contents(&c.messages),
            ["sys", "u1", "c-c", "rc", "a1", "latest"]
        );
        // No kept tool result lacks its call, no kept call lacks its results.
        assert_pairs_intact(&c.messages);
    }

    #[test]
    fn a_cut_never_separates_a_result_from_its_call_even_when_malformed() {
        // A tool result after a later user message (malformed, but seen): the cut that would drop
        // the call and keep the result is skipped, and more is dropped instead.
        let ms = vec![
            system("sys"),
            user("u0"),
            assistant("a0"),
            user("u1"),
            call("c-x", &["x"]),
            user("u2"),
            result("x", "rx"),
            assistant("a2"),
            user("u3"),
            assistant("a3"),
            user("latest"),
        ];
        let c = compact(&ms).unwrap();
        assert_eq!(contents(&c.messages), ["sys", "u3", "a3", "latest"]);
        assert_eq!(c.dropped_exchanges, 3);
        assert_pairs_intact(&c.messages);

        // If only smaller cuts are whole, it drops less rather than split.
        let ms = vec![
            system("sys"),
            user("u0"),
            assistant("a0"),
            user("u1"),
            call("c-x", &["x"]),
            user("u2"),
            assistant("a2"),
            user("latest"),
            result("x", "rx"),
        ];
        let c = compact(&ms).unwrap();
        assert_eq!(
            contents(&c.messages),
            ["sys", "u1", "c-x", "u2", "a2", "latest", "rx"]
        );
        assert_eq!(c.dropped_exchanges, 1);

        // And if no cut is whole, it cannot compact.
        let ms = vec![
            user("u0"),
            call("c-x", &["x"]),
            user("latest"),
            result("x", "rx"),
        ];
        assert_eq!(compact(&ms), Err(CannotCompact::ToolCallsSpanTurns));
    }

    #[test]
    fn reused_call_ids_pair_with_the_nearest_call() {
        let ms = vec![
            user("u0"),
            call("c0", &["call_0"]),
            result("call_0", "r0"),
            user("u1"),
            call("c1", &["call_0"]),
            result("call_0", "r1"),
            user("latest"),
        ];
        let c = compact(&ms).unwrap();
        assert_eq!(contents(&c.messages), ["u1", "c1", "r1", "latest"]);
    }

    #[test]
    fn messages_before_the_first_user_message_are_an_exchange() {
        let ms = vec![
            system("sys"),
            assistant("hello"),
            user("u0"),
            assistant("a0"),
            user("latest"),
        ];
        let c = compact(&ms).unwrap();
        assert_eq!(contents(&c.messages), ["sys", "u0", "a0", "latest"]);
        let c = compact(&c.messages).unwrap();
        assert_eq!(contents(&c.messages), ["sys", "latest"]);
    }

    #[test]
    fn nothing_to_drop() {
        assert_eq!(
            compact(&[system("sys"), user("latest"), assistant("a")]),
            Err(CannotCompact::NothingBeforeLatestTurn)
        );
        assert_eq!(
            compact(&[system("a"), system("b"), user("latest")]),
            Err(CannotCompact::NothingBeforeLatestTurn)
        );
        assert_eq!(
            compact(&[user("latest")]),
            Err(CannotCompact::NothingBeforeLatestTurn)
        );
        assert_eq!(
            compact(&[system("sys"), assistant("a")]),
            Err(CannotCompact::NoUserTurn)
        );
        assert_eq!(compact(&[]), Err(CannotCompact::NoUserTurn));
    }

    #[test]
    fn repeated_application_converges_fast() {
        for n in [1usize, 2, 3, 7, 8, 100, 1000] {
            let mut ms = conversation(n);
            let mut rounds = 0;
            loop {
                match compact(&ms) {
                    Ok(c) => {
                        assert!(c.messages.len() < ms.len());
                        assert_eq!(c.messages.first().unwrap().text(), "sys");
                        assert_eq!(c.messages.last().unwrap().text(), "latest");
                        ms = c.messages;
                        rounds += 1;
                    }
                    Err(e) => {
                        assert_eq!(e, CannotCompact::NothingBeforeLatestTurn);
                        break;
                    }
                }
            }
            assert_eq!(contents(&ms), ["sys", "latest"]);
            // ceil(n/2) per round: floor(log2 n) + 1 rounds.
            assert_eq!(rounds, n.ilog2() as usize + 1, "n = {n}");
        }
    }

    pub fn assert_pairs_intact(ms: &[Message]) {
        for (j, m) in ms.iter().enumerate() {
            if let Some(id) = &m.tool_call_id {
                assert!(
                    ms[..j]
                        .iter()
                        .any(|a| a.tool_calls.iter().any(|c| &c.id == id)),
                    "result {id} lost its call"
                );
            }
            for c in &m.tool_calls {
                assert!(
                    ms[j..]
                        .iter()
                        .any(|r| r.tool_call_id.as_deref() == Some(c.id.as_str())),
                    "call {} lost its result",
                    c.id
                );
            }
        }
    }
}
