//! `report.html`: one self-contained page with every table and chart of the report and a
//! transcript browser over every round, with search, filters, and links from each table row
//! to the rounds behind it. No network: the styles, the script, the charts (inline SVG)
//! and the rounds (a JSON block) are all in the file, so it opens from a `file://` URL.
//!
//! Model text is untrusted. The static part escapes every string ([`escape::html`]); the
//! rounds travel as JSON escaped for a script block ([`escape::script_json`]) and the
//! page's script puts them into the DOM as text only. A Content-Security-Policy allows
//! the page's own script (by its hash) and nothing else, as a second wall.

mod doc;
mod escape;
mod page;
mod rounds;
mod sections;

use std::path::{Path, PathBuf};

use super::report::{Analysis, ReportError};
use crate::domain::Round;

use page::page;

/// Writes `report.html` into `out` (created if missing); returns its path.
pub fn write_html(a: &Analysis, rounds: &[Round], out: &Path) -> Result<PathBuf, ReportError> {
    let fail = |path: &Path, e: std::io::Error| ReportError {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(out).map_err(|e| fail(out, e))?;
    let path = out.join("report.html");
    std::fs::write(&path, page(a, rounds)).map_err(|e| fail(&path, e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::analysis::analyse;
    use crate::store::{RoundFilter, Store};

    fn rounds(name: &str) -> Vec<Round> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/stored-v0")
            .join(name);
        Store::open(&dir)
            .unwrap()
            .load_rounds(&RoundFilter::default())
            .unwrap()
            .0
    }

    /// The rounds in a page's JSON block.
    fn data(html: &str) -> serde_json::Value {
        let start = html.find("id=\"data\">").unwrap() + "id=\"data\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        serde_json::from_str(&html[start..end]).unwrap()
    }

    #[test]
    fn each_protocol_s_tables_charts_and_rounds_are_in_its_page() {
        for (name, headings, charts) in [
            (
                "ethics_bowl",
                &[
                    "Cost, tokens and latency by model",
                    "Model comparison by role",
                    "Dilemma difficulty",
                    "Consistency",
                    "Framework usage",
                    "Ratings",
                    "Bias checks",
                    "Judge agreement",
                    "Across repetitions",
                ][..],
                2,
            ),
            (
                "panel",
                &["Judge panels", "Model comparison by role"][..],
                2,
            ),
            (
                "qa_debate",
                &[
                    "Question-answer debate: judge accuracy",
                    "Accuracy per configuration",
                    "Calibration",
                ][..],
                1,
            ),
            (
                "structured_debate",
                &["Structured debate", "Fallacies found"][..],
                0,
            ),
        ] {
            let rounds = rounds(name);
            let a = analyse(&rounds, &BTreeMap::new());
            let html = page(&a, &rounds);
            for h in headings {
                assert!(html.contains(h), "{name}: no {h}");
            }
            assert!(html.matches("<svg").count() >= charts, "{name}: charts");
            assert!(
                html.contains("href=\"#rounds?model=sim-"),
                "{name}: rows link to rounds"
            );
            let data = data(&html);
            let ids: Vec<&str> = data
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap())
                .collect();
            assert_eq!(
                ids,
                rounds.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
                "{name}"
            );
            assert!(!html.contains("\"prompt\""), "{name}: prompts are left out");
        }
    }

    #[test]
    fn a_key_in_a_round_reaches_neither_the_markup_nor_the_rounds_json() {
        let key = r#"sk-zqpage"json\key<0123>"#;
        crate::redact::remember(&crate::redact::Redactor::new([("PAGE_TEST_KEY", key)]));
        let mut rounds = rounds("ethics_bowl");
        rounds[0].phases[0].response = format!("my key: {key}");
        rounds[0].judgments[0].overall_analysis = format!("its key: {key}");
        rounds[0].team_a_model = key.to_string();
        let html = page(&analyse(&rounds, &BTreeMap::new()), &rounds);
        assert!(!html.contains("zqpage"), "no form of the key:\n{html}");
        let data = data(&html).to_string();
        assert!(data.contains("my key: [redacted PAGE_TEST_KEY]"), "{data}");
    }

    #[test]
    fn the_security_policy_allows_exactly_the_page_s_script() {
        let rounds = rounds("ethics_bowl");
        let html = page(&analyse(&rounds, &BTreeMap::new()), &rounds);
        let start = html.rfind("<script>").unwrap() + "<script>".len();
        let end = start + html[start..].find("</script>").unwrap();
        let hash = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            <sha2::Sha256 as sha2::Digest>::digest(&html[start..end]),
        );
        assert!(html.contains(&format!("script-src 'sha256-{hash}'")));
        assert!(html.contains("default-src 'none'"));
    }

    #[test]
    fn write_html_names_the_folder_it_could_not_write() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let rounds = rounds("ethics_bowl");
        let err = write_html(
            &analyse(&rounds, &BTreeMap::new()),
            &rounds,
            &file.path().join("sub"),
        )
        .unwrap_err();
        assert_eq!(err.path, file.path().join("sub"));
    }
}
