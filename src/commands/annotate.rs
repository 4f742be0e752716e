//! `ethics-bowl annotate RESULTS --annotator NAME`: a person judges rounds in the terminal
//! UI, blind by default, on the recorded sample (or one drawn and recorded now), resuming at
//! the first round they have not judged. Everything that can be refused (the name, a
//! conflicting sample, no terminal) is refused before the terminal is taken.

use std::path::Path;

use ethics_bowl::annotations::{self, AnnotationError, DEFAULT_SEED, RoundInfo, Sample, Strata};
use ethics_bowl::store::Store;
use ethics_bowl::tui::msg::AnnotateStart;
use ethics_bowl::tui::screens::Id;
use ethics_bowl::tui::screens::annotate::Session;
use tokio::sync::mpsc;

use super::UsageError;

/// What `annotate` was asked.
#[derive(Debug)]
pub struct Options<'a> {
    /// The results folder.
    pub dir: &'a Path,
    /// Who judges.
    pub annotator: &'a str,
    /// How many rounds to draw (default: every finished round).
    pub sample: Option<usize>,
    /// What the sample is stratified by.
    pub strata: Option<Strata>,
    /// The draw's seed (default [`DEFAULT_SEED`]).
    pub seed: Option<u64>,
    /// Show model names and the judges' verdicts (adjudication).
    pub unblind: bool,
    /// The colour theme.
    pub theme: &'a str,
}

/// Runs `annotate`.
pub async fn run(options: Options<'_>) -> anyhow::Result<()> {
    let dir = options.dir;
    annotations::check_annotator(options.annotator).map_err(|e| UsageError(e.to_string()))?;
    // The user's keys: a mistake in them is said before anything is read.
    let keys = super::keys::load()?;
    let store = Store::open(dir).map_err(|e| UsageError(e.to_string()))?;
    super::remember_keys(&store);
    let (rounds, errors) = super::open::browse_rounds(&store)?;
    let infos: Vec<RoundInfo> = rounds.iter().map(RoundInfo::of).collect();
    let sample = sample(dir, &infos, &options)?;
    let stored =
        annotations::session::stored(dir, options.annotator, &sample.round_ids).map_err(refused)?;
    let done: Vec<bool> = stored.iter().map(Option::is_some).collect();
    let n = sample.round_ids.len();
    // Every round judged: said without taking the terminal, unless there is one to go
    // back and change a judgment on (`[` on the screen that says so).
    if done.iter().all(|d| *d) && !super::run::can_show_ui() {
        eprintln!(
            "{} has judged all {n} round{} of the sample (stored in {}); `ethics-bowl report {}` measures the judges against people",
            options.annotator,
            if n == 1 { "" } else { "s" },
            dir.join(annotations::store::FOLDER)
                .join(options.annotator)
                .display(),
            dir.display()
        );
        return Ok(());
    }
    if !super::run::can_show_ui() {
        return Err(UsageError(
            "`annotate` needs a terminal; a spreadsheet works without one: `ethics-bowl annotations template` and `annotations import`".into(),
        )
        .into());
    }
    let theme = super::theme(options.theme)?;
    let mut app = super::open::browse_app(dir, &store, rounds, &errors);
    app.keys = keys;
    let start = AnnotateStart {
        annotator: options.annotator.to_string(),
        round_ids: sample.round_ids,
        done,
        stored,
        blind: !options.unblind,
        standalone: true,
    };
    app.screens.annotate.session = Some(Session::new(start, &app.mirror));
    app.trail.show(Id::Annotate);
    // No engine: the channels stay quiet (a correction cannot be made from this screen).
    let (_events_tx, events) = mpsc::unbounded_channel();
    let (commands, _commands_rx) = mpsc::unbounded_channel();
    let app =
        ethics_bowl::tui::terminal::run(app, theme, events, commands, dir.to_path_buf()).await?;
    if let Some(session) = &app.screens.annotate.session {
        eprintln!(
            "{}: {} of {} rounds judged, stored in {}",
            session.annotator,
            session.judged(),
            session.round_ids.len(),
            dir.join(annotations::store::FOLDER)
                .join(&session.annotator)
                .display()
        );
    }
    Ok(())
}

/// The sample to judge: the recorded one, unless a different one is asked (refused: people
/// may be part-way through it); with none recorded, one drawn now and recorded (under the
/// folder's writer lock, as `annotations template` records it).
fn sample(
    dir: &Path,
    rounds: &[RoundInfo],
    options: &Options<'_>,
) -> Result<Sample, anyhow::Error> {
    let asked = options.sample.is_some() || options.strata.is_some() || options.seed.is_some();
    let seed = options.seed.unwrap_or(DEFAULT_SEED);
    let recorded = annotations::sample::load_sample(dir).map_err(refused)?;
    if let Some(recorded) = recorded {
        if asked {
            let drawn = annotations::sample::draw(rounds, options.sample, options.strata, seed)
                .map_err(refused)?;
            if !recorded.same_draw(&drawn) {
                return Err(UsageError(format!(
                    "{}: a different sample is recorded (seed {}, {} rounds{}); people may be judging it. Leave out --sample, --strata and --seed to judge it (or give the ones it was drawn with), or draw a new one in its place with `ethics-bowl annotations template {} --sample N --replace`",
                    dir.join(annotations::store::FOLDER)
                        .join(annotations::sample::SAMPLE_FILE)
                        .display(),
                    recorded.seed,
                    recorded.round_ids.len(),
                    recorded
                        .strata
                        .map(|s| format!(", by {}", strata_name(s)))
                        .unwrap_or_default(),
                    dir.display()
                ))
                .into());
            }
        }
        return Ok(recorded);
    }
    let drawn =
        annotations::sample::draw(rounds, options.sample, options.strata, seed).map_err(refused)?;
    let _writer = Store::open(dir)?.locked()?;
    annotations::sample::record(dir, drawn, false).map_err(refused)
}

fn strata_name(strata: Strata) -> &'static str {
    match strata {
        Strata::Dilemma => "dilemma",
        Strata::Model => "model",
        Strata::Judge => "judge",
    }
}

/// A library error as the command reports it: exit 2 for what the user can fix, the
/// store's own errors as they are.
fn refused(e: AnnotationError) -> anyhow::Error {
    match e {
        AnnotationError::Store(store) => store.into(),
        other => UsageError(other.to_string()).into(),
    }
}
