//! The tournament as a user runs it: the whole sample headless, killed with SIGKILL part-way
//! and resumed, bad configurations refused with exit code 2 and nothing written, and the
//! `judgment parse`, `rounds` and `dilemmas` commands.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use ethics_bowl::domain::{RoundStatus, Scores, Team};
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::{sim, write};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    // `run` logs to the default log file: keep it out of the user's data folder.
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("ethics-bowl-test-data"),
    );
    c
}

fn output(c: &mut Command) -> (Output, String, String) {
    let out = c.output().expect("runs");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    (out, o, e)
}

/// The sample's three models and settings, streaming as fast as possible (the text does not
/// depend on the rate, so the rounds are those of the sample).
fn sample_models(tokens_per_second: f64) -> String {
    [
        sim("sim-alpha", 0.85, tokens_per_second, 0.15),
        sim("sim-beta", 0.6, tokens_per_second, 0.15),
        sim("sim-gamma", 0.4, tokens_per_second, 0.2),
    ]
    .concat()
}

const SAMPLE_TOURNAMENT: &str = "models = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\njudges = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\nmax_concurrency = 8\n";

#[test]
fn the_whole_sample_tournament_headless() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), &sample_models(0.0), SAMPLE_TOURNAMENT);
    let (out, stdout, stderr) = output(bin().args(["run", "--headless"]).arg(&config));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("42 rounds:"), "{stdout}");
    assert!(
        stdout.contains("sim-alpha") && stdout.contains("mean /70"),
        "{stdout}"
    );
    let results = dir.path().join("results/test");
    for file in ["tournament.json", "summary.json"] {
        assert!(results.join(file).is_file(), "{file}");
    }
    let store = Store::open(&results).unwrap();
    let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
    assert!(errors.is_empty());
    assert_eq!(rounds.len(), 42);
    assert!(rounds.iter().all(|r| r.status != RoundStatus::Incomplete));
    assert!(
        rounds.iter().any(|r| r.status == RoundStatus::NeedsReview),
        "at least one review-flagged round"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["rounds"], 42);
    assert!(
        summary["matrix"]["sim-alpha"]["sim-beta"]["n"]
            .as_u64()
            .is_some()
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(record["status"], "finished");
    assert_eq!(record["schedule"].as_array().unwrap().len(), 42);
    // Its judges are its debaters, so each ordered pairing has one judge free to score it:
    // the confound is said on stderr and kept in tournament.json, and the report opens with it.
    let confound = "judge confound: 6 of 6 ordered pairings are scored by one judge only";
    assert!(stderr.contains(&format!("warning: {confound}")), "{stderr}");
    assert!(
        record["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with(confound)),
        "{}",
        record["warnings"]
    );

    // The report of the same results parses back.
    let (out, stdout, stderr) = output(bin().arg("report").arg(&results));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("report.md"));
    let report = results.join("report");
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(
        md.contains(
            "## Warnings from the run\n\nAs `tournament.json` records them. A *judge confound*"
        ) && md
            .contains("- **judge confound**: 6 of 6 ordered pairings are scored by one judge only"),
        "{md}"
    );
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(
        html.contains("Warnings from the run")
            && html.contains("<strong>judge confound</strong>: 6 of 6 ordered pairings"),
        "report.html"
    );
    for heading in [
        "## Model comparison by role",
        "## Dilemma difficulty",
        "## Consistency",
        "## Framework usage",
        "## Judge agreement",
    ] {
        assert!(md.contains(heading), "{heading}");
    }
    let analysis: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("analysis.json")).unwrap())
            .unwrap();
    assert_eq!(analysis["rounds"], 42);
    assert_eq!(analysis["dilemma_difficulty"].as_array().unwrap().len(), 7);
    for (file, columns) in [
        ("model_comparison.csv", 8),
        ("dilemma_difficulty.csv", 12),
        ("consistency.csv", 9),
        ("framework_usage.csv", 8),
        ("judge_agreement.csv", 8),
    ] {
        let text = std::fs::read_to_string(report.join(file)).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap().split(',').count(), columns, "{file}");
        // Rotating judges never score the same exchange twice: agreement has no rows.
        assert_eq!(
            lines.next().is_some(),
            file != "judge_agreement.csv",
            "{file}"
        );
    }
    for chart in [
        "ratings.svg",
        "criteria_profile.svg",
        "dilemma_difficulty.svg",
        "judge_agreement.svg",
    ] {
        let text = std::fs::read_to_string(report.join(chart)).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{chart}: {e}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg", "{chart}");
    }
    let ratings = std::fs::read_to_string(report.join("ratings.svg")).unwrap();
    assert!(
        ratings.contains("sim-alpha") && ratings.contains("<circle"),
        "a dot per model"
    );
    let comparison = std::fs::read_to_string(report.join("model_comparison.csv")).unwrap();
    assert_eq!(
        comparison.lines().count(),
        1 + 3 * 2 * 8,
        "3 models × 2 roles × (7 criteria + total)"
    );
}

