//! Search and jump in the terminal UI, on a live run fed its events: rounds stored in a real
//! results folder (searched as the driver searches it) and a call still streaming. Snapshots
//! of the search prompt, the list of hits, a round opened at a hit with the match
//! highlighted (stored and streaming), and the rounds a jump could mean.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ethics_bowl::domain::{Phase, PhaseType, Round, RoundRecord, RoundStatus, ScheduledRound};
use ethics_bowl::engine::{EngineEvent, ScheduledState};
use ethics_bowl::store::{SearchQuery, Store};
use ethics_bowl::tui::screens::search::HIT_LIMIT;
use ethics_bowl::tui::{App, Effect, Mode, Msg, Screen, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};

const PAIRS: [(&str, &str); 2] = [("claude", "gpt"), ("gpt", "claude")];
const DILEMMAS: [&str; 3] = ["borrowed_voice", "lifeboat_algorithm", "inherited_debt"];

fn id(d: &str, a: &str, b: &str) -> String {
    format!("{d}__{a}__vs__{b}__r1")
}

fn blank(d: &str, a: &str, b: &str) -> Round {
    ethics_bowl::protocols::blank_round(
        &ScheduledRound {
            round_id: id(d, a, b),
            dilemma_id: d.into(),
            repetition: 1,
            team_a: a.into(),
            team_b: b.into(),
            judges: vec!["judge".into()],
            format: None,
            relation: None,
        },
        RoundRecord::EthicsBowl,
    )
}

/// A long presentation, so the match further down is off the first screen.
fn presentation(d: &str) -> String {
    (1..=30)
        .map(|n| format!("Point {n} on {d}: the stakeholders' claims are weighed in turn."))
        .collect::<Vec<_>>()
        .join("\n")
}

fn finished(d: &str, a: &str, b: &str) -> Round {
    let mut round = blank(d, a, b);
    let rebuttal = if d == "lifeboat_algorithm" {
        "The Lighthouse keeper's duty is to every ship, \"not\" only the nearest."
    } else {
        "A rebuttal that weighs duty against care."
    };
    for (p, model, text) in [
        (PhaseType::Presentation, a, presentation(d)),
        (
            PhaseType::Response,
            b,
            "We agree with the framing but not the weights.".into(),
        ),
        (PhaseType::Rebuttal, a, rebuttal.to_string()),
    ] {
        round.phases.push(Phase {
            latency_ms: Some(2400),
            ..Phase::new(p, model, &text)
        });
    }
    round.status = RoundStatus::Complete;
    round
}

struct Live {
    app: App,
    store: Store,
    _dir: tempfile::TempDir,
}

/// A live run part-way: four rounds stored, one streaming a presentation that mentions
/// the lighthouse, one queued.
fn live() -> Live {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    let t0 = Instant::now();
    let mut app = App::new("search", Mode::Live, t0);
    let rounds = DILEMMAS
        .iter()
        .flat_map(|d| PAIRS.iter().map(move |(a, b)| blank(d, a, b)))
        .map(|r| ScheduledState {
            round: Arc::new(r),
            stored: false,
            to_run: true,
            text_dropped: false,
        })
        .collect();
    send(
        &mut app,
        EngineEvent::Started {
            tournament_id: "search".into(),
            rounds,
        },
    );
    for d in &DILEMMAS[..2] {
        for (a, b) in PAIRS {
            let round = finished(d, a, b);
            store.save_round(&round).unwrap();
            let round_id = round.id.clone();
            send(
                &mut app,
                EngineEvent::RoundStored {
                    round: Arc::new(round),
                },
            );
            send(&mut app, EngineEvent::RoundFinished { round_id });
        }
    }
    let streaming = id(DILEMMAS[2], "claude", "gpt");
    send(
        &mut app,
        EngineEvent::PhaseStarted {
            round_id: streaming.clone(),
            phase_type: PhaseType::Presentation,
            model: "claude".into(),
        },
    );
    send(
        &mut app,
        EngineEvent::TextDelta {
            round_id: streaming,
            phase_type: PhaseType::Presentation,
            model: "claude".into(),
            text: "Like a LIGHTHOUSE, an inheritance outlives its builder".into(),
        },
    );
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(95)));
    Live {
        app,
        store,
        _dir: dir,
    }
}

