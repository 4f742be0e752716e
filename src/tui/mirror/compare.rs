//! A second results folder set beside the one open (`ethics-bowl open A --compare B`), a
//! read of the store the mirror keeps: B's rounds (their judgments; phases are not kept),
//! the comparison `ethics-bowl compare` makes (see [`crate::analysis::compare`]), and for
//! each round of A judged in both what changed, which the matrix marks. A round's two
//! judgments are paired judge by judge for the side-by-side view.

use std::collections::HashMap;

use crate::analysis::compare::{Comparison, PairedJudgment, compare};
use crate::domain::{Judgment, ProtocolKind, Round};
use crate::sanitize::{sanitize, sanitized};

/// What changed in a round judged in both folders, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// Every judgment in both gave the same verdict and margin.
    Same,
    /// A margin (total) changed, no verdict did.
    Changed,
    /// A verdict flipped.
    Flipped,
}

impl Mark {
    /// The matrix's mark after the cell.
    pub fn symbol(self) -> char {
        match self {
            Self::Same => '≡',
            Self::Changed => 'Δ',
            Self::Flipped => '⇄',
        }
    }
}

/// The comparison as the mirror holds it.
#[derive(Debug, Clone)]
pub struct Compared {
    /// The folder open (the first run), as given.
    pub folder_a: String,
    /// The folder set beside it (the second run), as given.
    pub folder_b: String,
    /// What the first run is called on screen: its folder's last part (with its parents
    /// when both folders end alike), see [`run_names`].
    pub name_a: String,
    /// What the second run is called on screen.
    pub name_b: String,
    /// The comparison of A's stored rounds with B's.
    pub comparison: Comparison,
    /// B's rounds in the folder's order (which the ratings' bootstrap follows, as in
    /// `ethics-bowl compare`), sanitised, phases dropped.
    b: Vec<Round>,
    /// Round id → index in `b`.
    b_index: HashMap<String, usize>,
    /// What changed in each round judged in both.
    marks: HashMap<String, Mark>,
}

/// One judge of a round, in A and in B.
#[derive(Debug, Clone, Copy)]
pub struct JudgeRow<'a> {
    /// The judge (persona, model, or the panel's aggregate).
    pub judge: &'a str,
    /// Its judgment in A.
    pub a: Option<&'a Judgment>,
    /// Its judgment in B.
    pub b: Option<&'a Judgment>,
    /// The pair the comparison counts, when usable in both.
    pub pair: Option<&'a PairedJudgment>,
}

/// What the panel's aggregate is called among a round's judges.
pub const PANEL: &str = "panel verdict";

/// A round's judgments by judge, the panel's aggregate last.
fn judgments(round: &Round) -> Vec<(&str, &Judgment)> {
    let mut out: Vec<(&str, &Judgment)> =
        round.judgments.iter().map(|j| (j.judge_key(), j)).collect();
    if let Some(v) = round.panel.as_ref().and_then(|p| p.verdict.as_ref()) {
        out.push((PANEL, v));
    }
    out
}

/// How a verdict of the comparison (`A`, `B`, `draw`) reads in the protocol's terms
/// (`Team A`, `Pro`, `debater A's answer`), so it is not taken for a run's name.
pub fn verdict_in_terms(kind: ProtocolKind, verdict: &str) -> &str {
    match (kind, verdict) {
        (ProtocolKind::EthicsBowl, "A") => "Team A",
        (ProtocolKind::EthicsBowl, "B") => "Team B",
        (ProtocolKind::StructuredDebate, "A") => "Pro",
        (ProtocolKind::StructuredDebate, "B") => "Con",
        (ProtocolKind::QaDebate, "A") => "debater A's answer",
        (ProtocolKind::QaDebate, "B") => "debater B's answer",
        (_, other) => other,
    }
}

/// A folder's parts, without empty and `.` parts.
fn parts(folder: &str) -> Vec<&str> {
    folder
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect()
}

/// What two runs are called on screen, from their folders: each folder's last part, or as
/// many of its last parts as tell the two apart (`exp1/sample`, `exp2/sample`); the same
/// folder twice reads `sample` and `sample (again)`.
pub fn run_names(folder_a: &str, folder_b: &str) -> (String, String) {
    let (a, b) = (parts(folder_a), parts(folder_b));
    let tail = |p: &[&str], n: usize| p[p.len().saturating_sub(n)..].join("/");
    let longest = a.len().max(b.len()).max(1);
    for n in 1..=longest {
        let (ta, tb) = (tail(&a, n), tail(&b, n));
        if ta != tb {
            return (ta, tb);
        }
    }
    let name = tail(&a, longest);
    let name = if name.is_empty() {
        folder_a.to_string()
    } else {
        name
    };
    (name.clone(), format!("{name} (again)"))
}

