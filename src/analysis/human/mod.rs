//! Judges measured against people: how far each model judge (and each panel) agrees with
//! the people who judged the same exchanges, how far people agree among themselves (the
//! ceiling a judge can reach), and the model comparison in people's terms. People's
//! judgments come from `annotations/` (see [`crate::annotations`]); a judgment corrected by
//! hand in the review queue is a correction of a model judge, never a person's judgment,
//! and is not read here as one.
//!
//! - [`reading`]: a judgment, a person's or a model's, as a [`Reading`];
//! - [`agreement`]: the figures of one rater against another, and among several;
//! - [`calibrated`]: prediction-powered model means (the Ethics Bowl);
//! - [`rates`]: prediction-powered rates (the question-answer debate's accuracy and win
//!   rates, the structured debate's win rates);
//! - [`pace`]: each annotator's time on task.

pub mod agreement;
pub mod calibrated;
pub mod pace;
pub mod rates;
pub mod reading;

use std::collections::BTreeMap;

use serde::Serialize;

pub use agreement::{Figure, StandingAgreement};
pub use calibrated::CalibratedMean;
pub use rates::CalibratedRate;
pub use reading::Reading;

use crate::domain::{ProtocolKind, Round};

/// The name people's consensus goes by where an annotator's name would.
pub const CONSENSUS: &str = "consensus";

/// The name a round's panel of judges goes by where a judge's name would.
pub const PANEL: &str = "panel";

/// One person's reading of one round.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonReading {
    /// Who read it.
    pub annotator: String,
    /// The round.
    pub round_id: String,
    /// What they said.
    pub reading: Reading,
    /// How long it took them, where it was recorded.
    pub time: crate::annotations::pace::TimeOnTask,
}

impl PersonReading {
    /// People's stored judgments as readings, and how many were made blind.
    pub fn of_annotations(annotations: &[crate::annotations::Annotation]) -> (Vec<Self>, usize) {
        let readings = annotations
            .iter()
            .filter_map(|a| {
                Some(Self {
                    annotator: a.annotator.clone(),
                    round_id: a.round_id.clone(),
                    reading: Reading::of_person(&a.judgment)?,
                    time: crate::annotations::pace::TimeOnTask::of(a),
                })
            })
            .collect();
        (readings, annotations.iter().filter(|a| a.blind).count())
    }
}

/// One judge against one annotator (or people's consensus).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HumanAgreement {
    /// The model judge (its persona on a panel), or `panel` for a panel's judges together.
    pub judge: String,
    /// The annotator, or `consensus` for the mean of every annotator of each exchange.
    pub annotator: String,
    /// Krippendorff's alpha: interval on the criterion scores (the Ethics Bowl), nominal on
    /// the verdict or answer otherwise.
    pub alpha: Figure,
    /// Quadratic-weighted Cohen's kappa on totals (the Ethics Bowl's team totals, the
    /// confidence given to Debater A's answer, the lean to Pro), rounded to whole points.
    pub kappa: Figure,
    /// Spearman's rho on the same totals.
    pub spearman: Figure,
    /// The judge's totals minus people's, on average: leniency relative to people.
    pub mean_difference: Figure,
    /// The share of exchanges where the judge's verdict (the winner, the answer) is people's.
    pub verdict_agreement: Figure,
    /// A structured debate's argument standings, judge against people, where people gave
    /// them: n counts arguments, the interval resamples exchanges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standings: Option<StandingAgreement>,
}

/// What people's judgments show beside the agreement rows.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct HumanSummary {
    /// Everyone who judged, by name.
    pub annotators: Vec<String>,
    /// Rounds at least one person judged.
    pub rounds: usize,
    /// People's judgments in all, and how many of them were made blind.
    pub judgments: usize,
    /// Made with the debaters' model names hidden.
    pub blind: usize,
    /// People among themselves, where two or more judged the same exchange: Krippendorff's
    /// alpha (the ceiling a judge can reach); none with fewer than two annotators.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub among_people: Option<Figure>,
    /// The Ethics Bowl's model comparison in people's terms.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calibrated: Vec<CalibratedMean>,
    /// The question-answer and structured debates' rates in people's terms.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calibrated_rates: Vec<CalibratedRate>,
    /// Why a rate people judged some rounds of has no estimate in people's terms.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_calibrated: Vec<String>,
    /// Model judgments corrected by hand in the review queue: corrections, never counted as
    /// people's judgments.
    pub corrections_by_hand: usize,
    /// People's judgments of rounds the folder does not hold (left out).
    pub unmatched: usize,
    /// Each annotator's time on task, by name.
    pub pace: Vec<pace::AnnotatorPace>,
}

