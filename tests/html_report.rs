//! `report --format html` in a real headless Chromium (Debian's `chromium`): the page loads
//! with no console errors, search narrows the round list, a round opens, and transcripts
//! holding `<script>` and `<img onerror>` payloads run nothing and add no element.
//!
//! The page has a test hook: opened with `#selftest?q=…&open=ID` (and any filter), it runs
//! the search and filters, opens the round, and writes what it saw as JSON into
//! `<pre id="selftest">`, which `--dump-dom` prints. Without chromium the browser tests
//! are skipped with a message, unless `CI` is set: there a missing chromium fails them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(name)
}

/// A copy of a stored fixture's tournament and rounds, to change.
fn copy_fixture(name: &str, to: &Path) {
    std::fs::create_dir_all(to.join("rounds")).unwrap();
    std::fs::copy(
        fixture(name).join("tournament.json"),
        to.join("tournament.json"),
    )
    .unwrap();
    for entry in std::fs::read_dir(fixture(name).join("rounds")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join("rounds").join(path.file_name().unwrap())).unwrap();
    }
}

/// The stored rounds' ids (their file names), sorted.
fn round_ids(dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(dir.join("rounds"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    ids.sort();
    ids
}

/// `ethics-bowl report DIR --out OUT --format html`; returns report.html's path.
fn report_html(dir: &Path, out: &Path) -> PathBuf {
    let output = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .arg("report")
        .arg(dir)
        .arg("--out")
        .arg(out)
        .args(["--format", "html"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = out.join("report.html");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("report.html"),
        "the report names the file it wrote"
    );
    path
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Debian's chromium on the PATH; `None` (after saying so) when absent outside CI.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            !ci(),
            "chromium is not installed and CI is set: install it (apt-get install -y chromium; .ci/run does)"
        );
        eprintln!(
            "SKIPPED: chromium is not installed (apt-get install -y chromium); the HTML report's browser test did not run"
        );
    }
    found
}

/// What the page's self-test saw, the page as the browser left it, and the browser's log.
struct Visit {
    selftest: Value,
    dom: String,
    log: String,
}

/// Opens the page at `fragment` in headless chromium and reads the self-test's record.
fn visit(browser: &Path, page: &Path, fragment: &str) -> Visit {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}#{fragment}", page.display());
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    let start = dom
        .find("<pre id=\"selftest\">")
        .unwrap_or_else(|| panic!("no self-test record in the page at {url}:\n{log}"))
        + "<pre id=\"selftest\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let selftest: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("self-test record {text:?}: {e}\n{log}"));
    Visit { selftest, dom, log }
}

/// The browser's console lines (errors, security-policy refusals, logs): a clean page has
/// none.
fn console_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

const PAYLOAD: &str = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=1\">";

