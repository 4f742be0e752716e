//! How many rounds: from a pilot run, the units (exchanges, items) each comparison the
//! report makes needs for 80% power against a true difference `D`, and the setting of the
//! tournament file that gives them (`repetitions`, more dilemmas or topics, or
//! `sample_per_level`). What `ethics-bowl plan` prints.
//!
//! The method, for every comparison:
//!
//! 1. its standard error at the pilot's size, counted in the unit of replication (the
//!    exchange for the Ethics Bowl and the structured debate, the item for the
//!    question-answer debate), as the analysis counts it:
//!    - Ethics Bowl: the differences between two models' judge- and side-adjusted scores,
//!      the side effect and the differences between two judges' leniencies, each from the
//!      judge-effects fit (`effects`), with the 95% percentile interval of the same cluster
//!      bootstrap over exchanges the report draws (its seed and resamples); the standard
//!      error is the interval's width / (2 · 1.96);
//!    - question-answer debate, per judge and level as the report's lifts: debate minus
//!      naive, expert minus debate, debate minus consultancy, each a difference of two
//!      accuracies over the same items; its standard error is the cluster-robust
//!      (linearised) one of the difference, items as clusters, the variance the report's
//!      clustered accuracies use, with the covariance of two formats on one item kept;
//!    - structured debate, per pair of models: the difference of their win rates (a draw
//!      half a win) and of their mean side totals, the same linearised standard error with
//!      rounds as clusters;
//! 2. with the design held (the same pairings, judges, formats and judgments per unit, so
//!    the same design effect), the standard error shrinks as `1/√units`, and the units
//!    needed are `n₀·(SE₀·(z₀.₉₇₅ + z₀.₈)/D)²` ([`power`](super::power));
//! 3. units turned into what the tournament file sets: repetitions (the schedule's units
//!    per repetition), or dilemmas or topics at the pilot's repetitions, or items per level.
//!
//! A comparison cannot be estimated from fewer than [`MIN_CLUSTERS`] units (the analysis
//! draws no interval from fewer) or when it does not vary. The plan is for the difference
//! `D` asked for, never for the pilot's estimate: planning for an observed effect only
//! restates the pilot's p-value.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::effects::{self, Observation};
use super::power::{self, ALPHA, POWER, Z_975};
use super::stats::bootstrap::{MIN_CLUSTERS, REPLICATES, SEED, cluster_intervals};
use crate::domain::{ProtocolKind, QaFormat, Round, Side};
use crate::store::TournamentRecord;

/// The largest difference two Ethics Bowl totals (14–70) can have.
pub const TOTAL_RANGE: f64 = 56.0;

/// The largest difference two structured-debate side totals (1–10) can have.
pub const SIDE_TOTAL_RANGE: f64 = 9.0;

/// The differences to plan for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Detect {
    /// Points of the 70-point total (Ethics Bowl), or percentage points of accuracy
    /// (question-answer) and of win rate (structured debate): 10 means 10 points.
    pub points: f64,
    /// Points of the structured debate's side total (its 1–10 scale), when its totals are
    /// planned too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side_total: Option<f64>,
}

/// Why a difference asked for cannot be planned for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BadDifference {
    /// Not a positive number.
    #[error("{0} is not a positive number of points")]
    NotPositive(f64),
    /// Larger than any difference of the scale.
    #[error("{value} is more than {scale} can differ by ({max})")]
    TooLarge {
        /// The difference asked for.
        value: f64,
        /// What it is measured on.
        scale: &'static str,
        /// The largest possible difference.
        max: f64,
    },
}

/// A plan that cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The difference to detect ([`Detect::points`]).
    #[error("the difference to detect: {0}")]
    Detect(BadDifference),
    /// The side-total difference ([`Detect::side_total`]).
    #[error("the side-total difference: {0}")]
    SideTotal(BadDifference),
    /// A side-total difference for rounds with no structured debate.
    #[error("only a structured debate has side totals, and these rounds hold none")]
    NoSideTotals,
    /// Nothing to plan from.
    #[error("no rounds to plan from")]
    NoRounds,
}

/// The unit of replication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// One debate's text, however many judges scored it.
    Exchange,
    /// One question-answer item, over every format, judge and pairing run on it.
    Item,
}

impl Unit {
    /// The unit's plural, for tables.
    pub fn plural(self) -> &'static str {
        match self {
            Self::Exchange => "exchanges",
            Self::Item => "items",
        }
    }
}

