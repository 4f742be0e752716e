//! The question-answer debate's figures: judge accuracy per configuration with Wilson 95%
//! intervals, the lift of debate over the naive baseline and the gap to the expert, accuracy
//! by correct side and by position, debaters' win rates when assigned the correct and the
//! incorrect answer, quote verification, persuasiveness ratings (Bradley–Terry over
//! cross-play wins) beside the accuracy of judges in each model's self-play debates, and the
//! calibration of judges' confidence.
//!
//! Only usable judgments (parsed, or corrected by hand) on items with a correct answer count
//! towards accuracy; rounds whose two answers were both wrong are reported apart. The
//! source's three-way baselines are right when their label (proved, disproved, unknown) is
//! the item's: their accuracy is over three labels (chance is one third), also given per
//! correct label.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ratings::{Rating, rate_pairs};
use super::stats::{mean, pearson};
use crate::domain::{Judgment, Label, ProtocolKind, QaFormat, QaSetup, Round, Team};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Confidence bins for calibration (lower bound inclusive; the last includes 100).
pub const CALIBRATION_BINS: [(f64, f64); 6] = [
    (0.0, 50.0),
    (50.0, 60.0),
    (60.0, 70.0),
    (70.0, 80.0),
    (80.0, 90.0),
    (90.0, 100.0),
];

/// A share with its Wilson 95% interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Proportion {
    /// Successes.
    pub hits: usize,
    /// Trials.
    pub n: usize,
    /// hits / n.
    pub share: Option<f64>,
    /// Lower end of the Wilson 95% interval.
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// The independent units among the trials (question-answer items: the several judges,
    /// formats and pairings of one item are one unit); `n` when each trial is its own.
    pub units: usize,
}

impl Proportion {
    /// `hits` out of `n` independent trials, with its interval.
    pub fn new(hits: usize, n: usize) -> Self {
        let Some((low, high)) = wilson(hits, n) else {
            return Self {
                hits,
                n,
                units: n,
                ..Self::default()
            };
        };
        Self {
            hits,
            n,
            share: Some(hits as f64 / n as f64),
            low: Some(low),
            high: Some(high),
            units: n,
        }
    }

    /// The share of trials that come in clusters, each `(hits, trials)`: the Wilson interval
    /// at the effective sample size the clustering leaves, `p(1−p)` over the share's
    /// cluster-robust variance (the design effect; never more than the trials), so that
    /// several judgments of one item do not narrow it as independent ones would. With one
    /// trial per cluster it is [`Proportion::new`].
    pub fn clustered(clusters: &[(usize, usize)]) -> Self {
        let (hits, n) = clusters
            .iter()
            .fold((0, 0), |(h, t), &(ch, ct)| (h + ch, t + ct));
        let g = clusters.iter().filter(|c| c.1 > 0).count();
        if g == n {
            return Self::new(hits, n);
        }
        let mut out = Self::new(hits, n);
        out.units = g;
        let p = hits as f64 / n as f64;
        let spread: f64 = clusters
            .iter()
            .map(|&(ch, ct)| (ch as f64 - ct as f64 * p).powi(2))
            .sum();
        let variance = (g >= 2).then(|| g as f64 / (g as f64 - 1.0) * spread / (n * n) as f64);
        // No spread between clusters: at 0% or 100% nothing tells how the clusters would
        // vary, so count the clusters; otherwise they vary less than independent trials
        // would, and the trials count.
        let effective = match variance {
            Some(v) if v > 0.0 => (p * (1.0 - p) / v).min(n as f64),
            _ if hits == 0 || hits == n => g as f64,
            _ => n as f64,
        };
        if let Some((low, high)) = wilson_at(p, effective) {
            out.low = Some(low);
            out.high = Some(high);
        }
        out
    }
}

/// Trials counted per item, for a [`Proportion::clustered`].
#[derive(Debug, Clone, Default)]
pub struct ItemTally(BTreeMap<String, (usize, usize)>);

impl ItemTally {
    /// One trial of `item`.
    pub fn add(&mut self, item: &str, hit: bool) {
        let slot = self.0.entry(item.to_string()).or_default();
        slot.0 += usize::from(hit);
        slot.1 += 1;
    }

