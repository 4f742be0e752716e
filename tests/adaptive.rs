//! Adaptive pairing (`pairings = "adaptive"`) on simulated models with known skills: it
//! stops by each rule and says which; the choices in `tournament.json` reproduce the
//! schedule; a run killed in the middle of a wave resumes into the same sequence of waves.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::HashMap;
use std::path::Path;

use ethics_bowl::config::TournamentConfig;
use ethics_bowl::design::{Budget, DesignRecord, Next, Outcome, Settings, StopRule, next_wave};
use ethics_bowl::domain::RoundStatus;
use ethics_bowl::engine::{EngineEvent, RunReport};
use ethics_bowl::store::{Store, TournamentRecord};
use support::tournament::{run_collecting, stored_rounds, write};

/// Four debaters of known skill and two judges who do not debate, all seeded.
fn models(price: bool) -> String {
    let price = if price {
        "price = { input_per_mtok = 1.0, output_per_mtok = 2.0 }\n"
    } else {
        ""
    };
    let head = |name: &str| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n{price}\
             [models.simulated]\ntokens_per_second = 0.0\nmalformed_judgment_rate = 0.0\n\
             failure_rate = 0.0\nseed = 11\n"
        )
    };
    let mut out = String::new();
    for (name, skill) in [("m0", 0.9), ("m1", 0.65), ("m2", 0.4), ("m3", 0.15)] {
        out += &format!("{}skill = {skill}\n", head(name));
    }
    for (name, leniency) in [("j0", -0.3), ("j1", 0.3)] {
        out += &format!(
            "{}leniency = {leniency}\nposition_bias = 0.2\nnoise_sd = 1.0\n",
            head(name)
        );
    }
    out
}

const ROSTER: &str = "models = [\"m0\", \"m1\", \"m2\", \"m3\"]\njudges = [\"j0\", \"j1\"]\n\
                      pairings = \"adaptive\"\nseed = 5\nwave_size = 4\n";

fn record(report: &RunReport) -> TournamentRecord {
    Store::open(&report.dir)
        .unwrap()
        .load_tournament()
        .unwrap()
        .unwrap()
}

fn design(report: &RunReport) -> DesignRecord {
    record(report).design.expect("the design is recorded")
}

#[tokio::test]
async fn it_stops_at_max_rounds_and_plays_only_what_it_chose() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(false),
        &format!("{ROSTER}max_rounds = 10\n"),
    );
    let (report, events) = run_collecting(&config, None).await;
    let d = design(&report);
    let stopped = d.stopped.as_ref().expect("stopped");
    assert_eq!(stopped.rule, StopRule::MaxRounds, "{stopped:?}");
    // 4 + 4 + 2: the last wave is cut to the rounds left.
    let sizes: Vec<usize> = d.waves.iter().map(|w| w.rounds.len()).collect();
    assert_eq!(sizes, [4, 4, 2]);
    assert_eq!(d.candidates, 12 * 7);
    let rounds = stored_rounds(&report);
    assert_eq!(rounds.len(), 10);
    assert!(rounds.iter().all(|r| r.status == RoundStatus::Complete));
    let rec = record(&report);
    assert_eq!(rec.schedule.len(), 10);
    let chosen: Vec<&str> = d.chosen().collect();
    let scheduled: Vec<&str> = rec.schedule.iter().map(|r| r.round_id.as_str()).collect();
    assert_eq!(chosen, scheduled);
    // Every choice says why; the report's warnings say the design was adaptive and what
    // stopped it.
    assert!(
        d.waves[1]
            .rounds
            .iter()
            .all(|c| c.reason.contains("probability"))
    );
    assert!(
        rec.warnings.iter().any(|w| w
            .starts_with("adaptive design: 10 of the full schedule's 84 rounds")
            && w.contains("stopped by max_rounds")),
        "{:?}",
        rec.warnings
    );
    // The consumers heard each wave and the stop, with the rounds not chosen.
    let designs: Vec<(u32, usize, usize, bool)> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::Design {
                wave,
                rounds,
                not_chosen,
                stopped,
            } => Some((*wave, rounds.len(), not_chosen.len(), stopped.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(
        designs,
        [
            (1, 0, 80, false),
            (2, 4, 76, false),
            (3, 2, 74, false),
            (3, 0, 74, true)
        ]
    );
}

#[tokio::test]
async fn it_stops_once_the_ranking_is_separated() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(false),
        &format!("{ROSTER}stop_when_separated = 0.8\n"),
    );
    let (report, _) = run_collecting(&config, None).await;
    let d = design(&report);
    let stopped = d.stopped.as_ref().expect("stopped");
    assert_eq!(stopped.rule, StopRule::Separated, "{stopped:?}");
    assert!(stopped.state.least_separated() >= 0.8);
    assert!(d.chosen().count() < d.candidates, "{}", d.chosen().count());
    let order: Vec<&str> = stopped
        .state
        .ranking
        .iter()
        .map(|r| r.model.as_str())
        .collect();
    assert_eq!(order, ["m0", "m1", "m2", "m3"]);
    // The state keeps the fit's side terms: the common one over every match, then each
    // deciding judge's offset, with the matches it rests on and an interval.
    let sides = &stopped.state.sides;
    assert_eq!(sides[0].judge, "all judges");
    assert_eq!(sides[0].matches, stopped.state.matches);
    let judges: Vec<&str> = sides[1..].iter().map(|t| t.judge.as_str()).collect();
    assert!(
        judges.iter().all(|j| ["j0", "j1"].contains(j)) && !judges.is_empty(),
        "{sides:?}"
    );
    assert_eq!(
        sides[1..].iter().map(|t| t.matches).sum::<usize>(),
        stopped.state.matches
    );
    assert!(
        sides
            .iter()
            .all(|t| t.interval[0] < t.elo && t.elo < t.interval[1])
    );
}