/// What a difference is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Points of the Ethics Bowl's 70-point total.
    Total70,
    /// Percentage points of judge accuracy.
    Accuracy,
    /// Percentage points of win rate.
    WinRate,
    /// Points of the structured debate's side total (1–10).
    SideTotal,
}

impl Scale {
    /// The scale in words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Total70 => "points of the 70-point total",
            Self::Accuracy => "accuracy points",
            Self::WinRate => "win-rate points",
            Self::SideTotal => "points of the side total (1–10)",
        }
    }
}

/// Which comparison of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Two models' judge- and side-adjusted scores (Ethics Bowl).
    Models,
    /// Team A minus Team B (Ethics Bowl).
    Side,
    /// Two judges' leniencies (Ethics Bowl).
    Judges,
    /// Debate accuracy minus naive accuracy, one judge on one level.
    LiftOverNaive,
    /// Expert accuracy minus debate accuracy.
    GapToExpert,
    /// Debate accuracy minus consultancy accuracy.
    DebateVsConsultancy,
    /// Two models' win rates (structured debate; a draw is half a win).
    WinRate,
    /// Two models' mean side totals (structured debate).
    SideTotal,
}

/// A setting of the tournament file and the value that gives the units needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting {
    /// The key (`repetitions`, `sample_per_level`), or what to add (`dilemmas`, `topics`).
    pub key: String,
    /// The value.
    pub value: u64,
    /// How many more than the pilot's (0: the pilot's own, once all its rounds are judged).
    pub more: u64,
}

/// What the pilot says about a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The pilot's units already give 80% power against D.
    AlreadyEnough,
    /// More units are needed.
    More {
        /// Units needed in all (the pilot's included).
        units: u64,
        /// The settings that give them, the first the one to change (repetitions), the
        /// others the alternatives.
        settings: Vec<Setting>,
    },
    /// The pilot cannot say.
    CannotEstimate {
        /// Why.
        reason: String,
    },
}

/// One comparison the report makes, planned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Which.
    pub kind: Kind,
    /// What is compared, as the table names it (`sim-alpha − sim-beta`).
    pub label: String,
    /// The judge, for a question-answer comparison.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
    /// The level, for a question-answer comparison.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// What the difference is measured in.
    pub scale: Scale,
    /// The difference planned for, on that scale.
    pub detect: f64,
    /// The pilot's estimate (for reading; the plan does not use it).
    pub estimate: Option<f64>,
    /// Lower end of its 95% interval.
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Whether that interval already excludes zero.
    pub detected: Option<bool>,
    /// Units in the pilot behind it.
    pub pilot_units: usize,
    /// Its standard error at the pilot's size.
    pub pilot_se: Option<f64>,
    /// The pilot's power against D.
    pub power_now: Option<f64>,
    /// What it needs.
    pub outcome: Outcome,
}

/// What the pilot's schedule was, to turn units into settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Design {
    /// Whether it was read from `tournament.json` (else from the rounds stored).
    pub from_schedule: bool,
    /// Repetitions the pilot ran.
    pub repetitions: u64,
    /// Exchanges per repetition (Ethics Bowl, structured debate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units_per_repetition: Option<u64>,
    /// Dilemmas (Ethics Bowl) or topics (structured debate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dilemmas: Option<u64>,
    /// Items per level (question-answer).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub items_per_level: BTreeMap<String, u64>,
    /// The tournament file's `sample_per_level` (0: every item of the level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_per_level: Option<usize>,
}

/// One protocol's plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolPlan {
    /// The protocol.
    pub protocol: ProtocolKind,
    /// Its unit of replication.
    pub unit: Unit,
    /// Units with a usable judgment in the pilot.
    pub pilot_units: usize,
    /// Usable judgments behind them.
    pub judgments: usize,
    /// The pilot's schedule.
    pub design: Design,
    /// Every comparison its report makes.
    pub comparisons: Vec<Comparison>,
    /// What else to know (why there are no comparisons, what a setting means).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The plan of a results folder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// The power planned for.
    pub power: f64,
    /// The two-sided significance level.
    pub alpha: f64,
    /// The differences planned for.
    pub detect: Detect,
    /// One plan per protocol among the rounds.
    pub protocols: Vec<ProtocolPlan>,
}

