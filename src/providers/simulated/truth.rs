//! A simulator with known truth. When both debaters of a round have a configured `skill`
//! (`[models.simulated]`), a simulated judge ignores what the text shows and judges from
//! the skills and its own configured biases, so that what an analysis estimates from the
//! results can be compared with the values it should recover ([`Truth`]).
//!
//! - **Rubric judges** (the Ethics Bowl's single judges and its panel judges' first
//!   evaluations) score each criterion of each team
//!   `clamp(round(1 + 9·skill + leniency + position_bias·[Team A] + self_preference·[own
//!   model] + ε), 1, 10)` with `ε ~ N(0, noise_sd²)` ([`criterion_score`]).
//! - **Structured-debate judges** (single, and a panel judge's first trace) score each of
//!   an argument's four scores (evidence, logic, responsiveness, honesty) by the same rule,
//!   Pro being Team A; a side's total, the weighted mean over its arguments, then sits near
//!   `1 + 9·skill + leniency + …` on its 10-point scale. Standings and fallacies are still
//!   read from the text.
//! - **Question-answer judges** of a debate pick the right answer with probability
//!   [`qa_right_probability`]: logistic in the skill difference, shifted toward the debater
//!   read first by `position_bias` and toward the judge's own model by `self_preference`.
//!
//! The judge's keys default to 0 when unset; the debaters' `skill` has no default (without
//! it the judge reads the text as before). The draws come from the call's seeded generator
//! (the judge's name and seed, the round and the phase), so a run scores the same every time
//! it is run and when it is resumed. Which models play a round comes from the schedule
//! ([`RoundCast`], set by the engine), their skills from the models file (the judge's
//! [`SimulatedModel::roster`]): never from the text.

use std::collections::BTreeMap;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::SimulatedModel;
use crate::config::{ModelConfig, ProviderKind, SimulatedParams};
use crate::domain::Team;
use crate::providers::RoundCast;

/// The criteria of the Ethics Bowl's rubric: a team's total is out of 7 × 10 = 70 points.
pub const RUBRIC_CRITERIA: usize = 7;

/// How steeply a question-answer judge's chance of picking the right answer rises with the
/// right debater's skill over the wrong one's: log-odds per unit of skill difference (a
/// difference of 0.5 gives 88% right, of 1 gives 98%).
pub const QA_SKILL_SLOPE: f64 = 4.0;

/// A judge's configured biases, 0 where unset.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JudgeBiases {
    /// Points added to every criterion of every team.
    pub leniency: f64,
    /// Points per criterion added to Team A (log-odds toward the debater read first, in a
    /// question-answer debate).
    pub position_bias: f64,
    /// Points per criterion added to the judge's own model's team (log-odds toward its own
    /// model's answer, in a question-answer debate).
    pub self_preference: f64,
    /// The standard deviation of each criterion's noise.
    pub noise_sd: f64,
}

impl JudgeBiases {
    /// The biases a model's knobs configure.
    pub fn of(params: &SimulatedParams) -> Self {
        Self {
            leniency: params.leniency.unwrap_or(0.0),
            position_bias: params.position_bias.unwrap_or(0.0),
            self_preference: params.self_preference.unwrap_or(0.0),
            noise_sd: params.noise_sd.unwrap_or(0.0),
        }
    }
}

/// A criterion's score before noise, rounding and clamping:
/// `1 + 9·skill + leniency + position_bias·[team_a] + self_preference·[own]`.
pub fn expected_score(skill: f64, biases: &JudgeBiases, team_a: bool, own: bool) -> f64 {
    let mut score = 1.0 + 9.0 * skill + biases.leniency;
    if team_a {
        score += biases.position_bias;
    }
    if own {
        score += biases.self_preference;
    }
    score
}

/// One criterion's score:
/// `clamp(round(expected_score + N(0, noise_sd²)), 1, 10)` (no draw when `noise_sd` is 0).
pub fn criterion_score(
    skill: f64,
    biases: &JudgeBiases,
    team_a: bool,
    own: bool,
    rng: &mut ChaCha8Rng,
) -> u8 {
    let noise = if biases.noise_sd > 0.0 {
        biases.noise_sd * standard_normal(rng)
    } else {
        0.0
    };
    (expected_score(skill, biases, team_a, own) + noise)
        .round()
        .clamp(1.0, 10.0) as u8
}

