//! The simulated model in the question-answer debate. It really reads the game in its
//! prompt, with a crude reasoner: the sentence that shares most words with the question
//! decides, by its negation, between proved and disproved, and a weak match means unknown
//! (about 50% right on BoardgameQA's Main items, against 33% by chance; a model's quality
//! adds or removes noise). As a debater it quotes that sentence when its assigned answer
//! agrees with its reading, and when it does not, it bluffs with an invented quote at the
//! configured rate. As a judge it weighs verified against unverified quotes (or, in a
//! debate whose debaters both have a configured `skill`, picks the right answer with the
//! chance [`truth::qa_right_probability`] gives); as an expert it reads the game itself; as
//! a naive judge it guesses. Its panel judges are in
//! [`panel`]; [`Simulation`] answers the protocol's calls for the simulated provider.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::quotes::{normalise, split_rules, split_sentences};
use crate::domain::{Label, Team};
use crate::providers::RoundCast;
use crate::providers::simulated::{
    Call, SimulatedBehaviour, SimulatedModel, fnv1a, rng_for, truth,
};

mod panel;

/// The question-answer debate's debaters, consultants and judges, single and on panels.
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
            "qa_argument" => qa_argument(model, call.system, call.prompt, call.last_prompt, rng),
            "qa_judgment" => qa_judgment(model, call.persona, call.prompt, call.cast, rng),
            "qa_panel_evaluation" | "qa_deliberation" => {
                panel::qa_panel_judge(model, call, call.phase == "qa_deliberation", rng)
            }
            _ => return None,
        })
    }
}

const STOP: [&str; 24] = [
    "the",
    "a",
    "an",
    "of",
    "to",
    "does",
    "do",
    "is",
    "it",
    "based",
    "on",
    "game",
    "state",
    "and",
    "rules",
    "preferences",
    "what",
    "whose",
    "that",
    "this",
    "in",
    "for",
    "with",
    "by",
];

fn words(text: &str) -> Vec<String> {
    normalise(text)
        .split(' ')
        .filter(|w| !w.is_empty() && !STOP.contains(w))
        .map(str::to_string)
        .collect()
}

fn negated(text: &str) -> bool {
    let n = format!(" {} ", normalise(text));
    n.contains(" not ") || n.contains("n't ") || n.contains(" no ")
}

pub(super) fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    text.find(start)
        .map(|i| &text[i + start.len()..])
        .map(|rest| rest.find(end).map_or(rest, |j| &rest[..j]))
        .unwrap_or("")
}

fn line_after<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(prefix))
        .unwrap_or("")
        .trim()
}

/// What the simulated model finds in the game.
struct Reading {
    /// The label it believes.
    label: Label,
    /// The game's units, most relevant to the question first.
    relevant: Vec<String>,
}

