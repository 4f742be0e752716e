//! A report card for every judge: what a reviewer asks of a judge before trusting its
//! scores, in one row. Leniency (the judge-effects fit), self-preference, test–retest
//! consistency (the same configuration judged again in another repetition), length
//! sensitivity, how often its answers could not be read or were corrected by hand, how
//! often its verdict flips when the sides are shown swapped, agreement with people, and its cost per judgment — each with its n and interval where it
//! is an estimate, or why it cannot be given.

use std::collections::BTreeMap;

use serde::Serialize;

use super::effects::Estimate;
use super::human::agreement::among;
use super::human::{Figure, Reading};
use super::length::team_length;
use super::qa::Proportion;
use super::stats::Moments;
use super::stats::statistic::Statistic;
use super::tables::Cell;
use crate::domain::{ParseStatus, ProtocolKind, Round, Team};

/// One judge's card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeCard {
    /// The judge (its persona on a panel).
    pub judge: String,
    /// The model behind it.
    pub model: String,
    /// Its judgments.
    pub judgments: usize,
    /// Points above the average judge on a team's total (the Ethics Bowl's judge-effects
    /// fit); none for other protocols or a single judge.
    pub leniency: Option<Estimate>,
    /// Its score of its own model's team minus the other judges' (the Ethics Bowl).
    pub self_preference: Option<Cell>,
    /// Krippendorff's alpha over the configurations (dilemma or item, Team A, Team B) it
    /// judged in more than one repetition: interval on criterion scores for the Ethics Bowl,
    /// nominal on the verdict otherwise; n counts configurations. None without repetitions.
    pub test_retest: Option<Figure>,
    /// Pearson's r of its margin (Team A's total minus Team B's) with the teams' length
    /// difference, over the exchanges it judged (the Ethics Bowl).
    pub length_sensitivity: Option<Statistic>,
    /// Its answers read whole the first time.
    pub parsed: Proportion,
    /// Its answers corrected by hand in the review queue.
    pub corrected_by_hand: Proportion,
    /// Its answers still unread (needing review, or failed).
    pub unread: Proportion,
    /// The share of its verdicts that flip when the sides are shown swapped
    /// (`rejudge --swap-sides`), n counting exchanges judged both ways; none until then.
    pub position_flips: Option<Proportion>,
    /// Krippendorff's alpha against people's consensus (or the one person), when people
    /// judged.
    pub human_alpha: Option<Figure>,
    /// Its cost per answered call as a judge, in dollars, and those calls; none without a
    /// price.
    pub cost_per_call: Option<f64>,
}

/// Every judge's card from the rounds; the parts computed elsewhere (leniency,
/// self-preference, people, cost) are filled in by [`fill`].
pub fn cards(rounds: &[Round]) -> Vec<JudgeCard> {
    // judge → (model, its judgments: (round index, judgment index)).
    let mut by_judge: BTreeMap<String, (String, Vec<(usize, usize)>)> = BTreeMap::new();
    for (ri, r) in rounds.iter().enumerate() {
        for (ji, j) in r.judgments.iter().enumerate() {
            by_judge
                .entry(j.judge_key().to_string())
                .or_insert_with(|| (j.judge_model.clone(), Vec::new()))
                .1
                .push((ri, ji));
        }
    }
    by_judge
        .into_iter()
        .map(|(judge, (model, mine))| {
            let status = |s: &[ParseStatus]| {
                let hits = mine
                    .iter()
                    .filter(|(r, j)| s.contains(&rounds[*r].judgments[*j].parse_status))
                    .count();
                Proportion::new(hits, mine.len())
            };
            JudgeCard {
                test_retest: test_retest(rounds, &mine),
                length_sensitivity: length_sensitivity(rounds, &mine),
                parsed: status(&[ParseStatus::Parsed]),
                corrected_by_hand: status(&[ParseStatus::CorrectedByHand]),
                unread: status(&[ParseStatus::Partial, ParseStatus::Failed]),
                judgments: mine.len(),
                judge,
                model,
                leniency: None,
                self_preference: None,
                position_flips: None,
                human_alpha: None,
                cost_per_call: None,
            }
        })
        .collect()
}

/// A round's configuration: what a repetition plays again.
fn configuration(r: &Round) -> String {
    let what = r
        .qa()
        .map(|q| q.item_id.clone())
        .unwrap_or_else(|| r.dilemma_id.clone());
    format!("{what}\u{1f}{}\u{1f}{}", r.team_a_model, r.team_b_model)
}

