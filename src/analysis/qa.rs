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
//!
//! The unit of replication is the item: every judgment of one item (its judges, formats,
//! pairings, panel members) is one cluster. Shares count items in their intervals
//! ([`Proportion::clustered`]); the lift over the naive judge and the gap to the expert are
//! paired differences whose intervals resample items ([`paired_difference`]); quotes are
//! clustered by item; the mean confidences are cluster-robust means over items.

use std::cell::RefCell;
use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use serde::Serialize;

use super::ratings::{Rating, rate_pairs, strengths};
use super::stats::bootstrap::{REPLICATES, SEED, cluster_intervals};
use super::stats::pearson;
use super::stats::statistic::Statistic;
use super::tables::Cell;
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
    /// What the trials and the units are, for the n shown (left out of `analysis.json` for
    /// judgments of items, the question-answer accuracies').
    #[serde(skip_serializing_if = "Counted::is_default")]
    pub counted: Counted,
}

/// What a share's trials and its independent units are, so its n reads
/// `n=399 quotes, 12 items`: judgments of items unless the figure says otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// Judgments, clustered by item (question-answer accuracies).
    #[default]
    JudgmentsOfItems,
    /// A debater's quotes, clustered by item.
    QuotesOfItems,
    /// Judgments, clustered by round (a structured debate's judges or panel members).
    JudgmentsOfRounds,
    /// Judges' assessments of arguments, clustered by round.
    AssessmentsOfRounds,
    /// Cross-examination answers, clustered by round.
    AnswersOfRounds,
    /// Arguments, clustered by round.
    ArgumentsOfRounds,
    /// A panel judge's calls of arguments, clustered by round.
    CallsOfRounds,
    /// A judge's scores on one criterion (both teams), clustered by round.
    ScoresOfRounds,
}

impl Counted {
    /// The trials' noun for `n` of them.
    pub fn trials(self, n: usize) -> &'static str {
        let (one, many) = match self {
            Self::JudgmentsOfItems | Self::JudgmentsOfRounds => ("judgment", "judgments"),
            Self::QuotesOfItems => ("quote", "quotes"),
            Self::AssessmentsOfRounds => ("assessment", "assessments"),
            Self::AnswersOfRounds => ("answer", "answers"),
            Self::ArgumentsOfRounds => ("argument", "arguments"),
            Self::CallsOfRounds => ("call", "calls"),
            Self::ScoresOfRounds => ("score", "scores"),
        };
        if n == 1 { one } else { many }
    }

    /// The units' noun for `n` of them.
    pub fn units(self, n: usize) -> &'static str {
        let (one, many) = match self {
            Self::JudgmentsOfItems | Self::QuotesOfItems => ("item", "items"),
            _ => ("round", "rounds"),
        };
        if n == 1 { one } else { many }
    }

    fn is_default(&self) -> bool {
        *self == Self::default()
    }
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
            counted: Counted::default(),
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
        if g < 2 {
            // One cluster: nothing tells how another would come out.
            out.low = None;
            out.high = None;
            return out;
        }
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

    /// The same share, its trials and units named.
    pub fn counting(self, counted: Counted) -> Self {
        Self { counted, ..self }
    }
}

/// Trials counted per item, for a [`Proportion::clustered`].
#[derive(Debug, Clone, Default)]
pub struct ItemTally(BTreeMap<String, (usize, usize)>);

impl ItemTally {
    /// One trial of `item`.
    pub fn add(&mut self, item: &str, hit: bool) {
        self.add_trials(item, usize::from(hit), 1);
    }

    /// `trials` trials of `item` (any cluster's id: an item, a round), `hits` of them hits.
    pub fn add_trials(&mut self, item: &str, hits: usize, trials: usize) {
        let slot = self.0.entry(item.to_string()).or_default();
        slot.0 += hits;
        slot.1 += trials;
    }

    /// The share, its interval counting items.
    pub fn proportion(&self) -> Proportion {
        let clusters: Vec<(usize, usize)> = self.0.values().copied().collect();
        Proportion::clustered(&clusters)
    }

    /// Each item's hits and trials.
    fn items(&self) -> &BTreeMap<String, (usize, usize)> {
        &self.0
    }
}