fn marks(comparison: &Comparison) -> HashMap<String, Mark> {
    let mut marks: HashMap<String, Mark> = HashMap::new();
    for p in &comparison.pairs {
        let mark = if p.flipped() {
            Mark::Flipped
        } else if p.change().is_some_and(|c| c.abs() > 1e-9) {
            Mark::Changed
        } else {
            Mark::Same
        };
        let slot = marks.entry(p.round_id.clone()).or_insert(Mark::Same);
        *slot = (*slot).max(mark);
    }
    marks
}

impl Compared {
    /// What changed in the round `id`, when it was judged in both.
    pub fn mark(&self, id: &str) -> Option<Mark> {
        self.marks.get(id).copied()
    }

    /// The judgments whose verdict flipped, in the comparison's order (the summary's list).
    pub fn flips(&self) -> Vec<&PairedJudgment> {
        self.comparison
            .pairs
            .iter()
            .filter(|p| p.flipped())
            .collect()
    }

    /// The rounds with a flipped verdict, each once, in the order of [`Self::flips`].
    pub fn flipped_rounds(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        for p in self.flips() {
            if !ids.contains(&p.round_id.as_str()) {
                ids.push(&p.round_id);
            }
        }
        ids
    }

    /// The second run's round `id`.
    pub fn b_round(&self, id: &str) -> Option<&Round> {
        self.b_index.get(id).map(|i| &self.b[*i])
    }

    /// A round's judges in A (`a`, as the UI holds it) and in B, A's order first.
    pub fn judge_rows<'a>(&'a self, a: &'a Round) -> Vec<JudgeRow<'a>> {
        let in_a = judgments(a);
        let in_b = self.b_round(&a.id).map(judgments).unwrap_or_default();
        let mut judges: Vec<&str> = in_a.iter().map(|(k, _)| *k).collect();
        for (k, _) in &in_b {
            if !judges.contains(k) {
                judges.push(k);
            }
        }
        judges
            .into_iter()
            .map(|judge| JudgeRow {
                judge,
                a: in_a.iter().find(|(k, _)| *k == judge).map(|(_, j)| *j),
                b: in_b.iter().find(|(k, _)| *k == judge).map(|(_, j)| *j),
                pair: self
                    .comparison
                    .pairs
                    .iter()
                    .find(|p| p.round_id == a.id && p.judge == judge),
            })
            .collect()
    }

    /// Compares again after A's rounds changed (a correction was stored).
    pub(crate) fn refresh(&mut self, a: &[Round]) {
        self.comparison = compare(self.comparison.protocol, a, &self.b);
        self.marks = marks(&self.comparison);
    }

    /// Sets the second run (`folder_b`, its rounds) beside the first run's stored rounds `a` (`folder_a`) of
    /// `protocol`, as `open A --compare B` does; B's rounds are sanitised as A's are, and
    /// one that cannot be is named in `problems` and left out.
    pub(crate) fn new(
        protocol: ProtocolKind,
        (folder_a, a): (&str, &[Round]),
        (folder_b, b_rounds): (&str, Vec<Round>),
        problems: &mut Vec<String>,
    ) -> Self {
        let mut b = Vec::new();
        let mut b_index = HashMap::new();
        for round in b_rounds {
            let mut round = match sanitized(&round) {
                Ok(None) => round,
                Ok(Some(clean)) => clean,
                Err(e) => {
                    problems.push(format!(
                        "compare: round {} of {} cannot be shown: {e}",
                        sanitize(&round.id),
                        sanitize(folder_b)
                    ));
                    continue;
                }
            };
            round.phases = Vec::new();
            b_index.insert(round.id.clone(), b.len());
            b.push(round);
        }
        let comparison = compare(protocol, a, &b);
        let (name_a, name_b) = run_names(folder_a, folder_b);
        Self {
            folder_a: sanitize(folder_a),
            folder_b: sanitize(folder_b),
            name_a: sanitize(&name_a),
            name_b: sanitize(&name_b),
            marks: marks(&comparison),
            comparison,
            b,
            b_index,
        }
    }
}
