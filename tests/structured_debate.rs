//! The structured debate end to end: the sample tournament with simulated models (both
//! sides, three stages, the judge's trace, the report and briefings), the same protocol over
//! the in-process HTTP server (a correction retry, a cross-examination that skips an
//! argument, a closing over the word limit, totals recomputed from the weights), replies kept
//! as free text and corrected in review, and the terminal UI.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};

use ethics_bowl::analysis::{Format as ReportFormat, analyse, write_report};
use ethics_bowl::domain::{ParseStatus, PhaseType, Round, RoundStatus, Side};
use ethics_bowl::engine::{self, Correction, EngineEvent};
use ethics_bowl::store::{Store, TournamentStatus};
use serde_json::{Value, json};
use support::tournament::{manifest, remote, run_collecting, stored_rounds, write_tournament};
use support::{answering, draw, openai_answer, press};
use wiremock::{Request, Respond, ResponseTemplate};

/// Writes a models file and a structured tournament over the sample topics.
fn write(dir: &Path, models: &str, tournament: &str) -> PathBuf {
    let body = format!(
        "protocol = \"structured_debate\"\n{tournament}\n\
         [structured]\ntopics_file = \"{}\"\ntopics = [\"microservices_day_one\"]\n",
        manifest("sample-config/topics.toml").display()
    );
    write_tournament(dir, models, &body)
}

fn sim(name: &str, broken: f64) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n[models.simulated]\nquality = 0.7\n\
         tokens_per_second = 0\nmalformed_judgment_rate = 0\nbroken_json_rate = {broken}\nskip_argument_rate = 0\noverlong_rate = 0\n"
    )
}

// The sample models stream at a set rate: tokio's paused clock runs it at once.
#[tokio::test(start_paused = true)]
async fn the_sample_tournament_runs_every_stage_both_ways_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = run_collecting(
        &manifest("sample-config/structured-debate.toml"),
        Some(dir.path()),
    )
    .await;
    assert_eq!(report.status, TournamentStatus::Finished);
    let s = &report.summary;
    assert!(s.models.is_empty(), "no Ethics Bowl tables");
    assert_eq!(s.structured_models.len(), 3);
    let sides = s.structured_sides.as_ref().expect("Pro against Con");
    assert_eq!(
        sides.pro_wins + sides.con_wins + sides.ties,
        sides.judgments
    );
    assert!(
        s.structured_models
            .values()
            .all(|m| m.pro_total.n > 0 && m.con_total.n > 0)
    );
    let rounds = stored_rounds(&report);
    // Four topics, every ordered pair of three models: each pair on each topic both ways.
    assert_eq!(rounds.len(), 4 * 6);
    for r in &rounds {
        assert_eq!(r.kind().as_str(), "structured_debate");
        assert_ne!(r.status, RoundStatus::Incomplete, "{}", r.id);
        let reverse = rounds.iter().any(|o| {
            o.dilemma_id == r.dilemma_id
                && o.team_a_model == r.team_b_model
                && o.team_b_model == r.team_a_model
        });
        assert!(reverse, "{} has its mirror", r.id);
        for stage in [
            PhaseType::Opening,
            PhaseType::CrossExamination,
            PhaseType::Closing,
        ] {
            for side in Side::BOTH {
                assert!(
                    r.phases
                        .iter()
                        .any(|p| p.phase_type == stage
                            && p.turn.map(|t| t.side) == Some(side.team())),
                    "{}: {stage:?} {side:?}",
                    r.id
                );
            }
        }
        let s = r.structured().unwrap();
        assert!(!s.pro.arguments.is_empty() && !s.con.arguments.is_empty());
        assert!(s.pro.closing.is_some() && s.con.closing.is_some());
    }
    let judged: Vec<&Round> = rounds
        .iter()
        .filter(|r| r.status == RoundStatus::Complete)
        .collect();
    assert!(judged.len() >= 12);
    // Each judged round's briefing is stored beside it as the run goes.
    for r in &judged {
        assert!(
            report
                .dir
                .join("briefings")
                .join(format!("{}.md", r.id))
                .is_file(),
            "{}",
            r.id
        );
    }
    let analysis = analyse(&rounds, &Default::default());
    let f = analysis.structured.as_ref().expect("structured figures");
    assert_eq!(f.models.len(), 3);
    assert_eq!(
        f.side.pro_wins + f.side.con_wins + f.side.ties,
        f.side.judgments
    );
    let out = dir.path().join("report");
    write_report(
        &analysis,
        &out,
        &[ReportFormat::Markdown, ReportFormat::Csv],
    )
    .unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("## Structured debate")
            && md.contains("Side advantage")
            && md.contains("straw_man")
    );
    assert!(!md.contains("## Model comparison by role"));
    let briefing =
        std::fs::read_to_string(out.join("briefings").join(format!("{}.md", judged[0].id)))
            .unwrap();
    for part in [
        "# Decision briefing",
        "## Key insight",
        "## Recommendation",
        "## Argument trace",
        "| PRO-1 |",
    ] {
        assert!(briefing.contains(part), "{part}: {briefing}");
    }
    assert!(out.join("structured_models.csv").is_file());
}

