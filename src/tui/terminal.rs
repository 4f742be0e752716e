//! Drives the UI on a real terminal: raw mode and the alternate screen (restored on every
//! exit path, panics and SIGINT, SIGTERM or SIGHUP included), keys from crossterm's event
//! stream, engine events drained in batches, and a frame drawn on a ~30 fps tick only when
//! something changed. Nothing here waits on the engine: a burst of deltas is applied in one
//! batch before the next key.

use std::io::Stdout;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc;

use crate::domain::Round;
use crate::engine::{EngineCommand, EngineEvent};
use crate::store::Store;

use super::app::App;
use super::msg::{AnnotateStart, Effect, Msg, PeopleReadings};
use super::theme::Theme;
use super::update::update;
use super::views;

/// Frames at most this often.
const FRAME: Duration = Duration::from_millis(33);
/// Engine events applied per batch before keys are looked at again.
const BATCH: usize = 4096;

fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// Restores the terminal when dropped, whatever way the UI ends.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore();
    }
}

/// Runs the UI until the user quits. Engine events come from `events`; commands go to
/// `commands`; rounds and analyses the state asks for are read from the results folder
/// `dir`, and searches search it. Returns the final state.
pub async fn run(
    mut app: App,
    theme: Theme,
    mut events: mpsc::UnboundedReceiver<EngineEvent>,
    commands: mpsc::UnboundedSender<EngineCommand>,
    dir: PathBuf,
) -> std::io::Result<App> {
    // The hook restores the terminal before the panic message is printed, unless the engine
    // catches the panic (a round's bug, kept as its error) and the UI goes on.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !crate::engine::panic_is_caught() {
            restore();
        }
        previous(info);
    }));
    enable_raw_mode()?;
    let _restore = Restore;
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        crossterm::cursor::Hide
    )?;
    // The providers, for the Analysis screen's same-provider check (none for a folder
    // without a tournament record).
    if let Ok(store) = Store::open(&dir) {
        app.mirror.provider_of = crate::analysis::providers_of(&store);
    }
    let mut terminal: Terminal<CrosstermBackend<Stdout>> =
        Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    let mut keys = EventStream::new();
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut batch = Vec::with_capacity(BATCH);
    let mut engine_open = true;
    // Answers of work done off this loop (an analysis of the store) come back here.
    let (answers_tx, mut answers) = mpsc::unbounded_channel::<Msg>();
    let mut signals = StopSignals::new();
    // A screen that starts on a round (`annotate`) has it read from the store first.
    let mut first: Vec<Effect> = app
        .mirror
        .show_whole(app.showing_round())
        .into_iter()
        .collect();
    loop {
        let mut effects = std::mem::take(&mut first);
        if effects.is_empty() {
            tokio::select! {
                biased;
                () = signals.recv() => effects = update(&mut app, Msg::Stop),
                Some(answer) = answers.recv() => effects = update(&mut app, answer),
                key = keys.next() => match key {
                    Some(Ok(Event::Key(key))) => effects = update(&mut app, Msg::Key(key)),
                    Some(Ok(Event::Resize(..))) => app.dirty = true,
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(e),
                    None => break,
                },
                n = events.recv_many(&mut batch, BATCH), if engine_open => {
                    if n == 0 {
                        engine_open = false;
                    }
                    for event in batch.drain(..) {
                        update(&mut app, Msg::Engine(event));
                    }
                }
                _ = tick.tick() => {
                    update(&mut app, Msg::Tick(Instant::now()));
                    if app.dirty {
                        terminal.draw(|frame| views::render(frame, &app, &theme))?;
                        app.dirty = false;
                    }
                }
            }
        }
        while let Some(effect) = (!effects.is_empty()).then(|| effects.remove(0)) {
            match effect {
                Effect::Command(c) => {
                    let _ = commands.send(c);
                }
                Effect::Copy(text) => copy_to_clipboard(&text)?,
                // One file: read here, between two frames.
                Effect::LoadRound { round_id } => {
                    let result = read_round(&dir, &round_id);
                    effects.extend(update(&mut app, Msg::RoundLoaded { round_id, result }));
                }
                Effect::Analyse => {
                    let (dir, answers) = (dir.clone(), answers_tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let _ = answers.send(Msg::Analysed(analyse_store(&dir)));
                    });
                }
                Effect::Quit => return Ok(app),
                Effect::Search { query, prompts } => {
                    search_in_background(&dir, query, prompts, answers_tx.clone());
                }
                Effect::StartAnnotating { annotator, rounds } => {
                    let (dir, answers) = (dir.clone(), answers_tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let _ = answers.send(Msg::AnnotateReady(start_annotating(
                            &dir, annotator, &rounds,
                        )));
                    });
                }
                Effect::SaveAnnotation(annotation) => {
                    let (dir, answers) = (dir.clone(), answers_tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let round_id = annotation.round_id.clone();
                        let result = save_annotation(&dir, *annotation);
                        let _ = answers.send(Msg::AnnotationSaved { round_id, result });
                    });
                }
            }
        }
    }
    Ok(app)
}