/// The agreement rows and the summary.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HumanFigures {
    /// Every judge against every annotator and their consensus.
    pub agreement: Vec<HumanAgreement>,
    /// The rest.
    pub summary: HumanSummary,
}

/// The model judges' readings of one round, by judge, leaving out the Ethics Bowl's
/// self-judgments (as the main tables do); `panel` adds their consensus when a panel
/// judged it.
fn judges_of(round: &Round) -> BTreeMap<String, Reading> {
    let mut out = BTreeMap::new();
    let self_judged = |j| round.kind() == ProtocolKind::EthicsBowl && round.judged_by_a_debater(j);
    for j in round.judgments.iter().filter(|j| !self_judged(j)) {
        if let Some(r) = Reading::of_judgment(j) {
            out.insert(j.judge_key().to_string(), r);
        }
    }
    let on_panel = round.judgments.iter().any(|j| j.persona_id.is_some());
    if on_panel && out.len() >= 2 {
        let all: Vec<&Reading> = out.values().collect();
        if let Some(c) = Reading::consensus(&all) {
            out.insert(PANEL.to_string(), c);
        }
    }
    out
}

/// Judges against people, from the rounds and people's readings of them. None when no
/// person judged a round the folder holds.
pub fn human_figures(
    rounds: &[Round],
    people: &[PersonReading],
    blind: usize,
) -> Option<HumanFigures> {
    let by_id: BTreeMap<&str, &Round> = rounds.iter().map(|r| (r.id.as_str(), r)).collect();
    // Round → annotator → reading, for rounds the folder holds.
    let mut read: BTreeMap<&str, BTreeMap<&str, &Reading>> = BTreeMap::new();
    let mut unmatched = 0;
    for p in people {
        if by_id.contains_key(p.round_id.as_str()) {
            read.entry(&p.round_id)
                .or_default()
                .insert(&p.annotator, &p.reading);
        } else {
            unmatched += 1;
        }
    }
    if read.is_empty() {
        return None;
    }
    let interval = read.keys().any(|id| {
        by_id
            .get(id)
            .is_some_and(|r| r.kind() == ProtocolKind::EthicsBowl)
    });
    let mut annotators: Vec<String> = read
        .values()
        .flat_map(|m| m.keys().map(|a| a.to_string()))
        .collect();
    annotators.sort();
    annotators.dedup();
    let consensus: BTreeMap<&str, Reading> = read
        .iter()
        .filter_map(|(id, m)| {
            let all: Vec<&Reading> = m.values().copied().collect();
            Some((*id, Reading::consensus(&all)?))
        })
        .collect();
    let judged: BTreeMap<&str, BTreeMap<String, Reading>> = read
        .keys()
        .filter_map(|id| Some((*id, judges_of(by_id.get(id)?))))
        .collect();
    let mut judges: Vec<String> = judged.values().flat_map(|m| m.keys().cloned()).collect();
    judges.sort();
    judges.dedup();
    let mut versus: Vec<(String, Option<&str>)> = annotators
        .iter()
        .map(|a| (a.clone(), Some(a.as_str())))
        .collect();
    if annotators.len() >= 2 {
        versus.push((CONSENSUS.to_string(), None));
    }
    let mut agreement = Vec::new();
    for judge in &judges {
        for (name, annotator) in &versus {
            let pairs: Vec<(&Reading, &Reading)> = read
                .iter()
                .filter_map(|(id, m)| {
                    let person = match annotator {
                        Some(a) => *m.get(a)?,
                        None => consensus.get(id)?,
                    };
                    Some((judged.get(id)?.get(judge)?, person))
                })
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let g = agreement::agreement(&pairs, interval);
            agreement.push(HumanAgreement {
                judge: judge.clone(),
                annotator: name.clone(),
                alpha: g.alpha,
                kappa: g.kappa,
                spearman: g.spearman,
                mean_difference: g.mean_difference,
                verdict_agreement: g.verdict_agreement,
                standings: g.standings,
            });
        }
    }
    let among_people = (annotators.len() >= 2).then(|| {
        let exchanges: Vec<Vec<&Reading>> = read
            .values()
            .map(|m| m.values().copied().collect())
            .collect();
        agreement::among(&exchanges, interval)
    });
    let calibrated = calibrated::calibrated(&team_totals(rounds, &consensus));
    let (calibrated_rates, not_calibrated) = rates::calibrated_rates(rounds, &read);
    let corrections_by_hand = rounds
        .iter()
        .flat_map(|r| &r.judgments)
        .filter(|j| j.parse_status == crate::domain::ParseStatus::CorrectedByHand)
        .count();
    Some(HumanFigures {
        agreement,
        summary: HumanSummary {
            annotators,
            rounds: read.len(),
            judgments: people.len() - unmatched,
            blind,
            among_people,
            calibrated,
            calibrated_rates,
            not_calibrated,
            corrections_by_hand,
            unmatched,
            pace: pace::paces(people, |id| by_id.contains_key(id)),
        },
    })
}

