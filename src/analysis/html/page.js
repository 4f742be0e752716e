"use strict";
// The transcript browser of report.html. Model text is untrusted: it reaches the DOM only
// as text nodes (textContent, createTextNode), never as markup.
const errors = [];
window.addEventListener("error", (e) => errors.push(String(e.message)));
const started = performance.now();
const rounds = JSON.parse(document.getElementById("data").textContent);
const $ = (id) => document.getElementById(id);

// An element with a class and children (strings become text nodes).
function el(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}

// Text with <v_quote>/<u_quote> spans marked verified or unverified; everything as text.
function quoted(text) {
  const out = el("div", "text");
  const re = /<(v|u)_quote>([\s\S]*?)<\/\1_quote>/g;
  let last = 0;
  let m;
  while ((m = re.exec(text)) !== null) {
    out.append(document.createTextNode(text.slice(last, m.index)));
    const span = el("span", m[1] === "v" ? "vq" : "uq", m[2]);
    span.title = m[1] === "v" ? "quote verified in the game" : "quote not found in the game";
    out.append(span);
    last = re.lastIndex;
  }
  out.append(document.createTextNode(text.slice(last)));
  return out;
}

function table(head, rows) {
  const t = el("table");
  const tr = el("tr");
  for (const h of head) tr.append(el("th", null, h));
  t.append(el("thead", null, tr));
  const body = el("tbody");
  for (const r of rows) {
    const row = el("tr");
    for (const c of r) row.append(el("td", null, c));
    body.append(row);
  }
  t.append(body);
  return el("div", "scroll", t);
}

// The search's words, lower-cased, as the search matches them.
function words(q) {
  return q.toLowerCase().split(/\s+/).filter(Boolean);
}

// Marks each occurrence of the search's words in the text under `root` with <mark>, after
// taking away the marks of an earlier search; returns how many it marked. Text nodes are
// split and moved into <mark> elements: nothing is read as markup. Collapsed parts holding
// a mark (private reasoning, a raw answer) are opened.
function highlight(root, q) {
  for (const m of [...root.querySelectorAll("mark")]) m.replaceWith(...m.childNodes);
  root.normalize();
  // Longest first, so that a word inside another is marked as part of the longer.
  const ws = words(q).sort((a, b) => b.length - a.length);
  if (!ws.length) return 0;
  const re = new RegExp(ws.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "giu");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  let count = 0;
  for (const node of nodes) {
    const found = [];
    for (const m of node.data.matchAll(re)) {
      if (m[0].length) found.push([m.index, m.index + m[0].length]);
    }
    // From the last: the node keeps the text before each split, so earlier offsets hold.
    for (let i = found.length - 1; i >= 0; i--) {
      const [start, end] = found[i];
      const hit = node.splitText(start);
      hit.splitText(end - start);
      const mark = document.createElement("mark");
      hit.replaceWith(mark);
      mark.append(hit);
      count++;
    }
  }
  for (const d of root.querySelectorAll("details")) if (d.querySelector("mark")) d.open = true;
  return count;
}

// What a search looks through: ids, models, the case, setup, every phase and judgment.
const haystacks = new Map();
function haystack(r) {
  let h = haystacks.get(r.id);
  if (h === undefined) {
    const parts = [r.id, r.case, r.a, r.b, r.protocol, r.status, r.state, ...r.judges];
    if (r.outcome) parts.push(r.outcome.text);
    for (const [k, v] of r.setup) parts.push(k, v);
    for (const p of r.phases) parts.push(p.kind, p.speaker, p.text, p.thinking || "", p.error || "");
    for (const j of r.judgments) {
      parts.push(j.judge, ...j.lines, ...j.problems, j.raw || "");
      for (const [, t] of j.notes) parts.push(t);
      for (const row of j.rows || []) parts.push(...row);
    }
    h = parts.join("\n").toLowerCase();
    haystacks.set(r.id, h);
  }
  return h;
}