/// Checks the differences against the protocols among `rounds`.
fn check(rounds: &[Round], detect: &Detect) -> Result<(), PlanError> {
    let d = detect.points;
    if !(d.is_finite() && d > 0.0) {
        return Err(PlanError::Detect(BadDifference::NotPositive(d)));
    }
    let has = |kind: ProtocolKind| rounds.iter().any(|r| r.kind() == kind);
    if has(ProtocolKind::EthicsBowl) && d > TOTAL_RANGE {
        return Err(PlanError::Detect(BadDifference::TooLarge {
            value: d,
            scale: "two totals of 14–70 points",
            max: TOTAL_RANGE,
        }));
    }
    if (has(ProtocolKind::QaDebate) || has(ProtocolKind::StructuredDebate)) && d > 100.0 {
        return Err(PlanError::Detect(BadDifference::TooLarge {
            value: d,
            scale: "two accuracies or win rates in percentage points",
            max: 100.0,
        }));
    }
    if let Some(t) = detect.side_total {
        if !(t.is_finite() && t > 0.0) {
            return Err(PlanError::SideTotal(BadDifference::NotPositive(t)));
        }
        if t > SIDE_TOTAL_RANGE {
            return Err(PlanError::SideTotal(BadDifference::TooLarge {
                value: t,
                scale: "two side totals of 1–10",
                max: SIDE_TOTAL_RANGE,
            }));
        }
        if !has(ProtocolKind::StructuredDebate) {
            return Err(PlanError::NoSideTotals);
        }
    }
    Ok(())
}

/// The plan of `rounds` (a pilot), with the tournament's record when there is one (its
/// schedule turns units into repetitions).
pub fn plan(
    rounds: &[Round],
    record: Option<&TournamentRecord>,
    detect: Detect,
) -> Result<Plan, PlanError> {
    if rounds.is_empty() {
        return Err(PlanError::NoRounds);
    }
    check(rounds, &detect)?;
    let mut protocols = Vec::new();
    for kind in ProtocolKind::ALL {
        let count = rounds.iter().filter(|r| r.kind() == kind).count();
        if count == 0 {
            continue;
        }
        // A tournament plays one protocol: its rounds are then the whole slice, not a copy.
        let ours: Cow<[Round]> = if count == rounds.len() {
            Cow::Borrowed(rounds)
        } else {
            Cow::Owned(
                rounds
                    .iter()
                    .filter(|r| r.kind() == kind)
                    .cloned()
                    .collect(),
            )
        };
        let record = record.filter(|r| r.protocol == kind);
        let design = design(kind, &ours, record);
        protocols.push(match kind {
            ProtocolKind::EthicsBowl => ethics_bowl(&ours, detect.points, design),
            ProtocolKind::QaDebate => qa_debate(&ours, detect.points, design),
            ProtocolKind::StructuredDebate => structured(&ours, &detect, design),
        });
    }
    Ok(Plan {
        power: POWER,
        alpha: ALPHA,
        detect,
        protocols,
    })
}

/// The pilot's schedule: from its record when there is one, else from the rounds stored.
fn design(kind: ProtocolKind, rounds: &[Round], record: Option<&TournamentRecord>) -> Design {
    let mut d = Design::default();
    if let Some(rec) = record {
        d.from_schedule = true;
        d.repetitions = u64::from(rec.config.repetitions.max(1));
        d.dilemmas = Some(rec.dilemma_ids.len() as u64);
        d.units_per_repetition = Some((rec.schedule.len() as u64).div_ceil(d.repetitions));
        d.sample_per_level = rec.config.qa.as_ref().map(|q| q.sample_per_level);
        let mut levels: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
        for item in &rec.qa_sample {
            levels
                .entry(item.level.clone())
                .or_default()
                .insert(&item.item_id);
        }
        d.items_per_level = levels
            .into_iter()
            .map(|(l, items)| (l, items.len() as u64))
            .collect();
    } else {
        d.repetitions = rounds
            .iter()
            .map(|r| u64::from(r.repetition))
            .max()
            .unwrap_or(1)
            .max(1);
        let dilemmas: BTreeSet<&str> = rounds.iter().map(|r| r.dilemma_id.as_str()).collect();
        d.dilemmas = Some(dilemmas.len() as u64);
        d.units_per_repetition = Some((rounds.len() as u64).div_ceil(d.repetitions));
    }
    if kind == ProtocolKind::QaDebate {
        // Exchanges and dilemmas are not what a question-answer tournament sets.
        d.units_per_repetition = None;
        d.dilemmas = None;
        if d.items_per_level.is_empty() {
            let mut levels: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
            for setup in rounds.iter().filter_map(Round::qa) {
                levels
                    .entry(setup.level.clone())
                    .or_default()
                    .insert(&setup.item_id);
            }
            d.items_per_level = levels
                .into_iter()
                .map(|(l, items)| (l, items.len() as u64))
                .collect();
        }
    }
    d
}

