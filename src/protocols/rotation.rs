//! How `judging = "rotate"` hands out judges: one per round, never one of its teams.
//!
//! Each ordered pairing's rounds (its dilemmas times its repetitions) are spread over every
//! judge free to score it, each about equally often (see [`slots`]): a pairing meets as many
//! different judges as the roster allows, so a judge's leniency is not confounded with the
//! pairing it scores, and the repetitions of a configuration (dilemma, Team A, Team B) get
//! different judges while there are enough, so judge agreement can be read across them. In
//! the terms of experimental design this is a balanced incomplete block design (pairings
//! are blocks, free judges treatments), completed by dilemmas and repetitions.
//!
//! Which judge takes which of a pairing's slots is then chosen to even out, for every judge,
//! how often it sees each model presenting and responding, and then how many rounds each
//! judge judges: first greedily, pairing after pairing, then by swapping two judges' slots
//! within a pairing while that makes things more even; of two greedy starts (exposure
//! first, load first) the more even plan is kept. Nothing is random: the same configuration
//! always gives the same plan.
//!
//! A pairing's rounds are shared evenly among the judges free to score it even where that
//! leaves loads uneven: when some judges also debate, they are free for fewer pairings, and
//! the judges who do not debate take more rounds.

use std::collections::{BTreeMap, HashMap};

/// Presenting (Team A) and responding (Team B), as `seen` counts them.
const ROLES: [char; 2] = ['A', 'B'];

/// The most passes of slot swaps: they bound the time a large roster's plan takes (each
/// pass only makes the plan more even, so stopping early leaves a good plan, not a wrong
/// one).
const MAX_PASSES: usize = 16;
/// The most swaps tried in one plan, for the same reason.
const MAX_SWAPS: usize = 4_000_000;

/// A rotation's plan.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Plan<'a> {
    /// For each ordered pairing, in the order given, the judge of each of its rounds:
    /// repetition after repetition, dilemma after dilemma (round `r × dilemmas + d`).
    pub judges: Vec<Vec<&'a str>>,
    /// How often each judge sees each model in each role (`'A'` presenting, `'B'`
    /// responding).
    pub seen: HashMap<(&'a str, &'a str, char), u32>,
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The slot (0 to `free` − 1, one per judge free to score a pairing) of each of the
/// pairing's rounds, repetition after repetition, dilemma after dilemma; `free` is at least
/// one.
///
/// Each repetition gives its dilemmas slots that follow one another round the circle of
/// slots, from a start that steps on by the number of dilemmas from one repetition to the
/// next: the repetitions tile the circle, so every slot gets as many rounds as any other,
/// give or take one. Each time the tiling comes back to where it began (every slot then has
/// had the same number), the start moves on by one more, so that the starts, and with them
/// each dilemma's slots over the repetitions, differ while there are slots to spare and
/// repeat evenly beyond.
pub(super) fn slots(free: usize, dilemmas: usize, repetitions: usize) -> Vec<usize> {
    let free = free.max(1);
    let step = dilemmas % free;
    // Repetitions before the tiling is back where it began (1 when each repetition covers
    // the circle alike).
    let cycle = free / gcd(step, free);
    (0..repetitions)
        .flat_map(|r| {
            let start = r * step + r / cycle;
            (0..dilemmas).map(move |d| (start + d) % free)
        })
        .collect()
}

/// One pairing: its two models, and its slots' judges and sizes.
struct Pairing {
    a: usize,
    b: usize,
    /// The judge (an index into the roster) holding each slot.
    judge_of: Vec<usize>,
    /// Rounds in each slot.
    size: Vec<u32>,
}