/// A draw from the standard normal distribution (Box–Muller, from two uniform draws).
pub fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    // 1 − U lies in (0, 1], so its logarithm is finite.
    let u1 = 1.0 - rng.random::<f64>();
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The skills the round's two debaters play with, Team A's first: each configured skill
/// plus its form in this exchange ([`form`]); none when either has none (or is not a
/// simulated model of the judge's models file).
pub fn skills(judge: &SimulatedModel, cast: &RoundCast) -> Option<[f64; 2]> {
    let skill = |team| {
        let model = cast.model(team);
        let params = judge.params_of(model)?;
        Some(params.skill? + form(params, model, &cast.round))
    };
    Some([skill(Team::A)?, skill(Team::B)?])
}

/// A debater's form in one exchange, on the skill scale: `performance_sd · Z / 9`, Z a
/// standard normal drawn from the round's id, the debater and its seed, so that every judge
/// of the exchange sees the same form (0 without `performance_sd` or outside a round). Its
/// mean over exchanges is 0: the truth stays `skill`.
pub fn form(params: &SimulatedParams, model: &str, round: &str) -> f64 {
    match params.performance_sd {
        Some(sd) if sd > 0.0 && !round.is_empty() => {
            let mut rng = super::rng_for(&["form", round, model, &params.seed.to_string()]);
            sd * standard_normal(&mut rng) / 9.0
        }
        _ => 0.0,
    }
}

/// One judge's truth rule in one round: the debaters' skills, which team is the judge's own
/// model's, and the judge's biases.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RubricRule {
    /// Team A's and Team B's skills.
    pub skills: [f64; 2],
    /// Whether Team A, and Team B, is played by the judge's own model.
    pub own: [bool; 2],
    /// The judge's biases.
    pub biases: JudgeBiases,
}

impl RubricRule {
    /// The judge's rule for the round; none without a cast or without both debaters'
    /// skills, when the judge reads the text instead.
    pub fn of(judge: &SimulatedModel, cast: Option<&RoundCast>) -> Option<Self> {
        let cast = cast?;
        Some(Self {
            skills: skills(judge, cast)?,
            own: [Team::A, Team::B].map(|t| cast.model(t) == judge.name),
            biases: JudgeBiases::of(&judge.params),
        })
    }

    /// One criterion's score for `team` ([`criterion_score`]).
    pub fn score(&self, team: Team, rng: &mut ChaCha8Rng) -> u8 {
        let i = usize::from(team == Team::B);
        criterion_score(
            self.skills[i],
            &self.biases,
            team == Team::A,
            self.own[i],
            rng,
        )
    }
}

/// Each team's scores on `criteria` criteria (Team A's first) by [`criterion_score`], Team
/// A's criteria drawn first, in order; none without a cast or without both debaters'
/// skills, when the judge reads the text instead.
pub fn rubric_scores(
    judge: &SimulatedModel,
    cast: Option<&RoundCast>,
    criteria: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let rule = RubricRule::of(judge, cast)?;
    let a = (0..criteria).map(|_| rule.score(Team::A, rng)).collect();
    let b = (0..criteria).map(|_| rule.score(Team::B, rng)).collect();
    Some((a, b))
}

/// The chance a question-answer judge picks the right answer:
/// `1 / (1 + exp(−(QA_SKILL_SLOPE·(skill_right − skill_wrong) + shift)))`, where `shift` is
/// the judge's lean toward the right answer in log-odds (see [`qa_shift`]). Even odds at
/// equal skills and no shift; rises with the skill difference.
pub fn qa_right_probability(skill_right: f64, skill_wrong: f64, shift: f64) -> f64 {
    1.0 / (1.0 + (-(QA_SKILL_SLOPE * (skill_right - skill_wrong) + shift)).exp())
}

