//! The question-answer debate end to end: the loader on the real BoardgameQA files, a whole
//! tournament with simulated debaters and judges (quotes, word limits, the blind judge, the
//! balanced sample), the metrics against values counted by hand, a debate over the
//! in-process HTTP server, the review path for an unreadable verdict, and config errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};

use ethics_bowl::analysis::qa::{Proportion, qa_figures, wilson};
use ethics_bowl::analysis::{Format as ReportFormat, analyse, write_report};
use ethics_bowl::domain::ScheduledRound;
use ethics_bowl::domain::{
    Assignment, Label, ParseStatus, Phase, PhaseType, QaChoice, QaFormat, QaItem, QuoteMatching,
    Round, RoundStatus, SampledItem, Team, Turn,
};
use ethics_bowl::engine::{self, Correction, RunReport};
use ethics_bowl::inputs::{load_items, sample};
use ethics_bowl::protocols::Protocol;
use ethics_bowl::protocols::judging::JudgeAnswer;
use ethics_bowl::protocols::qa_debate::quotes::{
    GameText, show_argument, split_rules, split_sentences,
};
use ethics_bowl::protocols::qa_debate::{QaDebate, QaRules};
use ethics_bowl::store::{Store, TournamentStatus};
use serde_json::Value;
use support::tournament::{manifest, remote, run_collecting, stored_rounds, write_tournament};
use support::{answering, draw, openai_answer, press};
use wiremock::{Request, Respond, ResponseTemplate};

/// A simulated model with the question-answer knobs.
fn sim(name: &str, quality: f64, malformed: f64) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
         [models.simulated]\nquality = {quality}\ntokens_per_second = 0\nmalformed_judgment_rate = {malformed}\n\
         failure_rate = 0.0\ninvented_quote_rate = 0.2\nbluff_rate = 0.8\noverlong_rate = 0.3\n"
    )
}

/// Writes `models.toml` and a question-answer `tournament.toml` over the sample items.
fn write(dir: &Path, models: &str, tournament: &str, qa: &str) -> PathBuf {
    let body = format!(
        "protocol = \"qa_debate\"\n{tournament}\n\
         [qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\n{qa}",
        manifest("sample-config/qa-sample.json").display()
    );
    write_tournament(dir, models, &body)
}

