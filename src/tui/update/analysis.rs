//! Keys on the Analysis screen: step through the tables and their lines, and open what a line
//! is about (a dilemma's column, or a round).

use crate::tui::app::{ANALYSIS_TABS, AnalysisView, App, RoundState, Screen};
use crate::tui::keys::Action;

use super::Effect;

/// Where a line of the Analysis screen leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalysisTarget {
    /// A round's transcript (or its scores, for judges).
    Round {
        /// The round.
        id: String,
        /// Open the scores rather than the transcript.
        scores: bool,
    },
    /// A dilemma's column of the matrix.
    Dilemma(String),
}

/// What each line of the current Analysis tab leads to, in the tab's order: the first round
/// behind a model's row or rating, a dilemma's column, a judge's first shared exchange, a
/// flagged consistency test's round.
pub fn analysis_targets(app: &App, view: &AnalysisView) -> Vec<AnalysisTarget> {
    let first_round = |pred: &dyn Fn(&RoundState) -> bool, scores: bool| {
        app.rounds
            .iter()
            .find(|r| pred(r) && !r.stored.judgments.is_empty())
            .or_else(|| app.rounds.iter().find(|r| pred(r)))
            .map(|r| AnalysisTarget::Round {
                id: r.id().to_string(),
                scores,
            })
    };
    let a = &view.analysis;
    match view.tab {
        0 => a
            .model_comparison
            .iter()
            .filter_map(|m| {
                let presenting = m.role == "presenting";
                first_round(
                    &|r| {
                        if presenting {
                            r.stored.team_a_model == m.model
                        } else {
                            r.stored.team_b_model == m.model
                        }
                    },
                    false,
                )
            })
            .collect(),
        1 => a
            .ratings
            .overall
            .iter()
            .filter_map(|e| {
                first_round(
                    &|r| r.stored.team_a_model == e.entrant || r.stored.team_b_model == e.entrant,
                    false,
                )
            })
            .collect(),
        2 => a
            .dilemma_difficulty
            .iter()
            .map(|d| AnalysisTarget::Dilemma(d.dilemma_id.clone()))
            .collect(),
        3 => a
            .judge_agreement
            .judges()
            .iter()
            .filter_map(|j| {
                first_round(
                    &|r| {
                        r.stored.judgments.len() >= 2
                            && r.stored.judgments.iter().any(|x| x.judge_model == *j)
                    },
                    true,
                )
            })
            .collect(),
        _ => a
            .consistency
            .iter()
            .filter(|c| c.flagged_unacknowledged)
            .map(|c| AnalysisTarget::Round {
                id: c.round_id.clone(),
                scores: false,
            })
            .collect(),
    }
}

pub(super) fn act(app: &mut App, action: Action) -> Vec<Effect> {
    let Some(view) = &app.analysis else {
        app.screen = Screen::Matrix;
        return Vec::new();
    };
    let targets = analysis_targets(app, view);
    let n = targets.len();
    let Some(view) = &mut app.analysis else {
        return Vec::new();
    };
    let tabs = ANALYSIS_TABS.len();
    match action {
        Action::Back => app.screen = Screen::Matrix,
        Action::NextTab => {
            view.tab = (view.tab + 1) % tabs;
            view.selected = 0;
        }
        Action::PreviousTab => {
            view.tab = (view.tab + tabs - 1) % tabs;
            view.selected = 0;
        }
        Action::Up => view.selected = view.selected.saturating_sub(1),
        Action::Down => view.selected = (view.selected + 1).min(n.saturating_sub(1)),
        Action::Open => match targets.get(view.selected).cloned() {
            Some(AnalysisTarget::Dilemma(d)) => {
                if let Some(col) = app.columns.iter().position(|(c, _)| *c == d) {
                    app.cursor.1 = col;
                }
                app.screen = Screen::Matrix;
            }
            Some(AnalysisTarget::Round { id, scores }) => {
                if let Some(i) = app.index.get(&id).copied()
                    && let Some((&cell, _)) = app.cells.iter().find(|(_, idx)| **idx == i)
                {
                    app.cursor = cell;
                    app.screen = Screen::Round { scores };
                    app.scroll = 0;
                    app.follow = false;
                }
            }
            None => {}
        },
        _ => {}
    }
    Vec::new()
}
