//! Each round as the page's transcript browser shows it: setup, phases (speaker, type,
//! text), judgments (the reading as a table and lines, the judge's words, the raw answer),
//! the panel's deliberation, and the structured debate's argument trace; with the tags its
//! filters read. Prompts are left out: they repeat the dilemma in every call and would
//! make the page several times larger, and the round files keep them.
//!
//! Model text is sanitised (controls, escape sequences and bidirectional controls out) and
//! reaches the page only as JSON, which the page's script puts into the DOM as text.

use serde::Serialize;

use crate::analysis::figures::RoundTags;
use crate::domain::{
    Criterion, JudgeView, Judgment, PanelRecord, Phase, PhaseType, Reading, Round, Side,
    StructuredSetup,
};
use crate::protocols::qa_debate::quotes::{GameText, show_argument};
use crate::sanitize::sanitize;

/// One round, as the page's JSON holds it.
#[derive(Debug, Serialize)]
pub(super) struct RoundView {
    id: String,
    protocol: &'static str,
    status: &'static str,
    /// The dilemma's, item's or topic's id.
    case: String,
    rep: u32,
    a: String,
    b: String,
    judges: Vec<String>,
    /// What the round is about and how it was set up, as (label, text).
    setup: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    phases: Vec<PhaseView>,
    judgments: Vec<JudgmentView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    panel: Option<PanelView>,
    /// The filters' protocol-specific values.
    tags: RoundTags,
}

#[derive(Debug, Serialize)]
struct PhaseView {
    /// The phase's title (`Presentation`, `Cross-examination`, …).
    kind: &'static str,
    speaker: String,
    facts: String,
    text: String,
    /// A question-answer debater's private reasoning, hidden from the judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct JudgmentView {
    judge: String,
    status: String,
    /// The reading in lines (`Chose A · confidence 80 · correct`, totals, key insight).
    lines: Vec<String>,
    /// The reading as a table (the rubric, the argument trace), when it has one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    head: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rows: Vec<Vec<String>>,
    /// The judge's own words: (label, text).
    notes: Vec<(String, String)>,
    problems: Vec<String>,
    /// The raw answer when no phase holds it; else `raw_phase` points at that phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_phase: Option<usize>,
}

#[derive(Debug, Serialize)]
struct PanelView {
    lines: Vec<String>,
    rounds: Vec<PanelRoundView>,
}

#[derive(Debug, Serialize)]
struct PanelRoundView {
    number: u32,
    agreement: Option<f64>,
    /// Each disagreement: subject, severity and each judge's position.
    disputes: Vec<Dispute>,
}

/// A panel disagreement: subject, severity, and each judge's position as (judge, position).
type Dispute = (String, f64, Vec<(String, String)>);

/// The view of a round.
pub(super) fn view(round: &Round) -> RoundView {
    // A question-answer argument is shown as the judge read it: quotes checked against
    // the game and marked, private reasoning apart, cut at the word limit.
    let game = round.qa().map(|q| (GameText::of(q), q.word_limit));
    let phases: Vec<PhaseView> = round
        .phases
        .iter()
        .map(|p| phase(p, game.as_ref()))
        .collect();
    let judgments = round.judgments.iter().map(|j| judgment(j, round)).collect();
    RoundView {
        id: sanitize(&round.id),
        protocol: round.kind().as_str(),
        status: round.status.as_str(),
        case: sanitize(&round.dilemma_id),
        rep: round.repetition,
        a: sanitize(&round.team_a_model),
        b: sanitize(&round.team_b_model),
        judges: crate::analysis::figures::judges_of(round)
            .into_iter()
            .map(sanitize)
            .collect(),
        setup: setup(round),
        error: round.error.as_ref().map(|e| {
            sanitize(&format!(
                "Stopped at {} by {}: {}",
                e.phase_type.title(),
                e.model_id,
                e.message
            ))
        }),
        phases,
        judgments,
        panel: round.panel.as_ref().map(panel),
        tags: RoundTags::of(round),
    }
}

/// The facts under a phase's title: time, tokens, cost, cuts and retries.
fn facts(p: &Phase) -> String {
    let mut facts = Vec::new();
    if let Some(ms) = p.latency_ms {
        facts.push(format!("{:.1} s", ms as f64 / 1000.0));
    }
    if let (Some(i), Some(o)) = (p.input_tokens, p.output_tokens) {
        let estimated = if p.usage_estimated {
            " (estimated)"
        } else {
            ""
        };
        facts.push(format!("{i} in / {o} out tokens{estimated}"));
    }
    if let Some(c) = p.cost_usd {
        facts.push(format!("${c:.4}"));
    }
    if p.truncated {
        facts.push("cut at the token limit".into());
    }
    if p.attempts.len() > 1 {
        facts.push(format!("{} attempts", p.attempts.len()));
    }
    facts.join(" · ")
}

