//! Word documents (`.docx`) read into blocks with docx-rs: paragraph styles (Title,
//! Subtitle, Heading 1–6, List Bullet / List Number), Word list numbering (`numPr`), run
//! formatting (bold, size), and tables read cell by cell, in document order. Documents from
//! Word, LibreOffice, Google Docs and pandoc name their styles differently; a style is
//! recognised by its id or its name, and by the style it is based on.

use std::collections::HashMap;

use docx_rs::{
    Bold, DocumentChild, Docx, InsertChild, Paragraph, ParagraphChild, RunChild, RunProperty,
    TableCellContent, TableChild, TableRowChild,
};
use serde_json::Value;

use super::blocks::{Block, BlockKind};

/// What a paragraph style means to us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StyleKind {
    Heading(u8),
    Title,
    Subtitle,
    List,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct StyleInfo {
    kind: StyleKind,
    bold: bool,
    size: Option<u64>,
}

/// Runs of at least this size (in half-points: 14 pt) make a "large" paragraph.
const LARGE_HALF_POINTS: u64 = 28;

fn kind_from_name(name: &str) -> StyleKind {
    let n: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if let Some(level) = n.strip_prefix("heading").and_then(|l| l.parse::<u8>().ok()) {
        return StyleKind::Heading(level.clamp(1, 9));
    }
    match n.as_str() {
        "title" => StyleKind::Title,
        "subtitle" => StyleKind::Subtitle,
        _ if n.starts_with("listbullet") || n.starts_with("listnumber") || n == "listparagraph" => {
            StyleKind::List
        }
        _ => StyleKind::Other,
    }
}

/// The document's paragraph styles, resolved through `basedOn`.
fn style_table(docx: &Docx) -> HashMap<String, StyleInfo> {
    // Some fields docx-rs keeps private (names, bold, size) are public in its JSON form.
    let raw: Vec<(String, Value)> = docx
        .styles
        .styles
        .iter()
        .map(|s| {
            (
                s.style_id.clone(),
                serde_json::to_value(s).unwrap_or(Value::Null),
            )
        })
        .collect();
    let by_id: HashMap<&str, &Value> = raw.iter().map(|(id, v)| (id.as_str(), v)).collect();
    let mut out = HashMap::new();
    for (id, value) in &raw {
        let mut kind = StyleKind::Other;
        let (mut bold, mut size) = (None, None);
        let mut current = Some(value);
        // Follow basedOn a few steps (Word chains are short; a cycle must not hang us).
        for _ in 0..8 {
            let Some(v) = current else { break };
            if kind == StyleKind::Other {
                let name = v.get("name").and_then(Value::as_str).unwrap_or_default();
                let own_id = v.get("styleId").and_then(Value::as_str).unwrap_or_default();
                kind = match kind_from_name(name) {
                    StyleKind::Other => kind_from_name(own_id),
                    k => k,
                };
            }
            let run = v.get("runProperty");
            bold = bold.or_else(|| run.and_then(|r| r.get("bold")).and_then(Value::as_bool));
            size = size.or_else(|| run.and_then(|r| r.get("sz")).and_then(Value::as_u64));
            current = v
                .get("basedOn")
                .and_then(Value::as_str)
                .and_then(|b| by_id.get(b).copied());
        }
        out.insert(
            id.clone(),
            StyleInfo {
                kind,
                bold: bold.unwrap_or(false),
                size,
            },
        );
    }
    out
}

/// Text and formatting gathered from a paragraph's runs.
#[derive(Default)]
struct Gathered {
    text: String,
    bold_chars: usize,
    plain_chars: usize,
    lead: String,
    lead_open: bool,
    max_size: Option<u64>,
}