/// The settings that give `units` exchanges: repetitions, or dilemmas (topics) at the
/// pilot's repetitions.
fn exchange_settings(design: &Design, units: u64, dilemma_key: &str) -> Vec<Setting> {
    let mut out = Vec::new();
    let Some(per) = design.units_per_repetition else {
        return out;
    };
    if let Some(reps) = power::how_many(units, per as f64) {
        out.push(Setting {
            key: "repetitions".into(),
            value: reps,
            more: reps.saturating_sub(design.repetitions),
        });
    }
    if let Some(dilemmas) = design.dilemmas.filter(|d| *d > 0) {
        // Exchanges one dilemma gives over the pilot's repetitions.
        let per_dilemma = (per * design.repetitions) as f64 / dilemmas as f64;
        if let Some(n) = power::how_many(units, per_dilemma) {
            out.push(Setting {
                key: dilemma_key.into(),
                value: n,
                more: n.saturating_sub(dilemmas),
            });
        }
    }
    out
}

/// A comparison's outcome from its standard error (`None`: no interval), or why it has none.
fn outcome(
    pilot_units: usize,
    clusters: usize,
    se: Option<f64>,
    detect: f64,
    unit: Unit,
    settings: &dyn Fn(u64) -> Vec<Setting>,
) -> (Option<f64>, Outcome) {
    if clusters < MIN_CLUSTERS {
        return (
            None,
            Outcome::CannotEstimate {
                reason: format!(
                    "{clusters} {} in the pilot; the analysis draws an interval from {MIN_CLUSTERS} or more, so run more rounds first",
                    unit.plural()
                ),
            },
        );
    }
    let Some(se) = se else {
        return (
            None,
            Outcome::CannotEstimate {
                reason: "the resamples of the pilot could not give it an interval".into(),
            },
        );
    };
    match power::sizing(pilot_units, se, detect) {
        Ok(s) if s.already_enough(pilot_units) => (Some(s.power_now), Outcome::AlreadyEnough),
        Ok(s) => (
            Some(s.power_now),
            Outcome::More {
                units: s.units,
                settings: settings(s.units),
            },
        ),
        Err(power::PowerError::StandardError(_)) => (
            None,
            Outcome::CannotEstimate {
                reason: format!(
                    "no variance between the pilot's {} (every one gives the same result, as \
                     when one side wins every time), so no standard error to scale",
                    unit.plural()
                ),
            },
        ),
        Err(e) => (
            None,
            Outcome::CannotEstimate {
                reason: e.to_string(),
            },
        ),
    }
}

