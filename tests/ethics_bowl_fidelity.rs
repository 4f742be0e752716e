//! Issue #19's proofs for the Ethics Bowl, on tournaments run with simulated models: the
//! consistency analysis (the rollup per model and the spec's two flags, read from each
//! judge's reading of the test itself, Team B's principle from its response's labelled
//! lines), judge agreement across repetitions under `rotate`,
//! and the loader skipping a real document's front and back matter.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use docx_rs::{Docx, Paragraph, Run, Style, StyleType};
use ethics_bowl::analysis::qa::Proportion;
use ethics_bowl::analysis::tables::{ACKNOWLEDGEMENTS, LOW_CONSISTENCY};
use ethics_bowl::analysis::{Format, analyse, write_report};
use ethics_bowl::domain::{PhaseType, Team};
use ethics_bowl::inputs::load_dilemmas;
use ethics_bowl::protocols::ethics_bowl::prompts::{PARALLEL_CASE_CLOSES, PARALLEL_CASE_OPENS};
use support::tournament::{run_collecting, sim, stored_rounds, write};

#[tokio::test]
async fn the_consistency_rollup_and_both_flags_on_a_simulated_tournament() {
    let dir = tempfile::tempdir().unwrap();
    // Weak debaters: low consistency scores are common, acknowledgements occasional.
    let models = [
        sim("a", 0.25, 0.0, 0.0),
        sim("b", 0.35, 0.0, 0.0),
        sim("c", 0.3, 0.0, 0.0),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\", \"c\"]\njudges = [\"a\", \"b\", \"c\"]\njudging = \"all\"\n\
         consistency_test_both_teams = true\n",
    );
    let (report, _) = run_collecting(&config, None).await;
    let rounds = stored_rounds(&report);
    assert_eq!(rounds.len(), 42);
    let a = analyse(&rounds, &BTreeMap::new());
    assert_eq!(a.consistency.len(), 84, "both teams of every round");
    let mut differs_from_the_score = 0;

    for c in &a.consistency {
        let round = rounds.iter().find(|r| r.id == c.round_id).unwrap();
        // Team B's principle comes from the labelled line its response now ends with.
        let own = if c.team == Team::A {
            PhaseType::Presentation
        } else {
            PhaseType::Response
        };
        let principle = c.principle.as_deref().unwrap_or_else(|| {
            panic!("{} {:?}: no principle", c.round_id, c.team);
        });
        let text = &round.phase(own, None).unwrap().response;
        assert!(
            text.contains(&format!("Guiding principle: {principle}")),
            "{text}"
        );
        // The flags follow from each judge's reading of this test in its stored answer, and
        // the acknowledgement from the stored answer itself.
        let test = if c.team == Team::A {
            PhaseType::ConsistencyTest
        } else {
            PhaseType::ConsistencyTestB
        };
        let answer = round.phase(test, None).unwrap().response.to_lowercase();
        // Every judge was given the parallel case the test answered.
        let asked = &round.phase(test, None).unwrap().prompt;
        let (_, case) = asked.rsplit_once(PARALLEL_CASE_OPENS).unwrap();
        let (case, _) = case.split_once(PARALLEL_CASE_CLOSES).unwrap();
        assert!(case.len() > 40, "{case}");
        for judging in round
            .phases
            .iter()
            .filter(|p| p.phase_type == PhaseType::Judgment)
        {
            assert!(judging.prompt.contains(case), "{}", judging.prompt);
        }
        let acknowledged = ACKNOWLEDGEMENTS.iter().any(|w| answer.contains(w));
        let key = if c.team == Team::A {
            "team_a"
        } else {
            "team_b"
        };
        let readings: Vec<String> = round
            .judgments
            .iter()
            .filter(|j| j.is_usable() && !round.judged_by_a_debater(j))
            .filter_map(|j| {
                let v: serde_json::Value = serde_json::from_str(&j.raw_response).ok()?;
                v["consistency_tests"][key].as_str().map(str::to_string)
            })
            .collect();
        assert!(!readings.is_empty(), "{}: every test is read", c.round_id);
        assert_eq!(
            c.readings.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
            readings,
            "{}",
            c.round_id
        );
        // The simulated judges read the test by the sentence it ends with.
        let expected = if answer.contains("refine my principle") {
            "acknowledged"
        } else if answer.contains("applied consistently") {
            "consistent"
        } else {
            "inconsistent"
        };
        assert!(readings.iter().all(|r| r == expected), "{}", c.round_id);
        let share = |words: &[&str]| {
            readings
                .iter()
                .filter(|r| words.contains(&r.as_str()))
                .count()
                * 2
                > readings.len()
        };
        assert_eq!(c.acknowledged, acknowledged, "{}", c.round_id);
        assert_eq!(
            c.flagged_inconsistent,
            share(&["acknowledged", "inconsistent"]),
            "{}",
            c.round_id
        );
        assert_eq!(
            c.flagged_unacknowledged,
            share(&["inconsistent"]),
            "{}",
            c.round_id
        );
        // Not the old rule: the judges' consistency score over the whole exchange.
        let scores: Vec<f64> = round
            .judgments
            .iter()
            .filter(|j| j.is_usable())
            .filter_map(|j| j.scores(c.team).and_then(|s| s.consistency))
            .collect();
        let low = !scores.is_empty()
            && scores.iter().sum::<f64>() / scores.len() as f64 <= LOW_CONSISTENCY;
        differs_from_the_score += usize::from(low != c.flagged_inconsistent);
    }
    assert!(
        differs_from_the_score > 0,
        "the flags are the tests' own, not the score's"
    );
    // Both flags occur, and they differ: some failures were acknowledged.
    let inconsistent = a
        .consistency
        .iter()
        .filter(|c| c.flagged_inconsistent)
        .count();
    let silent = a
        .consistency
        .iter()
        .filter(|c| c.flagged_unacknowledged)
        .count();
    assert!(
        silent > 0 && inconsistent > silent,
        "{inconsistent} {silent}"
    );
    assert!(a.consistency_by_model.iter().all(|m| m.unread == 0));

    // One row per model, beside the per-test rows.
    let models: Vec<&str> = a
        .consistency_by_model
        .iter()
        .map(|m| m.model.as_str())
        .collect();
    assert_eq!(models, ["a", "b", "c"]);
    for m in &a.consistency_by_model {
        let mine: Vec<_> = a
            .consistency
            .iter()
            .filter(|c| c.model == m.model)
            .collect();
        assert_eq!(m.tests, mine.len());
        assert_eq!(
            m.tests, 28,
            "{}: 14 rounds as Team A, 14 as Team B",
            m.model
        );
        let scores: Vec<f64> = mine.iter().filter_map(|c| c.consistency_score).collect();
        let mean = scores.iter().sum::<f64>() / scores.len() as f64;
        assert!((m.mean_score.mean.unwrap() - mean).abs() < 1e-9);
        assert_eq!(m.mean_score.n, scores.len());
        assert_eq!(
            m.flagged_inconsistent,
            mine.iter().filter(|c| c.flagged_inconsistent).count()
        );
        assert_eq!(
            m.flagged_unacknowledged,
            mine.iter().filter(|c| c.flagged_unacknowledged).count()
        );
        assert_eq!(
            m.acknowledged,
            mine.iter().filter(|c| c.acknowledged).count()
        );
    }

    // In the report's files.
    let out = dir.path().join("report");
    write_report(&a, &out, &[Format::Markdown, Format::Csv, Format::Json]).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("*failed to maintain consistency*"), "{md}");
    assert!(md.contains("*failed to acknowledge the inconsistency*"));
    assert!(md.contains(&format!("): {inconsistent}; *failed to acknowledge")));
    assert!(md.contains(&format!("): {silent}.")));
    let row = &a.consistency_by_model[0];
    assert!(
        md.contains(&format!(
            "| a | 28 | {:.2} [{:.2}, {:.2}] (n={}) | {} | {} | {} |",
            row.mean_score.mean.unwrap(),
            row.mean_score.low.unwrap(),
            row.mean_score.high.unwrap(),
            row.mean_score.units,
            // Each flag a share of the tests read (here every test), with its interval.
            ethics_bowl::analysis::qa_share(&Proportion::new(row.flagged_inconsistent, 28)),
            ethics_bowl::analysis::qa_share(&Proportion::new(row.flagged_unacknowledged, 28)),
            ethics_bowl::analysis::qa_share(&Proportion::new(row.acknowledged, 28))
        )),
        "{md}"
    );
    let csv = std::fs::read_to_string(out.join("consistency.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "round_id,model,team,principle,conclusion,consistency_score,acknowledged,flagged_inconsistent,flagged_unacknowledged"
    );
    assert_eq!(lines.count(), 84);
    assert!(
        csv.lines()
            .filter(|l| l.contains(",B,"))
            .all(|l| !l.contains(",B,,")),
        "every Team B row has a principle"
    );
    let by_model = std::fs::read_to_string(out.join("consistency_by_model.csv")).unwrap();
    assert_eq!(by_model.lines().count(), 4);
    assert!(by_model.starts_with(
        "model,tests,mean_consistency_score,scored_tests,flagged_inconsistent,flagged_unacknowledged,acknowledged,read_tests,"
    ));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("analysis.json")).unwrap()).unwrap();
    assert_eq!(json["consistency_by_model"][1]["model"], "b");
    assert_eq!(
        json["consistency_by_model"][1]["flagged_unacknowledged"],
        a.consistency_by_model[1].flagged_unacknowledged
    );
}

