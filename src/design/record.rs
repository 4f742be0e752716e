//! What `tournament.json` keeps of an adaptive design: its settings, every wave with the
//! rating state it saw and each round it chose with why, and the rule that stopped it. A
//! resumed run reads it back to continue the same sequence; the report reads it to say the
//! design was adaptive and what stopped it.

use serde::{Deserialize, Serialize};

use super::rating::RatingState;

/// The rule that ended the design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopRule {
    /// `max_rounds` rounds were chosen.
    MaxRounds,
    /// `budget_usd` was reached, or what is left pays for no further round.
    Budget,
    /// Each adjacent pair of the ranking is ordered with `stop_when_separated`'s probability.
    Separated,
    /// Every round of the full schedule was chosen.
    Exhausted,
}

impl StopRule {
    /// The rule as the tournament file's key names it, for people.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MaxRounds => "max_rounds",
            Self::Budget => "budget_usd",
            Self::Separated => "stop_when_separated",
            Self::Exhausted => "the full schedule",
        }
    }
}

/// Why the design stopped choosing rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stopped {
    /// The rule.
    pub rule: StopRule,
    /// What it saw, in words.
    pub detail: String,
    /// The rating state it saw.
    pub state: RatingState,
}

/// One round a wave chose, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The round.
    pub round_id: String,
    /// Why it was chosen: the pair's order and how sure it was, the side and item balance.
    pub reason: String,
    /// The probability that the pair's order was right when it was chosen (none for a
    /// round that is no match between two models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_order: Option<f64>,
    /// Its priority: over every pair of models, its uncertainty times the share of the
    /// variance of its difference the round would remove, summed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
}

/// One wave: the state it saw and the rounds it chose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaveRecord {
    /// 1 for the first.
    pub wave: u32,
    /// The ratings it was chosen from.
    pub state: RatingState,
    /// The rounds it chose, in the order chosen.
    pub rounds: Vec<Choice>,
}

/// The design as `tournament.json` records it (`design`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignRecord {
    /// `"adaptive"`.
    pub kind: String,
    /// The seed of its tie-breaks.
    pub seed: u64,
    /// Rounds of the full schedule it could choose from.
    pub candidates: usize,
    /// The waves so far, first first.
    pub waves: Vec<WaveRecord>,
    /// What stopped it, once it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
}

impl DesignRecord {
    /// A design not yet started.
    pub fn new(seed: u64, candidates: usize) -> Self {
        Self {
            kind: crate::config::ADAPTIVE.to_string(),
            seed,
            candidates,
            waves: Vec::new(),
            stopped: None,
        }
    }

    /// Every round chosen so far, in the order chosen.
    pub fn chosen(&self) -> impl Iterator<Item = &str> {
        self.waves
            .iter()
            .flat_map(|w| w.rounds.iter().map(|c| c.round_id.as_str()))
    }

    /// How the report states the design: waves, rounds of the full schedule, and the rule
    /// that stopped it (or that it had not stopped).
    pub fn statement(&self) -> String {
        let chosen = self.chosen().count();
        let share = 100.0 * chosen as f64 / self.candidates.max(1) as f64;
        let end = match &self.stopped {
            Some(s) => format!("stopped by {}: {}", s.rule.as_str(), s.detail),
            None => "it had not stopped when the run ended (a later run continues it)".into(),
        };
        format!(
            "adaptive design: {chosen} of the full schedule's {} rounds ({share:.0}%) were chosen \
             in {} waves, each from the ratings of the rounds finished before it (tournament.json \
             records every choice and the state it saw); {end}. Pairings, sides, items and judges \
             were balanced as far as the choices allowed, not by construction: the figures that \
             compare models treat the rounds as a fixed schedule, which is sound for the ratings \
             when each judgment is independent given its pair, but counts of rounds per pairing \
             follow the design",
            self.candidates,
            self.waves.len(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_written_before_the_side_terms_reads_with_none() {
        let old = r#"{"kind":"adaptive","seed":7,"candidates":12,"waves":[{"wave":1,
            "state":{"matches":0,"ranking":[{"model":"a","rating":1500.0,"sd":400.0},
            {"model":"b","rating":1500.0,"sd":400.0}],"adjacent":[{"higher":"a","lower":"b",
            "p_order":0.5}]},"rounds":[{"round_id":"d0__a__vs__b__r1","reason":"first"}]}]}"#;
        let record: DesignRecord = serde_json::from_str(old).unwrap();
        assert!(record.waves[0].state.sides.is_empty());
        assert_eq!(record.chosen().collect::<Vec<_>>(), ["d0__a__vs__b__r1"]);
        // And it is written back as it was read.
        let again = serde_json::to_value(&record).unwrap();
        assert!(again["waves"][0]["state"].get("sides").is_none());
    }
}
