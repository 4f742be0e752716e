//! Every `--json` as a user runs it, on the stored fixtures: stdout is one JSON document and
//! nothing else, and its keys and types are the ones docs/json-output.md lists, read from
//! the page itself so the page and the code cannot drift apart.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const FIXTURES: [&str; 4] = ["ethics_bowl", "panel", "qa_debate", "structured_debate"];

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("ETHICS_BOWL_MODELS");
    c
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(name)
}

/// Runs the binary; the output and its stdout parsed as one JSON document (which fails on
/// anything printed beside it).
fn json(args: &[&str], dirs: &[&Path]) -> (Output, Value) {
    let out = bin().args(args).args(dirs).output().expect("binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} {dirs:?}: stdout is not one JSON document ({e}):\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, value)
}

fn ok(args: &[&str], dirs: &[&Path]) -> Value {
    let (out, value) = json(args, dirs);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    value
}

/// A type of the page's tables.
#[derive(Debug, Clone, PartialEq)]
enum Ty {
    /// Any of these (`integer`, `number`, `string`, `boolean`, `object`, `array`, `null`,
    /// or one of the estimate shapes).
    Any(Vec<String>),
    /// An object whose keys are data, each value of the inner type.
    Map(Box<Ty>),
}

fn parse_ty(text: &str) -> Ty {
    match text.strip_prefix("map of ") {
        Some(inner) => Ty::Map(Box::new(parse_ty(inner))),
        None => Ty::Any(text.split(" or ").map(|t| t.trim().to_string()).collect()),
    }
}

/// One row: a key's type, whether it may be left out, whether its object may hold keys
/// the page does not list.
#[derive(Debug, Clone)]
struct Row {
    ty: Ty,
    optional: bool,
    open: bool,
}

/// The page's rows, by section (the heading's code: `models --json`, `statistic`) and key.
fn page() -> BTreeMap<String, BTreeMap<String, Row>> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json-output.md"))
            .unwrap();
    let mut sections: BTreeMap<String, BTreeMap<String, Row>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with('#') {
            current = line
                .split('`')
                .nth(1)
                .filter(|_| line.trim_end().ends_with('`'))
                .map(str::to_string);
            continue;
        }
        let (Some(section), Some(row)) = (&current, line.strip_prefix("| `")) else {
            continue;
        };
        let cells: Vec<&str> = row.split(" | ").collect();
        let key = cells[0].trim_end_matches('`').to_string();
        let mut ty = cells[1].trim().to_string();
        let open = ty.contains("(more keys");
        if let Some(i) = ty.find(" (") {
            ty.truncate(i);
        }
        let optional = ty.ends_with(", optional");
        let ty = ty.trim_end_matches(", optional").to_string();
        sections.entry(section.clone()).or_default().insert(
            key,
            Row {
                ty: parse_ty(&ty),
                optional,
                open,
            },
        );
    }
    sections
}

