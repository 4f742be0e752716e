//! Prose a simulated model builds from its prompt: the answer to a request no behaviour
//! claims (`ethics-bowl ask`), and the pieces behaviours build their own text from.

use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::SimulatedModel;

/// Sentences of a considered answer, each with `{x}` for a piece of the prompt. The Ethics
/// Bowl's simulated debaters write them too, one per judging criterion, in the rubric's
/// order.
pub const SENTENCES: [&str; 7] = [
    "The principle that guides me is this: where {x}, we should act on the reasons we could defend to everyone affected.",
    "Applied consistently, the same principle has to cover the harder variant in which {x}.",
    "Several parties have a stake here, including those who cannot speak for themselves when {x}.",
    "I am genuinely uncertain about one empirical point, namely whether {x}, and my conclusion would change if it turned out otherwise.",
    "A consequentialist reading weighs the outcomes of the fact that {x}, while a deontological view asks which duties it creates, and virtue ethics asks what a good agent would do.",
    "The strongest objection to my view is that {x}, and I concede it has real force.",
    "Building on the other team's point, we agree on much, and the remaining disagreement concerns whether {x}.",
];

/// An answer to a free question: a greeting that quotes the prompt, then three of the
/// [`SENTENCES`] filled from it.
pub fn reply(model: &SimulatedModel, prompt: &str, rng: &mut ChaCha8Rng) -> String {
    let excerpt: String = prompt.chars().take(80).collect();
    let pieces = fragments(prompt);
    let mut out = format!(
        "Hello from {}, a simulated model (no network, no key). You wrote: \u{201c}{}\u{201d}. ",
        model.name,
        excerpt.trim()
    );
    let mut order: Vec<usize> = (0..SENTENCES.len()).collect();
    order.shuffle(rng);
    for &i in &order[..3] {
        out.push_str(&fill(SENTENCES[i], &pieces, rng));
        out.push(' ');
    }
    out.trim_end().to_string()
}

/// Clauses of the prompt that can stand after "whether" or "where": its sentences, lower-
/// cased at the start and without their final stop.
pub fn fragments(prompt: &str) -> Vec<String> {
    let pieces: Vec<String> = prompt
        .split(['.', '?', '!', '\n'])
        .map(str::trim)
        .filter(|s| s.split_whitespace().count() >= 6 && s.len() <= 220 && !s.contains(':'))
        .map(|s| {
            let mut c = s.chars();
            c.next()
                .map(|f| f.to_lowercase().chain(c).collect())
                .unwrap_or_default()
        })
        .collect();
    if pieces.is_empty() {
        vec!["the interests at stake pull in different directions".to_string()]
    } else {
        pieces
    }
}

/// One of the pieces, drawn.
pub fn pick<'a>(pieces: &'a [String], rng: &mut ChaCha8Rng) -> &'a str {
    &pieces[rng.random_range(0..pieces.len())]
}

/// The template with a drawn piece in its `{x}`.
pub fn fill(template: &str, pieces: &[String], rng: &mut ChaCha8Rng) -> String {
    template.replace("{x}", pick(pieces, rng))
}