#[test]
fn real_boardgameqa_files_load_with_their_levels_and_quotes_verify() {
    let dir = manifest("../shared/data/boardgameqa");
    if !dir.is_dir() {
        eprintln!("skipped: {} is absent (see its SOURCE.md)", dir.display());
        return;
    }
    let mut all = Vec::new();
    for (file, n, level) in [
        ("Main-depth1-test.json", 1000, "Main-depth1"),
        ("Main-depth2-valid.json", 500, "Main-depth2"),
        ("Main-depth3-valid.json", 500, "Main-depth3"),
    ] {
        let loaded = load_items(&dir.join(file), None).expect("loads");
        assert!(loaded.skipped.is_empty(), "{file}: {:?}", loaded.skipped);
        assert_eq!(loaded.items.len(), n, "{file}");
        for item in &loaded.items {
            assert_eq!(item.level, level);
            assert!(
                item.question.ends_with('?'),
                "{}: {}",
                item.id,
                item.question
            );
            assert!(
                !item.question.contains("Rule1"),
                "{}: {}",
                item.id,
                item.question
            );
            // The notebook's checker: every whole fact, rule (with or without its label) and
            // preference verifies as it stands, in any case and without its punctuation...
            let game = GameText::new(&item.facts, &item.rules, &item.preferences);
            let fragments = game.clone().with_matching(QuoteMatching::Fragment);
            for unit in split_sentences(&item.facts)
                .iter()
                .chain(&split_rules(&item.rules))
                .chain(&split_sentences(&item.preferences))
            {
                assert!(game.contains(unit), "{}: {unit}", item.id);
                assert!(game.contains(&unit.to_uppercase().replace([',', '.', ':'], " ")));
                assert!(fragments.contains(unit), "{}: {unit}", item.id);
            }
            for rule in split_rules(&item.rules) {
                let (_, body) = rule.split_once(": ").expect("RuleN: …");
                assert!(game.contains(body), "{}: {body}", item.id);
                // ...but a fragment does not: a rule's consequent, the misleading quote
                // BoardgameQA invites (verified only by fragment matching).
                if let Some((_, consequent)) = body.split_once(", then ") {
                    assert!(!game.contains(consequent), "{}: {consequent}", item.id);
                    assert!(fragments.contains(consequent), "{}: {consequent}", item.id);
                }
            }
            assert!(!game.contains("the unicorn plays chess with the kraken"));
        }
        let labels = |l: Label| loaded.items.iter().filter(|i| i.label == l).count();
        assert!(Label::ALL.iter().all(|l| labels(*l) >= n / 3 - 1));
        all.extend(loaded.items);
    }
    // 30 per level, 10 per label, sides balanced within each label.
    let s = sample(&all, 30, 11, 0.0);
    assert_eq!(s.len(), 90);
    for level in ["Main-depth1", "Main-depth2", "Main-depth3"] {
        for label in Label::ALL {
            let picked: Vec<&SampledItem> = s
                .iter()
                .map(|(_, x)| x)
                .filter(|x| x.level == level && x.label == label)
                .collect();
            assert_eq!(picked.len(), 10);
            let a = picked
                .iter()
                .filter(|x| x.assignment.correct_side == Some(Team::A))
                .count();
            let first = picked
                .iter()
                .filter(|x| x.assignment.first == Team::A)
                .count();
            assert_eq!((a, first), (5, 6), "{level} {label:?}");
            // The wrong answer is the next label around the cycle, so each label is
            // offered as a wrong answer (against the label before it).
            for x in &picked {
                let wrong = if x.assignment.correct_side == Some(Team::A) {
                    x.assignment.answer_b
                } else {
                    x.assignment.answer_a
                };
                assert_eq!(wrong, label.next(), "{}", x.item_id);
            }
        }
    }
    assert_eq!(
        s,
        sample(&all, 30, 11, 0.0),
        "the same seed, the same sample"
    );
}

#[test]
fn the_shipped_12_item_sample_offers_each_label_as_a_wrong_answer() {
    let items = load_items(&manifest("sample-config/qa-sample.json"), Some("Sample"))
        .expect("loads")
        .items;
    // sample-config/qa-debate.toml's seed, and others.
    for seed in [7, 0, 1, 42] {
        let s = sample(&items, 12, seed, 0.0);
        assert_eq!(s.len(), 12);
        let mut wrong_count = std::collections::BTreeMap::new();
        for (_, x) in &s {
            let a = x.assignment;
            let wrong = match a.correct_side {
                Some(Team::A) => a.answer_b,
                Some(Team::B) => a.answer_a,
                None => panic!("no item has both answers wrong"),
            };
            assert_eq!(
                wrong,
                x.label.next(),
                "proved → disproved → unknown → proved"
            );
            *wrong_count.entry(wrong).or_insert(0) += 1;
        }
        // Four items per label: each label is the wrong answer four times, "unknown"
        // included, so a judge that never believes "unknown" is right half the time, not
        // two thirds.
        assert_eq!(
            wrong_count.into_iter().collect::<Vec<_>>(),
            vec![
                (Label::Proved, 4),
                (Label::Disproved, 4),
                (Label::Unknown, 4)
            ],
            "seed {seed}"
        );
    }
    // With both answers wrong: the next two labels around the cycle.
    for (_, x) in sample(&items, 12, 7, 1.0) {
        let a = x.assignment;
        assert_eq!(a.correct_side, None);
        let pair = [a.answer_a, a.answer_b];
        assert!(pair.contains(&x.label.next()) && pair.contains(&x.label.next().next()));
    }
}

async fn run(config: &Path) -> RunReport {
    run_collecting(config, None).await.0
}

