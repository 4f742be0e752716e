//! The simulated model in the Ethics Bowl. Each model has a strength per judging criterion,
//! drawn from its name around its configured quality. As a debater it writes, for each
//! criterion, a sentence of the kind a judge rewards, with a probability equal to its
//! strength, built from sentences of the dilemma in its prompt. As a judge it scores each
//! team by the evidence of those sentences in the transcript (or, when both debaters have a
//! configured `skill`, from the skills and its own biases, see
//! [`crate::providers::simulated::truth`]), reads each consistency test
//! by the sentence it ends with (see [`test_reading`]), and answers in broken or
//! free-form text at its configured rate, so the manual-review path is exercised. Its panel
//! judges are in [`panel`]; [`Simulation`] answers the protocol's calls for the simulated
//! provider.

mod panel;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::prompts::END_OF_ROUND;
use crate::providers::simulated::prose::{SENTENCES, fill, fragments, pick};
use crate::providers::simulated::{Call, SimulatedBehaviour, SimulatedModel, rng_for, truth};

/// The seven judging criteria, in the rubric's order, with the sentence a debater strong on
/// each criterion writes (`{x}` is a piece of the dilemma) and the cue a simulated judge
/// looks for.
const CRITERIA: [(&str, &str, &str); 7] = [
    (
        "principle_articulation",
        SENTENCES[0],
        "principle that guides me",
    ),
    ("consistency", SENTENCES[1], "applied consistently"),
    (
        "stakeholder_recognition",
        SENTENCES[2],
        "parties have a stake",
    ),
    (
        "uncertainty_integration",
        SENTENCES[3],
        "genuinely uncertain",
    ),
    (
        "framework_awareness",
        SENTENCES[4],
        "consequentialist reading",
    ),
    ("intellectual_honesty", SENTENCES[5], "strongest objection"),
    (
        "constructive_engagement",
        SENTENCES[6],
        "building on the other team",
    ),
];

/// The Ethics Bowl's debaters and judges, single and on panels.
#[derive(Debug, Clone, Copy)]
pub struct Simulation;

impl SimulatedBehaviour for Simulation {
    fn answer(
        &self,
        model: &SimulatedModel,
        call: &Call<'_>,
        rng: &mut ChaCha8Rng,
    ) -> Option<String> {
        Some(match call.phase {
            "judgment" => judgment(model, call, rng),
            "panel_evaluation" => panel::evaluation(model, call, rng),
            "deliberation" => panel::deliberation(model, call, rng),
            "presentation" | "response" | "rebuttal" | "consistency_test"
            | "consistency_test_b" => argument(model, call.tag, call.prompt, rng),
            _ => return None,
        })
    }
}

/// The model's strength on each criterion, in the order of the rubric, from 0 to 1: spread
/// around its quality by a draw seeded with its name, so distinct models differ and the
/// same model never changes.
fn strengths(model: &SimulatedModel) -> [f64; 7] {
    let params = &model.params;
    let mut rng = rng_for(&[&model.name, "profile", &params.seed.to_string()]);
    std::array::from_fn(|_| (params.quality + rng.random_range(-0.2..=0.2)).clamp(0.05, 0.98))
}

/// A debater's turn: an opening on the dilemma, the criterion sentences its strengths
/// earn, and for presentations and responses the two labelled lines the consistency test quotes.
fn argument(model: &SimulatedModel, phase: &str, prompt: &str, rng: &mut ChaCha8Rng) -> String {
    let strengths = strengths(model);
    let pieces = fragments(prompt);
    let mut paragraphs = Vec::new();
    let opening = match phase {
        "presentation" => "The central tension in this case is whether",
        "response" => "We thank the presenting team; their analysis turns on whether",
        "rebuttal" => "The response sharpens our view; the key question remains whether",
        _ => "Turning to the parallel case, the question is whether",
    };
    paragraphs.push(format!("{opening} {}.", pick(&pieces, rng)));
    for (i, (_, template, _)) in CRITERIA.iter().enumerate() {
        if rng.random_bool(strengths[i]) {
            paragraphs.push(fill(template, &pieces, rng));
        }
    }
    if phase.starts_with("consistency_test") {
        let honest = rng.random_bool(strengths[5]);
        paragraphs.push(if honest {
            "This case exposes a tension with what I said before; I need to refine my principle rather than pretend the cases are alike.".to_string()
        } else {
            "My earlier principle applies here without any change.".to_string()
        });
    }
    if phase == "presentation" || phase == "response" {
        paragraphs.push(format!(
            "Guiding principle: act on the reasons we could defend to everyone affected, especially where {}.",
            pick(&pieces, rng)
        ));
        paragraphs.push(format!(
            "Tentative conclusion: on balance, the most defensible course is to protect those most exposed when {}.",
            pick(&pieces, rng)
        ));
    }
    paragraphs.join("\n\n")
}

