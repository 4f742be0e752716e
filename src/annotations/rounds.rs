//! What annotations need of a stored round: its id, protocol, dilemma, debaters and judge,
//! taken from the rounds the store reads (no second parser of round files).

use crate::domain::{ProtocolKind, Round, RoundStatus};

/// A stored round as annotations see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundInfo {
    /// The round's id.
    pub id: String,
    /// Its protocol.
    pub protocol: ProtocolKind,
    /// The dilemma (question-answer: the item; structured debate: the topic).
    pub dilemma: String,
    /// Team A's model (empty for a question-answer baseline).
    pub team_a: String,
    /// Team B's model (empty when there is none).
    pub team_b: String,
    /// The first judge.
    pub judge: String,
    /// Every phase ran, so a person can judge the exchange.
    pub finished: bool,
    /// A question-answer three-way baseline: the answer is a label, not a side.
    pub three_way: bool,
    /// A structured debate's argument ids (Pro's, then Con's), whose standing a person may
    /// judge; empty for the other protocols.
    pub arguments: Vec<String>,
}

impl RoundInfo {
    /// The round's information.
    pub fn of(round: &Round) -> Self {
        Self {
            id: round.id.clone(),
            protocol: round.kind(),
            dilemma: round.dilemma_id.clone(),
            team_a: round.team_a_model.clone(),
            team_b: round.team_b_model.clone(),
            judge: round.judge_model.clone(),
            finished: round.status != RoundStatus::Incomplete,
            three_way: round.qa().is_some_and(|qa| qa.format.is_three_way()),
            arguments: argument_ids(round),
        }
    }

    /// The debaters, as one stratum's name: the two models in name order joined by ` vs `
    /// (one alone when only one spoke; `(no debaters)` for a baseline).
    pub fn pairing(&self) -> String {
        let mut models: Vec<&str> = [self.team_a.as_str(), self.team_b.as_str()]
            .into_iter()
            .filter(|m| !m.is_empty())
            .collect();
        models.sort_unstable();
        models.dedup();
        if models.is_empty() {
            "(no debaters)".to_string()
        } else {
            models.join(" vs ")
        }
    }
}

/// A structured debate's argument ids, Pro's then Con's (empty for another protocol).
pub fn argument_ids(round: &Round) -> Vec<String> {
    round.structured().map_or_else(Vec::new, |s| {
        s.pro
            .arguments
            .iter()
            .chain(&s.con.arguments)
            .map(|a| a.id.clone())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pairing_names_both_debaters_in_either_order() {
        let round = crate::store::tests::round("r", "b", "a", "d", RoundStatus::Complete);
        let info = RoundInfo::of(&round);
        assert_eq!(info.pairing(), "a vs b");
        assert!(info.finished && !info.three_way);
        let baseline = RoundInfo {
            team_a: String::new(),
            team_b: String::new(),
            ..info
        };
        assert_eq!(baseline.pairing(), "(no debaters)");
        let incomplete = crate::store::tests::round("r", "a", "b", "d", RoundStatus::Incomplete);
        assert!(!RoundInfo::of(&incomplete).finished);
    }
}