#[tokio::test]
async fn judge_agreement_under_rotate_rests_on_configurations_judged_in_different_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("a", 0.7, 0.0, 0.0),
        sim("b", 0.4, 0.0, 0.0),
        sim("w", 0.5, 0.0, 0.0),
        sim("x", 0.5, 0.0, 0.0),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"w\", \"x\"]\njudging = \"rotate\"\nrepetitions = 2\n\
         dilemmas = [\"borrowed_voice\", \"quiet_majority\"]\n",
    );
    let (report, _) = run_collecting(&config, None).await;
    let rounds = stored_rounds(&report);
    assert_eq!(rounds.len(), 8);
    // Each configuration's two repetitions were judged by different judges.
    let mut judges: BTreeMap<(String, String, String), BTreeSet<String>> = BTreeMap::new();
    for r in &rounds {
        assert_eq!(r.judge_models.len(), 1);
        judges
            .entry((
                r.dilemma_id.clone(),
                r.team_a_model.clone(),
                r.team_b_model.clone(),
            ))
            .or_default()
            .insert(r.judge_models[0].clone());
    }
    assert_eq!(judges.len(), 4);
    assert!(judges.values().all(|j| j.len() == 2), "{judges:?}");

    let a = analyse(&rounds, &BTreeMap::new());
    let ag = &a.judge_agreement;
    assert_eq!(ag.shared_exchanges, 0, "one judge per round");
    let rep = &ag.across_repetitions;
    assert_eq!(rep.configurations, 4);
    assert_eq!(rep.pairs.len(), 1);
    assert_eq!(
        (
            rep.pairs[0].a.as_str(),
            rep.pairs[0].b.as_str(),
            rep.pairs[0].shared_exchanges
        ),
        ("w", "x", 4)
    );
    assert!(rep.pairs[0].pearson.value.is_some());
    assert!(rep.alpha.value.is_some());
    // Leniency: with two judges, each is the other's mirror.
    let (w, x) = (rep.offsets["w"], rep.offsets["x"]);
    assert!((w.mean.unwrap() + x.mean.unwrap()).abs() < 1e-9);
    assert_eq!(w.n, 4 * 2 * 7, "configurations × teams × criteria");

    let out = dir.path().join("report");
    write_report(&a, &out, &[Format::Markdown, Format::Csv]).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains(
            "4 configurations (dilemma, Team A, Team B) were judged by different judges in different rounds"
        ),
        "{md}"
    );
    assert!(md.contains("| w – x | 4 |"), "{md}");
    let csv = std::fs::read_to_string(out.join("judge_agreement_across_repetitions.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 3 + 7,
        "header, Pearson's and Spearman's over all, total, seven criteria"
    );
}

