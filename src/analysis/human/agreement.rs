//! How far one rater agrees with another over the exchanges both read (a model judge
//! against a person, or two people): Krippendorff's alpha, quadratic-weighted kappa on
//! totals, Spearman's rho, the mean signed difference and the share of equal verdicts, each
//! with its interval from resampling exchanges. Each exchange's parts are summed once and
//! added per resample.

use serde::Serialize;

use super::reading::Reading;
use crate::analysis::stats::nominal::NominalParts;
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::stats::{AlphaParts, Moments, spearman};

/// An estimate with its 95% interval and the exchanges behind it, as `analysis.json`'s
/// human agreement spells it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Figure {
    /// The estimate; none when the data cannot give it (no variation to compare against).
    pub estimate: Option<f64>,
    /// The interval's low end; none under ten exchanges.
    pub low: Option<f64>,
    /// Its high end.
    pub high: Option<f64>,
    /// Exchanges both raters read: the unit of replication.
    pub n: usize,
}

impl From<Statistic> for Figure {
    fn from(s: Statistic) -> Self {
        Self {
            estimate: s.value,
            low: s.low,
            high: s.high,
            n: s.n,
        }
    }
}

impl From<Figure> for Statistic {
    fn from(f: Figure) -> Self {
        Self {
            value: f.estimate,
            low: f.low,
            high: f.high,
            n: f.n,
        }
    }
}

/// How far two raters agree on a structured debate's argument standings: n counts the
/// arguments both gave a standing, and the intervals resample exchanges (an exchange's
/// arguments are read together, so they are not independent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct StandingAgreement {
    /// The share of arguments given the same standing (n: arguments).
    pub same: Figure,
    /// Krippendorff's alpha, nominal, over the arguments' standings (n: arguments).
    pub alpha: Figure,
    /// The exchanges those arguments come from (the clusters resampled).
    pub rounds: usize,
}

/// The five figures of one rater against another.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Agreement {
    /// Krippendorff's alpha: interval on the criterion scores where the protocol has
    /// them (the Ethics Bowl), nominal on the verdict otherwise.
    pub alpha: Figure,
    /// Cohen's kappa with quadratic weights on the totals rounded to whole points.
    pub kappa: Figure,
    /// Spearman's rho on the totals.
    pub spearman: Figure,
    /// The first rater's totals minus the second's, on average: a judge's leniency
    /// relative to people.
    pub mean_difference: Figure,
    /// The share of exchanges where both gave the same verdict; n counts the exchanges
    /// where both gave one.
    pub verdict_agreement: Figure,
    /// A structured debate's argument standings, where both gave some.
    pub standings: Option<StandingAgreement>,
}

/// One exchange's parts of every figure.
#[derive(Default)]
struct Parts {
    interval: AlphaParts,
    nominal: NominalParts,
    totals: Moments,
    pairs: Vec<(f64, f64)>,
    difference: (f64, f64),
    verdict: (f64, f64),
    /// Arguments given the same standing, and arguments both gave one.
    standing: (f64, f64),
    standing_alpha: NominalParts,
}

impl Parts {
    fn of(first: &Reading, second: &Reading) -> Self {
        let mut p = Parts::default();
        if !first.scores.is_empty() && first.scores.len() == second.scores.len() {
            for (a, b) in first.scores.iter().zip(&second.scores) {
                p.interval.push(&[*a, *b]);
            }
        }
        if let (Some(a), Some(b)) = (first.verdict, second.verdict) {
            p.nominal.push(&[a, b]);
            p.verdict = (f64::from(u8::from(a == b)), 1.0);
        }
        for (id, a) in &first.standings {
            if let Some(b) = second.standings.get(id) {
                p.standing.0 += f64::from(u8::from(a == b));
                p.standing.1 += 1.0;
                p.standing_alpha.push(&[*a as u32, *b as u32]);
            }
        }
        if first.totals.len() == second.totals.len() {
            for (a, b) in first.totals.iter().zip(&second.totals) {
                p.totals.push(a.round(), b.round());
                p.pairs.push((*a, *b));
                p.difference.0 += a - b;
                p.difference.1 += 1.0;
            }
        }
        p
    }
}