/// The Ethics Bowl's comparisons: pairs of models, the side, pairs of judges.
fn ethics_bowl(rounds: &[Round], detect: f64, design: Design) -> ProtocolPlan {
    let (obs, models, judges, _own) = effects::observations(rounds);
    let mut by_exchange: BTreeMap<usize, Vec<Observation>> = BTreeMap::new();
    for o in &obs {
        by_exchange.entry(o.exchange).or_default().push(*o);
    }
    let clusters: Vec<Vec<Observation>> = by_exchange.into_values().collect();
    let n = clusters.len();
    let mut plan = ProtocolPlan {
        protocol: ProtocolKind::EthicsBowl,
        unit: Unit::Exchange,
        pilot_units: n,
        judgments: obs.len() / 2,
        design,
        comparisons: Vec::new(),
        notes: Vec::new(),
    };
    if models.len() < 2 {
        plan.notes
            .push("no comparison: needs judged rounds of two models or more".into());
        return plan;
    }
    let Some(point) = effects::fit(&obs, models.len(), judges.len()) else {
        plan.notes.push(
            "no comparison: the judged rounds cannot tell the models, the judges and the sides \
             apart (see the report's adjusted scores)"
                .into(),
        );
        return plan;
    };
    // Each comparison as (kind, label, its term, the term it is compared with) among the
    // fit's terms flattened: the models, the judges, the side. Pairs lead with the higher
    // estimate.
    let (m, j) = (models.len(), point.judges.len());
    let mut flat = point.models.clone();
    flat.extend(&point.judges);
    flat.push(point.side);
    let mut specs: Vec<(Kind, String, usize, Option<usize>)> = Vec::new();
    let pairs = |count: usize, offset: usize, names: &[String], kind: Kind, prefix: &str| {
        let mut out = Vec::new();
        for a in 0..count {
            for b in a + 1..count {
                let (hi, lo) = if flat[offset + a] >= flat[offset + b] {
                    (a, b)
                } else {
                    (b, a)
                };
                out.push((
                    kind,
                    format!("{prefix}{} − {}", names[hi], names[lo]),
                    offset + hi,
                    Some(offset + lo),
                ));
            }
        }
        out
    };
    specs.extend(pairs(m, 0, &models, Kind::Models, ""));
    specs.push((Kind::Side, "side: Team A − Team B".into(), m + j, None));
    specs.extend(pairs(j, m, &judges, Kind::Judges, "leniency "));
    // A term missing from a fit (never: every fit has the same terms) reads as not a
    // number, which leaves the comparison without an interval rather than panicking.
    let term = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(f64::NAN);
    let value = |v: &[f64], (_, _, a, b): &(Kind, String, usize, Option<usize>)| {
        term(v, *a) - b.map_or(0.0, |b| term(v, b))
    };
    // The report's bootstrap: the same resamples of exchanges, each refitted.
    let intervals = cluster_intervals(n, REPLICATES, SEED, |draw| {
        let resample: Vec<Observation> = draw
            .iter()
            .flat_map(|&c| clusters[c].iter().copied())
            .collect();
        let f = effects::fit(&resample, m, judges.len())?;
        let mut v = f.models;
        v.extend(f.judges);
        v.push(f.side);
        Some(specs.iter().map(|s| value(&v, s)).collect())
    });
    let design = plan.design.clone();
    let settings = |units: u64| exchange_settings(&design, units, "dilemmas");
    for (i, spec) in specs.iter().enumerate() {
        let ci = intervals.as_ref().and_then(|v| v.get(i).copied().flatten());
        let se = ci.map(|(l, h)| power::se_of_interval(l, h));
        let (power_now, outcome) = outcome(n, n, se, detect, Unit::Exchange, &settings);
        plan.comparisons.push(Comparison {
            kind: spec.0,
            label: spec.1.clone(),
            judge: None,
            level: None,
            scale: Scale::Total70,
            detect,
            estimate: Some(value(&flat, spec)),
            low: ci.map(|c| c.0),
            high: ci.map(|c| c.1),
            detected: ci.map(|(l, h)| l > 0.0 || h < 0.0),
            pilot_units: n,
            pilot_se: se,
            power_now,
            outcome,
        });
    }
    plan
}

/// Per cluster, (sum, count) of one quantity.
type Sums = BTreeMap<usize, (f64, f64)>;

/// The difference of two means (or shares) of observations in clusters, `a` minus `b`,
/// with its cluster-robust standard error: the delta method's influence of each cluster on
/// the difference, `Σ(v − m_a)/N_a − Σ(v − m_b)/N_b` over its observations, squared and
/// summed with the G/(G−1) correction. A cluster holding both is counted once, so the
/// covariance of the two means is kept. None without observations on both sides; the
/// standard error is none with fewer than two clusters.
fn difference(a: &Sums, b: &Sums) -> Option<(f64, Option<f64>, usize)> {
    let total = |s: &Sums| s.values().fold((0.0, 0.0), |t, v| (t.0 + v.0, t.1 + v.1));
    let ((sa, na), (sb, nb)) = (total(a), total(b));
    if na <= 0.0 || nb <= 0.0 {
        return None;
    }
    let (ma, mb) = (sa / na, sb / nb);
    let clusters: BTreeSet<usize> = a.keys().chain(b.keys()).copied().collect();
    let g = clusters.len();
    let spread: f64 = clusters
        .iter()
        .map(|c| {
            let part = |s: &Sums, m: f64, n: f64| s.get(c).map_or(0.0, |&(v, k)| (v - k * m) / n);
            (part(a, ma, na) - part(b, mb, nb)).powi(2)
        })
        .sum();
    let se = (g >= 2).then(|| (g as f64 / (g as f64 - 1.0) * spread).sqrt());
    Some((ma - mb, se, g))
}

