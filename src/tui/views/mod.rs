//! Views: functions from the state to a frame, one file per part of the screen. What each
//! protocol shows its own way lives in its folder (`ethics_bowl/`, `qa_debate/`,
//! `structured_debate/`) behind [`presentation::Presentation`], chosen in [`protocols`].

mod analysis;
mod annotate;
mod call_notes;
mod cells;
mod compare;
mod ethics_bowl;
mod figures;
mod filter;
mod header;
mod help;
mod keyed;
mod leaderboard;
mod log;
mod matrix;
mod panel;
pub(crate) mod presentation;
mod protocols;
mod qa_debate;
mod review;
mod round;
mod rows;
mod search;
mod structured_debate;

pub use matrix::cell;
pub use protocols::presentation;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::Style;
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::app::App;
use super::keymap;
use super::keys::{self, Action};
use super::screens::editor::ReviewKind;
use super::screens::{self, Id, filter_bar};
use super::theme::Theme;

/// The smallest terminal the layout fits.
pub const MIN_WIDTH: u16 = 60;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u16 = 16;

/// Draws the whole screen.
pub fn render(frame: &mut Frame<'_>, app: &App, theme: &Theme) {
    let area = frame.area();
    frame.render_widget(
        Block::new().style(Style::new().bg(theme.background).fg(theme.text)),
        area,
    );
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let q = keyed::key_of(&app.keys, keys::GLOBAL, Action::Quit);
        let message = format!(
            "The terminal is {}×{}; ethics-bowl needs at least {MIN_WIDTH}×{MIN_HEIGHT}. Enlarge it, or press {} to quit.",
            area.width,
            area.height,
            q.as_deref().unwrap_or("q")
        );
        frame.render_widget(Paragraph::new(message).wrap(Wrap { trim: true }), area);
        return;
    }
    // Header and key hints wrap on a narrow terminal rather than being cut.
    // While a person judges, the header says where they are in the sample and nothing of
    // the run (whose warnings may name models).
    let judging = app.showing() == Id::Annotate;
    let header = if judging {
        annotate::header(app, theme, area.width)
    } else {
        header::paragraph(app, theme, area.width)
    };
    let footer_text = footer(app, theme);
    // A line more for the run's warnings from planning, when it has any.
    let header_lines = if judging {
        2
    } else if app.mirror.warnings.is_empty() {
        4
    } else {
        5
    };
    let header_height = (header.line_count(area.width) as u16).clamp(2, header_lines);
    let footer_height = (footer_text.line_count(area.width) as u16).clamp(1, 3);
    let [top, body, footer] = Layout::vertical([
        Constraint::Length(header_height),
        Constraint::Min(5),
        Constraint::Length(footer_height),
    ])
    .areas(area);
    frame.render_widget(header, top);
    let body = if judging {
        body
    } else {
        filter::render(frame, body, app, theme)
    };
    match app.showing() {
        Id::Matrix => matrix::render(frame, body, app, theme),
        Id::Round => round::render(frame, body, app, theme),
        Id::Leaderboard => leaderboard::render(frame, body, app, theme),
        Id::Log => log::render(frame, body, app, theme),
        Id::Review => review::render_queue(frame, body, app, theme),
        Id::Editor => match &app.screens.editor {
            Some(editor) => review::render_editor(frame, body, (editor, &app.keys), theme),
            None => review::render_queue(frame, body, app, theme),
        },
        Id::Analysis => analysis::render(frame, body, app, theme),
        Id::Compare => compare::render(frame, body, app, theme),
        Id::Annotate => annotate::render(frame, body, app, theme),
    }
    frame.render_widget(footer_text, footer);
    search::render_list(frame, body, app, theme);
    if app.screens.help.open {
        help::render(frame, area, app, theme);
    }
}

/// The footer, wrapping on a narrow terminal.
fn footer(app: &App, theme: &Theme) -> Paragraph<'static> {
    Paragraph::new(footer_text(app))
        .wrap(Wrap { trim: true })
        .style(Style::new().fg(theme.dim))
}

