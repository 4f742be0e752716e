//! Keys of the filter bar: `f` opens its prompt (holding the filter in force, to edit),
//! typing builds the filter, Enter applies it (or says what is wrong and stays), Esc leaves
//! it as it was, `F` clears it. The matrix cursor moves over the rows and columns the
//! filter keeps.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::tui::app::App;
use crate::tui::filter::Filter;
use crate::tui::keys::{self, Action, Table};

use crate::tui::msg::Effect;

/// Opens the prompt with the filter in force.
pub(super) fn open(app: &mut App) -> Vec<Effect> {
    let text = app
        .filter
        .active
        .as_ref()
        .map(|f| format!("{} ", f.text))
        .unwrap_or_default();
    app.filter.prompt = Some(text);
    app.filter.message = None;
    Vec::new()
}

/// Clears the filter.
pub(super) fn clear(app: &mut App) -> Vec<Effect> {
    if app.filter.active.take().is_some() {
        app.notice = Some("filter cleared: every round shows".into());
    }
    settle(app);
    Vec::new()
}

/// A key while the prompt is open: every key but Enter, Esc and Backspace is text.
pub(super) fn key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let Some(text) = app.filter.prompt.as_mut() else {
        return Vec::new();
    };
    match keys::action(Table::FilterPrompt, &key) {
        Some(Action::ApplyFilter) => apply(app),
        Some(Action::CancelFilter) => {
            app.filter.prompt = None;
            app.filter.message = None;
        }
        Some(Action::Erase) => {
            text.pop();
            app.filter.message = None;
        }
        _ => {
            // A pasted escape or control character never reaches the screen.
            if let KeyCode::Char(c) = key.code
                && !key.modifiers.contains(KeyModifiers::CONTROL)
                && !c.is_control()
            {
                text.push(c);
                app.filter.message = None;
            }
        }
    }
    Vec::new()
}

/// Applies the typed filter, or keeps the prompt open with why it cannot be.
fn apply(app: &mut App) {
    let Some(text) = app.filter.prompt.clone() else {
        return;
    };
    match Filter::parse(&text, &app.mirror.filter_values()) {
        Ok(filter) => {
            app.filter.active = filter;
            app.filter.prompt = None;
            app.filter.message = None;
            settle(app);
            let shown = app.shown_rounds().count();
            app.notice = Some(match &app.filter.active {
                Some(f) => format!(
                    "filter {}: {shown} of {} rounds (F clears)",
                    f.text,
                    app.mirror.rounds.len()
                ),
                None => "filter cleared: every round shows".into(),
            });
        }
        Err(why) => app.filter.message = Some(why),
    }
}

/// Puts the matrix cursor on a round that passes (the first, in schedule order) when the
/// one under it does not, and keeps the review cursor inside the shorter queue.
fn settle(app: &mut App) {
    let passes = app.selected().is_some_and(|r| app.passes(r));
    if !passes
        && let Some(cell) = app
            .mirror
            .cells
            .iter()
            .filter(|(_, i)| app.passes(&app.mirror.rounds[**i]))
            .min_by_key(|(_, i)| **i)
            .map(|(cell, _)| *cell)
    {
        app.cursor = cell;
    }
    app.review_cursor = app.review_cursor.min(app.review_len().saturating_sub(1));
}