/// A comparison from a [`difference`] (in shares or points; `scale` says how it reads, and
/// shares are shown as percentage points).
#[allow(clippy::too_many_arguments)] // one call per protocol; a struct would only rename them
fn compared(
    kind: Kind,
    label: String,
    (judge, level): (Option<String>, Option<String>),
    scale: Scale,
    detect: f64,
    (estimate, se, clusters): (f64, Option<f64>, usize),
    pilot_units: usize,
    settings: &dyn Fn(u64) -> Vec<Setting>,
    unit: Unit,
) -> Comparison {
    let factor = match scale {
        Scale::Accuracy | Scale::WinRate => 100.0,
        Scale::Total70 | Scale::SideTotal => 1.0,
    };
    let (estimate, se) = (estimate * factor, se.map(|s| s * factor));
    let half = se.map(|s| Z_975 * s);
    let (power_now, outcome) = outcome(pilot_units, clusters, se, detect, unit, settings);
    Comparison {
        kind,
        label,
        judge,
        level,
        scale,
        detect,
        estimate: Some(estimate),
        low: half.map(|h| estimate - h),
        high: half.map(|h| estimate + h),
        detected: half.filter(|h| *h > 0.0).map(|h| estimate.abs() > h),
        pilot_units,
        pilot_se: se,
        power_now,
        outcome,
    }
}

/// The question-answer debate's comparisons, per judge and level as the report's lifts.
fn qa_debate(rounds: &[Round], detect: f64, design: Design) -> ProtocolPlan {
    // Judge and level → format → item → (correct, judged).
    type Tallies = BTreeMap<(String, String), BTreeMap<QaFormat, BTreeMap<String, (f64, f64)>>>;
    let mut tallies: Tallies = BTreeMap::new();
    let mut items: BTreeSet<&str> = BTreeSet::new();
    let mut judgments = 0;
    for round in rounds {
        let Some(setup) = round.qa() else { continue };
        for j in round.judgments.iter().filter(|j| j.is_usable()) {
            // As the report counts accuracy: a side chosen, on an item with a correct side.
            let (Some(choice), Some(correct)) = (j.choice(), setup.assignment.correct_side) else {
                continue;
            };
            judgments += 1;
            items.insert(&setup.item_id);
            let slot = tallies
                .entry((j.judge_key().to_string(), setup.level.clone()))
                .or_default()
                .entry(setup.format)
                .or_default()
                .entry(setup.item_id.clone())
                .or_default();
            slot.0 += f64::from(u8::from(choice.side == correct));
            slot.1 += 1.0;
        }
    }
    let mut plan = ProtocolPlan {
        protocol: ProtocolKind::QaDebate,
        unit: Unit::Item,
        pilot_units: items.len(),
        judgments,
        design,
        comparisons: Vec::new(),
        notes: Vec::new(),
    };
    // Items keyed by index, for the clusters of `difference`.
    let index: BTreeMap<&str, usize> = items.iter().enumerate().map(|(i, s)| (*s, i)).collect();
    let sums = |by_item: &BTreeMap<String, (f64, f64)>| -> Sums {
        by_item
            .iter()
            .filter_map(|(item, v)| Some((*index.get(item.as_str())?, *v)))
            .collect()
    };
    let comparisons = [
        (
            Kind::LiftOverNaive,
            QaFormat::Debate,
            QaFormat::Naive,
            "debate − naive",
        ),
        (
            Kind::GapToExpert,
            QaFormat::Expert,
            QaFormat::Debate,
            "expert − debate",
        ),
        (
            Kind::DebateVsConsultancy,
            QaFormat::Debate,
            QaFormat::Consultancy,
            "debate − consultancy",
        ),
    ];
    for ((judge, level), formats) in &tallies {
        let level_items = plan.design.items_per_level.get(level).copied();
        for (kind, a, b, label) in comparisons {
            let (Some(fa), Some(fb)) = (formats.get(&a), formats.get(&b)) else {
                continue;
            };
            let Some(diff) = difference(&sums(fa), &sums(fb)) else {
                continue;
            };
            let seen = diff.2;
            let settings = |units: u64| {
                // The level's items scale with the items this comparison saw.
                let items = level_items.map_or(units, |all| {
                    ((units as f64 * all as f64 / seen.max(1) as f64).ceil() as u64).max(units)
                });
                vec![Setting {
                    key: "sample_per_level".into(),
                    value: items,
                    more: items.saturating_sub(level_items.unwrap_or(seen as u64)),
                }]
            };
            plan.comparisons.push(compared(
                kind,
                label.into(),
                (Some(judge.clone()), Some(level.clone())),
                Scale::Accuracy,
                detect,
                diff,
                seen,
                &settings,
                Unit::Item,
            ));
        }
    }
    if plan.comparisons.is_empty() {
        plan.notes.push(
            "no comparison: no judge ran debate beside the naive or expert baseline or \
             consultancy"
                .into(),
        );
    }
    if plan.design.sample_per_level == Some(0) {
        plan.notes.push(
            "the pilot took every item of its levels (sample_per_level = 0): more items need a \
             larger dataset"
                .into(),
        );
    }
    plan.notes.push(
        "repetitions judge the same items again and add no items: the plan counts items".into(),
    );
    plan
}

