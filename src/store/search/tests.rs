use proptest::prelude::*;

use super::*;
use crate::domain::{Judgment, Phase, Reading, Round, RoundError, RoundStatus};
use crate::store::tests::round;

fn with_phases(id: &str, phases: &[(PhaseType, &str, &str)]) -> Round {
    let mut r = round(
        id,
        "sim-alpha",
        "sim-beta",
        "borrowed_voice",
        RoundStatus::Complete,
    );
    r.phases = phases
        .iter()
        .map(|(t, model, text)| Phase {
            prompt: format!("Prompt for {model}: answer well"),
            ..Phase::new(*t, model, text)
        })
        .collect();
    r
}

fn file(round: &Round) -> Vec<u8> {
    crate::safe_json::to_vec_pretty(round).unwrap()
}

fn hits(round: &Round, query: &str) -> Vec<SearchHit> {
    search_bytes(&file(round), &SearchQuery::new(query), "fallback")
}

fn phase_index(hit: &SearchHit) -> Option<usize> {
    match hit.place {
        HitPlace::Phase { index, .. } => Some(index),
        _ => None,
    }
}

#[test]
fn finds_answers_case_insensitively_with_place_count_and_snippet() {
    let r = with_phases(
        "r1",
        &[
            (
                PhaseType::Presentation,
                "sim-alpha",
                "We weigh the Fishing Trip.",
            ),
            (
                PhaseType::Response,
                "sim-beta",
                "The fishing trip matters; the FISHING TRIP was promised.",
            ),
        ],
    );
    let found = hits(&r, "fishing TRIP");
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].round_id, "r1");
    assert_eq!(
        found[1].place,
        HitPlace::Phase {
            index: 1,
            phase_type: PhaseType::Response,
            speaker: "sim-beta".into(),
            prompt: false
        }
    );
    assert_eq!(found[1].count, 2);
    assert_eq!(found[1].snippet.matched, "fishing trip");
    assert_eq!(found[1].snippet.before, "The ");
    assert!(found[1].snippet.after.starts_with(" matters;"));
    assert!(hits(&r, "fishing boat").is_empty());
}

#[test]
fn quotes_backslashes_newlines_and_non_ascii_are_found_as_written() {
    let r = with_phases(
        "r1",
        &[(
            PhaseType::Presentation,
            "sim-alpha",
            "He said \"no\" twice.\nThen C:\\path\tand ÉTHIQUE, naïve, 中文 text.",
        )],
    );
    for q in [
        "said \"no\"",
        "twice.\nthen",
        "c:\\PATH",
        "\tand",
        "éthique",
        "NAÏVE",
        "中文",
    ] {
        let found = hits(&r, q);
        assert_eq!(found.iter().filter_map(phase_index).count(), 1, "{q:?}");
    }
    let found = hits(&r, "twice.\nthen");
    assert_eq!(
        found[0].snippet.text(),
        "He said \"no\" twice. Then C:\\path and ÉTHIQUE, naïve, 中文 text."
    );
    // Escapes in the file are not text: `\n` holds no letter n, `\"` no backslash.
    assert!(hits(&r, "\\n").is_empty());
    assert!(hits(&r, "\\\"").is_empty());
    assert!(hits(&r, "ntHen").is_empty());
}

#[test]
fn ids_models_and_dilemmas_match_as_one_hit_per_round() {
    let r = with_phases("borrowed_voice__sim-alpha__vs__sim-beta__r1", &[]);
    let found = hits(&r, "SIM-ALPHA");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].place,
        HitPlace::Round(RoundFields {
            id: true,
            model: true,
            dilemma: false
        })
    );
    assert_eq!(found[0].place.describe(), "round id, model");
    let found = hits(&r, "voice");
    assert_eq!(found[0].place.describe(), "round id, dilemma");
    let found = hits(&r, "j");
    assert!(
        found
            .iter()
            .any(|h| matches!(h.place, HitPlace::Round(f) if f.model)),
        "the judge's model"
    );
}

#[test]
fn key_names_and_unsearched_fields_never_match() {
    let mut r = with_phases(
        "r1",
        &[(PhaseType::Presentation, "sim-alpha", "plain words only")],
    );
    r.timestamp = "2026-01-01T00:00:00Z".into();
    for q in [
        "phase_type",
        "response",
        "text",
        "prompt",
        "\"response\": \"",
        "status",
        "complete",
        "presentation",
        "2026-01-01",
        "\"",
        ":",
    ] {
        let found = hits(&r, q);
        assert!(found.is_empty(), "{q:?} found {found:?}");
    }
}

