//! UI benchmarks: the time to build and diff one frame with 1,000 rounds in the matrix and
//! 20 rounds streaming, the rate at which text-delta events are applied to the state, the
//! rate at which stored rounds are taken in (each sanitised whole as it enters), and one frame
//! of a long transcript's last screenful (a finished round, every phase's prompt shown).
//!
//! cargo run --release --example bench_tui

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

use std::sync::Arc;
use std::time::{Duration, Instant};

use ethics_bowl::domain::{Phase, PhaseType, Round, RoundRecord, ScheduledRound};
use ethics_bowl::engine::{EngineEvent, ScheduledState};
use ethics_bowl::tui::{App, Mode, Msg, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn tournament(now: Instant) -> (App, Vec<String>) {
    let mut app = App::new("bench", Mode::Live, now);
    let models: Vec<String> = (0..10).map(|i| format!("model-{i}")).collect();
    let mut rounds = Vec::new();
    for d in 0..12 {
        for a in &models {
            for b in &models {
                if a != b && rounds.len() < 1000 {
                    let s = ScheduledRound {
                        round_id: format!("dilemma_{d}__{a}__vs__{b}__r1"),
                        dilemma_id: format!("dilemma_{d}"),
                        repetition: 1,
                        team_a: a.clone(),
                        team_b: b.clone(),
                        judges: vec!["judge".into()],
                        format: None,
                        relation: None,
                    };
                    rounds.push(ScheduledState {
                        round: Arc::new(ethics_bowl::protocols::blank_round(
                            &s,
                            RoundRecord::EthicsBowl,
                        )),
                        stored: false,
                        to_run: true,
                        text_dropped: false,
                    });
                }
            }
        }
    }
    let streaming: Vec<String> = rounds
        .iter()
        .step_by(50)
        .take(20)
        .map(|r| r.round.id.clone())
        .collect();
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: "bench".into(),
            rounds,
        }),
    );
    for id in &streaming {
        update(
            &mut app,
            Msg::Engine(EngineEvent::PhaseStarted {
                round_id: id.clone(),
                phase_type: PhaseType::Presentation,
                model: "model-0".into(),
            }),
        );
    }
    (app, streaming)
}

/// How many times the OS has taken the CPU from this thread (Linux; none elsewhere): a frame
/// during which it happened measures the machine's load, not the UI.
fn preemptions() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/thread-self/status").ok()?;
    let line = status
        .lines()
        .find(|l| l.starts_with("nonvoluntary_ctxt_switches"))?;
    line.split_whitespace().last()?.parse().ok()
}

fn delta(round_id: &str) -> Msg {
    Msg::Engine(EngineEvent::TextDelta {
        round_id: round_id.to_string(),
        phase_type: PhaseType::Presentation,
        model: "model-0".into(),
        text: "a few words of a streamed answer ".into(),
    })
}

