//! The structured debate is faithful to the three-round article (issue #19): the sample runs
//! with simulated models, and the prompts stored in its round files hold every instruction
//! the article gives debaters and the judge; the briefings carry the standings' legend and
//! the caution about the judge; and the side totals are read through the bands (under 1
//! point evenly matched, over 3 clearly ahead, configurable), a draw being no win, in
//! briefings, win rates and the report.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use ethics_bowl::analysis::{Format as ReportFormat, analyse, write_report};
use ethics_bowl::domain::{Band, PhaseType, Reading, Round, RoundStatus, Side, TotalBands};
use ethics_bowl::protocols::structured_debate::briefing::{briefing, briefing_judgment};
use support::tournament::{manifest, run_collecting, stored_rounds, write_tournament};

/// Every phrase must be in the text; the message names the first one missing.
fn assert_holds(what: &str, text: &str, phrases: &[&str]) {
    for phrase in phrases {
        assert!(text.contains(phrase), "{what} lacks \"{phrase}\":\n{text}");
    }
}

/// The debater rules: specific, verifiable data; a clear causal chain; honesty first,
/// conceding rather than sophistry; the format.
const DEBATER_RULES: [&str; 5] = [
    "rigorous debater",
    "specific data that someone could verify",
    "clear causal chain",
    "Honesty comes first: when you cannot answer a challenge, concede the point rather than argue around it with sophistry",
    "Follow each round's format exactly",
];

/// What each cross-examination answer means, and the round's rules.
const CROSS_RULES: [&str; 6] = [
    "- refute: the argument contains a factual or logical error",
    "- challenge: its evidence is not enough, or the conditions it relies on do not hold here",
    "- concede: you accept the argument as it stands",
    "- partial: you accept its core but dispute how far it reaches or where it applies",
    "Respond to every one of the other side's arguments",
    "Introduce no new arguments",
];

/// The closing's three headed sections under the word limit.
const CLOSING_RULES: [&str; 5] = [
    "In under 200 words in all, write three sections, each under its own heading",
    "1. Concessions made",
    "2. Arguments not effectively rebutted",
    "3. Final position",
    "saying whether your position shifted during the debate and why",
];

/// Whole-number scores with both anchors of each, every fallacy with its question, every
/// standing with its meaning.
const JUDGE_RULES: [&str; 20] = [
    "impartial judge",
    "a whole number from 1 to 10 (no fractions)",
    "logic: is the reasoning sound? 1 = riddled with gaps, 10 = a flawless chain",
    "evidence: is the support strong? 1 = vague generalities, 10 = every piece can be independently verified",
    "1 = its side evaded every challenge, 10 = answered them point by point",
    "honesty: did its side argue fairly? 1 = sophistry and distortion, 10 = fair, conceding when warranted",
    "- straw_man: does it attack a claim the other side never made?",
    "- appeal_to_authority: does a famous name or title stand in for the reasoning itself?",
    "- slippery_slope: does it assume one step will set off a chain of consequences nobody can stop?",
    "- false_dilemma: does it squeeze a complex issue into an either-or choice?",
    "- anecdotal_evidence: does it rest on isolated cases where systematic evidence is needed?",
    "- circular_reasoning: is the conclusion already assumed in a premise?",
    "- ad_hominem: does it attack the other side rather than their argument?",
    "- UPHELD: it survived the debate: the decision can rely on it",
    "- PARTIALLY_UPHELD: it holds, but only within limits the debate exposed",
    "- REFUTED: it fell: the decision should not rest on it",
    "- UNCERTAIN: the debate did not settle it: more data is needed",
    "the questions it left unresolved (what a decision-maker must still check)",
    "The debaters were told to support claims with specific, verifiable data",
    "Do not total the scores",
];

/// The briefing's legend of standings and its caution.
const BRIEFING_PARTS: [&str; 7] = [
    "What a standing means for the decision:",
    "- UPHELD: it survived the debate: the decision can rely on it.",
    "- PARTIALLY UPHELD: it holds, but only within limits the debate exposed.",
    "- REFUTED: it fell: the decision should not rest on it.",
    "- UNCERTAIN: the debate did not settle it: more data is needed.",
    "The judge is a language model too: its scores, standings and recommendation are aids to the decision, not a verdict on it.",
    "a gap under 1 point reads as evenly matched, over 3 points as a significant difference",
];

