//! The filter bar's filter: which rounds the matrix, the review queue and the leaderboard
//! show (the bar's prompt is `super::screens::filter_bar`). It is typed as `key=value` words (`a=gpt judge=claude status=failed`), each word
//! narrowing further; model, role, dilemma and judge words are [`RoundFilter`]s, matched
//! exactly as `ethics-bowl rounds` matches them, and a typed value is first resolved to the
//! one value of the tournament it names. It reads only a round's compact facts (ids, models
//! by role, dilemma, judges, status and whether calls are under way), never its text.

use std::time::Instant;

use crate::domain::Round;
use crate::store::{FilterValues, Role, RoundFilter};

use super::mirror::{RoundState, Standing, standing};

/// What a `status=` word asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusWord {
    /// One standing.
    Is(Standing),
    /// Not finished: running, queued or failed (the stored status `incomplete`).
    Incomplete,
}

impl StatusWord {
    /// The words `status=` takes, as the bar's hint lists them.
    pub const NAMES: &'static str = "done, review, failed, running, queued, incomplete";

    fn parse(word: &str) -> Option<Self> {
        Some(match word.to_ascii_lowercase().as_str() {
            "done" | "complete" => Self::Is(Standing::Done),
            "review" | "needs_review" | "needs-review" => Self::Is(Standing::Review),
            "failed" | "error" | "err" => Self::Is(Standing::Failed),
            "running" => Self::Is(Standing::Running),
            "queued" | "pending" => Self::Is(Standing::Queued),
            "incomplete" => Self::Incomplete,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Is(Standing::Done) => "done",
            Self::Is(Standing::Review) => "review",
            Self::Is(Standing::Failed) => "failed",
            Self::Is(Standing::Running) => "running",
            Self::Is(Standing::Queued) => "queued",
            Self::Incomplete => "incomplete",
        }
    }

    fn matches(self, standing: Standing) -> bool {
        match self {
            Self::Is(s) => s == standing,
            Self::Incomplete => matches!(
                standing,
                Standing::Running | Standing::Queued | Standing::Failed
            ),
        }
    }
}

/// An active filter: every word must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The model, role, dilemma and judge words, as the CLI's filters.
    terms: Vec<RoundFilter>,
    /// The `status=` words.
    statuses: Vec<StatusWord>,
    /// The filter as the bar shows it, values resolved (`a=gpt-4o status=failed`).
    pub text: String,
}

/// The keys a filter word may have, for the bar's hint.
pub const KEYS: &str = "model= a= b= judge= dilemma= (or item=, topic=) status=";

/// `value` as one of `known`: itself when known, else the one known value containing it
/// (ignoring case); an error naming the candidates otherwise.
fn resolve(
    key: &str,
    value: &str,
    known: &std::collections::BTreeSet<String>,
) -> Result<String, String> {
    if known.contains(value) {
        return Ok(value.to_string());
    }
    let lower = value.to_lowercase();
    let close: Vec<&String> = known
        .iter()
        .filter(|k| k.to_lowercase().contains(&lower))
        .collect();
    match close.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!(
            "{key}={value}: no such value here; there are: {}",
            known.iter().cloned().collect::<Vec<_>>().join(", ")
        )),
        many => Err(format!(
            "{key}={value} could be {}: type more of it",
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

impl Filter {
    /// Reads a typed filter against the values the rounds hold; `None` for an empty one
    /// (no filter). The error says which word is wrong and what it could be.
    pub fn parse(text: &str, known: &FilterValues) -> Result<Option<Self>, String> {
        let mut filter = Self {
            terms: Vec::new(),
            statuses: Vec::new(),
            text: String::new(),
        };
        let mut shown = Vec::new();
        for word in text.split_whitespace() {
            let Some((key, value)) = word.split_once('=').filter(|(_, v)| !v.is_empty()) else {
                return Err(format!(
                    "`{word}`: write key=value, with the keys {KEYS} (e.g. a=gpt status=failed)"
                ));
            };
            let key = key.to_ascii_lowercase();
            let term = match key.as_str() {
                "status" => {
                    let status = StatusWord::parse(value).ok_or_else(|| {
                        format!("status={value}: the statuses are {}", StatusWord::NAMES)
                    })?;
                    filter.statuses.push(status);
                    shown.push(format!("status={}", status.name()));
                    continue;
                }
                "model" | "a" | "b" => {
                    let model = resolve(&key, value, &known.models)?;
                    let role = match key.as_str() {
                        "a" => Some(Role::Presenting),
                        "b" => Some(Role::Responding),
                        _ => None,
                    };
                    RoundFilter {
                        model: Some(model),
                        role,
                        ..RoundFilter::default()
                    }
                }
                "judge" => RoundFilter {
                    judge: Some(resolve(&key, value, &known.judges)?),
                    ..RoundFilter::default()
                },
                "dilemma" | "item" | "topic" => RoundFilter {
                    dilemma: Some(resolve(&key, value, &known.dilemmas)?),
                    ..RoundFilter::default()
                },
                _ => return Err(format!("`{key}=`: the keys are {KEYS}")),
            };
            let value = term
                .model
                .as_deref()
                .or(term.judge.as_deref())
                .or(term.dilemma.as_deref())
                .unwrap_or_default();
            shown.push(format!("{key}={value}"));
            filter.terms.push(term);
        }
        if shown.is_empty() {
            return Ok(None);
        }
        filter.text = shown.join(" ");
        Ok(Some(filter))
    }

    /// Whether a round passes, standing as it does at `now`.
    pub fn matches(&self, round: &RoundState, now: Instant) -> bool {
        let stored: &Round = &round.stored;
        self.terms.iter().all(|t| t.matches(stored))
            && (self.statuses.is_empty() || {
                let standing = standing(round, now);
                self.statuses.iter().all(|s| s.matches(standing))
            })
    }
}