impl Gathered {
    fn run(&mut self, props: &RunProperty, children: &[RunChild], style: StyleInfo) {
        let own_bold = props.bold.as_ref().map(|b| *b == Bold::new());
        let bold = own_bold.unwrap_or(style.bold);
        let size = serde_json::to_value(&props.sz)
            .ok()
            .and_then(|v| v.as_u64())
            .or(style.size);
        let mut piece = String::new();
        for child in children {
            match child {
                RunChild::Text(t) => piece.push_str(&t.text),
                RunChild::Tab(_)
                | RunChild::PTab(_)
                | RunChild::Break(_)
                | RunChild::CarriageReturn(_) => piece.push(' '),
                RunChild::Sym(_) => piece.push('\u{2022}'),
                _ => {}
            }
        }
        let n = piece.trim().chars().count();
        if n > 0 {
            self.max_size = self.max_size.max(size);
            if bold {
                self.bold_chars += n;
                if self.lead_open {
                    self.lead.push_str(&piece);
                }
            } else {
                self.plain_chars += n;
                self.lead_open = false;
            }
        } else if bold && self.lead_open {
            self.lead.push_str(&piece);
        }
        self.text.push_str(&piece);
    }

    fn children(&mut self, children: &[ParagraphChild], style: StyleInfo) {
        for child in children {
            match child {
                ParagraphChild::Run(r) => self.run(&r.run_property, &r.children, style),
                ParagraphChild::Hyperlink(h) => self.children(&h.children, style),
                ParagraphChild::Insert(ins) => {
                    for c in &ins.children {
                        if let InsertChild::Run(r) = c {
                            self.run(&r.run_property, &r.children, style);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

fn paragraph(p: &Paragraph, styles: &HashMap<String, StyleInfo>) -> Option<Block> {
    let style = p
        .property
        .style
        .as_ref()
        .and_then(|s| styles.get(&s.val).copied())
        .unwrap_or(StyleInfo {
            kind: StyleKind::Other,
            bold: false,
            size: None,
        });
    let mut g = Gathered {
        lead_open: true,
        ..Gathered::default()
    };
    g.children(&p.children, style);
    if g.text.trim().is_empty() {
        return None;
    }
    let numbered = p
        .property
        .numbering_property
        .as_ref()
        .is_some_and(|n| n.id.as_ref().is_some_and(|id| id.id != 0));
    let kind = match style.kind {
        StyleKind::Heading(level) => BlockKind::Heading(level),
        StyleKind::Title => BlockKind::Heading(1),
        StyleKind::Subtitle => BlockKind::Subtitle,
        StyleKind::List => BlockKind::ListItem,
        StyleKind::Other if numbered => BlockKind::ListItem,
        StyleKind::Other => BlockKind::Paragraph,
    };
    let all_bold = g.bold_chars > 0 && g.plain_chars == 0;
    let lead = (!all_bold && g.bold_chars > 0).then_some(g.lead);
    let large = g.max_size.is_some_and(|s| s >= LARGE_HALF_POINTS);
    let mut block = Block::new(kind, &g.text, all_bold, lead);
    block.large = large;
    Some(block)
}

fn push_table(
    rows: &[TableChild],
    styles: &HashMap<String, StyleInfo>,
    out: &mut Vec<Block>,
    depth: usize,
) {
    for TableChild::TableRow(row) in rows {
        for TableRowChild::TableCell(cell) in &row.cells {
            for content in &cell.children {
                match content {
                    TableCellContent::Paragraph(p) => out.extend(paragraph(p, styles)),
                    TableCellContent::Table(t) if depth < 4 => {
                        push_table(&t.rows, styles, out, depth + 1)
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The blocks of a `.docx` file, or why it cannot be read.
pub fn blocks(bytes: &[u8]) -> Result<Vec<Block>, String> {
    // docx-rs is not ours; a panic inside it on a strange file becomes an error here.
    let read = std::panic::catch_unwind(|| docx_rs::read_docx(bytes))
        .map_err(|_| "the Word reader failed on this file".to_string())?;
    let docx = read.map_err(|e| e.to_string())?;
    let styles = style_table(&docx);
    let mut out = Vec::new();
    for child in &docx.document.children {
        match child {
            DocumentChild::Paragraph(p) => out.extend(paragraph(p, &styles)),
            DocumentChild::Table(t) => push_table(&t.rows, &styles, &mut out, 0),
            _ => {}
        }
    }
    Ok(out)
}
