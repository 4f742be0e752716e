//! Role temperatures (`[temperatures]`): every protocol's debaters and judges are sent the
//! temperature of their role, in place of the models' own, and each stored phase records the
//! temperature it was sent with; without the table a phase records the model's own.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use ethics_bowl::domain::Round;
use support::tournament::{manifest, run_collecting, sim, stored_rounds, write, write_tournament};

/// Three fast simulated models; the judge, sim-gamma, has a temperature of its own (0.9).
fn models() -> String {
    let gamma = sim("sim-gamma", 0.7, 100_000.0, 0.0).replace(
        "[models.simulated]",
        "temperature = 0.9\n[models.simulated]",
    );
    sim("sim-alpha", 0.7, 100_000.0, 0.0) + &sim("sim-beta", 0.7, 100_000.0, 0.0) + &gamma
}

const ROLES: &str = "\n[temperatures]\ndebaters = 0.5\njudges = 0.2\n";

fn assert_roles(rounds: &[Round], protocol: &str) {
    assert!(!rounds.is_empty(), "{protocol}");
    for round in rounds {
        for p in &round.phases {
            let want = if p.phase_type.is_judging() { 0.2 } else { 0.5 };
            assert_eq!(
                p.temperature,
                Some(want),
                "{protocol} {} {:?}",
                round.id,
                p.phase_type
            );
        }
        assert!(
            round.phases.iter().any(|p| p.phase_type.is_judging()),
            "{protocol}: judged"
        );
    }
}

#[tokio::test]
async fn each_protocols_phases_record_their_roles_temperature() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(),
        &format!(
            "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\ndilemmas = [\"borrowed_voice\"]\n{ROLES}"
        ),
    );
    let (report, _) = run_collecting(&config, None).await;
    assert_roles(&stored_rounds(&report), "ethics_bowl");

    let dir = tempfile::tempdir().unwrap();
    let config = write_tournament(
        dir.path(),
        &models(),
        &format!(
            "protocol = \"qa_debate\"\nmodels = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\n\
             [qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\nsample_per_level = 2\ndebate_rounds = 2\nstrength_order = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\n{ROLES}",
            manifest("sample-config/qa-sample.json").display()
        ),
    );
    let (report, _) = run_collecting(&config, None).await;
    assert_roles(&stored_rounds(&report), "qa_debate");

    let dir = tempfile::tempdir().unwrap();
    let config = write_tournament(
        dir.path(),
        &models(),
        &format!(
            "protocol = \"structured_debate\"\nmodels = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\n\
             [structured]\ntopics_file = \"{}\"\n{ROLES}",
            manifest("sample-config/topics.toml").display()
        ),
    );
    let (report, _) = run_collecting(&config, None).await;
    assert_roles(&stored_rounds(&report), "structured_debate");
}

#[tokio::test]
async fn without_the_table_a_phase_records_the_models_own_temperature() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(),
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\ndilemmas = [\"borrowed_voice\"]\n",
    );
    let (report, _) = run_collecting(&config, None).await;
    for round in stored_rounds(&report) {
        for p in &round.phases {
            let own = if p.model_id == "sim-gamma" {
                Some(0.9)
            } else {
                None
            };
            assert_eq!(p.temperature, own, "{} {:?}", round.id, p.phase_type);
        }
    }
}

#[test]
fn a_temperature_outside_0_to_2_is_refused_naming_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &models(),
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\n[temperatures]\njudges = 3.5\n",
    );
    let e = ethics_bowl::engine::prepare(&config, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("temperatures.judges") && e.contains("between 0 and 2"),
        "{e}"
    );
}
