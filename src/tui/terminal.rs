//! Drives the UI on a real terminal: raw mode and the alternate screen (restored on every
//! exit path, panics included), keys from crossterm's event stream, engine events drained in
//! batches, and a frame drawn on a ~30 fps tick only when something changed. Nothing here
//! waits on the engine: a burst of deltas is applied in one batch before the next key.

use std::io::Stdout;
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

use crate::engine::{EngineCommand, EngineEvent};

use super::app::App;
use super::theme::Theme;
use super::update::{Effect, Msg, update};
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
/// `commands`; searches read the round files of the results folder `results`. Returns the
/// final state.
pub async fn run(
    mut app: App,
    theme: Theme,
    mut events: mpsc::UnboundedReceiver<EngineEvent>,
    commands: mpsc::UnboundedSender<EngineCommand>,
    results: std::path::PathBuf,
) -> std::io::Result<App> {
    // The hook restores the terminal before the panic message is printed.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    enable_raw_mode()?;
    let _restore = Restore;
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        crossterm::cursor::Hide
    )?;
    let mut terminal: Terminal<CrosstermBackend<Stdout>> =
        Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    let mut keys = EventStream::new();
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut batch = Vec::with_capacity(BATCH);
    let mut engine_open = true;
    let (found_tx, mut found) = mpsc::unbounded_channel::<Msg>();
    loop {
        let mut effects = Vec::new();
        tokio::select! {
            biased;
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
            Some(msg) = found.recv() => {
                update(&mut app, msg);
            }
            _ = tick.tick() => {
                update(&mut app, Msg::Tick(Instant::now()));
                if app.dirty {
                    terminal.draw(|frame| views::render(frame, &app, &theme))?;
                    app.dirty = false;
                }
            }
        }
        for effect in effects {
            match effect {
                Effect::Command(c) => {
                    let _ = commands.send(c);
                }
                Effect::Copy(text) => copy_to_clipboard(&text)?,
                Effect::Quit => return Ok(app),
                Effect::Search { query, prompts } => {
                    search_in_background(&results, query, prompts, found_tx.clone());
                }
            }
        }
    }
    Ok(app)
}

/// Searches the store on tokio's blocking pool (reading a thousand files must not hold up
/// keys or frames) and sends the answer back as a message.
fn search_in_background(
    results: &std::path::Path,
    query: String,
    prompts: bool,
    answer: mpsc::UnboundedSender<Msg>,
) {
    let dir = results.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let search = crate::store::SearchQuery::new(&query).with_prompts(prompts);
        let hits = crate::store::Store::open(&dir)
            .and_then(|store| store.search(&search, super::search::HIT_LIMIT))
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