fn phase(p: &Phase, game: Option<&(GameText, u32)>) -> PhaseView {
    let mut view = PhaseView {
        kind: p.phase_type.title(),
        speaker: sanitize(&p.speaker()),
        facts: facts(p),
        text: sanitize(&p.response),
        thinking: None,
        error: p.error.as_deref().map(sanitize),
    };
    if let (PhaseType::Argument, Some((game, limit))) = (p.phase_type, game) {
        let shown = show_argument(&p.response, *limit as usize, game);
        view.text = sanitize(&shown.text);
        view.thinking = (!shown.thinking.trim().is_empty()).then(|| sanitize(&shown.thinking));
        if shown.cut {
            view.facts.push_str(&format!(
                "{}cut at the word limit ({} words, limit {limit})",
                if view.facts.is_empty() { "" } else { " · " },
                shown.words
            ));
        }
    }
    view
}

fn setup(round: &Round) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut put = |k: &str, v: String| out.push((k.to_string(), sanitize(&v)));
    if let Some(q) = round.qa() {
        put("format", q.format.as_str().into());
        put("level", q.level.clone());
        put("question", q.question.clone());
        put("correct answer", q.label.answer().into());
        if q.format.debaters() > 0 {
            put("debater A argues", q.assignment.answer_a.answer().into());
        }
        if q.format.debaters() > 1 {
            put("debater B argues", q.assignment.answer_b.answer().into());
        }
        for (side, d) in [("A", &q.debater_a), ("B", &q.debater_b)] {
            if d.verified_quotes + d.unverified_quotes + d.word_limit_violations > 0 {
                put(
                    &format!("debater {side}'s quotes"),
                    format!(
                        "{} verified, {} unverified; {} arguments cut at the word limit",
                        d.verified_quotes, d.unverified_quotes, d.word_limit_violations
                    ),
                );
            }
        }
    }
    if let Some(s) = round.structured() {
        put("proposition", s.topic.proposition.clone());
        if let Some(c) = &s.topic.context {
            put("context", c.clone());
        }
        for side in Side::BOTH {
            let r = s.side(side);
            for a in &r.arguments {
                put(
                    &format!("{} {}", side.as_str(), a.id),
                    format!("{} — {} (evidence: {})", a.claim, a.reasoning, a.evidence),
                );
            }
            if let Some(c) = &r.closing {
                put(
                    &format!("{} closing", side.as_str()),
                    format!(
                        "{} (concedes: {}; unrebutted: {}{})",
                        c.final_position,
                        if c.concessions.is_empty() {
                            "none".into()
                        } else {
                            c.concessions.join(", ")
                        },
                        if c.unrebutted_arguments.is_empty() {
                            "none".into()
                        } else {
                            c.unrebutted_arguments.join(", ")
                        },
                        if c.position_shifted {
                            "; position shifted"
                        } else {
                            ""
                        }
                    ),
                );
            }
            for v in &r.violations {
                put(&format!("{} violation", side.as_str()), v.clone());
            }
        }
    }
    out
}