/// A question-answer judge's lean toward the right answer, in log-odds:
/// `position_bias·(+1 when the right debater is read first, −1 when the wrong one is) +
/// self_preference·([the right debater is the judge's model] − [the wrong one is])`.
pub fn qa_shift(
    biases: &JudgeBiases,
    right_read_first: bool,
    own_right: bool,
    own_wrong: bool,
) -> f64 {
    let sign = |b: bool| if b { 1.0 } else { -1.0 };
    let own = f64::from(u8::from(own_right)) - f64::from(u8::from(own_wrong));
    biases.position_bias * sign(right_read_first) + biases.self_preference * own
}

/// A question-answer judge's decision under the truth rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QaDecision {
    /// The debater whose answer it picks.
    pub side: Team,
    /// The chance it had of picking the right answer ([`qa_right_probability`]).
    pub p_right: f64,
    /// Whether the pick is the right answer.
    pub right: bool,
}

/// A question-answer judge's pick in a debate: the right answer with
/// [`qa_right_probability`], one draw from `rng`; none without a cast, a correct side or
/// both debaters' skills, when the judge reads the text instead.
pub fn qa_decision(
    judge: &SimulatedModel,
    cast: Option<&RoundCast>,
    rng: &mut ChaCha8Rng,
) -> Option<QaDecision> {
    let cast = cast?;
    let right = cast.correct?;
    let wrong = match right {
        Team::A => Team::B,
        Team::B => Team::A,
    };
    let skills = skills(judge, cast)?;
    let skill = |team| match team {
        Team::A => skills[0],
        Team::B => skills[1],
    };
    let shift = qa_shift(
        &JudgeBiases::of(&judge.params),
        cast.read_first == right,
        cast.model(right) == judge.name,
        cast.model(wrong) == judge.name,
    );
    let p_right = qa_right_probability(skill(right), skill(wrong), shift);
    let picks_right = rng.random_bool(p_right.clamp(0.0, 1.0));
    Some(QaDecision {
        side: if picks_right { right } else { wrong },
        p_right,
        right: picks_right,
    })
}

/// The values a tournament of simulated models with `skill` is built to show, in points of
/// the Ethics Bowl's 70-point total (7 criteria), for comparing an analysis's estimates with
/// them (a coverage benchmark). They are exact before rounding and clamping: a score is
/// rounded to a whole point and held within 1–10, so a true score near either bound (skill
/// near 0 or 1, a large leniency or bias) is approximate, and the estimates are pulled toward
/// the middle there.
///
/// The analysis's linear model (`analysis::effects`, "scores adjusted for judges and sides") centres its terms: a model's estimate
/// is its score minus the average model's, a judge's its leniency minus the average
/// judge's, over the models and judges of the fit (self-judgments left out). Compare those
/// with [`Truth::centred`] of the entries of the same models or judges; the side effect
/// (Team A minus Team B) is [`Truth::side_effect`].
///
/// Panels: deliberation pulls each judge toward the others' mean, so the truth holds for
/// the judges' first evaluations; later rounds shrink the judges' differences.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Truth {
    /// Each model with a `skill`: its true score, `7 × (1 + 9·skill)`.
    pub model_scores: BTreeMap<String, f64>,
    /// Each simulated model: its leniency as a judge, `7 × leniency`.
    pub judge_leniency: BTreeMap<String, f64>,
    /// Each simulated model: the points it adds to Team A's total, `7 × position_bias`.
    pub judge_position_bias: BTreeMap<String, f64>,
    /// Each simulated model: the points it adds to its own model's total,
    /// `7 × self_preference`.
    pub judge_self_preference: BTreeMap<String, f64>,
}

impl Truth {
    /// The truth of these models (a models file's `models`); models that are not simulated
    /// have none.
    pub fn of(models: &[ModelConfig]) -> Self {
        let points = RUBRIC_CRITERIA as f64;
        let mut truth = Self::default();
        for m in models
            .iter()
            .filter(|m| m.provider == ProviderKind::Simulated)
        {
            let params = m.simulated.clone().unwrap_or_default();
            if let Some(skill) = params.skill {
                truth
                    .model_scores
                    .insert(m.name.clone(), points * (1.0 + 9.0 * skill));
            }
            let biases = JudgeBiases::of(&params);
            truth
                .judge_leniency
                .insert(m.name.clone(), points * biases.leniency);
            truth
                .judge_position_bias
                .insert(m.name.clone(), points * biases.position_bias);
            truth
                .judge_self_preference
                .insert(m.name.clone(), points * biases.self_preference);
        }
        truth
    }

