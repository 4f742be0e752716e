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
    Criterion, JudgeView, Judgment, PanelRecord, Phase, PhaseType, ProtocolKind, Reading, Round,
    RoundStatus, Side, StructuredSetup, Team,
};
use crate::protocols::qa_debate::quotes::{GameText, show_argument};
use crate::sanitize::sanitize;

/// One round, as the page's JSON holds it.
#[derive(Debug, Serialize)]
pub(super) struct RoundView {
    id: String,
    protocol: &'static str,
    status: &'static str,
    /// The status as the round list names it: `complete`, `needs review`, `failed` (stopped
    /// by an error) or `incomplete`.
    state: &'static str,
    /// The result at a glance, for the round list; a complete round's only, so a round with
    /// a failure or a judgment to review never shows a score.
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
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

/// A round's result as the list shows it: the Ethics Bowl's margin (`A +3`, `=`), the
/// question-answer judge right or wrong (`✓ right`, `✗ wrong`), the structured debate's
/// winner (`Pro wins`, `draw`).
#[derive(Debug, Serialize, PartialEq)]
pub(super) struct Outcome {
    /// What the list shows.
    pub(super) text: String,
    /// Its colour: `good` (Team A ahead, Pro won, the judge right), `bad` (Team B ahead,
    /// Con won, the judge wrong) or `even`.
    pub(super) class: &'static str,
    /// What it means, as a tooltip.
    pub(super) title: String,
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
        state: state(round),
        outcome: outcome(round),
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

/// The status as the round list names it.
fn state(round: &Round) -> &'static str {
    match round.status {
        RoundStatus::Complete => "complete",
        RoundStatus::NeedsReview => "needs review",
        RoundStatus::Incomplete
            if round.error.is_some() || round.phases.iter().any(|p| p.error.is_some()) =>
        {
            "failed"
        }
        RoundStatus::Incomplete => "incomplete",
    }
}

/// A margin as the TUI's matrix shows it: `=` for a tie, else signed (`+3`, `-2`, `+2.5`).
use crate::domain::margin_text as signed;

/// The round's result (see [`Outcome`]): a complete round's deciding judgment (the panel's
/// verdict when a panel judged, else the first usable judgment), as the TUI's matrix cell
/// reads it; none for any other round, or when the judgment holds no result.
pub(super) fn outcome(round: &Round) -> Option<Outcome> {
    if round.status != RoundStatus::Complete {
        return None;
    }
    let deciding = match round.panel.as_ref().and_then(|p| p.verdict.as_ref()) {
        Some(panel) => panel,
        None => round.judgments.iter().find(|j| j.is_usable())?,
    };
    // Totals to one place at most (a panel's are means): `57`, `52.6`.
    let show = |v: Option<f64>| {
        v.map_or("–".to_string(), |v| {
            let text = format!("{v:.1}");
            text.strip_suffix(".0").map_or(text.clone(), str::to_string)
        })
    };
    match round.kind() {
        ProtocolKind::EthicsBowl => {
            let m = deciding.margin()?;
            let totals = |team| deciding.scores(team).and_then(|s| s.total());
            Some(Outcome {
                text: match signed(m).as_str() {
                    "=" => "=".into(),
                    s => format!("A {s}"),
                },
                class: if m > 0.0 {
                    "good"
                } else if m < 0.0 {
                    "bad"
                } else {
                    "even"
                },
                title: format!(
                    "Team A's total minus Team B's: {} − {} (out of 70)",
                    show(totals(Team::A)),
                    show(totals(Team::B))
                ),
            })
        }
        ProtocolKind::QaDebate => {
            let setup = round.qa()?;
            let right = crate::protocols::qa_debate::judge_correct(setup, deciding);
            let confidence = deciding
                .choice()
                .and_then(|c| c.confidence)
                .map(|c| format!(" (confidence {c:.0})"))
                .unwrap_or_default();
            Some(match right {
                Some(true) => Outcome {
                    text: "✓ right".into(),
                    class: "good",
                    title: format!("The judge chose the correct answer{confidence}"),
                },
                Some(false) => Outcome {
                    text: "✗ wrong".into(),
                    class: "bad",
                    title: format!("The judge chose the wrong answer{confidence}"),
                },
                None => Outcome {
                    text: "○".into(),
                    class: "even",
                    title: "No correct answer to score the judge by".into(),
                },
            })
        }
        ProtocolKind::StructuredDebate => {
            let v = deciding.verdict()?;
            let m = v.margin()?;
            let (text, class) = match m.winner() {
                Some(Side::Pro) => ("Pro wins", "good"),
                Some(Side::Con) => ("Con wins", "bad"),
                None => ("draw", "even"),
            };
            Some(Outcome {
                text: text.into(),
                class,
                title: format!(
                    "Pro {} · Con {} ({}, by {:.2})",
                    show(v.pro_total),
                    show(v.con_total),
                    m.band.label(),
                    m.gap
                ),
            })
        }
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
        facts.push(format!(
            "{i} in{} / {o} out tokens{estimated}",
            p.cache_note()
        ));
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
    #[test]
    fn the_list_shows_a_complete_round_s_result_and_never_a_failed_round_s_score() {
        // The Ethics Bowl: Team A's margin, signed.
        let round = fixture("ethics_bowl", "borrowed_voice__sim-beta__vs__sim-alpha__r1");
        let v = view(&round);
        assert_eq!(v.state, "complete");
        let o = v.outcome.unwrap();
        assert_eq!((o.text.as_str(), o.class), ("A -3", "bad"));
        assert!(o.title.contains("54 − 57"), "{}", o.title);
        assert_eq!(signed(0.0), "=");
        assert_eq!(signed(3.0), "+3");
        assert_eq!(signed(-2.5), "-2.5");

        // The same round stopped by an error: failed, its judgment's score not shown.
        let mut failed = round.clone();
        failed.status = RoundStatus::Incomplete;
        failed.phases[1].error = Some("timed out".into());
        let v = view(&failed);
        assert_eq!(v.state, "failed");
        assert!(v.outcome.is_none());
        // To be reviewed: no score either.
        let mut review = round.clone();
        review.status = RoundStatus::NeedsReview;
        let v = view(&review);
        assert_eq!(v.state, "needs review");
        assert!(v.outcome.is_none());

        // The question-answer debate: the judge right or wrong.
        let round = fixture(
            "qa_debate",
            "qa-sample-0__debate__sim-alpha__vs__sim-beta__judge__sim-gamma__r1",
        );
        let o = view(&round).outcome.unwrap();
        assert_eq!((o.text.as_str(), o.class), ("✓ right", "good"));
        let mut wrong = round.clone();
        if let Some(q) = wrong.qa_mut() {
            q.assignment.correct_side = q.assignment.correct_side.map(|s| match s {
                Team::A => Team::B,
                Team::B => Team::A,
            });
        }
        let o = view(&wrong).outcome.unwrap();
        assert_eq!((o.text.as_str(), o.class), ("✗ wrong", "bad"));

        // The structured debate: the winner (the fixture's rounds need review: taken as
        // complete here).
        let mut round = fixture(
            "structured_debate",
            "microservices_day_one__sim-alpha__vs__sim-beta__r1",
        );
        round.status = RoundStatus::Complete;
        for j in &mut round.judgments {
            j.parse_status = crate::domain::ParseStatus::Parsed;
            // The fixture's judge left Con's total unread.
            if let Reading::Verdict(Some(v)) = &mut j.reading {
                v.con_total = Some(8.5);
            }
        }
        let v = view(&round);
        let o = v.outcome.unwrap();
        let winner = round.judgments[0].verdict().and_then(|v| v.winner());
        let expected = match winner {
            Some(Side::Pro) => "Pro wins",
            Some(Side::Con) => "Con wins",
            None => "draw",
        };
        assert_eq!(o.text, expected);
        assert_eq!(winner, Some(Side::Con), "5.5 against 8.5");
        assert!(o.title.starts_with("Pro 5.5 · Con 8.5"), "{}", o.title);
    }
}