/// Answers over the OpenAI wire format like a model that once ignores the JSON request,
/// skips an argument in cross-examination and runs long in its closing.
struct ScriptedDebater;

impl Respond for ScriptedDebater {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let system = messages
            .first()
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        let first_user = messages
            .get(1)
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        let corrected = messages.len() > 2;
        let pro = system.contains("(PRO side)");
        let prefix = if pro { "PRO" } else { "CON" };
        let text = if first_user.starts_with("Opening statement") {
            if pro && !corrected {
                "Let me simply say microservices are great.".to_string()
            } else {
                json!({"arguments": [
                    {"id": format!("{prefix}-1"), "claim": "The first and strongest claim", "reasoning": "Reasoning that is long enough to pass.", "evidence": "Evidence"},
                    {"id": format!("{prefix}-2"), "claim": "The second, weaker claim here", "reasoning": "More reasoning that is long enough.", "evidence": ""}
                ]})
                .to_string()
            }
        } else if first_user.starts_with("Cross-examination") {
            let other = if pro { "CON" } else { "PRO" };
            // Con answers only the first of Pro's arguments.
            let targets: Vec<String> = if pro {
                vec![format!("{other}-1"), format!("{other}-2")]
            } else {
                vec![format!("{other}-1")]
            };
            json!({"responses": targets.iter().map(|t| json!({"target_arg_id": t, "response_type": "refute", "reasoning": "It does not hold.", "follow_up_question": "Why?"})).collect::<Vec<_>>()}).to_string()
        } else if first_user.starts_with("Closing statement") {
            let words = if pro {
                "long ".repeat(210)
            } else {
                "We hold our position.".into()
            };
            json!({"concessions": [], "unrebutted_arguments": [], "final_position": words, "position_shifted": false}).to_string()
        } else {
            let a = |id: &str, e: u32| json!({"arg_id": id, "logic": 6, "evidence": e, "responsiveness": 6, "honesty": 6, "fallacies": [], "standing": "UPHELD", "reason": "r"});
            json!({"assessments": [a("PRO-1", 8), a("PRO-2", 4), a("CON-1", 6), a("CON-2", 6)], "key_insight": "k", "unresolved_questions": [], "recommendation": "r", "pro_total": 0, "con_total": 10}).to_string()
        };
        openai_answer(&text)
    }
}

#[tokio::test]
async fn over_http_a_correction_retry_a_skipped_argument_a_long_closing_and_weighted_totals() {
    let server = answering(ScriptedDebater).await;
    let dir = tempfile::tempdir().unwrap();
    let remote = |name: &str| remote(name, &server, "structured_output = true\n");
    let config = write(
        dir.path(),
        &[remote("a"), remote("b"), remote("j")].concat(),
        "models = [\"a\", \"b\"]\njudges = [\"j\"]\npairings = [[\"a\", \"b\"]]",
    );
    let (report, events) = run_collecting(&config, None).await;
    let rounds = stored_rounds(&report);
    assert_eq!(rounds.len(), 2, "a v b both ways");
    let requests = server.received_requests().await.unwrap();
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(
        first["response_format"]["type"], "json_schema",
        "structured output was asked for"
    );
    for r in &rounds {
        assert_eq!(r.status, RoundStatus::Complete, "{}", r.id);
        // Pro's first opening was prose: one correction, with the parse error quoted.
        let correction = r
            .phases
            .iter()
            .find(|p| p.turn.is_some_and(|t| t.attempt == 1))
            .expect("a correction");
        assert_eq!(correction.phase_type, PhaseType::Opening);
        assert!(
            correction.prompt.contains("could not be read")
                && correction.prompt.contains("\"arguments\"")
        );
        let s = r.structured().unwrap();
        assert_eq!(s.pro.arguments.len(), 2);
        assert!(s.fallbacks.is_empty());
        assert_eq!(s.con.violations, ["did not answer PRO-2"]);
        assert_eq!(
            s.pro.violations,
            ["the closing statement is 210 words, over the limit of 200"]
        );
        assert_eq!(s.pro.warnings, ["PRO-2: no evidence given"]);
        let v = r.judgments[0].verdict().unwrap();
        // PRO: (0.4×8 + 0.3×6 + 0.2×6 + 0.1×6 = 6.8, and 5.2) → 6.0; CON 6.0: the judge's 0 and
        // 10 are ignored.
        assert!(
            (v.pro_total.unwrap() - 6.0).abs() < 1e-9 && (v.con_total.unwrap() - 6.0).abs() < 1e-9
        );
        assert_eq!(v.winner(), None);
        assert_eq!(r.judgments[0].parse_status, ParseStatus::Parsed);
    }
    assert_eq!(replies_announced(&events), 0);
}