/// What the judges see: counts by judge, model and role, and each judge's rounds, with
/// what [`Tally::cost`] reads kept up to date as rounds are added and taken away.
#[derive(Clone)]
struct Tally {
    /// Models in all (the configured ones first; only those are to be seen evenly).
    models: usize,
    /// `cells[(judge × models + model) × 2 + role]`.
    cells: Vec<u32>,
    load: Vec<u32>,
    /// Whether a judge is to see a model evenly with the others (`[judge × models +
    /// model]`): a configured model other than itself.
    even: Vec<bool>,
    /// How many models the judge is to see evenly.
    evens: Vec<u64>,
    /// Whether a judge is free to judge a model (it plays in a pairing the judge does not
    /// play in), by `[judge × models + model]`.
    could: Vec<bool>,
    /// For each judge and role, its counts over the models it is to see evenly.
    spreads: Vec<Spread>,
    /// For each judge, the models it is free to judge but has not seen.
    unseen: Vec<u64>,
}

/// How often a judge sees the models it is to see evenly, in one role: the sum and the sum
/// of squares of the counts, and how many models have each count.
#[derive(Clone, Default)]
struct Spread {
    sum: u64,
    squares: u64,
    counts: BTreeMap<u32, u64>,
}

impl Spread {
    /// One model's count goes from `before` to `after`.
    fn change(&mut self, before: u32, after: u32) {
        let (b, a) = (u64::from(before), u64::from(after));
        self.sum = self.sum + a - b;
        self.squares = self.squares + a * a - b * b;
        if let Some(n) = self.counts.get_mut(&before) {
            *n -= 1;
            if *n == 0 {
                self.counts.remove(&before);
            }
        }
        *self.counts.entry(after).or_default() += 1;
    }

    /// By how much more than one the highest count exceeds the lowest.
    fn excess(&self) -> u64 {
        match (self.counts.first_key_value(), self.counts.last_key_value()) {
            (Some((least, _)), Some((most, _))) => {
                u64::from(most.saturating_sub(*least).saturating_sub(1))
            }
            _ => 0,
        }
    }
}

/// How uneven one judge's rounds are: the models it is free to judge but never sees (a
/// confound the schedule warns of), then, for each role, by how much more than one the
/// model it sees most exceeds the one it sees least (an imbalance it warns of), then its
/// load squared (the sum over judges is least when loads are equal), then the spread of how
/// often it sees each model in each role (the variance, times the number of models
/// squared).
type Cost = (u64, u64, u64, u64);

impl Tally {
    fn new(judges: usize, models: usize, even: Vec<bool>, could: Vec<bool>) -> Self {
        let evens: Vec<u64> = (0..judges)
            .map(|j| {
                even[j * models..(j + 1) * models]
                    .iter()
                    .filter(|e| **e)
                    .count() as u64
            })
            .collect();
        let unseen = (0..judges)
            .map(|j| {
                could[j * models..(j + 1) * models]
                    .iter()
                    .filter(|c| **c)
                    .count() as u64
            })
            .collect();
        // Every count starts at nought.
        let spreads = (0..judges * 2)
            .map(|i| Spread {
                counts: match evens[i / 2] {
                    0 => BTreeMap::new(),
                    n => BTreeMap::from([(0, n)]),
                },
                ..Spread::default()
            })
            .collect();
        Self {
            models,
            cells: vec![0; judges * models * 2],
            load: vec![0; judges],
            even,
            evens,
            could,
            spreads,
            unseen,
        }
    }

    fn cell(&self, judge: usize, model: usize, role: usize) -> usize {
        (judge * self.models + model) * 2 + role
    }

    /// Adds `n` rounds of `a` presenting and `b` responding for `judge`, or takes them away.
    fn add(&mut self, judge: usize, a: usize, b: usize, n: u32, take: bool) {
        for (model, role) in [(a, 0), (b, 1)] {
            let i = self.cell(judge, model, role);
            let before = self.cells[i];
            let after = if take {
                before.saturating_sub(n)
            } else {
                before + n
            };
            self.cells[i] = after;
            let jm = judge * self.models + model;
            if self.even[jm] {
                self.spreads[judge * 2 + role].change(before, after);
            }
            if self.could[jm] {
                let other = self.cells[i ^ 1];
                match (before + other == 0, after + other == 0) {
                    (true, false) => self.unseen[judge] -= 1,
                    (false, true) => self.unseen[judge] += 1,
                    _ => {}
                }
            }
        }
        self.load[judge] = if take {
            self.load[judge].saturating_sub(n)
        } else {
            self.load[judge] + n
        };
    }

