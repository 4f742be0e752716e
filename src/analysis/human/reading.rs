//! One exchange as one rater read it, in the terms that agreement compares, whatever the
//! protocol: a model judge's judgment and a person's reduce to the same [`Reading`].

use std::collections::BTreeMap;

use crate::annotations::{HumanJudgment, QaAnswer, Winner};
use crate::domain::{
    Criterion, Judgment, Label, QaChoice, Reading as JudgmentReading, Scores, Side, Standing,
    StructuredVerdict, Team,
};

/// The Ethics Bowl's, or a structured debate's, verdict codes; a question-answer answer's
/// side or label code.
pub mod verdict {
    /// Team A won (Ethics Bowl), Pro won (structured), Debater A's answer (question-answer).
    pub const A: u32 = 0;
    /// Team B, Con, Debater B's answer.
    pub const B: u32 = 1;
    /// Neither side won.
    pub const TIE: u32 = 2;
    /// A three-way baseline's label: this plus the label's place in `Label::ALL`.
    pub const LABEL: u32 = 10;
}

/// Ethics Bowl totals closer than this are a tie (the ratings' draw margin, so a "verdict"
/// means the same in both figures).
pub const TIE_MARGIN: f64 = crate::analysis::ratings::DRAW_MARGIN;

/// One exchange as one rater read it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reading {
    /// Interval-scale values compared position by position by Krippendorff's alpha: the
    /// Ethics Bowl's fourteen criterion scores (Team A's seven, then Team B's). Empty for the
    /// protocols whose alpha is nominal, on the verdict.
    pub scores: Vec<f64>,
    /// The numbers kappa, Spearman and the mean difference compare: each team's total (the
    /// Ethics Bowl), the confidence given to Debater A's answer (question-answer, 0–100), or
    /// the lean to Pro (structured: +1, 0, −1).
    pub totals: Vec<f64>,
    /// Who won, or which answer was chosen ([`verdict`] codes).
    pub verdict: Option<u32>,
    /// A structured debate's standing of each argument, by argument id (empty for the
    /// other protocols, and for a person who gave none).
    pub standings: BTreeMap<String, Standing>,
}

impl Reading {
    /// An Ethics Bowl reading of both teams' scores; none unless every criterion of both
    /// teams is scored.
    pub fn rubric(a: &Scores, b: &Scores) -> Option<Self> {
        let mut scores = Vec::with_capacity(14);
        for s in [a, b] {
            for c in Criterion::ALL {
                scores.push(s.get(c)?);
            }
        }
        let (ta, tb) = (a.total()?, b.total()?);
        let verdict = if (ta - tb).abs() < TIE_MARGIN {
            verdict::TIE
        } else if ta > tb {
            verdict::A
        } else {
            verdict::B
        };
        Some(Self {
            scores,
            totals: vec![ta, tb],
            verdict: Some(verdict),
            standings: BTreeMap::new(),
        })
    }

    /// A question-answer reading: the side chosen, with its confidence turned into the
    /// confidence given to Debater A's answer.
    pub fn choice(side: Team, confidence: Option<f64>) -> Self {
        let toward_a = confidence.map(|c| if side == Team::A { c } else { 100.0 - c });
        Self {
            totals: toward_a.into_iter().collect(),
            verdict: Some(if side == Team::A {
                verdict::A
            } else {
                verdict::B
            }),
            ..Self::default()
        }
    }

    /// A three-way baseline's reading: the label.
    pub fn label(label: Label) -> Self {
        let at = Label::ALL.iter().position(|l| *l == label).unwrap_or(0) as u32;
        Self {
            verdict: Some(verdict::LABEL + at),
            ..Self::default()
        }
    }

    /// A structured debate's reading: the winner, or none for a tie.
    pub fn winner(side: Option<Side>) -> Self {
        let (code, lean) = match side {
            Some(Side::Pro) => (verdict::A, 1.0),
            Some(Side::Con) => (verdict::B, -1.0),
            None => (verdict::TIE, 0.0),
        };
        Self {
            totals: vec![lean],
            verdict: Some(code),
            ..Self::default()
        }
    }

    /// A model judge's structured verdict: the winner, and the standing of every argument
    /// it gave one.
    fn verdict(v: &StructuredVerdict) -> Self {
        Self {
            standings: v
                .assessments
                .iter()
                .filter_map(|a| Some((a.arg_id.clone(), a.standing?)))
                .collect(),
            ..Self::winner(v.winner())
        }
    }

    /// A model judge's usable judgment as a reading; none when it is not usable or holds
    /// too little to compare.
    pub fn of_judgment(j: &Judgment) -> Option<Self> {
        if !j.is_usable() {
            return None;
        }
        match &j.reading {
            JudgmentReading::Rubric { team_a, team_b } => Self::rubric(team_a, team_b),
            JudgmentReading::Choice(Some(QaChoice { side, confidence })) => {
                Some(Self::choice(*side, *confidence))
            }
            JudgmentReading::Label(Some(label)) => Some(Self::label(*label)),
            JudgmentReading::Verdict(Some(v)) => Some(Self::verdict(v)),
            JudgmentReading::Choice(None)
            | JudgmentReading::Label(None)
            | JudgmentReading::Verdict(None) => None,
        }
    }

