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

/// What closes a panel judge's prompt, after the exchange (and the deliberation's context):
/// the instructions and the answer format come before the exchange.
const REMINDER: &str = "Follow the instructions above, and answer with one JSON object in the \
format given above.";

/// The material's shared part as a paragraph (a material shared whole, a baseline's
/// question, ends without a blank line).
fn material_head(material: &Layered) -> String {
    format!("{}\n\n", material.stable.trim_end())
}

/// `head`, `rubric` and `tail` as one prompt, split for a provider's cache: the rubric's
/// text joins the shared part when it is the same in every round on the case
/// ([`Rubric::shared`]), and the round's own part otherwise.
fn with_rubric(head: String, rubric: String, tail: String, shared: bool) -> Layered {
    if shared {
        Layered::new(format!("{head}{rubric}"), tail)
    } else {
        Layered::new(head, format!("{rubric}{tail}"))
    }
}

/// Round 0: the judge evaluates alone. The task, the material's shared part, the
/// instructions and the answer format first; then the material's own part (the exchange)
/// and a reminder, when the material has one.
pub fn evaluation_layers(brief: &PanelBrief) -> Layered {
    let material = &brief.material;
    let tail = if material.own.is_empty() {
        String::new()
    } else {
        format!("\n\n{}\n\n{REMINDER}", material.own.trim_end())
    };
    with_rubric(
        format!(
            "## Your task: evaluate independently\n\n{}",
            material_head(material)
        ),
        format!(
            "{}\n\n{}",
            brief.rubric.instructions,
            output_format(&brief.rubric)
        ),
        tail,
        brief.rubric.shared,
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

/// A deliberation round: the criteria and the answer format, the exchange again, the
/// context, the request to update and a reminder; in layers, shared as
/// [`evaluation_layers`] is.
pub fn deliberation_layers(brief: &PanelBrief, context: &DeliberationContext<'_>) -> Layered {
    let material = &brief.material;
    let exchange = if material.own.is_empty() {
        String::new()
    } else {
        format!("{}\n\n", material.own.trim_end())
    };
    with_rubric(
        format!(
            "## Your task: reconsider your evaluation with the panel\n\n{material}\
             Criteria (scored {lo} to {hi}):\n{criteria}\n\n",
            material = material_head(material),
            lo = brief.rubric.scale.0,
            hi = brief.rubric.scale.1,
            criteria = brief.rubric.criteria,
        ),
        output_format(&brief.rubric),
        format!(
            "\n\n{exchange}{context}\n\n\
             Give your updated evaluation. Updating on good evidence is expected and is no \
             weakness; where you hold your position on a disputed point, cite the transcript \
             (quote it) to show why.\n\n{REMINDER}",
            context = context_text(context),
        ),
        brief.rubric.shared,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Finding;

    fn brief(own: &str, shared: bool) -> PanelBrief {
        PanelBrief {
            material: Layered::new("The case.\n\n", own),
            rubric: Rubric {
                dimensions: vec!["a.logic".into()],
                scale: (1.0, 10.0),
                verdicts: vec!["a".into(), "b".into()],
                level_verdict: None,
                labels: Vec::new(),
                criteria: "- logic".into(),
                instructions: "Score the logic.".into(),
                answer_fields: Vec::new(),
                shared,
            },
        }
    }

    fn no_context<'a>() -> DeliberationContext<'a> {
        DeliberationContext {
            round: 1,
            agreement: Agreement {
                overall: 0.5,
                verdict: 0.5,
                dimension: 0.5,
                judges: 2,
            },
            threshold: 0.8,
            disagreements: &[],
            own: None,
            others: Vec::new(),
        }
    }

    #[test]
    fn the_rubric_and_format_come_before_the_exchange_and_a_reminder_after_it() {
        let shared = evaluation_layers(&brief("=== EXCHANGE ===\n", true));
        let text = shared.text();
        let order = [
            "## Your task",
            "The case.",
            "Score the logic.",
            "Answer with one JSON object",
            "=== EXCHANGE ===",
            REMINDER,
        ];
        let at: Vec<usize> = order.iter().map(|p| text.find(p).unwrap()).collect();
        assert!(at.is_sorted(), "{text}");
        assert!(
            text.ends_with(&format!("=== EXCHANGE ===\n\n{REMINDER}")),
            "{text}"
        );
        // Shared, the rubric ends the shared part; named per round, it opens the round's own.
        assert!(shared.stable.ends_with("}") && shared.own.starts_with("\n\n=== EXCHANGE"));
        let apart = evaluation_layers(&brief("=== EXCHANGE ===\n", false));
        assert_eq!(apart.text(), text);
        assert!(apart.stable.ends_with("The case.\n\n"));
        assert!(apart.own.starts_with("Score the logic."));

        let deliberation = deliberation_layers(&brief("=== EXCHANGE ===", true), &no_context());
        let text = deliberation.text();
        let order = [
            "The case.",
            "Criteria (scored 1 to 10):\n- logic",
            "Answer with one JSON object",
            "=== EXCHANGE ===",
            "## Deliberation, round 1",
            "Give your updated evaluation.",
            REMINDER,
        ];
        let at: Vec<usize> = order.iter().map(|p| text.find(p).unwrap()).collect();
        assert!(at.is_sorted(), "{text}");
        assert!(deliberation.own.starts_with("\n\n=== EXCHANGE"), "{text}");
        let apart = deliberation_layers(&brief("=== EXCHANGE ===", false), &no_context());
        assert_eq!(apart.text(), text);
        assert!(apart.own.starts_with("Answer with one JSON object"));
    }

    #[test]
    fn a_material_shared_whole_ends_with_the_answer_format() {
        let mut baseline = brief("", true);
        baseline.material = Layered::shared("Which answer is correct?");
        let l = evaluation_layers(&baseline);
        assert_eq!(l.own, "");
        assert!(
            l.stable
                .contains("Which answer is correct?\n\nScore the logic.\n\n")
        );
        assert!(l.stable.ends_with("}") && !l.stable.contains(REMINDER));
    }

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
            disagreements: &disputes,
            own: Some(&me),
            others: vec![OtherJudge {
                persona_id: "coach",
                evaluation: &other,
            }],
            ..no_context()
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