#[tokio::test]
async fn it_stops_at_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(true),
        &format!("{ROSTER}budget_usd = 0.05\n"),
    );
    let (report, _) = run_collecting(&config, None).await;
    let d = design(&report);
    let stopped = d.stopped.as_ref().expect("stopped");
    assert_eq!(stopped.rule, StopRule::Budget, "{stopped:?}");
    let spent: f64 = stored_rounds(&report).iter().map(|r| r.cost_usd()).sum();
    assert!(spent <= 0.05 + 0.02, "{spent}");
    assert!(d.chosen().count() < d.candidates);
}

/// Each stored round's outcome, by id, as the design reads it.
fn results(dir: &Path) -> HashMap<String, Outcome> {
    let rounds = stored_rounds_in(dir);
    rounds
        .iter()
        .filter_map(|r| Some((r.id.clone(), ethics_bowl::protocols::match_outcome(r)?)))
        .collect()
}

fn stored_rounds_in(dir: &Path) -> Vec<ethics_bowl::domain::Round> {
    Store::open(dir)
        .unwrap()
        .load_rounds(&ethics_bowl::store::RoundFilter::default())
        .unwrap()
        .0
}

#[tokio::test]
async fn the_record_reproduces_the_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(false),
        &format!("{ROSTER}max_rounds = 16\n"),
    );
    let (report, _) = run_collecting(&config, None).await;
    let d = design(&report);
    let rec = record(&report);
    let tournament = TournamentConfig::load(&config).unwrap();
    let candidates = ethics_bowl::protocols::schedule::build(&tournament, &rec.dilemma_ids)
        .unwrap()
        .rounds;
    let settings = Settings::of(&tournament, candidates.len());
    let all = results(&report.dir);
    // Each wave again, from the waves before it and their rounds' results alone.
    for k in 0..d.waves.len() {
        let before = DesignRecord {
            waves: d.waves[..k].to_vec(),
            stopped: None,
            ..d.clone()
        };
        let seen: HashMap<String, Outcome> = before
            .chosen()
            .filter_map(|id| Some((id.to_string(), all.get(id)?.clone())))
            .collect();
        let Next::Wave(w) = next_wave(
            &settings,
            &tournament.models,
            &candidates,
            &before,
            &seen,
            &Budget::default(),
        ) else {
            panic!("wave {k} again")
        };
        assert_eq!(w, d.waves[k], "wave {}", k + 1);
    }
}

#[tokio::test]
async fn a_run_killed_mid_wave_resumes_into_the_same_waves() {
    let whole = tempfile::tempdir().unwrap();
    let body = format!("{ROSTER}max_rounds = 16\n");
    let config = write(whole.path(), &models(false), &body);
    let (uninterrupted, _) = run_collecting(&config, None).await;
    let expected = design(&uninterrupted);

    // The same run as a kill -9 in its third wave leaves it: the record names three waves,
    // two rounds of the third are stored, the rest never started.
    let killed = tempfile::tempdir().unwrap();
    let config = write(killed.path(), &models(false), &body);
    let (first, _) = run_collecting(&config, None).await;
    let mut rec = record(&first);
    let mut d = rec.design.clone().unwrap();
    d.waves.truncate(3);
    d.stopped = None;
    for id in expected.chosen().skip(10) {
        let _ = std::fs::remove_file(first.dir.join("rounds").join(format!("{id}.json")));
    }
    rec.design = Some(d);
    rec.status = ethics_bowl::store::TournamentStatus::Running;
    Store::open(&first.dir)
        .unwrap()
        .locked()
        .unwrap()
        .save_tournament(&rec)
        .unwrap();
    assert_eq!(stored_rounds_in(&first.dir).len(), 10);

    let (resumed, events) = run_collecting(&config, None).await;
    let got = design(&resumed);
    let ids = |d: &DesignRecord| -> Vec<Vec<String>> {
        d.waves
            .iter()
            .map(|w| w.rounds.iter().map(|c| c.round_id.clone()).collect())
            .collect()
    };
    assert_eq!(ids(&got), ids(&expected));
    assert_eq!(got, expected);
    assert_eq!(stored_rounds(&resumed).len(), 16);
    // The resumed run started with the ten stored and the third wave's two missing rounds.
    let started = events.iter().find_map(|e| match e {
        EngineEvent::Started { rounds, .. } => Some(rounds.clone()),
        _ => None,
    });
    let started = started.unwrap();
    assert_eq!(started.len(), 12);
    assert_eq!(started.iter().filter(|s| s.to_run).count(), 2);
}
