//! The simulated judge on a question-answer panel. It judges as the single simulated judge
//! does (quotes in a debate, its own reading as an expert, a guess without the game), with
//! a persona's lean: how heavily an unverified quote counts against a debater (one to three
//! times a verified one), and a tilt of its scores and confidence, so judges on one panel
//! can disagree. Each debater is scored on argument strength and quote use from its
//! verified and unverified quotes. Deliberating, it moves its scores and confidence the
//! `deliberation_pull` share of the way to the others' and takes the others' answer when
//! pull × their share reaches one half; its independent view is drawn from the round and
//! persona alone, so a judge that never moves answers the same in every round.

use std::collections::BTreeMap;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use super::{between, coin, line_after, qa_pick, quote_counts, reading, truth_pick};
use crate::domain::Label;
use crate::protocols::panel::simulated::{context, toward, yields};
use crate::providers::RoundCast;
use crate::providers::simulated::{Call, SimulatedModel, rng_for};

/// A persona's way of judging.
struct Lean {
    /// How many verified quotes one unverified quote cancels.
    scepticism: i32,
    /// Added to every score.
    score: i32,
    /// Added to its confidence (0–100).
    confidence: i32,
}

/// One judge's view of the debate: the answer (0 for A), confidence 0–100, the debaters'
/// scores and why.
struct View {
    /// The answers it picks from: the sides, or a three-way baseline's labels.
    options: &'static [&'static str],
    pick: usize,
    confidence: f64,
    scores: BTreeMap<String, f64>,
    reasoning: String,
}

const LETTERS: [&str; 2] = ["A", "B"];
const LABELS: [&str; 3] = ["proved", "disproved", "unknown"];

/// The format a panel prompt is for, from what it shows the judge.
fn format_of(prompt: &str) -> &'static str {
    if prompt.contains("proved, disproved or unknown") {
        "three_way"
    } else if prompt.contains("<game>") {
        "expert"
    } else if prompt.contains("judging a consultation") {
        "consultancy"
    } else if prompt.contains("<transcript>") {
        "debate"
    } else {
        "naive"
    }
}

fn qa_lean(model: &SimulatedModel, persona: &str) -> Lean {
    let mut r = rng_for(&[persona, "qa-lean", &model.params.seed.to_string()]);
    Lean {
        scepticism: r.random_range(1..=3),
        score: r.random_range(-1..=1),
        confidence: r.random_range(-5..=5),
    }
}

/// The judge's independent view, drawn from the round and persona alone; in a debate whose
/// debaters both have a configured `skill`, its answer and confidence are the truth rule's
/// (see [`truth_pick`]), the persona's confidence tilt added.
fn qa_panel_view(
    model: &SimulatedModel,
    prompt: &str,
    persona: &str,
    round_id: &str,
    cast: Option<&RoundCast>,
) -> View {
    let lean = qa_lean(model, persona);
    let seed = model.params.seed.to_string();
    let mut rng = rng_for(&[&model.name, persona, round_id, &seed, "qa-panel"]);
    let format = format_of(prompt);
    if format == "three_way" {
        // Its own reading of the game, a random label at its noise.
        let game = between(prompt, "<game>", "</game>");
        let read = reading(model, game, line_after(prompt, "Question:"));
        let noise = ((1.0 - model.params.quality) * 0.3).clamp(0.0, 1.0);
        let label = if rng.random_bool(noise) {
            Label::ALL[rng.random_range(0..3)]
        } else {
            read.label
        };
        return View {
            options: &LABELS,
            pick: LABELS
                .iter()
                .position(|l| *l == label.as_str())
                .unwrap_or(2),
            confidence: f64::from((rng.random_range(60..=85) + lean.confidence).clamp(50, 99)),
            scores: BTreeMap::new(),
            reasoning: format!("The game points to \"{}\".", read.label.as_str()),
        };
    }
    let (pick, confidence, reasoning) = match truth_pick(model, cast, &mut rng) {
        Some(decided) => decided,
        None => {
            let (pick, confidence, reasoning) =
                qa_pick(model, format, prompt, lean.scepticism, &mut rng);
            let noise = ((1.0 - model.params.quality) * 0.3).clamp(0.0, 1.0);
            let pick = if rng.random_bool(noise) {
                coin(&mut rng)
            } else {
                pick
            };
            (pick, confidence, reasoning)
        }
    };
    let [a, b] = quote_counts(between(prompt, "<transcript>", "</transcript>"));
    let debaters: &[(&str, (i32, i32))] = match format {
        "debate" => &[("debater_a", a), ("debater_b", b)],
        "consultancy" => &[("debater_a", a)],
        _ => &[],
    };
    let clamp = |v: i32| f64::from(v.clamp(1, 10));
    let mut scores = BTreeMap::new();
    for (prefix, (verified, unverified)) in debaters {
        scores.insert(
            format!("{prefix}.argument_strength"),
            clamp(4 + 2 * verified - lean.scepticism * unverified + lean.score),
        );
        scores.insert(
            format!("{prefix}.quote_use"),
            clamp(3 + 2 * verified - 2 * unverified + lean.score),
        );
    }
    View {
        options: &LETTERS,
        pick,
        confidence: f64::from((confidence + lean.confidence).clamp(50, 99)),
        scores,
        reasoning,
    }
}