/// Every Ethics Bowl team total the judges gave (their mean per exchange, self-judgments
/// left out), with people's consensus where they judged the exchange.
fn team_totals(
    rounds: &[Round],
    consensus: &BTreeMap<&str, Reading>,
) -> Vec<calibrated::TeamTotal> {
    let mut out = Vec::new();
    for r in rounds
        .iter()
        .filter(|r| r.kind() == ProtocolKind::EthicsBowl)
    {
        let judges: Vec<Reading> = r
            .judgments
            .iter()
            .filter(|j| !r.judged_by_a_debater(j))
            .filter_map(Reading::of_judgment)
            .collect();
        if judges.is_empty() {
            continue;
        }
        let people = consensus.get(r.id.as_str()).filter(|c| c.totals.len() == 2);
        // A reading's totals are Team A's, then Team B's.
        for (i, model) in [&r.team_a_model, &r.team_b_model].into_iter().enumerate() {
            let mean = judges.iter().map(|j| j.totals[i]).sum::<f64>() / judges.len() as f64;
            out.push(calibrated::TeamTotal {
                model: model.clone(),
                judges: mean,
                people: people.map(|c| c.totals[i]),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};
    use crate::domain::Scores;

    /// Twelve rounds judged by a harsh judge and a fair one, two people reading each: the
    /// harsh judge sits two points a criterion under people, the fair one agrees; people
    /// agree among themselves; the calibrated means sit at people's, not the harsh
    /// judge's.
    #[test]
    fn judges_against_people() {
        let mut rounds = Vec::new();
        let mut people = Vec::new();
        for i in 0..12 {
            let (a, b) = (4.0 + (i % 5) as f64, 8.0 - (i % 4) as f64);
            let (sa, sb) = (Scores::uniform(a), Scores::uniform(b));
            let harsh = judgment("harsh", Scores::uniform(a - 2.0), Scores::uniform(b - 2.0));
            let fair = judgment("fair", sa, sb);
            let id = format!("r{i}");
            rounds.push(round(&id, "d", "m1", "m2", vec![harsh, fair]));
            for annotator in ["ann", "bea"] {
                people.push(PersonReading {
                    annotator: annotator.into(),
                    round_id: id.clone(),
                    reading: Reading::rubric(&sa, &sb).unwrap(),
                    time: Default::default(),
                });
            }
        }
        people.push(PersonReading {
            annotator: "ann".into(),
            round_id: "elsewhere".into(),
            reading: Reading::winner(None),
            time: Default::default(),
        });
        let h = human_figures(&rounds, &people, 24).unwrap();
        let row = |judge: &str, annotator: &str| {
            h.agreement
                .iter()
                .find(|r| r.judge == judge && r.annotator == annotator)
                .unwrap()
        };
        assert_eq!(
            h.agreement.len(),
            6,
            "two judges × (two people + consensus)"
        );
        let harsh = row("harsh", CONSENSUS);
        assert!((harsh.mean_difference.estimate.unwrap() + 14.0).abs() < 1e-9);
        assert_eq!(harsh.alpha.n, 12);
        let fair = row("fair", "ann");
        assert_eq!(fair.alpha.estimate, Some(1.0));
        assert_eq!(fair.verdict_agreement.estimate, Some(1.0));
        assert_eq!(h.summary.among_people.unwrap().estimate, Some(1.0));
        assert_eq!((h.summary.rounds, h.summary.unmatched), (12, 1));
        let m1 = &h.summary.calibrated[0];
        let people_mean = (0..12).map(|i| 7.0 * (4.0 + (i % 5) as f64)).sum::<f64>() / 12.0;
        assert!((m1.people.estimate - people_mean).abs() < 1e-9, "{m1:?}");
        assert!((m1.judges.mean.unwrap() - (people_mean - 7.0)).abs() < 1e-9);
        assert_eq!(m1.judges.units, 12, "n counts exchanges");
        assert_eq!(human_figures(&rounds, &people[24..], 0), None);
    }
}
