//! Each table row of the report links to the rounds it counts: over the stored fixtures (one
//! per protocol and one judged by a panel), every row with a link selects at least one
//! round, a row about one round selects exactly that round, and where a row's figure counts
//! judgments, the judgments of the rounds its link selects are exactly that many.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeMap;
use std::path::Path;

use ethics_bowl::analysis::analyse;
use ethics_bowl::analysis::figures::{LinkKey, Section, Table, Value, sections};
use ethics_bowl::domain::Round;
use ethics_bowl::store::{RoundFilter, Store};

const FOLDERS: [&str; 4] = ["ethics_bowl", "panel", "qa_debate", "structured_debate"];

fn rounds(name: &str) -> Vec<Round> {
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
