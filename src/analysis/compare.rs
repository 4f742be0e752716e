//! Two results folders of one protocol side by side (`ethics-bowl compare A B`): two runs of
//! one configuration, or a run and a `rejudge --out` copy of it. Judgments are paired by round
//! id and judge; for each pair the change in the margin (Team A's total minus Team B's, or
//! Pro's minus Con's) or in the chosen answer, whether the verdict flipped, and over all pairs
//! the correlation of the margins (with its interval resampling rounds) and the share of
//! verdicts that flipped; each judge's
//! leniency in both; for the Ethics Bowl each model's rating in both, with intervals; and
//! what the judges of each saw, when the folders differ in it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::judge_views::{JudgeViewCount, conditions, judge_views};
use crate::analysis::ratings::{DRAW_MARGIN, Rating, ratings};
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::stats::{mean, pearson};
use crate::domain::{Judgment, ProtocolKind, Round, Team};

/// One judgment found in both folders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedJudgment {
    /// The round.
    pub round_id: String,
    /// The judge (persona, or model).
    pub judge: String,
    /// The margin in A and in B (none for a chosen answer).
    pub margin_a: Option<f64>,
    /// See `margin_a`.
    pub margin_b: Option<f64>,
    /// The verdict in A: `A`, `B` or `draw` (Team A/Pro, Team B/Con, neither).
    pub verdict_a: &'static str,
    /// The verdict in B.
    pub verdict_b: &'static str,
}

impl PairedJudgment {
    /// Whether the verdict changed.
    pub fn flipped(&self) -> bool {
        self.verdict_a != self.verdict_b
    }

    /// B's margin minus A's.
    pub fn change(&self) -> Option<f64> {
        Some(self.margin_b? - self.margin_a?)
    }
}

/// A judge's leniency in both folders: the mean total it gave a team (or, for chosen answers,
/// its mean confidence).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeInBoth {
    /// The judge.
    pub judge: String,
    /// Its mean in A, with how many judgments.
    pub mean_a: Option<f64>,
    /// Judgments in A.
    pub n_a: usize,
    /// Its mean in B.
    pub mean_b: Option<f64>,
    /// Judgments in B.
    pub n_b: usize,
}

/// A model's rating in both folders (Ethics Bowl).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingInBoth {
    /// The model.
    pub model: String,
    /// Its rating in A.
    pub a: Option<Rating>,
    /// Its rating in B.
    pub b: Option<Rating>,
}

/// How far the margins of the pairs agree, each figure with its 95% interval from resampling
/// rounds (the pairs of one round, one per judge, share its debate), n counting rounds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MarginAgreement {
    /// Pearson correlation of the margins in A and in B.
    pub correlation: Statistic,
    /// Mean absolute change of the margin.
    pub mean_abs_change: Statistic,
}

impl MarginAgreement {
    /// The figures of `pairs`, those with a margin in both.
    fn of(pairs: &[PairedJudgment]) -> Self {
        let mut rounds: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for p in pairs {
            if let (Some(a), Some(b)) = (p.margin_a, p.margin_b) {
                rounds.entry(p.round_id.as_str()).or_default().push((a, b));
            }
        }
        let rounds: Vec<Vec<(f64, f64)>> = rounds.into_values().collect();
        let drawn = |draw: &[usize]| -> Vec<(f64, f64)> {
            draw.iter()
                .flat_map(|&i| rounds[i].iter().copied())
                .collect()
        };
        Self {
            correlation: Statistic::bootstrap(rounds.len(), |draw| {
                let (xs, ys): (Vec<f64>, Vec<f64>) = drawn(draw).into_iter().unzip();
                pearson(&xs, &ys)
            }),
            mean_abs_change: Statistic::bootstrap(rounds.len(), |draw| {
                let changes: Vec<f64> = drawn(draw).iter().map(|(a, b)| (b - a).abs()).collect();
                mean(&changes)
            }),
        }
    }
}

/// The comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The protocol both folders played.
    pub protocol: ProtocolKind,
    /// Rounds in A, in B, and in both.
    pub rounds: (usize, usize, usize),
    /// Every judgment usable in both, by round and judge.
    pub pairs: Vec<PairedJudgment>,
    /// The correlation of the margins and their mean absolute change, over the pairs that
    /// have a margin in both, with their 95% intervals (see [`MarginAgreement`]).
    pub margin_agreement: MarginAgreement,
    /// Verdicts that flipped, of the pairs.
    pub flipped: usize,
    /// Each judge's leniency in both.
    pub judges: Vec<JudgeInBoth>,
    /// Each model's rating in both (Ethics Bowl only; empty otherwise).
    pub ratings: Vec<RatingInBoth>,
    /// What the judges of A and of B saw (see [`crate::analysis::judge_views`]), when the
    /// folders differ in it: model names shown or hidden, or prompt versions; none when
    /// alike.
    pub judges_saw: Option<(Vec<JudgeViewCount>, Vec<JudgeViewCount>)>,
}

