//! The seam between the screens every protocol shares and what each protocol shows its own
//! way: one trait, one implementation per protocol (`ethics_bowl/`, `qa_debate/`,
//! `structured_debate/`), chosen by one exhaustive `match` on the protocol kind in
//! [`super::protocols`], so a new protocol is one new folder and one new arm there.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;

use crate::domain::{Evaluation, PanelRecord, PhaseType};
use crate::tui::app::App;
use crate::tui::mirror::{Entry, RoundState};
use crate::tui::theme::Theme;

/// What one protocol shows its own way: its transcript lines, verdict tab, matrix cell and
/// legend, leaderboard, Analysis tables and panel cells.
pub trait Presentation: Sync {
    /// The round view's second tab ("Scores", "Verdict").
    fn verdict_tab(&self) -> &'static str;

    /// Who speaks in a phase, when the protocol names its debaters (Pro, Debater A); `None`
    /// for phases named by their role alone (judges, panels, Ethics Bowl teams).
    fn speaker(&self, phase: &Entry<'_>, theme: &Theme) -> Option<(&'static str, Color)>;

    /// A phase's text as the protocol shows it (quotes coloured, replies read as what they
    /// say).
    fn phase_lines(
        &self,
        phase: &Entry<'_>,
        round: &RoundState,
        theme: &Theme,
    ) -> Vec<Line<'static>>;

    /// What the round is about, for the top of its transcript: each part's name and text
    /// (the dilemma's title and case; the question and the two answers; the motion).
    fn setup(&self, _round: &RoundState) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Where a finished debater's phase comes when a person reads the round to judge it: the
    /// order its judges read the exchange in, the same in every round, rather than the order
    /// the phases happened to finish. Phases of equal rank keep their stored order; by
    /// default every phase has rank 0 (the stored order is the debate's).
    fn reading_rank(&self, _phase: PhaseType) -> usize {
        0
    }

    /// The round view's verdict (or scores) tab, drawn whole into `buf` over `area` (the
    /// round view scrolls it when it is taller than the screen).
    fn render_verdict(&self, buf: &mut Buffer, area: Rect, round: &RoundState, theme: &Theme);

    /// The rows the verdict tab needs at `width` to show everything (the panel included).
    fn verdict_height(&self, round: &RoundState, width: u16, theme: &Theme) -> u16;

    /// A round's matrix cell once no call of it is under way or waiting to retry.
    fn settled_cell(&self, round: &RoundState, theme: &Theme) -> (String, Color);

    /// How a matrix row's key reads as its label: by default `a vs b`, or `a (self)`.
    fn row_label(&self, (a, b): &(String, String)) -> String {
        if a == b {
            format!("{a} (self)")
        } else {
            format!("{a} vs {b}")
        }
    }

    /// How a matrix column (dilemma, item or topic id) reads in its heading: by default the
    /// id itself.
    fn column_label(&self, id: &str) -> String {
        id.to_string()
    }

    /// The matrix's corner heading.
    fn matrix_heading(&self) -> &'static str;

    /// The widest matrix row label.
    fn max_label_width(&self) -> u16 {
        40
    }

    /// Lines the protocol shows under the matrix (by default none).
    fn matrix_panel_height(&self, _app: &App) -> u16 {
        0
    }

    /// Draws what the protocol shows under the matrix (by default nothing).
    fn render_matrix_panel(&self, _frame: &mut Frame<'_>, _area: Rect, _app: &App, _theme: &Theme) {
    }

    /// The matrix legend: what each cell symbol means.
    fn legend(&self, theme: &Theme) -> Line<'static>;

    /// The leaderboard screen.
    fn render_leaderboard(&self, frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme);

    /// One judge's evaluation in a panel round, in the protocol's terms.
    fn panel_cell(&self, evaluation: &Evaluation) -> String;

    /// The panel's aggregate, in the protocol's terms.
    fn panel_aggregate(&self, panel: &PanelRecord) -> String;

    /// What the abbreviations of [`Self::panel_cell`] mean, when it uses any.
    fn panel_key(&self) -> Option<&'static str> {
        None
    }
}