    /// The share, its interval counting items.
    pub fn proportion(&self) -> Proportion {
        let clusters: Vec<(usize, usize)> = self.0.values().copied().collect();
        Proportion::clustered(&clusters)
    }
}

/// The Wilson score interval at 95% (Wilson 1927): good at small n and near 0 or 1.
pub fn wilson(hits: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    wilson_at(hits as f64 / n as f64, n as f64)
}

/// The Wilson interval of a share `p` over `n` trials (`n` may be an effective, fractional
/// sample size).
fn wilson_at(p: f64, n: f64) -> Option<(f64, f64)> {
    if n <= 0.0 || !p.is_finite() {
        return None;
    }
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0 and n the interval ends exactly at 0 and 1 (rounding would leave 1e-16 off).
    let low = if p == 0.0 { 0.0 } else { centre - half };
    let high = if p == 1.0 { 1.0 } else { centre + half };
    Some((low.max(0.0), high.min(1.0)))
}

/// Judge accuracy in one configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigAccuracy {
    /// Debate, consultancy or a baseline.
    pub format: QaFormat,
    /// `a vs b`, the consultant, or empty for baselines.
    pub debaters: String,
    /// The judge.
    pub judge: String,
    /// The dataset level.
    pub level: String,
    /// `self_play`, `stronger`, `weaker` or `mixed` (debates and consultancies).
    pub relation: Option<String>,
    /// Correct choices among usable judgments.
    pub accuracy: Proportion,
}

/// Debate against the baselines, for one judge on one level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lift {
    /// The judge.
    pub judge: String,
    /// The level.
    pub level: String,
    /// Accuracy in every format this judge ran, in [`QaFormat::ALL`] order.
    pub formats: BTreeMap<QaFormat, Proportion>,
    /// Debate accuracy minus naive accuracy.
    pub lift_over_naive: Option<f64>,
    /// Expert accuracy minus debate accuracy.
    pub gap_to_expert: Option<f64>,
}

/// Accuracy split by where the correct answer was.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionSplit {
    /// The format.
    pub format: QaFormat,
    /// When the correct answer was A's.
    pub correct_a: Proportion,
    /// When it was B's.
    pub correct_b: Proportion,
    /// When the correct debater was read first in each round.
    pub correct_first: Proportion,
    /// When it was read second.
    pub correct_second: Proportion,
}

/// One debating model's record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DebaterFigures {
    /// The model.
    pub model: String,
    /// Judges chose its answer when it was correct.
    pub wins_when_correct: Proportion,
    /// Judges chose its answer when it was incorrect.
    pub wins_when_incorrect: Proportion,
    /// Its quotes found in the game.
    pub quotes_verified: Proportion,
    /// Arguments cut at the word limit.
    pub word_limit_violations: u32,
    /// Persuasiveness (Bradley–Terry over cross-play debates won, Elo scale), when it
    /// debated another model.
    pub persuasiveness: Option<Rating>,
    /// Judge accuracy in debates where this model argued both sides.
    pub self_play_accuracy: Proportion,
}

/// One calibration bin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibrationBin {
    /// Lower bound of the confidences in it.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Mean stated confidence (0–100).
    pub mean_confidence: Option<f64>,
    /// How often those choices were right.
    pub accuracy: Proportion,
}

/// Rounds whose two answers were both wrong: did judges notice (lower confidence)?
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BothWrong {
    /// Usable judgments on such rounds.
    pub n: usize,
    /// Their mean confidence.
    pub mean_confidence: Option<f64>,
    /// Mean confidence on rounds with one correct answer, for comparison.
    pub mean_confidence_otherwise: Option<f64>,
}

/// A three-way baseline's accuracy over the three labels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreeWayAccuracy {
    /// The baseline (`three_way` or `three_way_argued`).
    pub format: QaFormat,
    /// The judge.
    pub judge: String,
    /// Correct labels among usable judgments.
    pub accuracy: Proportion,
    /// Accuracy on the items of each correct label (proved, disproved, unknown).
    pub by_label: BTreeMap<Label, Proportion>,
    /// How often each label was given.
    pub given: BTreeMap<Label, usize>,
}

