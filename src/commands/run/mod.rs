//! `ethics-bowl run`: a whole tournament, in the terminal UI or headless (progress on
//! stderr: a bar on a terminal, plain lines otherwise), ending with a summary table and an
//! exit code that says whether every round finished. Ctrl-C stops new calls and says how to
//! resume (exit 130); quitting the UI with `q` stops them too, says what is stored and how to
//! resume, and exits 0.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ethics_bowl::engine::{self, EngineCommand};
use ethics_bowl::store::{Store, TournamentStatus};
use ethics_bowl::tui::{App, Mode};
use tokio::sync::mpsc;

use super::UsageError;

mod headless;
mod outcome;
mod summary;

pub use outcome::Interrupted;
use outcome::outcome;
use summary::print_summary;

/// The sample tournament of a source checkout, run when no file is given and the current
/// folder has no `tournament.toml`.
pub const SAMPLE: &str = "sample-config/tournament.toml";

/// The tournament file in the current folder (as `ethics-bowl init` writes it), run first
/// when no file is given.
pub const HERE: &str = "tournament.toml";

/// The tournament file to run when none is given: `./tournament.toml`, else the source
/// checkout's sample; with neither, how to start (exit 2).
pub fn default_config() -> Result<PathBuf, UsageError> {
    [HERE, SAMPLE]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or_else(|| {
            UsageError(format!(
                "no tournament file here: neither ./{HERE} nor ./{SAMPLE} exists.\n\
                 To start, write the sample configuration into a folder and run it:\n  \
                 ethics-bowl init DIR\n  \
                 ethics-bowl run DIR/{HERE}\n\
                 (`ethics-bowl init` writes it here, and then `ethics-bowl` alone runs it.) \
                 Or give a tournament file: ethics-bowl run FILE"
            ))
        })
}

/// Whether a terminal UI can be shown: stdin and stdout are terminals.
pub fn can_show_ui() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::io::stdin().is_terminal()
}

/// Which tournament to run, as the command line says.
pub struct Source<'a> {
    /// The tournament file (default: the sample).
    pub config: Option<&'a Path>,
    /// `--out`.
    pub out: Option<&'a Path>,
    /// `--resume`: the results folder to go on with.
    pub resume: Option<&'a Path>,
    /// `--batch`.
    pub batch: bool,
    /// `--cache`, in place of the tournament file's `cache`.
    pub cache: Option<ethics_bowl::config::CacheSetting>,
}