/// Each team's scores by the cues in its part of the transcript.
pub(super) fn cue_scores(prompt: &str, rng: &mut ChaCha8Rng) -> (Vec<u8>, Vec<u8>) {
    let (team_a, team_b) = split_teams(prompt);
    let mut score = |text: &str, i: usize| -> u8 {
        let hits = text.to_lowercase().matches(CRITERIA[i].2).count().min(3) as i32;
        (4 + 2 * hits + rng.random_range(-1..=1)).clamp(1, 10) as u8
    };
    let a = (0..7).map(|i| score(&team_a, i)).collect();
    let b = (0..7).map(|i| score(&team_b, i)).collect();
    (a, b)
}

/// What a simulated judge reads in a team's consistency test (the section of the judge's
/// prompt under that team's `CONSISTENCY TEST` heading): `acknowledged` when the team says it
/// must refine its principle, `consistent` when it applies its principle consistently, and
/// otherwise `inconsistent` (it claims its principle holds without applying it).
fn test_reading(prompt: &str, team: &str) -> Option<&'static str> {
    let heading = format!("=== {team} (");
    let mut lines = prompt
        .lines()
        .skip_while(|l| !(l.starts_with(&heading) && l.ends_with("CONSISTENCY TEST ===")));
    lines.next()?;
    let section = lines
        .take_while(|l| !l.starts_with("==="))
        .collect::<Vec<_>>()
        .join("\n")
        .to_lowercase();
    Some(if section.contains("refine my principle") {
        "acknowledged"
    } else if section.contains(CRITERIA[1].2) {
        "consistent"
    } else {
        "inconsistent"
    })
}

/// The `consistency_tests` field of a simulated judge's answer, with a trailing comma (empty
/// when the prompt shows no consistency test).
pub(super) fn test_readings_json(prompt: &str) -> String {
    let readings: Vec<String> = [("team_a", "TEAM A"), ("team_b", "TEAM B")]
        .iter()
        .filter_map(|(key, team)| test_reading(prompt, team).map(|r| format!("\"{key}\": \"{r}\"")))
        .collect();
    if readings.is_empty() {
        return String::new();
    }
    format!("\n  \"consistency_tests\": {{{}}},", readings.join(", "))
}

/// Each team's scores: from the debaters' configured skills and the judge's biases when
/// both debaters have a `skill` (see [`truth`]), by the cues in the text otherwise.
pub(super) fn scores(
    model: &SimulatedModel,
    call: &Call<'_>,
    rng: &mut ChaCha8Rng,
) -> ((Vec<u8>, Vec<u8>), bool) {
    match truth::rubric_scores(model, call.cast, CRITERIA.len(), rng) {
        Some(scores) => (scores, true),
        None => (cue_scores(call.prompt, rng), false),
    }
}

/// A judge's verdict: each team scored per criterion (see [`scores`]), with its reading of
/// each consistency test, in the requested JSON most of the time and broken at the
/// configured rate.
fn judgment(model: &SimulatedModel, call: &Call<'_>, rng: &mut ChaCha8Rng) -> String {
    let prompt = call.prompt;
    let ((a, b), _) = scores(model, call, rng);
    if let Some(broken) = broken_judgment(model, &a, &b, rng) {
        return broken;
    }
    let total_a: u32 = a.iter().map(|&v| u32::from(v)).sum();
    let total_b: u32 = b.iter().map(|&v| u32::from(v)).sum();
    format!(
        "{{\n  \"team_a_scores\": {},\n  \"team_b_scores\": {},{}\n  \"team_a_justification\": \"Team A totals {total_a}: {}\",\n  \"team_b_justification\": \"Team B totals {total_b}: {}\",\n  \"overall_analysis\": \"{}\"\n}}",
        scores_json(&a),
        scores_json(&b),
        test_readings_json(prompt),
        strongest(&a),
        strongest(&b),
        if total_a >= total_b {
            "Team A offered the more complete analysis."
        } else {
            "Team B's engagement outweighed Team A's presentation."
        }
    )
}

