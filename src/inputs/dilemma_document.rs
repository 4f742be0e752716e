//! Finding dilemmas in a document's blocks: titles, the category line, the labelled sections
//! in whatever form a word processor left them, and list items however they were typed.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::blocks::{Block, BlockKind};
use super::docx_error::DocxError;
use super::{docx, markdown};
use crate::domain::{Dilemma, slug};

/// A dilemma document that cannot be used; each names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum DilemmaError {
    /// The file could not be read.
    #[error("{}: cannot read the dilemma document: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a format we read.
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// A Word document that cannot be read: not one, or damaged.
    #[error("{}: {source}", path.display())]
    Word {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: DocxError,
    },
    /// No dilemma was recognised.
    #[error(
        "{}: no dilemma found. A dilemma starts at a title followed by a \"Category:\" line or \
         labelled sections (Core Scenario, Questions, Consistency Case …). Headings seen: {headings}",
        path.display()
    )]
    NoDilemmas {
        /// The file.
        path: PathBuf,
        /// The headings and bold lines the loader saw.
        headings: String,
    },
    /// A dilemma lacks what a round needs.
    #[error("{}: dilemma \"{title}\" has no {missing}; add a \"{label}\" section", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
        /// The dilemma.
        title: String,
        /// What is missing.
        missing: &'static str,
        /// The label to add.
        label: &'static str,
    },
    /// Two dilemmas would share an id.
    #[error("{}: dilemmas \"{first}\" and \"{second}\" both get the id \"{id}\"; rename one", path.display())]
    DuplicateId {
        /// The file.
        path: PathBuf,
        /// The id.
        id: String,
        /// The first title.
        first: String,
        /// The second title.
        second: String,
    },
}

/// Dilemmas read from a document, with warnings worth showing the user.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedDilemmas {
    /// The dilemmas, in document order.
    pub dilemmas: Vec<Dilemma>,
    /// Missing optional sections, unrecognised labels that look misspelt.
    pub warnings: Vec<String>,
    /// The parts before the first dilemma that were skipped as the document's front matter
    /// (its title, contents, introduction), by heading: shown by `dilemmas`; those after the
    /// first (the document's own title) are also named in a warning.
    pub front_matter: Vec<String>,
}

/// Reads a dilemma document by its extension (`.docx` or `.md`).
pub fn load_dilemmas(path: &Path) -> Result<LoadedDilemmas, DilemmaError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|source| DilemmaError::Read {
            path: p.to_path_buf(),
            source,
        })
    };
    let blocks = match ext.as_str() {
        "md" | "markdown" => markdown::blocks(&read(path)?),
        "docx" => {
            let bytes = std::fs::read(path).map_err(|source| DilemmaError::Read {
                path: path.to_path_buf(),
                source,
            })?;
            docx::blocks(&bytes).map_err(|source| DilemmaError::Word {
                path: path.to_path_buf(),
                source,
            })?
        }
        _ => {
            return Err(DilemmaError::Format {
                path: path.to_path_buf(),
                message: "dilemma documents are Word (.docx) or Markdown (.md) files; save this one as .docx".into(),
            });
        }
    };
    recognise(&blocks, path)
}

/// The sections of a dilemma.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    CoreScenario,
    Complications,
    Questions,
    AsymmetricFeatures,
    ConsistencyCase,
}

impl Section {
    fn is_list(self) -> bool {
        matches!(
            self,
            Self::Complications | Self::Questions | Self::AsymmetricFeatures
        )
    }
}

