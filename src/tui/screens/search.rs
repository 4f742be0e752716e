//! Search and jump-to-round: `/` and `:` open the footer prompt, which takes every key until
//! Enter or Esc; a search asks the driver to search the store ([`Effect::Search`]) and its
//! answer is merged here with the text of calls still streaming; the list overlay chooses a
//! hit or a round; `n` / `N` open the next or previous hit from any screen. Opening one is
//! navigation's (see [`Destination::Round`]); the list and the highlight are drawn by the
//! views.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::store::{HitPlace, SearchHit, SearchQuery, Snippet};
use crate::tui::keymap::Keymap;
use crate::tui::keys::{Action, Binding, ch, key};
use crate::tui::mirror::Mirror;
use crate::tui::msg::{Destination, Effect, Opening, Outcome, RoundAt};

/// The search or jump prompt's keys (every other key is text).
pub const PROMPT: &[Binding] = &[
    Binding {
        label: "letters",
        help: "type the search, or the start of a round id",
        footer: None,
        keys: &[],
    },
    Binding {
        label: "Enter",
        help: "run it",
        footer: Some("Enter run"),
        keys: &[(key(KeyCode::Enter), Action::Run)],
    },
    Binding {
        label: "Backspace",
        help: "erase a character",
        footer: None,
        keys: &[(key(KeyCode::Backspace), Action::Erase)],
    },
    crate::tui::prompt::ERASE,
    Binding {
        label: "Esc",
        help: "cancel",
        footer: Some("Esc cancel"),
        keys: &[(key(KeyCode::Esc), Action::Leave)],
    },
];

