//! Navigation, in one place: every screen's key that leads elsewhere names a
//! [`Destination`], and [`go`] takes the UI there. So "open round X" is written once, and
//! works alike from the matrix, the Analysis screen, a search hit, a jump by id, the review
//! queue or the comparison, whether or not the matrix shows the round.

use super::app::App;
use super::msg::{Destination, Effect, RoundAt};
use super::screens::Id;
use super::screens::editor::Editor;
use super::shown::Shown;

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
        Destination::Round(at) => round(app, at),
    }
    Vec::new()
}

/// Opens a round by id: the round screen shows it, and the matrix cursor follows it when
/// the matrix shows it.
fn round(
    app: &mut App,
    RoundAt {
        id,
        scores,
        opening,
    }: RoundAt,
) {
    let Some(&i) = app.mirror.index.get(&id) else {
        app.notice = Some(format!("no round {id} in this tournament"));
        return;
    };
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    app.screens.matrix.follow(shown, i);
    app.screens.round.open(id, scores, opening);
    app.trail.show(Id::Round);
}

/// Opens the review queue's selected item in the editor.
fn editor(app: &mut App) {
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    let Some(item) = shown.review_items().nth(app.screens.review.cursor) else {
        return;
    };
    let protocol = app.mirror.round(&item.round_id).map(|r| r.stored.kind());
    app.screens.editor = Some(Editor::open(item, protocol));
    app.trail.show(Id::Editor);
}

/// Opens the comparison: its summary, or the round showing (else the one under the matrix
/// cursor) side by side.
fn compare(app: &mut App, summary: bool) {
    if app.mirror.compare.is_none() {
        app.notice = Some(
            "nothing to compare with: open the results with `ethics-bowl open A --compare B`"
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
