//! What in a stored round waits for a person: every judgment that could not be read as it is,
//! and every debater's reply its protocol could not read. The review queue, the headless
//! runner's review lines and corrections all go by this one list, so they agree whatever
//! session the round was stored in.

use crate::domain::{ParseStatus, Round};

/// One item waiting for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    /// What names it in corrections: the judge (persona id for panel judges, else model),
    /// or the reply (`pro.opening`).
    pub key: String,
    /// A judgment, or a debater's reply.
    pub kind: WaitingKind,
    /// Why it waits.
    pub problems: Vec<String>,
    /// The text as the model gave it (raw model text; sanitise before display).
    pub raw: String,
}

/// What kind of item waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitingKind {
    /// A judgment, read this far.
    Judgment(ParseStatus),
    /// A debater's reply that could not be read.
    Reply,
}

/// Every item of `round` that waits for a person: its judgments first, in judge order, then
/// its replies.
pub fn waiting(round: &Round) -> Vec<Waiting> {
    let judgments = round
        .judgments
        .iter()
        .filter(|j| !j.is_usable())
        .map(|j| Waiting {
            key: j.judge_key().to_string(),
            kind: WaitingKind::Judgment(j.parse_status),
            problems: j.problems.clone(),
            raw: j.raw_response.clone(),
        });
    let replies = crate::protocols::stored(round.kind())
        .review_requests(round)
        .into_iter()
        .map(|r| Waiting {
            key: r.key,
            kind: WaitingKind::Reply,
            problems: r.problems,
            raw: r.raw,
        });
    judgments.chain(replies).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Judgment, Reading, ScheduledRound};

    fn blank() -> Round {
        let s = ScheduledRound {
            judges: vec!["j1".into(), "j2".into()],
            ..ScheduledRound::example("r", "d")
        };
        crate::protocols::example_round(&s)
    }

    #[test]
    fn unusable_judgments_wait() {
        let mut round = blank();
        round.put_judgment(Judgment::new("j1", Reading::empty(round.kind())));
        round.put_judgment(Judgment {
            parse_status: ParseStatus::Partial,
            problems: vec!["Team A missing: consistency".into()],
            raw_response: "raw".into(),
            ..Judgment::new("j2", Reading::empty(round.kind()))
        });
        let items = waiting(&round);
        assert_eq!(items.len(), 1, "a parsed judgment does not wait");
        assert_eq!(
            (items[0].key.as_str(), items[0].kind, items[0].raw.as_str()),
            ("j2", WaitingKind::Judgment(ParseStatus::Partial), "raw")
        );
    }
}
