//! Navigation, in one place: every screen's key that leads elsewhere names a
//! [`Destination`], and [`go`] takes the UI there. So "open round X" is written once, and
//! works alike from the matrix, the Analysis screen, a search hit, a jump by id, the review
//! queue or the comparison, whether or not the matrix shows the round.

use super::app::App;
use super::mirror::Mode;
use super::msg::{Destination, Effect, Opening, RoundAt};
use super::screens::Id;
use super::screens::editor::Editor;
use super::screens::round::Order;
use super::shown::Shown;
use crate::domain::RoundStatus;

/// Goes to `to`; returns what the driver must do (an analysis to compute).
pub fn go(app: &mut App, to: Destination) -> Vec<Effect> {
    match to {
        Destination::Back => back(app),
        Destination::Matrix => app.trail.show(Id::Matrix),
        Destination::Review => app.trail.show(Id::Review),
        Destination::Leaderboard => app.trail.show(Id::Leaderboard),
        Destination::Log => app.trail.show(Id::Log),
        Destination::Editor => editor(app),
        Destination::Analysis => {
            app.trail.show(Id::Analysis);
            let analysis = &mut app.screens.analysis;
            if analysis.wanted() {
                return analysis.refresh(&app.mirror).into_iter().collect();
            }
        }
        Destination::Compare { summary } => compare(app, summary),
        Destination::Column(dilemma) => {
            if let Some(col) = app.mirror.columns.iter().position(|(c, _)| *c == dilemma) {
                app.screens.matrix.cursor.1 = col;
            }
            app.trail.show(Id::Matrix);
        }
        Destination::Round(at) => {
            let order = match (at.opening, app.showing()) {
                (Opening::Hit { .. }, _) => Order::Search,
                (_, Id::Review) => Order::Review,
                _ => Order::Matrix,
            };
            round(app, at, order);
        }
        Destination::Step { forward } => step(app, forward),
    }
    Vec::new()
}

/// The rounds in `order`, by id (the matrix's cells row by row as the filter shows them,
/// the search hits' rounds, the review queue's rounds), each once.
fn ids_in(app: &App, order: Order) -> Vec<String> {
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    let mut ids: Vec<String> = Vec::new();
    let mut push = |id: &str| {
        if !ids.iter().any(|i| i == id) {
            ids.push(id.to_string());
        }
    };
    match order {
        Order::Matrix => {
            let mut cells: Vec<(&(usize, usize), &usize)> = app
                .mirror
                .cells
                .iter()
                .filter(|(_, i)| shown.passes(&app.mirror.rounds[**i]))
                .collect();
            cells.sort();
            for (_, &i) in cells {
                push(app.mirror.rounds[i].id());
            }
        }
        Order::Search => {
            for hit in &app.screens.search.hits {
                push(&hit.round_id);
            }
        }
        Order::Review => {
            for item in shown.review_items() {
                push(&item.round_id);
            }
        }
    }
    ids
}

/// Opens the next (or previous) round in the order the round showing was opened from, on
/// the same tab; at either end, says so.
fn step(app: &mut App, forward: bool) {
    let Some(current) = app.screens.round.id.clone() else {
        return;
    };
    let order = app.screens.round.order;
    let ids = ids_in(app, order);
    let next = match ids.iter().position(|id| *id == current) {
        Some(p) if forward => ids.get(p + 1),
        Some(p) => p.checked_sub(1).and_then(|p| ids.get(p)),
        None => ids.first(),
    };
    let Some(next) = next.cloned() else {
        app.notice = Some(format!(
            "{} round {}",
            if forward { "no next" } else { "no previous" },
            order.describe()
        ));
        return;
    };
    let position = ids.iter().position(|id| *id == next).map_or(0, |p| p + 1);
    let scores = app.screens.round.scores;
    round(
        app,
        RoundAt {
            id: next,
            scores,
            opening: Opening::Follow,
        },
        order,
    );
    app.notice = Some(format!(
        "round {position} of {} {}",
        ids.len(),
        order.describe()
    ));
}

