//! Answers recorded from the real local model (SmolLM2-135M behind llama-cpp-python 0.3.36,
//! as `../shared/tools/local-llm/serve.sh` starts it), read without a server: every recorded
//! judgment whose scores are all there is read whole, whatever its free text holds. Among
//! them, answers of the kind that once failed CI: complete judgments whose text runs on over
//! raw newlines, which strict JSON forbids. The live tests in
//! `tests/local_model.rs` meet whatever the model answers that day; these pin what it has
//! answered. `tests/fixtures/llama-cpp-python/README.md` says how each was recorded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::PathBuf;
use std::process::Command;

use ethics_bowl::domain::{Criterion, ParseStatus};
use ethics_bowl::protocols::judging::parse_judgment;
use support::tournament::manifest;

/// Every recorded answer whose name starts with `prefix`, with its file name.
fn answers(prefix: &str) -> Vec<(String, String)> {
    let dir = manifest("tests/fixtures/llama-cpp-python/answers");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no recorded answer named {prefix}* in {}",
        dir.display()
    );
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Whether `text` holds a raw control character inside a JSON string.
fn raw_control_in_a_string(text: &str) -> bool {
    let (mut inside, mut escaped) = (false, false);
    for c in text.chars() {
        match (inside, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => inside = !inside,
            (true, false, c) if c < ' ' => return true,
            _ => {}
        }
    }
    false
}

#[test]
fn every_recorded_ethics_bowl_judgment_is_read_whole() {
    for (name, text) in answers("ethics-bowl-judgment-") {
        let p = parse_judgment(&text);
        assert_eq!(p.status(), ParseStatus::Parsed, "{name}: {:?}", p.problems);
        for c in Criterion::ALL {
            for (team, scores) in [("A", &p.team_a), ("B", &p.team_b)] {
                let s = scores.get(c);
                assert!(
                    s.is_some_and(|s| (1.0..=10.0).contains(&s)),
                    "{name}: Team {team} {}: {s:?}",
                    c.key()
                );
            }
        }
        assert!(
            !p.overall_analysis.trim().is_empty(),
            "{name}: the analysis is kept"
        );
    }
}

/// An answer of the kind CI failed on, through the command a user runs on it: read
/// `complete`, its text kept with the line breaks the model wrote.
#[test]
fn the_judgment_with_raw_newlines_in_a_string_is_read_complete_by_judgment_parse() {
    let (name, text) = answers("ethics-bowl-judgment-raw-newlines")
        .into_iter()
        .next()
        .unwrap();
    assert!(
        raw_control_in_a_string(&text),
        "{name} holds raw newlines in a string"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args(["judgment", "parse", "--json"])
        .arg(manifest(&format!(
            "tests/fixtures/llama-cpp-python/answers/{name}"
        )))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(read["status"], "complete", "{read}");
    for team in ["team_a_scores", "team_b_scores"] {
        let scores = read[team].as_object().unwrap();
        assert!(scores.values().all(|s| s.is_number()), "{team}: {scores:?}");
    }
    let texts = [
        "team_a_justification",
        "team_b_justification",
        "overall_analysis",
    ];
    assert!(
        texts
            .iter()
            .any(|t| read[t].as_str().is_some_and(|a| a.contains('\n'))),
        "the text keeps the line breaks the model wrote: {read}"
    );
}

#[test]
fn every_recorded_question_answer_verdict_is_read() {
    use ethics_bowl::protocols::qa_debate::verdict::read_verdict;
    for (name, text) in answers("qa-judgment-") {
        let read = read_verdict(&text);
        assert!(read.side.is_some(), "{name}: {:?}", read.problems);
        assert!(read.confidence.is_some(), "{name}: {:?}", read.problems);
        assert!(read.problems.is_empty(), "{name}: {:?}", read.problems);
    }
}

#[test]
fn every_recorded_structured_verdict_is_read_whole() {
    use ethics_bowl::protocols::structured_debate::parse::parse_verdict;
    let ids: Vec<String> = ["PRO-1", "PRO-2", "CON-1", "CON-2"]
        .map(String::from)
        .to_vec();
    for (name, text) in answers("structured-verdict-") {
        let (verdict, problems) = parse_verdict(&text, &ids);
        let verdict = verdict.unwrap_or_else(|| panic!("{name}: {problems:?}"));
        assert_eq!(verdict.assessments.len(), ids.len(), "{name}: {problems:?}");
        assert!(problems.is_empty(), "{name}: {problems:?}");
    }
}