fn send(app: &mut App, e: EngineEvent) {
    update(app, Msg::Engine(e));
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// Does what the driver does with the effects of searching and opening rounds: searches
/// the store, reads a round back, answers.
fn drive(live: &mut Live, effects: Vec<Effect>) {
    let mut effects = effects;
    while let Some(effect) = effects.pop() {
        let msg = match effect {
            Effect::Search { query, prompts } => {
                let hits = live
                    .store
                    .search(&SearchQuery::new(&query).with_prompts(prompts), HIT_LIMIT)
                    .map_err(|e| e.to_string());
                Msg::SearchResults { query, hits }
            }
            Effect::LoadRound { round_id } => {
                let round = live.store.load_round(&round_id).unwrap().unwrap();
                Msg::RoundLoaded {
                    round_id,
                    result: Ok(Arc::new(round)),
                }
            }
            _ => continue,
        };
        effects.extend(update(&mut live.app, msg));
    }
}

fn draw(app: &App, theme: &Theme) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal.draw(|f| views::render(f, app, theme)).unwrap();
    terminal
}

/// The cells on screen showing `word` (case-insensitive), as (x, y) of their first letter.
fn find_on_screen(t: &Terminal<TestBackend>, word: &str) -> Vec<(u16, u16)> {
    let buffer = t.backend().buffer();
    let area = buffer.area;
    let word: Vec<char> = word.to_lowercase().chars().collect();
    let mut found = Vec::new();
    for y in 0..area.height {
        let row: Vec<char> = (0..area.width)
            .map(|x| {
                buffer[(x, y)]
                    .symbol()
                    .chars()
                    .next()
                    .unwrap_or(' ')
                    .to_lowercase()
                    .next()
                    .unwrap_or(' ')
            })
            .collect();
        for x in 0..row.len().saturating_sub(word.len() - 1) {
            if row[x..x + word.len()] == word[..] {
                found.push((x as u16, y));
            }
        }
    }
    found
}

fn assert_highlighted(t: &Terminal<TestBackend>, word: &str, theme: &Theme) {
    let found = find_on_screen(t, word);
    assert!(!found.is_empty(), "{word} on screen:\n{}", t.backend());
    for (x, y) in found {
        for dx in 0..word.chars().count() as u16 {
            let cell = &t.backend().buffer()[(x + dx, y)];
            if *theme == Theme::no_color() {
                assert!(cell.modifier.contains(Modifier::REVERSED), "{x},{y}");
            } else {
                assert_eq!(cell.bg, Color::Yellow, "{x},{y}");
            }
        }
    }
}

fn themes() -> [Theme; 2] {
    [
        Theme::load("default", None, false).unwrap(),
        Theme::no_color(),
    ]
}

#[test]
fn search_prompt_results_and_hits_highlighted_live() {
    let mut live = live();
    press(&mut live.app, KeyCode::Char('/'));
    type_text(&mut live.app, "lighthouse");
    let theme = Theme::no_color();
    insta::assert_snapshot!("search_prompt_120x40", draw(&live.app, &theme).backend());

    let effects = press(&mut live.app, KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::Search {
            query: "lighthouse".into(),
            prompts: false
        }]
    );
    drive(&mut live, effects);
    let hits: Vec<&str> = live
        .app
        .screens
        .search
        .hits
        .iter()
        .map(|h| h.round_id.as_str())
        .collect();
    assert_eq!(
        hits,
        [
            "lifeboat_algorithm__claude__vs__gpt__r1",
            "lifeboat_algorithm__gpt__vs__claude__r1",
            "inherited_debt__claude__vs__gpt__r1",
        ],
        "two stored rebuttals and the presentation still streaming"
    );
    insta::assert_snapshot!("search_results_120x40", draw(&live.app, &theme).backend());

    // The first hit: its rebuttal is below a 30-line presentation; the view scrolls to it.
    press(&mut live.app, KeyCode::Enter);
    assert_eq!(live.app.screen(), Screen::Round { scores: false });
    for theme in themes() {
        let t = draw(&live.app, &theme);
        assert_highlighted(&t, "lighthouse", &theme);
    }
    insta::assert_snapshot!(
        "search_hit_stored_120x40",
        draw(&live.app, &theme).backend()
    );

    // N from the first hit wraps to the last: the call still streaming.
    press(&mut live.app, KeyCode::Char('N'));
    assert_eq!(
        live.app.selected().map(|r| r.id()),
        Some("inherited_debt__claude__vs__gpt__r1")
    );
    for theme in themes() {
        assert_highlighted(&draw(&live.app, &theme), "lighthouse", &theme);
    }
    insta::assert_snapshot!(
        "search_hit_streaming_120x40",
        draw(&live.app, &theme).backend()
    );
}

