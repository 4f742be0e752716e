//! Framework usage: which moral frameworks each model's own phases use, and which the judges
//! name when justifying its scores.

use std::collections::BTreeMap;

use serde::Serialize;

use super::usable;
use crate::analysis::stats::statistic::Statistic;
use crate::domain::{PhaseType, Round};

/// The moral frameworks and the words that signal each, in one table. A phrase counts once
/// per occurrence, case-insensitive; stems (`kant`, `maximi`) cover their forms, and no
/// entry contains another, so nothing is counted twice.
pub const FRAMEWORKS: [(&str, &[&str]); 7] = [
    (
        "consequentialist",
        &[
            "consequentialis",
            "utilitarian",
            "outcome",
            "welfare",
            "maximi",
            "greatest good",
            "expected value",
            "harm reduction",
        ],
    ),
    (
        "deontological",
        &[
            "deontolog",
            "kant",
            "duty",
            "duties",
            "rights",
            "categorical imperative",
            "dignity",
            "means to an end",
        ],
    ),
    (
        "virtue",
        &[
            "virtue",
            "character",
            "aristotel",
            "flourishing",
            "practical wisdom",
            "phronesis",
        ],
    ),
    (
        "contractualist",
        &[
            "contractualis",
            "contractarian",
            "scanlon",
            "rawls",
            "veil of ignorance",
            "reasonably reject",
            "social contract",
        ],
    ),
    (
        "care",
        &[
            "care ethics",
            "ethics of care",
            "relational",
            "caring",
            "vulnerab",
            "dependency",
        ],
    ),
    (
        "precautionary",
        &[
            "precaution",
            "moral uncertainty",
            "err on the side",
            "risk of wrongly",
        ],
    ),
    (
        "autonomy",
        &[
            "autonomy",
            "consent",
            "self-determination",
            "informed choice",
        ],
    ),
];

/// One model's use of the frameworks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameworkUsage {
    /// The model.
    pub model: String,
    /// Keyword hits per framework in its own phases.
    pub hits: BTreeMap<&'static str, usize>,
    /// Frameworks judges named when justifying its scores.
    pub judges_named: BTreeMap<&'static str, usize>,
    /// Each framework's share of all its hits (own phases and judges' remarks together),
    /// its interval resampling the rounds the model played (the unit: hits within one
    /// text are not independent).
    pub share: BTreeMap<&'static str, Statistic>,
    /// The framework with the largest share, if any was used.
    pub dominant: Option<&'static str>,
}

fn count_frameworks(text: &str, into: &mut BTreeMap<&'static str, usize>) {
    let lower = text.to_lowercase();
    for (name, words) in FRAMEWORKS {
        let n: usize = words.iter().map(|w| lower.matches(w).count()).sum();
        *into.entry(name).or_default() += n;
    }
}

/// Adds counts into a running tally.
fn add(into: &mut BTreeMap<&'static str, usize>, counts: &BTreeMap<&'static str, usize>) {
    for (k, v) in counts {
        *into.entry(k).or_default() += v;
    }
}

/// Framework usage per model.
pub fn framework_usage(rounds: &[Round]) -> Vec<FrameworkUsage> {
    let mut hits: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    let mut named: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    // model → each round it played: its hits per framework there (own and judged).
    let mut per_round: BTreeMap<String, Vec<[usize; FRAMEWORKS.len()]>> = BTreeMap::new();
    for r in rounds {
        let mut here: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
        for p in r
            .phases
            .iter()
            .filter(|p| p.phase_type != PhaseType::Judgment)
        {
            let mut counts = BTreeMap::new();
            count_frameworks(&p.response, &mut counts);
            add(hits.entry(p.model_id.clone()).or_default(), &counts);
            add(here.entry(p.model_id.clone()).or_default(), &counts);
        }
        for j in usable(r) {
            for (model, text) in [
                (&r.team_a_model, &j.team_a_justification),
                (&r.team_b_model, &j.team_b_justification),
            ] {
                let mut counts = BTreeMap::new();
                count_frameworks(text, &mut counts);
                add(named.entry(model.clone()).or_default(), &counts);
                add(here.entry(model.clone()).or_default(), &counts);
            }
        }
        for (model, counts) in here {
            let mut row = [0; FRAMEWORKS.len()];
            for (slot, (f, _)) in row.iter_mut().zip(FRAMEWORKS) {
                *slot = counts.get(f).copied().unwrap_or(0);
            }
            per_round.entry(model).or_default().push(row);
        }
    }
    hits.into_iter()
        .map(|(model, own)| {
            let judged = named.remove(&model).unwrap_or_default();
            let rows = per_round.remove(&model).unwrap_or_default();
            let shares = Statistic::bootstrap_many(rows.len(), FRAMEWORKS.len(), |draw| {
                let mut sums = [0usize; FRAMEWORKS.len()];
                for &i in draw {
                    for (s, v) in sums.iter_mut().zip(rows[i]) {
                        *s += v;
                    }
                }
                let total: usize = sums.iter().sum();
                (total > 0).then(|| sums.iter().map(|&n| n as f64 / total as f64).collect())
            });
            let share: BTreeMap<&'static str, Statistic> =
                FRAMEWORKS.iter().map(|(f, _)| *f).zip(shares).collect();
            let dominant = share
                .iter()
                .filter_map(|(f, s)| Some((*f, s.value.filter(|v| *v > 0.0)?)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(f, _)| f);
            FrameworkUsage {
                model,
                hits: own,
                judges_named: judged,
                share,
                dominant,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, phase, round};
    use crate::domain::Scores;

    #[test]
    fn framework_counts_on_crafted_text() {
        let mut r = round(
            "r1",
            "d",
            "x",
            "y",
            vec![judgment("j", Scores::uniform(8.0), Scores::uniform(8.0))],
        );
        r.phases.push(phase(
            PhaseType::Presentation,
            "x",
            "A utilitarian view maximises welfare; a Kantian view stresses duty.",
        ));
        let t = framework_usage(&[r]);
        let x = t.iter().find(|f| f.model == "x").unwrap();
        assert_eq!(
            x.hits["consequentialist"], 3,
            "utilitarian, maximi, welfare"
        );
        assert_eq!(x.hits["deontological"], 2, "kant(ian), duty");
        assert_eq!(
            x.judges_named["consequentialist"], 2,
            "utilitarian, outcome"
        );
        assert_eq!(x.dominant, Some("consequentialist"));
        assert!((x.share.values().filter_map(|s| s.value).sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(x.share["consequentialist"].n, 1, "one round: no interval");
    }
}
