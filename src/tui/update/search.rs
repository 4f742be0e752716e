//! Keys of search and jump: `/` and `:` open the footer prompt, which takes every key until
//! Enter or Esc; a search asks the driver to search the store ([`Effect::Search`]) and its
//! answer ([`Msg::SearchResults`]) is merged with the streaming text here; the list
//! overlay chooses a hit or a round; `n` / `N` open the next or previous hit from any
//! screen.
//!
//! [`Msg::SearchResults`]: crate::tui::msg::Msg::SearchResults

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::store::{HitPlace, SearchHit, SearchQuery};
use crate::tui::app::{App, Screen};
use crate::tui::keys::{self, Action, Table};
use crate::tui::search::{
    HIT_LIMIT, List, ListKind, Prompt, PromptKind, jump_candidates, live_hits, merge,
};

use crate::tui::msg::Effect;

/// Lines a page moves in the list.
const PAGE: usize = 10;

/// Handles a key if search owns it: every key while the prompt is open, the list's keys
/// while it is open, and the global `/`, `:`, `n`, `N`. `None` leaves the key to the rest.
pub(super) fn key(app: &mut App, key: &KeyEvent, global: Option<Action>) -> Option<Vec<Effect>> {
    if app.search.prompt.is_some() {
        return Some(prompt_key(app, key));
    }
    if app.search.list.is_some() {
        if let Some(action) = keys::action(Table::SearchList, key) {
            list_key(app, action);
            return Some(Vec::new());
        }
        // The screen under the list does not move; keys that work everywhere still do.
        if global.is_none() {
            return Some(Vec::new());
        }
    }
    match global? {
        Action::Search | Action::Jump => {
            let kind = if global == Some(Action::Search) {
                PromptKind::Search
            } else {
                PromptKind::Jump
            };
            app.search.prompt = Some(Prompt {
                kind,
                text: String::new(),
            });
            app.search.list = None;
        }
        Action::NextHit => step(app, true),
        Action::PreviousHit => step(app, false),
        _ => return None,
    }
    Some(Vec::new())
}