/// The difference of two shares measured on the same items, `a − b` (debate accuracy minus
/// the naive judge's): the value is the difference of the two pooled shares; its interval
/// is a paired cluster bootstrap that draws items with replacement and recomputes both
/// shares from the drawn items' judgments, so the items' own difficulty, which moves both
/// shares together, cancels. n counts the items either share has judgments on; none without
/// judgments in both, and no interval under
/// [`MIN_CLUSTERS`](super::stats::bootstrap::MIN_CLUSTERS) items.
pub fn paired_difference(a: &ItemTally, b: &ItemTally) -> Statistic {
    let mut items: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for (tally, at) in [(a, 0), (b, 2)] {
        for (item, &(hits, trials)) in tally.items() {
            let slot = items.entry(item).or_default();
            slot[at] = hits;
            slot[at + 1] = trials;
        }
    }
    let items: Vec<[usize; 4]> = items.into_values().collect();
    Statistic::bootstrap(items.len(), |draw| {
        let mut sum = [0usize; 4];
        for &i in draw {
            for (s, v) in sum.iter_mut().zip(items[i]) {
                *s += v;
            }
        }
        (sum[1] > 0 && sum[3] > 0)
            .then(|| sum[0] as f64 / sum[1] as f64 - sum[2] as f64 / sum[3] as f64)
    })
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
    /// Debate accuracy minus naive accuracy, with its paired interval over items
    /// ([`paired_difference`]).
    pub lift_over_naive: Statistic,
    /// Expert accuracy minus debate accuracy, the same way.
    pub gap_to_expert: Statistic,
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
    /// Its quotes found in the game, clustered by item (one debater's quotes in the
    /// rounds of one item are not independent).
    pub quotes_verified: Proportion,
    /// Arguments cut at the word limit.
    pub word_limit_violations: u32,
    /// Persuasiveness (Bradley–Terry over cross-play debates won, Elo scale), when it
    /// debated another model.
    pub persuasiveness: Option<Rating>,
    /// The items of its cross-play debates: the units its persuasiveness's interval
    /// resamples (its `matches` are judgments).
    pub persuasiveness_items: usize,
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
    /// Mean stated confidence (0–100), its interval counting items (cluster-robust).
    pub mean_confidence: Cell,
    /// How often those choices were right.
    pub accuracy: Proportion,
}

