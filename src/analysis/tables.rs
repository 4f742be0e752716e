//! The spec's five analyses, as pure functions from rounds to tables. One usable judgment
//! (parsed, or corrected by hand) is one observation; every figure carries its n, and a
//! figure resting on fewer than [`MIN_N`] observations is marked as too thin to read.

use std::collections::BTreeMap;

use serde::Serialize;

use super::stats::{krippendorff_interval, mean, offset_from_others, pearson, spearman, std_dev};
use crate::domain::{Criterion, Judgment, PhaseType, Round, Scores, Team};
use crate::protocols::ethics_bowl::prompts::stated_position;

/// Fewer observations than this and a figure is reported as insufficient.
pub const MIN_N: usize = 3;

/// A mean and the number of observations behind it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cell {
    /// The mean, when there is any data.
    pub mean: Option<f64>,
    /// Observations behind it.
    pub n: usize,
    /// Whether `n` is below [`MIN_N`].
    pub insufficient: bool,
}

impl Cell {
    /// The cell of these values.
    pub fn of(values: &[f64]) -> Self {
        Self {
            mean: mean(values),
            n: values.len(),
            insufficient: values.len() < MIN_N,
        }
    }
}

fn usable(round: &Round) -> impl Iterator<Item = &Judgment> {
    round
        .judgments
        .iter()
        .filter(|j| j.is_usable() && j.rubric_margin().is_some())
}

fn model_of(round: &Round, team: Team) -> &str {
    match team {
        Team::A => &round.team_a_model,
        Team::B => &round.team_b_model,
    }
}

// ---------------------------------------------------------------------------------------
// 1. Model comparison

/// One model in one role: each criterion's mean and the total's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRole {
    /// The model.
    pub model: String,
    /// `presenting` (Team A) or `responding` (Team B).
    pub role: &'static str,
    /// Each criterion, by its spec key.
    pub criteria: BTreeMap<&'static str, Cell>,
    /// The team total (out of 70).
    pub total: Cell,
}

