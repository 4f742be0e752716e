//! The rounds people judge: a reproducible sample of a folder's finished rounds, stratified
//! by dilemma, debaters or judge, recorded in `annotations/sample.json` with its seed,
//! strata and round ids in the order they are shown, so a spreadsheet and the terminal UI
//! present the same rounds in the same order.
//!
//! Allocation is proportional with a floor of one: each stratum gets one round (when the
//! sample is at least as large as the number of strata), and the rest are shared in
//! proportion to each stratum's remaining rounds by largest remainder (ties to the stratum
//! first by name). A sample smaller than the number of strata takes one round from each of
//! that many strata, chosen at random. Within a stratum rounds are drawn at random; the
//! drawn rounds are then shuffled into the order they are shown. Every draw comes from one
//! ChaCha8 generator seeded with the seed.

use std::collections::BTreeMap;
use std::path::Path;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{AnnotationError, RoundInfo};
use crate::store::StoreError;

/// The sample's file, in `annotations/`.
pub const SAMPLE_FILE: &str = "sample.json";

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 34;

/// What a sample is stratified by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strata {
    /// The dilemma (question-answer: the item; structured debate: the topic).
    Dilemma,
    /// The debaters: the two models of a round, in either order (see
    /// [`RoundInfo::pairing`]).
    Model,
    /// The round's (first) judge.
    Judge,
}

impl Strata {
    /// The stratum a round belongs to.
    pub fn of(self, round: &RoundInfo) -> String {
        match self {
            Self::Dilemma => round.dilemma.clone(),
            Self::Model => round.pairing(),
            Self::Judge => round.judge.clone(),
        }
    }
}

/// One stratum's share of a sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allocation {
    /// The stratum (a dilemma, a pairing, a judge; `all` when not stratified).
    pub stratum: String,
    /// Its finished rounds.
    pub rounds: usize,
    /// How many of them were drawn.
    pub drawn: usize,
}

/// A drawn sample, as `annotations/sample.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// The generator's seed.
    pub seed: u64,
    /// What it was stratified by (none: a simple random sample).
    pub strata: Option<Strata>,
    /// The size asked for (none: every finished round).
    pub requested: Option<usize>,
    /// When it was drawn (RFC 3339, UTC).
    pub drawn_at: String,
    /// The finished rounds it was drawn from.
    pub population: usize,
    /// Each stratum's share, by stratum name.
    pub allocation: Vec<Allocation>,
    /// The rounds drawn, in the order they are shown to people.
    pub round_ids: Vec<String>,
}

impl Sample {
    /// Whether two samples hold the same draw (when each was drawn aside).
    pub fn same_draw(&self, other: &Self) -> bool {
        self.seed == other.seed
            && self.strata == other.strata
            && self.requested == other.requested
            && self.round_ids == other.round_ids
    }
}

/// Draws a sample of `size` rounds (none: all of them) of the finished rounds, stratified
/// by `strata`, from `seed`. Rounds whose id cannot be a file name (some of the
/// predecessor's) cannot hold an annotation and are left out.
pub fn draw(
    rounds: &[RoundInfo],
    size: Option<usize>,
    strata: Option<Strata>,
    seed: u64,
) -> Result<Sample, AnnotationError> {
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for round in rounds
        .iter()
        .filter(|r| r.finished && crate::domain::check_file_id(&r.id).is_ok())
    {
        let key = strata.map_or_else(|| "all".to_string(), |s| s.of(round));
        groups.entry(key).or_default().push(&round.id);
    }
    let population: usize = groups.values().map(Vec::len).sum();
    if population == 0 {
        return Err(AnnotationError::Refused(
            "no finished round to sample: a person judges an exchange once every phase has run"
                .into(),
        ));
    }
    if size == Some(0) {
        return Err(AnnotationError::Refused(
            "a sample of 0 rounds holds nothing; give --sample 1 or more".into(),
        ));
    }
    let n = size.unwrap_or(population).min(population);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sizes: Vec<usize> = groups.values().map(Vec::len).collect();
    let shares = allocate(&sizes, n, &mut rng);
    let mut allocation = Vec::new();
    let mut drawn = Vec::new();
    for ((stratum, ids), share) in groups.into_iter().zip(shares) {
        let mut ids: Vec<&str> = ids;
        ids.sort_unstable();
        ids.shuffle(&mut rng);
        drawn.extend(ids.iter().take(share).map(|id| id.to_string()));
        allocation.push(Allocation {
            stratum,
            rounds: ids.len(),
            drawn: share,
        });
    }
    drawn.shuffle(&mut rng);
    Ok(Sample {
        seed,
        strata,
        requested: size,
        drawn_at: crate::domain::now_rfc3339(),
        population,
        allocation,
        round_ids: drawn,
    })
}

