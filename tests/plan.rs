//! `ethics-bowl plan RESULTS --detect D` on small simulated pilots with a known truth: a
//! larger D needs fewer units, a difference the pilot already finds says so, a pilot of too
//! few exchanges cannot be planned from, the standard errors are the report's (the same
//! bootstrap interval of the side effect, the same lift over naive), and bad input exits 2.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ethics_bowl::analysis::plan::{Detect, Kind, plan};
use ethics_bowl::analysis::{analyse, effects};
use ethics_bowl::store::{RoundFilter, Store};
use serde_json::Value;
use support::tournament::{manifest, write, write_tournament};

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

/// A simulated model with these `[models.simulated]` keys, answering at once.
fn model(name: &str, keys: &str) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
         [models.simulated]\ntokens_per_second = 0.0\nmalformed_judgment_rate = 0.0\n\
         failure_rate = 0.0\n{keys}\n"
    )
}

/// Debaters with a known skill (each 0.1 of skill is 6.3 points of the 70-point total):
/// `strong` far ahead of `mid` (12.6 points), `mid` a little ahead of `weak` (3.15 points);
/// two judges who do not debate, one more lenient, each with some noise.
fn truth_models() -> String {
    [
        model("strong", "skill = 0.7\nperformance_sd = 0.5"),
        model("mid", "skill = 0.5\nperformance_sd = 0.5"),
        model("weak", "skill = 0.45\nperformance_sd = 0.5"),
        model("j0", "leniency = 0.3\nposition_bias = 0.2\nnoise_sd = 1.0"),
        model("j1", "leniency = -0.3\nposition_bias = 0.2\nnoise_sd = 1.0"),
    ]
    .concat()
}

/// Runs the tournament file headless and returns its results folder.
fn run(config: &Path, dir: &Path) -> PathBuf {
    let (out, _, stderr) = output(bin().args(["run", "--headless"]).arg(config));
    assert!(out.status.success(), "{stderr}");
    let results = dir.join("results/test");
    assert!(results.join("tournament.json").is_file());
    results
}

/// `plan DIR --detect D --json`, parsed.
fn plan_json(dir: &Path, detect: &str) -> Value {
    let (out, stdout, stderr) = output(
        bin()
            .arg("plan")
            .arg(dir)
            .args(["--detect", detect, "--json"]),
    );
    assert!(out.status.success(), "{stderr}");
    serde_json::from_str(&stdout).expect("JSON")
}

/// The comparison of the first protocol labelled `label`.
fn comparison<'a>(plan: &'a Value, label: &str) -> &'a Value {
    plan["protocols"][0]["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == label)
        .unwrap_or_else(|| panic!("no {label} in {plan:#}"))
}

fn rounds(dir: &Path) -> Vec<ethics_bowl::domain::Round> {
    let (rounds, errors) = Store::open(dir)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    rounds
}