/// Every wording of every label, lower case, without a trailing colon.
const LABELS: [(&str, Section); 20] = [
    ("core scenario", Section::CoreScenario),
    ("scenario", Section::CoreScenario),
    ("the scenario", Section::CoreScenario),
    ("the situation", Section::CoreScenario),
    ("situation", Section::CoreScenario),
    ("complications", Section::Complications),
    ("additional complications", Section::Complications),
    ("complication", Section::Complications),
    ("questions", Section::Questions),
    ("key questions", Section::Questions),
    ("questions to consider", Section::Questions),
    ("question", Section::Questions),
    ("discussion questions", Section::Questions),
    ("asymmetric features", Section::AsymmetricFeatures),
    ("power dynamics", Section::AsymmetricFeatures),
    ("structural considerations", Section::AsymmetricFeatures),
    ("consistency case", Section::ConsistencyCase),
    ("consistency test", Section::ConsistencyCase),
    ("parallel case", Section::ConsistencyCase),
    ("the consistency case", Section::ConsistencyCase),
];

fn normalise_label(text: &str) -> String {
    text.trim()
        .trim_end_matches([':', '.', ' '])
        .trim()
        .to_lowercase()
}

fn label_of(text: &str) -> Option<Section> {
    let n = normalise_label(text);
    LABELS.iter().find(|(l, _)| *l == n).map(|(_, s)| *s)
}

/// Looks like a label: a heading, a bold line, an all-caps line, or a short line ending in
/// a colon.
fn label_shaped(b: &Block) -> bool {
    let short = b.text.chars().count() <= 60;
    let caps = b.text.chars().any(char::is_alphabetic) && !b.text.chars().any(char::is_lowercase);
    matches!(b.kind, BlockKind::Heading(_)) || (short && (b.bold || caps || b.text.ends_with(':')))
}

/// What one block is, in a dilemma.
enum Role {
    Title(String),
    Category(String, BTreeMap<String, String>),
    Label(Section, Option<String>),
    Text,
}

fn category_line(text: &str) -> Option<(String, BTreeMap<String, String>)> {
    let lower = text.to_lowercase();
    let rest = lower.strip_prefix("category")?;
    if !rest.trim_start().starts_with(':') {
        return None;
    }
    let mut parts = text.split('|');
    let first = parts.next()?;
    let category = first.split_once(':')?.1.trim().to_string();
    let metadata = parts
        .filter_map(|p| p.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, _)| !k.is_empty())
        .collect();
    Some((category, metadata))
}

/// Strips a `Dilemma 3:`, `Case 3 -`, `3.` or `III.` prefix from a title.
fn strip_title_prefix(text: &str) -> String {
    let t = text.trim();
    let lower = t.to_lowercase();
    for word in ["dilemma", "case"] {
        if let Some(rest) = lower.strip_prefix(word) {
            let rest_t = &t[word.len()..];
            let after_num = rest.trim_start().trim_start_matches(|c: char| {
                c.is_ascii_digit() || c.is_ascii_alphabetic() && rest.trim_start().len() < 4
            });
            let digits = rest.trim_start().len() - after_num.len();
            if digits > 0 {
                let offset = rest_t.len() - rest.trim_start().len() + digits;
                let tail = rest_t[offset..]
                    .trim_start()
                    .trim_start_matches([':', '-', '–', '—', '.'])
                    .trim();
                if !tail.is_empty() {
                    return tail.to_string();
                }
            }
        }
    }
    let numeral_end = t
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, 'I' | 'V' | 'X' | 'L')))
        .unwrap_or(0);
    if numeral_end > 0 && t[numeral_end..].starts_with(['.', ')']) {
        let tail = t[numeral_end + 1..].trim();
        if !tail.is_empty() {
            return tail.to_string();
        }
    }
    t.to_string()
}