/// For each model and role, the mean of each criterion over every judgment of its rounds.
pub fn model_comparison(rounds: &[Round]) -> Vec<ModelRole> {
    let mut by: BTreeMap<(String, Team), Vec<&Scores>> = BTreeMap::new();
    for r in rounds {
        for j in usable(r) {
            for team in [Team::A, Team::B] {
                by.entry((model_of(r, team).to_string(), team))
                    .or_default()
                    .extend(j.scores(team));
            }
        }
    }
    by.into_iter()
        .map(|((model, team), scores)| ModelRole {
            model,
            role: if team == Team::A {
                "presenting"
            } else {
                "responding"
            },
            criteria: Criterion::ALL
                .iter()
                .map(|c| {
                    (
                        c.key(),
                        Cell::of(&scores.iter().filter_map(|s| s.get(*c)).collect::<Vec<_>>()),
                    )
                })
                .collect(),
            total: Cell::of(&scores.iter().filter_map(|s| s.total()).collect::<Vec<_>>()),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// 2. Dilemma difficulty

/// One dilemma: how well models did on it, and how much they differed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DilemmaDifficulty {
    /// The dilemma.
    pub dilemma_id: String,
    /// The mean team total over all models and roles.
    pub mean_total: Cell,
    /// The standard deviation of the per-model mean totals (how much it separates models).
    pub spread: Option<f64>,
    /// Models with data on it.
    pub models: usize,
    /// Among the dilemmas that separate models most (the top third by spread).
    pub separates_models: bool,
}

/// Dilemmas ranked hardest (lowest mean total) first.
pub fn dilemma_difficulty(rounds: &[Round]) -> Vec<DilemmaDifficulty> {
    let mut totals: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut per_model: BTreeMap<&str, BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    for r in rounds {
        for j in usable(r) {
            for team in [Team::A, Team::B] {
                if let Some(t) = j.scores(team).and_then(Scores::total) {
                    totals.entry(&r.dilemma_id).or_default().push(t);
                    per_model
                        .entry(&r.dilemma_id)
                        .or_default()
                        .entry(model_of(r, team))
                        .or_default()
                        .push(t);
                }
            }
        }
    }
    let mut out: Vec<DilemmaDifficulty> = totals
        .iter()
        .map(|(d, values)| {
            let means: Vec<f64> = per_model[d].values().filter_map(|v| mean(v)).collect();
            DilemmaDifficulty {
                dilemma_id: d.to_string(),
                mean_total: Cell::of(values),
                spread: std_dev(&means),
                models: means.len(),
                separates_models: false,
            }
        })
        .collect();
    let mut spreads: Vec<f64> = out.iter().filter_map(|d| d.spread).collect();
    spreads.sort_by(|a, b| b.total_cmp(a));
    if let Some(cut) = spreads
        .get(spreads.len().div_ceil(3).saturating_sub(1))
        .copied()
    {
        for d in &mut out {
            d.separates_models = d.spread.is_some_and(|s| s >= cut && s > 0.0);
        }
    }
    out.sort_by(|a, b| {
        a.mean_total
            .mean
            .unwrap_or(f64::MAX)
            .total_cmp(&b.mean_total.mean.unwrap_or(f64::MAX))
    });
    out
}

// ---------------------------------------------------------------------------------------
// 3. Consistency

/// Words by which a model acknowledges that its principle did not carry over unchanged.
/// The rule: a consistency answer acknowledges an inconsistency when it contains any of
/// these (case-insensitive).
pub const ACKNOWLEDGEMENTS: [&str; 12] = [
    "refine",
    "inconsistent",
    "inconsistency",
    "i was wrong",
    "distinguish",
    "tension with",
    "revise my",
    "i need to qualify",
    "does not apply in the same way",
    "morally relevant difference",
    "i concede",
    "not consistent",
];

/// A consistency score at or below this (the judges' mean, 1–10) is low.
pub const LOW_CONSISTENCY: f64 = 5.0;

/// One team's consistency test in one round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsistencyRow {
    /// The round (its transcript is `rounds/<round_id>.json`).
    pub round_id: String,
    /// The model tested.
    pub model: String,
    /// Team A or B.
    pub team: Team,
    /// The principle it stated (Team A's presentation, Team B's response), if labelled.
    pub principle: Option<String>,
    /// The conclusion it stated, if labelled.
    pub conclusion: Option<String>,
    /// Its answer to the parallel case.
    pub answer: String,
    /// The judges' mean consistency score for that team.
    pub consistency_score: Option<f64>,
    /// Whether the answer acknowledges an inconsistency (see [`ACKNOWLEDGEMENTS`]).
    pub acknowledged: bool,
    /// Low consistency score and no acknowledgement: failed to stay consistent silently.
    pub flagged_unacknowledged: bool,
}

/// Every consistency test, with the flags.
pub fn consistency(rounds: &[Round]) -> Vec<ConsistencyRow> {
    let mut out = Vec::new();
    for r in rounds {
        for (team, test, own) in [
            (Team::A, PhaseType::ConsistencyTest, PhaseType::Presentation),
            (Team::B, PhaseType::ConsistencyTestB, PhaseType::Response),
        ] {
            let Some(answer) = r.phase(test, None) else {
                continue;
            };
            let stated = r
                .phase(own, None)
                .map(|p| stated_position(&p.response))
                .unwrap_or((None, None));
            let scores: Vec<f64> = usable(r)
                .filter_map(|j| j.scores(team).and_then(|s| s.consistency))
                .collect();
            let lower = answer.response.to_lowercase();
            let acknowledged = ACKNOWLEDGEMENTS.iter().any(|w| lower.contains(w));
            let score = mean(&scores);
            out.push(ConsistencyRow {
                round_id: r.id.clone(),
                model: model_of(r, team).to_string(),
                team,
                principle: stated.0,
                conclusion: stated.1,
                answer: answer.response.clone(),
                consistency_score: score,
                acknowledged,
                flagged_unacknowledged: score.is_some_and(|s| s <= LOW_CONSISTENCY)
                    && !acknowledged,
            });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// 4. Framework usage

/// The moral frameworks and the words that signal each, in one table. A phrase counts once
/// per occurrence, case-insensitive; stems (`kant`, `maximi`) cover their forms, and no
/// entry contains another, so nothing is counted twice.
pub const FRAMEWORKS: [(&str, &[&str]); 7] = [
    (
        "consequentialist",
        &[
            "consequentialis",
            "utilitarian",
            "outcome",
            "welfare",
            "maximi",
            "greatest good",
            "expected value",
            "harm reduction",
        ],
    ),
    (
        "deontological",
        &[
            "deontolog",
            "kant",
            "duty",
            "duties",
            "rights",
            "categorical imperative",
            "dignity",
            "means to an end",
        ],
    ),
    (
        "virtue",
        &[
            "virtue",
            "character",
            "aristotel",
            "flourishing",
            "practical wisdom",
            "phronesis",
        ],
    ),
    (
        "contractualist",
        &[
            "contractualis",
            "contractarian",
            "scanlon",
            "rawls",
            "veil of ignorance",
            "reasonably reject",
            "social contract",
        ],
    ),
    (
        "care",
        &[
            "care ethics",
            "ethics of care",
            "relational",
            "caring",
            "vulnerab",
            "dependency",
        ],
    ),
    (
        "precautionary",
        &[
            "precaution",
            "moral uncertainty",
            "err on the side",
            "risk of wrongly",
        ],
    ),
    (
        "autonomy",
        &[
            "autonomy",
            "consent",
            "self-determination",
            "informed choice",
        ],
    ),
];

/// One model's use of the frameworks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameworkUsage {
    /// The model.
    pub model: String,
    /// Keyword hits per framework in its own phases.
    pub hits: BTreeMap<&'static str, usize>,
    /// Frameworks judges named when justifying its scores.
    pub judges_named: BTreeMap<&'static str, usize>,
    /// Each framework's share of all its hits (own phases and judges' remarks together).
    pub share: BTreeMap<&'static str, f64>,
    /// The framework with the largest share, if any was used.
    pub dominant: Option<&'static str>,
}

fn count_frameworks(text: &str, into: &mut BTreeMap<&'static str, usize>) {
    let lower = text.to_lowercase();
    for (name, words) in FRAMEWORKS {
        let n: usize = words.iter().map(|w| lower.matches(w).count()).sum();
        *into.entry(name).or_default() += n;
    }
}

/// Framework usage per model.
pub fn framework_usage(rounds: &[Round]) -> Vec<FrameworkUsage> {
    let mut hits: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    let mut named: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    for r in rounds {
        for p in r
            .phases
            .iter()
            .filter(|p| p.phase_type != PhaseType::Judgment)
        {
            count_frameworks(&p.response, hits.entry(p.model_id.clone()).or_default());
        }
        for j in usable(r) {
            count_frameworks(
                &j.team_a_justification,
                named.entry(r.team_a_model.clone()).or_default(),
            );
            count_frameworks(
                &j.team_b_justification,
                named.entry(r.team_b_model.clone()).or_default(),
            );
        }
    }
    hits.into_iter()
        .map(|(model, own)| {
            let judged = named.remove(&model).unwrap_or_default();
            let total: usize = own.values().chain(judged.values()).sum();
            let share: BTreeMap<&'static str, f64> = FRAMEWORKS
                .iter()
                .map(|(f, _)| {
                    let n = own.get(f).copied().unwrap_or(0) + judged.get(f).copied().unwrap_or(0);
                    (
                        *f,
                        if total == 0 {
                            0.0
                        } else {
                            n as f64 / total as f64
                        },
                    )
                })
                .collect();
            let dominant = share
                .iter()
                .filter(|(_, s)| **s > 0.0)
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(f, _)| *f);
            FrameworkUsage {
                model,
                hits: own,
                judges_named: judged,
                share,
                dominant,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// 5. Judge agreement

/// Two judges compared on the exchanges both scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgePair {
    /// The first judge.
    pub a: String,
    /// The second judge.
    pub b: String,
    /// Exchanges both scored.
    pub shared_exchanges: usize,
    /// Pearson's r over every (exchange, team, criterion) score.
    pub pearson: Option<f64>,
    /// Spearman's rho over the same.
    pub spearman: Option<f64>,
    /// Pearson's r over team totals.
    pub pearson_totals: Option<f64>,
    /// Per criterion: Pearson's r over (exchange, team) scores.
    pub per_criterion: BTreeMap<&'static str, Option<f64>>,
}

/// Agreement over all judges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeAgreement {
    /// Exchanges scored by two judges or more.
    pub shared_exchanges: usize,
    /// Krippendorff's alpha (interval) over every (exchange, team, criterion) unit.
    pub alpha: Option<f64>,
    /// Each pair of judges.
    pub pairs: Vec<JudgePair>,
    /// Each judge's mean score minus the other judges' mean on the same units (positive:
    /// generous), with the units behind it.
    pub offsets: BTreeMap<String, Cell>,
}

impl JudgeAgreement {
    /// The judges compared, in name order.
    pub fn judges(&self) -> Vec<String> {
        let mut judges: Vec<String> = self
            .pairs
            .iter()
            .flat_map(|p| [p.a.clone(), p.b.clone()])
            .collect();
        judges.sort();
        judges.dedup();
        judges
    }
}

/// How far judges agree where several scored the same exchange.
pub fn judge_agreement(rounds: &[Round]) -> JudgeAgreement {
    // (round, team, criterion) → judge → score
    let mut units: BTreeMap<(String, Team, Criterion), BTreeMap<String, f64>> = BTreeMap::new();
    let mut shared = 0;
    for r in rounds {
        let judges: Vec<&Judgment> = usable(r).collect();
        if judges.len() < 2 {
            continue;
        }
        shared += 1;
        for j in judges {
            for team in [Team::A, Team::B] {
                for c in Criterion::ALL {
                    if let Some(v) = j.scores(team).and_then(|s| s.get(c)) {
                        units
                            .entry((r.id.clone(), team, c))
                            .or_default()
                            .insert(j.judge_key().to_string(), v);
                    }
                }
            }
        }
    }
    let alpha = krippendorff_interval(
        &units
            .values()
            .map(|u| u.values().copied().collect())
            .collect::<Vec<_>>(),
    );
    let names: Vec<String> = {
        let mut n: Vec<String> = units.values().flat_map(|u| u.keys().cloned()).collect();
        n.sort();
        n.dedup();
        n
    };
    let mut pairs = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let both: Vec<(&(String, Team, Criterion), f64, f64)> = units
                .iter()
                .filter_map(|(k, u)| Some((k, *u.get(a)?, *u.get(b)?)))
                .collect();
            let xs: Vec<f64> = both.iter().map(|t| t.1).collect();
            let ys: Vec<f64> = both.iter().map(|t| t.2).collect();
            let mut totals: BTreeMap<(&String, Team), (f64, f64)> = BTreeMap::new();
            for ((rid, team, _), x, y) in &both {
                let t = totals.entry((rid, *team)).or_default();
                t.0 += x;
                t.1 += y;
            }
            let (tx, ty): (Vec<f64>, Vec<f64>) = totals.values().copied().unzip();
            let per_criterion = Criterion::ALL
                .iter()
                .map(|c| {
                    let (cx, cy): (Vec<f64>, Vec<f64>) = both
                        .iter()
                        .filter(|t| t.0.2 == *c)
                        .map(|t| (t.1, t.2))
                        .unzip();
                    (c.key(), pearson(&cx, &cy))
                })
                .collect();
            let exchanges = {
                let mut ids: Vec<&String> = both.iter().map(|t| &t.0.0).collect();
                ids.dedup();
                ids.len()
            };
            pairs.push(JudgePair {
                a: a.clone(),
                b: b.clone(),
                shared_exchanges: exchanges,
                pearson: pearson(&xs, &ys),
                spearman: spearman(&xs, &ys),
                pearson_totals: pearson(&tx, &ty),
                per_criterion,
            });
        }
    }
    let offsets = names
        .iter()
        .map(|judge| {
            let diffs: Vec<f64> = units
                .values()
                .filter_map(|u| offset_from_others(u, judge))
                .collect();
            (judge.clone(), Cell::of(&diffs))
        })
        .collect();
    JudgeAgreement {
        shared_exchanges: shared,
        alpha,
        pairs,
        offsets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ParseStatus, Phase};

    fn judgment(judge: &str, a: Scores, b: Scores) -> Judgment {
        Judgment {
            judge_model: judge.into(),
            persona_id: None,
            reading: crate::domain::Reading::Rubric {
                team_a: a,
                team_b: b,
            },
            team_a_justification: "A utilitarian weighing of outcomes.".into(),
            team_b_justification: "Attentive to duties and rights.".into(),
            overall_analysis: String::new(),
            parse_status: ParseStatus::Parsed,
            problems: vec![],
            raw_response: String::new(),
            corrected_text: None,
        }
    }

    fn phase(t: PhaseType, model: &str, text: &str) -> Phase {
        Phase::new(t, model, text)
    }

    fn round(id: &str, d: &str, a: &str, b: &str, judgments: Vec<Judgment>) -> Round {
        let mut r: Round = serde_json::from_value(serde_json::json!({
            "id": id, "dilemma_id": d, "team_a_model": a, "team_b_model": b, "status": "complete", "timestamp": "t"
        }))
        .unwrap();
        r.judge_models = judgments.iter().map(|j| j.judge_model.clone()).collect();
        for j in judgments {
            r.put_judgment(j);
        }
        r
    }

    #[test]
    fn model_comparison_by_role_with_n() {
        let rounds = vec![
            round(
                "r1",
                "d",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(8.0), Scores::uniform(6.0))],
            ),
            round(
                "r2",
                "d",
                "y",
                "x",
                vec![judgment("j", Scores::uniform(7.0), Scores::uniform(9.0))],
            ),
            round(
                "r3",
                "d",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(6.0), Scores::uniform(6.0))],
            ),
        ];
        let t = model_comparison(&rounds);
        let x_a = t
            .iter()
            .find(|m| m.model == "x" && m.role == "presenting")
            .unwrap();
        assert_eq!(
            x_a.criteria["consistency"],
            Cell {
                mean: Some(7.0),
                n: 2,
                insufficient: true
            }
        );
        assert_eq!(x_a.total.mean, Some(49.0));
        let x_b = t
            .iter()
            .find(|m| m.model == "x" && m.role == "responding")
            .unwrap();
        assert_eq!(
            x_b.total,
            Cell {
                mean: Some(63.0),
                n: 1,
                insufficient: true
            }
        );
    }

    #[test]
    fn dilemma_with_zero_spread_and_ranking() {
        let rounds = vec![
            round(
                "r1",
                "easy",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(9.0), Scores::uniform(9.0))],
            ),
            round(
                "r2",
                "hard",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(3.0), Scores::uniform(7.0))],
            ),
        ];
        let t = dilemma_difficulty(&rounds);
        assert_eq!(t[0].dilemma_id, "hard");
        assert_eq!(t[1].spread, Some(0.0));
        assert!(t[0].separates_models && !t[1].separates_models);
    }

    #[test]
    fn consistency_flags_silent_inconsistency_and_credits_acknowledgement() {
        let mut low = judgment("j", Scores::uniform(8.0), Scores::uniform(8.0));
        if let crate::domain::Reading::Rubric { team_a, .. } = &mut low.reading {
            team_a.consistency = Some(3.0);
        }
        let mut r = round("r1", "d", "x", "y", vec![low]);
        r.phases.push(phase(
            PhaseType::Presentation,
            "x",
            "Analysis.\nGuiding principle: protect the weak.\nTentative conclusion: share.",
        ));
        r.phases.push(phase(
            PhaseType::ConsistencyTest,
            "x",
            "My principle applies here without change.",
        ));
        r.phases.push(phase(
            PhaseType::ConsistencyTestB,
            "y",
            "This exposes a tension with my view; I need to refine it.",
        ));
        let rows = consistency(&[r]);
        let a = rows.iter().find(|c| c.team == Team::A).unwrap();
        assert_eq!(a.principle.as_deref(), Some("protect the weak."));
        assert!(a.flagged_unacknowledged && !a.acknowledged);
        let b = rows.iter().find(|c| c.team == Team::B).unwrap();
        assert!(b.acknowledged && !b.flagged_unacknowledged);
    }

    #[test]
    fn framework_counts_on_crafted_text() {
        let mut r = round(
            "r1",
            "d",
            "x",
            "y",
            vec![judgment("j", Scores::uniform(8.0), Scores::uniform(8.0))],
        );
        r.phases.push(phase(
            PhaseType::Presentation,
            "x",
            "A utilitarian view maximises welfare; a Kantian view stresses duty.",
        ));
        let t = framework_usage(&[r]);
        let x = t.iter().find(|f| f.model == "x").unwrap();
        assert_eq!(
            x.hits["consequentialist"], 3,
            "utilitarian, maximi, welfare"
        );
        assert_eq!(x.hits["deontological"], 2, "kant(ian), duty");
        assert_eq!(
            x.judges_named["consequentialist"], 2,
            "utilitarian, outcome"
        );
        assert_eq!(x.dominant, Some("consequentialist"));
        assert!((x.share.values().sum::<f64>() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn two_judges_in_perfect_agreement_and_one_shifted_by_two() {
        let mut rounds = Vec::new();
        for (i, (a, b)) in [(5.0, 6.0), (7.0, 4.0), (8.0, 8.0), (3.0, 6.0)]
            .iter()
            .enumerate()
        {
            let mut sa = Scores::uniform(*a);
            sa.consistency = Some(a - 1.0);
            let mut shifted_a = Scores::uniform(a + 2.0);
            shifted_a.consistency = Some(a + 1.0);
            rounds.push(round(
                &format!("r{i}"),
                "d",
                "x",
                "y",
                vec![
                    judgment("j1", sa, Scores::uniform(*b)),
                    judgment("j2", sa, Scores::uniform(*b)),
                    judgment("j3", shifted_a, Scores::uniform(b + 2.0)),
                ],
            ));
        }
        let ag = judge_agreement(&rounds);
        assert_eq!(ag.shared_exchanges, 4);
        let p12 = ag
            .pairs
            .iter()
            .find(|p| p.a == "j1" && p.b == "j2")
            .unwrap();
        assert!((p12.pearson.unwrap() - 1.0).abs() < 1e-9);
        let p13 = ag
            .pairs
            .iter()
            .find(|p| p.a == "j1" && p.b == "j3")
            .unwrap();
        assert!(
            (p13.pearson.unwrap() - 1.0).abs() < 1e-9,
            "a constant shift keeps correlation 1"
        );
        assert_eq!(p13.shared_exchanges, 4);
        // j3 is 2 above each of the others, so 2 above their mean; j1 is 1 below (0 and −2).
        assert!((ag.offsets["j3"].mean.unwrap() - 2.0).abs() < 1e-9);
        assert!((ag.offsets["j1"].mean.unwrap() + 1.0).abs() < 1e-9);
        let two: Vec<Round> = rounds
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.judgments.truncate(2);
                r
            })
            .collect();
        assert!(
            (judge_agreement(&two).alpha.unwrap() - 1.0).abs() < 1e-9,
            "two judges agreeing perfectly: alpha 1"
        );
    }
}
