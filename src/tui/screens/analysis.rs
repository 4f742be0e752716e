//! The Analysis screen: the report's analysis of the stored rounds, kept up to date as
//! rounds are stored (computed here from the rounds in memory, or by the driver from the
//! store when some round's text waits there), drawn as the report's sections (the figure
//! model `report.md` and `report.html` are drawn from); the section showing, the selected
//! row of its tables and how far they are scrolled sideways. Enter opens what the row is
//! about: its round, its dilemma's column, or the first round its link selects.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;

use crate::analysis::figures::{self, LinkKey, Section};
use crate::tui::keys::{Action, BACK, Binding, UP_DOWN, ch, key};
use crate::tui::mirror::Mirror;
use crate::tui::msg::{AnalysisTarget, Destination, Effect, Opening, Outcome, RoundAt};

/// The Analysis screen's keys.
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "Tab / Shift-Tab",
        help: "next or previous section",
        footer: Some("Tab sections"),
        keys: &[
            (key(KeyCode::Tab), Action::NextTab),
            (key(KeyCode::BackTab), Action::PreviousTab),
        ],
    },
    Binding {
        label: "↑ ↓ / k j",
        help: "choose a row",
        footer: Some("↑↓ choose"),
        keys: UP_DOWN,
    },
    Binding {
        label: "← → / h l",
        help: "scroll the tables' columns (the first stays)",
        footer: Some("←→ columns"),
        keys: &[
            (key(KeyCode::Left), Action::Left),
            (ch('h'), Action::Left),
            (key(KeyCode::Right), Action::Right),
            (ch('l'), Action::Right),
        ],
    },
    Binding {
        label: "Enter",
        help: "open the row's round (its dilemma's column, or the first round it counts)",
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
    /// The report's sections, drawn from `analysis`.
    pub sections: Vec<Section>,
    /// The section showing.
    pub tab: usize,
    /// The selected row among the section's tables (in a section without rows, the first
    /// line shown).
    pub selected: usize,
    /// Columns after the first scrolled past.
    pub column: usize,
}

impl AnalysisView {
    /// The section showing.
    pub fn section(&self) -> Option<&Section> {
        self.sections.get(self.tab)
    }
}

/// Where each row of the section showing leads, in order: a row about one round to that
/// round, a row about one dilemma to its column, any other row to the first round (in the
/// schedule's order) its link selects, on its transcript when the row is about a model,
/// else on its verdict; a row without a link, or whose link selects no round here, nowhere.
pub fn analysis_targets(mirror: &Mirror, view: &AnalysisView) -> Vec<AnalysisTarget> {
    let Some(section) = view.section() else {
        return Vec::new();
    };
    section
        .links()
        .into_iter()
        .map(|link| {
            let Some(link) = link else {
                return AnalysisTarget::Nothing;
            };
            if let Some(id) = link.get(LinkKey::Round) {
                return AnalysisTarget::Round {
                    id: id.to_string(),
                    scores: false,
                };
            }
            // A dilemma's row (within its protocol) moves the matrix to its column.
            let only_dilemma = link
                .0
                .iter()
                .all(|(k, _)| matches!(k, LinkKey::Dilemma | LinkKey::Protocol));
            if let (Some(d), true) = (link.get(LinkKey::Dilemma), only_dilemma) {
                return AnalysisTarget::Dilemma(d.to_string());
            }
            // A row about a debater opens its transcript; one about a judge, a format or a
            // verdict, the round's verdict.
            let scores = link.get(LinkKey::Model).is_none();
            mirror
                .rounds
                .iter()
                .find(|r| link.matches(&r.stored))
                .map_or(AnalysisTarget::Nothing, |r| AnalysisTarget::Round {
                    id: r.stored.id.clone(),
                    scores,
                })
        })
        .collect()
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
        let rounds = mirror.stored_rounds();
        let people = &mirror.people;
        let analysis = crate::analysis::analyse(&rounds, &mirror.provider_of)
            .with_warnings(mirror.warnings.clone())
            .with_people(&rounds, &people.readings, people.blind);
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
        let sections = figures::sections(&analysis);
        match &mut self.view {
            Some(view) => {
                view.tab = view.tab.min(sections.len().saturating_sub(1));
                view.analysis = analysis;
                view.sections = sections;
                view.computed = now;
                view.took = took;
            }
            None => {
                self.view = Some(AnalysisView {
                    analysis,
                    sections,
                    computed: now,
                    stale: false,
                    took,
                    tab: 0,
                    selected: 0,
                    column: 0,
                });
            }
        }
    }

    /// Handles one of the screen's keys; `targets` are where the section's rows lead.
    pub fn act(&mut self, action: Action, targets: &[AnalysisTarget]) -> Outcome {
        let Some(view) = &mut self.view else {
            return Outcome::go(Destination::Back);
        };
        let tabs = view.sections.len().max(1);
        // A section without rows scrolls its lines instead.
        let last = match targets.len() {
            0 => view.section().map_or(0, |s| s.blocks.len() * 4),
            n => n - 1,
        };
        match action {
            Action::Back => return Outcome::go(Destination::Back),
            Action::NextTab => {
                view.tab = (view.tab + 1) % tabs;
                view.selected = 0;
                view.column = 0;
            }
            Action::PreviousTab => {
                view.tab = (view.tab + tabs - 1) % tabs;
                view.selected = 0;
                view.column = 0;
            }
            Action::Up => view.selected = view.selected.saturating_sub(1),
            Action::Down => view.selected = (view.selected + 1).min(last),
            Action::Left => view.column = view.column.saturating_sub(1),
            Action::Right => {
                let widest = view.section().map_or(0, |s| {
                    s.tables().map(|t| t.columns.len()).max().unwrap_or(0)
                });
                view.column = (view.column + 1).min(widest.saturating_sub(2));
            }
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
