//! The report of each stored fixture (one per protocol and one judged by a panel) is the same,
//! byte for byte, as the files in `tests/fixtures/golden/` (see its README): report.md, every
//! CSV, analysis.json, the SVG charts and report.html. No file is missing and none is added.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const FOLDERS: [&str; 4] = ["ethics_bowl", "panel", "qa_debate", "structured_debate"];

fn manifest(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "README.md")
        .collect()
}

#[test]
fn every_file_of_every_report_is_the_same_as_the_golden_one() {
    for name in FOLDERS {
        let out = tempfile::tempdir().unwrap();
        let status = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("report")
            .arg(manifest(&format!("tests/fixtures/stored-v0/{name}")))
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        let golden = manifest(&format!("tests/fixtures/golden/{name}"));
        assert_eq!(
            files(out.path()),
            files(&golden),
            "{name}: the files written"
        );
        for file in files(&golden) {
            let now = std::fs::read(out.path().join(&file)).unwrap();
            let before = std::fs::read(golden.join(&file)).unwrap();
            if now != before {
                let (now, before) = (
                    String::from_utf8_lossy(&now),
                    String::from_utf8_lossy(&before),
                );
                let line = now
                    .lines()
                    .zip(before.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(now.lines().count().min(before.lines().count()));
                panic!(
                    "{name}/{file} differs from the golden file at line {}:\n now:    {:?}\n before: {:?}",
                    line + 1,
                    now.lines().nth(line),
                    before.lines().nth(line)
                );
            }
        }
    }
}