#[tokio::test]
async fn a_simulated_tournament_runs_debates_consultancies_and_baselines() {
    let dir = tempfile::tempdir().unwrap();
    let models = [sim("big", 0.9, 0.1), sim("small", 0.5, 0.1)].concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"big\", \"small\"]\njudges = [\"small\"]\nself_debates = true",
        "sample_per_level = 6\nseed = 3\ndebate_rounds = 2\nword_limit = 40\nconsultancy = true\n\
         strength_order = [\"big\", \"small\"]\nrelations = [\"self_play\", \"stronger\", \"mixed\"]\n",
    );
    let report = run(&config).await;
    assert_eq!(report.status, TournamentStatus::Finished);
    // The summary holds what this protocol measures, with no empty model key from the
    // baselines (which have no Team B), and says the cost leaves out the unpriced models.
    let s = &report.summary;
    assert!(
        s.models.is_empty() && s.matrix.is_empty(),
        "no Ethics Bowl tables"
    );
    assert!(s.qa_accuracy.contains_key(&QaFormat::Debate));
    let by_judge = &s.qa_accuracy_by_judge["small"];
    assert_eq!(by_judge.len(), s.qa_accuracy.len());
    assert_eq!(
        by_judge.values().map(|p| p.n).sum::<usize>(),
        s.qa_accuracy.values().map(|p| p.n).sum::<usize>(),
        "one judge: its accuracy is the whole's"
    );
    assert!(s.cost_is_partial);
    assert_eq!(s.unpriced_models, ["big", "small"]);
    let json = std::fs::read_to_string(report.dir.join("summary.json")).unwrap();
    assert!(!json.contains("\"\":"), "no empty key: {json}");
    assert!(json.contains("\"big\": null"), "{json}");
    let rounds = stored_rounds(&report);
    // Per item: 3 baselines, 2 consultancies, 4 debates (big v big, big v small, small v big,
    // small v small).
    assert_eq!(rounds.len(), 6 * 9);
    assert!(rounds.iter().all(|r| r.status != RoundStatus::Incomplete));

    let record = Store::open(&report.dir)
        .unwrap()
        .load_tournament()
        .unwrap()
        .unwrap();
    assert_eq!(record.protocol.as_str(), "qa_debate");
    assert_eq!(record.qa_sample.len(), 6);
    for label in Label::ALL {
        let of: Vec<_> = record
            .qa_sample
            .iter()
            .filter(|s| s.label == label)
            .collect();
        assert_eq!(of.len(), 2);
        assert_eq!(
            of.iter()
                .filter(|s| s.assignment.correct_side == Some(Team::A))
                .count(),
            1,
            "which side is correct alternates"
        );
    }

    let (mut cuts, mut verified, mut unverified) = (0, 0, 0);
    for r in &rounds {
        let setup = r.qa().expect("setup");
        let arguments: Vec<&Phase> = r
            .phases
            .iter()
            .filter(|p| p.phase_type == PhaseType::Argument)
            .collect();
        assert_eq!(arguments.len(), 2 * setup.format.debaters(), "{}", r.id);
        let judge = r
            .phases
            .iter()
            .find(|p| p.phase_type == PhaseType::Judgment)
            .expect("judged");
        // The judge is blind: no game, no private thinking, no unchecked quote.
        assert_eq!(
            judge.prompt.contains("<game>"),
            setup.format.judge_sees_game(),
            "{}",
            r.id
        );
        if !setup.format.judge_sees_game() {
            let first_fact = split_sentences(&setup.facts)[0].clone();
            assert!(!judge.prompt.contains(&first_fact), "{}", r.id);
        }
        assert!(
            !judge.prompt.contains("<thinking>")
                && !judge.prompt.contains("My reading of the game")
        );
        assert!(!judge.prompt.contains("<quote>"));
        // The stored records match a recount.
        let game = GameText::new(&setup.facts, &setup.rules, &setup.preferences);
        for (side, record) in [(Team::A, setup.debater_a), (Team::B, setup.debater_b)] {
            let (mut v, mut u, mut c) = (0, 0, 0);
            for p in arguments
                .iter()
                .filter(|p| p.turn.map(|t| t.side) == Some(side))
            {
                let shown = show_argument(&p.response, 40, &game);
                v += shown.verified;
                u += shown.unverified;
                c += u32::from(shown.cut);
                if shown.cut {
                    assert!(judge.prompt.contains("[cut at the word limit]"));
                }
            }
            assert_eq!(
                (
                    record.verified_quotes,
                    record.unverified_quotes,
                    record.word_limit_violations
                ),
                (v, u, c)
            );
        }
        cuts += setup.debater_a.word_limit_violations + setup.debater_b.word_limit_violations;
        verified += setup.debater_a.verified_quotes + setup.debater_b.verified_quotes;
        unverified += setup.debater_a.unverified_quotes + setup.debater_b.unverified_quotes;
    }
    assert!(
        cuts > 0 && verified > 0 && unverified > 0,
        "{cuts} {verified} {unverified}"
    );

    // The metrics against an independent count over the raw files.
    let figures = qa_figures(&rounds).expect("figures");
    let mut counted: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    let mut items: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    let mut awaiting = 0;
    for entry in std::fs::read_dir(report.dir.join("rounds")).unwrap() {
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        let j = &v["judgments"][0];
        let usable = matches!(
            j["parse_status"].as_str(),
            Some("parsed" | "corrected_by_hand")
        );
        if !usable {
            awaiting += 1;
            continue;
        }
        let slot = counted
            .entry(v["qa"]["format"].as_str().unwrap().to_string())
            .or_default();
        slot.0 += usize::from(j["choice"]["side"] == v["qa"]["assignment"]["correct_side"]);
        slot.1 += 1;
        items
            .entry(v["qa"]["format"].as_str().unwrap().to_string())
            .or_default()
            .insert(v["qa"]["item_id"].as_str().unwrap().to_string());
    }
    assert_eq!(figures.awaiting_review, awaiting);
    for (format, p) in &figures.by_format {
        let (hits, n) = counted[format.as_str()];
        assert_eq!((p.hits, p.n), (hits, n), "{format:?}");
        // The interval counts items: Wilson's over the judgments when each item was judged
        // once, and no narrower than that when items were judged several times.
        let units = items[format.as_str()].len();
        assert_eq!(p.units, units, "{format:?}");
        let (low, high) = wilson(hits, n).unwrap();
        if units == n {
            assert_eq!((p.low, p.high), (Some(low), Some(high)));
        } else {
            let width = p.high.unwrap() - p.low.unwrap();
            assert!(width >= high - low - 1e-12, "{format:?}: {p:?}");
        }
    }
    let analysis = analyse(&rounds, &Default::default());
    let out = dir.path().join("report");
    let written = write_report(
        &analysis,
        &out,
        &[ReportFormat::Markdown, ReportFormat::Csv, ReportFormat::Svg],
    )
    .unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("## Question-answer debate: judge accuracy") && md.contains("| naive judge |")
    );
    assert!(
        !md.contains("## Model comparison by role"),
        "no Ethics Bowl tables for a QA tournament"
    );
    assert!(written.iter().any(|p| p.ends_with("qa_accuracy.svg")));
}

