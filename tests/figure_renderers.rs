//! Every table of every protocol's report is drawn by each renderer: `report.md` and
//! `report.html` hold one table per table of the figure model that has rows (the Analysis
//! screen's renderer is checked beside it, in `src/tui/views/figures.rs`), and each table's
//! CSV file is written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use ethics_bowl::analysis::analyse;
use ethics_bowl::analysis::figures::{Section, sections};
use ethics_bowl::store::{RoundFilter, Store};

const FOLDERS: [&str; 4] = ["ethics_bowl", "panel", "qa_debate", "structured_debate"];

#[test]
fn every_table_is_in_the_markdown_the_page_and_its_csv() {
    for name in FOLDERS {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/stored-v0")
            .join(name);
        let rounds = Store::open(&dir)
            .unwrap()
            .load_rounds(&RoundFilter::default())
            .unwrap()
            .0;
        let figures = sections(&analyse(&rounds, &BTreeMap::new()));
        let tables: Vec<_> = figures.iter().flat_map(Section::tables).collect();
        let drawn = tables.iter().filter(|t| !t.rows.is_empty()).count();
        assert!(drawn > 0, "{name}");

        let out = tempfile::tempdir().unwrap();
        let status = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
            .arg("report")
            .arg(&dir)
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap();
        assert!(status.status.success(), "{name}");
        let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
        let md_tables = md.lines().filter(|l| l.starts_with("|---")).count();
        assert_eq!(md_tables, drawn, "{name}: tables in report.md");
        let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
        assert_eq!(
            html.matches("<table>").count(),
            drawn,
            "{name}: tables in report.html"
        );
        for t in &tables {
            if let Some(tidy) = &t.tidy {
                assert!(
                    out.path().join(&tidy.file).is_file(),
                    "{name}: {} of {}",
                    tidy.file,
                    t.name
                );
            }
        }
        // Every section heading is in both.
        for s in &figures {
            assert!(
                md.contains(&format!("## {}\n", s.title)),
                "{name}: {}",
                s.title
            );
            let escaped = s.title.replace('&', "&amp;").replace('\'', "&#39;");
            assert!(html.contains(&escaped), "{name}: {}", s.title);
        }
    }
}