/// The figures of `first` against `second` over exchanges read by both, each pair one
/// exchange. `interval` says whether alpha is on the criterion scores (the Ethics Bowl) or
/// nominal on the verdicts.
pub fn agreement(pairs: &[(&Reading, &Reading)], interval: bool) -> Agreement {
    let parts: Vec<Parts> = pairs.iter().map(|(a, b)| Parts::of(a, b)).collect();
    let stats = Statistic::bootstrap_many(parts.len(), 4, |draw| {
        let mut times = vec![0.0; parts.len()];
        for &i in draw {
            times[i] += 1.0;
        }
        let (mut alpha_i, mut alpha_n) = (AlphaParts::default(), NominalParts::default());
        let mut totals = Moments::default();
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let mut diff = (0.0, 0.0);
        for (p, &t) in parts.iter().zip(&times) {
            if t == 0.0 {
                continue;
            }
            alpha_i.add(&p.interval, t);
            alpha_n.add(&p.nominal, t);
            totals.add(&p.totals, t);
            for _ in 0..t as usize {
                x.extend(p.pairs.iter().map(|q| q.0));
                y.extend(p.pairs.iter().map(|q| q.1));
            }
            diff = (diff.0 + t * p.difference.0, diff.1 + t * p.difference.1);
        }
        let alpha = if interval {
            alpha_i.alpha()
        } else {
            alpha_n.alpha()
        };
        Some(
            [
                alpha,
                totals.quadratic_kappa(),
                spearman(&x, &y),
                (diff.1 > 0.0).then(|| diff.0 / diff.1),
            ]
            .map(|v| v.unwrap_or(f64::NAN))
            .to_vec(),
        )
    });
    // The verdicts' share counts the exchanges where both gave one (people's consensus has
    // none where they split evenly).
    let same: Vec<f64> = parts
        .iter()
        .filter(|p| p.verdict.1 > 0.0)
        .map(|p| p.verdict.0)
        .collect();
    let verdict_agreement = Statistic::bootstrap(same.len(), |draw| {
        Some(draw.iter().map(|&i| same[i]).sum::<f64>() / draw.len() as f64)
    });
    let at = |i: usize| stats.get(i).copied().map(Figure::from).unwrap_or_default();
    Agreement {
        alpha: at(0),
        kappa: at(1),
        spearman: at(2),
        mean_difference: at(3),
        verdict_agreement: verdict_agreement.into(),
        standings: standings(&parts),
    }
}

/// The standings' figures over the exchanges where both raters gave some: the share the
/// same and nominal alpha, resampling exchanges; n counts arguments.
fn standings(parts: &[Parts]) -> Option<StandingAgreement> {
    let with: Vec<&Parts> = parts.iter().filter(|p| p.standing.1 > 0.0).collect();
    if with.is_empty() {
        return None;
    }
    let arguments = with.iter().map(|p| p.standing.1).sum::<f64>() as usize;
    let stats = Statistic::bootstrap_many(with.len(), 2, |draw| {
        let (mut same, mut count, mut alpha) = (0.0, 0.0, NominalParts::default());
        for &i in draw {
            same += with[i].standing.0;
            count += with[i].standing.1;
            alpha.add(&with[i].standing_alpha, 1.0);
        }
        Some(vec![same / count, alpha.alpha().unwrap_or(f64::NAN)])
    });
    let figure = |i: usize| Figure {
        n: arguments,
        ..stats.get(i).copied().map(Figure::from).unwrap_or_default()
    };
    Some(StandingAgreement {
        same: figure(0),
        alpha: figure(1),
        rounds: with.len(),
    })
}

