//! The tournament summary (`summary.json`): scores by model, by model and role, by dilemma,
//! and the cross-model matrix; answers cut at the token limit and estimated usage, in all
//! and by model. It is built from the report's own tables, so the two never
//! disagree. One usable judgment (parsed or corrected by hand) is one observation; rounds
//! that need review or are incomplete count only in the tallies.

use std::collections::BTreeMap;

use serde::Serialize;

use super::calls::{CallCounts, calls_by_model};
use super::qa::Proportion;
use super::stats::statistic::Statistic;
use super::structured::{SideAdvantage, structured_figures};
use super::tables::{Cell, dilemma_difficulty, model_comparison};
use crate::domain::{ProtocolKind, QaFormat, Reading, Round, RoundError, RoundStatus};

/// An incomplete round and what stopped it, so the end of a run and a script reading
/// `summary.json` can say why without opening round files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unfinished {
    /// The round.
    pub round_id: String,
    /// The failure that stopped it; none when it was stopped before a call failed (Ctrl-C,
    /// the budget).
    pub error: Option<RoundError>,
}

/// A model in one role.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleSummary {
    /// Team total (out of 70).
    pub total: Cell,
    /// Each criterion (out of 10).
    pub criteria: BTreeMap<String, Cell>,
}

/// A model over the whole tournament.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Team total over both roles.
    pub total: Cell,
    /// As Team A, when it presented.
    pub presenting: Option<RoleSummary>,
    /// As Team B, when it responded.
    pub responding: Option<RoleSummary>,
}

/// The whole summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Rounds of the tournament: stored, plus those not started.
    pub rounds: usize,
    /// Rounds complete.
    pub complete: usize,
    /// Rounds whose judgments need review.
    pub needs_review: usize,
    /// Rounds started but not finished.
    pub incomplete: usize,
    /// Rounds of the schedule with nothing stored yet.
    pub not_started: usize,
    /// Each incomplete round and what stopped it.
    pub unfinished: Vec<Unfinished>,
    /// Usable judgments.
    pub judgments: usize,
    /// Prompt and answer tokens of every stored phase.
    pub tokens: (u64, u64),
    /// Estimated dollars of every stored phase with prices.
    pub cost_usd: f64,
    /// Of the prompt tokens, those a provider's prompt cache served.
    pub cached_input_tokens: u64,
    /// What prompt caching saved on the phases with prices, in dollars (see
    /// [`crate::domain::Phase::cache_saved_usd`]).
    pub cache_saved_usd: f64,
    /// Answers reused from the response cache instead of a call (see
    /// docs/response-cache.md): not new samples, and not in `tokens` or `cost_usd`.
    #[serde(skip_serializing_if = "is_zero")]
    pub reused_from_cache: usize,
    /// The prompt and answer tokens the calls behind the reused answers used when they were
    /// made (spent then, not in this folder's `tokens`).
    #[serde(skip_serializing_if = "no_tokens")]
    pub reused_tokens: (u64, u64),
    /// Whether `cost_usd` leaves out models without prices (see `unpriced_models`).
    pub cost_is_partial: bool,
    /// Models that answered but have no price, so their calls are not in `cost_usd`.
    pub unpriced_models: Vec<String>,
    /// The same, by the model that answered (debating and judging); `null` for a model
    /// without a price.
    pub cost_usd_by_model: BTreeMap<String, Option<f64>>,
    /// Answers of every model cut at the output-token limit.
    pub truncated_phases: usize,
    /// Answers of every model whose usage the server did not report (estimated).
    pub estimated_usage_phases: usize,
    /// Whether `tokens` and `cost_usd` are estimates in part (some usage was estimated).
    pub usage_estimated: bool,
    /// By the model that answered (debating and judging): answered calls, answers cut at
    /// the token limit, and answers with estimated usage.
    pub calls_by_model: BTreeMap<String, CallCounts>,
    /// Ethics Bowl: by model.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelSummary>,
    /// Ethics Bowl: mean team total by dilemma.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub dilemmas: BTreeMap<String, Cell>,
    /// Ethics Bowl: Team A's margin (A total − B total) by Team A then Team B.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub matrix: BTreeMap<String, BTreeMap<String, Cell>>,
    /// Question-answer: judge accuracy by format (debate and each baseline), with its
    /// Wilson 95% interval.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub qa_accuracy: BTreeMap<QaFormat, Proportion>,
    /// Question-answer: the same for each judge, over every level.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub qa_accuracy_by_judge: BTreeMap<String, BTreeMap<QaFormat, Proportion>>,
    /// Structured debate: wins and totals by side, by model.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub structured_models: BTreeMap<String, StructuredSummary>,
    /// Structured debate: Pro against Con over the tournament.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_sides: Option<SideAdvantage>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn no_tokens(t: &(u64, u64)) -> bool {
    *t == (0, 0)
}

