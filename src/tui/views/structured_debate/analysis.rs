//! The structured debate's Analysis tabs, from the report's figures
//! ([`StructuredFigures`]): each model's win rate, side totals and concessions, Pro against
//! Con, how arguments stood, the fallacies found, and the rounds whose rules were broken.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::analysis::qa_share;
use crate::analysis::structured::{Mean, StructuredFigures};
use crate::domain::{Fallacy, Side, Standing};
use crate::tui::mirror::Mirror;
use crate::tui::msg::AnalysisTarget;
use crate::tui::screens::analysis::AnalysisView;
use crate::tui::theme::Theme;
use crate::tui::views::analysis::{Tab, table};

/// The tabs.
pub const TABS: [&str; 5] = [
    "Models",
    "Sides",
    "Standings",
    "Fallacies",
    "Rule violations",
];

fn mean(m: &Mean) -> String {
    m.mean.map_or("–".into(), |v| format!("{v:.2} (n={})", m.n))
}

/// A broken rule: the round, the side and what it broke.
struct Violation {
    round: String,
    side: Side,
    model: String,
    rules: String,
}

/// The rounds' rule violations as stored, in schedule order.
fn violations(app: &Mirror) -> Vec<Violation> {
    app.rounds
        .iter()
        .filter_map(|r| r.stored.structured().map(|s| (r, s)))
        .flat_map(|(r, setup)| {
            Side::BOTH.into_iter().filter_map(move |side| {
                let record = setup.side(side);
                (!record.violations.is_empty()).then(|| Violation {
                    round: r.id().to_string(),
                    side,
                    model: match side {
                        Side::Pro => r.stored.team_a_model.clone(),
                        Side::Con => r.stored.team_b_model.clone(),
                    },
                    rules: record.violations.join("; "),
                })
            })
        })
        .collect()
}

fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The header, rows, widths and title of a tab.
fn rows(f: &StructuredFigures, app: &Mirror, tab: usize) -> Tab {
    match tab {
        0 => (
            (
                owned(&[
                    "model",
                    "win rate",
                    "total as Pro",
                    "total as Con",
                    "concessions",
                ]),
                f.models
                    .iter()
                    .map(|m| {
                        vec![
                            m.model.clone(),
                            m.win_rate.map_or("–".into(), |w| {
                                format!("{:.0}% ({} of {})", w * 100.0, m.wins, m.judgments)
                            }),
                            mean(&m.pro_total),
                            mean(&m.con_total),
                            qa_share(&m.concessions),
                        ]
                    })
                    .collect(),
            ),
            vec![22, 18, 16, 16, 26],
            format!(
                " Models (a draw is not a win) · {} rule violations · {} replies corrected, {} kept as text ",
                f.violations, f.corrected_replies, f.fallback_replies
            ),
        ),
        1 => {
            let s = &f.side;
            (
                (
                    owned(&["", "Pro against Con"]),
                    vec![
                        vec!["usable judgments".into(), s.judgments.to_string()],
                        vec!["Pro won".into(), s.pro_wins.to_string()],
                        vec!["Con won".into(), s.con_wins.to_string()],
                        vec!["evenly matched".into(), s.ties.to_string()],
                        vec!["Pro's share of decided".into(), qa_share(&s.pro_share)],
                        vec![
                            "mean margin (Pro − Con)".into(),
                            s.mean_margin.map_or("–".into(), |m| format!("{m:+.2}")),
                        ],
                    ],
                ),
                vec![26, 28],
                " Sides: does arguing Pro help? ".into(),
            )
        }
        2 => (
            (
                std::iter::once("model".to_string())
                    .chain(Standing::ALL.iter().map(|s| s.as_str().to_lowercase()))
                    .chain(["assessed".into()])
                    .collect(),
                f.models
                    .iter()
                    .map(|m| {
                        std::iter::once(m.model.clone())
                            .chain(
                                Standing::ALL
                                    .iter()
                                    .map(|s| m.standings.get(s).copied().unwrap_or(0).to_string()),
                            )
                            .chain([m.assessed_arguments.to_string()])
                            .collect()
                    })
                    .collect(),
            ),
            vec![22, 10, 17, 10, 10, 9],
            " How each model's arguments stood ".into(),
        ),
        3 => (
            (
                std::iter::once("model".to_string())
                    .chain(Fallacy::ALL.iter().map(|x| x.as_str().replace('_', " ")))
                    .collect(),
                f.models
                    .iter()
                    .map(|m| {
                        std::iter::once(m.model.clone())
                            .chain(
                                Fallacy::ALL
                                    .iter()
                                    .map(|x| m.fallacies.get(x).copied().unwrap_or(0).to_string()),
                            )
                            .collect()
                    })
                    .collect(),
            ),
            std::iter::once(22)
                .chain(
                    Fallacy::ALL
                        .iter()
                        .map(|x| x.as_str().len().max(4) as u16 + 1),
                )
                .collect(),
            " Fallacies judges found, by model ".into(),
        ),
        _ => {
            let list = violations(app);
            (
                (
                    owned(&["round", "side", "model", "rules broken"]),
                    list.iter()
                        .map(|v| {
                            vec![
                                v.round.clone(),
                                v.side.as_str().to_string(),
                                v.model.clone(),
                                v.rules.clone(),
                            ]
                        })
                        .collect(),
                ),
                vec![38, 5, 12, 58],
                format!(
                    " {} rule violations in {} replies · Enter: the transcript ",
                    f.violations,
                    list.len()
                ),
            )
        }
    }
}

/// Draws the current tab.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &Mirror, view: &AnalysisView, theme: &Theme) {
    let Some(f) = &view.analysis.structured else {
        frame.render_widget(
            ratatui::widgets::Paragraph::new("No structured debate is stored yet.")
                .style(ratatui::style::Style::new().fg(theme.dim)),
            area,
        );
        return;
    };
    let (content, widths, title) = rows(f, app, view.tab);
    table(frame, area, content, &widths, title, view.selected, theme);
}

/// What each line leads to: a model's first debate, a violation's round; the side figures
/// lead nowhere.
pub fn targets(app: &Mirror, view: &AnalysisView) -> Vec<AnalysisTarget> {
    let Some(f) = &view.analysis.structured else {
        return Vec::new();
    };
    let first = |model: &str| {
        app.rounds
            .iter()
            .find(|r| r.stored.team_a_model == model || r.stored.team_b_model == model)
            .map_or(AnalysisTarget::Nothing, |r| AnalysisTarget::Round {
                id: r.id().to_string(),
                scores: true,
            })
    };
    match view.tab {
        1 => vec![AnalysisTarget::Nothing; 6],
        4 => violations(app)
            .into_iter()
            .map(|v| AnalysisTarget::Round {
                id: v.round,
                scores: false,
            })
            .collect(),
        _ => f.models.iter().map(|m| first(&m.model)).collect(),
    }
}