/// Moves the matrix cursor one shown row or column, stopping at the edges.
pub(super) fn move_cursor(app: &mut App, action: Action) {
    let (rows, cols) = app.shown_lines();
    let step = |lines: &[usize], at: usize, forward: bool| -> usize {
        let Some(pos) = lines.iter().position(|l| *l == at) else {
            return lines.first().copied().unwrap_or(at);
        };
        let next = if forward {
            lines.get(pos + 1)
        } else {
            pos.checked_sub(1).and_then(|p| lines.get(p))
        };
        next.copied().unwrap_or(at)
    };
    let (r, c) = app.cursor;
    match action {
        Action::Up => app.cursor.0 = step(&rows, r, false),
        Action::Down => app.cursor.0 = step(&rows, r, true),
        Action::Left => app.cursor.1 = step(&cols, c, false),
        Action::Right => app.cursor.1 = step(&cols, c, true),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::domain::{Judgment, ParseStatus, Reading, Round, RoundRecord, ScheduledRound};
    use crate::domain::{RoundStatus, Scores};
    use crate::engine::{EngineEvent, ScheduledState};
    use crate::tui::app::{App, Screen};
    use crate::tui::mirror::Mode;
    use crate::tui::mirror::{Standing, standing};
    use crate::tui::msg::Msg;
    use crate::tui::update::update;

    fn round(id: &str, a: &str, b: &str, d: &str, judge: &str) -> Round {
        let s = ScheduledRound {
            team_a: a.into(),
            team_b: b.into(),
            judges: vec![judge.into()],
            ..ScheduledRound::example(id, d)
        };
        crate::protocols::blank_round(&s, RoundRecord::EthicsBowl)
    }

    fn done(mut r: Round, status: ParseStatus) -> Round {
        let judge = r.judge_models.first().cloned().unwrap_or_default();
        r.put_judgment(Judgment {
            parse_status: status,
            problems: vec!["Team A missing: consistency".into()],
            ..Judgment::new(
                &judge,
                Reading::Rubric {
                    team_a: Scores::uniform(7.0),
                    team_b: Scores::uniform(6.0),
                },
            )
        });
        r.status = r.settled_status();
        r
    }

    /// Six rounds of three models on two dilemmas, judged by j1 or j2: two done, one
    /// needing review, the rest not begun.
    fn app() -> App {
        let mut app = App::new("t", Mode::Live, Instant::now());
        let rounds = vec![
            round("r1", "gpt-4o", "claude", "d1", "j1"),
            round("r2", "claude", "gpt-4o", "d1", "j2"),
            round("r3", "gemini", "claude", "d1", "j1"),
            round("r4", "gpt-4o", "claude", "d2", "j2"),
            round("r5", "claude", "gpt-4o", "d2", "j1"),
            round("r6", "gemini", "claude", "d2", "j1"),
        ];
        let rounds = rounds
            .into_iter()
            .map(|r| ScheduledState {
                round: Arc::new(r),
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
        for (r, status) in [
            (
                round("r1", "gpt-4o", "claude", "d1", "j1"),
                ParseStatus::Parsed,
            ),
            (
                round("r2", "claude", "gpt-4o", "d1", "j2"),
                ParseStatus::Failed,
            ),
            (
                round("r6", "gemini", "claude", "d2", "j1"),
                ParseStatus::Parsed,
            ),
        ] {
            update(
                &mut app,
                Msg::Engine(EngineEvent::RoundStored {
                    round: Arc::new(done(r, status)),
                }),
            );
        }
        app
    }

    fn press(app: &mut App, code: KeyCode) {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    fn type_filter(app: &mut App, text: &str) {
        press(app, KeyCode::Char('f'));
        while app.filter.prompt.as_ref().is_some_and(|t| !t.is_empty()) {
            press(app, KeyCode::Backspace);
        }
        for c in text.chars() {
            press(app, KeyCode::Char(c));
        }
        press(app, KeyCode::Enter);
    }

    fn shown(app: &App) -> Vec<&str> {
        app.shown_rounds().map(|r| r.id()).collect()
    }

    #[test]
    fn a_role_word_resolves_a_partial_model_and_narrows_every_list() {
        let mut app = app();
        type_filter(&mut app, "b=gpt");
        assert!(app.filter.prompt.is_none(), "{:?}", app.filter.message);
        let filter = app.filter.active.as_ref().expect("a filter");
        assert_eq!(filter.text, "b=gpt-4o");
        assert_eq!(shown(&app), ["r2", "r5"]);
        // The review queue holds only r2's judgment, which passes.
        assert_eq!(app.review_len(), 1);
        // The cursor moved onto a round that passes; the hidden rows are stepped over.
        assert_eq!(app.selected().map(|r| r.id()), Some("r2"));
        let (rows, cols) = app.shown_lines();
        assert_eq!((rows.len(), cols.len()), (1, 2));
        press(&mut app, KeyCode::Down);
        assert_eq!(app.selected().map(|r| r.id()), Some("r2"));
        press(&mut app, KeyCode::Right);
        assert_eq!(app.selected().map(|r| r.id()), Some("r5"));
    }

    #[test]
    fn words_combine_and_status_reads_the_uis_states() {
        let mut app = app();
        type_filter(&mut app, "model=claude status=done");
        assert_eq!(shown(&app), ["r1", "r6"]);
        type_filter(&mut app, "judge=j1 status=incomplete");
        assert_eq!(shown(&app), ["r3", "r5"]);
        type_filter(&mut app, "status=review");
        assert_eq!(shown(&app), ["r2"]);
        type_filter(&mut app, "dilemma=d2 a=gemini");
        assert_eq!(shown(&app), ["r6"]);
        // A call under way makes a round running, not queued.
        update(
            &mut app,
            Msg::Engine(EngineEvent::PhaseStarted {
                round_id: "r3".into(),
                phase_type: crate::domain::PhaseType::Presentation,
                model: "gemini".into(),
            }),
        );
        let r3 = &app.mirror.rounds[app.mirror.index["r3"]];
        assert_eq!(standing(r3, app.mirror.now), Standing::Running);
        type_filter(&mut app, "status=running");
        assert_eq!(shown(&app), ["r3"]);
        type_filter(&mut app, "status=queued");
        assert_eq!(shown(&app), ["r4", "r5"]);
    }

    #[test]
    fn a_wrong_word_is_explained_and_the_prompt_stays() {
        let mut app = app();
        type_filter(&mut app, "a=mistral");
        assert!(app.filter.prompt.is_some() && app.filter.active.is_none());
        let why = app.filter.message.clone().expect("a message");
        assert!(why.contains("a=mistral") && why.contains("gpt-4o"), "{why}");
        press(&mut app, KeyCode::Esc);
        type_filter(&mut app, "model=g");
        let why = app.filter.message.clone().expect("ambiguous");
        assert!(why.contains("gemini") && why.contains("gpt-4o"), "{why}");
        press(&mut app, KeyCode::Esc);
        type_filter(&mut app, "gpt");
        assert!(
            app.filter
                .message
                .as_deref()
                .is_some_and(|m| m.contains("key=value"))
        );
        press(&mut app, KeyCode::Esc);
        type_filter(&mut app, "status=finished");
        assert!(
            app.filter
                .message
                .as_deref()
                .is_some_and(|m| m.contains("done, review"))
        );
        press(&mut app, KeyCode::Esc);
        assert!(app.filter.prompt.is_none() && app.filter.active.is_none());
        assert_eq!(app.shown_rounds().count(), 6);
    }

    #[test]
    fn f_edits_the_filter_in_force_and_capital_f_or_an_empty_one_clears_it() {
        let mut app = app();
        type_filter(&mut app, "a=gpt");
        press(&mut app, KeyCode::Char('f'));
        assert_eq!(app.filter.prompt.as_deref(), Some("a=gpt-4o "));
        // Keys are text in the prompt: `q` does not quit, `v` does not leave the matrix.
        for c in "status=done".chars() {
            press(&mut app, KeyCode::Char(c));
        }
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen, Screen::Matrix);
        assert_eq!(shown(&app), ["r1"]);
        press(&mut app, KeyCode::Char('F'));
        assert!(app.filter.active.is_none());
        assert_eq!(app.shown_rounds().count(), 6);
        type_filter(&mut app, "a=gpt");
        type_filter(&mut app, "");
        assert!(app.filter.active.is_none());
        // The review queue and the leaderboard take the keys too.
        press(&mut app, KeyCode::Char('v'));
        type_filter(&mut app, "status=done");
        assert_eq!((app.screen, app.review_len()), (Screen::Review, 0));
        press(&mut app, KeyCode::Char('F'));
        assert_eq!(app.review_len(), 1);
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('s'));
        type_filter(&mut app, "a=gemini");
        assert_eq!(
            (app.screen, shown(&app)),
            (Screen::Leaderboard, vec!["r3", "r6"])
        );
        assert_eq!(
            app.mirror.rounds[app.mirror.index["r2"]].status(),
            RoundStatus::NeedsReview
        );
    }
}