/// The crude reasoner over the game's sentences.
fn read_game(game: &str, question: &str) -> Reading {
    let facts = between(
        game,
        "The current state of the game:",
        "The rules of the game:",
    );
    let rules = between(game, "The rules of the game:", "Preferences");
    let q = words(question);
    let mut scored: Vec<(f64, String, String)> = Vec::new();
    for sentence in split_sentences(facts.trim()) {
        scored.push((0.0, sentence.clone(), sentence));
    }
    for rule in split_rules(rules.trim()) {
        // A rule's conclusion is what it establishes.
        let conclusion = rule
            .rsplit_once("then")
            .map_or(rule.as_str(), |(_, c)| c)
            .to_string();
        scored.push((0.0, rule, conclusion));
    }
    for (score, _, basis) in &mut scored {
        let w = words(basis);
        let hits = q.iter().filter(|x| w.contains(x)).count();
        *score = hits as f64 / q.len().max(1) as f64;
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let label = match scored.first() {
        Some((score, _, basis)) if *score >= 0.6 => {
            if negated(basis) != negated(question) {
                Label::Disproved
            } else {
                Label::Proved
            }
        }
        _ => Label::Unknown,
    };
    Reading {
        label,
        relevant: scored.into_iter().map(|(_, s, _)| s).collect(),
    }
}

/// The label an answer text stands for.
fn label_of(answer: &str) -> Option<Label> {
    Label::ALL
        .into_iter()
        .find(|l| answer.starts_with(l.answer()))
}

/// A quotable piece of a sentence: its words without the closing punctuation.
fn quotable(sentence: &str) -> String {
    sentence
        .trim()
        .trim_end_matches(['.', '!', '?'])
        .to_string()
}

/// A sentence with its negation flipped: the kind of quote a bluffing debater invents.
fn flipped(sentence: &str) -> String {
    let s = quotable(sentence);
    if s.contains(" does not ") {
        s.replacen(" does not ", " does ", 1)
    } else if s.contains(" not ") {
        s.replacen(" not ", " ", 1)
    } else if let Some((head, tail)) = s.split_once(" then ") {
        format!("{head} then it is certain that {tail}")
    } else {
        format!("it is known that {s} is false")
    }
}

/// A fair coin between the two answers (0 for A).
pub(super) fn coin(rng: &mut ChaCha8Rng) -> usize {
    if rng.random_bool(0.5) { 0 } else { 1 }
}

/// Counts of verified and unverified quotes per debater in a transcript.
pub(super) fn quote_counts(transcript: &str) -> [(i32, i32); 2] {
    let mut counts = [(0, 0); 2];
    for part in transcript.split("\n\n").map(str::trim_start) {
        let side = if part.starts_with("Debater A") {
            0
        } else if part.starts_with("Debater B") {
            1
        } else {
            continue;
        };
        counts[side].0 += part.matches("<v_quote>").count() as i32;
        counts[side].1 += part.matches("<u_quote>").count() as i32;
    }
    counts
}

/// The model's reading, with noise that shrinks with quality. The noise is drawn from
/// the model and the item alone, so a model holds one belief about an item whichever
/// side it argues and in every round.
fn reading(model: &SimulatedModel, game: &str, question: &str) -> Reading {
    let mut reading = read_game(game, question);
    let item = format!(
        "{:016x}",
        fnv1a(format!("{game}\u{1f}{question}").as_bytes())
    );
    let mut rng = rng_for(&[
        &model.name,
        "reading",
        &model.params.seed.to_string(),
        &item,
    ]);
    if rng.random_bool(((1.0 - model.params.quality) * 0.5).clamp(0.0, 1.0)) {
        reading.label = Label::ALL[rng.random_range(0..3)];
    }
    reading
}

/// A debater's or consultant's turn: the question, the answers and its side from its
/// opening message, the game and the transcript from the round's message.
pub(super) fn qa_argument(
    model: &SimulatedModel,
    system: &str,
    opening: &str,
    prompt: &str,
    rng: &mut ChaCha8Rng,
) -> String {
    let game = between(prompt, "<game>", "</game>");
    let question = line_after(opening, "Question:");
    let mine = between(opening, "you argue for answer ", ",")
        .trim()
        .trim_end_matches('.');
    let my_answer = line_after(opening, &format!("Answer {mine}:"));
    let my_label = label_of(my_answer).unwrap_or(Label::Unknown);
    let limit: usize = between(system, "under ", " words")
        .trim()
        .parse()
        .unwrap_or(150);
    let reading = reading(model, game, question);
    let honest = reading.label == my_label;
    let best = reading.relevant.first().cloned().unwrap_or_default();
    let mut quotes = Vec::new();
    if honest {
        for sentence in reading.relevant.iter().take(2) {
            quotes.push(if rng.random_bool(model.params.invented_quote_rate) {
                flipped(sentence)
            } else {
                quotable(sentence)
            });
        }
    } else if rng.random_bool(model.params.bluff_rate) {
        quotes.push(flipped(&best));
    } else if let Some(weak) = reading.relevant.get(2).or(reading.relevant.last()) {
        quotes.push(quotable(weak));
    }
    let opponent = if mine == "A" { "B" } else { "A" };
    let transcript = between(prompt, "<transcript>", "</transcript>");
    let [a, b] = quote_counts(transcript);
    let their_unverified = if opponent == "A" { a.1 } else { b.1 };
    let mut argument = format!("The answer is {my_answer}.");
    for q in &quotes {
        argument.push_str(&format!(
            " The game says <quote>{q}</quote>, which settles it."
        ));
    }
    if their_unverified > 0 {
        argument.push_str(&format!(
            " Debater {opponent} relies on {their_unverified} quote(s) that are not in the game; discount them."
        ));
    }
    argument.push_str(" Nothing in the rules or preferences overturns this.");
    if rng.random_bool(model.params.overlong_rate) {
        let filler = " To repeat the point at length, every step of the reasoning above follows from the game as stated.";
        while argument.split_whitespace().count() <= limit {
            argument.push_str(filler);
        }
    }
    format!(
        "<thinking>My reading of the game is \"{}\"; I argue \"{}\".</thinking>\n<argument>{argument}</argument>",
        reading.label.as_str(),
        my_label.as_str()
    )
}

/// Which answer a judge of this format picks (0 for A), how sure it is (0–100) and why,
/// before its noise: the evidence of the quotes in a debate or consultancy (an unverified
/// quote counts `scepticism` times against), its own reading as an expert, a guess
/// without the game.
pub(super) fn qa_pick(
    model: &SimulatedModel,
    format: &str,
    prompt: &str,
    scepticism: i32,
    rng: &mut ChaCha8Rng,
) -> (usize, i32, String) {
    let answers = [
        label_of(line_after(prompt, "Answer A:")),
        label_of(line_after(prompt, "Answer B:")),
    ];
    match format {
        "expert" | "expert_cot" => {
            let game = between(prompt, "<game>", "</game>");
            let reading = reading(model, game, line_after(prompt, "Question:"));
            match answers.iter().position(|a| *a == Some(reading.label)) {
                Some(side) => (
                    side,
                    rng.random_range(70..=88),
                    format!("The game points to \"{}\".", reading.label.as_str()),
                ),
                None => (
                    coin(rng),
                    rng.random_range(50..=60),
                    "Neither answer matches my reading; I guess.".into(),
                ),
            }
        }
        "debate" | "consultancy" => {
            let [a, b] = quote_counts(between(prompt, "<transcript>", "</transcript>"));
            let score = |(v, u): (i32, i32)| v - scepticism * u;
            let diff = if format == "consultancy" {
                score(a)
            } else {
                score(a) - score(b)
            };
            match diff.signum() {
                1 => (
                    0,
                    (55 + 10 * diff).min(95),
                    format!(
                        "Debater A's evidence holds up better ({} verified, {} unverified quotes).",
                        a.0, a.1
                    ),
                ),
                -1 => (
                    1,
                    (55 - 10 * diff).min(95),
                    format!(
                        "Debater B's evidence holds up better ({} verified, {} unverified quotes).",
                        b.0, b.1
                    ),
                ),
                _ => (
                    coin(rng),
                    rng.random_range(50..=60),
                    "The evidence is balanced; I lean one way.".into(),
                ),
            }
        }
        _ => (
            coin(rng),
            rng.random_range(50..=62),
            "Without the game I can only guess.".into(),
        ),
    }
}

/// A debate judge's pick by the truth rule (see [`truth::qa_decision`]) when both debaters
/// have a configured `skill`: the side (0 for A), a confidence of `100·max(p, 1 − p)` for
/// the chance `p` it had of being right, and why; none otherwise.
pub(super) fn truth_pick(
    model: &SimulatedModel,
    cast: Option<&RoundCast>,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, i32, String)> {
    let decision = truth::qa_decision(model, cast, rng)?;
    let side = usize::from(decision.side == Team::B);
    let sure = decision.p_right.max(1.0 - decision.p_right);
    let letter = ["A", "B"][side];
    Some((
        side,
        ((100.0 * sure).round() as i32).clamp(50, 99),
        format!("Weighing both debaters, Debater {letter}'s case is the more convincing."),
    ))
}

/// A judge's choice in any format: in a debate between debaters with a configured `skill`,
/// by the truth rule ([`truth_pick`]); otherwise from the text, with noise that shrinks
/// with quality.
pub(super) fn qa_judgment(
    model: &SimulatedModel,
    format: &str,
    prompt: &str,
    cast: Option<&RoundCast>,
    rng: &mut ChaCha8Rng,
) -> String {
    if format.starts_with("three_way") {
        return three_way(model, format, prompt, rng);
    }
    let (pick, confidence, reasoning) = match truth_pick(model, cast, rng) {
        Some(decided) => decided,
        None => {
            let (pick, confidence, reasoning) = qa_pick(model, format, prompt, 2, rng);
            let noise = ((1.0 - model.params.quality) * 0.3).clamp(0.0, 1.0);
            let pick = if rng.random_bool(noise) {
                coin(rng)
            } else {
                pick
            };
            (pick, confidence, reasoning)
        }
    };
    let letter = ["A", "B"][pick];
    if rng.random_bool(model.params.malformed_judgment_rate) {
        return format!(
            "{reasoning} On balance I side with the {} debater.",
            ["first", "second"][pick]
        );
    }
    let steps = if format == "expert_cot" {
        "Step 1: find the facts the question turns on. Step 2: apply the rules and preferences to them.\n"
    } else {
        ""
    };
    format!("{steps}{reasoning}\nAnswer: {letter}\nConfidence: {confidence}")
}

/// A three-way baseline: its own reading of the game as the label (a random label at the
/// judge's noise), with its thinking and argument first when the format asks.
fn three_way(model: &SimulatedModel, format: &str, prompt: &str, rng: &mut ChaCha8Rng) -> String {
    let game = between(prompt, "<game>", "</game>");
    let read = reading(model, game, line_after(prompt, "Question:"));
    let noise = ((1.0 - model.params.quality) * 0.3).clamp(0.0, 1.0);
    let label = if rng.random_bool(noise) {
        Label::ALL[rng.random_range(0..3)]
    } else {
        read.label
    };
    if rng.random_bool(model.params.malformed_judgment_rate) {
        return "The rules leave me torn between the readings.".into();
    }
    if format == "three_way_argued" {
        let basis = read.relevant.first().map_or("", String::as_str);
        serde_json::json!({
            "thinking": format!("The sentence that bears most on the goal: {basis}"),
            "argument": format!("From \"{}\", the goal is {}.", quotable(basis), label.as_str()),
            "answer": label.as_str(),
        })
        .to_string()
    } else {
        serde_json::json!({ "answer": label.as_str() }).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimulatedParams;
    use crate::providers::simulated::truth::qa_right_probability;

    const GAME: &str = "The current state of the game:\nThe cat has 5 friends. The owl is named Lucy.\n\nThe rules of the game:\nRule1: If the cat has more than 3 friends, then the cat does not attack the dog.\n\nPreferences (which rule wins when two conflict):\n(none)";

    #[test]
    fn reads_the_game() {
        let r = read_game(
            GAME,
            "Based on the game state and the rules and preferences, does the cat attack the dog?",
        );
        assert_eq!(r.label, Label::Disproved);
        assert!(r.relevant[0].starts_with("Rule1"));
        assert_eq!(
            read_game(GAME, "Does the zebra sing?").label,
            Label::Unknown
        );
    }

    /// The reader's accuracy on the real files (printed; the README quotes it).
    #[test]
    fn the_reader_beats_chance_on_boardgameqa() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/boardgameqa");
        let sample =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config/qa-sample.json");
        for file in [
            dir.join("Main-depth1-test.json"),
            dir.join("Main-depth2-test.json"),
            sample,
        ] {
            let Ok(loaded) = crate::inputs::load_items(&file, None) else {
                eprintln!("skipped: {} is absent", file.display());
                continue;
            };
            let right = loaded
                .items
                .iter()
                .filter(|i| {
                    let game = format!(
                        "The current state of the game:\n{}\n\nThe rules of the game:\n{}\n\nPreferences (which rule wins when two conflict):\n{}",
                        i.facts, i.rules, i.preferences
                    );
                    read_game(&game, &i.question).label == i.label
                })
                .count();
            let share = right as f64 / loaded.items.len() as f64;
            eprintln!(
                "{}: {right} of {} ({share:.2})",
                file.display(),
                loaded.items.len()
            );
            assert!(share > 0.4, "{share}");
        }
    }

    #[test]
    fn bluffs_are_not_in_the_game() {
        let game = crate::protocols::qa_debate::quotes::GameText::new(
            "The cat has 5 friends.",
            "Rule1: If the cat has more than 3 friends, then the cat does not attack the dog.",
            "",
        );
        assert!(game.contains(&quotable(
            "Rule1: If the cat has more than 3 friends, then the cat does not attack the dog."
        )));
        assert!(!game.contains(&flipped(
            "Rule1: If the cat has more than 3 friends, then the cat does not attack the dog."
        )));
        assert!(!game.contains(&flipped("The cat has 5 friends.")));
    }

    /// A debate judge knowing debaters `good` (skill 0.9), `fair` (0.5) and `plain` (none).
    fn truth_judge(name: &str, biases: SimulatedParams) -> SimulatedModel {
        crate::providers::simulated::truth::judge_knowing(
            name,
            biases,
            &[("good", Some(0.9)), ("fair", Some(0.5)), ("plain", None)],
        )
    }

    const DEBATE_PROMPT: &str = "Question: Does the cat attack the dog?\nAnswer A: Yes\nAnswer B: No\n<transcript>\nDebater A (round 1): <v_quote>the cat has 5 friends</v_quote>\n</transcript>";

    /// The share of 2000 rounds in which the judge answers Debater A.
    fn share_a(judge: &SimulatedModel, cast: &RoundCast) -> f64 {
        let n = 2000;
        let a = (0..n)
            .filter(|i| {
                let mut rng = rng_for(&[&format!("r{i}")]);
                let text = qa_judgment(judge, "debate", DEBATE_PROMPT, Some(cast), &mut rng);
                text.contains("\nAnswer: A\n")
            })
            .count();
        a as f64 / f64::from(n)
    }

    fn cast(a: &str, b: &str, correct: Team, first: Team) -> RoundCast {
        RoundCast {
            read_first: first,
            correct: Some(correct),
            ..RoundCast::teams(a, b)
        }
    }

    #[test]
    fn with_skills_a_debate_judge_is_right_as_often_as_the_formula_says() {
        let judge = truth_judge("judge", SimulatedParams::default());
        // The right debater the stronger, the weaker, or as strong: right 83%, 17%, 50%.
        for (a, b, expected) in [
            ("good", "fair", qa_right_probability(0.9, 0.5, 0.0)),
            ("fair", "good", qa_right_probability(0.5, 0.9, 0.0)),
            ("fair", "fair", 0.5),
        ] {
            let share = share_a(&judge, &cast(a, b, Team::A, Team::A));
            assert!(
                (share - expected).abs() < 0.04,
                "{a} vs {b}: {share} vs {expected}"
            );
        }
        // Right answer on B's side: the same chance of picking it.
        let share = 1.0 - share_a(&judge, &cast("fair", "good", Team::B, Team::A));
        assert!(
            (share - qa_right_probability(0.9, 0.5, 0.0)).abs() < 0.04,
            "{share}"
        );
    }

    #[test]
    fn position_bias_leans_toward_the_debater_read_first() {
        let judge = truth_judge(
            "judge",
            SimulatedParams {
                position_bias: Some(1.0),
                ..Default::default()
            },
        );
        let first_a = share_a(&judge, &cast("fair", "fair", Team::A, Team::A));
        let first_b = share_a(&judge, &cast("fair", "fair", Team::A, Team::B));
        let expected = qa_right_probability(0.5, 0.5, 1.0);
        assert!((first_a - expected).abs() < 0.04, "{first_a} vs {expected}");
        assert!((first_b - (1.0 - expected)).abs() < 0.04, "{first_b}");
    }

    #[test]
    fn without_skills_the_cast_changes_nothing() {
        let judge = truth_judge(
            "judge",
            SimulatedParams {
                position_bias: Some(3.0),
                ..Default::default()
            },
        );
        for i in 0..50 {
            let key = format!("r{i}");
            let bare = qa_judgment(&judge, "debate", DEBATE_PROMPT, None, &mut rng_for(&[&key]));
            for c in [
                cast("good", "plain", Team::A, Team::B),
                RoundCast::teams("good", "fair"),
            ] {
                let with = qa_judgment(
                    &judge,
                    "debate",
                    DEBATE_PROMPT,
                    Some(&c),
                    &mut rng_for(&[&key]),
                );
                assert_eq!(bare, with);
            }
        }
    }

    #[test]
    fn truth_picks_are_drawn_from_the_round() {
        let judge = truth_judge("judge", SimulatedParams::default());
        let c = cast("good", "fair", Team::A, Team::A);
        let pick = |key: &str| {
            qa_judgment(
                &judge,
                "debate",
                DEBATE_PROMPT,
                Some(&c),
                &mut rng_for(&[key]),
            )
        };
        assert_eq!(pick("r1"), pick("r1"));
        let text = pick("r1");
        assert!(text.contains("Confidence: 83"), "{text}");
    }
}
