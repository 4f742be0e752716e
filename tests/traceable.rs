//! Traceable results: every judgment of a fresh run records what its judge saw (model names
//! shown or hidden, the temperature sent, the prompt's version); `tournament.json` names the
//! build of the tool (version and git commit); `rejudge --out` writes a `tournament.json`
//! that says which folder it re-judged, with the source's record kept, so the copy reads
//! everywhere (`rounds`, `report`, `compare`, the UI's analysis); and the report warns when
//! a folder's judgments mix judges shown the model names with judges who were not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ethics_bowl::domain::Round;
use ethics_bowl::protocols::judging::prompt_version::{ETHICS_BOWL_JUDGE, QA_DEBATE_JUDGE};
use ethics_bowl::store::Store;
use support::tournament::{manifest, run_collecting, sim, stored_rounds, write, write_tournament};

/// Debaters sim-alpha and sim-beta; judges sim-gamma (a temperature of its own, 0.9) and
/// sim-delta (none: the provider's default).
fn models() -> String {
    let gamma = sim("sim-gamma", 0.7, 100_000.0, 0.0).replace(
        "[models.simulated]",
        "temperature = 0.9\n[models.simulated]",
    );
    sim("sim-alpha", 0.7, 100_000.0, 0.0)
        + &sim("sim-beta", 0.6, 100_000.0, 0.0)
        + &gamma
        + &sim("sim-delta", 0.7, 100_000.0, 0.0)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bin(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Checks the build `tournament.json` names: this crate's version and a commit.
fn assert_tool(tool: &serde_json::Value) {
    assert_eq!(tool["version"], env!("CARGO_PKG_VERSION"), "{tool}");
    let commit = tool["commit"].as_str().unwrap();
    assert!(
        commit == "unknown"
            || (commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{tool}"
    );
}

/// Every judgment of `rounds`, with its round's id.
fn judgments(rounds: &[Round]) -> Vec<(&str, &ethics_bowl::domain::Judgment)> {
    let all: Vec<_> = rounds
        .iter()
        .flat_map(|r| r.judgments.iter().map(move |j| (r.id.as_str(), j)))
        .collect();
    assert!(!all.is_empty(), "nothing judged");
    all
}

#[tokio::test]
async fn a_fresh_run_records_what_each_judge_saw_and_the_build_that_ran_it() {
    // The Ethics Bowl, model names shown (the default), each judge at its own temperature.
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(),
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\", \"sim-delta\"]\n\
         judging = \"all\"\ndilemmas = [\"borrowed_voice\"]\n",
    );
    let (report, _) = run_collecting(&config, None).await;
    for (round, j) in judgments(&stored_rounds(&report)) {
        let view = j
            .view
            .as_ref()
            .unwrap_or_else(|| panic!("{round}: no view"));
        assert!(view.judge_sees_model_names, "{round}");
        let temperature = if j.judge_model == "sim-gamma" {
            Some(0.9)
        } else {
            None
        };
        assert_eq!(view.temperature, temperature, "{round} {}", j.judge_model);
        assert_eq!(view.prompt_version, ETHICS_BOWL_JUDGE);
    }
    // As the round file holds it.
    let file = std::fs::read_dir(report.dir.join("rounds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let view = &json(&file)["judgments"][0]["judge_view"];
    assert_eq!(view["judge_sees_model_names"], true, "{view}");
    assert_eq!(view["prompt_version"], ETHICS_BOWL_JUDGE, "{view}");
    let record = json(&report.dir.join("tournament.json"));
    assert_tool(&record["tool"]);
    assert!(record.get("rejudgings").is_none(), "{record}");

    // Model names hidden and a role temperature: the judgments say so.
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(),
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\n\
         dilemmas = [\"borrowed_voice\"]\njudge_sees_model_names = false\n\
         [temperatures]\njudges = 0.2\n",
    );
    let (report, _) = run_collecting(&config, None).await;
    for (round, j) in judgments(&stored_rounds(&report)) {
        let view = j.view.as_ref().unwrap();
        assert!(!view.judge_sees_model_names, "{round}");
        assert_eq!(view.temperature, Some(0.2), "{round}");
    }

    // The question-answer debate: its judges never see model names.
    let dir = tempfile::tempdir().unwrap();
    let config = write_tournament(
        dir.path(),
        &models(),
        &format!(
            "protocol = \"qa_debate\"\nmodels = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\n\
             [qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\nsample_per_level = 2\ndebate_rounds = 1\nstrength_order = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\n",
            manifest("sample-config/qa-sample.json").display()
        ),
    );
    let (report, _) = run_collecting(&config, None).await;
    for (round, j) in judgments(&stored_rounds(&report)) {
        let view = j.view.as_ref().unwrap();
        assert!(!view.judge_sees_model_names, "{round}");
        assert_eq!(view.temperature, Some(0.9), "{round}");
        assert_eq!(view.prompt_version, QA_DEBATE_JUDGE);
    }
    assert_tool(&json(&report.dir.join("tournament.json"))["tool"]);
}

/// A judging file beside `dir`'s models file: sim-delta judges alone, without the model
/// names, at temperature 0.4.
fn anonymous_judging(dir: &Path) -> PathBuf {
    let path = dir.join("judging.toml");
    std::fs::write(
        &path,
        "models_file = \"models.toml\"\njudging = \"all\"\njudges = [\"sim-delta\"]\n\
         judge_sees_model_names = false\njudge_temperature = 0.4\n",
    )
    .unwrap();
    path
}

#[tokio::test]
async fn rejudge_out_writes_a_record_naming_its_source_and_the_copy_reads_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(),
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\n\
         dilemmas = [\"borrowed_voice\", \"quiet_majority\"]\n",
    );
    let (report, _) = run_collecting(&config, None).await;
    let source = report.dir.clone();
    let source_record = std::fs::read(source.join("tournament.json")).unwrap();
    let judging = anonymous_judging(dir.path());
    let out = dir.path().join("rejudged");
    let rejudge = |out: &Path| bin(&[&"rejudge", &source, &"--config", &judging, &"--out", &out]);
    rejudge(&out);

    // The copy's record: the source's, with the re-judging and this build.
    let before: serde_json::Value = serde_json::from_slice(&source_record).unwrap();
    let record = json(&out.join("tournament.json"));
    for key in [
        "id",
        "protocol",
        "config",
        "config_file",
        "schedule",
        "models",
    ] {
        assert_eq!(record[key], before[key], "{key} kept");
    }
    assert_tool(&record["tool"]);
    let rejudgings = record["rejudgings"].as_array().unwrap();
    assert_eq!(rejudgings.len(), 1, "{record}");
    let r = &rejudgings[0];
    assert_eq!(
        r["source"],
        std::fs::canonicalize(&source)
            .unwrap()
            .display()
            .to_string()
    );
    assert_eq!(r["in_place"], false);
    assert_eq!(r["judges"], serde_json::json!(["sim-delta"]));
    assert_eq!(r["judging"], "all");
    assert_eq!(r["judge_sees_model_names"], false);
    assert_eq!(r["judge_temperature"], 0.4);
    assert!(r["started_at"].as_str().is_some_and(|s| !s.is_empty()));
    assert_tool(&r["tool"]);
    // The library reads it as a record too, and the source was not written.
    let store = Store::open(&out).unwrap();
    assert_eq!(
        store.load_tournament().unwrap().unwrap().rejudgings.len(),
        1
    );
    assert_eq!(
        std::fs::read(source.join("tournament.json")).unwrap(),
        source_record
    );
    // Run again (as after a stop): one re-judging, not two.
    rejudge(&out);
    assert_eq!(
        json(&out.join("tournament.json"))["rejudgings"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Each new judgment says it was made without the names, at 0.4; the old ones with them.
    let (rounds, errors) = store
        .load_rounds(&ethics_bowl::store::RoundFilter::default())
        .unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    for (round, j) in judgments(&rounds) {
        let view = j.view.as_ref().unwrap();
        let new = j.judge_model == "sim-delta";
        assert_eq!(view.judge_sees_model_names, !new, "{round}");
        assert_eq!(
            view.temperature,
            if new { Some(0.4) } else { Some(0.9) },
            "{round}"
        );
    }

    // Every reader takes the copy: rounds, report (which warns of the mix), compare, and the
    // analysis the UI's `open` computes.
    let listed = bin(&[&"rounds", &out]);
    assert!(!listed.stdout.is_empty());
    let markdown = bin(&[&"rounds", &out, &"--round", &rounds[0].id, &"--markdown"]);
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    let version = ethics_bowl::protocols::judging::prompt_version::ETHICS_BOWL_JUDGE;
    assert!(
        markdown.contains(&format!(
            "_What the judge saw: model names hidden · temperature 0.4 · prompt {version}_"
        )),
        "{markdown}"
    );
    let report_dir = dir.path().join("report");
    bin(&[&"report", &out, &"--out", &report_dir]);
    let md = std::fs::read_to_string(report_dir.join("report.md")).unwrap();
    let warnings = md
        .split("## ")
        .find(|s| s.starts_with("Warnings from the run"))
        .unwrap_or_else(|| panic!("no warnings section:\n{md}"));
    assert!(
        warnings.contains("**judges saw unlike things**")
            && warnings.contains("(judge sim-gamma) shown the model names")
            && warnings.contains("(judge sim-delta) not shown the model names"),
        "{warnings}"
    );
    let analysis = json(&report_dir.join("analysis.json"));
    assert_eq!(analysis["judge_views"].as_array().unwrap().len(), 2);
    let html = std::fs::read_to_string(report_dir.join("report.html")).unwrap();
    assert!(html.contains("judges saw unlike things"));
    assert!(html.contains("What the judge saw: model names hidden"));
    // The source alone has no such warning.
    let source_report = dir.path().join("source-report");
    bin(&[&"report", &source, &"--out", &source_report]);
    let md = std::fs::read_to_string(source_report.join("report.md")).unwrap();
    assert!(!md.contains("judges saw unlike things"), "{md}");
    let compared = bin(&[&"compare", &source, &out]);
    let compared = String::from_utf8_lossy(&compared.stdout);
    assert!(compared.contains("## What the judges saw"), "{compared}");
    assert!(
        compared.contains("judge sim-delta) not shown the model names"),
        "{compared}"
    );
    let analysis = ethics_bowl::analysis::analyse_store(&store).unwrap();
    assert!(!analysis.judge_views.is_empty());
}

#[tokio::test]
async fn rejudging_in_place_adds_to_the_folders_own_record() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(),
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\n\
         dilemmas = [\"borrowed_voice\"]\n",
    );
    let (report, _) = run_collecting(&config, None).await;
    let judging = anonymous_judging(dir.path());
    let plan = ethics_bowl::engine::prepare_rejudge(&report.dir, &judging, None, false).unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    ethics_bowl::engine::rejudge(plan, tx, &mut tokio::sync::mpsc::unbounded_channel().1)
        .await
        .unwrap();
    let record = Store::open(&report.dir)
        .unwrap()
        .load_tournament()
        .unwrap()
        .unwrap();
    assert_eq!(record.rejudgings.len(), 1);
    assert!(record.rejudgings[0].in_place);
    assert_eq!(record.rejudgings[0].judges, ["sim-delta"]);
    assert!(record.tool.is_some());
}

#[tokio::test]
async fn a_folder_without_a_record_gets_one_rebuilt_from_its_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("predecessor");
    std::fs::create_dir_all(source.join("rounds")).unwrap();
    let fixture = manifest("tests/fixtures/stored-v0/qa_debate/rounds");
    let mut n = 0;
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, source.join("rounds").join(path.file_name().unwrap())).unwrap();
        n += 1;
    }
    std::fs::write(
        dir.path().join("models.toml"),
        sim("sim-delta", 0.7, 100_000.0, 0.0),
    )
    .unwrap();
    let judging = anonymous_judging(dir.path());
    let out = dir.path().join("out");
    let plan = ethics_bowl::engine::prepare_rejudge(&source, &judging, Some(&out), false).unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    ethics_bowl::engine::rejudge(plan, tx, &mut tokio::sync::mpsc::unbounded_channel().1)
        .await
        .unwrap();
    let record = Store::open(&out)
        .unwrap()
        .load_tournament()
        .unwrap()
        .unwrap();
    assert_eq!(record.id, "out");
    assert_eq!(record.protocol, ethics_bowl::domain::ProtocolKind::QaDebate);
    assert_eq!(record.schedule.len(), n);
    assert!(
        record.warnings[0].contains("rebuilt by `rejudge`"),
        "{record:?}"
    );
    assert_eq!(record.rejudgings.len(), 1);
    assert!(!source.join("tournament.json").exists());
    let report_dir = dir.path().join("report");
    bin(&[&"report", &out, &"--out", &report_dir]);
    let md = std::fs::read_to_string(report_dir.join("report.md")).unwrap();
    assert!(md.contains("rebuilt by `rejudge`"), "{md}");
    assert!(md.contains("judges saw unlike things"), "{md}");
}