/// An answer broken at the configured rate, as real judges sometimes give them.
pub(super) fn broken_judgment(
    model: &SimulatedModel,
    a: &[u8],
    b: &[u8],
    rng: &mut ChaCha8Rng,
) -> Option<String> {
    if !rng.random_bool(model.params.malformed_judgment_rate) {
        return None;
    }
    Some(match rng.random_range(0..3) {
        // Free prose with no scores at all: nothing to parse.
        0 => format!(
            "Both teams engaged seriously. Team A's analysis was careful and Team B engaged constructively; \
                 overall I found Team A somewhat stronger, though the margin is small. ({})",
            model.name
        ),
        // Scores for one team only, as lines: a partial parse.
        1 => {
            let lines: Vec<String> = CRITERIA
                .iter()
                .zip(a)
                .map(|((name, _, _), v)| format!("{}: {v}/10", title_case(name)))
                .collect();
            format!("Team A\n{}\n\nTeam B was solid overall.", lines.join("\n"))
        }
        // JSON cut off part-way, as when the judge hits its token cap.
        _ => {
            let full = format!(
                "{{\n  \"team_a_scores\": {},\n  \"team_b_scores\": {}",
                scores_json(a),
                scores_json(b)
            );
            full[..full.len() * 2 / 3].to_string()
        }
    })
}

pub(super) fn scores_json(s: &[u8]) -> String {
    let fields: Vec<String> = CRITERIA
        .iter()
        .zip(s)
        .map(|((name, _, _), v)| format!("    \"{name}\": {v}"))
        .collect();
    format!("{{\n{}\n  }}", fields.join(",\n"))
}

pub(super) fn strongest_key(scores: &[u8]) -> &'static str {
    let best = scores
        .iter()
        .enumerate()
        .max_by_key(|(_, v)| **v)
        .map_or(0, |(i, _)| i);
    CRITERIA[best].0
}

pub(super) fn strongest(scores: &[u8]) -> String {
    format!("strongest on {}", strongest_key(scores).replace('_', " "))
}