#[test]
fn prompts_are_searched_only_when_asked() {
    let r = with_phases("r1", &[(PhaseType::Presentation, "sim-alpha", "answer")]);
    let raw = file(&r);
    let query = SearchQuery::new("answer WELL");
    assert!(search_bytes(&raw, &query, "r1").is_empty());
    let found = search_bytes(&raw, &query.with_prompts(true), "r1");
    assert!(
        matches!(
            found[..],
            [SearchHit {
                place: HitPlace::Phase {
                    index: 0,
                    prompt: true,
                    ..
                },
                ..
            }]
        ),
        "{found:?}"
    );
}

#[test]
fn corrections_errors_and_panel_speakers_are_named() {
    let mut r = with_phases("r1", &[]);
    let mut judge = Phase::new(
        PhaseType::PanelEvaluation,
        "sim-gamma",
        "the panel weighs candour",
    );
    judge.judge_id = Some("skeptic".into());
    judge.deliberation_round = Some(1);
    r.phases.push(judge);
    let mut j = Judgment::new("sim-gamma", Reading::empty(r.kind()));
    j.raw_response = "candour raw text".into();
    j.corrected_text = Some("corrected: candour".into());
    r.judgments.push(j);
    r.error = Some(RoundError {
        phase_type: PhaseType::Rebuttal,
        model_id: "sim-alpha".into(),
        message: "HTTP 429: candour limited".into(),
        timestamp: String::new(),
        attempts: Vec::new(),
    });
    let found = hits(&r, "candour");
    let places: Vec<String> = found.iter().map(|h| h.place.describe()).collect();
    assert_eq!(
        places,
        [
            "Panel evaluation · skeptic (sim-gamma) · deliberation 1",
            "correction · sim-gamma",
            "error"
        ],
        "the judgment's raw text is the phase's answer, not a second hit"
    );
}

#[test]
fn damaged_files_give_no_hit_and_no_panic() {
    let r = with_phases("r1", &[(PhaseType::Presentation, "a", "findme")]);
    let raw = file(&r);
    let query = SearchQuery::new("findme");
    assert_eq!(search_bytes(&raw, &query, "x").len(), 1);
    assert!(search_bytes(&raw[..raw.len() / 2], &query, "x").len() <= 1);
    assert!(search_bytes(b"not json findme", &query, "x").is_empty());
    assert!(search_bytes(b"", &query, "x").is_empty());
}

#[test]
fn the_store_is_searched_in_file_order_up_to_the_limit_on_several_threads() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    for i in 0..100 {
        let text = if i % 3 == 0 { "a Needle here" } else { "hay" };
        store
            .save_round(&with_phases(
                &format!("r{i:03}"),
                &[(PhaseType::Presentation, "sim-alpha", text)],
            ))
            .unwrap();
    }
    std::fs::write(dir.path().join("rounds/zz.json"), "{ broken needle").unwrap();
    let query = SearchQuery::new("needle");
    let all = store.search(&query, usize::MAX).unwrap();
    let ids: Vec<&str> = all.iter().map(|h| h.round_id.as_str()).collect();
    let expected: Vec<String> = (0..100).step_by(3).map(|i| format!("r{i:03}")).collect();
    assert_eq!(ids, expected);
    let first = store.search(&query, 5).unwrap();
    assert_eq!(first[..], all[..5]);
    assert!(store.search(&SearchQuery::new(""), 10).unwrap().is_empty());
}

#[test]
fn find_ignore_case_maps_matches_back_to_the_original_text() {
    assert_eq!(find_ignore_case("aXa xa", "XA"), [1..3, 4..6]);
    let text = "İstanbul ÉCOLE école";
    let found = find_ignore_case(text, "école");
    assert_eq!(
        found.iter().map(|r| &text[r.clone()]).collect::<Vec<_>>(),
        ["ÉCOLE", "école"]
    );
    assert_eq!(find_ignore_case(text, "i̇s").len(), 1);
    assert!(find_ignore_case(text, "").is_empty());
}

proptest! {
    #[test]
    fn never_panics_on_any_bytes(raw in proptest::collection::vec(any::<u8>(), 0..400), q in ".{0,6}") {
        let _ = search_bytes(&raw, &SearchQuery::new(&q), "x");
    }

    #[test]
    fn any_piece_of_an_answer_is_found(
        text in "[a-zA-Z \"\\\\\n\t\u{1b}\u{85}\u{202e}éÉß中]{1,40}",
        from in 0usize..40,
        len in 1usize..8,
    ) {
        let chars: Vec<char> = text.chars().collect();
        let from = from % chars.len();
        let piece: String = chars[from..(from + len).min(chars.len())].iter().collect();
        let r = with_phases("r1", &[(PhaseType::Presentation, "m", &text)]);
        let found = hits(&r, &piece);
        prop_assert!(found.iter().any(|h| phase_index(h) == Some(0)), "{piece:?} in {text:?}: {found:?}");
        let _ = hits(&r, &piece.to_uppercase());
    }
}