/// The structured debate's comparisons: each pair of models' win rates and (when a
/// side-total difference is given) mean side totals.
fn structured(rounds: &[Round], detect: &Detect, design: Design) -> ProtocolPlan {
    // Model → round → (sum, count) of its win scores and of its side totals.
    let mut wins: BTreeMap<&str, Sums> = BTreeMap::new();
    let mut totals: BTreeMap<&str, Sums> = BTreeMap::new();
    let mut judged = BTreeSet::new();
    let mut judgments = 0;
    for (r, round) in rounds.iter().enumerate() {
        if round.structured().is_none() {
            continue;
        }
        for v in round
            .judgments
            .iter()
            .filter(|j| j.is_usable())
            .filter_map(|j| j.verdict())
        {
            judgments += 1;
            judged.insert(r);
            let winner = v.winner();
            for (side, model, total) in [
                (Side::Pro, round.team_a_model.as_str(), v.pro_total),
                (Side::Con, round.team_b_model.as_str(), v.con_total),
            ] {
                // A draw (or a verdict without both totals, which the report counts as
                // evenly matched) is half a win.
                let score = match winner {
                    Some(w) if w == side => 1.0,
                    Some(_) => 0.0,
                    None => 0.5,
                };
                let slot = wins.entry(model).or_default().entry(r).or_default();
                slot.0 += score;
                slot.1 += 1.0;
                if let Some(t) = total {
                    let slot = totals.entry(model).or_default().entry(r).or_default();
                    slot.0 += t;
                    slot.1 += 1.0;
                }
            }
        }
    }
    let n = judged.len();
    let mut plan = ProtocolPlan {
        protocol: ProtocolKind::StructuredDebate,
        unit: Unit::Exchange,
        pilot_units: n,
        judgments,
        design,
        comparisons: Vec::new(),
        notes: Vec::new(),
    };
    let design = plan.design.clone();
    let settings = |units: u64| exchange_settings(&design, units, "topics");
    let models: Vec<&str> = wins.keys().copied().collect();
    let mut measures = vec![(
        Kind::WinRate,
        Scale::WinRate,
        &wins,
        detect.points,
        "win rate ",
    )];
    if let Some(t) = detect.side_total {
        measures.push((Kind::SideTotal, Scale::SideTotal, &totals, t, "side total "));
    }
    for (kind, scale, by_model, d, prefix) in measures {
        for a in 0..models.len() {
            for b in a + 1..models.len() {
                let empty = Sums::new();
                let get = |m: &str| by_model.get(m).unwrap_or(&empty);
                let Some(mut diff) = difference(get(models[a]), get(models[b])) else {
                    continue;
                };
                let (hi, lo) = if diff.0 >= 0.0 {
                    (models[a], models[b])
                } else {
                    diff.0 = -diff.0;
                    (models[b], models[a])
                };
                plan.comparisons.push(compared(
                    kind,
                    format!("{prefix}{hi} − {lo}"),
                    (None, None),
                    scale,
                    d,
                    diff,
                    n,
                    &settings,
                    Unit::Exchange,
                ));
            }
        }
    }
    if models.len() < 2 {
        plan.notes
            .push("no comparison: needs judged rounds of two models or more".into());
    }
    if detect.side_total.is_none() {
        plan.notes.push(
            "side totals are planned with --detect-total T (points of the 1–10 side total)".into(),
        );
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The difference of two shares over items: by hand, each item's influence.
    #[test]
    fn the_difference_of_two_shares_counts_items_and_keeps_their_covariance() {
        // Four items; format a right on items 0 and 1 (one trial each), format b right on
        // item 0 only. p_a = 0.5, p_b = 0.25, difference 0.25. Influences (h − p·t)/T:
        // a: +0.125, +0.125, −0.125, −0.125; b: +0.1875, −0.0625, −0.0625, −0.0625;
        // a − b: −0.0625, +0.1875, −0.0625, −0.0625; squares sum 0.046875;
        // × 4/3 = 0.0625; SE = 0.25.
        let a: Sums = [
            (0, (1.0, 1.0)),
            (1, (1.0, 1.0)),
            (2, (0.0, 1.0)),
            (3, (0.0, 1.0)),
        ]
        .into_iter()
        .collect();
        let b: Sums = [
            (0, (1.0, 1.0)),
            (1, (0.0, 1.0)),
            (2, (0.0, 1.0)),
            (3, (0.0, 1.0)),
        ]
        .into_iter()
        .collect();
        let (d, se, g) = difference(&a, &b).unwrap();
        assert!((d - 0.25).abs() < 1e-12);
        assert!((se.unwrap() - 0.25).abs() < 1e-12, "{se:?}");
        assert_eq!(g, 4);
        // The same formats agreeing on every item: no variance at all.
        let (d, se, _) = difference(&a, &a).unwrap();
        assert_eq!((d, se), (0.0, Some(0.0)));
        assert_eq!(difference(&a, &Sums::new()), None);
    }

    /// With one observation per cluster and disjoint clusters, the standard error is the
    /// two-sample one: √(s_a²/n_a + s_b²/n_b) up to the G/(G−1) correction.
    #[test]
    fn disjoint_clusters_give_the_two_sample_standard_error() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        let ys = [2.0, 4.0, 6.0, 8.0, 10.0];
        let a: Sums = xs.iter().enumerate().map(|(i, v)| (i, (*v, 1.0))).collect();
        let b: Sums = ys
            .iter()
            .enumerate()
            .map(|(i, v)| (i + 5, (*v, 1.0)))
            .collect();
        let (d, se, g) = difference(&a, &b).unwrap();
        assert!((d - (-3.0)).abs() < 1e-12);
        // Σ(x − 3)² = 10, Σ(y − 6)² = 40: (10/25 + 40/25) · 10/9 = 2.2222…
        assert!((se.unwrap() - (2.0f64 * 10.0 / 9.0).sqrt()).abs() < 1e-12);
        assert_eq!(g, 10);
    }

    #[test]
    fn settings_round_up_and_say_how_many_more() {
        let design = Design {
            from_schedule: true,
            repetitions: 1,
            units_per_repetition: Some(42),
            dilemmas: Some(7),
            ..Design::default()
        };
        let s = exchange_settings(&design, 100, "dilemmas");
        assert_eq!(
            s,
            vec![
                Setting {
                    key: "repetitions".into(),
                    value: 3,
                    more: 2
                },
                // 6 exchanges per dilemma: 17 dilemmas hold 102.
                Setting {
                    key: "dilemmas".into(),
                    value: 17,
                    more: 10
                },
            ]
        );
        // Fewer units than the schedule holds: the pilot's own repetitions.
        assert_eq!(exchange_settings(&design, 41, "dilemmas")[0].more, 0);
    }

    #[test]
    fn differences_out_of_range_are_refused() {
        let round = || -> Round {
            serde_json::from_value(serde_json::json!({
                "id": "r", "dilemma_id": "d", "team_a_model": "a", "team_b_model": "b",
                "status": "complete", "timestamp": "t"
            }))
            .unwrap()
        };
        let eb = [round()];
        let d = |points| Detect {
            points,
            side_total: None,
        };
        assert_eq!(
            plan(&eb, None, d(0.0)),
            Err(PlanError::Detect(BadDifference::NotPositive(0.0)))
        );
        assert!(matches!(
            plan(&eb, None, d(60.0)),
            Err(PlanError::Detect(BadDifference::TooLarge { .. }))
        ));
        assert!(plan(&eb, None, d(40.0)).is_ok());
        assert_eq!(
            plan(
                &eb,
                None,
                Detect {
                    points: 3.0,
                    side_total: Some(1.0)
                }
            ),
            Err(PlanError::NoSideTotals)
        );
        assert_eq!(plan(&[], None, d(3.0)), Err(PlanError::NoRounds));
    }
}