/// Everything the report says about question-answer rounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QaFigures {
    /// Rounds read.
    pub rounds: usize,
    /// Judgments still waiting for review (not counted).
    pub awaiting_review: usize,
    /// Accuracy per format, over every judge and level.
    pub by_format: BTreeMap<QaFormat, Proportion>,
    /// Accuracy per configuration.
    pub configurations: Vec<ConfigAccuracy>,
    /// Debate against the baselines, per judge and level.
    pub lifts: Vec<Lift>,
    /// Accuracy by correct side and position, per format with debaters.
    pub positions: Vec<PositionSplit>,
    /// Each debating model.
    pub debaters: Vec<DebaterFigures>,
    /// Correlation across models of persuasiveness and self-play judge accuracy (the
    /// paper's finding is positive), when three or more models have both.
    pub persuasiveness_accuracy_correlation: Option<f64>,
    /// Stated confidence against accuracy.
    pub calibration: Vec<CalibrationBin>,
    /// Rounds with two wrong answers.
    pub both_wrong: Option<BothWrong>,
    /// The three-way baselines, per format and judge (left out of `analysis.json` when
    /// none ran).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub three_way: Vec<ThreeWayAccuracy>,
}

/// A judged round: its setup, the judgment in force and whether it was right.
struct Judged<'a> {
    round: &'a Round,
    setup: &'a QaSetup,
    judgment: &'a Judgment,
    /// The side chosen (none for a three-way label).
    choice: Option<Team>,
    /// The label given (three-way baselines).
    label: Option<Label>,
    confidence: Option<f64>,
    correct: Option<bool>,
}

fn judged(rounds: &[Round]) -> (Vec<Judged<'_>>, usize) {
    let mut out = Vec::new();
    let mut awaiting = 0;
    for round in rounds {
        let Some(setup) = round.qa() else { continue };
        for judgment in &round.judgments {
            let usable = judgment.is_usable();
            match (
                judgment.choice().copied().filter(|_| usable),
                judgment.label().filter(|_| usable),
            ) {
                (Some(choice), _) => out.push(Judged {
                    round,
                    setup,
                    judgment,
                    choice: Some(choice.side),
                    label: None,
                    confidence: choice.confidence,
                    correct: setup.assignment.correct_side.map(|c| c == choice.side),
                }),
                (None, Some(label)) => out.push(Judged {
                    round,
                    setup,
                    judgment,
                    choice: None,
                    label: Some(label),
                    confidence: None,
                    correct: Some(label == setup.label),
                }),
                (None, None) => awaiting += 1,
            }
        }
    }
    (out, awaiting)
}

/// Who debated a question-answer round, as its configuration row and filter name them:
/// `a vs b`, the consultant, or none for the baselines.
pub fn debaters_label(round: &Round, format: QaFormat) -> Option<String> {
    match format {
        QaFormat::Debate => Some(format!("{} vs {}", round.team_a_model, round.team_b_model)),
        QaFormat::Consultancy => Some(round.team_a_model.clone()),
        _ => None,
    }
}

/// Judge accuracy per format over every judge and level (what a run's summary shows).
pub fn accuracy_by_format(rounds: &[Round]) -> BTreeMap<QaFormat, Proportion> {
    let mut by_format: BTreeMap<QaFormat, ItemTally> = BTreeMap::new();
    for j in judged(rounds).0.iter().filter(|j| j.correct.is_some()) {
        by_format
            .entry(j.setup.format)
            .or_default()
            .add(&j.setup.item_id, j.correct == Some(true));
    }
    shares(by_format)
}

/// Each tally's share.
fn shares<K: Ord>(tallies: BTreeMap<K, ItemTally>) -> BTreeMap<K, Proportion> {
    tallies
        .into_iter()
        .map(|(k, t)| (k, t.proportion()))
        .collect()
}