/// Builds a round of `format` on a hand-made item with one correct answer on `correct`,
/// judged as given.
fn judged_round(
    format: QaFormat,
    debaters: (&str, &str),
    correct: Team,
    first: Team,
    choice: Team,
    confidence: f64,
    n: usize,
) -> Round {
    let item = QaItem {
        id: format!("i{n}"),
        level: "L".into(),
        index: n,
        facts: "The cat has 5 friends.".into(),
        rules: "Rule1: If the cat has more than 3 friends, then the cat attacks the dog.".into(),
        preferences: String::new(),
        question: "Does the cat attack the dog?".into(),
        label: Label::Proved,
        proof: String::new(),
    };
    let (answer_a, answer_b) = match correct {
        Team::A => (Label::Proved, Label::Unknown),
        Team::B => (Label::Unknown, Label::Proved),
    };
    let sampled = SampledItem {
        item_id: item.id.clone(),
        level: "L".into(),
        index: n,
        label: Label::Proved,
        assignment: Assignment {
            answer_a,
            answer_b,
            correct_side: Some(correct),
            first,
        },
    };
    let protocol = QaDebate::new([(item, sampled)], QaRules::default());
    let mut round = protocol
        .new_round(&ScheduledRound {
            round_id: format!("r{n}"),
            dilemma_id: format!("i{n}"),
            repetition: 1,
            team_a: debaters.0.into(),
            team_b: debaters.1.into(),
            judges: vec!["judge".into()],
            format: Some(format),
            relation: None,
        })
        .unwrap();
    let j = protocol.judge(
        &round,
        "judge",
        JudgeAnswer::free_text(&format!("Answer: {choice:?}\nConfidence: {confidence}")),
    );
    assert_eq!(
        j.choice().copied(),
        Some(QaChoice {
            side: choice,
            confidence: Some(confidence)
        })
    );
    assert_eq!(j.parse_status, ParseStatus::Parsed);
    round.put_judgment(j);
    round.status = RoundStatus::Complete;
    round
}

