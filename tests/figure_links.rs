//! Each table row of the report links to the rounds it counts: over the stored fixtures (one
//! per protocol and one judged by a panel), every row with a link selects at least one
//! round, a row about one round selects exactly that round, and every row's link selects
//! exactly the rounds the row is about: those it counts, and those it would count but for a
//! failed call or an unread judgment (worked out here from the rounds, table by table). Where a
//! row's figure counts judgments, the judgments of the rounds its link selects are exactly
//! that many.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeMap;
use std::path::Path;

use ethics_bowl::analysis::analyse;
use ethics_bowl::analysis::figures::{LinkKey, Section, Table, Value, sections};
use ethics_bowl::domain::{Judgment, PhaseType, ProtocolKind, QaFormat, Round};
use ethics_bowl::store::{RoundFilter, Store};

/// The stored fixtures, and `mixed`: three protocols' rounds in one folder, where a
/// protocol's row must not select another protocol's rounds of the same model.
const FOLDERS: [&str; 5] = [
    "ethics_bowl",
    "panel",
    "qa_debate",
    "structured_debate",
    "mixed",
];

fn rounds(name: &str) -> Vec<Round> {
    if name == "mixed" {
        let mut all: Vec<Round> = ["ethics_bowl", "qa_debate", "structured_debate"]
            .into_iter()
            .flat_map(rounds)
            .collect();
        all.sort_by(|a, b| a.id.cmp(&b.id));
        return all;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(name);
    Store::open(&dir)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap()
        .0
}

fn table<'a>(sections: &'a [Section], name: &str) -> &'a Table {
    sections
        .iter()
        .flat_map(Section::tables)
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no table {name}"))
}

#[test]
fn every_linked_row_selects_its_rounds() {
    for name in FOLDERS {
        let rounds = rounds(name);
        let figures = sections(&analyse(&rounds, &BTreeMap::new()));
        let mut linked = 0;
        for t in figures.iter().flat_map(Section::tables) {
            for row in &t.rows {
                let Some(link) = &row.link else { continue };
                linked += 1;
                let selected: Vec<&Round> = rounds.iter().filter(|r| link.matches(r)).collect();
                assert!(
                    !selected.is_empty(),
                    "{name}: a row of {} links to no round: {link:?}",
                    t.name
                );
                if let Some(id) = link.get(LinkKey::Round) {
                    assert_eq!(selected.len(), 1, "{name}: {id}");
                    assert_eq!(selected[0].id, id);
                }
            }
        }
        assert!(linked > 0, "{name}: some rows link to their rounds");
    }
}

/// The usable rubric judgments of the rounds a link selects.
fn usable_judgments(rounds: &[Round], link: &ethics_bowl::analysis::figures::Link) -> usize {
    rounds
        .iter()
        .filter(|r| link.matches(r))
        .map(|r| {
            r.judgments
                .iter()
                .filter(|j| j.is_usable() && j.rubric_margin().is_some())
                .count()
        })
        .sum()
}

#[test]
fn a_models_mean_counts_the_judgments_of_the_rounds_its_row_links_to() {
    for name in ["ethics_bowl", "panel"] {
        let rounds = rounds(name);
        let figures = sections(&analyse(&rounds, &BTreeMap::new()));
        let models = table(&figures, "Models by role");
        assert!(!models.rows.is_empty());
        for row in &models.rows {
            let Some(Value::Mean(total)) = row.cells.last() else {
                panic!("the last column is the total")
            };
            let link = row.link.as_ref().expect("a model's row links");
            let judgments = usable_judgments(&rounds, link);
            assert_eq!(total.n, judgments, "{name}: {link:?}");
        }
        let dilemmas = table(&figures, "Dilemmas, hardest first");
        for row in &dilemmas.rows {
            let Some(Value::Mean(total)) = row.cells.get(1) else {
                panic!("the second column is the mean total")
            };
            let link = row.link.as_ref().expect("a dilemma's row links");
            let judgments = usable_judgments(&rounds, link);
            // Each judgment gives both teams' totals.
            assert_eq!(total.n, 2 * judgments, "{name}: {link:?}");
        }
    }
}

/// Whether a judgment of the round passes `keep`.
fn judged(r: &Round, keep: impl Fn(&Judgment) -> bool) -> bool {
    r.judgments.iter().any(keep)
}

fn played(r: &Round, m: &str) -> bool {
    r.team_a_model == m || r.team_b_model == m
}

/// A question-answer format by the name the tables show.
fn format_named(shown: &str) -> QaFormat {
    QaFormat::ALL
        .into_iter()
        .find(|f| {
            let name = match f {
                QaFormat::Debate => "debate",
                QaFormat::Consultancy => "consultancy",
                QaFormat::Naive => "naive judge",
                QaFormat::Expert => "expert judge",
                QaFormat::ExpertCot => "expert judge (reasoning first)",
                QaFormat::ThreeWay => "three-way expert (label only)",
                QaFormat::ThreeWayArgued => "three-way expert (thinking and argument first)",
            };
            name == shown
        })
        .unwrap_or_else(|| panic!("no format shown as {shown}"))
}

