//! The Analysis screen: the report's analysis of the stored rounds, kept up to date as
//! rounds are stored (computed here from the rounds in memory, or by the driver from the
//! store when some round's text waits there), its tab and its selected line; Enter opens
//! what the line leads to (a dilemma's column, or a round). What each line leads to is the
//! protocol's (the views' presentation), handed to [`AnalysisScreen::act`].

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;

use crate::tui::keys::{Action, BACK, Binding, UP_DOWN, ch, key};
use crate::tui::mirror::Mirror;
use crate::tui::msg::{AnalysisTarget, Destination, Effect, Opening, Outcome, RoundAt};

/// The Analysis screen's keys.
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "Tab / ← → / h l",
        help: "next or previous table",
        footer: Some("Tab/←→ tables"),
        keys: &[
            (key(KeyCode::Tab), Action::NextTab),
            (key(KeyCode::Right), Action::NextTab),
            (ch('l'), Action::NextTab),
            (key(KeyCode::BackTab), Action::PreviousTab),
            (key(KeyCode::Left), Action::PreviousTab),
            (ch('h'), Action::PreviousTab),
        ],
    },
    Binding {
        label: "↑ ↓ / k j",
        help: "choose a line",
        footer: Some("↑↓ choose"),
        keys: UP_DOWN,
    },
    Binding {
        label: "Enter",
        help: "open it (the matrix column, or a round)",
        footer: Some("Enter open"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    BACK,
];

/// The Analysis screen's data: the results and where the user is in them.
#[derive(Debug, Clone)]
pub struct AnalysisView {
    /// The latest analysis of the rounds so far.
    pub analysis: crate::analysis::Analysis,
    /// When it was computed.
    pub computed: Instant,
    /// Rounds have changed since.
    pub stale: bool,
    /// How long it took (from asking the driver to the answer; zero when computed here):
    /// the next pass waits a few times that, so a large tournament is not re-read back to
    /// back while its rounds finish.
    pub took: Duration,
    /// The tab showing.
    pub tab: usize,
    /// The selected line of the tab's list.
    pub selected: usize,
}

/// The Analysis screen's state.
#[derive(Debug, Clone, Default)]
pub struct AnalysisScreen {
    /// The analysis, once the screen was opened.
    pub view: Option<AnalysisView>,
    /// When the driver was asked for the analysis it is computing from the store (see
    /// [`AnalysisScreen::refresh`]).
    pub analysing: Option<Instant>,
}

impl AnalysisScreen {
    /// Whether the analysis must be computed before it is shown (none yet, or stale).
    pub fn wanted(&self) -> bool {
        self.view.as_ref().is_none_or(|v| v.stale)
    }

    /// Whether it is time to compute a stale analysis again at `now`: at most once a second,
    /// and a pass over the store at most once every four times it took.
    pub fn due(&self, now: Instant) -> bool {
        self.analysing.is_none()
            && self.view.as_ref().is_some_and(|v| {
                v.stale
                    && now.saturating_duration_since(v.computed)
                        >= Duration::from_secs(1).max(v.took * 4)
            })
    }

    /// Rounds were stored since the analysis was computed.
    pub fn mark_stale(&mut self) {
        if let Some(view) = &mut self.view {
            view.stale = true;
        }
    }

    /// Recomputes the analysis: here from the rounds in memory when every one has its
    /// text, else by the driver from the store ([`Effect::Analyse`], answered through
    /// [`AnalysisScreen::take`]), since rounds whose text waits in the store would leave out
    /// what the text-reading tables count.
    pub fn refresh(&mut self, mirror: &Mirror) -> Option<Effect> {
        if mirror.rounds.iter().any(|r| r.text_dropped) {
            if self.analysing.is_some() {
                return None;
            }
            self.analysing = Some(mirror.now);
            // Rounds stored from now on make the answer stale.
            if let Some(view) = &mut self.view {
                view.stale = false;
            }
            return Some(Effect::Analyse);
        }
        let analysis = crate::analysis::analyse(&mirror.stored_rounds(), &mirror.provider_of);
        self.take(analysis, mirror.now);
        if let Some(view) = &mut self.view {
            view.stale = false;
        }
        None
    }

    /// Shows a newly computed analysis (whether rounds stored meanwhile make it stale is
    /// left as it stands).
    pub fn take(&mut self, analysis: crate::analysis::Analysis, now: Instant) {
        let took = self
            .analysing
            .take()
            .map_or(Duration::ZERO, |asked| now.saturating_duration_since(asked));
        match &mut self.view {
            Some(view) => {
                view.analysis = analysis;
                view.computed = now;
                view.took = took;
            }
            None => {
                self.view = Some(AnalysisView {
                    analysis,
                    computed: now,
                    stale: false,
                    took,
                    tab: 0,
                    selected: 0,
                });
            }
        }
    }

    /// Handles one of the screen's keys; `targets` are where the current tab's lines lead,
    /// and the protocol has `tabs` tabs.
    pub fn act(&mut self, action: Action, targets: &[AnalysisTarget], tabs: usize) -> Outcome {
        let Some(view) = &mut self.view else {
            return Outcome::go(Destination::Back);
        };
        let n = targets.len();
        match action {
            Action::Back => return Outcome::go(Destination::Back),
            Action::NextTab => {
                view.tab = (view.tab + 1) % tabs.max(1);
                view.selected = 0;
            }
            Action::PreviousTab => {
                view.tab = (view.tab + tabs.max(1) - 1) % tabs.max(1);
                view.selected = 0;
            }
            Action::Up => view.selected = view.selected.saturating_sub(1),
            Action::Down => view.selected = (view.selected + 1).min(n.saturating_sub(1)),
            Action::Open => match targets.get(view.selected) {
                Some(AnalysisTarget::Dilemma(d)) => {
                    return Outcome::go(Destination::Column(d.clone()));
                }
                Some(AnalysisTarget::Round { id, scores }) => {
                    return Outcome::go(Destination::Round(RoundAt {
                        id: id.clone(),
                        scores: *scores,
                        opening: Opening::Top,
                    }));
                }
                Some(AnalysisTarget::Nothing) | None => {}
            },
            _ => {}
        }
        Outcome::default()
    }
}