/// A Word document as a casebook is laid out: a title, a subtitle, a table of contents, an
/// introduction, the dilemmas (the last one lacking its consistency case when `broken`),
/// and an appendix after them.
fn casebook(broken: bool) -> Docx {
    let styled = |style: &str, text: &str| {
        Paragraph::new()
            .style(style)
            .add_run(Run::new().add_text(text))
    };
    let plain = |text: &str| Paragraph::new().add_run(Run::new().add_text(text));
    let mut doc = Docx::new()
        .add_style(Style::new("Title", StyleType::Paragraph).name("Title"))
        .add_style(Style::new("Subtitle", StyleType::Paragraph).name("Subtitle"))
        .add_style(Style::new("Heading1", StyleType::Paragraph).name("Heading 1"))
        .add_style(Style::new("Heading2", StyleType::Paragraph).name("Heading 2"))
        .add_paragraph(styled("Title", "Regional Ethics Bowl Casebook"))
        .add_paragraph(styled("Subtitle", "Cases for the spring round"))
        .add_paragraph(styled("Heading1", "Table of Contents"))
        .add_paragraph(plain("Dilemma 1: The Veto\t3"))
        .add_paragraph(plain("Dilemma 2: The Lighthouse\t4"))
        .add_paragraph(styled("Heading1", "Introduction"))
        .add_paragraph(plain(
            "Each case has a scenario, questions and a parallel case.",
        ));
    for (n, title, broken_here) in [(1, "The Veto", false), (2, "The Lighthouse", broken)] {
        doc = doc
            .add_paragraph(styled("Heading1", &format!("Dilemma {n}: {title}")))
            .add_paragraph(plain("Category: Collective choice"))
            .add_paragraph(styled("Heading2", "Core Scenario"))
            .add_paragraph(plain(&format!("The scenario of {title}.")))
            .add_paragraph(styled("Heading2", "Questions"))
            .add_paragraph(plain("1. Who decides?"));
        if !broken_here {
            doc = doc
                .add_paragraph(styled("Heading2", "Consistency Case"))
                .add_paragraph(plain(&format!("The parallel case of {title}.")));
        }
    }
    doc.add_paragraph(styled("Heading1", "Appendix: About the Authors"))
        .add_paragraph(plain("The authors teach philosophy."))
}