// The filters: the search box and one select per key.
const KEYS = [
  "model", "role", "case", "judge", "judge2", "status", "protocol",
  "format", "level", "debaters", "qa", "winner", "standing", "confidence",
];
const ALIASES = { dilemma: "case", item: "case", topic: "case" };

function options(select, values) {
  for (const v of [...new Set(values)].filter(Boolean).sort()) {
    const o = el("option", null, v);
    o.value = v;
    select.append(o);
  }
  // A filter with one choice or none narrows nothing: hide it.
  select.closest("label").hidden = select.options.length <= 2;
}

// Who played: `a vs b`, one name when one model played (self-play, consultancy), or the
// judges when none did (the question-answer baselines).
function who(r) {
  const players = [...new Set([r.a, r.b].filter(Boolean))];
  return players.length ? players.join(" vs ") : "judged by " + r.judges.join(", ");
}

function setup() {
  options($("f-model"), rounds.flatMap((r) => [r.a, r.b, ...r.judges]));
  options($("f-case"), rounds.map((r) => r.case));
  options($("f-judge"), rounds.flatMap((r) => r.judges));
  options($("f-judge2"), rounds.flatMap((r) => r.judges));
  options($("f-status"), rounds.map((r) => r.status));
  options($("f-protocol"), rounds.map((r) => r.protocol));
  options($("f-format"), rounds.flatMap((r) => (r.tags.format ? [r.tags.format] : [])));
  options($("f-level"), rounds.flatMap((r) => (r.tags.level ? [r.tags.level] : [])));
  options($("f-debaters"), rounds.flatMap((r) => (r.tags.debaters ? [r.tags.debaters] : [])));
  options($("f-qa"), rounds.flatMap((r) => (r.tags.qa ? [r.tags.qa] : [])));
  options($("f-winner"), rounds.flatMap((r) => (r.tags.winner ? [r.tags.winner] : [])));
  options($("f-standing"), rounds.flatMap((r) => r.tags.standings || []));
  options($("f-confidence"), rounds.flatMap((r) => r.tags.confidence || []));
  $("f-role").closest("label").hidden = false;
  const list = $("list");
  for (const r of rounds) {
    // A complete round's result (margin, right or wrong, winner); any other round's status.
    let result;
    if (r.outcome) {
      result = el("span", "outcome " + r.outcome.class, r.outcome.text);
      result.title = r.outcome.title;
    } else {
      result = el("span", "badge " + r.status + (r.state === "failed" ? " failed" : ""), r.state);
    }
    const item = el("li", null, el("span", "id", r.id), el("span", "who", who(r)), result, el("span", "case", r.case));
    item.tabIndex = 0;
    item.dataset.round = r.id;
    item.addEventListener("click", () => open(r.id));
    item.addEventListener("keydown", (e) => {
      if (e.key === "Enter") open(r.id);
    });
    list.append(item);
  }
  $("q").addEventListener("input", () => changed());
  for (const k of KEYS) $("f-" + k).addEventListener("change", () => changed());
  $("clear").addEventListener("click", () => {
    $("q").value = "";
    for (const k of KEYS) $("f-" + k).value = "";
    changed();
  });
  window.addEventListener("hashchange", fromHash);
}

function matches(r, f) {
  if (f.model) {
    const inA = r.a === f.model;
    const inB = r.b === f.model;
    const judged = r.judges.includes(f.model);
    const ok = { a: inA, b: inB, player: inA || inB, judge: judged }[f.role];
    if (ok === undefined ? !(inA || inB || judged) : !ok) {
      return false;
    }
  }
  if (f.case && r.case !== f.case) return false;
  if (f.judge && !r.judges.includes(f.judge)) return false;
  if (f.judge2 && !r.judges.includes(f.judge2)) return false;
  if (f.status && r.status !== f.status) return false;
  if (f.protocol && r.protocol !== f.protocol) return false;
  if (f.format && r.tags.format !== f.format) return false;
  if (f.level && r.tags.level !== f.level) return false;
  if (f.debaters && r.tags.debaters !== f.debaters) return false;
  if (f.qa && r.tags.qa !== f.qa) return false;
  if (f.winner && r.tags.winner !== f.winner) return false;
  if (f.standing && !(r.tags.standings || []).includes(f.standing)) return false;
  if (f.confidence && !(r.tags.confidence || []).includes(f.confidence)) return false;
  if (f.q) {
    const h = haystack(r);
    if (!words(f.q).every((w) => h.includes(w))) return false;
  }
  return true;
}