#[test]
fn jump_lists_the_rounds_an_id_start_could_mean() {
    let mut live = live();
    press(&mut live.app, KeyCode::Char(':'));
    type_text(&mut live.app, "lifeboat");
    press(&mut live.app, KeyCode::Enter);
    insta::assert_snapshot!(
        "search_jump_candidates_120x40",
        draw(&live.app, &Theme::no_color()).backend()
    );
    press(&mut live.app, KeyCode::Down);
    press(&mut live.app, KeyCode::Enter);
    assert_eq!(
        live.app.selected().map(|r| r.id()),
        Some("lifeboat_algorithm__gpt__vs__claude__r1")
    );
    assert_eq!(live.app.screen(), Screen::Round { scores: false });
}

#[test]
fn browsing_searches_the_same_way() {
    let live = live();
    let (rounds, _) = live.store.load_rounds(&Default::default()).unwrap();
    let mut app = ethics_bowl::tui::browse("search", &rounds, Instant::now());
    let mut browse = Live {
        app: {
            press(&mut app, KeyCode::Char('/'));
            type_text(&mut app, "KEEPER'S DUTY");
            app
        },
        store: live.store,
        _dir: live._dir,
    };
    let effects = press(&mut browse.app, KeyCode::Enter);
    drive(&mut browse, effects);
    assert_eq!(browse.app.screens.search.hits.len(), 2);
    press(&mut browse.app, KeyCode::Char('n'));
    let t = draw(&browse.app, &themes()[0]);
    assert_highlighted(&t, "keeper's duty", &themes()[0]);
    assert_eq!(browse.app.screens.search.current, Some(0));
}

#[test]
fn a_hit_in_a_round_whose_text_waits_in_the_store_is_shown_once_read_back() {
    let mut live = live();
    // Only the most recent finished round keeps its text: the lifeboat rounds' wait in
    // the store.
    live.app.mirror.text_kept.capacity = 1;
    let again = finished(DILEMMAS[0], "gpt", "claude");
    update(
        &mut live.app,
        Msg::Engine(EngineEvent::RoundStored {
            round: Arc::new(again),
        }),
    );
    let lifeboat = live.app.mirror.index[&id(DILEMMAS[1], "claude", "gpt")];
    assert!(live.app.mirror.rounds[lifeboat].text_dropped);
    press(&mut live.app, KeyCode::Char('/'));
    type_text(&mut live.app, "lighthouse");
    let effects = press(&mut live.app, KeyCode::Enter);
    drive(&mut live, effects);
    let effects = press(&mut live.app, KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::LoadRound {
            round_id: id(DILEMMAS[1], "claude", "gpt")
        }]
    );
    let theme = Theme::no_color();
    assert!(
        draw(&live.app, &theme)
            .backend()
            .to_string()
            .contains("reading the round from the store")
    );
    drive(&mut live, effects);
    assert!(!live.app.mirror.rounds[lifeboat].text_dropped);
    let t = draw(&live.app, &theme);
    assert_highlighted(&t, "lighthouse", &theme);
    assert!(
        t.backend().to_string().contains("━━ Rebuttal"),
        "{}",
        t.backend()
    );
}

/// The real binary in tmux, `open` on a stored results folder: `/` searches it through the
/// driver (the store read off the UI thread), Enter opens a hit, `:` jumps to a round.
/// Without tmux the test says so and passes, except under CI, where `.ci/run` installs it.
#[test]
fn open_searches_and_jumps_in_a_real_terminal() {
    if !support::tmux::tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0/ethics_bowl");
    std::fs::create_dir_all(dir.path().join("results/rounds")).unwrap();
    std::fs::copy(
        fixture.join("tournament.json"),
        dir.path().join("results/tournament.json"),
    )
    .unwrap();
    for entry in std::fs::read_dir(fixture.join("rounds")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            dir.path()
                .join("results/rounds")
                .join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    let command = format!(
        "{} --log-file {} open {}; sleep 30",
        env!("CARGO_BIN_EXE_ethics-bowl"),
        dir.path().join("log.txt").display(),
        dir.path().join("results").display()
    );
    let tmux = support::tmux::Tmux::start("search", &command);
    tmux.wait_for("Team A vs Team B");
    tmux.keys(&["/"]);
    tmux.text("CONSEQUENTIALIST reading");
    tmux.wait_for("/CONSEQUENTIALIST reading█");
    tmux.keys(&["Enter"]);
    let list = tmux.wait_for("\"CONSEQUENTIALIST reading\": ");
    assert!(list.contains("hits in 4 rounds"), "{list}");
    tmux.keys(&["Enter"]);
    let round = tmux.wait_for("hit 1 of");
    assert!(round.contains("consequentialist reading"), "{round}");
    tmux.keys(&[":"]);
    tmux.text("inherited");
    tmux.keys(&["Enter"]);
    tmux.wait_for("inherited_debt__sim-gamma__vs__sim-alpha__r1  A: sim-gamma");
    tmux.keys(&["q"]);
}