/// SIGINT, SIGTERM and SIGHUP (`kill`, `timeout`, `docker stop`, a closed terminal window),
/// which would otherwise end the process with the terminal left raw, on the alternate screen
/// and with no cursor: each becomes [`Msg::Stop`], so the UI ends as a forced quit does and
/// the terminal is given back. (Ctrl-C pressed in the UI is a key, since raw mode turns
/// signals from the keyboard off.)
struct StopSignals {
    #[cfg(unix)]
    signals: Vec<tokio::signal::unix::Signal>,
}

impl StopSignals {
    fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let kinds = [
                SignalKind::interrupt(),
                SignalKind::terminate(),
                SignalKind::hangup(),
            ];
            Self {
                signals: kinds.into_iter().filter_map(|k| signal(k).ok()).collect(),
            }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// The next signal; never, where none can be listened for.
    async fn recv(&mut self) {
        #[cfg(unix)]
        if !self.signals.is_empty() {
            let next = self.signals.iter_mut().map(|s| Box::pin(s.recv()));
            futures_util::future::select_all(next).await;
            return;
        }
        std::future::pending::<()>().await
    }
}

/// The round `id` as stored in `dir`.
fn read_round(dir: &Path, id: &str) -> Result<Arc<Round>, String> {
    match Store::open(dir).and_then(|store| store.find_round(id)) {
        Ok(Some(round)) => Ok(Arc::new(round)),
        Ok(None) => Err("it has no file".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The analysis of every round stored in `dir`, as `ethics-bowl report` computes it.
fn analyse_store(dir: &Path) -> Result<Box<crate::analysis::Analysis>, String> {
    let store = Store::open(dir).map_err(|e| e.to_string())?;
    crate::analysis::analyse_store(&store)
        .map(Box::new)
        .map_err(|e| e.to_string())
}

/// The rounds `annotator` is to judge in `dir` (the recorded sample, or every finished
/// round of `rounds`) and which they judged, for the annotate screen opened from `open`.
fn start_annotating(
    dir: &Path,
    annotator: String,
    rounds: &[crate::annotations::RoundInfo],
) -> Result<AnnotateStart, String> {
    let (round_ids, stored) =
        crate::annotations::session::resume(dir, &annotator, rounds).map_err(|e| e.to_string())?;
    Ok(AnnotateStart {
        annotator,
        round_ids,
        done: stored.iter().map(Option::is_some).collect(),
        stored,
        blind: true,
        standalone: false,
    })
}

/// Stores a person's judgment (stamped now; atomic, and without the folder's writer lock:
/// no run writes `annotations/`, and one annotator's file is theirs alone; a judgment
/// changed keeps when it was first stored), then reads every person's judgments again for
/// the Analysis screen.
fn save_annotation(
    dir: &Path,
    mut annotation: crate::annotations::Annotation,
) -> Result<(Box<crate::annotations::Annotation>, PeopleReadings), String> {
    annotation.written_at = crate::domain::now_rfc3339();
    crate::annotations::save(dir, &annotation).map_err(|e| e.to_string())?;
    let stored = crate::annotations::load(dir, &annotation.annotator, &annotation.round_id)
        .map_err(|e| e.to_string())?
        .unwrap_or(annotation);
    let (readings, blind, _) = crate::analysis::people_of(dir);
    Ok((Box::new(stored), PeopleReadings { readings, blind }))
}

/// Searches the store on tokio's blocking pool (reading a thousand files must not hold up
/// keys or frames) and sends the answer back as a message.
fn search_in_background(
    dir: &Path,
    query: String,
    prompts: bool,
    answer: mpsc::UnboundedSender<Msg>,
) {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let search = crate::store::SearchQuery::new(&query).with_prompts(prompts);
        let hits = Store::open(&dir)
            .and_then(|store| store.search(&search, super::screens::search::HIT_LIMIT))
            .map_err(|e| e.to_string());
        let _ = answer.send(Msg::SearchResults { query, hits });
    });
}

/// Puts `text` on the clipboard through the terminal: OSC 52 (`ESC ] 52 ; c ; base64 BEL`),
/// which most terminals honour (tmux with `set-clipboard on`); the text was sanitised, so it
/// carries no escape sequence of its own.
fn copy_to_clipboard(text: &str) -> std::io::Result<()> {
    use base64::Engine;
    use std::io::Write;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = std::io::stdout();
    write!(out, "\x1b]52;c;{encoded}\x07")?;
    out.flush()
}