/// Opens a round by id: the round screen shows it, and the matrix cursor follows it when
/// the matrix shows it.
/// A round that will not grow any more (finished, stopped, or stored results being
/// browsed) opens at its top; one under way or to come follows its stream.
fn round(
    app: &mut App,
    RoundAt {
        id,
        scores,
        opening,
    }: RoundAt,
    order: Order,
) {
    let Some(&i) = app.mirror.index.get(&id) else {
        app.notice = Some(format!("no round {id} in this tournament"));
        return;
    };
    let r = &app.mirror.rounds[i];
    let settled = !r.is_running()
        && (r.status() != RoundStatus::Incomplete
            || r.failure().is_some()
            || app.mirror.mode == Mode::Browse);
    let opening = match opening {
        Opening::Follow if settled => Opening::Top,
        other => other,
    };
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    app.screens.matrix.follow(shown, i);
    app.screens.round.open(id, scores, opening);
    app.screens.round.order = order;
    app.trail.show(Id::Round);
}

/// Opens the review queue's selected item in the editor.
fn editor(app: &mut App) {
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    let Some(item) = shown.review_items().nth(app.screens.review.cursor) else {
        return;
    };
    let round = app.mirror.round(&item.round_id).map(|r| r.stored.clone());
    app.screens.editor = Some(Editor::open(item, round));
    app.trail.show(Id::Editor);
}

/// Opens the comparison: its summary, or the round showing (else the one under the matrix
/// cursor) side by side.
fn compare(app: &mut App, summary: bool) {
    if app.mirror.compare.is_none() {
        app.notice = Some(
            "nothing to compare with: open the results with `ethics-bowl open DIR --compare OTHER`"
                .into(),
        );
        return;
    }
    let round = match app.showing() {
        Id::Round => app.screens.round.id.clone(),
        _ => app.selected().map(|r| r.id().to_string()),
    };
    app.screens.compare.open(summary, round);
    app.trail.show(Id::Compare);
}

/// Back where the screen showing was opened from; the editor, left, is closed.
fn back(app: &mut App) {
    if app.trail.back() == Some(Id::Editor) {
        app.screens.editor = None;
    }
}