fn judgment(j: &Judgment, round: &Round) -> JudgmentView {
    let judge = match &j.persona_id {
        Some(p) => format!("{p} ({})", j.judge_model),
        None => j.judge_model.clone(),
    };
    let status = serde_json::to_value(j.parse_status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let (mut lines, mut head, mut rows) = (Vec::new(), Vec::new(), Vec::new());
    let show = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v}"));
    match &j.reading {
        Reading::Rubric { team_a, team_b } => {
            head = vec!["criterion".into(), "Team A".into(), "Team B".into()];
            for c in Criterion::ALL {
                rows.push(vec![
                    c.label().into(),
                    show(team_a.get(c)),
                    show(team_b.get(c)),
                ]);
            }
            rows.push(vec![
                "total".into(),
                show(team_a.total()),
                show(team_b.total()),
            ]);
        }
        Reading::Choice(choice) => lines.push(match (choice, round.qa()) {
            (Some(c), Some(q)) => {
                let right = match q.assignment.correct_side {
                    Some(side) if side == c.side => "correct",
                    _ => "incorrect",
                };
                format!(
                    "Chose {:?} ({}) · confidence {} · {right}",
                    c.side,
                    q.answer(c.side).as_str(),
                    show(c.confidence)
                )
            }
            (Some(c), None) => format!("Chose {:?}", c.side),
            (None, _) => "Choice: not read".into(),
        }),
        Reading::Label(label) => lines.push(match (label, round.qa()) {
            (Some(l), Some(q)) => format!(
                "Label: {} · {}",
                l.as_str(),
                if *l == q.label {
                    "correct"
                } else {
                    "incorrect"
                }
            ),
            (Some(l), None) => format!("Label: {}", l.as_str()),
            (None, _) => "Label: not read".into(),
        }),
        Reading::Verdict(None) => lines.push("Verdict: not read".into()),
        Reading::Verdict(Some(v)) => {
            let winner = match v.margin() {
                Some(m) => match m.winner() {
                    Some(side) => format!(
                        "{} wins ({}, by {:.2})",
                        side.as_str(),
                        m.band.label(),
                        m.gap
                    ),
                    None => format!("evenly matched (by {:.2})", m.gap),
                },
                None => "no winner read".into(),
            };
            lines.push(format!(
                "Pro {} · Con {} · {winner}",
                show(v.pro_total),
                show(v.con_total)
            ));
            for (label, text) in [
                ("Key insight", &v.key_insight),
                ("Recommendation", &v.recommendation),
            ] {
                if !text.trim().is_empty() {
                    lines.push(format!("{label}: {text}"));
                }
            }
            for q in &v.unresolved_questions {
                lines.push(format!("Open question: {q}"));
            }
            head = [
                "argument",
                "claim",
                "standing",
                "logic",
                "evidence",
                "responsiveness",
                "honesty",
                "fallacies",
                "reason",
            ]
            .map(String::from)
            .to_vec();
            let claim = |id: &str| claim(round.structured(), id);
            for a in &v.assessments {
                rows.push(vec![
                    a.arg_id.clone(),
                    claim(&a.arg_id),
                    a.standing.map_or("–".into(), |s| s.as_str().into()),
                    show(a.logic),
                    show(a.evidence),
                    show(a.responsiveness),
                    show(a.honesty),
                    a.fallacies
                        .iter()
                        .map(|f| f.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    a.reason.clone(),
                ]);
            }
        }
    }
    let notes = [
        ("Team A", &j.team_a_justification),
        ("Team B", &j.team_b_justification),
        ("Overall", &j.overall_analysis),
    ]
    .into_iter()
    .filter(|(_, t)| !t.trim().is_empty())
    .map(|(l, t)| (l.to_string(), sanitize(t)))
    .collect();
    lines.push(format!(
        "What the judge saw: {}",
        JudgeView::describe(j.view.as_ref())
    ));
    // The raw answer is usually a judging phase's response: point at it rather than repeat it.
    let raw_phase = round.phases.iter().position(|p| {
        p.phase_type.is_judging() && !j.raw_response.is_empty() && p.response == j.raw_response
    });
    JudgmentView {
        judge: sanitize(&judge),
        status,
        lines: lines.iter().map(|l| sanitize(l)).collect(),
        head,
        rows: rows
            .into_iter()
            .map(|r| r.iter().map(|c| sanitize(c)).collect())
            .collect(),
        notes,
        problems: j.problems.iter().map(|p| sanitize(p)).collect(),
        raw: (raw_phase.is_none() && !j.raw_response.is_empty()).then(|| sanitize(&j.raw_response)),
        raw_phase,
    }
}

/// An argument's claim, by its id, from the debate's record.
fn claim(setup: Option<&StructuredSetup>, id: &str) -> String {
    setup
        .into_iter()
        .flat_map(|s| Side::BOTH.map(|side| s.side(side)))
        .flat_map(|r| &r.arguments)
        .find(|a| a.id == id)
        .map_or(String::new(), |a| a.claim.clone())
}

fn panel(p: &PanelRecord) -> PanelView {
    let pct = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{:.0}%", v * 100.0));
    let mut lines = vec![format!(
        "{} judges; agreement {} after the independent evaluations, {} after the last round; {}",
        p.judges.len(),
        pct(p.initial_agreement),
        pct(p.final_agreement),
        if p.converged {
            "converged"
        } else {
            "did not converge"
        }
    )];
    if let Some(a) = &p.aggregate {
        let scores: Vec<String> = a
            .scores
            .iter()
            .map(|(k, v)| format!("{k} {v:.1}"))
            .collect();
        lines.push(sanitize(&format!(
            "Aggregate of {} judges: verdict {} · confidence {} · {}",
            a.judges,
            a.verdict.as_deref().unwrap_or("–"),
            a.confidence.map_or("–".into(), |c| format!("{c:.0}")),
            scores.join(", ")
        )));
    }
    PanelView {
        lines,
        rounds: p
            .rounds
            .iter()
            .map(|r| PanelRoundView {
                number: r.number,
                agreement: r.agreement.as_ref().map(|a| a.overall),
                disputes: r
                    .disagreements
                    .iter()
                    .map(|d| {
                        (
                            sanitize(&d.subject),
                            d.severity,
                            d.positions
                                .iter()
                                .map(|(who, pos)| (sanitize(who), sanitize(pos)))
                                .collect(),
                        )
                    })
                    .collect(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RoundFilter, Store};

    fn fixture(name: &str, id: &str) -> Round {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/stored-v0")
            .join(name);
        let (rounds, _) = Store::open(&dir)
            .unwrap()
            .load_rounds(&RoundFilter::default())
            .unwrap();
        rounds.into_iter().find(|r| r.id == id).unwrap()
    }

    #[test]
    fn a_debaters_argument_reads_as_the_judge_saw_it_with_quotes_marked() {
        let round = fixture(
            "qa_debate",
            "qa-sample-0__debate__sim-alpha__vs__sim-beta__judge__sim-gamma__r1",
        );
        let v = view(&round);
        let argument = &v.phases[0];
        assert!(
            argument
                .text
                .contains("says <v_quote>The otter is named Pablo</v_quote>, which"),
            "{}",
            argument.text
        );
        assert!(
            v.phases[2].text.contains("<u_quote>Rule1: If the heron"),
            "{}",
            v.phases[2].text
        );
        assert!(!argument.text.contains("<thinking>"), "{}", argument.text);
        assert!(
            argument
                .thinking
                .as_deref()
                .is_some_and(|t| t.contains("My reading"))
        );
        assert_eq!(v.tags.qa, Some("correct"));
        let j = &v.judgments[0];
        assert!(
            j.lines[0].starts_with("Chose A (proved) · confidence 95 · correct"),
            "{:?}",
            j.lines
        );
        // The raw answer is the judgment phase's: pointed at, not repeated.
        let at = j.raw_phase.unwrap();
        assert!(round.phases[at].phase_type.is_judging());
        assert!(j.raw.is_none());
        assert!(v.setup.iter().any(|(k, _)| k == "question"));
    }

    #[test]
    fn a_structured_verdict_is_the_argument_trace_with_claims_and_standings() {
        let round = fixture(
            "structured_debate",
            "microservices_day_one__sim-alpha__vs__sim-beta__r1",
        );
        let v = view(&round);
        assert_eq!(
            v.tags.standings,
            ["PARTIALLY_UPHELD", "REFUTED", "UNCERTAIN"]
        );
        let j = &v.judgments[0];
        assert_eq!(j.head[0], "argument");
        assert!(!j.rows.is_empty());
        assert!(
            j.rows.iter().all(|r| !r[1].is_empty()),
            "every assessed argument shows its claim: {:?}",
            j.rows
        );
        assert!(v.setup.iter().any(|(k, _)| k == "proposition"));
    }

    #[test]
    fn an_ethics_bowl_judgment_is_its_rubric_and_a_panel_its_deliberation() {
        let round = fixture("ethics_bowl", "borrowed_voice__sim-alpha__vs__sim-beta__r1");
        let v = view(&round);
        let j = &v.judgments[0];
        assert_eq!(j.head, ["criterion", "Team A", "Team B"]);
        assert_eq!(j.rows.len(), Criterion::ALL.len() + 1);
        assert_eq!(j.rows.last().unwrap()[0], "total");
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stored-v0/panel");
        let (rounds, _) = Store::open(&dir)
            .unwrap()
            .load_rounds(&RoundFilter::default())
            .unwrap();
        let judged = rounds.iter().find(|r| r.panel.is_some()).unwrap();
        let panel = view(judged).panel.unwrap();
        assert!(
            panel.lines[0].contains("judges; agreement"),
            "{:?}",
            panel.lines
        );
        assert!(!panel.rounds.is_empty());
    }
}
