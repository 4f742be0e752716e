//! Which rounds to load: by model (in any role or a given one), dilemma, judge, status.

use crate::domain::{Round, RoundStatus};

/// A model's role in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Team A.
    Presenting,
    /// Team B.
    Responding,
}

/// A filter over rounds; empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundFilter {
    /// A model that played.
    pub model: Option<String>,
    /// The role the model played (with `model`).
    pub role: Option<Role>,
    /// The dilemma.
    pub dilemma: Option<String>,
    /// A judge of the round.
    pub judge: Option<String>,
    /// The round's status.
    pub status: Option<RoundStatus>,
}

impl RoundFilter {
    /// Whether a round passes.
    pub fn matches(&self, r: &Round) -> bool {
        let model_ok = match (&self.model, self.role) {
            (None, _) => true,
            (Some(m), None) => r.team_a_model == *m || r.team_b_model == *m,
            (Some(m), Some(Role::Presenting)) => r.team_a_model == *m,
            (Some(m), Some(Role::Responding)) => r.team_b_model == *m,
        };
        let judge_ok = self.judge.as_ref().is_none_or(|j| {
            r.judge_model == *j
                || r.judge_models.contains(j)
                || r.judgments.iter().any(|x| x.judge_model == *j)
        });
        model_ok
            && judge_ok
            && self.dilemma.as_ref().is_none_or(|d| r.dilemma_id == *d)
            && self.status.is_none_or(|s| r.status == s)
    }
}

/// The values a results folder holds for each filter, to tell someone whose filter matched
/// nothing what they could have asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterValues {
    /// Models that played.
    pub models: std::collections::BTreeSet<String>,
    /// Dilemmas (or items, or topics).
    pub dilemmas: std::collections::BTreeSet<String>,
    /// Judges.
    pub judges: std::collections::BTreeSet<String>,
    /// Round statuses present.
    pub statuses: std::collections::BTreeSet<&'static str>,
}

impl FilterValues {
    /// The values in these rounds.
    pub fn of<'a>(rounds: impl IntoIterator<Item = &'a Round>) -> Self {
        let mut v = Self::default();
        for r in rounds {
            v.models.insert(r.team_a_model.clone());
            v.models.insert(r.team_b_model.clone());
            v.dilemmas.insert(r.dilemma_id.clone());
            v.judges.extend(r.judge_models.iter().cloned());
            v.judges
                .extend(r.judgments.iter().map(|j| j.judge_model.clone()));
            v.statuses.insert(r.status.as_str());
        }
        v.models.retain(|m| !m.is_empty());
        v.judges.retain(|j| !j.is_empty());
        v
    }

    /// The filter's values that no round holds at all, as `(flag, value)`: such a filter
    /// is a mistake rather than an empty answer.
    pub fn unknown<'a>(&self, filter: &'a RoundFilter) -> Vec<(&'static str, &'a str)> {
        let mut out = Vec::new();
        if let Some(m) = filter
            .model
            .as_deref()
            .filter(|m| !self.models.contains(*m))
        {
            out.push(("--model", m));
        }
        if let Some(d) = filter
            .dilemma
            .as_deref()
            .filter(|d| !self.dilemmas.contains(*d))
        {
            out.push(("--dilemma", d));
        }
        if let Some(j) = filter
            .judge
            .as_deref()
            .filter(|j| !self.judges.contains(*j))
        {
            out.push(("--judge", j));
        }
        out
    }

    /// One line per kind of value, for a message.
    pub fn describe(&self) -> String {
        let list = |set: &std::collections::BTreeSet<String>| {
            set.iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "models: {}\ndilemmas: {}\njudges: {}\nstatuses: {}",
            list(&self.models),
            list(&self.dilemmas),
            list(&self.judges),
            self.statuses.iter().copied().collect::<Vec<_>>().join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::round;

    #[test]
    fn values_present_and_unknown_filter_values() {
        let rounds = [
            round("r1", "a", "b", "d1", RoundStatus::Complete),
            round("r2", "b", "c", "d2", RoundStatus::NeedsReview),
        ];
        let v = FilterValues::of(&rounds);
        assert_eq!(v.models.len(), 3);
        assert!(v.statuses.contains("needs_review"));
        let filter = RoundFilter {
            model: Some("a".into()),
            judge: Some("nobody".into()),
            dilemma: Some("d9".into()),
            ..RoundFilter::default()
        };
        assert_eq!(
            v.unknown(&filter),
            vec![("--dilemma", "d9"), ("--judge", "nobody")]
        );
        assert!(v.describe().contains("dilemmas: d1, d2"));
    }
}
