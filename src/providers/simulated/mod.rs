//! The offline `simulated` provider: deterministic answers, streamed at a set rate, so the
//! tool and its tests run with no network and no keys. It is a stand-in for a model, never
//! for a client: nothing it does is evidence that a real provider works.
//!
//! Each simulated model has a profile: a strength per judging criterion, drawn from its name
//! around its configured quality. As a debater it writes, for each criterion, a sentence of
//! the kind a judge rewards, with a probability equal to its strength, built from sentences
//! of the dilemma in its prompt. As a judge it scores each team by the evidence of those
//! sentences in the transcript, and answers in broken or free-form text at its configured
//! rate, so the manual-review path is exercised. The question-answer debate's behaviour is
//! in [`qa`], the structured debate's in [`structured`], and their panel judges in
//! [`qa_panel`] and [`structured_panel`] (reading the deliberation prompt with [`panel`]).

mod panel;
mod qa;
mod qa_panel;
mod structured;
mod structured_panel;

use std::time::Duration;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::ProviderError;
use super::types::{ChatRequest, Completion, FinishReason, Usage};
use crate::config::SimulatedParams;
use crate::domain::ErrorKind;

/// The seven judging criteria, in the rubric's order, with the sentence a debater strong on
/// each criterion writes and the cue a simulated judge looks for. `{x}` is a piece of the
/// dilemma.
const CRITERIA: [(&str, &str, &str); 7] = [
    (
        "principle_articulation",
        "The principle that guides me is this: where {x}, we should act on the reasons we could defend to everyone affected.",
        "principle that guides me",
    ),
    (
        "consistency",
        "Applied consistently, the same principle has to cover the harder variant in which {x}.",
        "applied consistently",
    ),
    (
        "stakeholder_recognition",
        "Several parties have a stake here, including those who cannot speak for themselves when {x}.",
        "parties have a stake",
    ),
    (
        "uncertainty_integration",
        "I am genuinely uncertain about one empirical point, namely whether {x}, and my conclusion would change if it turned out otherwise.",
        "genuinely uncertain",
    ),
    (
        "framework_awareness",
        "A consequentialist reading weighs the outcomes of the fact that {x}, while a deontological view asks which duties it creates, and virtue ethics asks what a good agent would do.",
        "consequentialist reading",
    ),
    (
        "intellectual_honesty",
        "The strongest objection to my view is that {x}, and I concede it has real force.",
        "strongest objection",
    ),
    (
        "constructive_engagement",
        "Building on the other team's point, we agree on much, and the remaining disagreement concerns whether {x}.",
        "building on the other team",
    ),
];

/// A simulated model's quality profile.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedProfile {
    /// The model's configured name (part of every seed).
    pub name: String,
    /// Strength on each criterion, in the order of the rubric, from 0 to 1.
    pub strengths: [f64; 7],
    /// The configured knobs.
    pub params: SimulatedParams,
}

impl SimulatedProfile {
    /// The profile of the model with this name: strengths spread around its quality by a
    /// draw seeded with the name, so distinct models differ and the same model never changes.
    pub fn new(name: &str, params: SimulatedParams) -> Self {
        let mut rng = rng_for(&[name, "profile", &params.seed.to_string()]);
        let strengths = std::array::from_fn(|_| {
            (params.quality + rng.random_range(-0.2..=0.2)).clamp(0.05, 0.98)
        });
        Self {
            name: name.to_string(),
            strengths,
            params,
        }
    }

