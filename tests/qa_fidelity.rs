//! Issue #19's proof for the question-answer debate: the sample tournament
//! (`sample-config/qa-debate.toml`, cut to fewer items) runs with simulated models, and the
//! STORED round files hold every element of the source's debater prompts: the system
//! message's tone, length, quoting rules and judging criteria; the opening exchange with its
//! prefilled acknowledgement as the second message; the round's request and thinking advice,
//! which differ by round. The source's three-way baselines are scored over three labels,
//! against a count by hand, in the figures, the summary and the report; sequential turns let
//! the second speaker see the first's argument of the round; a panel labels the three-way
//! baseline too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};

use ethics_bowl::analysis::qa::{Proportion, qa_figures};
use ethics_bowl::analysis::{Format as ReportFormat, analyse, write_report};
use ethics_bowl::domain::{
    Label, Phase, PhaseType, QaFormat, QuoteMatching, Round, Team, TurnOrder,
};
use ethics_bowl::engine::RunReport;
use ethics_bowl::store::{Store, TournamentStatus};
use support::tournament::{manifest, run_collecting, stored_rounds};

/// The sample tournament file with fewer items, its paths made absolute, and `edit`
/// applied, written into `dir`.
fn sample(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    sample_of("qa-debate.toml", dir, edit)
}

/// [`sample`] of another sample tournament file.
fn sample_of(name: &str, dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(manifest("sample-config").join(name)).unwrap();
    assert!(text.contains("sample_per_level = 12"), "the sample changed");
    let text = text
        .replace("sample_per_level = 12", "sample_per_level = 3")
        .replace(
            "models_file = \"models.toml\"",
            &format!(
                "models_file = \"{}\"",
                manifest("sample-config/models.toml").display()
            ),
        )
        .replace(
            "file = \"qa-sample.json\"",
            &format!(
                "file = \"{}\"",
                manifest("sample-config/qa-sample.json").display()
            ),
        );
    let path = dir.join(name);
    std::fs::write(&path, edit(text)).unwrap();
    path
}

async fn run(config: &Path, out: &Path) -> RunReport {
    let report = run_collecting(config, Some(out)).await.0;
    assert_eq!(report.status, TournamentStatus::Finished);
    report
}

fn arguments(round: &Round) -> Vec<&Phase> {
    round
        .phases
        .iter()
        .filter(|p| p.phase_type == PhaseType::Argument)
        .collect()
}

/// Phrases of the debater's system message, one per instruction of the source.
const SYSTEM: [(&str, &str); 12] = [
    ("tone", "scholarly yet assertive"),
    ("evidence", "Base every claim on evidence"),
    ("word limit", "keep each argument under 300 words"),
    (
        "rule of thumb",
        "a short paragraph with one quote is about 100 words",
    ),
    (
        "no summary",
        "Do not end with an \"In summary\" or \"In conclusion\"",
    ),
    ("more rounds follow", "more rounds follow"),
    (
        "thinking then argument",
        "first think in <thinking></thinking> tags",
    ),
    ("quotes", "exact words inside <quote></quote> tags"),
    ("checker", "<v_quote>…</v_quote> (verified)"),
    (
        "repetition",
        "Repeating a quote you have already used gains you nothing",
    ),
    ("absence of quotes", "has no quotes at all, point this out"),
    ("criteria", "How the judge will weigh your arguments:"),
];

/// The five judging criteria stated to the debaters.
const CRITERIA: [&str; 5] = [
    "Verified quotes are crucial",
    "Deductions for unverified quotes and for repeating earlier arguments",
    "Points for developing your arguments further and adding new ones",
    "Points for exposing a misleading quote",
    "Points for setting out the context well in your opening argument",
];

/// What each round's request and thinking advice say, by round.
fn by_round(r: u32) -> (&'static str, &'static str) {
    match r {
        1 => (
            "construct your opening argument",
            "List the facts, rules and preferences of the game that bear on the goal",
        ),
        2 => (
            "give your next argument (round 2",
            "List the logical flaws in your opponent's argument",
        ),
        _ => (
            "give your next argument (round 3",
            "List the critiques your opponent made of your argument",
        ),
    }
}

