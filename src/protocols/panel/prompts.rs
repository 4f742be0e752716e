//! What panel judges are asked: the independent evaluation, and the deliberation prompt
//! with the other judges' positions, confidences, rationales and the findings on each
//! disputed dimension.

use crate::config::PanelJudgeConfig;
use crate::domain::{Agreement, Disagreement, Evaluation};
use crate::protocols::judging::schema;
use crate::protocols::layered::Layered;
use crate::protocols::quoting::quoted;

use super::{PanelBrief, Rubric, show_score};

/// The system prompt: the persona, then the duty every judge shares.
pub fn system_prompt(judge: &PanelJudgeConfig, panel_size: usize) -> String {
    format!(
        "You are one of {panel_size} judges on a panel. Your perspective: {persona}\n\n\
         Judge the quality of reasoning, not agreement with any conclusion. Ground every \
         finding in what the participants actually wrote.",
        persona = judge.persona.trim()
    )
}

/// The answer format every panel judge uses: the schema its requests carry
/// ([`Rubric::answer_schema`]), described.
pub fn output_format(rubric: &Rubric) -> String {
    format!(
        "Answer with one JSON object and nothing else, in exactly this format:\n{}",
        schema::describe(&rubric.answer_schema())
    )
}

/// Round 0: the judge evaluates alone. In layers: the task and the material's shared part
/// first; from the material's own part on, the round's.
pub fn evaluation_layers(brief: &PanelBrief) -> Layered {
    Layered::new(
        format!(
            "## Your task: evaluate independently\n\n{}",
            brief.material.stable
        ),
        format!(
            "{material}\n\n{instructions}\n\n{format}",
            material = brief.material.own,
            instructions = brief.rubric.instructions,
            format = output_format(&brief.rubric),
        ),
    )
}

/// Another judge's position, as a deliberating judge reads it.
pub struct OtherJudge<'a> {
    /// Its persona id.
    pub persona_id: &'a str,
    /// Its evaluation in force.
    pub evaluation: &'a Evaluation,
}

/// What a deliberating judge is told.
pub struct DeliberationContext<'a> {
    /// The round about to be held (1 for the first deliberation).
    pub round: u32,
    /// The panel's agreement after the previous round.
    pub agreement: Agreement,
    /// The threshold it is trying to reach.
    pub threshold: f64,
    /// The disputes, most severe first.
    pub disagreements: &'a [Disagreement],
    /// This judge's evaluation in force, when it has one.
    pub own: Option<&'a Evaluation>,
    /// The others' positions.
    pub others: Vec<OtherJudge<'a>>,
}

/// An evaluation in a few lines: verdict, confidence, scores, labels, rationale.
fn position(e: &Evaluation) -> String {
    let scores: Vec<String> = e
        .scores
        .iter()
        .map(|(d, v)| format!("{d} {}", show_score(*v)))
        .collect();
    let labels = if e.labels.is_empty() {
        String::new()
    } else {
        let labels: Vec<String> = e.labels.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!("\nCalls: {}", labels.join(", "))
    };
    format!(
        "Verdict: {}; confidence: {}\nScores: {}{labels}\nRationale: {}",
        e.verdict.as_deref().unwrap_or("none"),
        e.confidence
            .map_or("not given".into(), |c| format!("{c:.2}")),
        scores.join(", "),
        if e.rationale.is_empty() {
            "(none given)".to_string()
        } else {
            // Quoted (see `quoting`): a judge's reasons cannot add a heading or a judge.
            format!("\n{}", quoted(&e.rationale, &[]))
        }
    )
}