/// How many of each stratum's rounds to draw for a sample of `n` (at most their sum).
fn allocate(sizes: &[usize], n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let strata = sizes.len();
    if n < strata {
        // Fewer rounds than strata: one each from n strata chosen at random.
        let mut order: Vec<usize> = (0..strata).collect();
        order.shuffle(rng);
        let mut shares = vec![0; strata];
        for &i in order.iter().take(n) {
            shares[i] = 1;
        }
        return shares;
    }
    // One each, the rest in proportion to what each has left, by largest remainder.
    let extra = n - strata;
    let left: Vec<usize> = sizes.iter().map(|s| s.saturating_sub(1)).collect();
    let total: usize = left.iter().sum();
    let mut shares = vec![1; strata];
    if total == 0 || extra == 0 {
        return shares;
    }
    let mut remainders = Vec::with_capacity(strata);
    for (i, l) in left.iter().enumerate() {
        shares[i] += extra * l / total;
        remainders.push((extra * l % total, i));
    }
    let given: usize = shares.iter().sum::<usize>() - strata;
    // Largest remainder first; equal remainders to the stratum first by name.
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in remainders.iter().take(extra - given) {
        shares[i] += 1;
    }
    shares
}

/// Reads `annotations/sample.json`, if there is one.
pub fn load_sample(results: &Path) -> Result<Option<Sample>, AnnotationError> {
    let path = results.join(super::store::FOLDER).join(SAMPLE_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|source| StoreError::Io {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| AnnotationError::Damaged {
            path,
            message: format!("not a valid sample file: {e}"),
        })
}

/// Records a drawn sample in `annotations/sample.json` (atomically; the caller holds the
/// folder's writer lock) and returns the sample to use. A sample already recorded with the
/// same draw is kept as it is; a different one is refused unless `replace`, since
/// annotators may be part-way through it.
pub fn record(results: &Path, drawn: Sample, replace: bool) -> Result<Sample, AnnotationError> {
    let dir = results.join(super::store::FOLDER);
    let path = dir.join(SAMPLE_FILE);
    if let Some(old) = load_sample(results)? {
        if old.same_draw(&drawn) {
            return Ok(old);
        }
        if !replace {
            return Err(AnnotationError::Refused(format!(
                "{}: another sample is recorded (seed {}, {} rounds); people may be judging \
                 it. Pass --replace to draw a new one in its place",
                path.display(),
                old.seed,
                old.round_ids.len()
            )));
        }
    }
    std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
        path: dir.clone(),
        source,
    })?;
    crate::store::write_json_atomic(&path, &drawn)?;
    Ok(drawn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ProtocolKind;

    fn info(id: &str, dilemma: &str, a: &str, b: &str, judge: &str) -> RoundInfo {
        RoundInfo {
            id: id.into(),
            protocol: ProtocolKind::EthicsBowl,
            dilemma: dilemma.into(),
            team_a: a.into(),
            team_b: b.into(),
            judge: judge.into(),
            finished: true,
            three_way: false,
            arguments: Vec::new(),
        }
    }

    /// 20 rounds on d1, 6 on d2, 4 on d3 (30), judges j1/j2 alternating.
    fn rounds() -> Vec<RoundInfo> {
        let mut out = Vec::new();
        for (dilemma, count) in [("d1", 20), ("d2", 6), ("d3", 4)] {
            for i in 0..count {
                let judge = if i % 2 == 0 { "j1" } else { "j2" };
                let (a, b) = if i % 3 == 0 { ("x", "y") } else { ("y", "z") };
                out.push(info(&format!("{dilemma}-{i:02}"), dilemma, a, b, judge));
            }
        }
        out
    }

    fn drawn_from(sample: &Sample, stratum: &str) -> usize {
        sample
            .allocation
            .iter()
            .find(|a| a.stratum == stratum)
            .map_or(0, |a| a.drawn)
    }

    #[test]
    fn the_same_seed_draws_the_same_sample_in_the_same_order() {
        let a = draw(&rounds(), Some(10), Some(Strata::Dilemma), 7).unwrap();
        let b = draw(&rounds(), Some(10), Some(Strata::Dilemma), 7).unwrap();
        assert!(a.same_draw(&b));
        assert_eq!(a.round_ids, b.round_ids);
        let c = draw(&rounds(), Some(10), Some(Strata::Dilemma), 8).unwrap();
        assert_ne!(a.round_ids, c.round_ids);
        // The order of the input does not matter.
        let mut reversed = rounds();
        reversed.reverse();
        let d = draw(&reversed, Some(10), Some(Strata::Dilemma), 7).unwrap();
        assert_eq!(a.round_ids, d.round_ids);
    }

    #[test]
    fn allocation_is_proportional_with_one_round_per_stratum() {
        let s = draw(&rounds(), Some(10), Some(Strata::Dilemma), DEFAULT_SEED).unwrap();
        assert_eq!(s.round_ids.len(), 10);
        // One each, then 7 shared as 19 : 5 : 3 → 4.93, 1.30, 0.78 → 5, 1, 1.
        assert_eq!(
            (
                drawn_from(&s, "d1"),
                drawn_from(&s, "d2"),
                drawn_from(&s, "d3")
            ),
            (6, 2, 2)
        );
        for (stratum, prefix) in [("d1", "d1-"), ("d2", "d2-"), ("d3", "d3-")] {
            let n = s
                .round_ids
                .iter()
                .filter(|id| id.starts_with(prefix))
                .count();
            assert_eq!(n, drawn_from(&s, stratum));
        }
        let mut unique = s.round_ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 10, "no round drawn twice");
        // Shown in shuffled order, not stratum by stratum.
        let mut sorted = s.round_ids.clone();
        sorted.sort();
        assert_ne!(sorted, s.round_ids);
    }

    #[test]
    fn every_stratum_gets_a_round_when_the_size_allows_and_strata_are_kinds() {
        let by_judge = draw(&rounds(), Some(2), Some(Strata::Judge), 1).unwrap();
        assert_eq!(
            (drawn_from(&by_judge, "j1"), drawn_from(&by_judge, "j2")),
            (1, 1)
        );
        let by_model = draw(&rounds(), Some(4), Some(Strata::Model), 1).unwrap();
        assert!(drawn_from(&by_model, "x vs y") >= 1 && drawn_from(&by_model, "y vs z") >= 1);
        // Fewer rounds than strata: one from each of that many.
        let small = draw(&rounds(), Some(2), Some(Strata::Dilemma), 1).unwrap();
        assert_eq!(small.round_ids.len(), 2);
        assert_eq!(small.allocation.iter().filter(|a| a.drawn == 1).count(), 2);
    }

    #[test]
    fn a_sample_larger_than_the_rounds_takes_them_all_and_unfinished_rounds_never() {
        let mut all = rounds();
        all[0].finished = false;
        let s = draw(&all, Some(100), None, 1).unwrap();
        assert_eq!(s.round_ids.len(), 29);
        assert!(!s.round_ids.contains(&all[0].id));
        assert_eq!(s.population, 29);
        assert!(draw(&all, Some(0), None, 1).is_err());
        let none: Vec<RoundInfo> = Vec::new();
        assert!(draw(&none, Some(3), None, 1).is_err());
    }

    #[test]
    fn a_recorded_sample_is_kept_and_a_different_one_needs_replace() {
        let dir = tempfile::tempdir().unwrap();
        let first = draw(&rounds(), Some(5), Some(Strata::Dilemma), 1).unwrap();
        let kept = record(dir.path(), first.clone(), false).unwrap();
        assert_eq!(kept, first);
        assert_eq!(load_sample(dir.path()).unwrap(), Some(first.clone()));
        let again = Sample {
            drawn_at: "later".into(),
            ..first.clone()
        };
        assert_eq!(record(dir.path(), again, false).unwrap(), first);
        let other = draw(&rounds(), Some(5), Some(Strata::Dilemma), 2).unwrap();
        assert!(record(dir.path(), other.clone(), false).is_err());
        assert_eq!(record(dir.path(), other.clone(), true).unwrap(), other);
        assert_eq!(load_sample(dir.path()).unwrap(), Some(other));
    }
}