#[test]
fn an_ethics_bowl_pilot_plans_every_comparison_of_its_report() {
    let tmp = tempfile::tempdir().unwrap();
    // Every ordered pairing of three models on the seven sample dilemmas, both judges on
    // every exchange: 42 exchanges, 84 judgments.
    let config = write(
        tmp.path(),
        &truth_models(),
        "models = [\"strong\", \"mid\", \"weak\"]\njudges = [\"j0\", \"j1\"]\njudging = \"all\"\n",
    );
    let dir = run(&config, tmp.path());

    let small = plan_json(&dir, "2");
    let large = plan_json(&dir, "6");
    let eb = &small["protocols"][0];
    assert_eq!(eb["protocol"], "ethics_bowl");
    assert_eq!(eb["unit"], "exchange");
    assert_eq!(eb["pilot_units"], 42);
    assert_eq!(eb["judgments"], 84);
    assert_eq!(eb["design"]["repetitions"], 1);
    assert_eq!(eb["design"]["units_per_repetition"], 42);
    assert_eq!(eb["design"]["dilemmas"], 7);
    // Three pairs of models, the side, one pair of judges.
    let mut labels: Vec<&str> = eb["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    labels.sort_unstable();
    assert_eq!(
        labels,
        [
            "leniency j0 − j1",
            "mid − weak",
            "side: Team A − Team B",
            "strong − mid",
            "strong − weak",
        ],
        "{small:#}"
    );

    // The true gap of 12.6 points is found by the pilot, and D = 6 needs no more rounds.
    let far = comparison(&small, "strong − mid");
    assert_eq!(far["detected"], true, "{far:#}");
    assert_eq!(
        comparison(&large, "strong − mid")["outcome"]["status"],
        "already_enough"
    );
    // The small true gap (3.15 points) needs more rounds for D = 2 than for D = 6, by the
    // square of the ratio (up to rounding up): the same pilot SE either way.
    let near_small = comparison(&small, "mid − weak");
    let near_large = comparison(&large, "mid − weak");
    assert_eq!(near_small["pilot_se"], near_large["pilot_se"]);
    let units = |c: &Value| c["outcome"]["units"].as_u64().unwrap();
    assert_eq!(near_small["outcome"]["status"], "more", "{near_small:#}");
    let (s, l) = (units(near_small), near_large["outcome"]["units"].as_u64());
    assert!(l.is_none_or(|l| s > 8 * l), "{s} vs {l:?}");
    // Units become repetitions of the schedule's 42 exchanges, and dilemmas of 6.
    let settings = near_small["outcome"]["settings"].as_array().unwrap();
    assert_eq!(settings[0]["key"], "repetitions");
    assert_eq!(settings[0]["value"].as_u64().unwrap(), s.div_ceil(42));
    assert_eq!(settings[0]["more"].as_u64().unwrap(), s.div_ceil(42) - 1);
    assert_eq!(settings[1]["key"], "dilemmas");
    assert_eq!(settings[1]["value"].as_u64().unwrap(), s.div_ceil(6));
    for c in eb["comparisons"].as_array().unwrap() {
        let se = c["pilot_se"].as_f64().unwrap();
        assert!(se > 0.0 && se < 5.0, "{c:#}");
    }

    // The side effect's interval is the report's (the same bootstrap over exchanges).
    let stored = rounds(&dir);
    let report = analyse(&stored, &Default::default());
    let side = report.adjusted.unwrap().side.unwrap();
    let planned = plan(
        &stored,
        None,
        Detect {
            points: 2.0,
            side_total: None,
        },
    )
    .unwrap();
    let side_plan = planned.protocols[0]
        .comparisons
        .iter()
        .find(|c| c.kind == Kind::Side)
        .unwrap();
    assert_eq!((side_plan.low, side_plan.high), (side.low, side.high));
    assert!((side_plan.estimate.unwrap() - side.estimate).abs() < 1e-9);
    // The models' differences are the report's adjusted scores' differences.
    let adjusted = effects::adjusted(&stored);
    let score = |m: &str| {
        adjusted
            .models
            .iter()
            .find(|e| e.model == m)
            .unwrap()
            .effect
            .estimate
    };
    let diff = far["estimate"].as_f64().unwrap();
    assert!((diff - (score("strong") - score("mid"))).abs() < 1e-9);
    // Without tournament.json the schedule is read from the rounds, alike here.
    assert_eq!(planned.protocols[0].design.units_per_repetition, Some(42));
    assert!(!planned.protocols[0].design.from_schedule);

    // The table says the same in words.
    let (out, text, _) = output(bin().arg("plan").arg(&dir).args(["--detect", "2"]));
    assert!(out.status.success());
    assert!(
        text.contains("Ethics Bowl: the pilot has 42 exchanges (84 judgments)"),
        "{text}"
    );
    assert!(
        text.contains("D = 2 points of the 70-point total"),
        "{text}"
    );
    let line = text.lines().find(|l| l.contains("mid − weak")).unwrap();
    assert!(
        line.contains(&format!("repetitions = {} (", s.div_ceil(42))),
        "{line}"
    );
    let (_, text, _) = output(bin().arg("plan").arg(&dir).args(["--detect", "6"]));
    let line = text.lines().find(|l| l.contains("strong − mid")).unwrap();
    assert!(
        line.contains("yes") && line.contains("already enough"),
        "{line}"
    );
    assert!(text.contains("not for the pilot's estimate"), "{text}");

    // Bad differences exit 2, naming the flag and what to give.
    for bad in ["0", "-3", "abc", "10%", "nan", "inf"] {
        let (out, _, stderr) = output(bin().arg("plan").arg(&dir).args(["--detect", bad]));
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("--detect"), "{bad}: {stderr}");
    }
    let (out, _, stderr) = output(bin().arg("plan").arg(&dir).args(["--detect", "60"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("--detect 60") && stderr.contains("70-point"),
        "{stderr}"
    );
    let (out, _, stderr) =
        output(
            bin()
                .arg("plan")
                .arg(&dir)
                .args(["--detect", "2", "--detect-total", "0.5"]),
        );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("--detect-total"), "{stderr}");
    let (out, _, stderr) = output(bin().arg("plan").arg(&dir).args(["--detect", "3%"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("without %"), "{stderr}");
    let missing = tmp.path().join("no-such-folder");
    let (out, _, stderr) = output(bin().arg("plan").arg(&missing).args(["--detect", "2"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("no-such-folder") && stderr.contains("results folder"),
        "{stderr}"
    );
    let (out, _, _) = output(bin().arg("plan").arg(&dir));
    assert_eq!(out.status.code(), Some(2), "--detect is required");
}

#[test]
fn a_pilot_of_too_few_exchanges_cannot_be_planned_from() {
    let tmp = tempfile::tempdir().unwrap();
    // Two models both ways on two dilemmas: 4 exchanges, fewer than the 10 an interval needs.
    let config = write(
        tmp.path(),
        &truth_models(),
        "models = [\"strong\", \"mid\"]\njudges = [\"j0\", \"j1\"]\njudging = \"all\"\n\
         dilemmas = [\"borrowed_voice\", \"quiet_majority\"]\n",
    );
    let dir = run(&config, tmp.path());
    let plan = plan_json(&dir, "3");
    let eb = &plan["protocols"][0];
    assert_eq!(eb["pilot_units"], 4);
    for c in eb["comparisons"].as_array().unwrap() {
        assert_eq!(c["outcome"]["status"], "cannot_estimate", "{c:#}");
        let reason = c["outcome"]["reason"].as_str().unwrap();
        assert!(
            reason.contains("4 exchanges") && reason.contains("10"),
            "{reason}"
        );
        assert!(c["pilot_se"].is_null());
    }
    let (out, text, _) = output(bin().arg("plan").arg(&dir).args(["--detect", "3"]));
    assert!(out.status.success());
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("cannot be estimated"), "{text}");
    assert!(
        words.contains("4 exchanges in the pilot; the analysis draws an interval from 10 or more"),
        "{text}"
    );
}

#[test]
fn a_question_answer_pilot_plans_the_lifts_in_items() {
    let tmp = tempfile::tempdir().unwrap();
    let models = [
        model("a", "skill = 0.8"),
        model("b", "skill = 0.4"),
        model("judge", ""),
    ]
    .concat();
    let body = format!(
        "protocol = \"qa_debate\"\nmodels = [\"a\", \"b\"]\njudges = [\"judge\"]\n\
         self_debates = false\n\n[qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\n\
         sample_per_level = 12\nseed = 7\nstrength_order = [\"a\", \"judge\", \"b\"]\nbaselines = [\"naive\", \"expert\"]\nconsultancy = true\n",
        manifest("sample-config/qa-sample.json").display()
    );
    let config = write_tournament(tmp.path(), &models, &body);
    let dir = run(&config, tmp.path());
    let plan = plan_json(&dir, "10");
    let qa = &plan["protocols"][0];
    assert_eq!(qa["protocol"], "qa_debate");
    assert_eq!(qa["unit"], "item");
    assert_eq!(qa["pilot_units"], 12);
    assert_eq!(qa["design"]["items_per_level"]["Sample"], 12);
    assert_eq!(qa["design"]["sample_per_level"], 12);
    let kinds: Vec<&str> = qa["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["lift_over_naive", "gap_to_expert", "debate_vs_consultancy"]
    );
    let lift = &qa["comparisons"][0];
    assert_eq!(lift["judge"], "judge");
    assert_eq!(lift["level"], "Sample");
    assert_eq!(lift["scale"], "accuracy");
    // The estimate is the report's lift over naive, in percentage points.
    let report = analyse(&rounds(&dir), &Default::default());
    let reported = report.qa.unwrap().lifts[0].lift_over_naive.value.unwrap();
    assert!(
        (lift["estimate"].as_f64().unwrap() - 100.0 * reported).abs() < 1e-9,
        "{lift:#} vs {reported}"
    );
    // Units are items, set as items per level.
    if let Some(settings) = lift["outcome"]["settings"].as_array() {
        assert_eq!(settings[0]["key"], "sample_per_level");
        assert_eq!(settings[0]["value"], lift["outcome"]["units"]);
    }
    // A larger difference needs fewer items, or the pilot's.
    let wide = plan_json(&dir, "40");
    let need = |c: &Value| c["outcome"]["units"].as_u64().unwrap_or(12);
    for (s, w) in qa["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .zip(wide["protocols"][0]["comparisons"].as_array().unwrap())
    {
        assert!(need(w) <= need(s), "{s:#} {w:#}");
    }
    let (out, text, _) = output(bin().arg("plan").arg(&dir).args(["--detect", "10"]));
    assert!(out.status.success());
    assert!(text.contains("D = 10 accuracy points"), "{text}");
    assert!(
        text.contains("judge judge, Sample: debate − naive"),
        "{text}"
    );
    // A fraction of a point is taken as given, with a note.
    let (out, _, stderr) = output(bin().arg("plan").arg(&dir).args(["--detect", "0.1"]));
    assert!(out.status.success());
    assert!(stderr.contains("--detect 10"), "{stderr}");
    let (out, _, stderr) = output(bin().arg("plan").arg(&dir).args(["--detect", "101"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("100"), "{stderr}");
}

#[test]
fn a_structured_pilot_plans_win_rates_and_side_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let models = [
        model("a", "skill = 0.8"),
        model("b", "skill = 0.5"),
        model("c", "skill = 0.2"),
        model("judge", "noise_sd = 1.0"),
    ]
    .concat();
    let body = format!(
        "protocol = \"structured_debate\"\nmodels = [\"a\", \"b\", \"c\"]\njudges = [\"judge\"]\n\n\
         [structured]\ntopics_file = \"{}\"\n",
        manifest("sample-config/topics.toml").display()
    );
    let config = write_tournament(tmp.path(), &models, &body);
    let dir = run(&config, tmp.path());
    let (out, stdout, stderr) = output(bin().arg("plan").arg(&dir).args([
        "--detect",
        "20",
        "--detect-total",
        "0.5",
        "--json",
    ]));
    assert!(out.status.success(), "{stderr}");
    let plan: Value = serde_json::from_str(&stdout).unwrap();
    let sd = &plan["protocols"][0];
    assert_eq!(sd["protocol"], "structured_debate");
    assert_eq!(sd["design"]["units_per_repetition"], 24);
    let comparisons = sd["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 6, "{sd:#}");
    let total = comparisons
        .iter()
        .find(|c| c["label"] == "side total a − c")
        .unwrap();
    assert_eq!(total["scale"], "side_total");
    // 0.6 of skill is 5.4 points of the side total: found, and enough for 0.5.
    assert_eq!(total["detected"], true, "{total:#}");
    assert_eq!(total["outcome"]["status"], "already_enough");
    // a beats c in every debate: a win rate that does not vary cannot be planned from.
    let sure = comparisons
        .iter()
        .find(|c| c["label"] == "win rate a − c")
        .unwrap();
    assert_eq!(sure["estimate"], 100.0);
    assert_eq!(sure["outcome"]["status"], "cannot_estimate", "{sure:#}");
    assert!(
        sure["outcome"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("no variance"),
        "{sure:#}"
    );
    // a against b varies: more rounds, as repetitions or topics.
    let win = comparisons
        .iter()
        .find(|c| c["label"] == "win rate a − b")
        .unwrap();
    assert_eq!(win["scale"], "win_rate");
    assert_eq!(win["outcome"]["status"], "more", "{win:#}");
    let settings = win["outcome"]["settings"].as_array().unwrap();
    assert_eq!(settings[0]["key"], "repetitions");
    assert_eq!(settings[1]["key"], "topics");
    // Without --detect-total, win rates only.
    let plan = plan_json(&dir, "20");
    assert_eq!(
        plan["protocols"][0]["comparisons"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}