/// Debaters with a configured `skill` are judged by the truth rule through the engine: the
/// judge learns who is read first and whose answer is right from the schedule. A huge
/// position bias between equally skilled debaters makes it pick the debater read first
/// every time, whichever is right; without it, its picks follow the text as before.
#[tokio::test]
async fn a_simulated_judge_of_skilled_debaters_leans_to_the_debater_read_first() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        format!("{}skill = 0.5\n", sim("d1", 0.9, 0.0)),
        format!("{}skill = 0.5\n", sim("d2", 0.5, 0.0)),
        format!("{}position_bias = 50.0\n", sim("j", 0.5, 0.0)),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"d1\", \"d2\"]\njudges = [\"j\"]",
        "sample_per_level = 6\nseed = 3\ndebate_rounds = 1\nword_limit = 40\nbaselines = []\n\
         strength_order = [\"d1\", \"d2\", \"j\"]\n",
    );
    let report = run(&config).await;
    assert_eq!(report.status, TournamentStatus::Finished);
    let mut debates = 0;
    for round in stored_rounds(&report) {
        let setup = round.qa().unwrap();
        if setup.format != QaFormat::Debate || setup.assignment.correct_side.is_none() {
            continue;
        }
        debates += 1;
        let choice = round.judgments[0].choice().unwrap();
        assert_eq!(choice.side, setup.assignment.first, "{}", round.id);
        assert_eq!(choice.confidence, Some(99.0), "{}", round.id);
    }
    assert!(debates >= 6, "{debates}");
}