/// Checks documents against one section of the page.
struct Checker {
    page: BTreeMap<String, BTreeMap<String, Row>>,
    errors: std::collections::BTreeSet<String>,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl Checker {
    fn new() -> Self {
        Self {
            page: page(),
            errors: Default::default(),
        }
    }

    fn fail(&mut self, message: String) {
        self.errors.insert(message);
    }

    fn rows(&self, section: &str) -> &BTreeMap<String, Row> {
        self.page
            .get(section)
            .unwrap_or_else(|| panic!("docs/json-output.md has no section `{section}`"))
    }

    /// Checks a whole document against `section`.
    fn document(&mut self, section: &str, value: &Value) {
        let rows = self.rows(section).clone();
        if rows.contains_key("[]") {
            match value.as_array() {
                Some(items) => {
                    for item in items {
                        self.at(section, &rows, "[]", item);
                    }
                }
                None => self.fail(format!("{section}: not an array")),
            }
        } else {
            self.object(section, &rows, "", value, false);
        }
    }

    /// Checks the value at `path`, which must have a row.
    fn at(&mut self, section: &str, rows: &BTreeMap<String, Row>, path: &str, value: &Value) {
        let Some(row) = rows.get(path) else {
            self.fail(format!("{section}: `{path}` is printed but not documented"));
            return;
        };
        let row = row.clone();
        self.typed(section, rows, path, &row.ty, row.open, value);
    }

    fn typed(
        &mut self,
        section: &str,
        rows: &BTreeMap<String, Row>,
        path: &str,
        ty: &Ty,
        open: bool,
        value: &Value,
    ) {
        match ty {
            Ty::Map(inner) => match value.as_object() {
                Some(map) => {
                    for v in map.values() {
                        self.typed(section, rows, path, inner, false, v);
                    }
                }
                None => self.fail(format!("{section}: `{path}` is not a map: {value}")),
            },
            Ty::Any(names) => {
                let fits = names.iter().any(|name| match name.as_str() {
                    "null" => value.is_null(),
                    "integer" => value.is_u64() || value.is_i64(),
                    "number" => value.is_number(),
                    "string" => value.is_string(),
                    "boolean" => value.is_boolean(),
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    shape => value.is_object() && self.page.contains_key(shape),
                });
                if !fits {
                    self.fail(format!(
                        "{section}: `{path}` is documented as {names:?} but is {value}"
                    ));
                    return;
                }
                if value.is_null() {
                    return;
                }
                if let Some(shape) = names.iter().find(|n| self.page.contains_key(n.as_str())) {
                    if value.is_object() {
                        let shape_rows = self.rows(shape).clone();
                        self.object(shape, &shape_rows, "", value, false);
                    }
                } else if value.is_object() {
                    self.object(section, rows, path, value, open);
                } else if let Some(items) = value.as_array() {
                    let element = format!("{path}[]");
                    if rows.contains_key(&element) {
                        for item in items {
                            self.at(section, rows, &element, item);
                        }
                    }
                }
            }
        }
    }

    /// An object at `path`: each key it prints documented (unless the page lists none, or
    /// says it has more), each key documented and not optional printed.
    fn object(
        &mut self,
        section: &str,
        rows: &BTreeMap<String, Row>,
        path: &str,
        value: &Value,
        open: bool,
    ) {
        let Some(map) = value.as_object() else {
            self.fail(format!("{section}: `{path}` is not an object: {value}"));
            return;
        };
        let children: Vec<(String, bool)> = rows
            .iter()
            .filter_map(|(k, row)| {
                let name = if path.is_empty() {
                    Some(k.as_str())
                } else {
                    k.strip_prefix(path).and_then(|r| r.strip_prefix('.'))
                }?;
                (!name.contains('.') && !name.contains('['))
                    .then(|| (name.to_string(), row.optional))
            })
            .collect();
        if children.is_empty() {
            return;
        }
        for (name, optional) in &children {
            if !optional && !map.contains_key(name) {
                self.fail(format!(
                    "{section}: `{}` is documented but not printed",
                    join(path, name)
                ));
            }
        }
        for (k, v) in map {
            let documented = children.iter().any(|(name, _)| name == k);
            if documented {
                self.at(section, rows, &join(path, k), v);
            } else if !open {
                self.fail(format!(
                    "{section}: `{}` is printed but not documented",
                    join(path, k)
                ));
            }
        }
    }

    fn finish(self) {
        assert!(
            self.errors.is_empty(),
            "docs/json-output.md and the output differ:\n{}",
            self.errors.iter().cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

#[test]
fn models_json_matches_the_page_and_names_key_variables_only() {
    let key = "sk-cli-json-test-not-a-key-0123456789";
    let mut c = bin();
    c.args([
        "models",
        "--json",
        "--config",
        "sample-config/local-llm.toml",
    ]);
    let plain = ok(
        &["models", "--json", "--config", "sample-config/models.toml"],
        &[],
    );
    let out = c.env("OPENAI_API_KEY", key).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains(key), "a key value printed:\n{stdout}");
    let local: Value = serde_json::from_str(&stdout).unwrap();
    let mut check = Checker::new();
    check.document("models --json", &plain);
    check.document("models --json", &local);
    check.finish();
    assert_eq!(plain["version"], 1);
    assert_eq!(plain["file"], "sample-config/models.toml");
    let alpha = &plain["models"][0];
    assert_eq!(
        (&alpha["name"], &alpha["provider"], &alpha["key_env"]),
        (
            &Value::from("sim-alpha"),
            &Value::from("simulated"),
            &Value::Null
        )
    );
}

#[test]
fn a_key_variable_set_or_not_is_said_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("models.toml");
    std::fs::write(
        &file,
        "[[models]]\nname = \"g\"\nprovider = \"openai\"\nmodel = \"gpt-x\"\n\
         api_key_env = \"CLI_JSON_TEST_KEY\"\nmax_tokens = 100\n\
         [models.price]\ninput_per_mtok = 1.5\noutput_per_mtok = 6.0\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let secret = "sk-cli-json-secret-value-987654321";
    for set in [false, true] {
        let mut c = bin();
        c.args(["models", "--json", "--config", file]);
        if set {
            c.env("CLI_JSON_TEST_KEY", secret);
        } else {
            c.env_remove("CLI_JSON_TEST_KEY");
        }
        let out = c.output().unwrap();
        assert!(out.status.success());
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(!stdout.contains(secret), "{stdout}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        let m = &v["models"][0];
        assert_eq!(m["key_env"], "CLI_JSON_TEST_KEY");
        assert_eq!(m["key_set"], set);
        assert_eq!(m["base_url"], "https://api.openai.com/v1");
        assert_eq!(m["price"]["output_per_mtok"], 6.0);
        assert_eq!(m["limits"]["max_tokens"], 100);
        let mut check = Checker::new();
        check.document("models --json", &v);
        check.finish();
    }
}

#[test]
fn report_json_is_the_printed_summary_and_the_files_written() {
    let mut check = Checker::new();
    for name in FIXTURES {
        let out = tempfile::tempdir().unwrap();
        let dir = fixture(name);
        let v = ok(
            &["report", "--json", "--out", out.path().to_str().unwrap()],
            &[&dir],
        );
        check.document("report --json", &v);
        assert_eq!(v["version"], 1);
        let files: Vec<&str> = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        for f in &files {
            assert!(Path::new(f).is_file(), "{name}: {f} listed but not written");
        }
        for wanted in ["analysis.json", "report.md", "report.html"] {
            assert!(
                files.iter().any(|f| f.ends_with(wanted)),
                "{name}: {wanted} not in {files:?}"
            );
        }
        // The figures are analysis.json's own objects.
        let analysis: Value = serde_json::from_str(
            &std::fs::read_to_string(out.path().join("analysis.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(v["rounds"], analysis["rounds"]);
        match name {
            "qa_debate" => {
                assert_eq!(v["qa"]["by_format"], analysis["qa"]["by_format"]);
                assert_eq!(v["qa"]["lifts"], analysis["qa"]["lifts"]);
                assert!(v["structured"].is_null());
            }
            "structured_debate" => {
                assert_eq!(v["structured"]["side"], analysis["structured"]["side"]);
                assert_eq!(v["structured"]["models"], analysis["structured"]["models"]);
                assert!(v["qa"].is_null());
            }
            _ => assert!(v["consistency_note"].is_string(), "{name}: {v:#}"),
        }
    }
    check.finish();
}

#[test]
fn report_json_with_one_format_lists_only_its_file() {
    let out = tempfile::tempdir().unwrap();
    let v = ok(
        &[
            "report",
            "--json",
            "--format",
            "json",
            "--out",
            out.path().to_str().unwrap(),
        ],
        &[&fixture("ethics_bowl")],
    );
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{v:#}");
    assert!(files[0].as_str().unwrap().ends_with("analysis.json"));
}

#[test]
fn compare_json_matches_the_page_and_lists_every_pair() {
    let mut check = Checker::new();
    let a = fixture("ethics_bowl");
    // A folder against a copy of itself: every judgment pairs, none flips.
    let copy = tempfile::tempdir().unwrap();
    copy_dir(&a, copy.path());
    let same = ok(&["compare", "--json"], &[&a, copy.path()]);
    check.document("compare --json", &same);
    assert_eq!(same["protocol"], "ethics_bowl");
    assert_eq!(same["agreement"]["flipped"], 0);
    let pairs = same["pairs"].as_array().unwrap();
    assert!(!pairs.is_empty());
    assert_eq!(same["agreement"]["pairs"], pairs.len());
    assert!(pairs.iter().all(|p| p["verdict_a"] == p["verdict_b"]));
    assert_eq!(same["rounds"]["a"], same["rounds"]["both"]);
    assert!(!same["ratings"].as_array().unwrap().is_empty());
    // Two different runs of one protocol.
    let other = ok(&["compare", "--json"], &[&a, &fixture("panel")]);
    check.document("compare --json", &other);
    assert_eq!(other["a"]["name"], "ethics_bowl");
    assert_eq!(other["b"]["name"], "panel");
    for name in ["qa_debate", "structured_debate"] {
        let dir = fixture(name);
        let v = ok(&["compare", "--json"], &[&dir, &dir]);
        check.document("compare --json", &v);
    }
    check.finish();
}

#[test]
fn compare_json_of_two_protocols_is_a_usage_error_with_nothing_on_stdout() {
    let out = bin()
        .args(["compare", "--json"])
        .arg(fixture("ethics_bowl"))
        .arg(fixture("qa_debate"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("compare folders of one protocol"));
}

#[test]
fn plan_json_matches_the_page() {
    let mut check = Checker::new();
    for name in FIXTURES {
        let mut args = vec!["plan", "--json", "--detect", "10"];
        if name == "structured_debate" {
            args.extend(["--detect-total", "0.5"]);
        }
        let v = ok(&args, &[&fixture(name)]);
        assert_eq!(v["version"], 1);
        check.document("plan --json", &v);
    }
    check.finish();
}

#[test]
fn rounds_json_matches_the_page_and_one_round_is_its_element() {
    let mut check = Checker::new();
    for name in FIXTURES {
        let v = ok(&["rounds", "--json"], &[&fixture(name)]);
        check.document("rounds --json", &v);
        let first = &v[0];
        let id = first["id"].as_str().unwrap();
        let one = ok(&["rounds", "--json", "--round", id], &[&fixture(name)]);
        assert_eq!(&one, first, "{name}: --round {id}");
    }
    check.finish();
}

#[test]
fn dilemmas_json_matches_the_page() {
    let mut check = Checker::new();
    for file in ["sample-config/dilemmas.md", "sample-config/dilemmas.docx"] {
        let v = ok(&["dilemmas", "--json", file], &[]);
        assert!(v.as_array().is_some_and(|d| !d.is_empty()), "{file}");
        check.document("dilemmas --json", &v);
    }
    check.finish();
}

#[test]
fn judgment_parse_json_matches_the_page_and_still_exits_1_when_partial() {
    let rounds = ok(&["rounds", "--json"], &[&fixture("ethics_bowl")]);
    let answers: Vec<&str> = rounds
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["judgments"].as_array().unwrap())
        .filter_map(|j| j["raw_response"].as_str())
        .collect();
    let mut check = Checker::new();
    let mut codes = Vec::new();
    for answer in answers {
        let mut child = bin()
            .args(["judgment", "parse", "--json", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), answer.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        check.document("judgment parse --json", &v);
        let complete = v["status"] == "complete";
        assert_eq!(
            out.status.code(),
            Some(if complete { 0 } else { 1 }),
            "{v:#}"
        );
        codes.push(out.status.code());
    }
    check.finish();
    assert!(
        codes.contains(&Some(0)) && codes.contains(&Some(1)),
        "{codes:?}"
    );
}

#[test]
fn every_section_of_the_page_is_checked_by_a_command_here() {
    let page = page();
    let checked = [
        "models --json",
        "report --json",
        "compare --json",
        "plan --json",
        "rounds --json",
        "dilemmas --json",
        "judgment parse --json",
        "statistic",
        "share",
        "mean",
        "rating",
    ];
    let sections: Vec<&str> = page.keys().map(String::as_str).collect();
    let mut wanted = checked.to_vec();
    wanted.sort_unstable();
    assert_eq!(sections, wanted);
}

#[test]
fn a_usage_error_under_json_prints_nothing_on_stdout() {
    let missing = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/no-such-folder");
    for args in [
        &["report", "--json"][..],
        &["plan", "--json", "--detect", "3"],
        &["rounds", "--json"],
    ] {
        let out = bin().args(args).arg(&missing).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let out = bin()
        .args(["models", "--json", "--config", "no-such-models.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