/// Runs the tournament: in the terminal UI with `ui` (holding the `--theme` given, if
/// any), else headless.
pub async fn run(source: Source<'_>, ui: Option<Option<String>>) -> anyhow::Result<()> {
    // The UI's keys first: a mistake in the user's keys.toml is said before anything runs.
    let keys = match ui {
        Some(_) => super::keys::load()?,
        None => ethics_bowl::tui::keymap::Keymap::default(),
    };
    let mut prepared = match source.resume {
        Some(dir) => engine::prepare_resume(dir)?,
        None => match source.config {
            Some(config) => engine::prepare(config, source.out)?,
            None => engine::prepare(&default_config()?, source.out)?,
        },
    };
    if source.batch && !prepared.config.batch {
        prepared = prepared.with_batch()?;
    }
    if let Some(cache) = source.cache {
        prepared = prepared.with_cache(cache)?;
    }
    // Printed here, and shown in the UI's header and log (the UI covers the terminal).
    let warnings: Vec<String> = prepared
        .schedule
        .warnings
        .iter()
        .chain(&prepared.input_warnings)
        .cloned()
        .collect();
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let dir = prepared.dir.clone();
    let cache = prepared.registry.response_cache();
    // This process becomes the folder's one writer before anything starts (the terminal UI
    // included), so a second run on it exits 2 at once; the engine, the review queue's
    // corrections and the summary written at the end share this lock.
    let _writer = Store::open_for_writing(&dir)?;
    let protocol = prepared.config.protocol;
    let (events_tx, events) = mpsc::unbounded_channel();
    let (commands, mut commands_rx) = mpsc::unbounded_channel();
    let name = prepared.id.clone();
    if let Some(theme) = ui {
        let theme_name = theme
            .or_else(|| prepared.config.theme.clone())
            .unwrap_or_else(|| "default".into());
        let theme = super::theme(&theme_name)?;
        let serve_events = events_tx.clone();
        // After the rounds, the engine goes on storing the review queue's corrections
        // until the UI closes.
        let engine = tokio::spawn(async move {
            let report = engine::run(prepared, events_tx, &mut commands_rx).await;
            if let Ok(r) = &report
                && r.status != TournamentStatus::Cancelled
                && let Ok(store) = Store::open(&r.dir)
            {
                engine::serve_corrections(store, serve_events, &mut commands_rx).await;
            }
            report
        });
        let mut app = App::new(&name, Mode::Live, std::time::Instant::now());
        app.keys = keys;
        app.mirror.note_warnings(&warnings);
        let app =
            ethics_bowl::tui::terminal::run(app, theme, events, commands, dir.clone()).await?;
        // Quitting while calls were in flight cancelled them; otherwise the run is over.
        let report = engine.await?.map_err(|e| with_resume_hint(e, &dir))?;
        // Corrections made after the rounds rewrote the summary: print it as stored now.
        let summary = match Store::open(&report.dir).and_then(|s| engine::refresh_summary(&s)) {
            Ok(summary) => summary,
            Err(e) => {
                tracing::warn!(error = %e, "summary not read again");
                report.summary
            }
        };
        for note in &report.notes {
            eprintln!("warning: {}", ethics_bowl::sanitize::sanitize(note));
        }
        print_summary(&summary, protocol, &dir);
        say_passed_over(cache.as_deref());
        // The user's `q` is a choice, not a failure (exit 0); Ctrl-C and signals stay 130.
        if report.status == TournamentStatus::Cancelled && !app.forced_quit {
            println!("{}", outcome::quit_line(&summary, &dir));
            return Ok(());
        }
        return outcome(report.status, &summary, &dir);
    }
    let engine =
        tokio::spawn(async move { engine::run(prepared, events_tx, &mut commands_rx).await });
    let stop = commands.clone();
    let open_batches = Arc::new(AtomicUsize::new(0));
    let open = Arc::clone(&open_batches);
    tokio::spawn(async move {
        let Some(signal) = stop_signal().await else {
            return;
        };
        let n = open.load(Ordering::SeqCst);
        // SIGTERM (`timeout`, `docker stop`, a scheduler) asks nothing: the batches stay open.
        if n > 0 && signal == Stop::CtrlC {
            eprintln!(
                "\n{n} batch(es) are open at the provider. Press Ctrl-C again within 10 s to cancel \
                 them there too; otherwise they stay open and running this command again collects \
                 their answers."
            );
            let again = tokio::time::timeout(Duration::from_secs(10), tokio::signal::ctrl_c());
            if matches!(again.await, Ok(Ok(()))) {
                eprintln!("cancelling the open batches…");
                let _ = stop.send(EngineCommand::CancelBatches);
            }
        }
        eprintln!("\nstopping: no new calls; calls under way are abandoned…");
        let _ = stop.send(EngineCommand::Cancel);
    });

    let output = headless::Output::for_stderr();
    headless::follow(events, &name, &dir, headless::STATUS_INTERVAL, |say| {
        if let headless::Say::Batches(n) = say {
            open_batches.store(n, Ordering::SeqCst);
        } else {
            output.show(say);
        }
    })
    .await;
    output.finish();
    let report = engine.await?.map_err(|e| with_resume_hint(e, &dir))?;
    print_summary(&report.summary, protocol, &dir);
    say_passed_over(cache.as_deref());
    outcome(report.status, &report.summary, &dir)
}

/// Says how many requests went without the response cache because of their temperature.
pub(crate) fn say_passed_over(
    cache: Option<&ethics_bowl::providers::response_cache::ResponseCache>,
) {
    if let Some(line) = cache.and_then(|c| c.passed_over_line()) {
        eprintln!("note: {line}");
    }
}

/// A run the store stopped says how to go on once there is room (exit 1).
fn with_resume_hint(e: engine::EngineError, dir: &Path) -> anyhow::Error {
    match e {
        engine::EngineError::StoreStopped { .. } => anyhow::anyhow!(
            "{e}. Free some space, then resume with: ethics-bowl run --resume {}",
            dir.display()
        ),
        other => other.into(),
    }
}

/// What asked a headless run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Ctrl-C (SIGINT).
    CtrlC,
    /// SIGTERM, as `timeout`, `docker stop` and schedulers send it.
    Terminate,
}

/// Waits for Ctrl-C or SIGTERM; `None` when neither can be listened for.
pub(crate) async fn stop_signal() -> Option<Stop> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                c = tokio::signal::ctrl_c() => c.ok().map(|()| Stop::CtrlC),
                t = term.recv() => t.map(|()| Stop::Terminate),
            },
            Err(_) => tokio::signal::ctrl_c().await.ok().map(|()| Stop::CtrlC),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.ok().map(|()| Stop::CtrlC)
    }
}