fn judge_of(j: &Judgment) -> String {
    j.persona_id
        .clone()
        .unwrap_or_else(|| j.judge_model.clone())
}

/// A judgment's verdict: the side ahead (by more than the draw margin for the rubric), or
/// the side chosen.
fn verdict(j: &Judgment, kind: ProtocolKind) -> &'static str {
    if let Some(c) = j.choice() {
        return match c.side {
            Team::A => "A",
            Team::B => "B",
        };
    }
    let band = if kind == ProtocolKind::EthicsBowl {
        DRAW_MARGIN
    } else {
        1.0
    };
    match j.margin() {
        Some(m) if m >= band => "A",
        Some(m) if m <= -band => "B",
        Some(_) => "draw",
        None => "unread",
    }
}

/// What a judge gave a team: its mean total, or its confidence for a chosen answer.
fn leniency_values(j: &Judgment) -> Vec<f64> {
    if let Some(c) = j.choice() {
        return c.confidence.into_iter().collect();
    }
    [Team::A, Team::B]
        .into_iter()
        .filter_map(|t| j.scores(t).and_then(|s| s.total()))
        .collect()
}

fn usable(rounds: &[Round]) -> BTreeMap<(String, String), (&Round, &Judgment)> {
    rounds
        .iter()
        .flat_map(|r| {
            r.judgments
                .iter()
                .filter(|j| j.is_usable())
                .map(move |j| ((r.id.clone(), judge_of(j)), (r, j)))
        })
        .collect()
}