fn role_of(b: &Block) -> Role {
    if let Some((category, meta)) = category_line(&b.text) {
        return Role::Category(category, meta);
    }
    if b.kind == BlockKind::Subtitle {
        return Role::Category(b.text.clone(), BTreeMap::new());
    }
    // A label in any form, or a paragraph that is nothing but a label's words.
    if let Some(section) = label_of(&b.text) {
        return Role::Label(section, None);
    }
    if let Some(lead) = &b.lead
        && let Some(section) = label_of(lead)
    {
        let rest = b.text[b
            .text
            .find(lead.trim())
            .map_or(0, |i| i + lead.trim().len())..]
            .trim_start_matches([':', ' '])
            .trim()
            .to_string();
        return Role::Label(section, (!rest.is_empty()).then_some(rest));
    }
    if let Some((head, rest)) = b.text.split_once(':')
        && let Some(section) = label_of(head)
        && head.len() < 40
    {
        let rest = rest.trim().to_string();
        return Role::Label(section, (!rest.is_empty()).then_some(rest));
    }
    let title_shaped = matches!(b.kind, BlockKind::Heading(_))
        || ((b.bold || b.large)
            && b.kind == BlockKind::Paragraph
            && b.text.chars().count() <= 120
            && !b.text.ends_with(':'));
    if title_shaped {
        return Role::Title(strip_title_prefix(&b.text));
    }
    Role::Text
}

/// A list item typed by hand: `•`, `-`, `*`, `1.`, `1)`, `(a)`; returns the text after it.
fn typed_marker(text: &str) -> Option<&str> {
    let t = text.trim_start();
    for m in ["• ", "- ", "* ", "– ", "· "] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some(rest.trim());
        }
    }
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
    if digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")) {
        return Some(t[digits + 2..].trim());
    }
    if let Some(rest) = t.strip_prefix('(')
        && let Some(close) = rest.find(')')
        && close <= 3
        && rest[..close].chars().all(char::is_alphanumeric)
    {
        return Some(rest[close + 1..].trim());
    }
    None
}

/// A list typed inline in one paragraph, as word processors leave a Markdown list that had
/// no blank line before it: `1. First? 2. Second?` or `- one - two`. Only a paragraph that
/// starts with a marker is split, and numbers must follow in order.
fn split_inline_list(text: &str) -> Vec<String> {
    let t = text.trim();
    if t.starts_with("1. ") || t.starts_with("1) ") {
        let close = &t[1..2];
        let mut items = Vec::new();
        let mut rest = &t[3..];
        let mut next = 2;
        loop {
            let marker = format!(" {next}{close} ");
            match rest.find(&marker) {
                Some(at) => {
                    items.push(rest[..at].trim().to_string());
                    rest = &rest[at + marker.len()..];
                    next += 1;
                }
                None => {
                    items.push(rest.trim().to_string());
                    return items;
                }
            }
        }
    }
    for bullet in ["- ", "• ", "* "] {
        if let Some(rest) = t.strip_prefix(bullet) {
            let separator = format!(" {bullet}");
            return rest
                .split(separator.as_str())
                .map(|i| i.trim().to_string())
                .filter(|i| !i.is_empty())
                .collect();
        }
    }
    vec![t.to_string()]
}

/// What marks a part of a document as a dilemma rather than front or back matter.
#[derive(Default)]
struct Signs {
    category_line: bool,
    subtitle: bool,
    labels: HashSet<usize>,
}

impl Signs {
    fn note(&mut self, b: &Block, role: &Role) {
        match role {
            Role::Category(..) if b.kind == BlockKind::Subtitle => self.subtitle = true,
            Role::Category(..) => self.category_line = true,
            Role::Label(section, _) => {
                self.labels.insert(*section as usize);
            }
            Role::Title(_) | Role::Text => {}
        }
    }

    fn is_dilemma(&self) -> bool {
        self.category_line || self.labels.len() >= 2 || (self.subtitle && !self.labels.is_empty())
    }
}

/// A dilemma being read.
#[derive(Default)]
struct Draft {
    category: Option<String>,
    metadata: BTreeMap<String, String>,
    core: Vec<String>,
    consistency: Vec<String>,
    lists: [Vec<String>; 3],
    seen: HashSet<usize>,
    section: Option<Section>,
    last_was_item: bool,
}

