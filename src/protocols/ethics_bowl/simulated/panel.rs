//! The Ethics Bowl's simulated panel judges: an independent evaluation shifted by what the
//! persona cares about (or, when both debaters have a configured `skill`, scored as a single
//! judge scores them, with no persona lean), and deliberation that closes the configured
//! share of the gap to the other judges' mean scores, read from the deliberation prompt.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{
    CRITERIA, broken_judgment, scores, scores_json, strongest, strongest_key, test_readings_json,
};
use crate::protocols::panel::simulated::{score_line, section};
use crate::providers::simulated::{Call, SimulatedModel, rng_for};

/// A panel judge's independent evaluation: the cue scores shifted by what its persona
/// cares about (a fixed lean per criterion, seeded by the persona), so judges differ; or,
/// when both debaters have a `skill`, the scores of the truth rule (the model's own biases
/// and noise, drawn for this persona's call), unshifted.
pub(super) fn evaluation(model: &SimulatedModel, call: &Call<'_>, rng: &mut ChaCha8Rng) -> String {
    let (prompt, persona) = (call.prompt, call.persona);
    let ((mut a, mut b), from_truth) = scores(model, call, rng);
    if !from_truth {
        let mut lean = rng_for(&[persona, "lean", &model.params.seed.to_string()]);
        for s in a.iter_mut().chain(b.iter_mut()) {
            *s = (i32::from(*s) + lean.random_range(-3..=3)).clamp(1, 10) as u8;
        }
    }
    if let Some(broken) = broken_judgment(model, &a, &b, rng) {
        return broken;
    }
    let confidence = rng.random_range(55..=90) as f64 / 100.0;
    evaluation_json(
        &a,
        &b,
        &test_readings_json(prompt),
        confidence,
        "My independent reading of the exchange.",
    )
}

/// A panel judge deliberating: it reads its own scores and the other judges' from the
/// prompt and closes the configured share of the gap to their mean.
pub(super) fn deliberation(
    model: &SimulatedModel,
    call: &Call<'_>,
    rng: &mut ChaCha8Rng,
) -> String {
    let prompt = call.prompt;
    let own_section = section(prompt, "### Your evaluation so far", "### The other judges");
    let others_section = section(
        prompt,
        "### The other judges",
        "Give your updated evaluation",
    );
    let own = own_section.lines().find_map(score_line);
    let others: Vec<Vec<(String, f64)>> = others_section.lines().filter_map(score_line).collect();
    let Some(first_other) = others.first() else {
        return evaluation(model, call, rng);
    };
    let pull = model.params.deliberation_pull;
    let mut updated: Vec<(String, f64)> = Vec::new();
    for (key, _) in first_other {
        let theirs: Vec<f64> = others
            .iter()
            .filter_map(|o| o.iter().find(|(k, _)| k == key).map(|(_, v)| *v))
            .collect();
        let mean = theirs.iter().sum::<f64>() / theirs.len() as f64;
        let mine = own
            .as_ref()
            .and_then(|o| o.iter().find(|(k, _)| k == key).map(|(_, v)| *v))
            .unwrap_or(mean);
        updated.push((
            key.clone(),
            (mine + pull * (mean - mine)).round().clamp(1.0, 10.0),
        ));
    }
    if rng.random_bool(model.params.malformed_judgment_rate) {
        return "I have reconsidered and mostly keep my view, for the reasons given before.".into();
    }
    let side = |team: &str| -> Vec<u8> {
        CRITERIA
            .iter()
            .map(|(name, _, _)| {
                updated
                    .iter()
                    .find(|(k, _)| *k == format!("{team}.{name}"))
                    .map_or(5, |(_, v)| *v as u8)
            })
            .collect()
    };
    let confidence = (0.6 + pull * 0.3).min(0.95);
    evaluation_json(
        &side("team_a"),
        &side("team_b"),
        &test_readings_json(prompt),
        confidence,
        &format!(
            "Having read the other judges, I moved {:.0}% of the way toward their scores.",
            pull * 100.0
        ),
    )
}

/// A panel evaluation in the panel's JSON format; `tests` is the `consistency_tests` field
/// with its trailing comma, or empty.
fn evaluation_json(a: &[u8], b: &[u8], tests: &str, confidence: f64, rationale: &str) -> String {
    let total_a: u32 = a.iter().map(|&v| u32::from(v)).sum();
    let total_b: u32 = b.iter().map(|&v| u32::from(v)).sum();
    let verdict = match total_a.cmp(&total_b) {
        std::cmp::Ordering::Greater => "team_a",
        std::cmp::Ordering::Less => "team_b",
        std::cmp::Ordering::Equal => "tie",
    };
    let (best_a, best_b) = (strongest(a), strongest(b));
    format!(
        "{{\n  \"verdict\": \"{verdict}\",\n  \"confidence\": {confidence:.2},\n  \"team_a_scores\": {},\n  \"team_b_scores\": {},{tests}\n  \"key_findings\": [{{\"dimension\": \"team_a.{}\", \"finding\": \"Team A is {best_a}.\"}}, {{\"dimension\": \"team_b.{}\", \"finding\": \"Team B is {best_b}.\"}}],\n  \"rationale\": \"{rationale} Totals {total_a} to {total_b}.\"\n}}",
        scores_json(a),
        scores_json(b),
        strongest_key(a),
        strongest_key(b),
    )
}