    /// The side effect, Team A's total minus Team B's: `7 × mean position_bias` over the
    /// judgments, each judgment's judge listed once in `judges` (a judge that makes twice as
    /// many judgments counts twice; when every judge judges equally often — `judging =
    /// "all"`, a panel's first evaluations, a balanced rotation — list each once). None
    /// when no listed judge is a simulated model.
    pub fn side_effect<'a>(&self, judges: impl IntoIterator<Item = &'a str>) -> Option<f64> {
        let biases: Vec<f64> = judges
            .into_iter()
            .filter_map(|j| self.judge_position_bias.get(j).copied())
            .collect();
        (!biases.is_empty()).then(|| biases.iter().sum::<f64>() / biases.len() as f64)
    }

    /// These values minus their mean, as a fit whose effects sum to zero estimates them
    /// (pass the entries of the models or judges in the fit only).
    pub fn centred(values: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
        if values.is_empty() {
            return BTreeMap::new();
        }
        let mean = values.values().sum::<f64>() / values.len() as f64;
        values.iter().map(|(k, v)| (k.clone(), v - mean)).collect()
    }
}

/// A judge with these biases that knows these debaters' skills (a debater without one reads
/// the text): what the protocols' tests of the truth rule judge with.
#[cfg(test)]
pub(crate) fn judge_knowing(
    name: &str,
    biases: SimulatedParams,
    debaters: &[(&str, Option<f64>)],
) -> SimulatedModel {
    let roster: BTreeMap<String, SimulatedParams> = debaters
        .iter()
        .map(|&(d, skill)| {
            let params = SimulatedParams {
                skill,
                ..Default::default()
            };
            (d.to_string(), params)
        })
        .collect();
    SimulatedModel::new(
        name,
        SimulatedParams {
            malformed_judgment_rate: 0.0,
            ..biases
        },
    )
    .with_roster(std::sync::Arc::new(roster))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_debaters_form_is_one_draw_per_exchange() {
        let p = SimulatedParams {
            skill: Some(0.5),
            performance_sd: Some(2.0),
            ..Default::default()
        };
        let f = |model: &str, round: &str| form(&p, model, round);
        assert_eq!(
            f("a", "r1"),
            f("a", "r1"),
            "every judge of r1 sees the same form"
        );
        assert_ne!(f("a", "r1"), f("a", "r2"));
        assert_ne!(f("a", "r1"), f("b", "r1"));
        assert_eq!(f("a", ""), 0.0, "outside a round");
        let none = SimulatedParams {
            performance_sd: None,
            ..p.clone()
        };
        assert_eq!(form(&none, "a", "r1"), 0.0);
        // Over many exchanges the form averages out, with its spread.
        let draws: Vec<f64> = (0..4000).map(|i| 9.0 * f("a", &format!("r{i}"))).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd =
            (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        assert!(mean.abs() < 0.1 && (sd - 2.0).abs() < 0.1, "{mean} {sd}");
    }
    use crate::providers::simulated::rng_for;

    fn params(skill: Option<f64>) -> SimulatedParams {
        SimulatedParams {
            skill,
            ..Default::default()
        }
    }

    /// A judge knowing debaters `a` (skill 0.5) and `b` (skill 0.2), with these biases.
    fn judge(name: &str, biases: SimulatedParams) -> SimulatedModel {
        let roster = [
            ("a".to_string(), params(Some(0.5))),
            ("b".to_string(), params(Some(0.2))),
            ("plain".to_string(), params(None)),
        ];
        SimulatedModel::new(name, biases).with_roster(std::sync::Arc::new(roster.into()))
    }

    fn biased(leniency: f64, position: f64, own: f64, sd: f64) -> SimulatedParams {
        SimulatedParams {
            leniency: Some(leniency),
            position_bias: Some(position),
            self_preference: Some(own),
            noise_sd: Some(sd),
            ..Default::default()
        }
    }

    #[test]
    fn without_noise_the_scores_are_the_formula() {
        let j = judge("j", biased(0.4, 1.0, 0.0, 0.0));
        let cast = RoundCast::teams("a", "b");
        let mut rng = rng_for(&["any"]);
        let (a, b) = rubric_scores(&j, Some(&cast), RUBRIC_CRITERIA, &mut rng).unwrap();
        // Team A: 1 + 4.5 + 0.4 + 1 = 6.9; Team B: 1 + 1.8 + 0.4 = 3.2.
        assert_eq!(a, vec![7; 7]);
        assert_eq!(b, vec![3; 7]);
        // Sides swapped: the position bias follows Team A.
        let (a, b) = rubric_scores(&j, Some(&RoundCast::teams("b", "a")), 7, &mut rng).unwrap();
        assert_eq!((a[0], b[0]), (4, 6));
    }

    #[test]
    fn self_preference_goes_to_the_judges_own_team() {
        let j = judge("b", biased(0.0, 0.0, 2.0, 0.0));
        let (a, b) = rubric_scores(
            &j,
            Some(&RoundCast::teams("a", "b")),
            7,
            &mut rng_for(&["x"]),
        )
        .unwrap();
        // Team A 5.5 rounds to 6 (half away from zero); Team B 2.8 + 2 = 4.8.
        assert_eq!((a[0], b[0]), (6, 5));
    }

    #[test]
    fn scores_are_clamped_to_the_scale() {
        let mut rng = rng_for(&["clamp"]);
        let high = JudgeBiases {
            leniency: 3.0,
            ..Default::default()
        };
        assert_eq!(criterion_score(1.0, &high, true, false, &mut rng), 10);
        let low = JudgeBiases {
            leniency: -2.0,
            ..Default::default()
        };
        assert_eq!(criterion_score(0.0, &low, false, false, &mut rng), 1);
        let noisy = JudgeBiases {
            noise_sd: 50.0,
            ..Default::default()
        };
        for _ in 0..200 {
            assert!((1..=10).contains(&criterion_score(0.5, &noisy, true, true, &mut rng)));
        }
    }

    #[test]
    fn no_skill_no_truth_scores() {
        let j = judge("j", biased(1.0, 1.0, 1.0, 1.0));
        let mut rng = rng_for(&["x"]);
        assert!(rubric_scores(&j, None, 7, &mut rng).is_none());
        let cast = RoundCast::teams("a", "plain");
        assert!(rubric_scores(&j, Some(&cast), 7, &mut rng).is_none());
        let unknown = RoundCast::teams("a", "not-simulated");
        assert!(rubric_scores(&j, Some(&unknown), 7, &mut rng).is_none());
    }

    #[test]
    fn the_same_seed_draws_the_same_scores() {
        let j = judge("j", biased(0.0, 0.0, 0.0, 1.5));
        let cast = RoundCast::teams("a", "b");
        let draw = |key: &str| rubric_scores(&j, Some(&cast), 7, &mut rng_for(&[key])).unwrap();
        assert_eq!(draw("r1"), draw("r1"));
        assert_ne!(draw("r1"), draw("r2"));
    }

    #[test]
    fn the_noise_has_the_configured_spread() {
        let mut rng = rng_for(&["normal"]);
        let draws: Vec<f64> = (0..20_000).map(|_| standard_normal(&mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / draws.len() as f64;
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((var - 1.0).abs() < 0.05, "{var}");
        // Mid-scale, the mean score is the formula's.
        let biases = JudgeBiases {
            noise_sd: 1.0,
            ..Default::default()
        };
        let n = 20_000;
        let mean = (0..n)
            .map(|_| f64::from(criterion_score(0.5, &biases, false, false, &mut rng)))
            .sum::<f64>()
            / f64::from(n);
        assert!((mean - 5.5).abs() < 0.05, "{mean}");
    }

    #[test]
    fn qa_probability_rises_with_the_skill_difference() {
        assert_eq!(qa_right_probability(0.4, 0.4, 0.0), 0.5);
        let mut last = 0.0;
        for step in -10..=10 {
            let diff = f64::from(step) / 10.0;
            let p = qa_right_probability(0.5 + diff / 2.0, 0.5 - diff / 2.0, 0.0);
            assert!(p > last, "{diff}: {p} after {last}");
            last = p;
        }
        assert!((qa_right_probability(1.0, 0.0, 0.0) - 0.982).abs() < 0.001);
        // A lean toward the right answer raises it, against lowers it.
        assert!(qa_right_probability(0.5, 0.5, 0.5) > 0.5);
        assert!(qa_right_probability(0.5, 0.5, -0.5) < 0.5);
        let b = JudgeBiases {
            position_bias: 0.3,
            self_preference: 1.0,
            ..Default::default()
        };
        assert_eq!(qa_shift(&b, true, false, false), 0.3);
        assert_eq!(qa_shift(&b, false, false, true), -1.3);
        assert_eq!(qa_shift(&b, false, true, true), -0.3);
    }

    #[test]
    fn qa_judges_pick_the_right_answer_as_often_as_the_formula_says() {
        let j = judge("j", biased(0.0, 0.5, 0.0, 0.0));
        let cast = RoundCast {
            correct: Some(Team::A),
            read_first: Team::B,
            ..RoundCast::teams("a", "b")
        };
        let expected = qa_right_probability(0.5, 0.2, -0.5);
        let n = 4000;
        let right = (0..n)
            .filter(|i| {
                let d = qa_decision(&j, Some(&cast), &mut rng_for(&[&i.to_string()])).unwrap();
                assert_eq!(d.p_right, expected);
                assert_eq!(d.right, d.side == Team::A);
                d.right
            })
            .count();
        let share = right as f64 / f64::from(n);
        assert!((share - expected).abs() < 0.03, "{share} vs {expected}");
        let no_answer = RoundCast::teams("a", "b");
        assert!(qa_decision(&j, Some(&no_answer), &mut rng_for(&["x"])).is_none());
    }

    #[test]
    fn the_truth_is_in_points_of_the_total() {
        let model = |name: &str, sim: Option<SimulatedParams>| ModelConfig {
            simulated: sim,
            ..crate::config::ModelsConfig::parse(
                &format!(
                    "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"m\"\n"
                ),
                std::path::Path::new("m.toml"),
            )
            .unwrap()
            .models
            .remove(0)
        };
        let models = [
            model(
                "strong",
                Some(SimulatedParams {
                    skill: Some(0.8),
                    ..biased(0.5, 0.2, 0.0, 1.0)
                }),
            ),
            model(
                "weak",
                Some(SimulatedParams {
                    skill: Some(0.2),
                    ..biased(-0.5, 0.4, 1.0, 1.0)
                }),
            ),
            model("plain", None),
        ];
        let t = Truth::of(&models);
        assert!((t.model_scores["strong"] - 7.0 * 8.2).abs() < 1e-9);
        assert!((t.model_scores["weak"] - 7.0 * 2.8).abs() < 1e-9);
        assert!(!t.model_scores.contains_key("plain"));
        assert_eq!(t.judge_leniency["strong"], 3.5);
        assert_eq!(t.judge_leniency["plain"], 0.0);
        assert_eq!(t.judge_self_preference["weak"], 7.0);
        let side = t.side_effect(["strong", "weak"]).unwrap();
        assert!((side - 7.0 * 0.3).abs() < 1e-9);
        let weighted = t.side_effect(["strong", "weak", "weak"]).unwrap();
        assert!((weighted - 7.0 * (0.2 + 0.8) / 3.0).abs() < 1e-9);
        assert_eq!(t.side_effect(["nobody"]), None);
        let centred = Truth::centred(&t.model_scores);
        assert!((centred["strong"] - 7.0 * 2.7).abs() < 1e-9);
        assert!((centred.values().sum::<f64>()).abs() < 1e-9);
    }
}