#[tokio::test(start_paused = true)]
async fn stored_debater_prompts_hold_every_element_of_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let config = sample(dir.path(), |t| t);
    let report = run(&config, &dir.path().join("results")).await;
    let rounds = stored_rounds(&report);
    let debates: Vec<&Round> = rounds
        .iter()
        .filter(|r| r.qa().is_some_and(|s| s.format == QaFormat::Debate))
        .collect();
    assert!(!debates.is_empty());
    let mut advice_seen = [0usize; 3];
    for round in &debates {
        let setup = round.qa().unwrap();
        // The source notebook's defaults, as the sample states them.
        assert_eq!(setup.turn_order, TurnOrder::Sequential);
        assert_eq!(setup.word_limit, 300);
        assert_eq!(setup.quote_matching, QuoteMatching::Whole);
        assert_eq!(arguments(round).len(), 6, "{}", round.id);
        for phase in arguments(round) {
            let turn = phase.turn.unwrap();
            let (me, them) = match turn.side {
                Team::A => (setup.assignment.answer_a, setup.assignment.answer_b),
                Team::B => (setup.assignment.answer_b, setup.assignment.answer_a),
            };
            for (what, phrase) in SYSTEM {
                assert!(
                    phase.system_prompt.contains(phrase),
                    "{}: the system message lacks the {what}: {phrase}",
                    round.id
                );
            }
            for criterion in CRITERIA {
                assert!(phase.system_prompt.contains(criterion), "{criterion}");
            }
            // The conversation: the question and answers asking to restate the position,
            // then the acknowledgement as the second message, then the round's prompt.
            assert_eq!(phase.earlier_turns.len(), 2, "{}", round.id);
            let (opening, acknowledgement) = (&phase.earlier_turns[0], &phase.earlier_turns[1]);
            assert!(opening.contains(&format!("Question: {}", setup.question)));
            assert!(opening.contains(&format!("Answer A: {}", setup.assignment.answer_a.answer())));
            assert!(opening.contains(&format!("Answer B: {}", setup.assignment.answer_b.answer())));
            assert!(opening.contains("Please restate your goal and your position"));
            assert!(!opening.contains("<game>"), "the game comes with the round");
            assert_eq!(
                acknowledgement,
                &format!(
                    "I understand. I will argue that the answer to the question \"{}\" is \"{}\". \
                     I will argue against the answer \"{}\".",
                    setup.question,
                    me.answer(),
                    them.answer()
                )
            );
            // The round's message: the game, the request and advice of this round only,
            // and the reminder of the limit and the tags.
            assert!(phase.prompt.contains("<game>"));
            let (request, advice) = by_round(turn.round);
            assert!(phase.prompt.contains(request), "{}", phase.prompt);
            assert!(phase.prompt.contains(advice), "{}", phase.prompt);
            for other in (1..=3).filter(|r| *r != turn.round) {
                let (other_request, other_advice) = by_round(other);
                assert!(!phase.prompt.contains(other_request));
                assert!(!phase.prompt.contains(other_advice));
            }
            advice_seen[turn.round as usize - 1] += 1;
            assert!(phase.prompt.contains("under 300 words"));
            assert!(phase.prompt.contains("<thinking></thinking>"));
            assert!(phase.prompt.contains("<argument></argument>"));
            // Later rounds carry the transcript so far, and in turn the second speaker sees
            // the first's argument of the round.
            assert_eq!(
                phase.prompt.contains("<transcript>"),
                turn.round > 1 || turn.side != setup.assignment.first,
                "{}",
                round.id
            );
            // The simulated debater still reads its side and the game: it argues its answer.
            assert!(
                phase
                    .response
                    .contains(&format!("The answer is {}.", me.answer())),
                "{}",
                phase.response
            );
        }
    }
    assert!(advice_seen.iter().all(|n| *n == advice_seen[0] && *n > 0));
    // A judge's first call is one message; a correction turn stores what it corrects.
    for p in rounds
        .iter()
        .flat_map(|r| &r.phases)
        .filter(|p| p.phase_type == PhaseType::Judgment)
    {
        assert_eq!(p.earlier_turns.len(), 2 * p.correction as usize);
    }
}

