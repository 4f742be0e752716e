//! `open` lays the matrix out as the live run did: the rounds of a stored question-answer
//! tournament (twelve items, so `#10` and `#11` follow `#9`; baselines where the run had
//! them), read back from the folder in file-name order and put in the order of the schedule
//! `tournament.json` keeps, give the live run's rows and columns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::sync::Arc;
use std::time::Instant;

use ethics_bowl::engine::ScheduledState;
use ethics_bowl::store::{RoundFilter, Store};
use ethics_bowl::tui::{App, Mode, Msg, browse_schedule, in_run_order, update};
use support::tournament::{manifest, run_collecting, sim, write_tournament};

#[tokio::test]
async fn open_orders_rows_and_columns_as_the_live_run_did() {
    let dir = tempfile::tempdir().unwrap();
    let body = format!(
        "protocol = \"qa_debate\"\nmodels = [\"a\", \"b\"]\npairings = [[\"a\", \"b\"]]\njudges = [\"j\"]\n\
         max_concurrency = 1\n\
         [qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\nsample_per_level = 12\nseed = 3\n\
         debate_rounds = 1\nbaselines = [\"naive\", \"expert\"]\nrelations = [\"mixed\"]\n",
        manifest("sample-config/qa-sample.json").display()
    );
    let models = [
        sim("a", 0.8, 0.0, 0.0),
        sim("b", 0.4, 0.0, 0.0),
        sim("j", 0.6, 0.0, 0.0),
    ]
    .concat();
    let config = write_tournament(dir.path(), &models, &body);
    let (report, events) = run_collecting(&config, None).await;
    let mut live = App::new("t", Mode::Live, Instant::now());
    for e in events {
        update(&mut live, Msg::Engine(e));
    }

    let store = Store::open(&report.dir).unwrap();
    let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let record = store.load_tournament().unwrap().unwrap();
    let schedule: Vec<ScheduledState> = rounds
        .into_iter()
        .map(|round| ScheduledState {
            round: Arc::new(round),
            stored: true,
            to_run: false,
            text_dropped: false,
        })
        .collect();
    // By file name alone, the order differs (so the test can tell).
    let by_name = browse_schedule("t", schedule.clone(), Instant::now());
    assert_ne!(by_name.mirror.columns, live.mirror.columns);
    let opened = browse_schedule(
        "t",
        in_run_order(schedule, Some(&record.schedule)),
        Instant::now(),
    );
    assert_eq!(opened.mirror.rows, live.mirror.rows);
    assert_eq!(opened.mirror.columns, live.mirror.columns);
    assert_eq!(live.mirror.columns.len(), 12);
}