/// Krippendorff's alpha among several raters of the same exchanges (people among
/// themselves: the ceiling a judge can reach), interval on the criterion scores or nominal
/// on the verdicts, with its interval from resampling exchanges. Each exchange lists the
/// readings of every rater who read it; exchanges with one reading are left out.
pub fn among(exchanges: &[Vec<&Reading>], interval: bool) -> Figure {
    let shared: Vec<&Vec<&Reading>> = exchanges.iter().filter(|e| e.len() >= 2).collect();
    let parts: Vec<(AlphaParts, NominalParts)> = shared
        .iter()
        .map(|readings| {
            let mut a = AlphaParts::default();
            let len = readings[0].scores.len();
            if readings.iter().all(|r| r.scores.len() == len) {
                for i in 0..len {
                    let unit: Vec<f64> = readings.iter().map(|r| r.scores[i]).collect();
                    a.push(&unit);
                }
            }
            let mut n = NominalParts::default();
            let verdicts: Vec<u32> = readings.iter().filter_map(|r| r.verdict).collect();
            n.push(&verdicts);
            (a, n)
        })
        .collect();
    Statistic::bootstrap(parts.len(), |draw| {
        let (mut a, mut n) = (AlphaParts::default(), NominalParts::default());
        for &i in draw {
            a.add(&parts[i].0, 1.0);
            n.add(&parts[i].1, 1.0);
        }
        if interval { a.alpha() } else { n.alpha() }
    })
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Scores, Team};

    /// A judge that gives each team the person's scores plus one point: alpha and kappa
    /// fall short of 1 though Spearman is 1, the mean difference is +7 (seven criteria),
    /// and verdicts agree.
    #[test]
    fn a_lenient_judge_is_seen_as_lenient() {
        let people: Vec<Reading> = (0..12)
            .map(|i| {
                let a = 3.0 + (i % 6) as f64;
                Reading::rubric(&Scores::uniform(a), &Scores::uniform(9.0 - a)).unwrap()
            })
            .collect();
        let judge: Vec<Reading> = (0..12)
            .map(|i| {
                let a = 3.0 + (i % 6) as f64;
                Reading::rubric(&Scores::uniform(a + 1.0), &Scores::uniform(10.0 - a)).unwrap()
            })
            .collect();
        let pairs: Vec<(&Reading, &Reading)> = judge.iter().zip(&people).collect();
        let g = agreement(&pairs, true);
        assert_eq!(g.alpha.n, 12);
        assert!((g.mean_difference.estimate.unwrap() - 7.0).abs() < 1e-9);
        assert!((g.spearman.estimate.unwrap() - 1.0).abs() < 1e-9);
        assert!(g.kappa.estimate.unwrap() < 0.95 && g.alpha.estimate.unwrap() < 0.95);
        assert!(g.verdict_agreement.estimate.unwrap() > 0.6);
        assert!(g.alpha.low.is_some());
    }

    #[test]
    fn verdicts_alone_use_nominal_alpha() {
        let a: Vec<Reading> = (0..10)
            .map(|i| Reading::choice(if i % 3 == 0 { Team::B } else { Team::A }, Some(70.0)))
            .collect();
        let pairs: Vec<(&Reading, &Reading)> = a.iter().zip(&a).collect();
        let g = agreement(&pairs, false);
        assert_eq!(g.alpha.estimate, Some(1.0));
        assert_eq!(g.verdict_agreement.estimate, Some(1.0));
        let three: Vec<Vec<&Reading>> = a.iter().map(|r| vec![r, r, r]).collect();
        assert_eq!(among(&three, false).estimate, Some(1.0));
        assert_eq!(among(&three, false).n, 10);
        assert_eq!(g.standings, None, "no standings: no figure");
    }

    /// A judge that refutes what people uphold on one argument of each of twelve debates
    /// (three arguments each): two in three agree, n counts 36 arguments over 12 rounds.
    #[test]
    fn argument_standings_are_compared_argument_by_argument() {
        use crate::domain::Standing;
        let reading = |first: Standing, i: usize| Reading {
            standings: [
                ("PRO-1".to_string(), first),
                (
                    "PRO-2".to_string(),
                    if i.is_multiple_of(2) {
                        Standing::Upheld
                    } else {
                        Standing::Uncertain
                    },
                ),
                ("CON-1".to_string(), Standing::Refuted),
            ]
            .into_iter()
            .collect(),
            ..Reading::winner(None)
        };
        let people: Vec<Reading> = (0..12).map(|i| reading(Standing::Upheld, i)).collect();
        let judge: Vec<Reading> = (0..12).map(|i| reading(Standing::Refuted, i)).collect();
        let pairs: Vec<(&Reading, &Reading)> = judge.iter().zip(&people).collect();
        let s = agreement(&pairs, false).standings.unwrap();
        assert_eq!((s.same.n, s.rounds), (36, 12));
        assert!((s.same.estimate.unwrap() - 2.0 / 3.0).abs() < 1e-9);
        assert!(s.alpha.estimate.unwrap() < 0.9 && s.alpha.low.is_some());
        let same: Vec<(&Reading, &Reading)> = people.iter().zip(&people).collect();
        assert_eq!(
            agreement(&same, false).standings.unwrap().alpha.estimate,
            Some(1.0)
        );
    }
}