// The sample models stream at a set rate: tokio's paused clock runs it at once.
#[tokio::test(start_paused = true)]
async fn the_samples_stored_prompts_hold_every_instruction_of_the_article() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = run_collecting(
        &manifest("sample-config/structured-debate.toml"),
        Some(dir.path()),
    )
    .await;
    let rounds = stored_rounds(&report);
    assert!(!rounds.is_empty());
    let mut judged = 0;
    for r in &rounds {
        let setup = r.structured().unwrap();
        assert_eq!(setup.bands, TotalBands::default(), "the sample's bands");
        for p in &r.phases {
            let what = format!("{} {:?} {:?}", r.id, p.phase_type, p.turn);
            match p.phase_type {
                PhaseType::Opening | PhaseType::CrossExamination | PhaseType::Closing => {
                    assert_holds(&what, &p.system_prompt, &DEBATER_RULES);
                }
                PhaseType::Judgment => {
                    assert_holds(&what, &p.system_prompt, &JUDGE_RULES);
                    // A judge asked again after an unreadable answer reads the request, not
                    // the debate, in its last message.
                    if !p.prompt.contains("## PRO: opening arguments") {
                        continue;
                    }
                    judged += 1;
                    // The judge reads each closing as its three headed sections.
                    assert_holds(
                        &what,
                        &p.prompt,
                        &[
                            "### Concessions made",
                            "### Arguments not effectively rebutted",
                            "### Final position (position shifted: ",
                        ],
                    );
                }
                _ => {}
            }
            // A correction's stored prompt is the correction itself.
            let first_try = p.turn.is_none_or(|t| t.attempt == 0);
            match p.phase_type {
                _ if !first_try => {}
                PhaseType::Opening => assert_holds(
                    &what,
                    &p.prompt,
                    &[
                        "the causal chain from the evidence to the claim",
                        "verifiable",
                    ],
                ),
                PhaseType::CrossExamination => assert_holds(&what, &p.prompt, &CROSS_RULES),
                PhaseType::Closing => assert_holds(&what, &p.prompt, &CLOSING_RULES),
                _ => {}
            }
        }
        if r.status == RoundStatus::Complete {
            let text =
                std::fs::read_to_string(report.dir.join("briefings").join(format!("{}.md", r.id)))
                    .unwrap();
            assert_holds(&r.id, &text, &BRIEFING_PARTS);
        }
    }
    assert!(judged >= rounds.len() / 2, "{judged} judgments");
}

/// A small tournament over the simulated models: a and b debate one topic both ways, j
/// judges; `extra` goes into the `[structured]` table.
async fn small_run(dir: &std::path::Path, extra: &str) -> Vec<Round> {
    let sim = |name: &str| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n[models.simulated]\n\
             quality = 0.7\ntokens_per_second = 0\nmalformed_judgment_rate = 0\nbroken_json_rate = 0\n"
        )
    };
    let body = format!(
        "protocol = \"structured_debate\"\nmodels = [\"a\", \"b\"]\njudges = [\"j\"]\n\
         [structured]\ntopics_file = \"{}\"\ntopics = [\"microservices_day_one\"]\n{extra}",
        manifest("sample-config/topics.toml").display()
    );
    let config = write_tournament(dir, &[sim("a"), sim("b"), sim("j")].concat(), &body);
    let (report, _) = run_collecting(&config, None).await;
    stored_rounds(&report)
}

/// The round with its judgment's totals set to these.
fn with_totals(round: &Round, pro: f64, con: f64) -> Round {
    let mut r = round.clone();
    let j = r
        .judgments
        .iter_mut()
        .find(|j| j.verdict().is_some())
        .unwrap();
    let mut v = j.verdict().unwrap().clone();
    v.pro_total = Some(pro);
    v.con_total = Some(con);
    j.reading = Reading::Verdict(Some(Box::new(v)));
    r
}