/// Closes the editor wherever it is on the trail (its item was corrected).
pub fn close_editor(app: &mut App) {
    if app.trail.holds(Id::Editor) {
        app.trail.show(Id::Editor);
        back(app);
    }
    app.screens.editor = None;
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::domain::{
        Judgment, ParseStatus, Phase, PhaseType, Reading, Round, RoundRecord, RoundStatus,
        ScheduledRound, Scores,
    };
    use crate::engine::{EngineEvent, ScheduledState};
    use crate::tui::app::{App, Screen};
    use crate::tui::mirror::Mode;
    use crate::tui::msg::Msg;
    use crate::tui::update::update;

    /// Round `id` on `d`, finished and judged (`j` read, or waiting for review).
    fn finished(id: &str, a: &str, d: &str, readable: bool) -> Round {
        let s = ScheduledRound {
            team_a: a.into(),
            ..ScheduledRound::example(id, d)
        };
        let mut r = crate::protocols::blank_round(&s, RoundRecord::EthicsBowl);
        r.phases
            .push(Phase::new(PhaseType::Presentation, a, "text"));
        r.put_judgment(Judgment {
            parse_status: if readable {
                ParseStatus::Parsed
            } else {
                ParseStatus::Failed
            },
            ..Judgment::new(
                "j",
                Reading::Rubric {
                    team_a: Scores::uniform(7.0),
                    team_b: Scores::uniform(6.0),
                },
            )
        });
        r.status = r.settled_status();
        r
    }

    /// Four finished rounds, two pairings by two dilemmas; r2 and r4 wait for review.
    fn app() -> App {
        let mut app = App::new("t", Mode::Live, Instant::now());
        let rounds = [
            finished("r1", "a", "d1", true),
            finished("r2", "a", "d2", false),
            finished("r3", "b", "d1", true),
            finished("r4", "b", "d2", false),
        ];
        update(
            &mut app,
            Msg::Engine(EngineEvent::Started {
                tournament_id: "t".into(),
                rounds: rounds
                    .into_iter()
                    .map(|round| ScheduledState {
                        to_run: round.status == RoundStatus::Incomplete,
                        round: Arc::new(round),
                        stored: true,
                        text_dropped: false,
                    })
                    .collect(),
            }),
        );
        app
    }

    fn key(app: &mut App, code: KeyCode) {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    fn showing(app: &App) -> Option<&str> {
        app.screens.round.id.as_deref()
    }

    #[test]
    fn a_finished_round_opens_at_its_top_and_brackets_step_in_matrix_order_keeping_the_tab() {
        let mut app = app();
        key(&mut app, KeyCode::Enter);
        assert_eq!(showing(&app), Some("r1"));
        assert!(
            !app.screens.round.follow,
            "a finished round opens at its top"
        );
        assert_eq!(app.screens.round.scroll, 0);
        key(&mut app, KeyCode::Tab);
        key(&mut app, KeyCode::Char(']'));
        let first_row = showing(&app).map(str::to_string);
        key(&mut app, KeyCode::Char(']'));
        key(&mut app, KeyCode::Char(']'));
        let order = [first_row.as_deref(), showing(&app)];
        assert_eq!(
            app.screen(),
            Screen::Round { scores: true },
            "the tab is kept"
        );
        assert!(order.iter().all(Option::is_some));
        key(&mut app, KeyCode::Char(']'));
        assert!(
            app.notice.as_deref().is_some_and(|n| n.contains("no next")),
            "{:?}",
            app.notice
        );
        key(&mut app, KeyCode::Char('['));
        key(&mut app, KeyCode::Char('['));
        key(&mut app, KeyCode::Char('['));
        assert_eq!(showing(&app), Some("r1"), "back to the first cell");
        key(&mut app, KeyCode::Esc);
        assert_eq!(
            app.screen(),
            Screen::Matrix,
            "Esc goes back, not through each step"
        );
    }

    #[test]
    fn a_round_opened_at_a_search_hit_steps_through_the_hits_rounds() {
        use crate::store::{HitPlace, SearchHit};
        let mut app = app();
        let hit = |id: &str| SearchHit {
            round_id: id.into(),
            place: HitPlace::Error,
            count: 1,
            snippet: Default::default(),
        };
        app.screens.search.hits = vec![hit("r4"), hit("r4"), hit("r1")];
        super::go(
            &mut app,
            super::Destination::Round(super::RoundAt {
                id: "r4".into(),
                scores: false,
                opening: super::Opening::Hit { prompt: false },
            }),
        );
        assert_eq!(showing(&app), Some("r4"));
        key(&mut app, KeyCode::Char(']'));
        assert_eq!(
            showing(&app),
            Some("r1"),
            "each round once, in the hits' order"
        );
        assert!(
            app.notice
                .as_deref()
                .is_some_and(|n| n.contains("2 of 2 among the search hits")),
            "{:?}",
            app.notice
        );
        key(&mut app, KeyCode::Char('['));
        assert_eq!(showing(&app), Some("r4"));
    }

    #[test]
    fn a_round_opened_from_the_review_queue_steps_through_the_queue() {
        let mut app = app();
        key(&mut app, KeyCode::Char('v'));
        key(&mut app, KeyCode::Char('o'));
        assert_eq!(showing(&app), Some("r2"));
        key(&mut app, KeyCode::Char(']'));
        assert_eq!(showing(&app), Some("r4"), "r3 is not in the queue");
        key(&mut app, KeyCode::Char(']'));
        assert_eq!(showing(&app), Some("r4"), "the end of the queue");
        key(&mut app, KeyCode::Char('['));
        assert_eq!(showing(&app), Some("r2"));
    }
}