/// The figures, when any round is a question-answer round.
pub fn qa_figures(rounds: &[Round]) -> Option<QaFigures> {
    let qa_rounds = rounds
        .iter()
        .filter(|r| r.kind() == ProtocolKind::QaDebate)
        .count();
    if qa_rounds == 0 {
        return None;
    }
    let (all, awaiting_review) = judged(rounds);
    let scored: Vec<&Judged> = all.iter().filter(|j| j.correct.is_some()).collect();
    let hit = |j: &Judged| j.correct == Some(true);

    let by_format = accuracy_by_format(rounds);
    let mut configs: BTreeMap<(QaFormat, String, String, String, Option<String>), ItemTally> =
        BTreeMap::new();
    let mut per_judge: BTreeMap<(String, String), BTreeMap<QaFormat, ItemTally>> = BTreeMap::new();
    for j in &scored {
        let format = j.setup.format;
        configs
            .entry((
                format,
                debaters_label(j.round, format).unwrap_or_default(),
                j.judgment.judge_key().to_string(),
                j.setup.level.clone(),
                j.setup.relation.clone(),
            ))
            .or_default()
            .add(&j.setup.item_id, hit(j));
        per_judge
            .entry((j.judgment.judge_key().to_string(), j.setup.level.clone()))
            .or_default()
            .entry(format)
            .or_default()
            .add(&j.setup.item_id, hit(j));
    }
    let configurations = configs
        .into_iter()
        .map(
            |((format, debaters, judge, level, relation), accuracy)| ConfigAccuracy {
                format,
                debaters,
                judge,
                level,
                relation,
                accuracy: accuracy.proportion(),
            },
        )
        .collect();
    let lifts = per_judge
        .into_iter()
        .map(|((judge, level), formats)| {
            let formats = shares(formats);
            let share = |f: QaFormat| formats.get(&f).and_then(|p| p.share);
            let debate = share(QaFormat::Debate);
            Lift {
                lift_over_naive: debate.zip(share(QaFormat::Naive)).map(|(d, n)| d - n),
                gap_to_expert: debate.zip(share(QaFormat::Expert)).map(|(d, e)| e - d),
                judge,
                level,
                formats,
            }
        })
        .collect();

    // Per format: when the correct answer was A's, B's, read first, read second.
    let mut positions: BTreeMap<QaFormat, [ItemTally; 4]> = BTreeMap::new();
    for j in scored.iter().filter(|j| j.setup.format.debaters() > 0) {
        let Some(correct) = j.setup.assignment.correct_side else {
            continue;
        };
        let split = positions.entry(j.setup.format).or_default();
        let item = &j.setup.item_id;
        match correct {
            Team::A => split[0].add(item, hit(j)),
            Team::B => split[1].add(item, hit(j)),
        }
        if j.setup.format == QaFormat::Debate {
            if j.setup.assignment.first == correct {
                split[2].add(item, hit(j));
            } else {
                split[3].add(item, hit(j));
            }
        }
    }
    let positions = positions
        .into_iter()
        .map(|(format, [a, b, first, second])| PositionSplit {
            format,
            correct_a: a.proportion(),
            correct_b: b.proportion(),
            correct_first: first.proportion(),
            correct_second: second.proportion(),
        });

    let debaters = debater_figures(rounds, &scored);
    let pairs: Vec<(f64, f64)> = debaters
        .iter()
        .filter_map(|d| {
            Some((
                d.persuasiveness.as_ref()?.rating,
                d.self_play_accuracy.share?,
            ))
        })
        .collect();
    let persuasiveness_accuracy_correlation = (pairs.len() >= 3)
        .then(|| {
            let (x, y): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
            pearson(&x, &y)
        })
        .flatten();

    let calibration = CALIBRATION_BINS
        .iter()
        .map(|&(low, high)| {
            let inside: Vec<&&Judged> = scored
                .iter()
                .filter(|j| {
                    j.confidence
                        .is_some_and(|c| c >= low && (c < high || (high == 100.0 && c <= high)))
                })
                .collect();
            let confidences: Vec<f64> = inside.iter().filter_map(|j| j.confidence).collect();
            CalibrationBin {
                low,
                high,
                mean_confidence: mean(&confidences),
                accuracy: {
                    let mut t = ItemTally::default();
                    inside.iter().for_each(|j| t.add(&j.setup.item_id, hit(j)));
                    t.proportion()
                },
            }
        })
        .collect();

    let wrong: Vec<f64> = all
        .iter()
        .filter(|j| j.correct.is_none())
        .filter_map(|j| j.confidence)
        .collect();
    let both_wrong = all.iter().any(|j| j.correct.is_none()).then(|| BothWrong {
        n: all.iter().filter(|j| j.correct.is_none()).count(),
        mean_confidence: mean(&wrong),
        mean_confidence_otherwise: mean(
            &scored
                .iter()
                .filter_map(|j| j.confidence)
                .collect::<Vec<_>>(),
        ),
    });

    let three_way = three_way_accuracy(&scored);

    Some(QaFigures {
        three_way,
        rounds: qa_rounds,
        awaiting_review,
        by_format,
        configurations,
        lifts,
        positions: positions.collect(),
        debaters,
        persuasiveness_accuracy_correlation,
        calibration,
        both_wrong,
    })
}