impl Draft {
    fn list_index(section: Section) -> usize {
        match section {
            Section::Complications => 0,
            Section::Questions => 1,
            _ => 2,
        }
    }

    fn add(&mut self, b: &Block, text: &str) {
        let section = self.section.unwrap_or(Section::CoreScenario);
        if section.is_list() {
            let list = &mut self.lists[Self::list_index(section)];
            let inline = if b.kind == BlockKind::ListItem {
                Vec::new()
            } else {
                split_inline_list(text)
            };
            if inline.len() > 1 {
                list.extend(inline);
                self.last_was_item = true;
                return;
            }
            let (item, is_item) = match (b.kind, typed_marker(text)) {
                (BlockKind::ListItem, _) => (text, true),
                (_, Some(rest)) => (rest, true),
                _ => (text, false),
            };
            if !is_item && self.last_was_item && !list.is_empty() {
                if let Some(last) = list.last_mut() {
                    last.push(' ');
                    last.push_str(item);
                }
            } else if !item.is_empty() {
                list.push(item.to_string());
            }
            self.last_was_item = is_item;
        } else {
            let target = if section == Section::ConsistencyCase {
                &mut self.consistency
            } else {
                &mut self.core
            };
            target.push(text.to_string());
            self.last_was_item = false;
        }
    }
}

