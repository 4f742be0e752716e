//! The Ethics Bowl's presentation: team roles in the transcript, fourteen scores per judge,
//! the A−B margin in the matrix, mean totals on the leaderboard, and the report's tables on
//! the Analysis screen.

mod leaderboard;
mod scores;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;

use super::presentation::Presentation;
use crate::domain::{Criterion, Evaluation, PanelRecord, PhaseType};
use crate::protocols::panel::show_score;
use crate::tui::app::App;
use crate::tui::mirror::{Entry, RoundState};
use crate::tui::theme::Theme;

/// The Ethics Bowl's screens.
pub struct EthicsBowl;

/// A side's total from a panel judge's dimension scores (`team_a.…`), when every one of
/// them is there.
fn total(scores: &std::collections::BTreeMap<String, f64>, side: &str) -> Option<f64> {
    let values: Vec<f64> = scores
        .iter()
        .filter(|(k, _)| k.starts_with(side))
        .map(|(_, v)| *v)
        .collect();
    (values.len() == Criterion::ALL.len()).then(|| values.iter().sum())
}

fn verdict_mark(verdict: Option<&str>) -> &'static str {
    match verdict {
        Some("team_a") => "A",
        Some("team_b") => "B",
        Some("tie") => "=",
        _ => "?",
    }
}

fn number(v: Option<f64>) -> String {
    v.map_or("–".into(), show_score)
}

/// `52–47 A 0.80`: totals, verdict, confidence.
fn summary(
    scores: &std::collections::BTreeMap<String, f64>,
    verdict: Option<&str>,
    confidence: Option<f64>,
) -> String {
    format!(
        "{}–{} {} {}",
        number(total(scores, "team_a")),
        number(total(scores, "team_b")),
        verdict_mark(verdict),
        super::panel::confidence(confidence)
    )
}

/// A margin as the matrix shows it (the one wording every view uses).
pub use crate::domain::margin_text;

/// The dilemma's title and case as the presentation prompt states them (`# title`, then
/// `## The case` up to `## Complications`; see
/// [`presentation_prompt`](crate::protocols::ethics_bowl::prompts::presentation_prompt)):
/// the round keeps the dilemma only there.
fn dilemma_in_prompt(prompt: &str) -> Option<(String, String)> {
    let title = prompt
        .lines()
        .find_map(|l| l.strip_prefix("# "))?
        .trim()
        .to_string();
    let (_, after) = prompt.split_once("## The case\n")?;
    let case = after
        .split_once("\n\n## ")
        .map_or(after, |(case, _)| case)
        .trim()
        .to_string();
    Some((title, case))
}

/// The parallel case as a consistency test's prompt states it (see
/// [`consistency_prompt`](crate::protocols::ethics_bowl::prompts::consistency_prompt)): after
/// the last opening marker, so a team's position quoted before it cannot stand in for it.
fn parallel_case_in_prompt(prompt: &str) -> Option<String> {
    use crate::protocols::ethics_bowl::prompts::{PARALLEL_CASE_CLOSES, PARALLEL_CASE_OPENS};
    let (_, after) = prompt.rsplit_once(PARALLEL_CASE_OPENS)?;
    let (case, _) = after.split_once(PARALLEL_CASE_CLOSES)?;
    let case = case.trim();
    (!case.is_empty()).then(|| case.to_string())
}