/// The keys of the list of hits (or of rounds to jump to).
pub const LIST: &[Binding] = &[
    Binding {
        label: "↑ ↓ / k j",
        help: "choose a hit",
        footer: Some("↑↓ choose"),
        keys: &[
            (key(KeyCode::Up), Action::Up),
            (key(KeyCode::Down), Action::Down),
            (ch('k'), Action::Up),
            (ch('j'), Action::Down),
            (key(KeyCode::PageUp), Action::PageUp),
            (key(KeyCode::PageDown), Action::PageDown),
        ],
    },
    Binding {
        label: "Enter",
        help: "open the round at the hit",
        footer: Some("Enter open"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    Binding {
        label: "Esc",
        help: "close the list ({next_hit} / {previous_hit} still step through the hits)",
        footer: Some("Esc close"),
        keys: &[(key(KeyCode::Esc), Action::Back)],
    },
];

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
pub struct Search {
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
}

impl Search {
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
fn live_hits(mirror: &Mirror, query: &SearchQuery) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    for round in &mirror.rounds {
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
fn merge(mirror: &Mirror, stored: Vec<SearchHit>, live: Vec<SearchHit>) -> Vec<SearchHit> {
    let mut all: Vec<(usize, SearchHit)> = stored
        .into_iter()
        .chain(live)
        .filter_map(|h| mirror.index.get(&h.round_id).map(|&i| (i, h)))
        .collect();
    // Stable: within a round, the order they came in.
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, h)| h).collect()
}

/// The rounds a jump to `typed` could mean, in schedule order: the one whose id is exactly
/// it, else those whose ids start with it, else those whose ids hold it (any case).
fn jump_candidates(mirror: &Mirror, typed: &str) -> Vec<String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Vec::new();
    }
    if mirror.index.contains_key(typed) {
        return vec![typed.to_string()];
    }
    let lower = typed.to_lowercase();
    let ids = || mirror.rounds.iter().map(|r| r.id());
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

/// Lines a page moves in the list.
const PAGE: usize = 10;

impl Search {
    /// Handles a key if search owns it: every key while the prompt is open, the list's keys
    /// while it is open, and the global `/`, `:`, `n`, `N`. `None` leaves the key to the rest.
    /// A search asks the store for the prompts' text too when `prompts` are shown.
    pub fn key(
        &mut self,
        mirror: &Mirror,
        key: &KeyEvent,
        keymap: &Keymap,
        global: Option<Action>,
        prompts: bool,
    ) -> Option<Outcome> {
        if self.prompt.is_some() {
            return Some(self.prompt_key(mirror, key, keymap, prompts));
        }
        if self.list.is_some() {
            if let Some(action) = keymap.action(LIST, key) {
                return Some(self.list_key(action));
            }
            // The screen under the list does not move; keys that work everywhere still do.
            if global.is_none() {
                return Some(Outcome::default());
            }
        }
        match global? {
            Action::Search | Action::Jump => {
                let kind = if global == Some(Action::Search) {
                    PromptKind::Search
                } else {
                    PromptKind::Jump
                };
                self.prompt = Some(Prompt {
                    kind,
                    text: String::new(),
                });
                self.list = None;
                Some(Outcome::default())
            }
            Action::NextHit => Some(self.step(true, keymap)),
            Action::PreviousHit => Some(self.step(false, keymap)),
            _ => None,
        }
    }

    fn prompt_key(
        &mut self,
        mirror: &Mirror,
        key: &KeyEvent,
        keymap: &Keymap,
        prompts: bool,
    ) -> Outcome {
        let Some(prompt) = &mut self.prompt else {
            return Outcome::default();
        };
        if crate::tui::prompt::erase(&mut prompt.text, key) {
            return Outcome::default();
        }
        match keymap.action(PROMPT, key) {
            Some(Action::Leave) => self.prompt = None,
            Some(Action::Erase) => {
                prompt.text.pop();
            }
            Some(Action::Run) => {
                return match self.prompt.take() {
                    Some(Prompt {
                        kind: PromptKind::Search,
                        text,
                    }) => self.run(text, prompts),
                    Some(Prompt {
                        kind: PromptKind::Jump,
                        text,
                    }) => self.jump(mirror, &text),
                    None => Outcome::default(),
                };
            }
            _ => {
                if let KeyCode::Char(c) = key.code
                    && !key.modifiers.contains(KeyModifiers::CONTROL)
                    && !c.is_control()
                {
                    prompt.text.push(c);
                }
            }
        }
        Outcome::default()
    }

    /// Starts a search (an empty one clears the last): the store's part is the driver's.
    fn run(&mut self, text: String, prompts: bool) -> Outcome {
        let s = self;
        s.hits.clear();
        s.current = None;
        s.truncated = false;
        s.error = None;
        s.list = None;
        if text.is_empty() {
            s.query = None;
            s.running = false;
            return Outcome::notice("search cleared".into());
        }
        s.query = Some(text.clone());
        s.running = true;
        Outcome::effect(Effect::Search {
            query: text,
            prompts,
        })
    }

    /// Takes the store's answer to the search still wanted (an older one is dropped), merges
    /// the text streaming now, and lists the hits; returns the summary for the footer.
    pub fn results(
        &mut self,
        mirror: &Mirror,
        query: &str,
        hits: Result<Vec<SearchHit>, String>,
    ) -> Option<String> {
        if self.query.as_deref() != Some(query) || !self.running {
            return None;
        }
        self.running = false;
        match hits {
            Ok(stored) => {
                self.truncated = stored.len() >= HIT_LIMIT;
                let live = live_hits(mirror, &SearchQuery::new(query));
                let mut all = merge(mirror, stored, live);
                all.truncate(HIT_LIMIT);
                self.hits = all;
                self.list = Some(List {
                    kind: ListKind::Hits,
                    selected: 0,
                });
            }
            Err(e) => self.error = Some(crate::sanitize::sanitize(&e)),
        }
        Some(self.summary())
    }

    fn list_key(&mut self, action: Action) -> Outcome {
        let Some(list) = &mut self.list else {
            return Outcome::default();
        };
        let len = match &list.kind {
            ListKind::Hits => self.hits.len(),
            ListKind::Rounds(ids) => ids.len(),
        };
        let last = len.saturating_sub(1);
        match action {
            Action::Up => list.selected = list.selected.saturating_sub(1),
            Action::Down => list.selected = (list.selected + 1).min(last),
            Action::PageUp => list.selected = list.selected.saturating_sub(PAGE),
            Action::PageDown => list.selected = (list.selected + PAGE).min(last),
            Action::Back => self.list = None,
            Action::Open => {
                let chosen = list.selected;
                return match self.list.take().map(|l| l.kind) {
                    Some(ListKind::Hits) => self.open_hit(chosen),
                    Some(ListKind::Rounds(ids)) => ids
                        .get(chosen)
                        .map_or_else(Outcome::default, |id| open_round(id)),
                    None => Outcome::default(),
                };
            }
            _ => {}
        }
        Outcome::default()
    }

    /// `n` / `N`: the next or previous hit, around the ends.
    fn step(&mut self, forward: bool, keymap: &Keymap) -> Outcome {
        self.list = None;
        let n = self.hits.len();
        if n == 0 {
            return Outcome::notice(if self.query.is_some() {
                self.summary()
            } else {
                format!(
                    "no search yet: press {} to search",
                    keymap
                        .first_key(crate::tui::keys::GLOBAL, Action::Search)
                        .unwrap_or_default()
                )
            });
        }
        let next = match (self.current, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
        };
        self.open_hit(next)
    }

    /// Opens the round of hit `i` at the hit: the scores for a correction, the prompts shown
    /// for a hit in a prompt, the transcript scrolled to it otherwise.
    fn open_hit(&mut self, i: usize) -> Outcome {
        let Some(hit) = self.hits.get(i) else {
            return Outcome::default();
        };
        let notice = format!(
            "hit {} of {}: {} · {}",
            i + 1,
            self.hits.len(),
            hit.round_id,
            hit.place.describe()
        );
        let to = Destination::Round(RoundAt {
            id: hit.round_id.clone(),
            scores: matches!(hit.place, HitPlace::Correction { .. }),
            opening: Opening::Hit {
                prompt: matches!(hit.place, HitPlace::Phase { prompt: true, .. }),
            },
        });
        self.current = Some(i);
        Outcome {
            notice: Some(notice),
            ..Outcome::go(to)
        }
    }

    /// `:` then Enter: opens the one round meant, or lists the candidates.
    fn jump(&mut self, mirror: &Mirror, typed: &str) -> Outcome {
        let candidates = jump_candidates(mirror, typed);
        match &candidates[..] {
            [] => Outcome::notice(format!(
                "no round id starts with or holds \"{}\"",
                crate::sanitize::sanitize(typed.trim())
            )),
            [id] => open_round(id),
            _ => {
                self.list = Some(List {
                    kind: ListKind::Rounds(candidates),
                    selected: 0,
                });
                Outcome::default()
            }
        }
    }
}

/// Opens a round's transcript, following it, as the matrix does.
fn open_round(id: &str) -> Outcome {
    Outcome::go(Destination::Round(RoundAt {
        id: id.to_string(),
        scores: false,
        opening: Opening::Follow,
    }))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::*;
    use crate::domain::{PhaseType, Round, RoundRecord, ScheduledRound};
    use crate::engine::{EngineEvent, ScheduledState};
    use crate::store::{RoundFields, Snippet};
    use crate::tui::app::{App, Screen};
    use crate::tui::mirror::Mode;
    use crate::tui::msg::Msg;
    use crate::tui::update::update;

    /// A round set up from an id of the form `dilemma__a__vs__b__r1`.
    fn blank(id: &str) -> Round {
        let parts: Vec<&str> = id.split("__").collect();
        let s = ScheduledRound {
            team_a: parts[1].into(),
            team_b: parts[3].into(),
            ..ScheduledRound::example(id, parts[0])
        };
        crate::protocols::blank_round(&s, RoundRecord::EthicsBowl)
    }

    fn app() -> App {
        let mut app = App::new("t", Mode::Live, Instant::now());
        let rounds = ["d1__a__vs__b__r1", "d1__b__vs__a__r1", "d2__a__vs__b__r1"]
            .iter()
            .map(|id| ScheduledState {
                round: Arc::new(blank(id)),
                stored: false,
                to_run: true,
                text_dropped: false,
            })
            .collect();
        update(
            &mut app,
            Msg::Engine(EngineEvent::Started {
                tournament_id: "t".into(),
                rounds,
            }),
        );
        app
    }

    fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    fn type_text(app: &mut App, text: &str) {
        for c in text.chars() {
            press(app, KeyCode::Char(c));
        }
    }

    fn hit(round: &str, index: usize) -> SearchHit {
        SearchHit {
            round_id: round.into(),
            place: HitPlace::Phase {
                index,
                phase_type: PhaseType::Presentation,
                speaker: "a".into(),
                prompt: false,
            },
            count: 1,
            snippet: Snippet::default(),
        }
    }

    /// Runs a search for `query` and answers it with `hits` as the driver would.
    fn search(app: &mut App, query: &str, hits: Vec<SearchHit>) {
        press(app, KeyCode::Char('/'));
        type_text(app, query);
        let effects = press(app, KeyCode::Enter);
        assert_eq!(
            effects,
            vec![Effect::Search {
                query: query.into(),
                prompts: false
            }]
        );
        update(
            app,
            Msg::SearchResults {
                query: query.into(),
                hits: Ok(hits),
            },
        );
    }

    #[test]
    fn the_prompt_takes_every_key_and_esc_cancels_it() {
        let mut app = app();
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "qn?x");
        press(&mut app, KeyCode::Backspace);
        assert_eq!(app.screens.search.prompt.as_ref().unwrap().text, "qn?");
        assert!(app.mirror.finished.is_none() && !app.screens.help.open && !app.confirm_quit);
        assert!(press(&mut app, KeyCode::Esc).is_empty());
        assert!(app.screens.search.prompt.is_none() && app.screens.search.query.is_none());
        assert_eq!(app.screen(), Screen::Matrix);
    }

    #[test]
    fn results_merge_the_streaming_text_and_older_answers_are_dropped() {
        let mut app = app();
        for text in ["The cons", "ENT of the family"] {
            update(
                &mut app,
                Msg::Engine(EngineEvent::TextDelta {
                    round_id: "d1__a__vs__b__r1".into(),
                    phase_type: PhaseType::Presentation,
                    model: "a".into(),
                    text: text.into(),
                }),
            );
        }
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "consent");
        press(&mut app, KeyCode::Enter);
        assert!(app.screens.search.running);
        // An answer to another search is not this one's.
        update(
            &mut app,
            Msg::SearchResults {
                query: "other".into(),
                hits: Ok(vec![hit("d2__a__vs__b__r1", 0)]),
            },
        );
        assert!(app.screens.search.running && app.screens.search.hits.is_empty());
        let stored = vec![
            hit("d1__b__vs__a__r1", 2),
            hit("d2__a__vs__b__r1", 0),
            hit("not-in-the-schedule", 0),
        ];
        update(
            &mut app,
            Msg::SearchResults {
                query: "consent".into(),
                hits: Ok(stored),
            },
        );
        let found: Vec<(&str, String)> = app
            .screens
            .search
            .hits
            .iter()
            .map(|h| (h.round_id.as_str(), h.snippet.matched.clone()))
            .collect();
        assert_eq!(
            found,
            [
                ("d1__a__vs__b__r1", "consENT".to_string()),
                ("d1__b__vs__a__r1", String::new()),
                ("d2__a__vs__b__r1", String::new()),
            ],
            "schedule order, the live call's text included, unknown rounds left out"
        );
        assert_eq!(
            app.screens.search.list,
            Some(List {
                kind: ListKind::Hits,
                selected: 0
            })
        );
        assert_eq!(
            app.notice.as_deref(),
            Some("\"consent\": 3 hits in 3 rounds")
        );
    }

    #[test]
    fn enter_opens_a_hit_and_n_and_shift_n_step_through_the_rest() {
        let mut app = app();
        search(
            &mut app,
            "x",
            vec![hit("d1__a__vs__b__r1", 1), hit("d2__a__vs__b__r1", 0)],
        );
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), Screen::Round { scores: false });
        assert_eq!(app.selected().unwrap().id(), "d2__a__vs__b__r1");
        assert!(
            app.screens.search.list.is_none()
                && app.screens.round.scroll_to_hit
                && !app.screens.round.follow
        );
        assert_eq!(app.screens.search.current, Some(1));
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(app.selected().unwrap().id(), "d1__a__vs__b__r1");
        assert_eq!(app.screens.search.current, Some(0));
        press(&mut app, KeyCode::Char('N'));
        assert_eq!(app.screens.search.current, Some(1));
        // The view showed the hit at line 7: scrolling goes on from there.
        app.screens.round.scrolled_to.set(Some(7));
        press(&mut app, KeyCode::Down);
        assert_eq!(app.screens.round.scroll, 8);
        assert!(!app.screens.round.scroll_to_hit);
        press(&mut app, KeyCode::Esc);
        assert_eq!(
            app.screen(),
            Screen::Matrix,
            "back where the hit was opened from"
        );
    }

    #[test]
    fn esc_closes_the_list_and_n_still_works() {
        let mut app = app();
        search(&mut app, "x", vec![hit("d1__b__vs__a__r1", 0)]);
        press(&mut app, KeyCode::Char('l'));
        assert_eq!(
            app.screens.matrix.cursor,
            (0, 0),
            "the matrix under the list does not move"
        );
        press(&mut app, KeyCode::Esc);
        assert!(app.screens.search.list.is_none());
        assert_eq!(app.screen(), Screen::Matrix);
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(app.selected().unwrap().id(), "d1__b__vs__a__r1");
        // An empty search clears the highlight and the hits.
        press(&mut app, KeyCode::Char('/'));
        assert!(press(&mut app, KeyCode::Enter).is_empty());
        assert!(app.screens.search.query.is_none() && app.screens.search.hits.is_empty());
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(
            app.notice.as_deref(),
            Some("no search yet: press / to search")
        );
    }

    #[test]
    fn corrections_open_the_scores_and_prompt_hits_show_the_prompts() {
        let mut app = app();
        let mut correction = hit("d1__a__vs__b__r1", 0);
        correction.place = HitPlace::Correction { judge: "j".into() };
        let mut prompt = hit("d1__b__vs__a__r1", 0);
        prompt.place = HitPlace::Phase {
            index: 0,
            phase_type: PhaseType::Response,
            speaker: "b".into(),
            prompt: true,
        };
        let mut round = hit("d2__a__vs__b__r1", 0);
        round.place = HitPlace::Round(RoundFields {
            id: true,
            ..Default::default()
        });
        search(&mut app, "x", vec![correction, prompt, round]);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), Screen::Round { scores: true });
        assert!(!app.screens.round.show_prompts);
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(app.screen(), Screen::Round { scores: false });
        assert!(app.screens.round.show_prompts);
    }

    #[test]
    fn a_failed_search_says_why() {
        let mut app = app();
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "x");
        press(&mut app, KeyCode::Enter);
        update(
            &mut app,
            Msg::SearchResults {
                query: "x".into(),
                hits: Err("results/t: no such results folder".into()),
            },
        );
        assert_eq!(
            app.notice.as_deref(),
            Some("search for \"x\" failed: results/t: no such results folder")
        );
    }

    #[test]
    fn colon_jumps_to_a_round_by_the_start_of_its_id() {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_text(&mut app, "D2");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), Screen::Round { scores: false });
        assert_eq!(app.selected().unwrap().id(), "d2__a__vs__b__r1");
        press(&mut app, KeyCode::Esc);

        press(&mut app, KeyCode::Char(':'));
        type_text(&mut app, "d1");
        press(&mut app, KeyCode::Enter);
        assert_eq!(
            app.screens.search.list.as_ref().map(|l| &l.kind),
            Some(&ListKind::Rounds(vec![
                "d1__a__vs__b__r1".into(),
                "d1__b__vs__a__r1".into()
            ]))
        );
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.selected().unwrap().id(), "d1__b__vs__a__r1");
        press(&mut app, KeyCode::Esc);

        press(&mut app, KeyCode::Char(':'));
        type_text(&mut app, "b__vs__a");
        press(&mut app, KeyCode::Enter);
        assert_eq!(
            app.selected().unwrap().id(),
            "d1__b__vs__a__r1",
            "held, not only started"
        );
        press(&mut app, KeyCode::Esc);

        press(&mut app, KeyCode::Char(':'));
        type_text(&mut app, "zz");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), Screen::Matrix);
        assert_eq!(
            app.notice.as_deref(),
            Some("no round id starts with or holds \"zz\"")
        );
    }
}