    /// Makes one attempt at a request.
    pub(crate) async fn attempt(
        &self,
        req: &ChatRequest,
        attempt: u32,
        max_tokens: u32,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Completion, ProviderError> {
        let key = self.request_key(req);
        let mut fail = rng_for(&[&key, "failure", &attempt.to_string()]);
        if fail.random_bool(self.params.failure_rate) {
            let mut e = ProviderError::new(
                ErrorKind::Simulated,
                "simulated transient failure (503 overloaded)",
                true,
            );
            e.status = Some(503);
            return Err(e);
        }
        let text = self.answer(req, &key);
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        let output_tokens = (words.len() as u64 * 4).div_ceil(3);
        let (text, finish_reason, provider_finish_reason) = if output_tokens > u64::from(max_tokens)
        {
            let keep = (max_tokens as usize * 3 / 4).min(words.len());
            (words[..keep].concat(), FinishReason::Length, "length")
        } else {
            (text.clone(), FinishReason::Stop, "stop")
        };
        self.stream(&text, on_delta).await;
        let input_chars = req.system.len() + req.turns.iter().map(|t| t.text.len()).sum::<usize>();
        Ok(Completion {
            usage: Some(Usage {
                input_tokens: (input_chars as u64).div_ceil(4),
                output_tokens: output_tokens.min(u64::from(max_tokens)),
            }),
            text,
            finish_reason,
            provider_finish_reason: provider_finish_reason.to_string(),
            request_id: None,
        })
    }

    /// Streams text in small pieces at the configured token rate, on tokio's clock.
    async fn stream(&self, text: &str, on_delta: &mut (dyn FnMut(&str) + Send)) {
        const WORDS_PER_PIECE: usize = 4;
        let rate = self.params.tokens_per_second;
        let pause = (rate > 0.0)
            .then(|| Duration::from_secs_f64(WORDS_PER_PIECE as f64 * 4.0 / 3.0 / rate));
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        for piece in words.chunks(WORDS_PER_PIECE) {
            if let Some(pause) = pause {
                tokio::time::sleep(pause).await;
            }
            on_delta(&piece.concat());
        }
    }

    /// What seeds this request's text: the round and phase when the engine gives them,
    /// the prompt otherwise.
    fn request_key(&self, req: &ChatRequest) -> String {
        let seed = self.params.seed.to_string();
        if req.tag.round_id.is_empty() {
            format!(
                "{}|{seed}|{:016x}",
                self.name,
                fnv1a(req.last_user_text().as_bytes())
            )
        } else {
            format!(
                "{}|{seed}|{}|{}",
                self.name, req.tag.round_id, req.tag.phase
            )
        }
    }

    fn answer(&self, req: &ChatRequest, key: &str) -> String {
        let mut rng = rng_for(&[key, "text"]);
        let prompt = req.last_user_text();
        let (phase, persona) = req
            .tag
            .phase
            .split_once('/')
            .unwrap_or((req.tag.phase.as_str(), ""));
        match phase {
            "judgment" => self.judgment(prompt, &mut rng),
            "panel_evaluation" => self.panel_evaluation(prompt, persona, &mut rng),
            "deliberation" => self.deliberation(prompt, persona, &mut rng),
            "presentation" | "response" | "rebuttal" | "consistency_test"
            | "consistency_test_b" => self.argument(&req.tag.phase, prompt, &mut rng),
            "qa_argument" => self.qa_argument(&req.system, prompt, &mut rng),
            "qa_judgment" => self.qa_judgment(persona, prompt, &mut rng),
            "structured_opening" | "structured_cross_examination" | "structured_closing" => {
                self.structured_reply(phase, persona, &req.system, prompt, &mut rng)
            }
            "structured_judgment" => self.structured_judgment(prompt, &mut rng),
            "qa_panel_evaluation" | "qa_deliberation" => self.qa_panel_judge(
                prompt,
                persona,
                &req.tag.round_id,
                phase == "qa_deliberation",
                &mut rng,
            ),
            "structured_panel_evaluation" | "structured_deliberation" => self
                .structured_panel_judge(
                    prompt,
                    persona,
                    &req.tag.round_id,
                    phase == "structured_deliberation",
                    &mut rng,
                ),
            _ => self.reply(prompt, &mut rng),
        }
    }

    /// An answer to a free question (`ethics-bowl ask`).
    fn reply(&self, prompt: &str, rng: &mut ChaCha8Rng) -> String {
        let excerpt: String = prompt.chars().take(80).collect();
        let pieces = fragments(prompt);
        let mut out = format!(
            "Hello from {}, a simulated model (no network, no key). You wrote: \u{201c}{}\u{201d}. ",
            self.name,
            excerpt.trim()
        );
        let mut order: Vec<usize> = (0..CRITERIA.len()).collect();
        order.shuffle(rng);
        for &i in &order[..3] {
            out.push_str(&fill(CRITERIA[i].1, &pieces, rng));
            out.push(' ');
        }
        out.trim_end().to_string()
    }

    /// A debater's turn: an opening on the dilemma, the criterion sentences its strengths
    /// earn, and for presentations the two labelled lines the consistency test quotes.
    fn argument(&self, phase: &str, prompt: &str, rng: &mut ChaCha8Rng) -> String {
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
            if rng.random_bool(self.strengths[i]) {
                paragraphs.push(fill(template, &pieces, rng));
            }
        }
        if phase.starts_with("consistency_test") {
            let honest = rng.random_bool(self.strengths[5]);
            paragraphs.push(if honest {
                "This case exposes a tension with what I said before; I need to refine my principle rather than pretend the cases are alike.".to_string()
            } else {
                "My earlier principle applies here without any change.".to_string()
            });
        }
        if phase == "presentation" {
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
    fn cue_scores(prompt: &str, rng: &mut ChaCha8Rng) -> (Vec<u8>, Vec<u8>) {
        let (team_a, team_b) = split_teams(prompt);
        let mut score = |text: &str, i: usize| -> u8 {
            let hits = text.to_lowercase().matches(CRITERIA[i].2).count().min(3) as i32;
            (4 + 2 * hits + rng.random_range(-1..=1)).clamp(1, 10) as u8
        };
        let a = (0..7).map(|i| score(&team_a, i)).collect();
        let b = (0..7).map(|i| score(&team_b, i)).collect();
        (a, b)
    }

    /// A judge's verdict: each team scored per criterion by the cues in its part of the
    /// transcript, in the requested JSON most of the time and broken at the configured rate.
    fn judgment(&self, prompt: &str, rng: &mut ChaCha8Rng) -> String {
        let (a, b) = Self::cue_scores(prompt, rng);
        if let Some(broken) = self.broken_judgment(&a, &b, rng) {
            return broken;
        }
        let total_a: u32 = a.iter().map(|&v| u32::from(v)).sum();
        let total_b: u32 = b.iter().map(|&v| u32::from(v)).sum();
        format!(
            "{{\n  \"team_a_scores\": {},\n  \"team_b_scores\": {},\n  \"team_a_justification\": \"Team A totals {total_a}: {}\",\n  \"team_b_justification\": \"Team B totals {total_b}: {}\",\n  \"overall_analysis\": \"{}\"\n}}",
            scores_json(&a),
            scores_json(&b),
            strongest(&a),
            strongest(&b),
            if total_a >= total_b {
                "Team A offered the more complete analysis."
            } else {
                "Team B's engagement outweighed Team A's presentation."
            }
        )
    }

    /// A panel judge's independent evaluation: the cue scores shifted by what its persona
    /// cares about (a fixed lean per criterion, seeded by the persona), so judges differ.
    fn panel_evaluation(&self, prompt: &str, persona: &str, rng: &mut ChaCha8Rng) -> String {
        let (mut a, mut b) = Self::cue_scores(prompt, rng);
        let mut lean = rng_for(&[persona, "lean", &self.params.seed.to_string()]);
        for s in a.iter_mut().chain(b.iter_mut()) {
            *s = (i32::from(*s) + lean.random_range(-3..=3)).clamp(1, 10) as u8;
        }
        if let Some(broken) = self.broken_judgment(&a, &b, rng) {
            return broken;
        }
        let confidence = rng.random_range(55..=90) as f64 / 100.0;
        evaluation_json(
            &a,
            &b,
            confidence,
            "My independent reading of the exchange.",
        )
    }

    /// A panel judge deliberating: it reads its own scores and the other judges' from the
    /// prompt and closes the configured share of the gap to their mean.
    fn deliberation(&self, prompt: &str, persona: &str, rng: &mut ChaCha8Rng) -> String {
        let own_section = section(prompt, "### Your evaluation so far", "### The other judges");
        let others_section = section(
            prompt,
            "### The other judges",
            "Give your updated evaluation",
        );
        let own = own_section.lines().find_map(score_line);
        let others: Vec<Vec<(String, f64)>> =
            others_section.lines().filter_map(score_line).collect();
        let Some(first_other) = others.first() else {
            return self.panel_evaluation(prompt, persona, rng);
        };
        let pull = self.params.deliberation_pull;
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
        if rng.random_bool(self.params.malformed_judgment_rate) {
            return "I have reconsidered and mostly keep my view, for the reasons given before."
                .into();
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
            confidence,
            &format!(
                "Having read the other judges, I moved {:.0}% of the way toward their scores.",
                pull * 100.0
            ),
        )
    }

    /// An answer broken at the configured rate, as real judges sometimes give them.
    fn broken_judgment(&self, a: &[u8], b: &[u8], rng: &mut ChaCha8Rng) -> Option<String> {
        if !rng.random_bool(self.params.malformed_judgment_rate) {
            return None;
        }
        Some(match rng.random_range(0..3) {
            // Free prose with no scores at all: nothing to parse.
            0 => format!(
                "Both teams engaged seriously. Team A's analysis was careful and Team B engaged constructively; \
                     overall I found Team A somewhat stronger, though the margin is small. ({})",
                self.name
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
}

fn scores_json(s: &[u8]) -> String {
    let fields: Vec<String> = CRITERIA
        .iter()
        .zip(s)
        .map(|((name, _, _), v)| format!("    \"{name}\": {v}"))
        .collect();
    format!("{{\n{}\n  }}", fields.join(",\n"))
}

/// A panel evaluation in the panel's JSON format.
fn evaluation_json(a: &[u8], b: &[u8], confidence: f64, rationale: &str) -> String {
    let total_a: u32 = a.iter().map(|&v| u32::from(v)).sum();
    let total_b: u32 = b.iter().map(|&v| u32::from(v)).sum();
    let verdict = match total_a.cmp(&total_b) {
        std::cmp::Ordering::Greater => "team_a",
        std::cmp::Ordering::Less => "team_b",
        std::cmp::Ordering::Equal => "tie",
    };
    let (best_a, best_b) = (strongest(a), strongest(b));
    format!(
        "{{\n  \"verdict\": \"{verdict}\",\n  \"confidence\": {confidence:.2},\n  \"team_a_scores\": {},\n  \"team_b_scores\": {},\n  \"key_findings\": [{{\"dimension\": \"team_a.{}\", \"finding\": \"Team A is {best_a}.\"}}, {{\"dimension\": \"team_b.{}\", \"finding\": \"Team B is {best_b}.\"}}],\n  \"rationale\": \"{rationale} Totals {total_a} to {total_b}.\"\n}}",
        scores_json(a),
        scores_json(b),
        strongest_key(a),
        strongest_key(b),
    )
}

/// The text between two headings (to the end when the second is missing).
fn section<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let Some(from) = text.find(start) else {
        return "";
    };
    let rest = &text[from + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The scores of a `Scores: team_a.consistency 7, …` line.
fn score_line(line: &str) -> Option<Vec<(String, f64)>> {
    let list = line.strip_prefix("Scores: ")?;
    let pairs: Vec<(String, f64)> = list
        .split(", ")
        .filter_map(|pair| {
            let (key, value) = pair.rsplit_once(' ')?;
            Some((key.to_string(), value.parse().ok()?))
        })
        .collect();
    (!pairs.is_empty()).then_some(pairs)
}

fn strongest_key(scores: &[u8]) -> &'static str {
    let best = scores
        .iter()
        .enumerate()
        .max_by_key(|(_, v)| **v)
        .map_or(0, |(i, _)| i);
    CRITERIA[best].0
}

fn strongest(scores: &[u8]) -> String {
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
/// lines naming a team). Text before the first heading belongs to neither.
fn split_teams(prompt: &str) -> (String, String) {
    let (mut a, mut b) = (String::new(), String::new());
    let mut current: Option<bool> = None;
    for line in prompt.lines() {
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

/// Clauses of the prompt that can stand after "whether" or "where": its sentences, lower-
/// cased at the start and without their final stop.
fn fragments(prompt: &str) -> Vec<String> {
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

fn pick<'a>(pieces: &'a [String], rng: &mut ChaCha8Rng) -> &'a str {
    &pieces[rng.random_range(0..pieces.len())]
}

fn fill(template: &str, pieces: &[String], rng: &mut ChaCha8Rng) -> String {
    template.replace("{x}", pick(pieces, rng))
}

/// A generator seeded from text parts, stable across runs, platforms and Rust versions.
fn rng_for(parts: &[&str]) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(fnv1a(parts.join("\u{1f}").as_bytes()))
}

/// FNV-1a, 64-bit: a stable hash for seeds (std's hasher may change between releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(name: &str, params: SimulatedParams) -> SimulatedProfile {
        SimulatedProfile::new(
            name,
            SimulatedParams {
                tokens_per_second: 0.0,
                ..params
            },
        )
    }

    async fn run(
        p: &SimulatedProfile,
        req: &ChatRequest,
        attempt: u32,
    ) -> Result<(Completion, String), ProviderError> {
        let mut streamed = String::new();
        let c = p
            .attempt(req, attempt, 4096, &mut |d| streamed.push_str(d))
            .await?;
        Ok((c, streamed))
    }

    const DILEMMA: &str = "A hospital must decide whether to share anonymised records with a research consortium. \
        The patients consented to treatment but were never asked about research. \
        The research could shorten the search for a cure by several years.";

    #[tokio::test]
    async fn same_seed_same_text_and_stream_equals_text() {
        let p = profile("sim-alpha", SimulatedParams::default());
        let req = ChatRequest::new("s", DILEMMA).tagged("r1", "presentation");
        let (a, streamed) = run(&p, &req, 1).await.unwrap();
        let (b, _) = run(&p, &req, 1).await.unwrap();
        assert_eq!(a.text, b.text);
        assert_eq!(a.text, streamed);
        assert!(a.text.contains("Guiding principle:"));
        assert!(
            a.text.contains("research"),
            "uses the dilemma's content: {}",
            a.text
        );
        let other = run(&p, &req.clone().tagged("r2", "presentation"), 1)
            .await
            .unwrap()
            .0;
        assert_ne!(a.text, other.text);
    }

    #[test]
    fn distinct_models_have_distinct_profiles() {
        let a = SimulatedProfile::new("sim-alpha", SimulatedParams::default());
        let b = SimulatedProfile::new("sim-beta", SimulatedParams::default());
        assert_ne!(a.strengths, b.strengths);
        assert_eq!(
            a,
            SimulatedProfile::new("sim-alpha", SimulatedParams::default())
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

    #[tokio::test]
    async fn failure_rate_is_honoured_and_retries_can_succeed() {
        let p = profile(
            "flaky",
            SimulatedParams {
                failure_rate: 0.25,
                ..Default::default()
            },
        );
        let mut failures = 0;
        for i in 0..400 {
            let req = ChatRequest::new("s", DILEMMA).tagged(format!("r{i}"), "response");
            if let Err(e) = run(&p, &req, 1).await {
                assert!(e.retryable);
                failures += 1;
            }
        }
        assert!((70..=130).contains(&failures), "{failures} of 400");
        let req = ChatRequest::new("s", DILEMMA).tagged("r-any", "response");
        let mut any_success = false;
        for attempt in 1..=10 {
            any_success |= run(&p, &req, attempt).await.is_ok();
        }
        assert!(any_success);
    }

    #[tokio::test(start_paused = true)]
    async fn streams_at_the_configured_rate() {
        let p = SimulatedProfile::new(
            "sim",
            SimulatedParams {
                tokens_per_second: 100.0,
                ..Default::default()
            },
        );
        let start = tokio::time::Instant::now();
        let mut pieces = 0;
        let c = p
            .attempt(&ChatRequest::new("s", DILEMMA), 1, 4096, &mut |_| {
                pieces += 1
            })
            .await
            .unwrap();
        let tokens = c.usage.unwrap().output_tokens as f64;
        let secs = start.elapsed().as_secs_f64();
        assert!(pieces > 3);
        assert!(
            (secs - tokens / 100.0).abs() < 0.2 * tokens / 100.0 + 0.1,
            "{secs}s for {tokens} tokens"
        );
    }

    #[tokio::test]
    async fn small_max_tokens_cuts_with_length() {
        let p = profile("sim", SimulatedParams::default());
        let c = p
            .attempt(&ChatRequest::new("s", DILEMMA), 1, 8, &mut |_| {})
            .await
            .unwrap();
        assert_eq!(c.finish_reason, FinishReason::Length);
    }
}
