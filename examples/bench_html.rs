//! The HTML report at scale: 1,000 rounds (the stored fixtures' simulated rounds of every
//! protocol, Ethics Bowl, panel, question-answer and structured debate, repeated under new
//! ids), analysed and written as report.html; its size and the time to build it, then the
//! time headless Chromium takes to open it until the page marks itself ready (the
//! `data-ready` attribute its script sets once the round list and filters are built; the
//! script also records its own time in `data-ready-ms`), against Chromium opening an
//! empty page. Target: under 2 s.
//!
//! cargo run --release --example bench_html [ROUNDS]
//!
//! Needs `chromium` on the PATH for the opening times (apt-get install -y chromium).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ethics_bowl::analysis::{analyse, write_html};
use ethics_bowl::domain::Round;
use ethics_bowl::store::{RoundFilter, Store};

/// The stored fixtures' rounds, repeated under new ids up to `n`.
fn rounds(n: usize) -> Vec<Round> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stored-v0");
    let mut stored = Vec::new();
    for name in ["ethics_bowl", "panel", "qa_debate", "structured_debate"] {
        let store = Store::open(&base.join(name)).expect("the stored fixtures open");
        let (rounds, errors) = store
            .load_rounds(&RoundFilter::default())
            .expect("the stored fixtures load");
        assert!(errors.is_empty(), "{name}: {errors:?}");
        stored.extend(rounds);
    }
    (0..n)
        .map(|i| {
            let mut r = stored[i % stored.len()].clone();
            r.id = format!("{}-{i:04}", r.id);
            r
        })
        .collect()
}

/// Chromium opening `url` and dumping its DOM: the wall time and the page as left.
fn open(browser: &Path, url: &str) -> (Duration, String) {
    let profile = tempfile::tempdir().expect("a temporary profile");
    let start = Instant::now();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("chromium runs");
    (
        start.elapsed(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// An attribute of the dumped page's `<html>` element.
fn attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let html = &dom[dom.find("<html")?..];
    let head = &html[..html.find('>')?];
    let start = head.find(&format!("{name}=\""))? + name.len() + 2;
    Some(&head[start..start + head[start..].find('"')?])
}

fn chromium() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(1000, |a| a.parse().expect("ROUNDS is a number"));
    let rounds = rounds(n);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let start = Instant::now();
    let analysis = analyse(&rounds, &BTreeMap::new());
    let analysed = start.elapsed();
    let path = write_html(&analysis, &rounds, dir.path()).expect("report.html is written");
    let written = start.elapsed() - analysed;
    let size = std::fs::metadata(&path).expect("report.html exists").len();
    println!("cargo run --release --example bench_html -- {n}");
    println!(
        "{n} rounds: analysis {:.0} ms, report.html built and written in {:.0} ms, {:.2} MB",
        analysed.as_secs_f64() * 1000.0,
        written.as_secs_f64() * 1000.0,
        size as f64 / 1e6
    );
    let Some(browser) = chromium() else {
        println!("chromium is not on the PATH: no opening times (apt-get install -y chromium)");
        return;
    };
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, "<!doctype html><title>empty</title>").expect("empty page written");
    let url = format!("file://{}", path.display());
    let mut times = Vec::new();
    let mut baseline = Vec::new();
    let mut in_page = Vec::new();
    for _ in 0..3 {
        let (t, dom) = open(&browser, &url);
        assert_eq!(
            attribute(&dom, "data-ready"),
            Some(n.to_string().as_str()),
            "the page did not mark itself ready with {n} rounds"
        );
        in_page.push(attribute(&dom, "data-ready-ms").unwrap_or("?").to_string());
        times.push(t);
        baseline.push(open(&browser, &format!("file://{}", empty.display())).0);
    }
    let (t, b) = (median(times), median(baseline));
    println!(
        "chromium --headless --dump-dom: {:.2} s to open and mark ready (median of 3), {:.2} s for an empty page, \
         so {:.2} s for the report; the page's script: {} ms to ready (each run) — target < 2 s",
        t.as_secs_f64(),
        b.as_secs_f64(),
        t.saturating_sub(b).as_secs_f64(),
        in_page.join(", ")
    );
}