impl Presentation for EthicsBowl {
    fn verdict_tab(&self) -> &'static str {
        "Scores"
    }

    fn speaker(&self, _phase: &Entry<'_>, _theme: &Theme) -> Option<(&'static str, Color)> {
        None
    }

    fn phase_lines(
        &self,
        phase: &Entry<'_>,
        _round: &RoundState,
        _theme: &Theme,
    ) -> Vec<Line<'static>> {
        phase
            .text
            .lines()
            .map(|l| Line::raw(l.to_string()))
            .collect()
    }

    fn render_verdict(&self, buf: &mut Buffer, area: Rect, round: &RoundState, theme: &Theme) {
        let area = super::panel::render_above(buf, area, round, self, theme);
        scores::render(buf, area, round, theme);
    }

    fn setup(&self, round: &RoundState) -> Vec<(&'static str, String)> {
        let phases = &round.stored.phases;
        let mut setup = match phases
            .iter()
            .find(|p| p.phase_type == PhaseType::Presentation)
            .and_then(|p| dilemma_in_prompt(&p.prompt))
        {
            Some((title, case)) => vec![("Dilemma", title), ("Case", case)],
            None => vec![("Dilemma", round.stored.dilemma_id.clone())],
        };
        // Whoever reads the consistency tests (a person judging, a reviewer) needs the case
        // they answered, which the round keeps only in their prompts.
        if let Some(parallel) = phases
            .iter()
            .filter(|p| {
                p.phase_type == PhaseType::ConsistencyTest
                    || p.phase_type == PhaseType::ConsistencyTestB
            })
            .find_map(|p| parallel_case_in_prompt(&p.prompt))
        {
            setup.push(("Parallel case", parallel));
        }
        setup
    }

    fn reading_rank(&self, phase: PhaseType) -> usize {
        // As the judges' exchange has them (`prompts::exchange_layers`): a consistency test
        // usually finishes before the response, but is read after the rebuttal.
        [
            PhaseType::Presentation,
            PhaseType::Response,
            PhaseType::Rebuttal,
            PhaseType::ConsistencyTest,
            PhaseType::ConsistencyTestB,
        ]
        .iter()
        .position(|p| *p == phase)
        .unwrap_or(usize::MAX)
    }

    fn verdict_height(&self, round: &RoundState, width: u16, theme: &Theme) -> u16 {
        super::panel::height(round).saturating_add(scores::height(round, width, theme))
    }

    fn settled_cell(&self, round: &RoundState, theme: &Theme) -> (String, Color) {
        let margin = round.margin().map(margin_text).unwrap_or_default();
        super::cells::status_cell(round, margin, theme)
    }

    fn matrix_heading(&self) -> &'static str {
        "Team A vs Team B"
    }

    fn legend(&self, theme: &Theme) -> Line<'static> {
        super::cells::legend(theme, "▶PRBCJ running  ", "✓±n done (A−B, = tie)  ")
    }

    fn render_leaderboard(&self, frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
        leaderboard::render(frame, area, app, theme);
    }

    fn panel_cell(&self, e: &Evaluation) -> String {
        summary(&e.scores, e.verdict.as_deref(), e.confidence)
    }

    fn panel_aggregate(&self, panel: &PanelRecord) -> String {
        panel.aggregate.as_ref().map_or("–".into(), |a| {
            summary(&a.scores, a.verdict.as_deref(), a.confidence)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{dilemma_in_prompt, margin_text, parallel_case_in_prompt};

    #[test]
    fn the_dilemma_is_read_back_from_the_presentation_prompt() {
        let d = crate::domain::Dilemma {
            title: "The lifeboat".into(),
            core_scenario: "Ten seats.\n\nTwelve people.".into(),
            complications: vec!["storm".into()],
            questions: vec!["who?".into()],
            id: "d1".into(),
            category: String::new(),
            asymmetric_features: Vec::new(),
            consistency_case: String::new(),
            metadata: Default::default(),
        };
        let prompt = crate::protocols::ethics_bowl::prompts::presentation_prompt(&d);
        assert_eq!(
            dilemma_in_prompt(&prompt),
            Some(("The lifeboat".into(), "Ten seats.\n\nTwelve people.".into()))
        );
        assert_eq!(dilemma_in_prompt("no dilemma here"), None);
    }

    #[test]
    fn the_parallel_case_is_read_back_from_a_consistency_prompt() {
        let d = crate::domain::Dilemma {
            title: "The lifeboat".into(),
            core_scenario: "Ten seats.".into(),
            complications: Vec::new(),
            questions: Vec::new(),
            id: "d1".into(),
            category: String::new(),
            asymmetric_features: Vec::new(),
            consistency_case: "A ferry with one seat.\n\nTwo children.".into(),
            metadata: Default::default(),
        };
        let prompt = crate::protocols::ethics_bowl::prompts::consistency_prompt(&d, "No labels.");
        assert_eq!(
            parallel_case_in_prompt(&prompt).as_deref(),
            Some("A ferry with one seat.\n\nTwo children.")
        );
        // A position that wrote the markers itself comes before the real case, which is
        // the one read.
        use crate::protocols::ethics_bowl::prompts::{PARALLEL_CASE_CLOSES, PARALLEL_CASE_OPENS};
        let forged = format!(
            "Your guiding principle: {PARALLEL_CASE_OPENS}A fake case.{PARALLEL_CASE_CLOSES}\n\n\
             {PARALLEL_CASE_OPENS}The real case.{PARALLEL_CASE_CLOSES} If it gives…"
        );
        assert_eq!(
            parallel_case_in_prompt(&forged).as_deref(),
            Some("The real case.")
        );
        assert_eq!(parallel_case_in_prompt("no case here"), None);
    }

    #[test]
    fn a_half_point_margin_keeps_its_half_and_a_tie_reads_as_equal() {
        assert_eq!(margin_text(6.5), "+6.5");
        assert_eq!(margin_text(-3.0), "-3");
        assert_eq!(margin_text(14.0), "+14");
        assert_eq!(margin_text(0.0), "=");
    }
}
