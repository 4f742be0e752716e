//! Search and jump-to-round, as UI state: the prompt being typed in the footer, the last
//! search and its hits (the store's, found off the UI thread, merged with the text of calls
//! still streaming, found here), the hit open, and the rounds a jump could mean. The keys
//! that change it are in [`super::update`]'s `search` module; the list and the highlight are
//! drawn by the views.

use std::cell::Cell;

use crate::store::{HitPlace, SearchHit, SearchQuery, Snippet};

use super::app::App;

/// Hits a search returns at most (the store stops reading there).
pub const HIT_LIMIT: usize = 500;

/// What the footer prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// Text to search for (`/`).
    Search,
    /// A round id, or its start (`:`).
    Jump,
}

/// The footer prompt, open while typing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// What it asks for.
    pub kind: PromptKind,
    /// What is typed so far.
    pub text: String,
}

/// What the list overlay shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListKind {
    /// The hits of the last search.
    Hits,
    /// The rounds whose ids start with (or hold) what a jump typed.
    Rounds(Vec<String>),
}

/// The list overlay, while open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    /// What it lists.
    pub kind: ListKind,
    /// The selected line.
    pub selected: usize,
}

/// Search and jump state.
#[derive(Debug, Clone, Default)]
pub struct SearchState {
    /// The footer prompt, while typing.
    pub prompt: Option<Prompt>,
    /// The last search run: its matches are highlighted in transcripts.
    pub query: Option<String>,
    /// The store's answer has not come yet.
    pub running: bool,
    /// Its hits, in schedule order.
    pub hits: Vec<SearchHit>,
    /// The store stopped at [`HIT_LIMIT`].
    pub truncated: bool,
    /// Why the store could not be searched, if it could not.
    pub error: Option<String>,
    /// The hit open (for `n` / `N`).
    pub current: Option<usize>,
    /// The list overlay, while open.
    pub list: Option<List>,
    /// The round view is to scroll to the open hit at its next frame.
    pub scroll_to_hit: bool,
    /// The line the round view scrolled to for the open hit (the view knows the width,
    /// which decides it): the next scroll key starts from there.
    pub scrolled_to: Cell<Option<usize>>,
}

impl SearchState {
    /// Rounds among the hits.
    pub fn rounds_hit(&self) -> usize {
        let mut ids: Vec<&str> = self.hits.iter().map(|h| h.round_id.as_str()).collect();
        ids.dedup();
        ids.len()
    }

    /// The open hit.
    pub fn current_hit(&self) -> Option<&SearchHit> {
        self.current.and_then(|i| self.hits.get(i))
    }

    /// A one-line summary of the last search, for the footer and the list's title.
    pub fn summary(&self) -> String {
        let Some(query) = &self.query else {
            return String::new();
        };
        let query = crate::sanitize::sanitize(query);
        if self.running {
            return format!("searching for \"{query}\"…");
        }
        if let Some(e) = &self.error {
            return format!("search for \"{query}\" failed: {e}");
        }
        let n = self.hits.len();
        let more = if self.truncated {
            " (the first ones)"
        } else {
            ""
        };
        format!(
            "\"{query}\": {n} hit{} in {} round{}{more}",
            if n == 1 { "" } else { "s" },
            self.rounds_hit(),
            if self.rounds_hit() == 1 { "" } else { "s" },
        )
    }
}

/// Hits in the text of calls still streaming (not yet in the store), placed after the
/// round's stored phases as the transcript shows them.
pub fn live_hits(app: &App, query: &SearchQuery) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    for round in &app.mirror.rounds {
        let stored = round.stored.phases.len();
        for (j, call) in round.live.iter().enumerate() {
            let found = query.find_in(&call.text);
            if let Some(first) = found.first() {
                hits.push(SearchHit {
                    round_id: round.id().to_string(),
                    place: HitPlace::Phase {
                        index: stored + j,
                        phase_type: call.phase_type,
                        speaker: call.speaker.clone(),
                        prompt: false,
                    },
                    count: found.len(),
                    snippet: Snippet::around(&call.text, first.clone()),
                });
            }
        }
    }
    hits
}

/// The store's hits and the live ones as one list in schedule order (a round's stored hits
/// first, in file order, then its live ones); hits of rounds not in the schedule are left
/// out, since they cannot be opened.
pub fn merge(app: &App, stored: Vec<SearchHit>, live: Vec<SearchHit>) -> Vec<SearchHit> {
    let mut all: Vec<(usize, SearchHit)> = stored
        .into_iter()
        .chain(live)
        .filter_map(|h| app.mirror.index.get(&h.round_id).map(|&i| (i, h)))
        .collect();
    // Stable: within a round, the order they came in.
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, h)| h).collect()
}

/// The rounds a jump to `typed` could mean, in schedule order: the one whose id is exactly
/// it, else those whose ids start with it, else those whose ids hold it (any case).
pub fn jump_candidates(app: &App, typed: &str) -> Vec<String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Vec::new();
    }
    if app.mirror.index.contains_key(typed) {
        return vec![typed.to_string()];
    }
    let lower = typed.to_lowercase();
    let ids = || app.mirror.rounds.iter().map(|r| r.id());
    let starting: Vec<String> = ids()
        .filter(|id| id.to_lowercase().starts_with(&lower))
        .map(str::to_string)
        .collect();
    if !starting.is_empty() {
        return starting;
    }
    ids()
        .filter(|id| id.to_lowercase().contains(&lower))
        .map(str::to_string)
        .collect()
}