#[test]
fn metrics_match_values_counted_by_hand() {
    use QaFormat::*;
    use Team::{A, B};
    let rounds = vec![
        // Debates: x v y three times (right, right, wrong), y v x once (right).
        judged_round(Debate, ("x", "y"), A, A, A, 95.0, 1),
        judged_round(Debate, ("x", "y"), B, A, B, 85.0, 2),
        judged_round(Debate, ("x", "y"), A, B, B, 65.0, 3),
        judged_round(Debate, ("y", "x"), B, B, B, 75.0, 4),
        // Baselines: naive 1 of 2, expert 2 of 2.
        judged_round(Naive, ("", ""), A, A, B, 55.0, 5),
        judged_round(Naive, ("", ""), B, A, B, 52.0, 6),
        judged_round(Expert, ("", ""), A, A, A, 80.0, 7),
        judged_round(Expert, ("", ""), B, A, B, 90.0, 8),
    ];
    let f = qa_figures(&rounds).unwrap();
    assert_eq!(f.by_format[&Debate], Proportion::new(3, 4));
    assert_eq!(f.by_format[&Naive], Proportion::new(1, 2));
    assert_eq!(f.by_format[&Expert], Proportion::new(2, 2));
    // Wilson for 3 of 4, worked by hand with z² = 3.8415: centre (0.75 + 3.8415/8) /
    // (1 + 3.8415/4) = 0.6275, half-width 1.96/1.9604 × sqrt(0.75 × 0.25/4 + 3.8415/64) =
    // 0.3269, so 0.3006 to 0.9544.
    let d = f.by_format[&Debate];
    assert!(
        (d.low.unwrap() - 0.3006).abs() < 1e-3 && (d.high.unwrap() - 0.9544).abs() < 1e-3,
        "{d:?}"
    );
    let lift = &f.lifts[0];
    assert!((lift.lift_over_naive.value.unwrap() - 0.25).abs() < 1e-12);
    assert!((lift.gap_to_expert.value.unwrap() - 0.25).abs() < 1e-12);
    // Each round is its own item: six items with a debate or a naive judgment, too few for
    // an interval.
    assert_eq!(
        (lift.lift_over_naive.n, lift.lift_over_naive.low),
        (6, None)
    );
    // Positions: the correct answer was A's in rounds 1 and 3 (1 of 2 right), B's in 2 and 4
    // (2 of 2); the correct debater was read first in 1 and 4 (2 of 2), second in 2 and 3
    // (1 of 2).
    let p = &f.positions[0];
    assert_eq!(
        (p.correct_a, p.correct_b),
        (Proportion::new(1, 2), Proportion::new(2, 2))
    );
    assert_eq!(
        (p.correct_first, p.correct_second),
        (Proportion::new(2, 2), Proportion::new(1, 2))
    );
    // x held the correct answer in rounds 1 (won), 3 (lost) and 4 (as B, won), the
    // incorrect one in round 2 (lost); y the reverse.
    let x = f.debaters.iter().find(|d| d.model == "x").unwrap();
    assert_eq!(x.wins_when_correct, Proportion::new(2, 3), "rounds 1, 3, 4");
    assert_eq!(x.wins_when_incorrect, Proportion::new(0, 1), "round 2");
    let y = f.debaters.iter().find(|d| d.model == "y").unwrap();
    assert_eq!(y.wins_when_correct, Proportion::new(1, 1), "round 2");
    assert_eq!(
        y.wins_when_incorrect,
        Proportion::new(1, 3),
        "rounds 1, 3, 4: won round 3"
    );
    // Cross-play only: x won rounds 1 and 4, y won 2 and 3; equal ratings.
    let (rx, ry) = (
        x.persuasiveness.as_ref().unwrap(),
        y.persuasiveness.as_ref().unwrap(),
    );
    assert_eq!((rx.matches, ry.matches), (4, 4));
    assert!((rx.rating - ry.rating).abs() < 1e-6);
    // Calibration: 90–100 holds 95 (right) and 90 (right); 60–70 holds 65 (wrong).
    let bin = |low: f64| f.calibration.iter().find(|b| b.low == low).unwrap();
    assert_eq!(bin(90.0).accuracy, Proportion::new(2, 2));
    assert_eq!(bin(90.0).mean_confidence.mean, Some(92.5));
    assert_eq!(bin(60.0).accuracy, Proportion::new(0, 1));
    assert_eq!(bin(50.0).accuracy, Proportion::new(1, 2));
    assert!(f.both_wrong.is_none());
}

/// Answers like a real model over the OpenAI wire format: debaters quote the game's first
/// fact (and are refused unless their opening exchange is on the wire), judges pick A.
struct ScriptedModel;

impl Respond for ScriptedModel {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let user = messages
            .last()
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        let text = if system.contains("expert debater") {
            // The opening exchange goes over the wire: the question, then the prefilled
            // acknowledgement as the assistant's message, then the round.
            let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
            if roles != ["system", "user", "assistant", "user"]
                || !messages[2]["content"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("I understand. I will argue that the answer")
            {
                return ResponseTemplate::new(400);
            }
            let fact = user
                .split("The current state of the game:\n")
                .nth(1)
                .and_then(|rest| rest.split(". ").next())
                .unwrap_or_default();
            format!(
                "<thinking>quote the facts</thinking><argument>Look: <quote>{fact}</quote>, and <quote>the moon is cheese</quote>.</argument>"
            )
        } else {
            "The verified quote decides it.\nAnswer: A\nConfidence: 70".to_string()
        };
        openai_answer(&text)
    }
}