/// Debaters' replies the run announced as waiting for review (each once, when first stored
/// waiting).
fn replies_announced(events: &[EngineEvent]) -> usize {
    let mut progress = engine::Progress::default();
    events
        .iter()
        .flat_map(|e| progress.apply(e))
        .filter(|c| {
            matches!(c, engine::Change::NowWaiting { item, .. } if item.kind == engine::WaitingKind::Reply)
        })
        .count()
}

#[tokio::test]
async fn replies_unreadable_twice_wait_in_review_and_a_correction_clears_them() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &[sim("talker", 1.0), sim("b", 0.0), sim("j", 0.0)].concat(),
        "models = [\"talker\", \"b\"]\njudges = [\"j\"]\npairings = [[\"talker\", \"b\"]]",
    );
    let (report, events) = run_collecting(&config, None).await;
    let rounds = stored_rounds(&report);
    assert_eq!(rounds.len(), 2);
    assert_eq!(
        replies_announced(&events),
        6,
        "three stages, in each of two rounds"
    );
    let store = Store::open(&report.dir).unwrap();
    let r = rounds.iter().find(|r| r.team_a_model == "talker").unwrap();
    assert_eq!(r.status, RoundStatus::NeedsReview);
    let s = r.structured().unwrap();
    let keys: Vec<&str> = s.fallbacks.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(
        keys,
        ["pro.opening", "pro.cross_examination", "pro.closing"]
    );
    assert_eq!(s.pro.arguments.len(), 1, "the prose kept as one argument");
    // Fix all three; the round is complete once none waits.
    let fixes = [
        ("pro.opening", r#"{"arguments": [{"id": "PRO-1", "claim": "A clear claim here", "reasoning": "Reasoning long enough to pass.", "evidence": "e"}]}"#.to_string()),
        ("pro.cross_examination", json!({"responses": s.con.arguments.iter().map(|a| json!({"target_arg_id": a.id, "response_type": "challenge", "reasoning": "r", "follow_up_question": ""})).collect::<Vec<_>>()}).to_string()),
        ("pro.closing", r#"{"concessions": [], "unrebutted_arguments": [], "final_position": "Adopt it.", "position_shifted": false}"#.to_string()),
    ];
    let refused = engine::apply_reply_correction(
        &store,
        &r.id,
        "pro.opening",
        &Correction::Text("still prose".into()),
    );
    assert!(refused.unwrap_err().contains("still not readable"));
    let mut last = None;
    for (key, text) in fixes {
        last = Some(
            engine::apply_reply_correction(&store, &r.id, key, &Correction::Text(text)).unwrap(),
        );
    }
    let fixed = last.unwrap();
    assert_eq!(fixed.status, RoundStatus::Complete);
    let stored = store.load_round(&r.id).unwrap().unwrap();
    assert!(
        stored
            .structured()
            .unwrap()
            .fallbacks
            .iter()
            .all(|f| f.corrected_text.is_some())
    );
    assert_eq!(
        stored.structured().unwrap().pro.arguments[0].claim,
        "A clear claim here"
    );
}

#[tokio::test]
async fn the_terminal_ui_shows_the_matrix_replies_and_the_briefing() {
    use crossterm::event::KeyCode;
    use ethics_bowl::tui::{App, browse};

    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &[sim("a", 0.0), sim("b", 0.0), sim("j", 0.0)].concat(),
        "models = [\"a\", \"b\"]\njudges = [\"j\"]",
    );
    let (report, _) = run_collecting(&config, None).await;
    let mut rounds = stored_rounds(&report);
    for r in &mut rounds {
        for p in &mut r.phases {
            p.latency_ms = None;
        }
    }
    let mut app: App = browse("sd", &rounds, std::time::Instant::now());
    let matrix = draw(&app);
    let text = matrix.backend().to_string();
    assert!(
        text.contains("Pro vs Con") && text.contains("(Pro−Con)"),
        "{text}"
    );
    insta::assert_snapshot!("structured_matrix_120x40", matrix.backend());
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Home);
    let transcript = draw(&app);
    let text = transcript.backend().to_string();
    assert!(
        text.contains("Opening statement") && text.contains("PRO-1 ") && text.contains("evidence:"),
        "{text}"
    );
    assert!(
        !text.contains("\"arguments\""),
        "replies shown as what they say: {text}"
    );
    insta::assert_snapshot!("structured_transcript_120x40", transcript.backend());
    press(&mut app, KeyCode::Tab);
    let verdict = draw(&app);
    let text = verdict.backend().to_string();
    assert!(
        text.contains("Key insight")
            && text.contains("Argument trace")
            && text.contains("stronger case"),
        "{text}"
    );
    insta::assert_snapshot!("structured_verdict_120x40", verdict.backend());
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('s'));
    assert!(draw(&app).backend().to_string().contains("total as Pro"));
}
