//! Keys in the review queue: choose an item and open it in the editor.

use ratatui_textarea::TextArea;

use crate::domain::ProtocolKind;
use crate::engine::WaitingKind;
use crate::tui::app::{App, Editor, ReviewKind, Screen};
use crate::tui::keys::Action;

use crate::tui::msg::Effect;

pub(super) fn act(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Back => app.screen = Screen::Matrix,
        Action::Up => app.review_cursor = app.review_cursor.saturating_sub(1),
        Action::Down => {
            app.review_cursor = (app.review_cursor + 1).min(app.review_len().saturating_sub(1));
        }
        Action::Open => open(app),
        _ => {}
    }
    Vec::new()
}

/// Opens the selected item in the editor.
fn open(app: &mut App) {
    let Some(item) = app.review_items().nth(app.review_cursor) else {
        return;
    };
    let protocol = app
        .mirror
        .index
        .get(&item.round_id)
        .map(|i| app.mirror.rounds[*i].stored.kind());
    let kind = match (item.kind, protocol) {
        (WaitingKind::Reply, _) => ReviewKind::Other,
        (WaitingKind::Judgment(_), Some(ProtocolKind::QaDebate)) => ReviewKind::QaVerdict,
        (WaitingKind::Judgment(_), Some(ProtocolKind::StructuredDebate)) => ReviewKind::Other,
        (WaitingKind::Judgment(_), Some(ProtocolKind::EthicsBowl) | None) => ReviewKind::EthicsBowl,
    };
    let editor = Editor {
        kind,
        round_id: item.round_id.clone(),
        judge: item.judge.clone(),
        textarea: TextArea::new(item.raw.lines().map(str::to_string).collect()),
        original: item.raw.clone(),
        confirm_discard: false,
        message: None,
        fields: None,
    };
    app.editor = Some(editor);
}