fn stored_phases(results: &Path) -> Vec<(String, Vec<ethics_bowl::domain::Phase>)> {
    match Store::open(results).and_then(|s| s.load_rounds(&RoundFilter::default())) {
        Ok((rounds, _)) => rounds.into_iter().map(|r| (r.id, r.phases)).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn killed_part_way_then_resumed_loses_nothing_stored() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), &sample_models(3000.0), SAMPLE_TOURNAMENT);
    let results: PathBuf = dir.path().join("results/test");
    let mut child = bin()
        .args(["run", "--headless"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let finished = stored_phases(&results)
            .iter()
            .filter(|(_, p)| p.len() == 6)
            .count();
        if finished >= 5 {
            break;
        }
        assert!(Instant::now() < deadline, "the run made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    let before = stored_phases(&results);
    assert!(
        before.len() < 42 || before.iter().any(|(_, p)| p.len() < 6),
        "killed before the end"
    );

    let (out, stdout, stderr) = output(bin().args(["run", "--resume"]).arg(&results));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("42 rounds:"), "{stdout}");
    let after = stored_phases(&results);
    assert_eq!(after.len(), 42);
    for (id, phases) in &before {
        let (_, now) = after.iter().find(|(i, _)| i == id).unwrap();
        for p in phases {
            assert!(
                now.contains(p),
                "{id}: a phase stored before the kill was sent again"
            );
        }
    }
    let store = Store::open(&results).unwrap();
    let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    assert!(
        rounds.iter().all(|r| r.status != RoundStatus::Incomplete),
        "every round finished"
    );
}

#[test]
fn bad_tournament_configurations_exit_2_and_write_nothing() {
    let models = sample_models(0.0)
        + "[[models]]\nname = \"real\"\nprovider = \"openai\"\nmodel = \"gpt-x\"\napi_key_env = \"EB_TEST_NEVER_SET_KEY\"\n";
    let cases: [(&str, &[&str]); 7] = [
        (
            "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\nbatch = true\n",
            &[
                "batch mode",
                "none of the models called",
                "sim-alpha",
                "openai, anthropic and google",
            ],
        ),
        (
            "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\nbatch_poll_max_s = 0\n",
            &["key \"batch_poll_max_s\"", "not a positive number"],
        ),
        (
            "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\nrepetition = 2\n",
            &["tournament.toml, repetition: unknown field", "(line 7)"],
        ),
        (
            "models = [\"sim-alpha\", \"nobody\"]\njudges = [\"sim-gamma\"]\n",
            &["key \"models\"", "\"nobody\" is not defined", "sim-alpha"],
        ),
        (
            "models = [\"sim-alpha\", \"real\"]\njudges = [\"sim-gamma\"]\n",
            &["EB_TEST_NEVER_SET_KEY", "not set"],
        ),
        (
            "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\ndilemmas = [\"no_such_case\"]\n",
            &["key \"dilemmas\"", "no_such_case", "borrowed_voice"],
        ),
        (
            "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-alpha\"]\n",
            &["no judge can score"],
        ),
    ];
    for (tournament, needles) in cases {
        let dir = tempfile::tempdir().unwrap();
        let config = write(dir.path(), &models, tournament);
        let (out, _, stderr) = output(
            bin()
                .args(["run", "--headless"])
                .arg(&config)
                .env_remove("EB_TEST_NEVER_SET_KEY"),
        );
        assert_eq!(out.status.code(), Some(2), "{tournament}: {stderr}");
        for n in needles {
            assert!(stderr.contains(n), "{n:?} missing from {stderr}");
        }
        assert!(
            !dir.path().join("results").exists(),
            "nothing written for {tournament}"
        );
    }
    let (out, _, stderr) = output(bin().args(["run", "no/such/tournament.toml"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("no/such/tournament.toml"));
}

#[test]
fn judgment_parse_prints_json_with_the_spec_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("judge.txt");
    std::fs::write(
        &file,
        "Scores:\n| Criterion | Team A | Team B |\n|---|---|---|\n| Consistency | 8 | 6/10 |\n",
    )
    .unwrap();
    let (out, stdout, stderr) = output(bin().args(["judgment", "parse", "--json"]).arg(&file));
    assert_eq!(out.status.code(), Some(1), "a partial reading exits 1");
    assert!(
        stderr.contains("not every score was read (partial): 2 of 14 scores read"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["status"], "partial");
    assert_eq!(v["team_a_scores"]["consistency"], 8.0);
    assert_eq!(v["team_b_scores"]["consistency"], 6.0);
    assert!(v["team_a_scores"]["principle_articulation"].is_null());
    assert!(
        v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().contains("missing"))
    );
    let (out, stdout, _) = output(bin().args(["judgment", "parse"]).arg(&file));
    assert!(stdout.starts_with("status: partial"), "{stdout}");
    assert_eq!(out.status.code(), Some(1));

    let scores: Vec<String> = ethics_bowl::domain::Criterion::ALL
        .iter()
        .map(|c| format!("\"{}\": 7", c.key()))
        .collect();
    std::fs::write(
        &file,
        format!(
            "{{\"team_a_scores\": {{{0}}}, \"team_b_scores\": {{{0}}}}}",
            scores.join(", ")
        ),
    )
    .unwrap();
    let (out, stdout, stderr) = output(bin().args(["judgment", "parse"]).arg(&file));
    assert!(out.status.success(), "all fourteen read: {stdout}{stderr}");
    assert!(stdout.starts_with("status: complete"), "{stdout}");
}

#[test]
fn dilemmas_command_reads_the_sample_document() {
    let (out, stdout, stderr) =
        output(bin().args(["dilemmas", "sample-config/dilemmas.docx", "--json"]));
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 7);
    for d in list {
        for key in [
            "id",
            "title",
            "category",
            "core_scenario",
            "complications",
            "questions",
            "asymmetric_features",
            "consistency_case",
        ] {
            assert!(d.get(key).is_some(), "{key}");
        }
        assert!(!d["questions"].as_array().unwrap().is_empty());
        assert!(!d["complications"].as_array().unwrap().is_empty());
    }
    assert!(
        !stderr.contains("warning"),
        "the sample has every section: {stderr}"
    );
    assert!(
        stderr.contains("skipped before the first dilemma") && stderr.contains("Sample Dilemmas"),
        "the document's title is named as front matter: {stderr}"
    );
}

fn predecessor() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/predecessor");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIPPED: ../shared/data/predecessor is absent");
        None
    }
}