#[tokio::test]
async fn a_debate_over_the_http_test_server() {
    let server = answering(ScriptedModel).await;
    let dir = tempfile::tempdir().unwrap();
    let models = remote("remote", &server, "");
    let config = write(
        dir.path(),
        &models,
        "models = [\"remote\"]\njudges = [\"remote\"]\nself_debates = true",
        "sample_per_level = 3\ndebate_rounds = 1\nbaselines = [\"naive\"]\nrelations = [\"self_play\"]\n",
    );
    let report = run(&config).await;
    let rounds = stored_rounds(&report);
    assert_eq!(rounds.len(), 6, "3 items × (naive + self-play debate)");
    for r in &rounds {
        assert_eq!(r.status, RoundStatus::Complete, "{}", r.id);
        let setup = r.qa().unwrap();
        let j = &r.judgments[0];
        assert_eq!(j.choice().map(|c| c.side), Some(Team::A));
        if setup.format == QaFormat::Debate {
            assert_eq!(
                (
                    setup.debater_a.verified_quotes,
                    setup.debater_a.unverified_quotes
                ),
                (1, 1)
            );
            let judge = r
                .phases
                .iter()
                .find(|p| p.phase_type == PhaseType::Judgment)
                .unwrap();
            assert!(
                judge
                    .prompt
                    .contains("<u_quote>the moon is cheese</u_quote>")
            );
            assert!(
                !judge.prompt.contains("quote the facts"),
                "thinking stays private"
            );
            assert!(
                r.phases
                    .iter()
                    .any(|p| p.turn == Some(Turn::new(Team::B, 1)))
            );
        }
    }
}

#[tokio::test]
async fn an_unreadable_verdict_goes_to_review_and_a_correction_clears_it() {
    let dir = tempfile::tempdir().unwrap();
    let models = [sim("d", 0.8, 0.0), sim("muddled", 0.8, 1.0)].concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"d\"]\njudges = [\"muddled\"]\nself_debates = true",
        "sample_per_level = 3\ndebate_rounds = 1\nbaselines = []\nstrength_order = [\"d\", \"muddled\"]\n",
    );
    let report = run(&config).await;
    let rounds = stored_rounds(&report);
    assert_eq!(rounds.len(), 3);
    let r = &rounds[0];
    assert_eq!(r.status, RoundStatus::NeedsReview);
    assert_eq!(r.judgments[0].parse_status, ParseStatus::Failed);
    let store = Store::open(&report.dir).unwrap();
    let refused = engine::apply_correction(
        &store,
        &r.id,
        "muddled",
        &Correction::Text("I think B".into()),
    );
    assert!(refused.unwrap_err().contains("is still incomplete"));
    let (fixed, judgment) = engine::apply_correction(
        &store,
        &r.id,
        "muddled",
        &Correction::Text("Answer: B\nConfidence: 60".into()),
    )
    .unwrap();
    assert_eq!(fixed.status, RoundStatus::Complete);
    assert_eq!(judgment.parse_status, ParseStatus::CorrectedByHand);
    assert_eq!(
        judgment.choice().copied(),
        Some(QaChoice {
            side: Team::B,
            confidence: Some(60.0)
        })
    );
    assert!(
        !judgment.raw_response.is_empty(),
        "the judge's own text is kept"
    );
}