/// A structured-debate model: what its row of the report says, without the argument
/// details.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructuredSummary {
    /// Judgments of its debates.
    pub judgments: usize,
    /// Wins (ahead or clearly ahead).
    pub wins: usize,
    /// Draws (evenly matched).
    pub draws: usize,
    /// Wins plus half the draws, over the judgments with a result, with its 95% interval
    /// from resampling rounds (n counts rounds).
    pub win_rate: Statistic,
    /// Its side total when it argued Pro.
    pub pro_total: Cell,
    /// Its side total when it argued Con.
    pub con_total: Cell,
}

/// The structured-debate part, from the report's own figures.
fn structured_parts(
    rounds: &[Round],
) -> (BTreeMap<String, StructuredSummary>, Option<SideAdvantage>) {
    let Some(f) = structured_figures(rounds) else {
        return (BTreeMap::new(), None);
    };
    let models = f
        .models
        .into_iter()
        .filter(|m| !m.model.is_empty())
        .map(|m| {
            (
                m.model,
                StructuredSummary {
                    judgments: m.judgments,
                    wins: m.wins,
                    draws: m.draws,
                    win_rate: m.win_rate,
                    pro_total: m.pro_total,
                    con_total: m.con_total,
                },
            )
        })
        .collect();
    (models, Some(f.side))
}

/// The round with what [`summarize`] never reads taken out: every call's prompts, answer,
/// attempts and time, every judge's texts, and the panel's record (its judgments are the
/// round's). Summarising rounds cut down like this gives the same summary as the whole
/// rounds (tested over every protocol), so a summary of many rounds can hold their numbers
/// rather than their texts.
pub fn summary_fields(round: Round) -> Round {
    let mut round = round.without_text();
    for p in &mut round.phases {
        p.timestamp = String::new();
        p.attempts = Vec::new();
    }
    round.panel = None;
    round
}