/// Each three-way baseline's accuracy per judge, over the three labels and per correct
/// label.
fn three_way_accuracy(scored: &[&Judged]) -> Vec<ThreeWayAccuracy> {
    // Per format and judge: accuracy, accuracy per correct label, labels given.
    type Row = (
        ItemTally,
        BTreeMap<Label, ItemTally>,
        BTreeMap<Label, usize>,
    );
    let mut out: BTreeMap<(QaFormat, String), Row> = BTreeMap::new();
    for j in scored {
        let Some(label) = j.label else { continue };
        let hit = label == j.setup.label;
        let row = out
            .entry((j.setup.format, j.judgment.judge_key().to_string()))
            .or_insert_with(|| {
                (
                    ItemTally::default(),
                    Label::ALL
                        .into_iter()
                        .map(|l| (l, ItemTally::default()))
                        .collect(),
                    Label::ALL.into_iter().map(|l| (l, 0)).collect(),
                )
            });
        row.0.add(&j.setup.item_id, hit);
        row.1
            .entry(j.setup.label)
            .or_default()
            .add(&j.setup.item_id, hit);
        *row.2.entry(label).or_default() += 1;
    }
    out.into_iter()
        .map(
            |((format, judge), (accuracy, by_label, given))| ThreeWayAccuracy {
                format,
                judge,
                accuracy: accuracy.proportion(),
                by_label: shares(by_label),
                given,
            },
        )
        .collect()
}