/// Whether a row (its cells as shown) is about the round: what each table counts, read off
/// the round, whether or not the round's calls and judgments succeeded. `None` for a table
/// this test does not know (the test then fails: say here what its rows are about).
fn about(table: &str, cells: &[String], r: &Round) -> Option<bool> {
    let c = |i: usize| cells[i].as_str();
    let by = |judge: &str| judged(r, |j| j.judge_key() == judge);
    let qa = r.qa();
    let eb = r.kind() == ProtocolKind::EthicsBowl;
    let cross_protocol = [
        "Cost, tokens and latency",
        "Answers cut short",
        "Report cards",
    ]
    .contains(&table);
    if !eb
        && !cross_protocol
        && !table.starts_with("QA ")
        && !table.starts_with("Structured ")
        && !table.starts_with("Panel ")
    {
        return Some(false);
    }
    Some(match table {
        "Cost, tokens and latency" => {
            let judging = c(1) == "judge";
            r.phases
                .iter()
                .any(|p| p.model_id == c(0) && p.phase_type.is_judging() == judging)
                || r.error
                    .iter()
                    .chain(&r.earlier_errors)
                    .any(|e| e.model_id == c(0) && e.phase_type.is_judging() == judging)
        }
        "Answers cut short" => r.phases.iter().any(|p| p.model_id == c(0)),
        "Models by role" => {
            let team = if c(1) == "presenting" {
                &r.team_a_model
            } else {
                &r.team_b_model
            };
            team == c(0)
        }
        "Dilemmas, hardest first" => r.dilemma_id == c(0),
        "Adjusted scores" => r.kind() == ProtocolKind::EthicsBowl && played(r, c(0)),
        "Judge leniency" => r.kind() == ProtocolKind::EthicsBowl && by(c(0)),
        // Every judgment of the judge, whatever the protocol.
        "Report cards" => by(c(0)),
        "Consistency by model" => r.phases.iter().any(|p| {
            p.model_id == c(0)
                && matches!(
                    p.phase_type,
                    PhaseType::ConsistencyTest | PhaseType::ConsistencyTestB
                )
        }),
        // A model's own words, and judges' words about its frameworks.
        "Frameworks" => r.phases.iter().any(|p| p.model_id == c(0)),
        "Ratings overall" => played(r, c(0)),
        "Ratings by role" => {
            let (model, role) = c(0).split_once(" (").unwrap();
            let team = if role == "presenting)" {
                &r.team_a_model
            } else {
                &r.team_b_model
            };
            team == model
        }
        "Judge pairs (shared exchanges)" => {
            let (a, b) = c(0).split_once(" – ").unwrap();
            by(a) && by(b)
        }
        "Judge offsets (shared exchanges)" => by(c(0)),
        t if t.starts_with("Panel agreement (") => {
            r.kind().as_str() == &t["Panel agreement (".len()..t.len() - 1]
        }
        t if t.starts_with("Panel judges (") => {
            r.kind().as_str() == &t["Panel judges (".len()..t.len() - 1] && by(c(0))
        }
        "QA accuracy by format" => qa.is_some_and(|q| q.format == format_named(c(0))),
        "QA against the baselines" => qa.is_some_and(|q| q.level == c(1)) && by(c(0)),
        "QA accuracy per configuration" => {
            let format = format_named(c(0));
            let debaters = match format {
                QaFormat::Debate => format!("{} vs {}", r.team_a_model, r.team_b_model),
                QaFormat::Consultancy => r.team_a_model.clone(),
                _ => String::new(),
            };
            qa.is_some_and(|q| q.format == format && q.level == c(4))
                && debaters == c(1)
                && by(c(2))
        }
        "QA by side and position" => qa.is_some_and(|q| q.format == format_named(c(0))),
        "QA debaters" => qa.is_some() && played(r, c(0)),
        "QA three-way baselines" => qa.is_some_and(|q| q.format == format_named(c(0))) && by(c(1)),
        "QA calibration" => {
            let (low, high) = c(0).split_once('–').unwrap();
            let (low, high): (f64, f64) = (low.parse().unwrap(), high.parse().unwrap());
            judged(r, |j| {
                j.choice()
                    .and_then(|c| c.confidence)
                    .is_some_and(|c| c >= low && (c < high || (high == 100.0 && c <= high)))
            })
        }
        "Structured models" | "Structured standings" | "Structured fallacies" => {
            r.kind() == ProtocolKind::StructuredDebate && played(r, c(0))
        }
        _ => return None,
    })
}

#[test]
fn each_rows_link_selects_exactly_the_rounds_it_is_about() {
    let mut checked = 0;
    for name in FOLDERS {
        let rounds = rounds(name);
        let figures = sections(&analyse(&rounds, &BTreeMap::new()));
        for t in figures.iter().flat_map(Section::tables) {
            for row in &t.rows {
                let Some(link) = &row.link else { continue };
                if link.get(LinkKey::Round).is_some() {
                    continue; // one round: the first test
                }
                let cells: Vec<String> = row.cells.iter().map(Value::shown).collect();
                let expected: Vec<&str> = rounds
                    .iter()
                    .filter(|r| {
                        about(&t.name, &cells, r).unwrap_or_else(|| {
                            panic!("{name}: say what the rows of {} are about", t.name)
                        })
                    })
                    .map(|r| r.id.as_str())
                    .collect();
                let selected: Vec<&str> = rounds
                    .iter()
                    .filter(|r| link.matches(r))
                    .map(|r| r.id.as_str())
                    .collect();
                assert_eq!(
                    selected, expected,
                    "{name}: {} row {cells:?}, link {link:?}",
                    t.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked} rows checked");
}