function current() {
  const f = { q: $("q").value.trim() };
  for (const k of KEYS) f[k] = $("f-" + k).value;
  return f;
}

// Shows the rounds the filters let through; returns how many.
function apply() {
  const f = current();
  let shown = 0;
  const items = $("list").children;
  for (let i = 0; i < rounds.length; i++) {
    const ok = matches(rounds[i], f);
    items[i].hidden = !ok;
    if (ok) shown++;
  }
  $("count").textContent = shown + " of " + rounds.length + " rounds";
  // The open round's marks follow the search.
  highlight($("detail"), f.q);
  return shown;
}

function changed() {
  apply();
  const f = current();
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) params.set(k, v);
  try {
    history.replaceState(null, "", "#rounds?" + params.toString());
  } catch (_) {
    // A browser that refuses to change a file URL's fragment keeps the old one.
  }
}

// Sets the search box and the filters from a fragment's parameters (`dilemma`, `item`
// and `topic` name the case); a value no round has is added, so it shows what was asked.
function setFilters(params) {
  $("q").value = "";
  for (const k of KEYS) $("f-" + k).value = "";
  for (const [key, value] of params) {
    const k = ALIASES[key] || key;
    if (k === "q") $("q").value = value;
    else if (KEYS.includes(k)) {
      const s = $("f-" + k);
      if (![...s.options].some((o) => o.value === value)) {
        const o = el("option", null, value);
        o.value = value;
        s.append(o);
      }
      s.value = value;
    }
  }
  return apply();
}

function hashParams() {
  return new URLSearchParams(location.hash.split("?").slice(1).join("?"));
}

// `#rounds?model=x&dilemma=y&round=id`: the links of the report's tables.
function fromHash() {
  if (!location.hash.startsWith("#rounds?")) return;
  const params = hashParams();
  setFilters(params);
  const round = params.get("round");
  if (round) open(round);
  $("rounds").scrollIntoView();
}

function dl(pairs) {
  const d = el("dl");
  for (const [k, v] of pairs) d.append(el("dt", null, k), el("dd", null, v));
  return d;
}