#[test]
fn configuration_errors_name_the_key_or_file() {
    let dir = tempfile::tempdir().unwrap();
    let models = sim("d", 0.8, 0.0);
    let err = |tournament: &str, qa: &str| {
        let config = write(dir.path(), &models, tournament, qa);
        engine::prepare(&config, None).unwrap_err().to_string()
    };
    let config = write(
        dir.path(),
        &models,
        "models = [\"d\"]\njudges = [\"d\"]",
        "relations = [\"self_play\"]\n",
    );
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("qa-sample.json", "missing.json")).unwrap();
    let e = engine::prepare(&config, None).unwrap_err().to_string();
    assert!(
        e.contains("missing.json") && e.contains("qa.datasets"),
        "{e}"
    );
    let e = err(
        "models = [\"d\"]\njudges = [\"d\"]",
        "strength_order = [\"x\"]\n",
    );
    assert!(
        e.contains("qa.strength_order") && e.contains("\"d\""),
        "{e}"
    );
    let e = err(
        "models = [\"d\"]\njudges = [\"d\"]\njudging = \"panel\"",
        "",
    );
    assert!(e.contains("judging"), "{e}");
    let text = std::fs::read_to_string(dir.path().join("tournament.toml")).unwrap();
    std::fs::write(
        dir.path().join("tournament.toml"),
        text.replace("[qa]", "[other]"),
    )
    .unwrap();
    let e = engine::prepare(&dir.path().join("tournament.toml"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("other"), "{e}");
}

#[tokio::test]
async fn the_terminal_ui_shows_configurations_verdicts_quotes_and_accuracy() {
    use crossterm::event::KeyCode;
    use ethics_bowl::tui::{App, browse};

    let dir = tempfile::tempdir().unwrap();
    let models = [sim("big", 0.9, 0.0), sim("small", 0.5, 0.0)].concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"big\"]\njudges = [\"small\"]\nself_debates = true",
        "sample_per_level = 4\nseed = 3\ndebate_rounds = 2\nword_limit = 40\nstrength_order = [\"big\", \"small\"]\n",
    );
    let report = run(&config).await;
    let mut rounds = stored_rounds(&report);
    for r in &mut rounds {
        for p in &mut r.phases {
            p.latency_ms = None; // timing varies from run to run
        }
    }
    let mut app: App = browse("qa", &rounds, std::time::Instant::now());
    let matrix = draw(&app);
    let text = matrix.backend().to_string();
    assert!(
        text.contains("Configuration · judge") && text.contains("debate big v big · small"),
        "{text}"
    );
    assert!(
        text.contains("Judge accuracy so far") && text.contains("expert_cot"),
        "{text}"
    );
    assert!(text.contains('✓') || text.contains('✗'), "{text}");
    insta::assert_snapshot!("qa_matrix_120x40", matrix.backend());
    // The debate row is the first; open its first round.
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Home);
    let transcript = draw(&app);
    let text = transcript.backend().to_string();
    assert!(
        text.contains("▸ thinking") && text.contains("hidden from the judge"),
        "{text}"
    );
    assert!(
        !text.contains("My reading of the game"),
        "thinking is folded: {text}"
    );
    assert!(
        text.contains("✓“") || text.contains("✗“"),
        "quotes are marked: {text}"
    );
    insta::assert_snapshot!("qa_transcript_120x40", transcript.backend());
    press(&mut app, KeyCode::Tab);
    let verdict = draw(&app);
    let text = verdict.backend().to_string();
    assert!(
        text.contains("← correct") && text.contains("Judge small: chose"),
        "{text}"
    );
    insta::assert_snapshot!("qa_verdict_120x40", verdict.backend());
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('s'));
    let text = draw(&app).backend().to_string();
    assert!(
        text.contains("wins when correct") && text.contains("big"),
        "{text}"
    );
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('a'));
    // The report's sections: usage, then the question-answer debate's.
    press(&mut app, KeyCode::Tab);
    let text = draw(&app).backend().to_string();
    assert!(
        text.contains("Question-answer debate: judge accuracy")
            && text.contains("Debate against the baselines"),
        "the question-answer debate's own section: {text}"
    );
    assert!(
        text.contains("Accuracy per configuration") && text.contains("naive"),
        "{text}"
    );
    assert!(!text.contains("Dilemma"), "no Ethics Bowl section: {text}");
}