/// A panel judge's answer, independent or deliberating (unreadable at the malformed
/// rate, drawn per call).
pub(super) fn qa_panel_judge(
    model: &SimulatedModel,
    call: &Call<'_>,
    deliberating: bool,
    rng: &mut ChaCha8Rng,
) -> String {
    let prompt = call.prompt;
    let mut view = qa_panel_view(model, prompt, call.persona, call.round_id, call.cast);
    if deliberating {
        qa_deliberate(model, &mut view, prompt);
    }
    if rng.random_bool(model.params.malformed_judgment_rate) {
        return "Having weighed the debate again, I keep broadly to my reading of it.".into();
    }
    let mut answer = json!({
        "answer": view.options[view.pick],
        "confidence": view.confidence.round(),
        "key_findings": view.scores.iter().max_by(|a, b| a.1.total_cmp(b.1)).map(|(d, v)| {
            vec![json!({"dimension": d, "finding": format!("scored {v} on the quotes it relied on")})]
        }).unwrap_or_default(),
        "rationale": view.reasoning,
    });
    for prefix in ["debater_a", "debater_b"] {
        let mine: BTreeMap<&str, f64> = view
            .scores
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.strip_prefix('.')?, *v)))
            .collect();
        if !mine.is_empty() {
            answer[format!("{prefix}_scores")] = json!(mine);
        }
    }
    serde_json::to_string_pretty(&answer).unwrap_or_default()
}

