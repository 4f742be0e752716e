//! Model text is untrusted: whatever bytes a model writes, the JSON the tool prints or
//! stores holds no raw C1 or bidirectional control, and reads back as exactly what the model
//! wrote.

use std::io::Write;
use std::process::{Command, Stdio};

use ethics_bowl::domain::Round;
use ethics_bowl::store::Store;

const HOSTILE: &str =
    "Fine.\u{9b}31m\u{9d}0;title\u{7} \u{202e}txt.exe\u{202c} \u{1b}[2J\u{2066}x\u{2069}";

fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| {
            matches!(*c, '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
                || (c.is_control() && *c != '\n')
        })
        .collect()
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

#[test]
fn rounds_json_and_round_files_hold_no_raw_controls_and_read_back_exactly() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0/ethics_bowl/rounds/borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    let mut round: Round =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    round.phases[0].response = HOSTILE.to_string();
    round.judgments[0].raw_response = HOSTILE.to_string();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    store.save_round(&round).unwrap();

    let file = std::fs::read_to_string(store.round_path(&round.id).unwrap()).unwrap();
    assert!(
        raw_controls(&file).is_empty(),
        "round file: {:?}",
        raw_controls(&file)
    );
    let back = store.load_round(&round.id).unwrap().unwrap();
    assert_eq!(
        back.phases[0].response, HOSTILE,
        "stored text is the model's, exactly"
    );

    let out = bin()
        .args(["rounds", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        raw_controls(&stdout).is_empty(),
        "rounds --json: {:?}",
        raw_controls(&stdout)
    );
    let listed: Vec<Round> = serde_json::from_str(&stdout).unwrap();
    assert_eq!(listed[0].judgments[0].raw_response, HOSTILE);
}

#[test]
fn judgment_parse_json_holds_no_raw_controls() {
    let mut child = bin()
        .args(["judgment", "parse", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text = format!("Overall analysis: {HOSTILE}\nTeam A principle_articulation: 8\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.is_empty());
    assert!(
        raw_controls(&stdout).is_empty(),
        "{:?}",
        raw_controls(&stdout)
    );
}

#[test]
fn report_files_hold_no_raw_controls() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0/ethics_bowl/rounds/borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    let mut round: Round =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    round.phases[0].response =
        format!("Analysis.\nGuiding principle: {HOSTILE}\nTentative conclusion: {HOSTILE}");
    round.judgments[0].overall_analysis = HOSTILE.to_string();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    store.save_round(&round).unwrap();
    let out = dir.path().join("report");
    let done = bin()
        .arg("report")
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(done.status.success());
    let mut checked = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            raw_controls(&text).is_empty(),
            "{}: {:?}",
            path.display(),
            raw_controls(&text)
        );
        checked += 1;
    }
    assert!(
        checked >= 4,
        "report.md, analysis.json and the CSVs were written"
    );
    let consistency = std::fs::read_to_string(out.join("consistency.csv")).unwrap();
    assert!(
        consistency.contains("txt.exe"),
        "the principle is quoted: {consistency}"
    );
}
