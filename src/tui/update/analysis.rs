//! Keys on the Analysis screen: step through the tables and their lines, and open what a line
//! is about (a dilemma's column, or a round).

use crate::tui::app::{App, Screen};
use crate::tui::keys::Action;
use crate::tui::msg::AnalysisTarget;
use crate::tui::views::{analysis_targets, presentation};

use crate::tui::msg::Effect;

pub(super) fn act(app: &mut App, action: Action) -> Vec<Effect> {
    let Some(view) = &app.analysis else {
        app.screen = Screen::Matrix;
        return Vec::new();
    };
    let targets = analysis_targets(&app.mirror, view);
    let n = targets.len();
    let Some(view) = &mut app.analysis else {
        return Vec::new();
    };
    let tabs = presentation(app.mirror.protocol).analysis_tabs().len();
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
                if let Some(col) = app.mirror.columns.iter().position(|(c, _)| *c == d) {
                    app.cursor.1 = col;
                }
                app.screen = Screen::Matrix;
            }
            Some(AnalysisTarget::Round { id, scores }) => {
                if let Some(i) = app.mirror.index.get(&id).copied()
                    && let Some((&cell, _)) = app.mirror.cells.iter().find(|(_, idx)| **idx == i)
                {
                    app.cursor = cell;
                    app.screen = Screen::Round { scores };
                    app.round_opened_from = Screen::Analysis;
                    app.scroll = 0;
                    app.follow = false;
                }
            }
            Some(AnalysisTarget::Nothing) | None => {}
        },
        _ => {}
    }
    Vec::new()
}
