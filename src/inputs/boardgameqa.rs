//! BoardgameQA files (a JSON array of items with the string fields `facts`, `rules`,
//! `preferences`, `example`, `goal`, `label`, `proof`, `theory`) and the seeded,
//! label-stratified sample a tournament plays, with the answers handed out so that which
//! side is correct and who is read first are balanced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::domain::{Assignment, Label, QaItem, SampledItem, Team};

/// The fields every item must have, as strings.
const FIELDS: [&str; 8] = [
    "facts",
    "rules",
    "preferences",
    "example",
    "goal",
    "label",
    "proof",
    "theory",
];

/// A dataset file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum QaDataError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}; check qa.datasets in the tournament file")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a BoardgameQA JSON array, or holds no usable item.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
}

/// The items of one file, and the ones left out (by index, with the reason).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedItems {
    /// Usable items, in file order.
    pub items: Vec<QaItem>,
    /// `item 17: missing "rules"`, one per item left out.
    pub skipped: Vec<String>,
}

/// The level a file's name implies: its stem without the split (`Main-depth2-test` →
/// `Main-depth2`).
pub fn level_of(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    ["-test", "-train", "-valid", "-dev"]
        .iter()
        .find_map(|split| stem.strip_suffix(split).map(str::to_string))
        .unwrap_or(stem)
}

/// The question: the last sentence of the example.
fn question_of(example: &str) -> String {
    let text = example.trim();
    let body = text.trim_end_matches(['?', '.', '!']);
    let start = body.rfind(". ").map_or(0, |i| i + 2);
    text[start..].trim().to_string()
}