#[tokio::test]
async fn the_bands_read_the_totals_in_briefings_win_rates_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let rounds = small_run(dir.path(), "").await;
    let a_pro = rounds
        .iter()
        .find(|r| r.team_a_model == "a" && r.status == RoundStatus::Complete)
        .expect("a judged round with a as Pro");
    // Three judgments of a (Pro) against b (Con): a draw (0.5 apart), Con ahead by 2, Pro
    // clearly ahead by 3.5.
    let three = [
        with_totals(a_pro, 6.5, 6.0),
        with_totals(a_pro, 5.0, 7.0),
        with_totals(a_pro, 8.5, 5.0),
    ];
    let readings: Vec<(Option<Side>, Band)> = three
        .iter()
        .map(|r| {
            let m = briefing_judgment(r)
                .unwrap()
                .verdict()
                .unwrap()
                .margin()
                .unwrap();
            (m.winner(), m.band)
        })
        .collect();
    assert_eq!(
        readings,
        [
            (None, Band::Even),
            (Some(Side::Con), Band::Ahead),
            (Some(Side::Pro), Band::ClearlyAhead)
        ]
    );
    let text = |r: &Round| briefing(r, briefing_judgment(r).unwrap()).unwrap();
    assert_holds(
        "the draw's briefing",
        &text(&three[0]),
        &["The sides are evenly matched (0.50 points apart): a draw, with no winner"],
    );
    assert_holds(
        "Con's briefing",
        &text(&three[1]),
        &["Con is ahead by 2.00 points, not a significant difference"],
    );
    assert_holds(
        "Pro's briefing",
        &text(&three[2]),
        &["Pro is clearly ahead by 3.50 points, a significant difference"],
    );

    let analysis = analyse(&three, &Default::default());
    let f = analysis.structured.as_ref().unwrap();
    let s = &f.side;
    assert_eq!(
        (
            s.judgments,
            s.pro_wins,
            s.pro_clear_wins,
            s.con_wins,
            s.con_clear_wins,
            s.ties
        ),
        (3, 1, 1, 1, 0, 1)
    );
    let a = f.models.iter().find(|m| m.model == "a").unwrap();
    assert_eq!((a.judgments, a.wins, a.clear_wins, a.draws), (3, 1, 1, 1));
    assert_eq!(a.losses, 1);
    assert_eq!(a.win_rate.value, Some(0.5), "a draw is half a win");
    assert_eq!(a.win_rate.n, 3, "n counts rounds");
    let b = f.models.iter().find(|m| m.model == "b").unwrap();
    assert_eq!((b.wins, b.clear_wins, b.draws), (1, 0, 1));
    assert_eq!(f.bands, [TotalBands::default()]);

    let out = dir.path().join("report");
    write_report(
        &analysis,
        &out,
        &[ReportFormat::Markdown, ReportFormat::Csv],
    )
    .unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_holds(
        "report.md",
        &md,
        &[
            "a gap under 1 point reads as evenly matched, over 3 points as a significant difference (clearly ahead)",
            "a win rate counts a draw as half a win",
            "Pro won 1 (1 clearly), Con 1 (0 clearly), 1 evenly matched",
            "| a | 3 | 1 (1) | 1 | 1 | 50% (n=3, too few for an interval) |",
        ],
    );
    let csv = std::fs::read_to_string(out.join("structured_models.csv")).unwrap();
    assert!(
        csv.starts_with(
            "model,judgments,rounds,wins,clear_wins,draws,losses,win_rate,win_rate_low,win_rate_high,"
        ),
        "{csv}"
    );
    assert!(csv.contains("\na,3,3,1,1,1,1,0.5,,,"), "{csv}");
}

#[tokio::test]
async fn the_bands_come_from_the_structured_table_and_are_recorded_with_each_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let rounds = small_run(
        dir.path(),
        "bands = { even_below = 20.0, clearly_ahead_above = 30.0 }\n",
    )
    .await;
    let wide = TotalBands {
        even_below: 20.0,
        clearly_ahead_above: 30.0,
    };
    let judged: Vec<&Round> = rounds
        .iter()
        .filter(|r| r.status == RoundStatus::Complete)
        .collect();
    assert!(!judged.is_empty());
    for r in &judged {
        assert_eq!(r.structured().unwrap().bands, wide, "{}", r.id);
        let v = briefing_judgment(r).unwrap().verdict().unwrap();
        assert_eq!(v.bands, wide, "{}", r.id);
        // Totals lie between 1 and 10, so no gap reaches 20 points: every judgment a draw.
        assert_eq!(v.winner(), None, "{}", r.id);
        assert_holds(
            &r.id,
            &briefing(r, briefing_judgment(r).unwrap()).unwrap(),
            &[
                "a gap under 20 points reads as evenly matched, over 30 points as a significant difference",
            ],
        );
    }
    let f = analyse(&rounds, &Default::default()).structured.unwrap();
    assert_eq!(f.side.ties, f.side.judgments);
    assert!(
        f.models
            .iter()
            .all(|m| m.wins == 0 && m.win_rate.value == Some(0.5)),
        "only draws: every win rate is even"
    );
}