/// Summarises rounds.
pub fn summarize(rounds: &[Round]) -> Summary {
    let (structured_models, structured_sides) = structured_parts(rounds);
    let calls_by_model = calls_by_model(rounds);
    let calls = CallCounts::total(calls_by_model.values());
    let mut s = Summary {
        rounds: rounds.len(),
        truncated_phases: calls.truncated_phases,
        estimated_usage_phases: calls.estimated_usage_phases,
        usage_estimated: calls.usage_estimated,
        calls_by_model,
        qa_accuracy: super::qa::accuracy_by_format(rounds),
        qa_accuracy_by_judge: super::qa::accuracy_by_judge(rounds),
        structured_models,
        structured_sides,
        ..Summary::default()
    };
    let mut margins: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for r in rounds {
        match r.status {
            RoundStatus::Complete => s.complete += 1,
            RoundStatus::NeedsReview => s.needs_review += 1,
            RoundStatus::Incomplete => {
                s.incomplete += 1;
                s.unfinished.push(Unfinished {
                    round_id: r.id.clone(),
                    error: r.error.clone(),
                });
            }
        }
        let (i, o) = r.tokens();
        s.tokens.0 += i;
        s.tokens.1 += o;
        s.cost_usd += r.cost_usd();
        for p in r.phases.iter().filter(|p| p.error.is_none()) {
            if let Some(reused) = &p.reused_from_cache {
                s.reused_from_cache += 1;
                s.reused_tokens.0 += reused.input_tokens.unwrap_or(0);
                s.reused_tokens.1 += reused.output_tokens.unwrap_or(0);
            }
            s.cached_input_tokens += p.cached_input_tokens.unwrap_or(0);
            s.cache_saved_usd += p.cache_saved_usd.unwrap_or(0.0);
            let entry = s.cost_usd_by_model.entry(p.model_id.clone()).or_default();
            if let Some(c) = p.cost_usd {
                *entry = Some(entry.unwrap_or(0.0) + c);
            }
        }
        for j in r.judgments.iter().filter(|j| j.is_usable()) {
            match &j.reading {
                Reading::Rubric { team_a, team_b } => {
                    if let (Some(a), Some(b)) = (team_a.total(), team_b.total()) {
                        s.judgments += 1;
                        margins
                            .entry((r.team_a_model.clone(), r.team_b_model.clone()))
                            .or_default()
                            .push(a - b);
                    }
                }
                // A question-answer choice, or a structured-debate trace.
                Reading::Choice(Some(_)) | Reading::Label(Some(_)) | Reading::Verdict(Some(_)) => {
                    s.judgments += 1
                }
                Reading::Choice(None) | Reading::Label(None) | Reading::Verdict(None) => {}
            }
        }
    }
    // The main tables' rule: a judge of its own model's round is left out.
    let (independent, _) = crate::analysis::tables::without_self_judgments(rounds);
    for row in model_comparison(&independent) {
        let role = RoleSummary {
            total: row.total,
            criteria: row
                .criteria
                .iter()
                .map(|(k, c)| (k.to_string(), *c))
                .collect(),
        };
        let entry = s.models.entry(row.model.clone()).or_insert(ModelSummary {
            total: Cell::of(&[]),
            presenting: None,
            responding: None,
        });
        if row.role == "presenting" {
            entry.presenting = Some(role);
        } else {
            entry.responding = Some(role);
        }
    }
    // Both roles pooled, each exchange one unit (the judges of one debate, and a model's
    // two teams when it met itself, count once in the interval).
    let mut pooled: BTreeMap<&str, Vec<(usize, f64)>> = BTreeMap::new();
    for (exchange, r) in independent.iter().enumerate() {
        for j in r.judgments.iter().filter(|j| j.is_usable()) {
            let Reading::Rubric { team_a, team_b } = &j.reading else {
                continue;
            };
            if let (Some(a), Some(b)) = (team_a.total(), team_b.total()) {
                pooled
                    .entry(&r.team_a_model)
                    .or_default()
                    .push((exchange, a));
                pooled
                    .entry(&r.team_b_model)
                    .or_default()
                    .push((exchange, b));
            }
        }
    }
    for (name, m) in s.models.iter_mut() {
        if let Some(totals) = pooled.get(name.as_str()) {
            m.total = Cell::clustered(totals);
        }
    }
    let ethics_bowl = || {
        rounds
            .iter()
            .filter(|r| r.kind() == ProtocolKind::EthicsBowl)
    };
    for r in ethics_bowl() {
        for model in [&r.team_a_model, &r.team_b_model]
            .into_iter()
            .filter(|m| !m.is_empty())
        {
            s.models.entry(model.clone()).or_insert(ModelSummary {
                total: Cell::of(&[]),
                presenting: None,
                responding: None,
            });
        }
    }
    s.dilemmas = dilemma_difficulty(&independent)
        .into_iter()
        .map(|d| (d.dilemma_id, d.mean_total))
        .collect();
    for r in ethics_bowl() {
        s.dilemmas
            .entry(r.dilemma_id.clone())
            .or_insert(Cell::of(&[]));
    }
    s.unpriced_models = s
        .cost_usd_by_model
        .iter()
        .filter(|(_, cost)| cost.is_none())
        .map(|(model, _)| model.clone())
        .collect();
    s.cost_is_partial = !s.unpriced_models.is_empty();
    for ((a, b), values) in margins {
        s.matrix.entry(a).or_default().insert(b, Cell::of(&values));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Judgment, ParseStatus, Scores};

    fn round(a: &str, b: &str, d: &str, sa: f64, sb: f64, status: ParseStatus) -> Round {
        let j = Judgment {
            judge_model: "j".into(),
            persona_id: None,
            reading: crate::domain::Reading::Rubric {
                team_a: Scores::uniform(sa),
                team_b: Scores::uniform(sb),
            },
            team_a_justification: String::new(),
            team_b_justification: String::new(),
            overall_analysis: String::new(),
            parse_status: status,
            problems: vec![],
            raw_response: String::new(),
            corrected_text: None,
            view: None,
        };
        let mut r: Round = serde_json::from_value(serde_json::json!({
            "id": format!("{d}__{a}__vs__{b}"), "dilemma_id": d, "team_a_model": a, "team_b_model": b,
            "status": "complete", "timestamp": "t"
        }))
        .unwrap();
        r.judge_models = vec!["j".into()];
        r.put_judgment(j);
        r.status = r.settled_status();
        r
    }

    #[test]
    fn means_by_model_role_dilemma_and_matrix() {
        let rounds = vec![
            round("a", "b", "d1", 8.0, 6.0, ParseStatus::Parsed),
            round("b", "a", "d1", 7.0, 9.0, ParseStatus::CorrectedByHand),
            round("a", "b", "d2", 5.0, 5.0, ParseStatus::Partial),
        ];
        let s = summarize(&rounds);
        assert_eq!(
            (s.rounds, s.complete, s.needs_review, s.judgments),
            (3, 2, 1, 2)
        );
        let a = &s.models["a"];
        assert_eq!((a.total.n, a.total.mean), (2, Some((56.0 + 63.0) / 2.0)));
        assert_eq!(a.presenting.as_ref().unwrap().total.mean, Some(56.0));
        assert_eq!(
            a.responding.as_ref().unwrap().criteria["consistency"].mean,
            Some(9.0)
        );
        assert_eq!(s.dilemmas["d2"].n, 0, "a partial judgment does not count");
        assert_eq!(s.matrix["a"]["b"].mean, Some(14.0));
        assert_eq!(s.matrix["b"]["a"].mean, Some(-14.0));
    }

    #[test]
    fn a_model_without_a_price_makes_the_cost_partial_and_is_named() {
        let mut r = round("a", "b", "d1", 8.0, 6.0, ParseStatus::Parsed);
        let priced = crate::domain::Phase {
            cost_usd: Some(0.25),
            cached_input_tokens: Some(900),
            cache_saved_usd: Some(0.05),
            ..crate::domain::Phase::new(crate::domain::PhaseType::Presentation, "a", "x")
        };
        let unpriced = crate::domain::Phase::new(crate::domain::PhaseType::Response, "b", "y");
        r.phases = vec![priced, unpriced];
        let s = summarize(&[r]);
        assert!(s.cost_is_partial);
        assert_eq!(s.unpriced_models, ["b"]);
        assert_eq!(s.cost_usd_by_model["a"], Some(0.25));
        assert_eq!(s.cost_usd_by_model["b"], None);
        assert_eq!(s.cached_input_tokens, 900);
        assert!((s.cache_saved_usd - 0.05).abs() < 1e-12);
        let json = serde_json::to_value(&s).unwrap();
        assert!(json["cost_usd_by_model"]["b"].is_null());
    }

    #[test]
    fn cut_answers_and_estimated_usage_are_counted_overall_and_by_model() {
        use crate::domain::{Phase, PhaseType};
        let mut r = round("a", "b", "d1", 8.0, 6.0, ParseStatus::Parsed);
        r.phases = vec![
            Phase {
                truncated: true,
                finish_reason: Some("length".into()),
                ..Phase::new(PhaseType::Presentation, "a", "cut")
            },
            Phase {
                usage_estimated: true,
                ..Phase::new(PhaseType::Response, "b", "y")
            },
            Phase::new(PhaseType::Judgment, "j", "z"),
        ];
        let s = summarize(&[r]);
        assert_eq!((s.truncated_phases, s.estimated_usage_phases), (1, 1));
        assert!(s.usage_estimated);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["truncated_phases"], 1);
        assert_eq!(json["usage_estimated"], true);
        assert_eq!(json["calls_by_model"]["a"]["truncated_phases"], 1);
        assert_eq!(json["calls_by_model"]["a"]["usage_estimated"], false);
        assert_eq!(json["calls_by_model"]["b"]["estimated_usage_phases"], 1);
        assert_eq!(json["calls_by_model"]["b"]["usage_estimated"], true);
        assert_eq!(json["calls_by_model"]["j"]["calls"], 1);
        let plain = summarize(&[round("a", "b", "d1", 8.0, 6.0, ParseStatus::Parsed)]);
        assert!(!plain.usage_estimated && plain.truncated_phases == 0);
    }

    #[test]
    fn rounds_cut_to_the_summarys_fields_summarise_as_the_whole_rounds() {
        let fixtures =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stored-v0");
        for protocol in ["ethics_bowl", "panel", "qa_debate", "structured_debate"] {
            let store = crate::store::Store::open(&fixtures.join(protocol)).unwrap();
            let filter = crate::store::RoundFilter::default();
            let (whole, _) = store.load_rounds(&filter).unwrap();
            let (cut, _) = store.load_rounds_with(&filter, summary_fields).unwrap();
            assert!(
                !whole.is_empty() && whole != cut,
                "{protocol}: texts are cut"
            );
            assert!(
                cut.iter()
                    .flat_map(|r| &r.phases)
                    .all(|p| p.response.is_empty() && p.prompt.is_empty()),
                "{protocol}"
            );
            let summary = summarize(&whole);
            if protocol != "structured_debate" {
                assert!(summary.judgments > 0, "{protocol}: judged rounds");
            }
            assert_eq!(summarize(&cut), summary, "{protocol}");
        }
    }

    #[test]
    fn the_summary_and_the_report_agree() {
        let rounds = vec![
            round("a", "b", "d1", 8.0, 6.0, ParseStatus::Parsed),
            round("b", "a", "d2", 7.0, 9.0, ParseStatus::Parsed),
        ];
        let s = summarize(&rounds);
        for row in model_comparison(&rounds) {
            let m = &s.models[&row.model];
            let role = if row.role == "presenting" {
                &m.presenting
            } else {
                &m.responding
            };
            assert_eq!(role.as_ref().unwrap().total, row.total);
        }
    }
}