const CASEBOOK_MD: &str = "# Regional Ethics Bowl Casebook\n\n*Cases for the spring round*\n\n\
    ## Table of Contents\n\n- Dilemma 1: The Veto\n- Dilemma 2: The Lighthouse\n\n\
    ## Introduction\n\nEach case has a scenario, questions and a parallel case.\n\n\
    ## Dilemma 1: The Veto\n\nCategory: Collective choice\n\n### Core Scenario\n\nThe scenario of The Veto.\n\n\
    ### Questions\n\n1. Who decides?\n\n### Consistency Case\n\nThe parallel case of The Veto.\n\n\
    ## Dilemma 2: The Lighthouse\n\nCategory: Collective choice\n\n### Core Scenario\n\nThe scenario of The Lighthouse.\n\n\
    ### Questions\n\n1. Who decides?\n\nCONSISTENCY_CASE\
    ## Appendix: About the Authors\n\nThe authors teach philosophy.\n";

fn casebook_md(broken: bool) -> String {
    CASEBOOK_MD.replace(
        "CONSISTENCY_CASE",
        if broken {
            ""
        } else {
            "### Consistency Case\n\nThe parallel case of The Lighthouse.\n\n"
        },
    )
}

#[test]
fn the_loader_skips_a_casebooks_front_and_back_matter_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let docx = dir.path().join("casebook.docx");
    ethics_bowl::inputs::save_docx(casebook(false), &docx).unwrap();
    let md = dir.path().join("casebook.md");
    std::fs::write(&md, casebook_md(false)).unwrap();
    for path in [&docx, &md] {
        let loaded = load_dilemmas(path).unwrap_or_else(|e| panic!("{e}"));
        let titles: Vec<&str> = loaded.dilemmas.iter().map(|d| d.title.as_str()).collect();
        assert_eq!(titles, ["The Veto", "The Lighthouse"], "{}", path.display());
        let last = &loaded.dilemmas[1];
        assert_eq!(
            last.consistency_case,
            "The parallel case of The Lighthouse."
        );
        assert_eq!(last.questions, ["Who decides?"]);
        assert_eq!(
            loaded.front_matter,
            [
                "Regional Ethics Bowl Casebook",
                "Table of Contents",
                "Introduction"
            ],
            "{}",
            path.display()
        );
        let notes: Vec<&String> = loaded
            .warnings
            .iter()
            .filter(|w| !w.contains("the list is empty"))
            .collect();
        assert_eq!(notes.len(), 2, "{}: {notes:?}", path.display());
        assert!(
            notes[0].starts_with("\"Appendix: About the Authors\" is not a dilemma"),
            "{notes:?}"
        );
        assert!(
            notes[1].starts_with(
                "\"Table of Contents\", \"Introduction\" skipped as front matter before the first dilemma"
            ),
            "{notes:?}"
        );
    }
    // The note reaches a tournament's warnings.
    let config = dir.path().join("t.toml");
    std::fs::write(
        dir.path().join("models.toml"),
        [
            sim("a", 0.5, 0.0, 0.0),
            sim("b", 0.5, 0.0, 0.0),
            sim("j", 0.5, 0.0, 0.0),
        ]
        .concat(),
    )
    .unwrap();
    std::fs::write(
        &config,
        format!(
            "name = \"t\"\nmodels_file = \"models.toml\"\noutput_dir = \"{}\"\ndilemma_file = \"casebook.docx\"\n\
             models = [\"a\", \"b\"]\njudges = [\"j\"]\n",
            dir.path().join("results").display()
        ),
    )
    .unwrap();
    let prepared = ethics_bowl::engine::prepare(&config, None).unwrap();
    assert_eq!(prepared.item_ids, ["veto", "lighthouse"]);
    assert!(
        prepared
            .input_warnings
            .iter()
            .any(|w| w.contains("\"Introduction\" skipped as front matter")),
        "{:?}",
        prepared.input_warnings
    );
}