    /// What `judge` has seen of `a` presenting and `b` responding, and judged in all: who
    /// needs the pairing's rounds least.
    fn need(&self, judge: usize, a: usize, b: usize) -> (u32, u32) {
        (
            self.cells[self.cell(judge, a, 0)] + self.cells[self.cell(judge, b, 1)],
            self.load[judge],
        )
    }

    fn cost(&self, judge: usize) -> Cost {
        let mut excess = 0;
        let mut spread = 0;
        for s in &self.spreads[judge * 2..judge * 2 + 2] {
            spread += self.evens[judge] * s.squares - s.sum * s.sum;
            excess += s.excess();
        }
        (
            self.unseen[judge],
            excess,
            u64::from(self.load[judge]).pow(2),
            spread,
        )
    }
}

fn plus(x: Cost, y: Cost) -> Cost {
    (x.0 + y.0, x.1 + y.1, x.2 + y.2, x.3 + y.3)
}

/// Plans the judges of every round of `pairs` over `dilemmas` dilemmas and `repetitions`
/// repetitions; `judges` is the roster, `models` the configured models. An error names a
/// pairing every judge plays in.
pub(super) fn plan<'a>(
    judges: &'a [String],
    models: &'a [String],
    pairs: &'a [(String, String)],
    dilemmas: usize,
    repetitions: u32,
) -> Result<Plan<'a>, (&'a str, &'a str)> {
    // Models by index: the configured ones, then any other player a pairing names.
    let mut names: Vec<&'a str> = models.iter().map(String::as_str).collect();
    let configured = names.len();
    for (a, b) in pairs {
        for m in [a, b] {
            if !names.contains(&m.as_str()) {
                names.push(m);
            }
        }
    }
    let index = |m: &str| names.iter().position(|n| *n == m).unwrap_or(0);
    let models_n = names.len();
    let mut even = vec![false; judges.len() * models_n];
    let mut could = vec![false; judges.len() * models_n];
    for (j, judge) in judges.iter().enumerate() {
        for m in 0..configured {
            even[j * models_n + m] = names[m] != judge.as_str();
        }
        for (a, b) in pairs {
            if a != judge && b != judge {
                could[j * models_n + index(a)] = true;
                could[j * models_n + index(b)] = true;
            }
        }
    }
    let fresh = Tally::new(judges.len(), models_n, even, could);
    // Each pairing: its models, the judges free to score it, and its slots' sizes.
    let mut blocks = Vec::with_capacity(pairs.len());
    for (a, b) in pairs {
        let free: Vec<usize> = (0..judges.len())
            .filter(|j| judges[*j] != *a && judges[*j] != *b)
            .collect();
        if free.is_empty() {
            return Err((a, b));
        }
        let mut size = vec![0u32; free.len()];
        for s in slots(free.len(), dilemmas, repetitions as usize) {
            size[s] += 1;
        }
        blocks.push((index(a), index(b), free, size));
    }
    // Two starts, evened out each: the judges who have seen the pairing's models least
    // first, or those who have judged least; the more even plan is kept (the first on a tie).
    let start = |load_first| {
        let mut tally = fresh.clone();
        let mut planned = greedy(&blocks, &mut tally, load_first);
        even_out(&mut planned, &mut tally);
        let cost = (0..judges.len()).fold((0, 0, 0, 0), |c, j| plus(c, tally.cost(j)));
        (cost, planned, tally)
    };
    let (by_seen, by_load) = (start(false), start(true));
    let (_, planned, tally) = if by_load.0 < by_seen.0 {
        by_load
    } else {
        by_seen
    };
    let judges_of = planned
        .iter()
        .map(|p| {
            slots(p.judge_of.len(), dilemmas, repetitions as usize)
                .into_iter()
                .map(|s| judges[p.judge_of[s]].as_str())
                .collect()
        })
        .collect();
    let mut seen = HashMap::new();
    for (j, judge) in judges.iter().enumerate() {
        for (m, model) in names.iter().enumerate() {
            for (r, role) in ROLES.iter().enumerate() {
                let n = tally.cells[tally.cell(j, m, r)];
                if n > 0 {
                    *seen.entry((judge.as_str(), *model, *role)).or_default() += n;
                }
            }
        }
    }
    Ok(Plan {
        judges: judges_of,
        seen,
    })
}