fn title_case(key: &str) -> String {
    key.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits a judge prompt into what Team A and Team B wrote, by its section headings (short
/// lines naming a team). Only the exchange counts, from the first `=== TEAM` heading to
/// [`END_OF_ROUND`]: the rubric and answer format before it and the reminder after it
/// belong to neither (a prompt without those markers is read whole).
fn split_teams(prompt: &str) -> (String, String) {
    let (mut a, mut b) = (String::new(), String::new());
    let mut current: Option<bool> = None;
    // Markers at a line's start: a team's quoted text cannot put one there.
    let marked = prompt.lines().any(|l| l.starts_with("=== TEAM"));
    let exchange = prompt
        .lines()
        .skip_while(|l| marked && !l.starts_with("=== TEAM"))
        .take_while(|l| *l != END_OF_ROUND);
    for line in exchange {
        let upper = line.to_uppercase();
        if line.len() < 100 && upper.contains("TEAM A") && !upper.contains("TEAM B") {
            current = Some(true);
        } else if line.len() < 100 && upper.contains("TEAM B") && !upper.contains("TEAM A") {
            current = Some(false);
        }
        let side = match current {
            Some(true) => &mut a,
            Some(false) => &mut b,
            None => continue,
        };
        side.push_str(line);
        side.push('\n');
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimulatedParams;
    use crate::providers::simulated::tests::{DILEMMA, run};
    use crate::providers::simulated::{SimulatedBehaviours, Simulator};
    use crate::providers::{ChatRequest, RoundCast};

    fn profile(name: &str, params: SimulatedParams) -> Simulator {
        Simulator::new(
            SimulatedModel::new(
                name,
                SimulatedParams {
                    tokens_per_second: 0.0,
                    ..params
                },
            ),
            SimulatedBehaviours::new(vec![Box::new(Simulation)]),
            4096,
        )
    }

    #[test]
    fn every_cue_is_in_its_sentence() {
        for (name, sentence, cue) in CRITERIA {
            assert!(sentence.to_lowercase().contains(cue), "{name}");
        }
    }

    #[test]
    fn distinct_models_have_distinct_strengths() {
        let a = SimulatedModel::new("sim-alpha", SimulatedParams::default());
        let b = SimulatedModel::new("sim-beta", SimulatedParams::default());
        assert_ne!(strengths(&a), strengths(&b));
        assert_eq!(strengths(&a), strengths(&a.clone()));
    }

    #[tokio::test]
    async fn a_presentation_uses_the_dilemma_and_states_its_principle() {
        let p = profile("sim-alpha", SimulatedParams::default());
        let req = ChatRequest::new("s", DILEMMA).tagged("r1", "presentation");
        let (a, streamed) = run(&p, &req, 1).await.unwrap();
        assert_eq!(a.text, streamed);
        assert!(a.text.contains("Guiding principle:"));
        assert!(
            a.text.contains("research"),
            "uses the dilemma's content: {}",
            a.text
        );
    }

    #[tokio::test]
    async fn stronger_debaters_score_higher() {
        let judge = profile(
            "judge",
            SimulatedParams {
                malformed_judgment_rate: 0.0,
                ..Default::default()
            },
        );
        let strong = profile(
            "strong",
            SimulatedParams {
                quality: 0.95,
                ..Default::default()
            },
        );
        let weak = profile(
            "weak",
            SimulatedParams {
                quality: 0.1,
                ..Default::default()
            },
        );
        let (mut total_strong, mut total_weak) = (0u32, 0u32);
        for round in 0..20 {
            let rid = format!("r{round}");
            let a = run(
                &strong,
                &ChatRequest::new("s", DILEMMA).tagged(&rid, "presentation"),
                1,
            )
            .await
            .unwrap()
            .0
            .text;
            let b = run(
                &weak,
                &ChatRequest::new("s", DILEMMA).tagged(&rid, "response"),
                1,
            )
            .await
            .unwrap()
            .0
            .text;
            let prompt =
                format!("=== TEAM A PRESENTATION ===\n{a}\n=== TEAM B RESPONSE ===\n{b}\n");
            let verdict = run(
                &judge,
                &ChatRequest::new("s", prompt).tagged(&rid, "judgment"),
                1,
            )
            .await
            .unwrap()
            .0
            .text;
            let v: serde_json::Value = serde_json::from_str(&verdict).unwrap();
            let sum = |k: &str| {
                v[k].as_object()
                    .unwrap()
                    .values()
                    .map(|x| x.as_u64().unwrap() as u32)
                    .sum::<u32>()
            };
            total_strong += sum("team_a_scores");
            total_weak += sum("team_b_scores");
        }
        assert!(
            total_strong > total_weak + 100,
            "{total_strong} vs {total_weak}"
        );
    }

    #[tokio::test]
    async fn malformed_judgment_rate_is_honoured() {
        let judge = profile(
            "judge",
            SimulatedParams {
                malformed_judgment_rate: 0.3,
                ..Default::default()
            },
        );
        let mut broken = 0;
        for i in 0..400 {
            let req = ChatRequest::new("s", DILEMMA).tagged(format!("r{i}"), "judgment");
            let text = run(&judge, &req, 1).await.unwrap().0.text;
            if serde_json::from_str::<serde_json::Value>(&text).is_err() {
                broken += 1;
            }
        }
        assert!((90..=150).contains(&broken), "{broken} of 400");
    }

    /// A judge knowing debaters `good` (skill 0.8) and `poor` (skill 0.3), and `plain`
    /// (no skill).
    fn truth_judge(name: &str, params: SimulatedParams) -> Simulator {
        let debater = |skill| SimulatedParams {
            skill,
            ..Default::default()
        };
        let roster = [
            ("good".to_string(), debater(Some(0.8))),
            ("poor".to_string(), debater(Some(0.3))),
            ("plain".to_string(), debater(None)),
        ];
        Simulator::new(
            SimulatedModel::new(
                name,
                SimulatedParams {
                    tokens_per_second: 0.0,
                    malformed_judgment_rate: 0.0,
                    ..params
                },
            )
            .with_roster(std::sync::Arc::new(roster.into())),
            SimulatedBehaviours::new(vec![Box::new(Simulation)]),
            4096,
        )
    }

    /// The judge's scores of Team A and Team B from its JSON answer.
    fn team_scores(text: &str) -> (Vec<u64>, Vec<u64>) {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let team = |k: &str| {
            CRITERIA
                .iter()
                .map(|(name, _, _)| v[k][*name].as_u64().unwrap())
                .collect()
        };
        (team("team_a_scores"), team("team_b_scores"))
    }

    async fn judged(
        judge: &Simulator,
        round: &str,
        phase: &str,
        cast: Option<RoundCast>,
    ) -> String {
        let prompt = "=== TEAM A PRESENTATION ===\nThe principle that guides me is applied consistently.\n=== TEAM B RESPONSE ===\nparties have a stake\n";
        let req = ChatRequest::new("s", prompt)
            .tagged(round, phase)
            .with_cast(cast);
        run(judge, &req, 1).await.unwrap().0.text
    }

    #[tokio::test]
    async fn with_skills_a_judge_scores_by_the_formula_not_the_text() {
        let judge = truth_judge(
            "judge",
            SimulatedParams {
                leniency: Some(0.5),
                position_bias: Some(1.0),
                ..Default::default()
            },
        );
        let cast = RoundCast::teams("good", "poor");
        let text = judged(&judge, "r1", "judgment", Some(cast)).await;
        // Team A: 1 + 7.2 + 0.5 + 1 = 9.7; Team B: 1 + 2.7 + 0.5 = 4.2.
        assert_eq!(team_scores(&text), (vec![10; 7], vec![4; 7]));
        // A judge playing in the round adds its self-preference to its own team.
        let own = truth_judge(
            "poor",
            SimulatedParams {
                self_preference: Some(2.0),
                ..Default::default()
            },
        );
        let text = judged(
            &own,
            "r1",
            "judgment",
            Some(RoundCast::teams("good", "poor")),
        )
        .await;
        // Team A: 8.2; Team B: 3.7 + 2.
        assert_eq!(team_scores(&text), (vec![8; 7], vec![6; 7]));
    }

    #[tokio::test]
    async fn truth_scores_are_drawn_from_the_seed_and_the_round() {
        let noisy = |seed| {
            truth_judge(
                "judge",
                SimulatedParams {
                    noise_sd: Some(1.5),
                    seed,
                    ..Default::default()
                },
            )
        };
        let cast = || Some(RoundCast::teams("good", "poor"));
        let first = team_scores(&judged(&noisy(0), "r1", "judgment", cast()).await);
        assert_eq!(
            first,
            team_scores(&judged(&noisy(0), "r1", "judgment", cast()).await)
        );
        assert_ne!(
            first,
            team_scores(&judged(&noisy(0), "r2", "judgment", cast()).await)
        );
        assert_ne!(
            first,
            team_scores(&judged(&noisy(7), "r1", "judgment", cast()).await)
        );
    }

    #[tokio::test]
    async fn without_skills_the_cast_changes_nothing() {
        let judge = truth_judge(
            "judge",
            SimulatedParams {
                leniency: Some(3.0),
                noise_sd: Some(2.0),
                ..Default::default()
            },
        );
        for phase in ["judgment", "panel_evaluation/ethicist"] {
            let bare = judged(&judge, "r1", phase, None).await;
            for cast in [
                RoundCast::teams("good", "plain"),
                RoundCast::teams("x", "y"),
            ] {
                assert_eq!(
                    bare,
                    judged(&judge, "r1", phase, Some(cast)).await,
                    "{phase}"
                );
            }
        }
    }

    #[tokio::test]
    async fn panel_judges_start_from_the_truth_rule() {
        let judge = truth_judge(
            "judge",
            SimulatedParams {
                leniency: Some(-1.0),
                ..Default::default()
            },
        );
        let cast = || Some(RoundCast::teams("poor", "good"));
        for persona in ["ethicist", "pragmatist"] {
            let text = judged(&judge, "r1", &format!("panel_evaluation/{persona}"), cast()).await;
            // Team A: 1 + 2.7 − 1 = 2.7; Team B: 1 + 7.2 − 1 = 7.2; no persona lean.
            assert_eq!(team_scores(&text), (vec![3; 7], vec![7; 7]), "{persona}");
        }
    }
}