/// Characters allowed in ids (they become parts of file names).
fn id_part(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Reads one file; `level` overrides the level the file name implies.
pub fn load_items(path: &Path, level: Option<&str>) -> Result<LoadedItems, QaDataError> {
    let text = std::fs::read_to_string(path).map_err(|source| QaDataError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let format = |message: String| QaDataError::Format {
        path: path.to_path_buf(),
        message,
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        format(format!(
            "not JSON ({e}); BoardgameQA files are a JSON array of items"
        ))
    })?;
    let Value::Array(raw) = value else {
        return Err(format(
            "not a JSON array; BoardgameQA files are a JSON array of items".into(),
        ));
    };
    let level = level.map_or_else(|| level_of(path), str::to_string);
    let stem = id_part(
        &path
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default(),
    );
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for (index, item) in raw.iter().enumerate() {
        let field = |name: &str| item.get(name).and_then(Value::as_str);
        if let Some(missing) = FIELDS.iter().find(|f| field(f).is_none()) {
            skipped.push(format!(
                "item {index}: missing the text field \"{missing}\""
            ));
            continue;
        }
        let text = |name: &str| field(name).unwrap_or_default().to_string();
        let Some(label) = Label::parse(&text("label")) else {
            skipped.push(format!(
                "item {index}: label \"{}\" is not proved, disproved or unknown",
                text("label")
            ));
            continue;
        };
        items.push(QaItem {
            id: format!("{stem}-{index}"),
            level: level.clone(),
            index,
            facts: text("facts"),
            rules: text("rules"),
            preferences: text("preferences"),
            question: question_of(&text("example")),
            label,
            proof: text("proof"),
        });
    }
    if items.is_empty() {
        let first = skipped
            .first()
            .cloned()
            .unwrap_or_else(|| "it is empty".into());
        return Err(format(format!("no usable item ({first})")));
    }
    Ok(LoadedItems { items, skipped })
}

/// A seeded, label-stratified sample of `per_level` items from each level (0: every item),
/// each with its assignment. Within a level and label, successive items take turns at
/// which side is correct (A, B, A, B, …) and at who is read first (A, A, B, B, …), so
/// neither is confounded with correctness; the incorrect answer is the next label around
/// the source notebook's cycle (proved → disproved → unknown → proved), so each label is the
/// wrong answer against exactly one other. A seeded `both_wrong_share` of items gets the
/// next two labels, as the notebook's "both wrong" option does.
pub fn sample(
    items: &[QaItem],
    per_level: usize,
    seed: u64,
    both_wrong_share: f64,
) -> Vec<(QaItem, SampledItem)> {
    let mut levels: Vec<&str> = Vec::new();
    for item in items {
        if !levels.contains(&item.level.as_str()) {
            levels.push(&item.level);
        }
    }
    let mut out = Vec::new();
    for level in levels {
        let mut by_label: BTreeMap<Label, Vec<&QaItem>> = BTreeMap::new();
        for item in items.iter().filter(|i| i.level == level) {
            by_label.entry(item.label).or_default().push(item);
        }
        for (n, label) in Label::ALL.iter().enumerate() {
            let mut pool = by_label.remove(label).unwrap_or_default();
            let mut rng = seeded(seed, level, label.as_str());
            pool.shuffle(&mut rng);
            if per_level > 0 {
                let quota = per_level / 3 + usize::from(n < per_level % 3);
                pool.truncate(quota);
            }
            let wrong = (pool.len() as f64 * both_wrong_share).round() as usize;
            let mut order: Vec<usize> = (0..pool.len()).collect();
            order.shuffle(&mut seeded(
                seed,
                level,
                &format!("{}-wrong", label.as_str()),
            ));
            let both_wrong: Vec<usize> = order[..wrong].to_vec();
            for (k, item) in pool.into_iter().enumerate() {
                let assignment = assign(item.label, k, both_wrong.contains(&k));
                out.push((
                    k,
                    n,
                    item.clone(),
                    SampledItem {
                        item_id: item.id.clone(),
                        level: item.level.clone(),
                        index: item.index,
                        label: item.label,
                        assignment,
                    },
                ));
            }
        }
    }
    // Labels interleaved within each level, so a partial run stays balanced.
    out.sort_by(|a, b| {
        let level = |x: &(usize, usize, QaItem, SampledItem)| {
            items.iter().position(|i| i.level == x.2.level)
        };
        (level(a), a.0, a.1).cmp(&(level(b), b.0, b.1))
    });
    out.into_iter().map(|(_, _, item, s)| (item, s)).collect()
}

fn seeded(seed: u64, level: &str, what: &str) -> ChaCha8Rng {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in level.bytes().chain([0]).chain(what.bytes()) {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    ChaCha8Rng::seed_from_u64(hash)
}

/// The answers for the `k`-th sampled item of a label: the label against the next one
/// around the cycle, or with both wrong the next two.
fn assign(label: Label, k: usize, both_wrong: bool) -> Assignment {
    let wrong = label.next();
    let correct_side = if k.is_multiple_of(2) {
        Team::A
    } else {
        Team::B
    };
    let first = if (k / 2).is_multiple_of(2) {
        Team::A
    } else {
        Team::B
    };
    let (answer_a, answer_b, correct_side) = if both_wrong {
        let (x, y) = if k.is_multiple_of(2) {
            (wrong, wrong.next())
        } else {
            (wrong.next(), wrong)
        };
        (x, y, None)
    } else if correct_side == Team::A {
        (label, wrong, Some(Team::A))
    } else {
        (wrong, label, Some(Team::B))
    };
    Assignment {
        answer_a,
        answer_b,
        correct_side,
        first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(n: usize, label: Label) -> QaItem {
        QaItem {
            id: format!("t-{n}"),
            level: "L".into(),
            index: n,
            facts: String::new(),
            rules: String::new(),
            preferences: String::new(),
            question: String::new(),
            label,
            proof: String::new(),
        }
    }

    #[test]
    fn question_is_the_last_sentence() {
        assert_eq!(
            question_of(
                "A few players. The rules are as follows. Rule1: x. Based on the game, does the cat eat the dog?"
            ),
            "Based on the game, does the cat eat the dog?"
        );
        assert_eq!(question_of("Does it?"), "Does it?");
    }

    #[test]
    fn level_comes_from_the_file_name() {
        assert_eq!(
            level_of(Path::new("d/Main-depth2-test.json")),
            "Main-depth2"
        );
        assert_eq!(level_of(Path::new("qa-sample.json")), "qa-sample");
    }

    #[test]
    fn sample_is_stratified_balanced_and_reproducible() {
        let items: Vec<QaItem> = (0..90).map(|n| item(n, Label::ALL[n % 3])).collect();
        let s = sample(&items, 12, 7, 0.0);
        assert_eq!(s, sample(&items, 12, 7, 0.0));
        assert_ne!(s, sample(&items, 12, 8, 0.0));
        assert_eq!(s.len(), 12);
        for label in Label::ALL {
            let of: Vec<&SampledItem> = s
                .iter()
                .map(|x| &x.1)
                .filter(|x| x.label == label)
                .collect();
            assert_eq!(of.len(), 4);
            let count = |f: &dyn Fn(&SampledItem) -> bool| of.iter().filter(|x| f(x)).count();
            assert_eq!(count(&|x| x.assignment.correct_side == Some(Team::A)), 2);
            assert_eq!(count(&|x| x.assignment.first == Team::A), 2);
            // Correct side and first speaker are crossed: each of the four combinations once.
            assert_eq!(
                count(&|x| x.assignment.correct_side == Some(Team::A)
                    && x.assignment.first == Team::A),
                1
            );
            for x in &of {
                let a = x.assignment;
                assert_ne!(a.answer_a, a.answer_b);
                let correct = a.correct_side.map(|side| {
                    if side == Team::A {
                        a.answer_a
                    } else {
                        a.answer_b
                    }
                });
                assert_eq!(correct, Some(label));
            }
        }
        // Labels interleave: the first three are one of each.
        let first: std::collections::HashSet<Label> = s[..3].iter().map(|x| x.1.label).collect();
        assert_eq!(first.len(), 3);
    }

    /// The answer that is not the label (the wrong one, when one side is right).
    fn wrong_answer(x: &SampledItem) -> Label {
        let a = x.assignment;
        if a.answer_a == x.label {
            a.answer_b
        } else {
            a.answer_a
        }
    }

    #[test]
    fn wrong_answers_go_around_the_cycle_and_each_label_is_offered_wrong() {
        assert_eq!(
            Label::ALL.map(Label::next),
            [Label::Disproved, Label::Unknown, Label::Proved]
        );
        let items: Vec<QaItem> = (0..90).map(|n| item(n, Label::ALL[n % 3])).collect();
        for seed in 0..5 {
            let s = sample(&items, 12, seed, 0.0);
            assert_eq!(s.len(), 12);
            let mut offered_wrong: BTreeMap<Label, usize> = BTreeMap::new();
            for (_, x) in &s {
                assert_eq!(wrong_answer(x), x.label.next(), "{}", x.item_id);
                *offered_wrong.entry(wrong_answer(x)).or_default() += 1;
            }
            // Four items per label, each against the next label: each label is the wrong
            // answer four times, so a judge that always refuses one label cannot beat 50%.
            assert_eq!(
                offered_wrong.into_iter().collect::<Vec<_>>(),
                Label::ALL.map(|l| (l, 4)).to_vec(),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn both_wrong_share_hands_out_two_wrong_answers() {
        let items: Vec<QaItem> = (0..30).map(|n| item(n, Label::ALL[n % 3])).collect();
        let s = sample(&items, 0, 1, 0.5);
        let wrong: Vec<&SampledItem> = s
            .iter()
            .map(|x| &x.1)
            .filter(|x| x.assignment.correct_side.is_none())
            .collect();
        assert_eq!(wrong.len(), 15);
        assert!(
            wrong
                .iter()
                .all(|x| x.assignment.answer_a != x.label && x.assignment.answer_b != x.label)
        );
        // The next two labels around the cycle, sides alternating.
        for x in &wrong {
            let (a, b) = (x.assignment.answer_a, x.assignment.answer_b);
            assert!(
                (a, b) == (x.label.next(), x.label.next().next())
                    || (b, a) == (x.label.next(), x.label.next().next())
            );
        }
    }

    #[test]
    fn broken_items_are_reported_by_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Broken-depth1-test.json");
        let good = r#"{"facts":"F.","rules":"Rule1: r.","preferences":"","example":"F. Does it?","goal":"(a, b, c)","label":"proved","proof":"p","theory":"t"}"#;
        let missing = r#"{"facts":"F.","example":"x","goal":"g","label":"proved","proof":"p","theory":"t","preferences":""}"#;
        let bad_label = good.replace("\"proved\"", "\"maybe\"");
        std::fs::write(&path, format!("[{good},{missing},{bad_label}]")).unwrap();
        let loaded = load_items(&path, None).unwrap();
        assert_eq!(loaded.items.len(), 1);
        assert_eq!(loaded.items[0].id, "Broken-depth1-test-0");
        assert_eq!(loaded.items[0].level, "Broken-depth1");
        assert_eq!(loaded.items[0].question, "Does it?");
        assert_eq!(
            loaded.skipped,
            vec![
                "item 1: missing the text field \"rules\"".to_string(),
                "item 2: label \"maybe\" is not proved, disproved or unknown".to_string()
            ]
        );
        std::fs::write(&path, "{}").unwrap();
        assert!(
            load_items(&path, None)
                .unwrap_err()
                .to_string()
                .contains("not a JSON array")
        );
        std::fs::write(&path, format!("[{missing}]")).unwrap();
        assert!(
            load_items(&path, None)
                .unwrap_err()
                .to_string()
                .contains("no usable item (item 0")
        );
    }
}