#[test]
fn the_predecessors_rounds_load_and_filter() {
    let Some(dir) = predecessor() else { return };
    let store = Store::open(&dir).unwrap();
    let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rounds.len(), 16);
    for r in &rounds {
        let j = r.scores.as_ref().expect("judgment moved under scores");
        assert_eq!(j.scores(Team::A).map(Scores::count), Some(7), "{}", r.id);
        assert!(!j.raw_response.is_empty());
        assert!(r.phases.iter().all(|p| p.latency_ms.is_some()));
    }
    let (out, stdout, _) = output(bin().args(["rounds"]).arg(&dir).args([
        "--model",
        "gpt-5.2",
        "--role",
        "presenting",
    ]));
    assert!(out.status.success());
    assert!(stdout.contains("4 rounds"), "{stdout}");
    // `open` shows them: every round in the matrix, the one with a parse error in review.
    let app = ethics_bowl::tui::browse("predecessor", &rounds, std::time::Instant::now());
    assert_eq!(app.mirror.rounds.len(), 16);
    assert_eq!(app.shown().review_len(), 1);
    assert!(app.mirror.totals().input_tokens > 0);
    // Our parser reads the predecessor's judge texts to the scores it stored, except where
    // it recorded a parse error and stored a default: those rounds go to review.
    for r in &rounds {
        let stored = r.scores.as_ref().unwrap();
        let parsed = ethics_bowl::protocols::judging::parse_judgment(&stored.raw_response);
        if stored.problems.is_empty() {
            assert_eq!(Some(&parsed.team_a), stored.scores(Team::A), "{}", r.id);
            assert_eq!(Some(&parsed.team_b), stored.scores(Team::B), "{}", r.id);
            assert_eq!(r.status, RoundStatus::Complete);
        } else {
            assert_eq!(r.status, RoundStatus::NeedsReview, "{}", r.id);
            assert_eq!(
                parsed.status(),
                ethics_bowl::domain::ParseStatus::Partial,
                "{}",
                r.id
            );
        }
    }
}