    /// A person's judgment as a reading; none for an Ethics Bowl sheet missing a score
    /// (import refuses those, so only a file edited by hand holds one).
    pub fn of_person(j: &HumanJudgment) -> Option<Self> {
        match j {
            HumanJudgment::EthicsBowl { team_a, team_b, .. } => Self::rubric(team_a, team_b),
            HumanJudgment::QaDebate {
                answer: QaAnswer::Side(side),
                confidence,
                ..
            } => Some(Self::choice(*side, Some(*confidence))),
            HumanJudgment::QaDebate {
                answer: QaAnswer::Label(label),
                ..
            } => Some(Self::label(*label)),
            HumanJudgment::StructuredDebate {
                winner, standings, ..
            } => Some(Self {
                standings: standings
                    .iter()
                    .map(|s| (s.arg_id.clone(), s.standing))
                    .collect(),
                ..Self::winner(match winner {
                    Winner::Pro => Some(Side::Pro),
                    Winner::Con => Some(Side::Con),
                    Winner::Tie => None,
                })
            }),
        }
    }

    /// The mean of several raters' readings of one exchange: scores and totals averaged
    /// position by position (over the raters that have them), the verdict the most
    /// frequent one (none when two verdicts tie for most), and each argument's standing
    /// the most frequent one (left out when two tie for most).
    pub fn consensus(readings: &[&Reading]) -> Option<Self> {
        let first = readings.first()?;
        let average = |get: &dyn Fn(&Reading) -> &Vec<f64>| -> Vec<f64> {
            let len = get(first).len();
            let same: Vec<&Vec<f64>> = readings
                .iter()
                .map(|r| get(r))
                .filter(|v| v.len() == len)
                .collect();
            (0..len)
                .map(|i| same.iter().map(|v| v[i]).sum::<f64>() / same.len() as f64)
                .collect()
        };
        let mut arguments: BTreeMap<&str, Vec<Standing>> = BTreeMap::new();
        for r in readings {
            for (id, s) in &r.standings {
                arguments.entry(id).or_default().push(*s);
            }
        }
        Some(Self {
            scores: average(&|r| &r.scores),
            totals: average(&|r| &r.totals),
            verdict: majority(readings.iter().filter_map(|r| r.verdict)),
            standings: arguments
                .into_iter()
                .filter_map(|(id, votes)| Some((id.to_string(), majority(votes.into_iter())?)))
                .collect(),
        })
    }
}

/// The most frequent value; none when two tie for most (or there is none).
fn majority<T: Ord + Copy>(values: impl Iterator<Item = T>) -> Option<T> {
    let mut votes: BTreeMap<T, usize> = BTreeMap::new();
    for v in values {
        *votes.entry(v).or_default() += 1;
    }
    let most = votes.values().copied().max()?;
    let mut leaders = votes.iter().filter(|(_, c)| **c == most).map(|(v, _)| *v);
    let first = leaders.next();
    if leaders.next().is_some() {
        None
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_of_each_protocol() {
        let r = Reading::rubric(&Scores::uniform(8.0), &Scores::uniform(6.0)).unwrap();
        assert_eq!(r.scores.len(), 14);
        assert_eq!(r.totals, vec![56.0, 42.0]);
        assert_eq!(r.verdict, Some(verdict::A));
        assert_eq!(
            Reading::rubric(&Scores::uniform(7.0), &Scores::uniform(7.1))
                .unwrap()
                .verdict,
            Some(verdict::TIE)
        );
        assert!(Reading::rubric(&Scores::default(), &Scores::uniform(6.0)).is_none());
        let q = Reading::choice(Team::B, Some(80.0));
        assert_eq!((q.totals, q.verdict), (vec![20.0], Some(verdict::B)));
        assert_eq!(Reading::winner(None).totals, vec![0.0]);
    }

    #[test]
    fn the_consensus_averages_and_takes_the_majority() {
        let a = Reading::choice(Team::A, Some(90.0));
        let b = Reading::choice(Team::A, Some(70.0));
        let c = Reading::choice(Team::B, Some(60.0));
        let all = Reading::consensus(&[&a, &b, &c]).unwrap();
        assert_eq!(all.verdict, Some(verdict::A));
        assert!((all.totals[0] - 200.0 / 3.0).abs() < 1e-9);
        assert_eq!(Reading::consensus(&[&a, &c]).unwrap().verdict, None);
        let standing = |s: Standing| Reading {
            standings: [
                ("PRO-1".to_string(), s),
                ("CON-1".to_string(), Standing::Refuted),
            ]
            .into_iter()
            .collect(),
            ..Reading::winner(None)
        };
        let (u, r) = (standing(Standing::Upheld), standing(Standing::Refuted));
        let two = Reading::consensus(&[&u, &r]).unwrap();
        assert_eq!(two.standings.len(), 1, "PRO-1 splits evenly: left out");
        assert_eq!(two.standings["CON-1"], Standing::Refuted);
        let three = Reading::consensus(&[&u, &r, &u]).unwrap();
        assert_eq!(three.standings["PRO-1"], Standing::Upheld);
    }
}