/// The key hints of what is showing, leaving out keys that would do nothing now (see
/// [`hidden_keys`]).
fn footer_text(app: &App) -> String {
    if let Some(name) = &app.screens.annotate.prompt {
        format!(
            "Annotator's name: {name}▏ · {}",
            app.keys.footer(screens::annotate::PROMPT, false, &[])
        )
    } else if let Some(prompt) = search::prompt_line(app) {
        prompt
    } else if let Some(notice) = &app.notice {
        notice.clone()
    } else if app.confirm_quit && !app.mirror.batches.is_empty() {
        let n = app.mirror.batches.len();
        let (q, c) = (
            confirm_key(app, Action::Quit, "q"),
            confirm_key(app, Action::CancelBatches, "c"),
        );
        format!(
            "Calls are in flight and {n} batch{} open at the provider: {q} stops and quits, leaving {} open (rerun the same command to collect {} answers); {c} cancels {} at the provider first; any other key stays.",
            if n == 1 { " is" } else { "es are" },
            if n == 1 { "it" } else { "them" },
            if n == 1 { "its" } else { "their" },
            if n == 1 { "it" } else { "them" },
        )
    } else if app.confirm_quit {
        let q = confirm_key(app, Action::Quit, "q");
        format!(
            "Calls are in flight: press {q} again to stop and quit (everything finished is stored; rerun the same command to resume), any other key to stay."
        )
    } else {
        let showing = app.showing();
        // The editor and the filter prompt take every other key as text: no global keys.
        let (table, global) = if matches!(showing, Id::Editor | Id::Annotate) {
            (app.screens.bindings(showing), false)
        } else if app.filter.prompt.is_some() {
            (filter_bar::BINDINGS, false)
        } else if app.screens.search.list.is_some() {
            (screens::search::LIST, true)
        } else {
            (app.screens.bindings(showing), true)
        };
        let footer = app.keys.footer(table, global, &hidden_keys(app));
        // The round's second tab has its protocol's name (Scores, Verdict); the words after
        // the key, whichever key the user gave it.
        let tab_words = keymap::name::words_after_keys(screens::round::TAB_FOOTER);
        match app.screens.round.round(&app.mirror) {
            Some(round) if showing == Id::Round => footer.replace(
                tab_words,
                &format!(
                    "transcript/{}",
                    protocols::presentation(round.stored.kind())
                        .verdict_tab()
                        .to_lowercase()
                ),
            ),
            _ => footer,
        }
    }
}

/// The key that answers the question before quitting with `action`, as the user bound it.
fn confirm_key(app: &App, action: Action, default: &str) -> String {
    app.keys
        .first_key(keys::CONFIRM, action)
        .unwrap_or_else(|| default.to_string())
}

/// The keys the footer leaves out because they would do nothing now (pause with no engine
/// playing rounds, retry where nothing can run again, score fields for a reading that has
/// none, compare keys without a comparison).
pub fn hidden_keys(app: &App) -> Vec<Action> {
    let mut hidden = Vec::new();
    if app.screens.search.hits.is_empty() {
        hidden.push(Action::NextHit);
    }
    // Pause while the engine plays rounds; retry where there is something to retry.
    if !app.mirror.engine_running {
        hidden.push(Action::Pause);
    }
    let m = &app.mirror;
    // `r` acts on the round showing, or on the matrix's selected round.
    let retried = match app.showing() {
        Id::Round => app.screens.round.round(m),
        _ => app.screens.matrix.selected(m),
    };
    if !retried.is_some_and(|r| r.can_retry(m.engine_running)) {
        hidden.push(Action::Retry);
    }
    if !m.can_retry_any() {
        hidden.push(Action::RetryAll);
    }
    if app
        .screens
        .editor
        .as_ref()
        .is_some_and(|e| e.kind != ReviewKind::EthicsBowl)
    {
        hidden.push(Action::ScoreFields);
    }
    if app.mirror.compare.is_none() {
        hidden.extend([Action::Compare, Action::CompareSummary]);
    }
    // In the comparison: Enter opens a flipped verdict from the summary's list, and `]`/`[`
    // step through flipped verdicts, when there are any.
    if app.showing() == Id::Compare {
        let flips = app.mirror.compare.as_ref().map_or(0, |c| c.flips().len());
        if flips == 0 || !app.screens.compare.summary {
            hidden.push(Action::Open);
        }
        if flips == 0 {
            hidden.push(Action::NextRound);
        }
    }
    if app.filter.active.is_none() {
        hidden.push(Action::ClearFilter);
    }
    hidden
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use ratatui_textarea::TextArea;

    use super::footer_text;
    use crate::tui::app::App;
    use crate::tui::mirror::Mode;
    use crate::tui::screens::Id;
    use crate::tui::screens::editor::{Editor, ReviewKind};

    fn editor(kind: ReviewKind) -> Editor {
        Editor {
            round_id: "r".into(),
            judge: "j".into(),
            textarea: TextArea::default(),
            original: String::new(),
            confirm_discard: false,
            message: None,
            fields: None,
            kind,
            round: None,
        }
    }

    #[test]
    fn the_footer_offers_only_keys_that_do_something_here() {
        let mut app = App::new("t", Mode::Live, Instant::now());
        assert!(footer_text(&app).contains("p pause"));
        app = App::new("t", Mode::Browse, Instant::now());
        let browsing = footer_text(&app);
        assert!(!browsing.contains("p pause") && !browsing.contains("r retry"));
        app.trail.show(Id::Editor);
        app.screens.editor = Some(editor(ReviewKind::EthicsBowl));
        assert!(footer_text(&app).contains("Tab type the 14 scores"));
        app.screens.editor = Some(editor(ReviewKind::QaVerdict));
        let qa = footer_text(&app);
        assert!(
            !qa.contains("14 scores") && qa.contains("Ctrl-S save"),
            "{qa}"
        );
    }
}