#[test]
fn hostile_transcripts_run_nothing_and_search_narrows_and_a_round_opens() {
    let dir = tempfile::tempdir().unwrap();
    copy_fixture("ethics_bowl", dir.path());
    let target = "borrowed_voice__sim-alpha__vs__sim-beta__r1";
    let file = dir.path().join("rounds").join(format!("{target}.json"));
    let mut round: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    round["phases"][0]["response"] = format!(
        "Consent matters. zebracorn {PAYLOAD} </script><!-- <svg onload=\"window.__pwned=1\">"
    )
    .into();
    round["phases"][1]["response"] = format!("{PAYLOAD}\u{2028}and on").into();
    round["judgments"][0]["overall_analysis"] = PAYLOAD.into();
    std::fs::write(&file, serde_json::to_string_pretty(&round).unwrap()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let page = report_html(dir.path(), out.path());

    // The file itself: one page, nothing fetched, the payloads only inside the JSON block
    // and there escaped.
    let html = std::fs::read_to_string(&page).unwrap();
    let start = html.find("id=\"data\">").unwrap();
    let end = start + html[start..].find("</script>").unwrap();
    let (data, markup) = (
        &html[start..end],
        format!("{}{}", &html[..start], &html[end..]),
    );
    assert!(
        !html.contains("<script>window.__pwned"),
        "payload as markup"
    );
    assert!(!html.contains("<img"), "no image element in the file");
    assert!(!markup.contains(" src="), "nothing loaded from elsewhere");
    assert!(!markup.contains("<link"), "no linked style sheet or font");
    assert!(markup.contains("Content-Security-Policy"));
    assert!(
        data.contains("\\u003cscript\\u003ewindow.__pwned=1"),
        "escaped in the JSON"
    );
    assert!(!data.contains('<') && !data.contains('\u{2028}'));

    let Some(browser) = chromium() else { return };
    let v = visit(
        &browser,
        &page,
        &format!("selftest?q=zebracorn&open={target}"),
    );
    let s = &v.selftest;
    assert_eq!(s["errors"], serde_json::json!([]), "{s}");
    assert_eq!(s["total"], 4, "{s}");
    assert_eq!(s["shown"], 1, "search narrows the list: {s}");
    assert_eq!(s["opened"], true, "{s}");
    assert_eq!(s["open_round"], target, "{s}");
    assert_eq!(s["phases"], 6, "{s}");
    assert_eq!(s["judgments"], 1, "{s}");
    assert_eq!(s["pwned"], "undefined", "a payload ran: {s}");
    assert_eq!(s["images"], 0, "{s}");
    assert_eq!(s["scripts"], 2, "only the page's own scripts: {s}");
    assert!(
        !v.dom.contains("<img"),
        "an <img> from model text in the DOM"
    );
    assert!(
        !v.dom.contains("<svg onload"),
        "an <svg> from model text in the DOM"
    );
    assert!(
        v.dom.contains(
            "<mark>zebracorn</mark> &lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x"
        ),
        "the opened round shows the payload as text, the search's word marked"
    );
    assert!(
        console_lines(&v.log).is_empty(),
        "console: {:?}",
        console_lines(&v.log)
    );

    // A table's link (`#rounds?dilemma=…`) filters the list; the search is cleared by it.
    let v = visit(&browser, &page, "selftest?dilemma=borrowed_voice&open=nope");
    assert_eq!(v.selftest["shown"], 2, "{}", v.selftest);
    assert_eq!(v.selftest["opened"], false, "{}", v.selftest);
}

#[test]
fn every_protocol_renders_without_errors_and_quotes_and_filters_read() {
    let Some(browser) = chromium() else { return };
    for name in ["ethics_bowl", "panel", "qa_debate", "structured_debate"] {
        let out = tempfile::tempdir().unwrap();
        let page = report_html(&fixture(name), out.path());
        for id in round_ids(&fixture(name)) {
            let v = visit(&browser, &page, &format!("selftest?open={id}"));
            let s = &v.selftest;
            assert_eq!(s["errors"], serde_json::json!([]), "{name} {id}: {s}");
            assert_eq!(s["opened"], true, "{name} {id}: {s}");
            assert_eq!(s["shown"], s["total"], "{name} {id}: {s}");
            assert!(
                console_lines(&v.log).is_empty(),
                "{name} {id}: {:?}",
                console_lines(&v.log)
            );
            if name == "qa_debate" && id.contains("__debate__sim-alpha__vs__sim-beta") {
                assert!(s["verified_quotes"].as_u64().unwrap() > 0, "{id}: {s}");
                assert!(s["unverified_quotes"].as_u64().unwrap() > 0, "{id}: {s}");
            }
        }
    }
    // Each table link the page holds lets through as many rounds as the same link's filter
    // does in Rust (`Link::matches`, which the figure-link tests hold to each row's rounds).
    for name in ["ethics_bowl", "panel", "qa_debate", "structured_debate"] {
        let out = tempfile::tempdir().unwrap();
        let page = report_html(&fixture(name), out.path());
        let v = visit(&browser, &page, "selftest");
        let page_links: Vec<(Vec<(String, String)>, u64)> =
            serde_json::from_value(v.selftest["links"].clone()).unwrap();
        let rounds = ethics_bowl::store::Store::open(&fixture(name))
            .unwrap()
            .load_rounds(&ethics_bowl::store::RoundFilter::default())
            .unwrap()
            .0;
        let figures = ethics_bowl::analysis::figures::sections(&ethics_bowl::analysis::analyse(
            &rounds,
            &std::collections::BTreeMap::new(),
        ));
        let mut compared = 0;
        for link in figures
            .iter()
            .flat_map(|s| s.tables())
            .flat_map(|t| &t.rows)
            .filter_map(|r| r.link.as_ref())
            .filter(|l| {
                l.get(ethics_bowl::analysis::figures::LinkKey::Round)
                    .is_none()
            })
        {
            let pairs: Vec<(String, String)> = link
                .0
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), v.clone()))
                .collect();
            let (_, shown) = page_links
                .iter()
                .find(|(p, _)| *p == pairs)
                .unwrap_or_else(|| panic!("{name}: no link {pairs:?} in the page"));
            let matched = rounds.iter().filter(|r| link.matches(r)).count() as u64;
            assert_eq!(*shown, matched, "{name}: {pairs:?}");
            compared += 1;
        }
        assert!(compared > 0, "{name}");
    }

    // Protocol filters: the judge's answer (question-answer), an argument's standing (structured).
    for (name, filter) in [
        ("qa_debate", "qa=correct"),
        ("structured_debate", "standing=REFUTED"),
    ] {
        let out = tempfile::tempdir().unwrap();
        let page = report_html(&fixture(name), out.path());
        let v = visit(&browser, &page, &format!("selftest?{filter}"));
        let (shown, total) = (
            v.selftest["shown"].as_u64().unwrap(),
            v.selftest["total"].as_u64().unwrap(),
        );
        assert!(
            0 < shown && shown < total,
            "{name} {filter}: {}",
            v.selftest
        );
    }
}

