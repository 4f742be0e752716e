//! The page: its head (styles, the security policy), the report's sections, the transcript
//! browser's controls, the rounds as JSON and the script.

use base64::Engine as _;
use sha2::{Digest, Sha256};

use super::escape;
use super::rounds::{RoundView, view};
use super::sections;
use crate::analysis::Analysis;
use crate::domain::Round;

const SCRIPT: &str = include_str!("page.js");
const STYLE: &str = include_str!("page.css");

/// The filters' controls: (key, label); the script fills in the choices from the rounds
/// and hides a filter with one choice or none.
const FILTERS: [(&str, &str); 13] = [
    ("model", "model (any role)"),
    ("case", "dilemma / item / topic"),
    ("judge", "judge"),
    ("judge2", "also judged by"),
    ("status", "status"),
    ("protocol", "protocol"),
    ("format", "question-answer format"),
    ("level", "level"),
    ("debaters", "debaters"),
    ("qa", "judge's answer"),
    ("winner", "winner"),
    ("standing", "argument standing"),
    ("confidence", "judge's confidence"),
];

/// The whole page for an analysis and the rounds it was computed from.
pub(super) fn page(a: &Analysis, rounds: &[Round]) -> String {
    let doc = sections::report(a);
    let views: Vec<RoundView> = rounds.iter().map(view).collect();
    // Every string redacted before it is JSON-escaped (see `redact`). Serialising plain
    // strings, numbers and vectors cannot fail; an empty list is the fallback that keeps the
    // page whole if it ever did.
    let json = crate::redact::remembered()
        .json_tree(&views)
        .map(|tree| tree.to_string())
        .unwrap_or_else(|_| "[]".into());
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(SCRIPT));
    let mut nav = String::new();
    for (id, title) in doc.contents() {
        nav.push_str(&format!(
            "<a href=\"#{}\">{}</a>",
            escape::html(id),
            escape::html(title)
        ));
    }
    let mut filters = String::new();
    for (key, label) in FILTERS {
        filters.push_str(&format!(
            "<label hidden>{label}<select id=\"f-{key}\"><option value=\"\">all</option></select></label>"
        ));
    }
    filters.push_str(
        "<label hidden>role of the model<select id=\"f-role\"><option value=\"\">any</option>\
         <option value=\"a\">Team A / Pro / debater A</option><option value=\"b\">Team B / Con / debater B</option>\
         <option value=\"player\">either side</option>\
         <option value=\"judge\">judge</option></select></label>",
    );
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{hash}'\">\
<title>{title}</title><style>{STYLE}</style></head>\n<body>\
<header><h1>{title}</h1><nav>{nav}<a href=\"#rounds\">Rounds</a></nav></header>\n<main>\
{body}\
<section id=\"rounds\"><h2>Rounds</h2>\
<div id=\"filters\"><label>search<input id=\"q\" type=\"search\" placeholder=\"text, round id, model, dilemma…\"></label>\
{filters}<button id=\"clear\" type=\"button\">clear</button><span id=\"count\"></span></div>\
<div id=\"browser\"><ol id=\"list\"></ol><article id=\"detail\"></article></div></section>\
<pre id=\"selftest\" hidden></pre></main>\n\
<script type=\"application/json\" id=\"data\">{data}</script>\n<script>{SCRIPT}</script>\n</body></html>\n",
        title = escape::html(&a.title()),
        body = doc.body(),
        data = escape::script_json(&json),
    )
}