fn debater_figures(rounds: &[Round], scored: &[&Judged]) -> Vec<DebaterFigures> {
    let mut models: Vec<String> = Vec::new();
    for r in rounds.iter().filter(|r| r.kind() == ProtocolKind::QaDebate) {
        for m in [&r.team_a_model, &r.team_b_model] {
            if !m.is_empty() && !models.contains(m) {
                models.push(m.clone());
            }
        }
    }
    let mut wins_correct: BTreeMap<&str, ItemTally> = BTreeMap::new();
    let mut wins_incorrect: BTreeMap<&str, ItemTally> = BTreeMap::new();
    let mut self_play: BTreeMap<&str, ItemTally> = BTreeMap::new();
    // Cross-play debates won, each with its item (the unit the intervals resample).
    let mut matches: Vec<(usize, usize, f64, usize)> = Vec::new();
    let mut items: Vec<String> = Vec::new();
    for j in scored {
        let format = j.setup.format;
        if format.debaters() == 0 {
            continue;
        }
        let correct = j.setup.assignment.correct_side;
        for (side, model) in [
            (Team::A, &j.round.team_a_model),
            (Team::B, &j.round.team_b_model),
        ] {
            if format == QaFormat::Consultancy && side == Team::B {
                continue;
            }
            let slot = if correct == Some(side) {
                &mut wins_correct
            } else {
                &mut wins_incorrect
            };
            slot.entry(model.as_str())
                .or_default()
                .add(&j.setup.item_id, j.choice == Some(side));
        }
        if format == QaFormat::Debate {
            let (a, b) = (&j.round.team_a_model, &j.round.team_b_model);
            if a == b {
                self_play
                    .entry(a.as_str())
                    .or_default()
                    .add(&j.setup.item_id, j.correct == Some(true));
            } else if let (Some(ia), Some(ib)) = (
                models.iter().position(|m| m == a),
                models.iter().position(|m| m == b),
            ) {
                let item = match items.iter().position(|i| *i == j.setup.item_id) {
                    Some(i) => i,
                    None => {
                        items.push(j.setup.item_id.clone());
                        items.len() - 1
                    }
                };
                let won = if j.choice == Some(Team::A) { 1.0 } else { 0.0 };
                matches.push((ia, ib, won, item));
            }
        }
    }
    let ratings = rate_pairs(models.clone(), &matches);
    let (wins_correct, wins_incorrect, self_play) = (
        shares(wins_correct),
        shares(wins_incorrect),
        shares(self_play),
    );
    models
        .iter()
        .map(|model| {
            let (mut verified, mut quotes, mut cuts) = (0, 0, 0);
            for r in rounds {
                let Some(setup) = r.qa() else { continue };
                for (m, record) in [
                    (&r.team_a_model, setup.debater_a),
                    (&r.team_b_model, setup.debater_b),
                ] {
                    if m == model {
                        verified += record.verified_quotes as usize;
                        quotes += (record.verified_quotes + record.unverified_quotes) as usize;
                        cuts += record.word_limit_violations;
                    }
                }
            }
            DebaterFigures {
                model: model.clone(),
                wins_when_correct: wins_correct
                    .get(model.as_str())
                    .copied()
                    .unwrap_or_default(),
                wins_when_incorrect: wins_incorrect
                    .get(model.as_str())
                    .copied()
                    .unwrap_or_default(),
                quotes_verified: Proportion::new(verified, quotes),
                word_limit_violations: cuts,
                persuasiveness: ratings
                    .iter()
                    .find(|r| r.entrant == *model && r.matches > 0)
                    .cloned(),
                self_play_accuracy: self_play.get(model.as_str()).copied().unwrap_or_default(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judgments_of_one_item_count_as_one_item() {
        // One trial per item: Wilson over the trials.
        let once: Vec<(usize, usize)> = (0..20).map(|i| (usize::from(i < 13), 1)).collect();
        assert_eq!(Proportion::clustered(&once), Proportion::new(13, 20));
        // Each item judged three times alike: the interval of 13 of 20 items, not of 39
        // of 60 judgments (the design effect is 3, up to the G/(G−1) correction).
        let thrice: Vec<(usize, usize)> = once.iter().map(|&(h, _)| (3 * h, 3)).collect();
        let p = Proportion::clustered(&thrice);
        assert_eq!((p.hits, p.n, p.units), (39, 60, 20));
        let items = Proportion::new(13, 20);
        let judgments = Proportion::new(39, 60);
        let width = |p: &Proportion| p.high.unwrap() - p.low.unwrap();
        assert!((width(&p) - width(&items)).abs() < 0.02, "{p:?} {items:?}");
        assert!(width(&p) > 1.5 * width(&judgments), "{p:?} {judgments:?}");
        // Every item right: no spread, the interval of 20 items.
        let all: Vec<(usize, usize)> = (0..20).map(|_| (3, 3)).collect();
        let p = Proportion::clustered(&all);
        assert_eq!((p.low, p.high), (Proportion::new(20, 20).low, Some(1.0)));
    }

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), table I: 81/263 → 0.2553 to 0.3662; 15/148 → 0.0624 to 0.1605.
        let (l, h) = wilson(81, 263).unwrap();
        assert!(
            (l - 0.2553).abs() < 5e-4 && (h - 0.3662).abs() < 5e-4,
            "{l} {h}"
        );
        let (l, h) = wilson(15, 148).unwrap();
        assert!(
            (l - 0.0624).abs() < 5e-4 && (h - 0.1605).abs() < 5e-4,
            "{l} {h}"
        );
        // 0 of 10 and 10 of 10 stay inside [0, 1].
        assert_eq!(wilson(0, 10).unwrap().0, 0.0);
        assert_eq!(wilson(10, 10).unwrap().1, 1.0);
        assert_eq!(wilson(0, 0), None);
    }
}