/// Rounds whose two answers were both wrong: did judges notice (lower confidence)?
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BothWrong {
    /// Usable judgments on such rounds.
    pub n: usize,
    /// Their mean confidence, its interval counting items.
    pub mean_confidence: Cell,
    /// Mean confidence on rounds with one correct answer, for comparison.
    pub mean_confidence_otherwise: Cell,
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
    /// paper's finding is positive): Pearson's r over the models that have both (its value
    /// from three models; n counts them), its interval from resampling models (the units of
    /// a correlation across models, so none under ten) and the items inside each resample
    /// ([`DebatesByItem::correlation`]).
    pub persuasiveness_accuracy_correlation: Statistic,
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

/// Judge accuracy per judge and format over every level, counting items (what a run's
/// summary shows per judge).
pub fn accuracy_by_judge(rounds: &[Round]) -> BTreeMap<String, BTreeMap<QaFormat, Proportion>> {
    let mut by: BTreeMap<String, BTreeMap<QaFormat, ItemTally>> = BTreeMap::new();
    for j in judged(rounds).0.iter().filter(|j| j.correct.is_some()) {
        by.entry(j.judgment.judge_key().to_string())
            .or_default()
            .entry(j.setup.format)
            .or_default()
            .add(&j.setup.item_id, j.correct == Some(true));
    }
    by.into_iter().map(|(k, t)| (k, shares(t))).collect()
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
            let difference = |a: QaFormat, b: QaFormat| match (formats.get(&a), formats.get(&b)) {
                (Some(a), Some(b)) => paired_difference(a, b),
                _ => Statistic::default(),
            };
            Lift {
                lift_over_naive: difference(QaFormat::Debate, QaFormat::Naive),
                gap_to_expert: difference(QaFormat::Expert, QaFormat::Debate),
                judge,
                level,
                formats: shares(formats),
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

    let (debaters, by_item) = debater_figures(rounds, &scored);
    let persuasiveness_accuracy_correlation = by_item.correlation();

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
            CalibrationBin {
                low,
                high,
                mean_confidence: mean_confidence(inside.iter().map(|j| **j)),
                accuracy: {
                    let mut t = ItemTally::default();
                    inside.iter().for_each(|j| t.add(&j.setup.item_id, hit(j)));
                    t.proportion()
                },
            }
        })
        .collect();

    let both_wrong = all.iter().any(|j| j.correct.is_none()).then(|| BothWrong {
        n: all.iter().filter(|j| j.correct.is_none()).count(),
        mean_confidence: mean_confidence(all.iter().filter(|j| j.correct.is_none())),
        mean_confidence_otherwise: mean_confidence(scored.iter().copied()),
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

/// The mean stated confidence of these judgments, its interval counting items.
fn mean_confidence<'b, 'a: 'b>(judged: impl Iterator<Item = &'b Judged<'a>>) -> Cell {
    let mut items: Vec<&str> = Vec::new();
    let observations: Vec<(usize, f64)> = judged
        .filter_map(|j| {
            let confidence = j.confidence?;
            let item = j.setup.item_id.as_str();
            let at = items.iter().position(|i| *i == item).unwrap_or_else(|| {
                items.push(item);
                items.len() - 1
            });
            Some((at, confidence))
        })
        .collect();
    Cell::clustered(&observations)
}

/// What each model's persuasiveness and self-play accuracy were measured on, item by item,
/// so that their correlation's interval can measure them again on resampled items.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DebatesByItem {
    /// The debating models (indices below are into it).
    pub models: usize,
    /// Items (indices below are into `0..items`).
    pub items: usize,
    /// Cross-play debates: `(Debater A, Debater B, 1 when A won else 0, item)`.
    pub matches: Vec<(usize, usize, f64, usize)>,
    /// Self-play judgments: `(model, item, judge right)`.
    pub self_play: Vec<(usize, usize, bool)>,
}

/// A second seed for the items drawn inside each resample of models, so that the two
/// levels' draws are independent and the report reproducible.
const ITEM_SEED: u64 = 0x17e3_5eed;

impl DebatesByItem {
    /// Each model's `(persuasiveness, self-play accuracy)` when each item counts as often
    /// as `weight` says: none for a model without cross-play debates or self-play judgments
    /// among the items counted.
    fn figures(&self, weight: &[usize]) -> Vec<Option<(f64, f64)>> {
        let matches: Vec<(usize, usize, f64, usize)> = self
            .matches
            .iter()
            .flat_map(|m| std::iter::repeat_n(*m, weight[m.3]))
            .collect();
        let mut played = vec![false; self.models];
        for m in &matches {
            played[m.0] = true;
            played[m.1] = true;
        }
        let rating = strengths(self.models, &matches);
        let mut tally = vec![(0usize, 0usize); self.models];
        for &(model, item, right) in &self.self_play {
            tally[model].0 += weight[item] * usize::from(right);
            tally[model].1 += weight[item];
        }
        (0..self.models)
            .map(|m| {
                (played[m] && tally[m].1 > 0)
                    .then(|| (rating[m], tally[m].0 as f64 / tally[m].1 as f64))
            })
            .collect()
    }

    /// Pearson's r across models of persuasiveness and self-play accuracy: its value over
    /// the models that have both (three at least), n counting them. Its interval resamples
    /// both levels the correlation rests on: the models (it is a statement about models)
    /// and, inside each resample, the items every model's two figures were measured on,
    /// which are refitted on the drawn items (treating them as fixed would leave out their
    /// own uncertainty and narrow the interval). Under ten models there is none.
    pub fn correlation(&self) -> Statistic {
        let all = vec![1; self.items];
        let both: Vec<usize> = self
            .figures(&all)
            .iter()
            .enumerate()
            .filter_map(|(m, f)| f.map(|_| m))
            .collect();
        if both.len() < 3 {
            return Statistic::without_interval(None, both.len());
        }
        let correlate = |figures: &[Option<(f64, f64)>], draw: &mut dyn Iterator<Item = usize>| {
            let (x, y): (Vec<f64>, Vec<f64>) = draw
                .map(|i| figures[both[i]])
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip();
            pearson(&x, &y)
        };
        let value = correlate(&self.figures(&all), &mut (0..both.len()));
        let rng = RefCell::new(ChaCha8Rng::seed_from_u64(ITEM_SEED));
        let interval = value
            .and_then(|_| {
                cluster_intervals(both.len(), REPLICATES, SEED, |draw| {
                    let mut weight = vec![0; self.items];
                    let mut rng = rng.borrow_mut();
                    for _ in 0..self.items {
                        weight[rng.random_range(0..self.items)] += 1;
                    }
                    drop(rng);
                    let r = correlate(&self.figures(&weight), &mut draw.iter().copied())?;
                    Some(vec![r])
                })
            })
            .and_then(|v| v.first().copied().flatten());
        Statistic {
            value,
            low: interval.map(|i| i.0),
            high: interval.map(|i| i.1),
            n: both.len(),
        }
    }
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

/// Each debating model's figures, and what its persuasiveness and self-play accuracy were
/// measured on, item by item.
fn debater_figures(rounds: &[Round], scored: &[&Judged]) -> (Vec<DebaterFigures>, DebatesByItem) {
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
    // Cross-play debates won and self-play judgments, each with its item (the unit the
    // intervals resample).
    let mut matches: Vec<(usize, usize, f64, usize)> = Vec::new();
    let mut self_play_by_item: Vec<(usize, usize, bool)> = Vec::new();
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
            let item = match items.iter().position(|i| *i == j.setup.item_id) {
                Some(i) => i,
                None => {
                    items.push(j.setup.item_id.clone());
                    items.len() - 1
                }
            };
            let (Some(ia), Some(ib)) = (
                models.iter().position(|m| m == a),
                models.iter().position(|m| m == b),
            ) else {
                continue;
            };
            if a == b {
                let right = j.correct == Some(true);
                self_play
                    .entry(a.as_str())
                    .or_default()
                    .add(&j.setup.item_id, right);
                self_play_by_item.push((ia, item, right));
            } else {
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
    let figures = models
        .iter()
        .enumerate()
        .map(|(index, model)| {
            let (mut quotes, mut cuts) = (ItemTally::default(), 0);
            for r in rounds {
                let Some(setup) = r.qa() else { continue };
                for (m, record) in [
                    (&r.team_a_model, setup.debater_a),
                    (&r.team_b_model, setup.debater_b),
                ] {
                    if m == model {
                        quotes.add_trials(
                            &setup.item_id,
                            record.verified_quotes as usize,
                            (record.verified_quotes + record.unverified_quotes) as usize,
                        );
                        cuts += record.word_limit_violations;
                    }
                }
            }
            let mut debated: Vec<usize> = matches
                .iter()
                .filter(|m| m.0 == index || m.1 == index)
                .map(|m| m.3)
                .collect();
            debated.sort_unstable();
            debated.dedup();
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
                quotes_verified: quotes.proportion().counting(Counted::QuotesOfItems),
                word_limit_violations: cuts,
                persuasiveness: ratings
                    .iter()
                    .find(|r| r.entrant == *model && r.matches > 0)
                    .cloned(),
                persuasiveness_items: debated.len(),
                self_play_accuracy: self_play.get(model.as_str()).copied().unwrap_or_default(),
            }
        })
        .collect();
    let by_item = DebatesByItem {
        models: models.len(),
        items: items.len(),
        matches,
        self_play: self_play_by_item,
    };
    (figures, by_item)
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
        // Every judgment of one item: its share, and no interval.
        let one = Proportion::clustered(&[(5, 7)]);
        assert_eq!((one.hits, one.n, one.units), (5, 7, 1));
        assert_eq!((one.low, one.high), (None, None));
        assert_eq!(
            crate::analysis::show::share(&one),
            "71% (n=7 judgments, 1 item, too few for an interval)"
        );
    }

    /// Twenty items, each judged three times in debate and once by the naive judge.
    fn paired_items() -> (ItemTally, ItemTally) {
        let debate = [3, 2, 3, 1, 0, 3, 2, 2, 3, 1, 3, 0, 2, 3, 1, 2, 3, 3, 0, 2];
        let naive = [1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0];
        let (mut d, mut n) = (ItemTally::default(), ItemTally::default());
        for (i, (&dh, &nh)) in debate.iter().zip(&naive).enumerate() {
            d.add_trials(&format!("item-{i}"), dh, 3);
            n.add_trials(&format!("item-{i}"), nh, 1);
        }
        (d, n)
    }

    #[test]
    fn the_lift_is_the_difference_of_accuracies_with_a_paired_interval_over_items() {
        let (debate, naive) = paired_items();
        let lift = paired_difference(&debate, &naive);
        // 39 of 60 debate judgments right, 9 of 20 naive ones: 0.65 − 0.45.
        let (d, n) = (debate.proportion(), naive.proportion());
        assert_eq!((d.hits, d.n, n.hits, n.n), (39, 60, 9, 20));
        let point = d.share.unwrap() - n.share.unwrap();
        assert!((lift.value.unwrap() - point).abs() < 1e-12, "{lift:?}");
        assert!((point - 0.2).abs() < 1e-12);
        assert_eq!(lift.n, 20, "n counts items, not the 80 judgments");
        // Reference values from numpy (tests/stats_reference/make_paired.py: 200,000 resamples of the 20
        // items with numpy.random.default_rng(12345)): bootstrap standard error 0.0796,
        // percentile interval [0.0500, 0.3667]; the linearised paired standard error (the
        // delta method for two ratios, clustered by item, G/(G−1) corrected) is 0.0816,
        // and 0.1405 if the two accuracies were treated as independent samples.
        let (low, high) = (lift.low.unwrap(), lift.high.unwrap());
        let se = (high - low) / (2.0 * 1.959_964);
        assert!((se - 0.0816).abs() < 0.2 * 0.0816, "{lift:?}: se {se}");
        assert!(se < 0.1405 * 0.8, "pairing narrows it: {se}");
        assert!((low - 0.0500).abs() < 0.035, "{lift:?}");
        assert!((high - 0.3667).abs() < 0.035, "{lift:?}");
        // Without judgments in one of the two formats there is no difference.
        assert_eq!(
            paired_difference(&debate, &ItemTally::default()).value,
            None
        );
        // Under ten items: the value, no interval.
        let (mut few_d, mut few_n) = (ItemTally::default(), ItemTally::default());
        for i in 0..5 {
            few_d.add(&i.to_string(), i < 4);
            few_n.add(&i.to_string(), i < 2);
        }
        let few = paired_difference(&few_d, &few_n);
        assert_eq!((few.value, few.low, few.n), (Some(0.8 - 0.4), None, 5));
    }

    #[test]
    fn quotes_of_one_item_are_one_unit() {
        // Twelve items, ten quotes each: all verified on six items, none on six. As 120
        // independent quotes the interval would be narrow; the items leave it wide.
        let mut t = ItemTally::default();
        for i in 0..12 {
            t.add_trials(&i.to_string(), if i < 6 { 10 } else { 0 }, 10);
        }
        let p = t.proportion().counting(Counted::QuotesOfItems);
        assert_eq!((p.hits, p.n, p.units), (60, 120, 12));
        let width = |p: &Proportion| p.high.unwrap() - p.low.unwrap();
        assert!(width(&p) > 2.0 * width(&Proportion::new(60, 120)), "{p:?}");
        assert_eq!(
            crate::analysis::show::share(&p),
            format!(
                "50% [{:.0}–{:.0}%] (n=120 quotes, 12 items)",
                p.low.unwrap() * 100.0,
                p.high.unwrap() * 100.0
            )
        );
    }

    /// Debates of `k` models over `items` items, by a fixed generator: each pair debates
    /// every item, the stronger model winning more often, and each model's self-play
    /// judgments right more often the stronger it is, with noise from item to item.
    fn debates(k: usize, items: usize) -> DebatesByItem {
        let mut state: u64 = 7;
        let mut uniform = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let skill = |m: usize| m as f64 / k as f64;
        let mut d = DebatesByItem {
            models: k,
            items,
            ..DebatesByItem::default()
        };
        for item in 0..items {
            for a in 0..k {
                for b in (a + 1)..k {
                    let p = 1.0 / (1.0 + (-2.0 * (skill(a) - skill(b))).exp());
                    d.matches
                        .push((a, b, f64::from(u8::from(uniform() < p)), item));
                }
                d.self_play
                    .push((a, item, uniform() < 0.4 + 0.4 * skill(a)));
            }
        }
        d
    }

    #[test]
    fn a_correlation_across_models_counts_models() {
        assert_eq!(
            debates(2, 12).correlation(),
            Statistic::without_interval(None, 2)
        );
        let four = debates(4, 12).correlation();
        assert!(four.value.is_some() && four.low.is_none(), "{four:?}");
        assert_eq!(four.n, 4);
        let twelve = debates(12, 12).correlation();
        assert_eq!(twelve.n, 12);
        let (low, high) = (twelve.low.unwrap(), twelve.high.unwrap());
        assert!(low < twelve.value.unwrap() && twelve.value.unwrap() < high);
    }

    /// The interval resamples the items inside each resample of models: it is wider than
    /// one that resamples models alone and treats each model's two figures as fixed, and
    /// its value is the correlation of the figures the report shows.
    #[test]
    fn a_correlation_across_models_resamples_items_too() {
        let d = debates(12, 8);
        let joint = d.correlation();
        let fixed: Vec<(f64, f64)> = d
            .figures(&vec![1; d.items])
            .into_iter()
            .map(|f| f.unwrap())
            .collect();
        let (x, y): (Vec<f64>, Vec<f64>) = fixed.iter().copied().unzip();
        assert!((joint.value.unwrap() - pearson(&x, &y).unwrap()).abs() < 1e-12);
        let models_only = Statistic::bootstrap(fixed.len(), |draw| {
            let (x, y): (Vec<f64>, Vec<f64>) = draw.iter().map(|&i| fixed[i]).unzip();
            pearson(&x, &y)
        });
        let width = |s: &Statistic| s.high.unwrap() - s.low.unwrap();
        assert!(
            width(&joint) > 1.2 * width(&models_only),
            "{joint:?} against {models_only:?}"
        );
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