#[test]
fn a_dilemma_lacking_a_part_is_still_an_error_after_front_matter() {
    let dir = tempfile::tempdir().unwrap();
    let docx = dir.path().join("casebook.docx");
    ethics_bowl::inputs::save_docx(casebook(true), &docx).unwrap();
    let md = dir.path().join("casebook.md");
    std::fs::write(&md, casebook_md(true)).unwrap();
    for path in [&docx, &md] {
        let e = load_dilemmas(path).unwrap_err().to_string();
        assert!(
            e.contains("dilemma \"The Lighthouse\" has no consistency case; add a \"Consistency Case\" section"),
            "{}: {e}",
            path.display()
        );
        assert!(e.starts_with(&path.display().to_string()), "{e}");
    }
}

/// The loader's errors and the note never name a missing part of the front matter.
#[test]
fn front_matter_alone_is_no_dilemma() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("front.md");
    std::fs::write(
        &md,
        "# Casebook\n\n## Table of Contents\n\n- nothing yet\n\n## Introduction\n\nTo come.\n",
    )
    .unwrap();
    let e = load_dilemmas(Path::new(&md)).unwrap_err().to_string();
    assert!(e.contains("no dilemma found"), "{e}");
    assert!(e.contains("Table of Contents"), "{e}");
}