fn test_retest(rounds: &[Round], mine: &[(usize, usize)]) -> Option<Figure> {
    let mut by_config: BTreeMap<String, Vec<Reading>> = BTreeMap::new();
    for &(r, j) in mine {
        if let Some(reading) = Reading::of_judgment(&rounds[r].judgments[j]) {
            by_config
                .entry(configuration(&rounds[r]))
                .or_default()
                .push(reading);
        }
    }
    let repeated: Vec<Vec<&Reading>> = by_config
        .values()
        .filter(|v| v.len() >= 2)
        .map(|v| v.iter().collect())
        .collect();
    if repeated.is_empty() {
        return None;
    }
    let interval = mine
        .first()
        .is_some_and(|(r, _)| rounds[*r].kind() == ProtocolKind::EthicsBowl);
    Some(among(&repeated, interval))
}

fn length_sensitivity(rounds: &[Round], mine: &[(usize, usize)]) -> Option<Statistic> {
    let points: Vec<(f64, f64)> = mine
        .iter()
        .filter(|(r, _)| rounds[*r].kind() == ProtocolKind::EthicsBowl)
        .filter_map(|&(r, j)| {
            let round = &rounds[r];
            let margin = round.judgments[j]
                .is_usable()
                .then(|| round.judgments[j].margin())??;
            let diff = team_length(round, Team::A) as f64 - team_length(round, Team::B) as f64;
            Some((diff, margin))
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    Some(Statistic::bootstrap(points.len(), |draw| {
        let mut m = Moments::default();
        for &i in draw {
            m.push(points[i].0, points[i].1);
        }
        m.pearson()
    }))
}

/// Fills in the parts other analyses computed: leniency from the judge-effects fit,
/// self-preference from the bias checks, the cost per call from the usage table.
pub fn fill(
    cards: &mut [JudgeCard],
    adjusted: Option<&super::effects::Adjusted>,
    bias: &super::bias::BiasChecks,
    usage: &[super::usage::ModelUsage],
) {
    for card in cards {
        card.leniency = adjusted
            .and_then(|a| a.judges.iter().find(|j| j.judge == card.judge))
            .map(|j| j.effect.clone());
        card.self_preference = bias
            .self_preference
            .iter()
            .find(|p| p.judge == card.judge && p.relation == "own model")
            .map(|p| p.difference);
        card.cost_per_call = usage
            .iter()
            .find(|u| u.model == card.model && u.role == "judge")
            .filter(|u| u.calls > 0 && u.unpriced_calls == 0)
            .map(|u| u.cost_usd / u.calls as f64);
    }
}

/// Fills in the position flips measured by `rejudge --swap-sides` (by the judge's model:
/// swapping is done by judge model).
pub fn fill_flips(cards: &mut [JudgeCard], flips: &[super::flip::FlipRate]) {
    for card in cards {
        card.position_flips = flips
            .iter()
            .find(|f| f.judge == card.judge || f.judge == card.model)
            .map(|f| f.flips);
    }
}

/// Fills in agreement with people: against their consensus, or the one person when one
/// judged.
pub fn fill_people(cards: &mut [JudgeCard], rows: &[super::human::HumanAgreement]) {
    for card in cards {
        let mine: Vec<_> = rows.iter().filter(|r| r.judge == card.judge).collect();
        card.human_alpha = mine
            .iter()
            .find(|r| r.annotator == super::human::CONSENSUS)
            .or(if mine.len() == 1 { mine.first() } else { None })
            .map(|r| r.alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};
    use crate::domain::Scores;

    /// A judge that scores each configuration the same way in both repetitions is
    /// perfectly consistent; its read and unread shares count its judgments.
    #[test]
    fn a_card_per_judge() {
        let mut rounds = Vec::new();
        for rep in 1..=2 {
            for i in 0..10 {
                let (a, b) = (3.0 + (i % 6) as f64, 8.0 - (i % 5) as f64);
                let mut j = judgment("steady", Scores::uniform(a), Scores::uniform(b));
                if rep == 2 && i == 0 {
                    j.parse_status = ParseStatus::CorrectedByHand;
                }
                rounds.push(round(
                    &format!("d{i}__r{rep}"),
                    &format!("d{i}"),
                    "m1",
                    "m2",
                    vec![j],
                ));
            }
        }
        let cards = cards(&rounds);
        assert_eq!(cards.len(), 1);
        let c = &cards[0];
        assert_eq!(c.judgments, 20);
        let retest = c.test_retest.unwrap();
        assert_eq!((retest.estimate, retest.n), (Some(1.0), 10));
        assert_eq!(
            (c.parsed.hits, c.corrected_by_hand.hits, c.unread.hits),
            (19, 1, 0)
        );
        assert!(c.length_sensitivity.is_some());
    }
}