fn prompt_key(app: &mut App, key: &KeyEvent) -> Vec<Effect> {
    let Some(prompt) = &mut app.search.prompt else {
        return Vec::new();
    };
    match keys::action(Table::Prompt, key) {
        Some(Action::Leave) => app.search.prompt = None,
        Some(Action::Erase) => {
            prompt.text.pop();
        }
        Some(Action::Run) => {
            let prompt = app.search.prompt.take();
            return match prompt {
                Some(Prompt {
                    kind: PromptKind::Search,
                    text,
                }) => run_search(app, text),
                Some(Prompt {
                    kind: PromptKind::Jump,
                    text,
                }) => {
                    jump(app, &text);
                    Vec::new()
                }
                None => Vec::new(),
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
    Vec::new()
}

/// Starts a search (an empty one clears the last): the store's part is the driver's.
fn run_search(app: &mut App, text: String) -> Vec<Effect> {
    let s = &mut app.search;
    s.hits.clear();
    s.current = None;
    s.truncated = false;
    s.error = None;
    s.list = None;
    if text.is_empty() {
        s.query = None;
        s.running = false;
        app.notice = Some("search cleared".into());
        return Vec::new();
    }
    s.query = Some(text.clone());
    s.running = true;
    vec![Effect::Search {
        query: text,
        prompts: app.show_prompts,
    }]
}

/// Takes the store's answer to the search still wanted (an older one is dropped), merges
/// the text streaming now, and lists the hits.
pub(super) fn results(app: &mut App, query: &str, hits: Result<Vec<SearchHit>, String>) {
    if app.search.query.as_deref() != Some(query) || !app.search.running {
        return;
    }
    app.search.running = false;
    match hits {
        Ok(stored) => {
            app.search.truncated = stored.len() >= HIT_LIMIT;
            let live = live_hits(app, &SearchQuery::new(query));
            let mut all = merge(app, stored, live);
            all.truncate(HIT_LIMIT);
            app.search.hits = all;
            app.search.list = Some(List {
                kind: ListKind::Hits,
                selected: 0,
            });
        }
        Err(e) => app.search.error = Some(crate::sanitize::sanitize(&e)),
    }
    app.notice = Some(app.search.summary());
}

fn list_key(app: &mut App, action: Action) {
    let Some(list) = &mut app.search.list else {
        return;
    };
    let len = match &list.kind {
        ListKind::Hits => app.search.hits.len(),
        ListKind::Rounds(ids) => ids.len(),
    };
    let last = len.saturating_sub(1);
    match action {
        Action::Up => list.selected = list.selected.saturating_sub(1),
        Action::Down => list.selected = (list.selected + 1).min(last),
        Action::PageUp => list.selected = list.selected.saturating_sub(PAGE),
        Action::PageDown => list.selected = (list.selected + PAGE).min(last),
        Action::Back => app.search.list = None,
        Action::Open => {
            let chosen = list.selected;
            match app.search.list.take().map(|l| l.kind) {
                Some(ListKind::Hits) => open_hit(app, chosen),
                Some(ListKind::Rounds(ids)) => {
                    if let Some(id) = ids.get(chosen) {
                        open_round(app, id);
                    }
                }
                None => {}
            }
        }
        _ => {}
    }
}

/// `n` / `N`: the next or previous hit, around the ends.
fn step(app: &mut App, forward: bool) {
    app.search.list = None;
    let n = app.search.hits.len();
    if n == 0 {
        app.notice = Some(if app.search.query.is_some() {
            app.search.summary()
        } else {
            "no search yet: press / to search".into()
        });
        return;
    }
    let next = match (app.search.current, forward) {
        (None, true) => 0,
        (None, false) => n - 1,
        (Some(i), true) => (i + 1) % n,
        (Some(i), false) => (i + n - 1) % n,
    };
    open_hit(app, next);
}

/// Opens the round of hit `i` at the hit: the scores for a correction, the prompts shown
/// for a hit in a prompt, the transcript scrolled to it otherwise.
fn open_hit(app: &mut App, i: usize) {
    let Some(hit) = app.search.hits.get(i).cloned() else {
        return;
    };
    if !show_round(app, &hit.round_id) {
        return;
    }
    app.search.current = Some(i);
    app.screen = Screen::Round {
        scores: matches!(hit.place, HitPlace::Correction { .. }),
    };
    if matches!(hit.place, HitPlace::Phase { prompt: true, .. }) {
        app.show_prompts = true;
    }
    app.follow = false;
    app.scroll = 0;
    app.search.scroll_to_hit = true;
    app.search.scrolled_to.set(None);
    app.notice = Some(format!(
        "hit {} of {}: {} · {}",
        i + 1,
        app.search.hits.len(),
        hit.round_id,
        hit.place.describe()
    ));
}

/// `:` then Enter: opens the one round meant, or lists the candidates.
fn jump(app: &mut App, typed: &str) {
    let candidates = jump_candidates(app, typed);
    match &candidates[..] {
        [] => {
            app.notice = Some(format!(
                "no round id starts with or holds \"{}\"",
                crate::sanitize::sanitize(typed.trim())
            ));
        }
        [id] => open_round(app, id),
        _ => {
            app.search.list = Some(List {
                kind: ListKind::Rounds(candidates),
                selected: 0,
            });
        }
    }
}

/// Opens a round's transcript as the matrix does.
fn open_round(app: &mut App, id: &str) {
    if show_round(app, id) {
        app.screen = Screen::Round { scores: false };
        app.scroll = 0;
        app.follow = true;
        app.search.scroll_to_hit = false;
    }
}

/// Puts the matrix cursor on a round and remembers where Esc returns; false when the round
/// is not in the matrix.
fn show_round(app: &mut App, id: &str) -> bool {
    let cell = app
        .mirror
        .index
        .get(id)
        .and_then(|i| app.mirror.cells.iter().find(|(_, idx)| *idx == i))
        .map(|(cell, _)| *cell);
    let Some(cell) = cell else {
        app.notice = Some(format!("round {id} is not in this tournament's matrix"));
        return false;
    };
    app.cursor = cell;
    if !matches!(app.screen, Screen::Round { .. }) {
        app.round_opened_from = app.screen;
    }
    true
}

/// Before a key acts on the round view: a view scrolled to a hit goes on from the line it
/// showed.
pub(super) fn settle_scroll(app: &mut App) {
    if app.search.scroll_to_hit {
        app.search.scroll_to_hit = false;
        if let Some(line) = app.search.scrolled_to.take() {
            app.scroll = line;
        }
    }
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
        assert_eq!(app.search.prompt.as_ref().unwrap().text, "qn?");
        assert!(app.mirror.finished.is_none() && !app.help && !app.confirm_quit);
        assert!(press(&mut app, KeyCode::Esc).is_empty());
        assert!(app.search.prompt.is_none() && app.search.query.is_none());
        assert_eq!(app.screen, Screen::Matrix);
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
        assert!(app.search.running);
        // An answer to another search is not this one's.
        update(
            &mut app,
            Msg::SearchResults {
                query: "other".into(),
                hits: Ok(vec![hit("d2__a__vs__b__r1", 0)]),
            },
        );
        assert!(app.search.running && app.search.hits.is_empty());
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
            app.search.list,
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
        assert_eq!(app.screen, Screen::Round { scores: false });
        assert_eq!(app.selected().unwrap().id(), "d2__a__vs__b__r1");
        assert!(app.search.list.is_none() && app.search.scroll_to_hit && !app.follow);
        assert_eq!(app.search.current, Some(1));
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(app.selected().unwrap().id(), "d1__a__vs__b__r1");
        assert_eq!(app.search.current, Some(0));
        press(&mut app, KeyCode::Char('N'));
        assert_eq!(app.search.current, Some(1));
        // The view showed the hit at line 7: scrolling goes on from there.
        app.search.scrolled_to.set(Some(7));
        press(&mut app, KeyCode::Down);
        assert_eq!(app.scroll, 8);
        assert!(!app.search.scroll_to_hit);
        press(&mut app, KeyCode::Esc);
        assert_eq!(
            app.screen,
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
            app.cursor,
            (0, 0),
            "the matrix under the list does not move"
        );
        press(&mut app, KeyCode::Esc);
        assert!(app.search.list.is_none());
        assert_eq!(app.screen, Screen::Matrix);
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(app.selected().unwrap().id(), "d1__b__vs__a__r1");
        // An empty search clears the highlight and the hits.
        press(&mut app, KeyCode::Char('/'));
        assert!(press(&mut app, KeyCode::Enter).is_empty());
        assert!(app.search.query.is_none() && app.search.hits.is_empty());
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
        assert_eq!(app.screen, Screen::Round { scores: true });
        assert!(!app.show_prompts);
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(app.screen, Screen::Round { scores: false });
        assert!(app.show_prompts);
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
        assert_eq!(app.screen, Screen::Round { scores: false });
        assert_eq!(app.selected().unwrap().id(), "d2__a__vs__b__r1");
        press(&mut app, KeyCode::Esc);

        press(&mut app, KeyCode::Char(':'));
        type_text(&mut app, "d1");
        press(&mut app, KeyCode::Enter);
        assert_eq!(
            app.search.list.as_ref().map(|l| &l.kind),
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
        assert_eq!(app.screen, Screen::Matrix);
        assert_eq!(
            app.notice.as_deref(),
            Some("no round id starts with or holds \"zz\"")
        );
    }
}
