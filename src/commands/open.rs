//! `ethics-bowl open DIR`: the terminal UI over stored results, with no engine calls: every
//! round's transcript and scores, and the review queue, whose corrections are stored.

use std::path::Path;

use ethics_bowl::engine;
use ethics_bowl::tui::browse;
use tokio::sync::mpsc;

use super::UsageError;

/// Opens the UI over a results folder (ours or the Python predecessor's).
pub async fn run(dir: &Path, theme: &str) -> anyhow::Result<()> {
    if !super::run::can_show_ui() {
        return Err(UsageError(
            "`open` needs a terminal; use `ethics-bowl rounds DIR` to list rounds".into(),
        )
        .into());
    }
    let store = ethics_bowl::store::Store::open(dir).map_err(|e| UsageError(e.to_string()))?;
    let (rounds, errors) = store
        .load_rounds(&ethics_bowl::store::RoundFilter::default())
        .map_err(|e| UsageError(e.to_string()))?;
    // Named on screen (the log and a header marker), since the UI covers stderr.
    let unreadable: Vec<String> = errors
        .iter()
        .map(ToString::to_string)
        .chain(
            store
                .set_aside_files()
                .iter()
                .map(|f| format!("{}: set aside by an earlier run as unreadable", f.display())),
        )
        .collect();
    let name = store
        .load_tournament()
        .ok()
        .flatten()
        .map(|t| t.id)
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let theme = super::theme(theme)?;
    let mut app = browse(&name, &rounds, std::time::Instant::now());
    app.note_unreadable(&unreadable);
    let (events_tx, events) = mpsc::unbounded_channel();
    let (commands, mut commands_rx) = mpsc::unbounded_channel();
    let server =
        tokio::spawn(
            async move { engine::serve_corrections(store, events_tx, &mut commands_rx).await },
        );
    ethics_bowl::tui::terminal::run(app, theme, events, commands, dir.to_path_buf()).await?;
    let _ = server.await;
    Ok(())
}