fn main() {
    let now = Instant::now();
    let theme = Theme::load("default", None, false).expect("theme");

    // Frames: each one after a batch of deltas, as the UI draws them.
    let (mut app, streaming) = tournament(now);
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    let mut frames: Vec<Duration> = Vec::new();
    let mut quiet: Vec<Duration> = Vec::new();
    for i in 0..300 {
        for id in &streaming {
            update(&mut app, delta(id));
        }
        if i == 150 {
            // Half-way, watch one streaming round's transcript instead of the matrix.
            update(
                &mut app,
                Msg::Key(crossterm::event::KeyEvent::from(
                    crossterm::event::KeyCode::Enter,
                )),
            );
        }
        let before = preemptions();
        let start = Instant::now();
        terminal
            .draw(|f| views::render(f, &app, &theme))
            .expect("draw");
        let took = start.elapsed();
        frames.push(took);
        if before.is_some() && before == preemptions() {
            quiet.push(took);
        }
    }
    frames.sort();
    quiet.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "frame (1,000 rounds, 20 streaming, 200×50): median {:.3} ms, p99 {:.3} ms",
        ms(frames[frames.len() / 2]),
        ms(frames[frames.len() * 99 / 100])
    );
    if !quiet.is_empty() {
        println!(
            "  the {} frames the OS did not preempt: median {:.3} ms, p99 {:.3} ms",
            quiet.len(),
            ms(quiet[quiet.len() / 2]),
            ms(quiet[quiet.len() * 99 / 100])
        );
    }

    // Events: 100,000 deltas spread over the streaming rounds.
    let (mut app, streaming) = tournament(now);
    let events: Vec<Msg> = (0..100_000)
        .map(|i| delta(&streaming[i % streaming.len()]))
        .collect();
    let start = Instant::now();
    for e in events {
        update(&mut app, e);
    }
    let took = start.elapsed();
    println!(
        "100,000 text deltas applied in {:.1} ms: {:.2} million events/s",
        ms(took),
        100_000.0 / took.as_secs_f64() / 1e6
    );

    // Stored rounds: each streaming round stored 50 times as its phases finish (six phases
    // of a realistic size, prompts included), one in ten holding text to sanitise.
    let (mut app, streaming) = tournament(now);
    let answer = "A considered paragraph of analysis, as a model writes it. ".repeat(40);
    let prompt = "The dilemma and the exchange so far, as the prompt quotes them. ".repeat(80);
    let snapshots: Vec<Msg> = (0..1000)
        .map(|i| {
            let id = &streaming[i % streaming.len()];
            let mut round: Round = app.mirror.rounds[app.mirror.index[id]]
                .stored
                .as_ref()
                .clone();
            for (n, p) in [
                PhaseType::Presentation,
                PhaseType::Response,
                PhaseType::Rebuttal,
                PhaseType::ConsistencyTest,
                PhaseType::ConsistencyTestB,
                PhaseType::Judgment,
            ]
            .into_iter()
            .enumerate()
            {
                let text = if i % 10 == 0 && n == 0 {
                    format!("{answer}\u{1b}[2J")
                } else {
                    answer.clone()
                };
                round.phases.push(Phase {
                    prompt: prompt.clone(),
                    ..Phase::new(p, "model-0", &text)
                });
            }
            Msg::Engine(EngineEvent::RoundStored {
                round: Arc::new(round),
            })
        })
        .collect();
    let start = Instant::now();
    for e in snapshots {
        update(&mut app, e);
    }
    let took = start.elapsed();
    println!(
        "1,000 stored rounds (six phases, ~{} KB each) taken in in {:.1} ms: {:.0} µs each",
        (answer.len() + prompt.len()) * 6 / 1024,
        ms(took),
        took.as_secs_f64() * 1e6 / 1000.0
    );

    // A long transcript: one stored round of six long phases opened, its prompts shown (P),
    // followed to the bottom: about 120 KB of text in paragraphs, with the curly quotes and
    // dashes models write.
    let (mut app, streaming) = tournament(now);
    let id = &streaming[0];
    let mut round: Round = app.mirror.rounds[app.mirror.index[id]]
        .stored
        .as_ref()
        .clone();
    let paragraph = "The team\u{2019}s position \u{2014} that the duty to warn outweighs \
        confidentiality here \u{2014} rests on a consequentialist reading of the case. ";
    let text = format!("{}\n\n", paragraph.repeat(6)).repeat(12);
    for p in [
        PhaseType::Presentation,
        PhaseType::Response,
        PhaseType::Rebuttal,
        PhaseType::ConsistencyTest,
        PhaseType::ConsistencyTestB,
        PhaseType::Judgment,
    ] {
        round.phases.push(Phase {
            prompt: text.clone(),
            ..Phase::new(p, "model-0", &text)
        });
    }
    update(
        &mut app,
        Msg::Engine(EngineEvent::RoundStored {
            round: Arc::new(round),
        }),
    );
    for code in [
        crossterm::event::KeyCode::Enter,
        crossterm::event::KeyCode::Char('P'),
        crossterm::event::KeyCode::End,
    ] {
        update(&mut app, Msg::Key(crossterm::event::KeyEvent::from(code)));
    }
    let mut long: Vec<Duration> = (0..200)
        .map(|_| {
            let start = Instant::now();
            terminal
                .draw(|f| views::render(f, &app, &theme))
                .expect("draw");
            start.elapsed()
        })
        .collect();
    long.sort();
    println!(
        "one frame of a {} KB transcript's last screenful (200×50): median {:.3} ms, p99 {:.3} ms",
        text.len() * 12 / 1024,
        ms(long[long.len() / 2]),
        ms(long[long.len() * 99 / 100])
    );
}