/// Hands each pairing's slots out greedily, pairing after pairing: the slots with most
/// rounds to the judges who have seen the pairing's models in their roles least, then
/// judged least (with `load_first`, the other way round), then listed first.
fn greedy(
    blocks: &[(usize, usize, Vec<usize>, Vec<u32>)],
    tally: &mut Tally,
    load_first: bool,
) -> Vec<Pairing> {
    let mut planned = Vec::with_capacity(blocks.len());
    for (a, b, free, size) in blocks {
        let (a, b) = (*a, *b);
        let mut busiest: Vec<usize> = (0..free.len()).collect();
        busiest.sort_by_key(|s| (std::cmp::Reverse(size[*s]), *s));
        let mut neediest = free.clone();
        neediest.sort_by_key(|j| {
            let (seen, load) = tally.need(*j, a, b);
            (
                if load_first {
                    (load, seen)
                } else {
                    (seen, load)
                },
                *j,
            )
        });
        let mut judge_of = vec![0; free.len()];
        for (slot, judge) in busiest.into_iter().zip(neediest) {
            judge_of[slot] = judge;
            tally.add(judge, a, b, size[slot], false);
        }
        planned.push(Pairing {
            a,
            b,
            judge_of,
            size: size.clone(),
        });
    }
    planned
}

/// Swaps two judges' slots within a pairing wherever that makes the two judges' rounds
/// more even ([`Cost`]), pass after pass until no swap helps. A swap keeps each pairing's
/// judges and its slots (so the pairing stays as even, and its repetitions' judges as
/// different), and changes only which judge holds which slot.
fn even_out(pairings: &mut [Pairing], tally: &mut Tally) {
    let mut tried = 0;
    for _ in 0..MAX_PASSES {
        let mut improved = false;
        for p in pairings.iter_mut() {
            for s in 0..p.judge_of.len() {
                for t in s + 1..p.judge_of.len() {
                    let (u, v) = (p.judge_of[s], p.judge_of[t]);
                    if p.size[s] == p.size[t] || u == v {
                        continue;
                    }
                    tried += 1;
                    if tried > MAX_SWAPS {
                        return;
                    }
                    let before = plus(tally.cost(u), tally.cost(v));
                    swap(p, s, t, tally);
                    if plus(tally.cost(u), tally.cost(v)) < before {
                        improved = true;
                    } else {
                        swap(p, s, t, tally);
                    }
                }
            }
        }
        if !improved {
            return;
        }
    }
}