/// `ethics-bowl report DIR --out OUT --format FORMATS`.
fn report_formats(dir: &Path, out: &Path, formats: &str) {
    let output = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .arg("report")
        .arg(dir)
        .arg("--out")
        .arg(out)
        .args(["--format", formats])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A fragment's query component, percent-encoded as `URLSearchParams` reads it back.
fn component(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The rounds in a page's JSON block.
fn page_rounds(html: &str) -> Vec<Value> {
    let start = html.find("id=\"data\">").unwrap() + "id=\"data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str::<Value>(&html[start..end])
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn the_title_and_heading_name_the_tournament_and_the_run_s_date_as_report_md_does() {
    let out = tempfile::tempdir().unwrap();
    report_formats(&fixture("ethics_bowl"), out.path(), "md,html");
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert!(
        html.contains("<title>Tournament analysis: sample, 2026-11-22</title>"),
        "{}",
        &html[..html.find("<style>").unwrap()]
    );
    assert!(html.contains("<h1>Tournament analysis: sample, 2026-11-22</h1>"));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.starts_with("# Tournament analysis: sample, 2026-11-22\n"),
        "{}",
        md.lines().next().unwrap()
    );

    // A name is the user's, but escaped all the same; a run over several days says so.
    let dir = tempfile::tempdir().unwrap();
    copy_fixture("ethics_bowl", dir.path());
    let file = dir.path().join("tournament.json");
    let mut record: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    record["config"]["name"] = "<b>ethics</b> & co".into();
    record["finished_at"] = "2026-11-24T01:00:00Z".into();
    std::fs::write(&file, serde_json::to_string_pretty(&record).unwrap()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let html = std::fs::read_to_string(report_html(dir.path(), out.path())).unwrap();
    assert!(
        html.contains(
            "<title>Tournament analysis: &lt;b&gt;ethics&lt;/b&gt; &amp; co, 2026-11-22 to 2026-11-24</title>"
        ),
        "{}",
        &html[..html.find("<style>").unwrap()]
    );
}

#[test]
fn the_round_list_shows_each_round_s_result_and_a_failed_round_no_score() {
    // A copy of the Ethics Bowl fixture with its complete round's twin stopped by an error
    // after it was judged: its judgment must not show.
    let dir = tempfile::tempdir().unwrap();
    copy_fixture("ethics_bowl", dir.path());
    let failed = "borrowed_voice__sim-alpha__vs__sim-beta__r1";
    let file = dir.path().join("rounds").join(format!("{failed}.json"));
    let mut round: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    round["status"] = "incomplete".into();
    round["judgments"][0]["parse_status"] = "parsed".into();
    round["phases"][5]["error"] = "the provider answered 500".into();
    std::fs::write(&file, serde_json::to_string_pretty(&round).unwrap()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let page = report_html(dir.path(), out.path());
    let html = std::fs::read_to_string(&page).unwrap();
    let rounds = page_rounds(&html);
    let by_id = |id: &str| rounds.iter().find(|r| r["id"] == id).unwrap().clone();
    let complete = by_id("borrowed_voice__sim-beta__vs__sim-alpha__r1");
    assert_eq!(complete["outcome"]["text"], "A -3", "{complete}");
    assert_eq!(complete["outcome"]["class"], "bad");
    let f = by_id(failed);
    assert_eq!(f["state"], "failed", "{f}");
    assert!(
        f.get("outcome").is_none(),
        "a failed round shows no score: {f}"
    );
    let review = by_id("inherited_debt__sim-gamma__vs__sim-alpha__r1");
    assert_eq!(review["state"], "needs review");
    assert!(review.get("outcome").is_none());

    // The question-answer debate: ✓ or ✗.
    let out = tempfile::tempdir().unwrap();
    let qa = std::fs::read_to_string(report_html(&fixture("qa_debate"), out.path())).unwrap();
    let qa_rounds = page_rounds(&qa);
    let right = qa_rounds
        .iter()
        .find(|r| r["id"] == "qa-sample-0__debate__sim-alpha__vs__sim-beta__judge__sim-gamma__r1")
        .unwrap();
    assert_eq!(right["outcome"]["text"], "✓ right", "{right}");

    let Some(browser) = chromium() else { return };
    let v = visit(&browser, &page, "selftest");
    let list: Vec<(String, String, String)> =
        serde_json::from_value(v.selftest["list"].clone()).unwrap();
    let item = |id: &str| list.iter().find(|(i, _, _)| i == id).unwrap().clone();
    assert_eq!(
        item("borrowed_voice__sim-beta__vs__sim-alpha__r1"),
        (
            "borrowed_voice__sim-beta__vs__sim-alpha__r1".into(),
            "outcome bad".into(),
            "A -3".into()
        )
    );
    assert_eq!(
        item(failed),
        (
            failed.into(),
            "badge incomplete failed".into(),
            "failed".into()
        )
    );
    assert_eq!(
        item("inherited_debt__sim-gamma__vs__sim-alpha__r1").2,
        "needs review"
    );
    let out = tempfile::tempdir().unwrap();
    let qa_page = report_html(&fixture("qa_debate"), out.path());
    let v = visit(&browser, &qa_page, "selftest");
    let list: Vec<(String, String, String)> =
        serde_json::from_value(v.selftest["list"].clone()).unwrap();
    assert!(
        list.iter()
            .any(|(_, class, text)| class == "outcome good" && text == "✓ right"),
        "{list:?}"
    );
}

#[test]
fn a_hostile_round_id_model_name_and_search_highlight_inject_nothing() {
    let dir = tempfile::tempdir().unwrap();
    copy_fixture("ethics_bowl", dir.path());
    let old = "borrowed_voice__sim-alpha__vs__sim-beta__r1";
    // A round id may hold anything but a path separator, a leading dot and controls.
    let id = "evil<img src=x onerror=window.__pwned=1><b>r1";
    let model = "<img src=x onerror=\"window.__pwned=1\">model";
    let from = dir.path().join("rounds").join(format!("{old}.json"));
    let mut round: Value = serde_json::from_str(&std::fs::read_to_string(&from).unwrap()).unwrap();
    round["id"] = id.into();
    round["team_a_model"] = model.into();
    round["phases"][0]["response"] =
        format!("Consent matters. zebracorn (x|y)* [z] {PAYLOAD} and more").into();
    std::fs::remove_file(&from).unwrap();
    std::fs::write(
        dir.path().join("rounds").join(format!("{id}.json")),
        serde_json::to_string_pretty(&round).unwrap(),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let page = report_html(dir.path(), out.path());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<img"), "no image element in the file");
    assert!(!html.contains("<b>r1"), "the id as markup");
    assert!(
        page_rounds(&html)
            .iter()
            .any(|r| r["id"] == id && r["a"] == model)
    );

    let Some(browser) = chromium() else { return };
    let v = visit(
        &browser,
        &page,
        &format!(
            "selftest?q={}&open={}&requery=consent",
            component("zebracorn (x|y)* <img onerror=\"window.__pwned=1\">"),
            component(id)
        ),
    );
    let s = &v.selftest;
    assert_eq!(s["errors"], serde_json::json!([]), "{s}");
    assert_eq!(s["opened"], true, "{s}");
    assert_eq!(s["shown"], 1, "{s}");
    assert_eq!(s["pwned"], "undefined", "a payload ran: {s}");
    assert_eq!(s["images"], 0, "{s}");
    assert_eq!(s["scripts"], 2, "{s}");
    // The words are marked as text: the regular-expression characters literally, the
    // markup as characters.
    let marks: Vec<String> = serde_json::from_value(s["marks"].clone()).unwrap();
    for word in [
        "zebracorn",
        "(x|y)*",
        "<img",
        "onerror=\"window.__pwned=1\">",
    ] {
        assert!(
            marks.iter().any(|m| m == word),
            "{word} not marked: {marks:?}"
        );
    }
    assert!(
        marks.iter().all(|m| [
            "zebracorn",
            "(x|y)*",
            "<img",
            "onerror=\"window.__pwned=1\">"
        ]
        .contains(&m.to_lowercase().as_str())),
        "{marks:?}"
    );
    // The page as the new search left it: its marks only, the payload text.
    assert!(
        v.dom.contains(
            "<mark>Consent</mark> matters. zebracorn (x|y)* [z] &lt;script&gt;window.__pwned=1"
        ),
        "{:?}",
        v.dom
            .match_indices("<mark>")
            .map(|(i, _)| &v.dom[i..i + 60])
            .collect::<Vec<_>>()
    );
    assert!(!v.dom.contains("<img"), "an <img> in the DOM");
    assert!(
        !v.dom.contains("<b>r1"),
        "the round id as markup in the DOM"
    );
    // A new search takes the old marks away and marks its own.
    let remarked: Vec<String> = serde_json::from_value(s["remarked"].clone()).unwrap();
    assert!(!remarked.is_empty(), "{s}");
    assert!(
        remarked.iter().all(|m| m.to_lowercase() == "consent"),
        "{remarked:?}"
    );
    assert!(
        console_lines(&v.log).is_empty(),
        "console: {:?}",
        console_lines(&v.log)
    );
}
