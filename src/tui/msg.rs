//! What flows through the UI's loop, as plain values: the messages `update` takes (engine
//! events, keys, ticks, the driver's answers), the effects it returns for the driver to
//! carry out, where a screen asks to go ([`Destination`]) and what its keys ask of the rest
//! ([`Outcome`]), and where a line of the Analysis screen leads. A leaf: it names the
//! engine's, the store's and the analysis's types, and nothing else of the UI.

use std::sync::Arc;
use std::time::Instant;

use crossterm::event::KeyEvent;

use crate::domain::Round;
use crate::engine::{EngineCommand, EngineEvent};

/// Something the UI reacts to.
#[derive(Debug, Clone)]
pub enum Msg {
    /// From the engine.
    Engine(EngineEvent),
    /// From the keyboard.
    Key(KeyEvent),
    /// The clock moved (drives elapsed time and retry countdowns).
    Tick(Instant),
    /// A round read back from the store ([`Effect::LoadRound`]), or why it could not be.
    RoundLoaded {
        /// The round asked for.
        round_id: String,
        /// The whole round as stored (not yet sanitised), or the error.
        result: Result<Arc<Round>, String>,
    },
    /// The analysis of the stored rounds ([`Effect::Analyse`]), or why it failed.
    Analysed(Result<Box<crate::analysis::Analysis>, String>),
    /// The process was asked to stop (SIGINT, SIGTERM or SIGHUP): leave at once, stopping
    /// the run's new calls as a forced quit does.
    Stop,
    /// The store's answer to [`Effect::Search`] (or why the store could not be searched).
    SearchResults {
        /// The text searched for.
        query: String,
        /// The hits, in file order.
        hits: Result<Vec<crate::store::SearchHit>, String>,
    },
    /// The rounds a person is to judge ([`Effect::StartAnnotating`]), or why they could not
    /// be found.
    AnnotateReady(Result<AnnotateStart, String>),
    /// The driver's answer to [`Effect::SaveAnnotation`]: stored, with every person's
    /// judgments read again (for the Analysis screen), or why it was not stored.
    AnnotationSaved {
        /// The round judged.
        round_id: String,
        /// The judgment as stored (stamped), and everyone's judgments as now stored; or
        /// the error.
        result: Result<(Box<crate::annotations::Annotation>, PeopleReadings), String>,
    },
}

/// What a person's judging session starts from: the rounds in the order shown, and which
/// of them the annotator judged already.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotateStart {
    /// Who judges (a checked name).
    pub annotator: String,
    /// The rounds, in the order shown.
    pub round_ids: Vec<String>,
    /// For each, whether the annotator judged it already.
    pub done: Vec<bool>,
    /// For each, the annotator's judgment as stored (none where they have not judged it),
    /// to show again when they go back to it.
    pub stored: Vec<Option<crate::annotations::Annotation>>,
    /// Model names, judges' verdicts and round ids are hidden.
    pub blind: bool,
    /// Started by `ethics-bowl annotate`: leaving the screen quits.
    pub standalone: bool,
}

/// People's judgments as the analysis reads them, with how many were made blind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PeopleReadings {
    /// Every person's reading of every round they judged.
    pub readings: Vec<crate::analysis::human::PersonReading>,
    /// How many were made blind.
    pub blind: usize,
}

/// What the driver must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this to the engine.
    Command(EngineCommand),
    /// Put this text on the clipboard (OSC 52).
    Copy(String),
    /// Read this round whole from the store and answer with [`Msg::RoundLoaded`]: its
    /// text was dropped from memory (see [`super::round_text`]).
    LoadRound {
        /// The round's id.
        round_id: String,
    },
    /// Analyse the stored rounds off the UI's thread and answer with [`Msg::Analysed`].
    Analyse,
    /// Leave the UI.
    Quit,
    /// Search the stored rounds off the UI thread and answer with [`Msg::SearchResults`].
    Search {
        /// The text to find.
        query: String,
        /// Search the prompts too.
        prompts: bool,
    },
    /// Find the rounds `annotator` is to judge (the recorded sample, or every finished
    /// round) and which they judged, and answer with [`Msg::AnnotateReady`].
    StartAnnotating {
        /// Who judges (a checked name).
        annotator: String,
        /// The stored rounds, to draw every finished one from when no sample is recorded.
        rounds: Vec<crate::annotations::RoundInfo>,
    },
    /// Store a person's judgment (stamping when) and answer with [`Msg::AnnotationSaved`].
    SaveAnnotation(Box<crate::annotations::Annotation>),
}

/// Where a line of the Analysis screen leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalysisTarget {
    /// A round's transcript (or its scores, for judges).
    Round {
        /// The round.
        id: String,
        /// Open the scores rather than the transcript.
        scores: bool,
    },
    /// A dilemma's column of the matrix.
    Dilemma(String),
    /// A line that leads nowhere (a total, a calibration bin): it can be selected, not
    /// opened.
    Nothing,
}

/// Where navigation goes (see `super::nav::go`, the one place it is done).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Back where the screen showing was opened from.
    Back,
    /// The progress matrix.
    Matrix,
    /// The review queue.
    Review,
    /// The review queue's selected item, in the editor.
    Editor,
    /// The leaderboard.
    Leaderboard,
    /// The log.
    Log,
    /// The Analysis screen (computed again when the rounds changed).
    Analysis,
    /// The comparison with a second folder (`open A --compare B`).
    Compare {
        /// Its summary rather than a round's judgments.
        summary: bool,
    },
    /// A dilemma's column of the matrix.
    Column(String),
    /// A round, by id, whether or not the matrix shows it.
    Round(RoundAt),
    /// The next (or previous) round in the order the round showing was opened from (the
    /// matrix's, the search hits', the review queue's), on the same tab.
    Step {
        /// The next round rather than the previous one.
        forward: bool,
    },
}

/// A round to open, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundAt {
    /// The round's id.
    pub id: String,
    /// Its verdict (or scores) tab rather than its transcript.
    pub scores: bool,
    /// Where its transcript starts.
    pub opening: Opening,
}

/// Where a round's transcript starts when it is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// At the end, following the stream (from the matrix or a jump).
    Follow,
    /// At the top (from a line of the Analysis screen).
    Top,
    /// At the open search hit, with the prompts shown when the hit is in one.
    Hit {
        /// The hit is in a prompt.
        prompt: bool,
    },
}

/// What a screen's key asks of the rest of the UI besides its own state: somewhere to go,
/// effects for the driver, a notice for the footer, a line for the log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Where to go.
    pub go: Option<Destination>,
    /// What the driver must do.
    pub effects: Vec<Effect>,
    /// A one-off notice for the footer.
    pub notice: Option<String>,
    /// A line for the log.
    pub log: Option<String>,
}

impl Outcome {
    /// Go somewhere.
    pub fn go(to: Destination) -> Self {
        Self {
            go: Some(to),
            ..Self::default()
        }
    }

    /// Ask the driver for something.
    pub fn effect(effect: Effect) -> Self {
        Self {
            effects: vec![effect],
            ..Self::default()
        }
    }

    /// Say something in the footer.
    pub fn notice(text: String) -> Self {
        Self {
            notice: Some(text),
            ..Self::default()
        }
    }
}
