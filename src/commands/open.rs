//! `ethics-bowl open DIR [--compare B]`: the terminal UI over stored results, with no engine
//! calls: every round's transcript and scores, and the review queue, whose corrections are
//! stored; with `--compare`, a second folder of the same protocol beside it.

use std::path::Path;
use std::sync::Arc;

use ethics_bowl::domain::{Round, RoundStatus};
use ethics_bowl::engine::{self, ScheduledState};
use ethics_bowl::store::Store;
use ethics_bowl::tui::{browse_schedule, in_run_order};
use tokio::sync::mpsc;

use super::UsageError;

/// Folder B's rounds, refused (naming both folders and protocols) unless B played the
/// protocol A did.
fn folder_b(
    a: &Path,
    store_a: &Store,
    rounds_a: &[Round],
    b: &Path,
) -> Result<Vec<Round>, UsageError> {
    let kind_a = super::compare::protocol(store_a, rounds_a);
    let (kind_b, rounds_b) = super::compare::load(b)?;
    if kind_a != kind_b {
        return Err(UsageError(format!(
            "{} holds {} rounds and {} (--compare) holds {}: compare folders of one protocol",
            a.display(),
            kind_a.as_str(),
            b.display(),
            kind_b.as_str()
        )));
    }
    Ok(rounds_b)
}

/// Opens the UI over a results folder (ours or the Python predecessor's), with folder
/// `compare` beside it when given.
pub async fn run(dir: &Path, compare: Option<&Path>, theme: &str) -> anyhow::Result<()> {
    // The user's keys first: a mistake in them is said before anything is read.
    let keys = super::keys::load()?;
    let store = Store::open(dir).map_err(|e| UsageError(e.to_string()))?;
    super::remember_keys(&store);
    // Finished rounds are read one at a time and kept without their text, which the UI
    // reads back from the store when it opens one (as a resumed run's are).
    let (rounds, errors) = browse_rounds(&store)?;
    // Checked before the terminal, so a mistaken pair is said at once, terminal or not.
    let other = compare
        .map(|b| folder_b(dir, &store, &rounds, b).map(|rounds| (b, rounds)))
        .transpose()?;
    if !super::run::can_show_ui() {
        return Err(UsageError(
            "`open` needs a terminal; use `ethics-bowl rounds DIR` to list rounds (and `ethics-bowl compare A B` to compare two folders)".into(),
        )
        .into());
    }
    let theme = super::theme(theme)?;
    let mut app = browse_app(dir, &store, rounds, &errors);
    app.keys = keys;
    if let Some((b, rounds_b)) = other {
        app.mirror.set_compare(
            &dir.display().to_string(),
            &b.display().to_string(),
            rounds_b,
        );
    }
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

/// The finished and unfinished rounds of `dir` as `open` reads them (finished rounds
/// without their text, which the UI reads back when it shows one), and the files that
/// could not be read.
pub(super) fn browse_rounds(
    store: &Store,
) -> Result<(Vec<Round>, Vec<ethics_bowl::store::StoreError>), UsageError> {
    store
        .load_rounds_with(&ethics_bowl::store::RoundFilter::default(), |round| {
            if round.status == RoundStatus::Complete {
                round.without_text()
            } else {
                round
            }
        })
        .map_err(|e| UsageError(e.to_string()))
}

/// The UI's state over the stored `rounds` of `dir`: in the live run's order, the files
/// that could not be read named, the run's warnings, and people's judgments (for the
/// Analysis screen's "Judges against people").
pub(super) fn browse_app(
    dir: &Path,
    store: &Store,
    rounds: Vec<Round>,
    errors: &[ethics_bowl::store::StoreError],
) -> ethics_bowl::tui::App {
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
    let record = store.load_tournament().ok().flatten();
    let name = record
        .as_ref()
        .map(|t| t.id.clone())
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let schedule = rounds
        .into_iter()
        .map(|round| ScheduledState {
            text_dropped: round.status == RoundStatus::Complete,
            round: Arc::new(round),
            stored: true,
            to_run: false,
        })
        .collect();
    // In the order the live run showed them (the stored schedule's).
    let schedule = in_run_order(schedule, record.as_ref().map(|r| r.schedule.as_slice()));
    let mut app = browse_schedule(&name, schedule, std::time::Instant::now());
    app.mirror.note_unreadable(&unreadable);
    // The run's warnings from planning (judge confounds and balance), in the header.
    if let Some(record) = &record {
        app.mirror.note_warnings(&record.warnings);
        if let Some(event) = skipped(record) {
            ethics_bowl::tui::update::update(&mut app, ethics_bowl::tui::Msg::Engine(event));
        }
    }
    let (readings, blind, problems) = ethics_bowl::analysis::people_of(dir);
    app.mirror.set_people(
        ethics_bowl::tui::msg::PeopleReadings { readings, blind },
        problems,
    );
    app
}

/// An adaptive design's rounds not chosen, as the live run announced them last, so the
/// matrix marks them: the full schedule set up again from the tournament file and inputs
/// the record names (none when they cannot be read now, or the schedule was fixed).
fn skipped(record: &ethics_bowl::store::TournamentRecord) -> Option<engine::EngineEvent> {
    let design = record.design.as_ref()?;
    let inputs = ethics_bowl::protocols::spec(record.protocol)
        .inputs(&record.config_file, &record.config)
        .ok()?;
    let chosen: std::collections::HashSet<&str> = design.chosen().collect();
    Some(engine::EngineEvent::Design {
        wave: u32::try_from(design.waves.len()).unwrap_or(u32::MAX),
        rounds: Vec::new(),
        not_chosen: inputs
            .schedule
            .rounds
            .into_iter()
            .filter(|r| !chosen.contains(r.round_id.as_str()))
            .collect(),
        stopped: design
            .stopped
            .as_ref()
            .map(|s| format!("{}: {}", s.rule.as_str(), s.detail)),
    })
}