/// The dilemmas in a document's blocks.
pub fn recognise(blocks: &[Block], path: &Path) -> Result<LoadedDilemmas, DilemmaError> {
    // Split at titles. A segment looks like a dilemma when it has a "Category:" line, two
    // of the dilemma's section labels, or a subtitle (Word's Subtitle style, a category)
    // and one label: a document's own title, subtitle, contents and introduction do not.
    // Before the first dilemma such a segment is front matter, skipped with a note; after
    // one, it is part of it (or, at a title's level, back matter; below).
    let mut segments: Vec<(String, Option<u8>, Vec<&Block>, Signs)> = Vec::new();
    let mut headings = Vec::new();
    for b in blocks {
        let role = role_of(b);
        if matches!(b.kind, BlockKind::Heading(_)) || b.bold {
            headings.push(b.text.clone());
        }
        match role {
            Role::Title(title) => {
                let level = match b.kind {
                    BlockKind::Heading(level) => Some(level),
                    _ => None,
                };
                segments.push((title, level, Vec::new(), Signs::default()));
            }
            Role::Category(..) | Role::Label(..) => {
                if let Some(last) = segments.last_mut() {
                    last.2.push(b);
                    last.3.note(b, &role);
                }
            }
            Role::Text => {
                if let Some(last) = segments.last_mut() {
                    last.2.push(b);
                }
            }
        }
    }
    // A heading that is not a dilemma, at the level of the dilemmas' titles or above, starts
    // a part of the document that is not a dilemma (an appendix, notes): it and what
    // follows it, up to the next dilemma, are skipped with a warning. A lesser heading or a
    // bold line inside a dilemma is part of it.
    let mut merged: Vec<(String, Vec<Block>)> = Vec::new();
    let mut title_level: Option<u8> = None;
    let mut skipping = false;
    let mut warnings = Vec::new();
    let mut front_matter = Vec::new();
    for (title, level, bs, signs) in segments {
        if signs.is_dilemma() {
            title_level = level;
            skipping = false;
            merged.push((title, bs.into_iter().cloned().collect()));
            continue;
        }
        let ends_dilemma = matches!((level, title_level), (Some(l), Some(t)) if l <= t);
        if ends_dilemma && !merged.is_empty() {
            warnings.push(format!(
                "\"{title}\" is not a dilemma (no category or section labels); skipped with what follows it"
            ));
            skipping = true;
        }
        if skipping {
            continue;
        }
        if merged.is_empty() {
            front_matter.push(title);
            continue;
        }
        if let Some(last) = merged.last_mut() {
            last.1
                .push(Block::new(BlockKind::Paragraph, &title, false, None));
            last.1.extend(bs.into_iter().cloned());
        }
    }
    // The first part is the document's own title; any further part skipped before the first
    // dilemma is named in a warning, since a dilemma written without its labels would
    // otherwise vanish unnoticed.
    if front_matter.len() > 1 && !merged.is_empty() {
        warnings.push(format!(
            "{} skipped as front matter before the first dilemma (no \"Category:\" line or \
             section labels); if one is a dilemma, give it its labelled sections",
            front_matter[1..]
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if merged.is_empty() {
        return Err(DilemmaError::NoDilemmas {
            path: path.to_path_buf(),
            headings: if headings.is_empty() {
                "(none)".into()
            } else {
                headings.join("; ")
            },
        });
    }
    let mut dilemmas: Vec<Dilemma> = Vec::new();
    for (title, bs) in merged {
        let d = build(&title, &bs, path, &mut warnings)?;
        if let Some(first) = dilemmas.iter().find(|x| x.id == d.id) {
            return Err(DilemmaError::DuplicateId {
                path: path.to_path_buf(),
                id: d.id.clone(),
                first: first.title.clone(),
                second: d.title.clone(),
            });
        }
        dilemmas.push(d);
    }
    Ok(LoadedDilemmas {
        dilemmas,
        warnings,
        front_matter,
    })
}

fn build(
    title: &str,
    blocks: &[Block],
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<Dilemma, DilemmaError> {
    let mut d = Draft::default();
    for b in blocks {
        match role_of(b) {
            Role::Category(category, meta) if d.category.is_none() => {
                d.category = Some(category);
                d.metadata = meta;
            }
            Role::Label(section, inline) => {
                d.section = Some(section);
                d.seen.insert(section as usize);
                d.last_was_item = false;
                if let Some(text) = inline {
                    let as_block = Block::new(BlockKind::Paragraph, &text, false, None);
                    d.add(&as_block, &text);
                }
            }
            _ => {
                if label_shaped(b) && b.text.chars().count() <= 40 {
                    let n = normalise_label(&b.text);
                    if let Some((closest, distance)) = LABELS
                        .iter()
                        .map(|(l, _)| (*l, strsim::levenshtein(l, &n)))
                        .min_by_key(|(_, dist)| *dist)
                        && distance > 0
                        && distance <= 3
                    {
                        warnings.push(format!(
                            "dilemma \"{title}\": \"{}\" is not a section label; did you mean \"{closest}\"? Kept as text.",
                            b.text
                        ));
                    }
                }
                let text = b.text.clone();
                d.add(b, &text);
            }
        }
    }
    let core = d.core.join("\n\n");
    let consistency = d.consistency.join("\n\n");
    if core.trim().is_empty() {
        return Err(DilemmaError::Missing {
            path: path.to_path_buf(),
            title: title.into(),
            missing: "core scenario",
            label: "Core Scenario",
        });
    }
    if consistency.trim().is_empty() {
        return Err(DilemmaError::Missing {
            path: path.to_path_buf(),
            title: title.into(),
            missing: "consistency case",
            label: "Consistency Case",
        });
    }
    let category = d.category.unwrap_or_else(|| {
        warnings.push(format!(
            "dilemma \"{title}\": no \"Category:\" line; the category is left empty"
        ));
        String::new()
    });
    let [complications, questions, asymmetric_features] = d.lists;
    for (name, list) in [
        ("complications", &complications),
        ("questions", &questions),
        ("asymmetric features", &asymmetric_features),
    ] {
        if list.is_empty() {
            warnings.push(format!("dilemma \"{title}\": no {name}; the list is empty"));
        }
    }
    Ok(Dilemma {
        id: slug(title),
        title: title.to_string(),
        category,
        core_scenario: core,
        complications,
        questions,
        asymmetric_features,
        consistency_case: consistency,
        metadata: d.metadata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(md: &str) -> Result<LoadedDilemmas, DilemmaError> {
        recognise(&markdown::blocks(md), Path::new("test.md"))
    }

    const HEADINGS: &str = "# Sample Dilemmas\n\nAn introduction to skip.\n\n\
        ## Dilemma 1: The Gradient Entity\n\nCategory: Moral Status | Structure: Symmetric\n\n\
        ### Core Scenario\n\nA system's moral status rises by degrees.\n\nIt disagrees with itself.\n\n\
        ### Complications\n\n- First complication\n  that wraps.\n- Second one\n\n\
        ### Key Questions\n\n1. What is owed?\n2. To whom?\n\n\
        ### Power Dynamics\n\n* The lab controls everything\n\n\
        ### Consistency Case\n\nA patient in a coma.\n\n\
        ## The Gardener's Dilemma\n\n**Category:** *Care*\n\nA gardener tends plants that may feel.\n\n**Parameter Set A:** ten plants.\n\n\
        **Questions:** What do you owe a plant?\n\n**Consistency Case:** A farmer with animals.\n";

    #[test]
    fn reads_headings_inline_labels_and_untitled_scenarios() {
        let l = load(HEADINGS).unwrap();
        assert_eq!(l.dilemmas.len(), 2);
        let a = &l.dilemmas[0];
        assert_eq!(a.id, "gradient_entity");
        assert_eq!(a.title, "The Gradient Entity");
        assert_eq!(a.category, "Moral Status");
        assert_eq!(
            a.metadata.get("Structure").map(String::as_str),
            Some("Symmetric")
        );
        assert_eq!(
            a.core_scenario,
            "A system's moral status rises by degrees.\n\nIt disagrees with itself."
        );
        assert_eq!(
            a.complications,
            vec!["First complication that wraps.", "Second one"]
        );
        assert_eq!(a.questions, vec!["What is owed?", "To whom?"]);
        assert_eq!(a.asymmetric_features, vec!["The lab controls everything"]);
        assert_eq!(a.consistency_case, "A patient in a coma.");
        let b = &l.dilemmas[1];
        assert_eq!(b.id, "gardeners_dilemma");
        assert_eq!(b.category, "Care");
        assert_eq!(
            b.core_scenario,
            "A gardener tends plants that may feel.\n\nParameter Set A: ten plants."
        );
        assert_eq!(b.questions, vec!["What do you owe a plant?"]);
        assert_eq!(b.consistency_case, "A farmer with animals.");
        assert!(b.complications.is_empty());
        assert!(
            l.warnings
                .iter()
                .any(|w| w.contains("Gardener") && w.contains("complications")),
            "{:?}",
            l.warnings
        );
    }

    #[test]
    fn typed_markers_and_misspelt_labels() {
        let md = "**Case 2 - The Veto**\n\nCategory: Collective\n\nScenario text.\n\nCOMPLICATONS\n\n\
                  Questions:\n\n(a) First?\n\n1) Second?\n\n• Third?\n\nParallel case\n\nAnother.\n";
        let l = load(md).unwrap();
        let d = &l.dilemmas[0];
        assert_eq!(d.title, "The Veto");
        assert_eq!(d.questions, vec!["First?", "Second?", "Third?"]);
        assert!(d.core_scenario.contains("COMPLICATONS"));
        assert!(
            l.warnings
                .iter()
                .any(|w| w.contains("did you mean \"complications\"")),
            "{:?}",
            l.warnings
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let e = load("Just some text.\n\nNo headings.\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no dilemma found"), "{e}");
        let e = load("## A Title\n\nCategory: X\n\n### Consistency Case\n\nC.\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"A Title\" has no core scenario"), "{e}");
        let e = load("## A Title\n\nCategory: X\n\nSome prose.\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no consistency case"), "{e}");
        let twice = "## Same\n\nCategory: X\n\nS.\n\n### Consistency Case\n\nC.\n\n";
        let e = load(&format!("{twice}{twice}")).unwrap_err().to_string();
        assert!(e.contains("both get the id \"same\""), "{e}");
    }

    #[test]
    fn inline_lists_and_trailing_appendices() {
        let md = "## A Case\n\nCategory: X\n\nSome prose here.\n\n**Questions:** 1. First? 2. Second, with 3 parts? 3. Third?\n\n\
                  **Asymmetric Features:** - Power: all - Consent: none\n\n**Consistency Case:** C.\n\n\
                  ## Follow-up Probes\n\nUse these after any dilemma.\n\n### Principle\n\n- A probe\n";
        let l = load(md).unwrap();
        assert_eq!(l.dilemmas.len(), 1);
        let d = &l.dilemmas[0];
        assert_eq!(
            d.questions,
            vec!["First?", "Second, with 3 parts?", "Third?"]
        );
        assert_eq!(d.asymmetric_features, vec!["Power: all", "Consent: none"]);
        assert_eq!(d.consistency_case, "C.");
        assert!(
            l.warnings
                .iter()
                .any(|w| w.contains("\"Follow-up Probes\" is not a dilemma")),
            "{:?}",
            l.warnings
        );
    }

    #[test]
    fn a_documents_title_subtitle_contents_and_introduction_are_skipped_as_front_matter() {
        let block = |kind, text: &str| Block::new(kind, text, false, None);
        let h = BlockKind::Heading;
        let blocks = [
            block(h(1), "Ethics Bowl Casebook"),
            block(BlockKind::Subtitle, "Regional round, spring 2026"),
            block(h(1), "Contents"),
            block(BlockKind::Paragraph, "Dilemma 1: The Veto ........ 3"),
            block(h(1), "Introduction"),
            block(
                BlockKind::Paragraph,
                "Each case below has a scenario and questions.",
            ),
            block(h(1), "Dilemma 1: The Veto"),
            block(BlockKind::Subtitle, "Collective choice"),
            block(h(2), "Core Scenario"),
            block(BlockKind::Paragraph, "A council may veto a vote."),
            block(h(2), "Consistency Case"),
            block(BlockKind::Paragraph, "A jury that may overrule itself."),
        ];
        let l = recognise(&blocks, Path::new("casebook.docx")).unwrap();
        assert_eq!(l.dilemmas.len(), 1);
        assert_eq!(l.dilemmas[0].title, "The Veto");
        assert_eq!(l.dilemmas[0].category, "Collective choice");
        assert_eq!(
            l.front_matter,
            vec!["Ethics Bowl Casebook", "Contents", "Introduction"]
        );
        let notes: Vec<_> = l
            .warnings
            .iter()
            .filter(|w| !w.contains("the list is empty"))
            .collect();
        assert_eq!(
            notes,
            [
                "\"Contents\", \"Introduction\" skipped as front matter before the first dilemma \
                 (no \"Category:\" line or section labels); if one is a dilemma, give it its \
                 labelled sections"
            ]
        );
        // A part that does look like a dilemma and lacks a part is still an error.
        let mut broken = blocks.to_vec();
        broken.truncate(10);
        broken.push(block(h(2), "Questions"));
        broken.push(block(BlockKind::Paragraph, "Who decides?"));
        let e = recognise(&broken, Path::new("casebook.docx"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"The Veto\" has no consistency case"), "{e}");
    }

    #[test]
    fn title_prefixes() {
        assert_eq!(strip_title_prefix("Dilemma 3: The Veto"), "The Veto");
        assert_eq!(strip_title_prefix("Case 3 - The Veto"), "The Veto");
        assert_eq!(strip_title_prefix("3. The Veto"), "The Veto");
        assert_eq!(strip_title_prefix("III. The Veto"), "The Veto");
        assert_eq!(strip_title_prefix("The Veto"), "The Veto");
        assert_eq!(strip_title_prefix("Casework"), "Casework");
    }
}