#[test]
fn one_round_prints_as_markdown_and_an_unknown_id_names_the_closest() {
    let Some(dir) = predecessor() else { return };
    let store = Store::open(&dir).unwrap();
    let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    let round = &rounds[0];
    let (out, md, stderr) =
        output(
            bin()
                .args(["rounds"])
                .arg(&dir)
                .args(["--round", round.id.as_str(), "--markdown"]),
        );
    assert!(out.status.success(), "{stderr}");
    assert!(md.starts_with(&format!("# Round {}\n", round.id)), "{md}");
    for heading in [
        "## Presentation",
        "## Response",
        "## Rebuttal",
        "## Judgments",
    ] {
        assert!(md.contains(heading), "{heading} missing:\n{md}");
    }
    assert!(md.contains("| **total** |"), "{md}");
    let first_line = round.phases[0]
        .response
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap();
    assert!(
        md.contains(&format!("> {}", first_line.trim_end())),
        "model text is quoted"
    );
    let typo = format!("{}x", round.id);
    let (out, _, stderr) = output(
        bin()
            .args(["rounds"])
            .arg(&dir)
            .args(["--round", typo.as_str()]),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("the closest") && stderr.contains(&round.id),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_stops_and_says_how_to_resume() {
    stops_and_says_how_to_resume("-INT");
}

/// SIGTERM, as `timeout` and `docker stop` send it, stops a headless run as Ctrl-C does.
#[test]
fn sigterm_stops_and_says_how_to_resume() {
    stops_and_says_how_to_resume("-TERM");
}

/// A headless run sent `signal` part-way: exit 130 with the resume command, every round
/// counted, and the record saying `cancelled`, never `running`.
fn stops_and_says_how_to_resume(signal: &str) {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), &sample_models(1500.0), SAMPLE_TOURNAMENT);
    let results: PathBuf = dir.path().join("results/test");
    let child = bin()
        .args(["run", "--headless"])
        .arg(&config)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while stored_phases(&results)
        .iter()
        .filter(|(_, p)| p.len() == 6)
        .count()
        < 2
    {
        assert!(Instant::now() < deadline, "the run made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("Resume with: ethics-bowl run --resume"),
        "{stderr}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("summary.json")).unwrap())
            .unwrap();
    let not_started = summary["not_started"].as_u64().unwrap();
    assert_eq!(
        summary["rounds"], 42,
        "every round of the schedule is counted"
    );
    assert!(not_started > 0, "rounds never begun are counted: {summary}");
    // Printed in the one vocabulary: what did not fail waits, queued.
    let failed = summary["unfinished"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u.get("error").is_some_and(|e| !e.is_null()))
        .count() as u64;
    let queued = not_started + summary["incomplete"].as_u64().unwrap() - failed;
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("{queued} queued")),
        "the printed summary names them"
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(record["status"], "cancelled");
    assert!(
        stored_phases(&results).len() < 42
            || stored_phases(&results).iter().any(|(_, p)| p.len() < 6)
    );
}

#[test]
fn the_report_on_the_predecessors_run_matches_its_files() {
    let Some(dir) = predecessor() else { return };
    let out = tempfile::tempdir().unwrap();
    let (status, stdout, stderr) =
        output(bin().arg("report").arg(&dir).arg("--out").arg(out.path()));
    assert!(status.status.success(), "{stderr}");
    assert!(stdout.contains("report.md") && stdout.contains("ratings.svg"));
    // Totals straight from the files: per model and role, the mean of the judgment's seven
    // scores summed, over rounds whose judgment the predecessor parsed without error.
    let mut expected: std::collections::BTreeMap<(String, &str), Vec<f64>> = Default::default();
    for entry in std::fs::read_dir(dir.join("rounds")).unwrap() {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        let j = &v["judgment"];
        if j["parse_errors"].as_array().is_some_and(|e| !e.is_empty()) {
            continue;
        }
        for (team, role, model) in [
            ("team_a_scores", "presenting", "team_a_model"),
            ("team_b_scores", "responding", "team_b_model"),
        ] {
            let total: f64 = j[team]
                .as_object()
                .unwrap()
                .values()
                .map(|s| s.as_f64().unwrap())
                .sum();
            expected
                .entry((v[model].as_str().unwrap().to_string(), role))
                .or_default()
                .push(total);
        }
    }
    let analysis: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("analysis.json")).unwrap())
            .unwrap();
    let rows = analysis["model_comparison"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len());
    for row in rows {
        let key = (
            row["model"].as_str().unwrap().to_string(),
            row["role"].as_str().unwrap(),
        );
        let want = &expected[&(key.0.clone(), key.1)];
        let mean = want.iter().sum::<f64>() / want.len() as f64;
        assert!(
            (row["total"]["mean"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{key:?}"
        );
        assert_eq!(
            row["total"]["n"].as_u64().unwrap() as usize,
            want.len(),
            "{key:?}"
        );
    }
}

/// Two stored folders whose judgments differ in known ways, compared by the command.
#[test]
fn compare_shows_the_changes_between_two_folders() {
    use ethics_bowl::domain::{Criterion, Judgment, Reading, RoundRecord, ScheduledRound};
    let round = |id: &str, a: f64, b: f64| {
        let mut r = ethics_bowl::protocols::blank_round(
            &ScheduledRound {
                round_id: id.into(),
                dilemma_id: "d".into(),
                repetition: 1,
                team_a: "x".into(),
                team_b: "y".into(),
                judges: vec!["j".into()],
                format: None,
                relation: None,
            },
            RoundRecord::EthicsBowl,
        );
        let scores = |v: f64| {
            let mut s = Scores::default();
            for c in Criterion::ALL {
                s.set(c, Some(v));
            }
            s
        };
        r.judgments.push(Judgment::new(
            "j",
            Reading::Rubric {
                team_a: scores(a),
                team_b: scores(b),
            },
        ));
        r
    };
    let (a, b, out) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let sa = Store::create(a.path()).unwrap();
    let sb = Store::create(b.path()).unwrap();
    for r in [round("r1", 8.0, 6.0), round("r2", 6.0, 7.0)] {
        sa.save_round(&r).unwrap();
    }
    for r in [round("r1", 8.0, 5.0), round("r2", 7.0, 6.0)] {
        sb.save_round(&r).unwrap();
    }
    let (o, stdout, stderr) = output(
        bin()
            .arg("compare")
            .arg(a.path())
            .arg(b.path())
            .arg("--out")
            .arg(out.path()),
    );
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("2 judgments usable in both"), "{stdout}");
    assert!(
        stdout.contains("| verdicts that flipped | 1 of 2 (50%) |"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "| mean absolute change of the margin | 10.50 (n=2, too few for an interval) |"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("| r2 | j | Team B | Team A | -7.0 | 7.0 |"),
        "{stdout}"
    );
    let pairs = std::fs::read_to_string(out.path().join("compare_pairs.csv")).unwrap();
    assert!(pairs.contains("r2,j,B,A,-7,7,true"), "{pairs}");
    let (o, _, stderr) = output(bin().arg("compare").arg(a.path()).arg("no/such/folder"));
    assert_eq!(o.status.code(), Some(2), "{stderr}");
}

/// A schedule of a hundred million rounds is refused at once with its size, exit 2, before
/// anything is built or written.
#[test]
fn a_schedule_too_large_to_hold_is_refused_with_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("a", 0.8, 0.0, 0.0),
        sim("b", 0.5, 0.0, 0.0),
        sim("j", 0.5, 0.0, 0.0),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"j\"]\ndilemmas = [\"borrowed_voice\"]\nrepetitions = 100000000\n",
    );
    let (out, _, stderr) = output(bin().args(["run", "--headless"]).arg(&config));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("at least 200000000 rounds") && stderr.contains("key \"repetitions\""),
        "{stderr}"
    );
    assert!(!dir.path().join("results/test/rounds").exists());
}