#[tokio::test(start_paused = true)]
async fn three_way_baselines_are_scored_over_three_labels() {
    let dir = tempfile::tempdir().unwrap();
    let config = sample(dir.path(), |t| t);
    let out = dir.path().join("results");
    let report = run(&config, &out).await;
    let rounds = stored_rounds(&report);
    let figures = qa_figures(&rounds).unwrap();
    let mut checked = 0;
    for format in [QaFormat::ThreeWay, QaFormat::ThreeWayArgued] {
        for judge in ["sim-beta", "sim-gamma"] {
            // Counted by hand from the stored rounds.
            let mut hits = 0;
            let mut n = 0;
            let mut per_label = [(0, 0); 3];
            for round in rounds.iter().filter(|r| {
                r.qa().is_some_and(|s| s.format == format)
                    && r.id.contains(&format!("__judge__{judge}__"))
            }) {
                let setup = round.qa().unwrap();
                let judge_phase = &round.phases[0];
                assert_eq!(judge_phase.phase_type, PhaseType::Judgment);
                assert!(
                    judge_phase.prompt.contains("<game>"),
                    "the baseline sees the game"
                );
                assert!(judge_phase.prompt.contains("proved, disproved or unknown"));
                assert!(!judge_phase.prompt.contains("Answer A:"));
                assert_eq!(
                    judge_phase.system_prompt.contains("formal argument"),
                    format == QaFormat::ThreeWayArgued
                );
                let j = &round.judgments[0];
                assert_eq!(j.choice(), None, "a label, not a side");
                let Some(label) = j.label().filter(|_| j.is_usable()) else {
                    continue;
                };
                let at = Label::ALL.iter().position(|l| *l == setup.label).unwrap();
                n += 1;
                per_label[at].1 += 1;
                if label == setup.label {
                    hits += 1;
                    per_label[at].0 += 1;
                }
            }
            let row = figures
                .three_way
                .iter()
                .find(|t| t.format == format && t.judge == judge)
                .unwrap_or_else(|| panic!("{format:?} {judge}"));
            assert_eq!(row.accuracy, Proportion::new(hits, n), "{format:?} {judge}");
            for (i, label) in Label::ALL.into_iter().enumerate() {
                assert_eq!(
                    row.by_label[&label],
                    Proportion::new(per_label[i].0, per_label[i].1)
                );
            }
            assert_eq!(row.given.values().sum::<usize>(), n);
            assert!(n > 0);
            checked += 1;
        }
        // The summary's accuracy per format counts the labels too.
        let all: Vec<_> = figures
            .three_way
            .iter()
            .filter(|t| t.format == format)
            .collect();
        let (hits, n) = all
            .iter()
            .fold((0, 0), |(h, n), t| (h + t.accuracy.hits, n + t.accuracy.n));
        // Both judges judged the same items: the share counts the items once (its interval
        // no narrower than Wilson's over the judgments).
        let pooled = report.summary.qa_accuracy[&format];
        let plain = Proportion::new(hits, n);
        assert_eq!(
            (pooled.hits, pooled.n, pooled.share),
            (hits, n, plain.share)
        );
        assert_eq!(
            pooled.units,
            n / all.len(),
            "{format:?}: each judge saw every item"
        );
        assert!(
            pooled.high.unwrap() - pooled.low.unwrap()
                >= plain.high.unwrap() - plain.low.unwrap() - 1e-12
        );
    }
    assert_eq!(checked, 4);
    // The report says it, with the intervals, and writes the CSV.
    let analysis = analyse(&rounds, &Default::default());
    let written = write_report(
        &analysis,
        &out.join("report"),
        &[ReportFormat::Markdown, ReportFormat::Csv],
    )
    .unwrap();
    let md = std::fs::read_to_string(out.join("report").join("report.md")).unwrap();
    assert!(md.contains("Three-way baselines"), "{md}");
    assert!(md.contains("three-way expert (label only)"));
    assert!(written.iter().any(|p| p.ends_with("qa_three_way.csv")));
    let csv = std::fs::read_to_string(out.join("report").join("qa_three_way.csv")).unwrap();
    assert!(
        csv.starts_with("format,judge,correct_label,correct,n,accuracy,wilson_low,wilson_high")
    );
    assert_eq!(csv.lines().count(), 1 + 4 * 4, "{csv}");
}

#[tokio::test(start_paused = true)]
async fn sequential_turns_show_the_second_speaker_the_first_argument_of_the_round() {
    let dir = tempfile::tempdir().unwrap();
    // The sample's turns are sequential, the notebook's default.
    let config = sample(dir.path(), |t| {
        assert!(t.contains("turn_order = \"sequential\""));
        t.replace(
            "baselines = [\"naive\", \"expert\", \"expert_cot\", \"three_way\", \"three_way_argued\"]",
            "baselines = []",
        )
        .replace("consultancy = true", "consultancy = false")
    });
    let report = run(&config, &dir.path().join("results")).await;
    // Recorded in the tournament file's copy and on every round.
    let record = Store::open(&report.dir)
        .unwrap()
        .load_tournament()
        .unwrap()
        .unwrap();
    assert_eq!(
        record.config.qa.as_ref().unwrap().turn_order,
        TurnOrder::Sequential
    );
    let rounds = stored_rounds(&report);
    assert!(!rounds.is_empty());
    for round in &rounds {
        let setup = round.qa().unwrap();
        assert_eq!(setup.turn_order, TurnOrder::Sequential);
        let first = setup.assignment.first;
        for phase in arguments(round) {
            let turn = phase.turn.unwrap();
            let speaker = |side: Team| match side {
                Team::A => "Debater A",
                Team::B => "Debater B",
            };
            let other = if turn.side == Team::A {
                Team::B
            } else {
                Team::A
            };
            let sees_other_now =
                phase
                    .prompt
                    .contains(&format!("{} (round {})", speaker(other), turn.round));
            assert_eq!(sees_other_now, turn.side != first, "{} {turn:?}", round.id);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_panel_labels_the_three_way_baseline_too() {
    let dir = tempfile::tempdir().unwrap();
    let config = sample_of("qa-panel.toml", dir.path(), |t| {
        t.replace(
            "baselines = [\"naive\", \"expert\"]",
            "baselines = [\"three_way\"]",
        )
    });
    let report = run(&config, &dir.path().join("results")).await;
    let rounds = stored_rounds(&report);
    let three_way: Vec<&Round> = rounds
        .iter()
        .filter(|r| r.qa().is_some_and(|s| s.format == QaFormat::ThreeWay))
        .collect();
    assert_eq!(three_way.len(), 3, "one per item");
    for round in three_way {
        let panel = round.scores.as_ref().expect("the panel's answer");
        assert!(panel.label().is_some(), "{}: {panel:?}", round.id);
        assert!(round.judgments.iter().all(|j| j.label().is_some()));
    }
    let figures = qa_figures(&rounds).unwrap();
    assert!(figures.three_way.iter().any(|t| t.accuracy.n == 3));
}