/// Moves the view toward the other judges' positions in the prompt, from the position
/// the panel holds for this judge.
fn qa_deliberate(model: &SimulatedModel, view: &mut View, prompt: &str) {
    let ctx = context(prompt);
    let pull = model.params.deliberation_pull;
    if let Some(own) = &ctx.own {
        if let Some(i) = own
            .verdict
            .as_deref()
            .and_then(|v| view.options.iter().position(|l| *l == v))
        {
            view.pick = i;
        }
        if let Some(c) = own.confidence {
            view.confidence = c * 100.0;
        }
        if !own.scores.is_empty() {
            view.scores = own.scores.clone();
        }
    }
    if let Some((majority, share)) = ctx.others_majority(|p| p.verdict.as_ref())
        && majority != view.options[view.pick]
        && yields(pull, share)
        && let Some(i) = view.options.iter().position(|l| *l == majority)
    {
        view.pick = i;
        view.reasoning = format!("The other judges' reading persuaded me: {majority}.");
    }
    if let Some(target) = ctx.others_confidence() {
        view.confidence = toward(view.confidence, target * 100.0, pull).clamp(0.0, 100.0);
    }
    for (key, value) in view.scores.iter_mut() {
        if let Some(target) = ctx.others_mean(key) {
            *value = toward(*value, target, pull).clamp(1.0, 10.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimulatedParams;
    use serde_json::Value;

    fn answer_of(text: &str) -> Option<String> {
        serde_json::from_str::<Value>(text)
            .ok()?
            .get("answer")?
            .as_str()
            .map(str::to_string)
    }

    const DEBATE: &str = "You are judging a debate between Debater A and Debater B.\n\nQuestion: Does the cat attack the dog?\nAnswer A: Yes\nAnswer B: No\n\n<transcript>\nDebater A (round 1): <v_quote>the cat has 5 friends</v_quote> <v_quote>rule one</v_quote>\n\nDebater B (round 1): <u_quote>the cat is asleep</u_quote>\n</transcript>";

    /// A call of persona `x` in round `r` with this prompt.
    fn call(prompt: &str) -> Call<'_> {
        Call {
            tag: "qa_panel_evaluation/x",
            phase: "qa_panel_evaluation",
            persona: "x",
            round_id: "r",
            system: "",
            prompt,
            last_prompt: prompt,
            cast: None,
        }
    }

    fn judge(pull: f64) -> SimulatedModel {
        SimulatedModel::new(
            "j",
            SimulatedParams {
                quality: 1.0,
                malformed_judgment_rate: 0.0,
                deliberation_pull: pull,
                ..Default::default()
            },
        )
    }

    #[test]
    fn judges_the_quotes_and_scores_each_debater() {
        let mut rng = rng_for(&["t"]);
        let text = qa_panel_judge(&judge(0.5), &call(DEBATE), false, &mut rng);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["answer"], "A", "{text}");
        assert!(v["debater_a_scores"]["quote_use"].as_f64().unwrap() > 5.0);
        assert!(v["debater_b_scores"]["quote_use"].as_f64().unwrap() < 5.0);
        let again = qa_panel_judge(&judge(0.5), &call(DEBATE), false, &mut rng_for(&["u"]));
        assert_eq!(
            answer_of(&again),
            answer_of(&text),
            "the view is the round's"
        );
    }

    #[test]
    fn a_three_way_baseline_is_labelled_from_the_game() {
        let prompt = "<game>\nThe current state of the game:\nThe cat has 5 friends.\n\nThe rules of the game:\nRule1: If the cat has more than 3 friends, then the cat does not attack the dog.\n\nPreferences (which rule wins when two conflict):\n(none)\n</game>\n\nQuestion: Does the cat attack the dog?\n\nIs the goal proved, disproved or unknown?";
        let text = qa_panel_judge(&judge(0.5), &call(prompt), false, &mut rng_for(&["t"]));
        assert_eq!(answer_of(&text).as_deref(), Some("disproved"), "{text}");
        let deliberating = format!(
            "{prompt}\n### Your evaluation so far\nVerdict: disproved; confidence: 0.70\nRationale: r\n\n### The other judges\n\n#### y\nVerdict: unknown; confidence: 0.60\nRationale: r\n\nGive your updated evaluation."
        );
        let moved = qa_panel_judge(
            &judge(1.0),
            &call(&deliberating),
            true,
            &mut rng_for(&["t"]),
        );
        assert_eq!(answer_of(&moved).as_deref(), Some("unknown"), "{moved}");
    }

    #[test]
    fn deliberating_it_takes_the_others_answer_by_its_pull() {
        let prompt = format!(
            "{DEBATE}\n### Your evaluation so far\nVerdict: A; confidence: 0.80\nScores: debater_a.quote_use 8\nRationale: r\n\n### The other judges\n\n#### y\nVerdict: B; confidence: 0.60\nScores: debater_a.quote_use 4\nRationale: r\n\nGive your updated evaluation."
        );
        let mut rng = rng_for(&["t"]);
        let yielding = qa_panel_judge(&judge(1.0), &call(&prompt), true, &mut rng);
        let v: Value = serde_json::from_str(&yielding).unwrap();
        assert_eq!(v["answer"], "B");
        assert_eq!(v["debater_a_scores"]["quote_use"], 4.0);
        assert_eq!(v["confidence"], 60.0);
        let steady = qa_panel_judge(&judge(0.0), &call(&prompt), true, &mut rng);
        assert_eq!(answer_of(&steady).as_deref(), Some("A"));
    }

    #[test]
    fn with_skills_a_panel_judge_answers_by_the_truth_rule() {
        let debater = |skill| SimulatedParams {
            skill: Some(skill),
            ..Default::default()
        };
        let roster = [
            ("good".to_string(), debater(0.9)),
            ("fair".to_string(), debater(0.5)),
        ];
        let judge = judge(0.5).with_roster(std::sync::Arc::new(roster.into()));
        // The text favours A; the truth rule puts the right answer on B's stronger side.
        let cast = RoundCast {
            correct: Some(crate::domain::Team::B),
            ..RoundCast::teams("fair", "good")
        };
        let n = 1000;
        let b = (0..n)
            .filter(|i| {
                let round = format!("r{i}");
                let c = Call {
                    round_id: &round,
                    cast: Some(&cast),
                    ..call(DEBATE)
                };
                answer_of(&qa_panel_judge(&judge, &c, false, &mut rng_for(&["t"]))).as_deref()
                    == Some("B")
            })
            .count();
        let share = b as f64 / f64::from(n);
        let expected = crate::providers::simulated::truth::qa_right_probability(0.9, 0.5, 0.0);
        assert!((share - expected).abs() < 0.05, "{share} vs {expected}");
    }
}