/// Compares folder A's rounds with folder B's (one protocol).
pub fn compare(kind: ProtocolKind, a: &[Round], b: &[Round]) -> Comparison {
    let in_a = usable(a);
    let in_b = usable(b);
    let pairs: Vec<PairedJudgment> = in_a
        .iter()
        .filter_map(|(key, (_, ja))| {
            let (_, jb) = in_b.get(key)?;
            Some(PairedJudgment {
                round_id: key.0.clone(),
                judge: key.1.clone(),
                margin_a: ja.margin(),
                margin_b: jb.margin(),
                verdict_a: verdict(ja, kind),
                verdict_b: verdict(jb, kind),
            })
        })
        .collect();
    let mut judges: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (key, (_, j)) in &in_a {
        judges
            .entry(key.1.clone())
            .or_default()
            .0
            .extend(leniency_values(j));
    }
    for (key, (_, j)) in &in_b {
        judges
            .entry(key.1.clone())
            .or_default()
            .1
            .extend(leniency_values(j));
    }
    let ratings = if kind == ProtocolKind::EthicsBowl {
        let (ra, rb) = (ratings(a).overall, ratings(b).overall);
        let mut models: Vec<String> = ra.iter().chain(&rb).map(|r| r.entrant.clone()).collect();
        models.sort();
        models.dedup();
        models
            .into_iter()
            .map(|model| RatingInBoth {
                a: ra.iter().find(|r| r.entrant == model).cloned(),
                b: rb.iter().find(|r| r.entrant == model).cloned(),
                model,
            })
            .collect()
    } else {
        Vec::new()
    };
    let (views_a, views_b) = (judge_views(a), judge_views(b));
    let judges_saw =
        (conditions(&views_a) != conditions(&views_b)).then(|| (views_a.clone(), views_b.clone()));
    let ids_a: std::collections::HashSet<&str> = a.iter().map(|r| r.id.as_str()).collect();
    let both = b.iter().filter(|r| ids_a.contains(r.id.as_str())).count();
    Comparison {
        protocol: kind,
        rounds: (a.len(), b.len(), both),
        flipped: pairs.iter().filter(|p| p.flipped()).count(),
        margin_agreement: MarginAgreement::of(&pairs),
        pairs,
        judges: judges
            .into_iter()
            .map(|(judge, (va, vb))| JudgeInBoth {
                judge,
                mean_a: mean(&va),
                n_a: va.len(),
                mean_b: mean(&vb),
                n_b: vb.len(),
            })
            .collect(),
        ratings,
        judges_saw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Criterion, Reading, RoundRecord, ScheduledRound, Scores};

    fn round(id: &str, judge: &str, a: f64, b: f64) -> Round {
        let mut r = crate::protocols::blank_round(
            &ScheduledRound::example(id, "d"),
            RoundRecord::EthicsBowl,
        );
        let scores = |v: f64| {
            let mut s = Scores::default();
            for c in Criterion::ALL {
                s.set(c, Some(v));
            }
            s
        };
        r.judgments.push(Judgment::new(
            judge,
            Reading::Rubric {
                team_a: scores(a),
                team_b: scores(b),
            },
        ));
        r
    }

    #[test]
    fn margins_flips_and_leniency_over_paired_judgments() {
        let a = vec![
            round("r1", "j", 8.0, 6.0),
            round("r2", "j", 6.0, 7.0),
            round("r3", "j", 5.0, 5.0),
        ];
        let b = vec![
            round("r1", "j", 8.0, 5.0),
            round("r2", "j", 7.0, 6.0),
            round("r4", "j", 5.0, 5.0),
        ];
        let c = compare(ProtocolKind::EthicsBowl, &a, &b);
        assert_eq!(c.rounds, (3, 3, 2));
        assert_eq!(c.pairs.len(), 2);
        assert_eq!(
            (c.pairs[0].margin_a, c.pairs[0].margin_b),
            (Some(14.0), Some(21.0))
        );
        assert!(!c.pairs[0].flipped());
        assert_eq!((c.pairs[1].verdict_a, c.pairs[1].verdict_b), ("B", "A"));
        assert_eq!(c.flipped, 1);
        assert_eq!(
            c.margin_agreement.mean_abs_change.value,
            Some((7.0 + 14.0) / 2.0)
        );
        assert_eq!(c.judges[0].n_a, 6);
    }

    #[test]
    fn the_margins_agreement_has_intervals_counting_rounds_not_judges() {
        // Twelve rounds, two judges each: B's margins follow A's with some spread.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..12 {
            let id = format!("r{i}");
            let x = f64::from(i % 5);
            for (judge, shift) in [("j", 0.0), ("k", 0.5)] {
                let mut ra = round(&id, judge, 5.0 + x / 2.0, 5.0);
                let mut rb = round(
                    &id,
                    judge,
                    5.0 + x / 2.0 + shift + f64::from(i % 3) / 4.0,
                    5.0,
                );
                if let (Some(ja), Some(jb)) = (ra.judgments.pop(), rb.judgments.pop()) {
                    a.push(Round {
                        judgments: vec![ja],
                        ..ra
                    });
                    b.push(Round {
                        judgments: vec![jb],
                        ..rb
                    });
                }
            }
        }
        let c = compare(ProtocolKind::EthicsBowl, &a, &b);
        let m = c.margin_agreement;
        let (xs, ys): (Vec<f64>, Vec<f64>) = c
            .pairs
            .iter()
            .filter_map(|p| Some((p.margin_a?, p.margin_b?)))
            .unzip();
        assert_eq!(m.correlation.value, pearson(&xs, &ys));
        assert_eq!((m.correlation.n, m.mean_abs_change.n), (12, 12));
        for s in [m.correlation, m.mean_abs_change] {
            let (low, high, value) = (s.low.unwrap(), s.high.unwrap(), s.value.unwrap());
            assert!(low <= value && value <= high, "{s:?}");
        }
        // Under ten rounds there is no interval, and the value still says what it is.
        let few = compare(ProtocolKind::EthicsBowl, &a[..8], &b[..8]).margin_agreement;
        assert_eq!((few.correlation.n, few.correlation.low), (4, None));
        assert!(few.correlation.value.is_some());
    }

    #[test]
    fn folders_whose_judges_saw_unlike_things_say_what_each_saw() {
        let a = vec![round("r1", "j", 8.0, 6.0)];
        assert_eq!(compare(ProtocolKind::EthicsBowl, &a, &a).judges_saw, None);
        let mut b = a.clone();
        b[0].judgments[0].view = Some(crate::domain::JudgeView {
            judge_sees_model_names: false,
            temperature: None,
            prompt_version: "ethics_bowl-judge-1".into(),
            sides_swapped: false,
        });
        let (in_a, in_b) = compare(ProtocolKind::EthicsBowl, &a, &b)
            .judges_saw
            .unwrap();
        assert_eq!(
            crate::analysis::judge_views::describe(&in_a),
            "1 judgment (judge j) without a record of what their judge saw"
        );
        assert_eq!(
            crate::analysis::judge_views::describe(&in_b),
            "1 judgment (judge j) not shown the model names, prompt ethics_bowl-judge-1"
        );
    }
}
