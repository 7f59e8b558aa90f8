//! Stable tool-call indices across stream chunks, whatever the server does with `index`.
//!
//! The host assembles tool-call deltas by index, so two calls must never share one. OpenAI sends an
//! `index` on every delta; some compatible servers omit it (one complete call per delta, told apart
//! by `id`) and some have been seen giving every parallel call index 0 with different ids.

#[derive(Debug, Default)]
pub struct ToolIndexer {
    /// Provider index -> our index.
    by_provider: Vec<(u32, u32)>,
    /// Our index -> the call id first seen for it.
    ids: Vec<(u32, String)>,
    used: Vec<u32>,
    last: Option<u32>,
}

impl ToolIndexer {
    /// Our index for a delta that carries `provider_index` and `id` (either may be absent).
    pub fn index(&mut self, provider_index: Option<u32>, id: Option<&str>) -> u32 {
        let ours = match (provider_index, id) {
            (Some(p), _) => match self.lookup_provider(p) {
                // Same index, a different id: a new call the server failed to number.
                Some(o) if id.is_some_and(|id| self.id_of(o).is_some_and(|known| known != id)) => {
                    let fresh = self.fresh(p);
                    self.set_provider(p, fresh);
                    fresh
                }
                Some(o) => o,
                None => {
                    let fresh = self.fresh(p);
                    self.set_provider(p, fresh);
                    fresh
                }
            },
            (None, Some(id)) => match self.ids.iter().find(|(_, known)| known == id) {
                Some((o, _)) => *o,
                None => self.fresh(0),
            },
            (None, None) => match self.last {
                Some(o) => o,
                None => self.fresh(0),
            },
        };
        if let Some(id) = id
            && self.id_of(ours).is_none()
        {
            self.ids.push((ours, id.to_string()));
        }
        if !self.used.contains(&ours) {
            self.used.push(ours);
        }
        self.last = Some(ours);
        ours
    }

    fn lookup_provider(&self, p: u32) -> Option<u32> {
        self.by_provider
            .iter()
            .find(|(k, _)| *k == p)
            .map(|(_, v)| *v)
    }

    fn set_provider(&mut self, p: u32, ours: u32) {
        self.by_provider.retain(|(k, _)| *k != p);
        self.by_provider.push((p, ours));
    }

    fn id_of(&self, ours: u32) -> Option<&str> {
        self.ids
            .iter()
            .find(|(k, _)| *k == ours)
            .map(|(_, id)| id.as_str())
    }

    /// `preferred` if no call uses it yet (so OpenAI's own numbering is kept), else the next free.
    fn fresh(&self, preferred: u32) -> u32 {
        if !self.used.contains(&preferred) {
            return preferred;
        }
        self.used.iter().max().map_or(0, |m| m.saturating_add(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_numbering_is_kept() {
        let mut t = ToolIndexer::default();
        assert_eq!(t.index(Some(0), Some("call_a")), 0);
        assert_eq!(t.index(Some(0), None), 0);
        assert_eq!(t.index(Some(1), Some("call_b")), 1);
        assert_eq!(t.index(Some(1), None), 1);
        assert_eq!(
            t.index(Some(0), Some("call_a")),
            0,
            "a repeated id is the same call"
        );
    }

    #[test]
    fn missing_indices_follow_ids() {
        let mut t = ToolIndexer::default();
        assert_eq!(t.index(None, Some("a")), 0);
        assert_eq!(t.index(None, None), 0);
        assert_eq!(t.index(None, Some("b")), 1);
        assert_eq!(t.index(None, Some("a")), 0);
    }

    #[test]
    fn same_index_different_ids_are_different_calls() {
        let mut t = ToolIndexer::default();
        assert_eq!(t.index(Some(0), Some("a")), 0);
        assert_eq!(t.index(Some(0), Some("b")), 1);
        assert_eq!(
            t.index(Some(0), None),
            1,
            "continuation goes to the latest call"
        );
    }
}