/// The deliberation text itself (what changes from one deliberation round to the next).
pub fn context_text(c: &DeliberationContext<'_>) -> String {
    let mut out = format!(
        "## Deliberation, round {round}\n\nThe panel's agreement is {agreement:.2} (verdicts {verdict:.2}, \
         scores {dimension:.2}); it deliberates until it reaches {threshold:.2}.\n\n### What is disputed, most severe first\n",
        round = c.round,
        agreement = c.agreement.overall,
        verdict = c.agreement.verdict,
        dimension = c.agreement.dimension,
        threshold = c.threshold,
    );
    for (i, d) in c.disagreements.iter().enumerate() {
        let positions: Vec<String> = d
            .positions
            .iter()
            .map(|(who, v)| format!("{who}: {v}"))
            .collect();
        out.push_str(&format!(
            "{}. {} (severity {:.2}): {}\n",
            i + 1,
            d.subject,
            d.severity,
            positions.join("; ")
        ));
    }
    out.push_str("\n### Your evaluation so far\n");
    match c.own {
        Some(e) => out.push_str(&position(e)),
        None => out.push_str("You have not yet given an evaluation the panel could read."),
    }
    out.push_str("\n\n### The other judges\n");
    for other in &c.others {
        out.push_str(&format!(
            "\n#### {}\n{}\n",
            other.persona_id,
            position(other.evaluation)
        ));
        let relevant: Vec<String> = other
            .evaluation
            .findings
            .iter()
            .filter(|f| c.disagreements.iter().any(|d| d.subject == f.dimension))
            .map(|f| format!("- {}:\n{}", f.dimension, quoted(&f.finding, &[])))
            .collect();
        if !relevant.is_empty() {
            out.push_str(&format!(
                "Findings on disputed dimensions:\n{}\n",
                relevant.join("\n")
            ));
        }
    }
    out
}

/// A deliberation round: the exchange again, the context, and the request to update; in
/// layers, shared as [`evaluation_layers`] is.
pub fn deliberation_layers(brief: &PanelBrief, context: &DeliberationContext<'_>) -> Layered {
    let stable = format!(
        "## Your task: reconsider your evaluation with the panel\n\n{}",
        brief.material.stable
    );
    let own = format!(
        "{material}\n\n\
         Criteria (scored {lo} to {hi}):\n{criteria}\n\n{context}\n\n\
         Give your updated evaluation. Updating on good evidence is expected and is no \
         weakness; where you hold your position on a disputed point, cite the transcript \
         (quote it) to show why.\n\n{format}",
        material = brief.material.own,
        lo = brief.rubric.scale.0,
        hi = brief.rubric.scale.1,
        criteria = brief.rubric.criteria,
        context = context_text(context),
        format = output_format(&brief.rubric),
    );
    Layered::new(stable, own)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Finding;

    #[test]
    fn context_names_disputes_positions_and_relevant_findings() {
        let me = Evaluation {
            scores: [("team_a.consistency".to_string(), 8.0)].into(),
            verdict: Some("team_a".into()),
            confidence: Some(0.8),
            ..Default::default()
        };
        let other = Evaluation {
            scores: [("team_a.consistency".to_string(), 4.0)].into(),
            verdict: Some("team_b".into()),
            confidence: Some(0.6),
            findings: vec![
                Finding {
                    dimension: "team_a.consistency".into(),
                    finding: "contradicted itself on the parallel case".into(),
                },
                Finding {
                    dimension: "team_b.framework_awareness".into(),
                    finding: "not disputed".into(),
                },
            ],
            rationale: "B was steadier".into(),
            ..Default::default()
        };
        let disputes = vec![
            Disagreement {
                subject: "verdict".into(),
                severity: 1.0,
                positions: vec![
                    ("me".into(), "team_a".into()),
                    ("coach".into(), "team_b".into()),
                ],
            },
            Disagreement {
                subject: "team_a.consistency".into(),
                severity: 4.0 / 9.0,
                positions: vec![("me".into(), "8".into()), ("coach".into(), "4".into())],
            },
        ];
        let text = context_text(&DeliberationContext {
            round: 1,
            agreement: Agreement {
                overall: 0.5,
                verdict: 0.5,
                dimension: 0.5,
                judges: 2,
            },
            threshold: 0.8,
            disagreements: &disputes,
            own: Some(&me),
            others: vec![OtherJudge {
                persona_id: "coach",
                evaluation: &other,
            }],
        });
        assert!(
            text.contains("1. verdict (severity 1.00): me: team_a; coach: team_b"),
            "{text}"
        );
        assert!(text.contains("2. team_a.consistency (severity 0.44): me: 8; coach: 4"));
        assert!(text.contains("#### coach\nVerdict: team_b; confidence: 0.60"));
        assert!(text.contains("- team_a.consistency:\n│ contradicted itself"));
        assert!(
            !text.contains("not disputed"),
            "only findings on disputed dimensions"
        );
        assert!(text.contains("Scores: team_a.consistency 8"));
    }
}
