//! The question-answer debate's Analysis tabs, from the report's figures
//! ([`QaFigures`]): accuracy per configuration and judge with Wilson intervals, debate
//! against the baselines, calibration of stated confidence, and the debaters' records.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::analysis::qa::{Proportion, QaFigures};
use crate::analysis::qa_share;
use crate::domain::QaFormat;
use crate::tui::mirror::{Mirror, RoundState};
use crate::tui::msg::AnalysisTarget;
use crate::tui::screens::analysis::AnalysisView;
use crate::tui::theme::Theme;
use crate::tui::views::analysis::{Tab, table};

/// The tabs.
pub const TABS: [&str; 4] = ["Accuracy", "Baselines", "Calibration", "Debaters"];

fn percent(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{:+.0} pts", v * 100.0))
}

fn short(p: &Proportion) -> String {
    p.share
        .map_or("–".into(), |s| format!("{:.0}% (n={})", s * 100.0, p.n))
}

/// The header and rows of a tab.
fn rows(q: &QaFigures, tab: usize) -> Tab {
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // The three-way baselines get columns only when they ran.
    let formats: Vec<QaFormat> = QaFormat::ALL
        .into_iter()
        .filter(|f| !f.is_three_way() || q.by_format.contains_key(f))
        .collect();
    match tab {
        0 => (
            (
                owned(&[
                    "format",
                    "debaters",
                    "judge",
                    "level",
                    "accuracy [95% Wilson]",
                ]),
                q.configurations
                    .iter()
                    .map(|c| {
                        vec![
                            c.format.as_str().to_string(),
                            c.debaters.clone(),
                            c.judge.clone(),
                            c.level.clone(),
                            qa_share(&c.accuracy),
                        ]
                    })
                    .collect(),
            ),
            vec![12, 22, 18, 8, 26],
            format!(
                " Judge accuracy per configuration · {} ",
                q.by_format
                    .iter()
                    .map(|(f, p)| format!("{} {}", f.as_str(), short(p)))
                    .collect::<Vec<_>>()
                    .join(" · ")
            ),
        ),
        1 => (
            (
                ["judge", "level"]
                    .into_iter()
                    .map(String::from)
                    .chain(formats.iter().map(|f| f.as_str().to_string()))
                    .chain(["lift over naive".into(), "gap to expert".into()])
                    .collect(),
                q.lifts
                    .iter()
                    .map(|l| {
                        [l.judge.clone(), l.level.clone()]
                            .into_iter()
                            .chain(
                                formats
                                    .iter()
                                    .map(|f| l.formats.get(f).map_or("–".into(), short)),
                            )
                            .chain([percent(l.lift_over_naive), percent(l.gap_to_expert)])
                            .collect()
                    })
                    .collect(),
            ),
            [12, 8]
                .into_iter()
                .chain(formats.iter().map(|_| 12))
                .chain([15, 13])
                .collect(),
            " Debate against the baselines, per judge and level ".into(),
        ),
        2 => (
            (
                owned(&["confidence", "mean stated", "accuracy [95% Wilson]"]),
                q.calibration
                    .iter()
                    .map(|b| {
                        vec![
                            format!("{:.0}–{:.0}", b.low, b.high),
                            b.mean_confidence.map_or("–".into(), |c| format!("{c:.0}")),
                            qa_share(&b.accuracy),
                        ]
                    })
                    .collect(),
            ),
            vec![12, 12, 26],
            match &q.both_wrong {
                Some(b) => format!(
                    " Calibration · {} judgments with both answers wrong: mean confidence {} (otherwise {}) ",
                    b.n,
                    b.mean_confidence.map_or("–".into(), |c| format!("{c:.0}")),
                    b.mean_confidence_otherwise
                        .map_or("–".into(), |c| format!("{c:.0}"))
                ),
                None => " Calibration: stated confidence against accuracy ".into(),
            },
        ),
        _ => (
            (
                owned(&[
                    "debater",
                    "wins when correct",
                    "wins when incorrect",
                    "quotes verified",
                    "cut",
                    "persuasiveness",
                    "self-play accuracy",
                ]),
                q.debaters
                    .iter()
                    .map(|d| {
                        vec![
                            d.model.clone(),
                            short(&d.wins_when_correct),
                            short(&d.wins_when_incorrect),
                            short(&d.quotes_verified),
                            d.word_limit_violations.to_string(),
                            d.persuasiveness
                                .as_ref()
                                .map_or("–".into(), |r| format!("{:.0}", r.rating)),
                            short(&d.self_play_accuracy),
                        ]
                    })
                    .collect(),
            ),
            vec![20, 18, 20, 16, 4, 15, 19],
            format!(
                " Debaters · persuasiveness ~ self-play accuracy r = {} ",
                q.persuasiveness_accuracy_correlation
                    .map_or("–".into(), |r| format!("{r:.2}"))
            ),
        ),
    }
}

/// Draws the current tab.
pub fn render(frame: &mut Frame<'_>, area: Rect, view: &AnalysisView, theme: &Theme) {
    let Some(q) = &view.analysis.qa else {
        empty(frame, area, theme);
        return;
    };
    let (content, widths, title) = rows(q, view.tab);
    table(frame, area, content, &widths, title, view.selected, theme);
}

fn empty(frame: &mut Frame<'_>, area: Rect, theme: &Theme) {
    frame.render_widget(
        ratatui::widgets::Paragraph::new("No question-answer round is stored yet.")
            .style(ratatui::style::Style::new().fg(theme.dim)),
        area,
    );
}

/// What each line leads to: a configuration's first round, a debater's first debate;
/// baselines and calibration bins lead nowhere.
pub fn targets(app: &Mirror, view: &AnalysisView) -> Vec<AnalysisTarget> {
    let Some(q) = &view.analysis.qa else {
        return Vec::new();
    };
    let first = |pred: &dyn Fn(&RoundState) -> bool| {
        app.rounds
            .iter()
            .find(|r| pred(r))
            .map_or(AnalysisTarget::Nothing, |r| AnalysisTarget::Round {
                id: r.id().to_string(),
                scores: true,
            })
    };
    match view.tab {
        0 => q
            .configurations
            .iter()
            .map(|c| {
                first(&|r| {
                    r.stored
                        .qa()
                        .is_some_and(|s| s.format == c.format && s.level == c.level)
                        && r.judges().contains(&c.judge)
                })
            })
            .collect(),
        1 => vec![AnalysisTarget::Nothing; q.lifts.len()],
        2 => vec![AnalysisTarget::Nothing; q.calibration.len()],
        _ => q
            .debaters
            .iter()
            .map(|d| {
                first(&|r| r.stored.team_a_model == d.model || r.stored.team_b_model == d.model)
            })
            .collect(),
    }
}