// Shows one round in the detail pane; returns whether it exists.
function open(id) {
  const r = rounds.find((x) => x.id === id);
  const detail = $("detail");
  detail.replaceChildren();
  for (const li of $("list").children) li.classList.toggle("open", li.dataset.round === id);
  if (!r) {
    detail.append(el("p", null, "No round " + id + " in this report."));
    delete detail.dataset.round;
    return false;
  }
  detail.dataset.round = r.id;
  detail.append(el("h3", null, "Round " + r.id));
  const meta = [
    ["protocol", r.protocol],
    ["case", r.case],
    ["repetition", String(r.rep)],
    ["Team A", r.a],
    ["Team B", r.b],
    ["judges", r.judges.join(", ")],
    ["status", r.state],
    ["result", r.outcome ? r.outcome.text + " (" + r.outcome.title + ")" : ""],
  ];
  detail.append(dl(meta.concat(r.setup).filter(([, v]) => v)));
  if (r.error) detail.append(el("p", "error", r.error));
  for (const p of r.phases) {
    const s = el("section", "phase");
    s.append(el("h4", null, p.kind + " · " + p.speaker));
    if (p.facts) s.append(el("div", "facts", p.facts));
    if (p.thinking) {
      s.append(el("details", null, el("summary", null, "Private reasoning (hidden from the judge)"), quoted(p.thinking)));
    }
    s.append(p.error ? el("p", "error", "Failed: " + p.error) : quoted(p.text || "(empty)"));
    detail.append(s);
  }
  if (r.judgments.length) detail.append(el("h4", "part", "Judgments"));
  for (const j of r.judgments) {
    const s = el("section", "judgment");
    s.append(el("h4", null, j.judge + " · " + j.status));
    for (const l of j.lines) s.append(el("p", null, l));
    if (j.head) s.append(table(j.head, j.rows));
    for (const [label, text] of j.notes) s.append(el("h5", null, label), quoted(text));
    for (const p of j.problems) s.append(el("p", "error", "not read: " + p));
    const raw = j.raw !== undefined ? j.raw : j.raw_phase !== undefined ? r.phases[j.raw_phase].text : null;
    if (raw !== null) s.append(el("details", null, el("summary", null, "Raw answer"), quoted(raw)));
    detail.append(s);
  }
  if (r.panel) {
    const s = el("section", "panel");
    s.append(el("h4", null, "Panel deliberation"));
    for (const l of r.panel.lines) s.append(el("p", null, l));
    for (const round of r.panel.rounds) {
      const agreement = round.agreement === null ? "–" : Math.round(round.agreement * 100) + "%";
      s.append(el("h5", null, "Round " + round.number + " · agreement " + agreement));
      for (const [subject, severity, positions] of round.disputes) {
        const shown = typeof severity === "number" ? severity.toFixed(2) : "?";
        s.append(el("p", null, subject + " (severity " + shown + ")"));
        s.append(dl(positions));
      }
    }
    detail.append(s);
  }
  highlight(detail, $("q").value.trim());
  return true;
}

// `#selftest?q=…&open=…` (and any filter): counts the rounds, follows each table link,
// applies the search and filters, opens a round, then records what happened in
// <pre id="selftest"> for the headless-browser test.
function selftest() {
  const params = hashParams();
  // Rounds the reader can see: counted from the layout, so a style that fails to hide a
  // filtered-out round shows here.
  const visible = () => [...$("list").children].filter((li) => li.getClientRects().length > 0).length;
  apply();
  const total = visible();
  // Each table link's filter (once), with how many rounds it lets through.
  const links = [];
  const seen = new Set();
  for (const a of document.querySelectorAll('a[href^="#rounds?"]')) {
    const href = a.getAttribute("href");
    if (seen.has(href)) continue;
    seen.add(href);
    const filter = new URLSearchParams(href.slice("#rounds?".length));
    links.push([[...filter], setFilters(filter)]);
  }
  params.delete("open");
  setFilters(params);
  const shown = visible();
  const opened = open(hashParams().get("open") || "");
  const detail = $("detail");
  const marked = () => [...detail.querySelectorAll("mark")].map((m) => m.textContent);
  const marks = marked();
  // `requery=…`: the search changed as a reader would type it; the marks must follow.
  const requery = hashParams().get("requery");
  let remarked = null;
  if (requery !== null) {
    $("q").value = requery;
    changed();
    remarked = marked();
  }
  const report = {
    errors,
    total,
    shown,
    opened,
    open_round: detail.dataset.round || null,
    phases: detail.querySelectorAll(".phase").length,
    judgments: detail.querySelectorAll(".judgment").length,
    verified_quotes: detail.querySelectorAll(".vq").length,
    unverified_quotes: detail.querySelectorAll(".uq").length,
    marks,
    remarked,
    list: [...$("list").children].map((li) => [li.dataset.round, li.children[2].className, li.children[2].textContent]),
    pwned: typeof window.__pwned,
    images: document.images.length,
    scripts: document.scripts.length,
    links,
  };
  const pre = $("selftest");
  pre.textContent = JSON.stringify(report);
  pre.hidden = false;
}

setup();
apply();
if (location.hash.startsWith("#selftest")) selftest();
else fromHash();
document.documentElement.dataset.readyMs = String(Math.round(performance.now() - started));
document.documentElement.dataset.ready = String(rounds.length);