/// Gives slot `s`'s judge slot `t` and the other way round, counted.
fn swap(p: &mut Pairing, s: usize, t: usize, tally: &mut Tally) {
    let (u, v) = (p.judge_of[s], p.judge_of[t]);
    tally.add(u, p.a, p.b, p.size[s], true);
    tally.add(v, p.a, p.b, p.size[t], true);
    tally.add(u, p.a, p.b, p.size[t], false);
    tally.add(v, p.a, p.b, p.size[s], false);
    p.judge_of.swap(s, t);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How often each slot comes up: overall, and for each dilemma over the repetitions.
    fn spread(free: usize, dilemmas: usize, repetitions: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
        let slots = slots(free, dilemmas, repetitions);
        assert_eq!(slots.len(), dilemmas * repetitions);
        let mut all = vec![0; free];
        let mut by_dilemma = vec![vec![0; free]; dilemmas];
        for (i, s) in slots.iter().enumerate() {
            all[*s] += 1;
            by_dilemma[i % dilemmas][*s] += 1;
        }
        (all, by_dilemma)
    }

    fn even(counts: &[usize]) -> bool {
        counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1
    }

    #[test]
    fn slots_are_even_overall_and_for_each_dilemma_across_repetitions() {
        for free in 1..=7 {
            for dilemmas in 1..=9 {
                for repetitions in 1..=9 {
                    let (all, by_dilemma) = spread(free, dilemmas, repetitions);
                    assert!(even(&all), "{free} {dilemmas} {repetitions}: {all:?}");
                    for d in &by_dilemma {
                        assert!(even(d), "{free} {dilemmas} {repetitions}: {by_dilemma:?}");
                    }
                }
            }
        }
        // Two free judges and two dilemmas: the second repetition swaps them.
        assert_eq!(slots(2, 2, 2), [0, 1, 1, 0]);
        // Four free judges, two dilemmas, four repetitions: every dilemma meets all four.
        assert_eq!(slots(4, 2, 4), [0, 1, 2, 3, 1, 2, 3, 0]);
    }

    /// Every ordered pairing of `models`.
    fn all_pairs(models: &[String]) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        for a in models {
            for b in models {
                if a != b {
                    pairs.push((a.clone(), b.clone()));
                }
            }
        }
        pairs
    }

    #[test]
    fn judges_who_do_not_debate_share_the_rounds_and_see_every_model_alike() {
        for m in 2..=5 {
            for j in 1..=4 {
                for dilemmas in 1..=4 {
                    for repetitions in 1..=3 {
                        let models: Vec<String> = (0..m).map(|i| format!("m{i}")).collect();
                        let judges: Vec<String> = (0..j).map(|i| format!("x{i}")).collect();
                        let pairs = all_pairs(&models);
                        let plan = plan(&judges, &models, &pairs, dilemmas, repetitions).unwrap();
                        let at = format!("{m} models, {j} judges, {dilemmas} × {repetitions}");
                        let mut load: HashMap<&str, usize> = HashMap::new();
                        for judge in plan.judges.iter().flatten() {
                            *load.entry(judge).or_default() += 1;
                        }
                        let rounds = pairs.len() * dilemmas * repetitions as usize;
                        if rounds >= j {
                            assert_eq!(load.len(), j, "{at}");
                        }
                        // Each judge sees each model in each role as often, give or take one,
                        // before loads are evened out: these are a round or two apart at most
                        // (five debaters and four judges, one round each: 6, 6, 4, 4).
                        let (most, least) = (load.values().max(), load.values().min());
                        let apart = if (m, j) == (5, 4) { 2 } else { 1 };
                        assert!(most.unwrap() - least.unwrap() <= apart, "{at}: {load:?}");
                        for judge in &judges {
                            for role in ROLES {
                                let seen: Vec<u32> = models
                                    .iter()
                                    .map(|model| {
                                        let key = (judge.as_str(), model.as_str(), role);
                                        plan.seen.get(&key).copied().unwrap_or(0)
                                    })
                                    .collect();
                                let (most, least) = (seen.iter().max(), seen.iter().min());
                                assert!(most.unwrap() - least.unwrap() <= 1, "{at}: {seen:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn swaps_even_out_what_the_greedy_pass_leaves() {
        // Three debaters, two outside judges, one round per pairing: each judge can see
        // every model once in each role (one judge takes a cycle, the other the reverse).
        let models: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let judges: Vec<String> = ["x", "y"].map(String::from).to_vec();
        let pairs = all_pairs(&models);
        let plan = plan(&judges, &models, &pairs, 1, 1).unwrap();
        for j in ["x", "y"] {
            for m in ["a", "b", "c"] {
                for role in ROLES {
                    assert_eq!(plan.seen.get(&(j, m, role)), Some(&1), "{j} {m} {role}");
                }
            }
        }
    }
}
