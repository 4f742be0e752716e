//! The dilemma loader on documents made by real word processors (committed fixtures: pandoc,
//! LibreOffice), on our own three docx-rs layouts, and on the Python predecessor's real
//! document; its errors; and property tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};

use ethics_bowl::domain::Dilemma;
use ethics_bowl::inputs::{
    Block, DocxLayout, docx_blocks, load_dilemmas, recognise, save_docx, write_docx,
};
use proptest::prelude::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/docx").join(name)
}

fn sample_md() -> Vec<Dilemma> {
    load_dilemmas(&root().join("sample-config/dilemmas.md"))
        .expect("sample loads")
        .dilemmas
}

fn assert_same(expected: &[Dilemma], path: &Path) {
    let loaded = load_dilemmas(path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.dilemmas.len(), 7, "{}", path.display());
    for (want, got) in expected.iter().zip(&loaded.dilemmas) {
        assert_eq!(got, want, "{}: {}", path.display(), want.id);
    }
    assert!(
        loaded.warnings.is_empty(),
        "{}: {:?}",
        path.display(),
        loaded.warnings
    );
}

#[test]
fn documents_from_real_word_processors_yield_the_same_seven_dilemmas() {
    let expected = sample_md();
    assert_eq!(expected.len(), 7);
    for name in [
        "sample.pandoc.docx",
        "sample.libreoffice-from-odt.docx",
        "sample.libreoffice-resaved.docx",
    ] {
        assert_same(&expected, &fixture(name));
    }
}

#[test]
fn our_three_docx_layouts_yield_the_same_seven_dilemmas() {
    let expected = sample_md();
    let dir = tempfile::tempdir().unwrap();
    for layout in [
        DocxLayout::Headings,
        DocxLayout::BoldLabels,
        DocxLayout::Numbered,
    ] {
        let path = dir.path().join(format!("{layout:?}.docx"));
        save_docx(write_docx("Sample", &expected, layout), &path).unwrap();
        assert_same(&expected, &path);
    }
}

#[test]
fn the_shipped_docx_agrees_with_its_markdown_source() {
    assert_same(&sample_md(), &root().join("sample-config/dilemmas.docx"));
}

#[test]
fn the_predecessors_document_matches_its_json() {
    let json_path = root().join("../shared/data/predecessor/dilemmas_v2.json");
    let Ok(text) = std::fs::read_to_string(&json_path) else {
        eprintln!("SKIPPED: ../shared/data/predecessor is absent");
        return;
    };
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let loaded = load_dilemmas(&fixture("predecessor_dilemmas_v2.pandoc.docx")).unwrap();
    assert_eq!(loaded.dilemmas.len(), 8);
    let expected = json["dilemmas"].as_array().unwrap();
    for want in expected {
        let id = want["id"].as_str().unwrap();
        let got = loaded
            .dilemmas
            .iter()
            .find(|d| d.id == id)
            .unwrap_or_else(|| panic!("{id} missing"));
        assert_eq!(got.title, want["title"].as_str().unwrap());
        let questions: Vec<&str> = want["core_questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q.as_str().unwrap())
            .collect();
        assert_eq!(got.questions, questions, "{id}");
        assert_eq!(
            got.consistency_case,
            want["consistency_case"]["description"].as_str().unwrap(),
            "{id}"
        );
        assert!(got.complications.is_empty());
    }
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("no complications"))
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("Universal Follow-up Probes"))
    );
}

#[test]
fn errors_name_the_file_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let not_docx = dir.path().join("notes.docx");
    std::fs::write(&not_docx, "just text").unwrap();
    let e = load_dilemmas(&not_docx).unwrap_err().to_string();
    assert!(
        e.contains("notes.docx") && e.contains("not a Word document"),
        "{e}"
    );

    let bytes = std::fs::read(fixture("sample.pandoc.docx")).unwrap();
    let corrupt = dir.path().join("corrupt.docx");
    std::fs::write(&corrupt, &bytes[..bytes.len() / 2]).unwrap();
    let e = load_dilemmas(&corrupt).unwrap_err().to_string();
    assert!(
        e.contains("corrupt.docx") && e.contains("not a Word document"),
        "{e}"
    );

    let mut broken = sample_md();
    let headings_only = dir.path().join("headings.docx");
    save_docx(
        write_docx("Only a title", &[], DocxLayout::Headings),
        &headings_only,
    )
    .unwrap();
    let e = load_dilemmas(&headings_only).unwrap_err().to_string();
    assert!(
        e.contains("no dilemma found") && e.contains("Only a title"),
        "lists the headings it saw: {e}"
    );

    broken[0].consistency_case.clear();
    let no_case = dir.path().join("no_case.docx");
    save_docx(
        write_docx("T", &broken[..1], DocxLayout::Headings),
        &no_case,
    )
    .unwrap();
    let e = load_dilemmas(&no_case).unwrap_err().to_string();
    assert!(
        e.contains("\"The Borrowed Voice\" has no consistency case"),
        "{e}"
    );

    let mut no_lists = sample_md();
    no_lists[0].asymmetric_features.clear();
    let missing = dir.path().join("missing.docx");
    save_docx(
        write_docx("T", &no_lists[..1], DocxLayout::Headings),
        &missing,
    )
    .unwrap();
    let loaded = load_dilemmas(&missing).unwrap();
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("The Borrowed Voice") && w.contains("asymmetric features")),
        "{:?}",
        loaded.warnings
    );

    let e = load_dilemmas(&dir.path().join("dilemmas.pdf"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("dilemmas.pdf"), "{e}");
}

fn sample_blocks() -> Vec<Block> {
    docx_blocks(&std::fs::read(root().join("sample-config/dilemmas.docx")).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_bytes_give_an_error_not_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = docx_blocks(&bytes);
    }

    #[test]
    fn a_damaged_docx_gives_an_error_not_a_panic(cut in 0usize..60_000, flip in 0usize..60_000, value in any::<u8>()) {
        let mut bytes = std::fs::read(root().join("sample-config/dilemmas.docx")).unwrap();
        let at = flip % bytes.len();
        bytes[at] = value;
        bytes.truncate(cut.max(1).min(bytes.len()));
        let _ = docx_blocks(&bytes);
    }

    #[test]
    fn shuffled_or_dropped_paragraphs_give_dilemmas_or_a_clear_error(seed in any::<u64>(), keep in 0.0f64..1.0) {
        let mut blocks = sample_blocks();
        // A deterministic shuffle and drop from the seed.
        let mut state = seed | 1;
        let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
        for i in (1..blocks.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            if next() % 4 == 0 { blocks.swap(i, j); }
        }
        blocks.retain(|_| (next() % 1000) as f64 / 1000.0 < keep);
        match recognise(&blocks, Path::new("shuffled.docx")) {
            Ok(loaded) => prop_assert!(loaded.dilemmas.iter().all(|d| !d.core_scenario.is_empty() && !d.consistency_case.is_empty())),
            Err(e) => prop_assert!(e.to_string().starts_with("shuffled.docx: ")),
        }
    }
}
