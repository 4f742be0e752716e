//! Word documents (`.docx`) read into blocks: paragraph styles (Title, Subtitle, Heading
//! 1–6, List Bullet / List Number), Word list numbering (`numPr`), run formatting (bold,
//! size), and tables read cell by cell, in document order. Documents from Word,
//! LibreOffice, Google Docs and pandoc name their styles differently; a style is recognised
//! by its id or its name, and by the style it is based on. The package is unpacked and
//! parsed by `docx_package`, which says why we read it ourselves.

use std::collections::HashMap;

use super::blocks::{Block, BlockKind};
use super::docx_error::DocxError;
use super::docx_package::Package;
use super::xml_tree::Element;

/// WordprocessingML's namespace, transitional and strict.
const W: &[&str] = &[
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://purl.oclc.org/ooxml/wordprocessingml/main",
];
/// Markup compatibility: `mc:Fallback` repeats what `mc:Choice` holds.
const MC: &[&str] = &["http://schemas.openxmlformats.org/markup-compatibility/2006"];

/// Tables inside table cells are read this many levels deep.
const MAX_TABLE_DEPTH: usize = 4;

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

/// The first child element `w:local`.
fn child<'t>(element: Element<'t>, local: &str) -> Option<Element<'t>> {
    element.children().find(|c| c.is(W, local))
}

/// The `w:val` of the child `w:local`.
fn child_value<'t>(element: Element<'t>, local: &str) -> Option<&'t str> {
    child(element, local).and_then(|c| c.attribute_in(W, "val"))
}

/// An on/off property (`<w:b/>`, `<w:b w:val="0"/>`): `None` when absent.
fn on_off(element: Element<'_>, local: &str) -> Option<bool> {
    child(element, local).map(|c| {
        !matches!(
            c.attribute_in(W, "val")
                .map(str::to_ascii_lowercase)
                .as_deref(),
            Some("0" | "false" | "off")
        )
    })
}

/// Bold and size (half-points) set on a run or a style (`w:rPr`).
fn run_formatting(properties: Option<Element<'_>>) -> (Option<bool>, Option<u64>) {
    let Some(p) = properties else {
        return (None, None);
    };
    let size = child_value(p, "sz").and_then(|v| v.trim().parse().ok());
    (on_off(p, "b"), size)
}

/// A style as written: its names, what it is based on, its own bold and size.
struct RawStyle<'t> {
    name: &'t str,
    based_on: Option<&'t str>,
    bold: Option<bool>,
    size: Option<u64>,
}

/// The document's paragraph styles, resolved through `basedOn`.
fn style_table(styles: Element<'_>) -> HashMap<String, StyleInfo> {
    let raw: HashMap<&str, RawStyle<'_>> = styles
        .children()
        .filter(|s| s.is(W, "style"))
        .filter_map(|s| {
            let id = s.attribute_in(W, "styleId")?;
            let (bold, size) = run_formatting(child(s, "rPr"));
            let style = RawStyle {
                name: child_value(s, "name").unwrap_or_default(),
                based_on: child_value(s, "basedOn"),
                bold,
                size,
            };
            Some((id, style))
        })
        .collect();
    let mut out = HashMap::new();
    for &id in raw.keys() {
        let mut kind = StyleKind::Other;
        let (mut bold, mut size) = (None, None);
        let mut current = Some(id);
        // Follow basedOn a few steps (Word chains are short; a cycle must not hang us).
        for _ in 0..8 {
            let Some((own_id, style)) = current.and_then(|c| raw.get(c).map(|s| (c, s))) else {
                break;
            };
            if kind == StyleKind::Other {
                kind = match kind_from_name(style.name) {
                    StyleKind::Other => kind_from_name(own_id),
                    k => k,
                };
            }
            bold = bold.or(style.bold);
            size = size.or(style.size);
            current = style.based_on;
        }
        out.insert(
            id.to_string(),
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
    fn run(&mut self, run: Element<'_>, style: StyleInfo) {
        let (own_bold, own_size) = run_formatting(child(run, "rPr"));
        let bold = own_bold.unwrap_or(style.bold);
        let size = own_size.or(style.size);
        let mut piece = String::new();
        for c in run.children() {
            if c.is(W, "t") {
                piece.push_str(&c.text());
            } else if ["tab", "ptab", "br", "cr"].iter().any(|l| c.is(W, l)) {
                piece.push(' ');
            } else if c.is(W, "sym") {
                piece.push('\u{2022}');
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

    /// The runs inside `element`, through hyperlinks, insertions, fields, content controls
    /// and other wrappers; not deleted or moved-away text, nor a fallback's repetition.
    fn inline(&mut self, element: Element<'_>, style: StyleInfo) {
        for c in element.children() {
            if c.is(W, "r") {
                self.run(c, style);
            } else if !(["pPr", "rPr", "del", "moveFrom"].iter().any(|l| c.is(W, l))
                || c.is(MC, "Fallback"))
            {
                self.inline(c, style);
            }
        }
    }
}

fn paragraph(p: Element<'_>, styles: &HashMap<String, StyleInfo>) -> Option<Block> {
    let properties = child(p, "pPr");
    let style = properties
        .and_then(|pr| child_value(pr, "pStyle"))
        .and_then(|id| styles.get(id).copied())
        .unwrap_or(StyleInfo {
            kind: StyleKind::Other,
            bold: false,
            size: None,
        });
    let mut g = Gathered {
        lead_open: true,
        ..Gathered::default()
    };
    g.inline(p, style);
    if g.text.trim().is_empty() {
        return None;
    }
    let numbered = properties
        .and_then(|pr| child(pr, "numPr"))
        .and_then(|n| child_value(n, "numId"))
        .and_then(|id| id.trim().parse::<u64>().ok())
        .is_some_and(|id| id != 0);
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

/// The paragraphs and tables of the body or of a table cell, in order. Block-level content
/// controls (`w:sdt`: tables of contents, cover pages) are skipped; custom XML wrappers are
/// read through.
fn block_content(
    container: Element<'_>,
    styles: &HashMap<String, StyleInfo>,
    out: &mut Vec<Block>,
    table_depth: usize,
) {
    for c in container.children() {
        if c.is(W, "p") {
            out.extend(paragraph(c, styles));
        } else if c.is(W, "tbl") && table_depth <= MAX_TABLE_DEPTH {
            for row in c.children().filter(|r| r.is(W, "tr")) {
                for cell in row.children().filter(|c| c.is(W, "tc")) {
                    block_content(cell, styles, out, table_depth + 1);
                }
            }
        } else if c.is(W, "customXml") {
            block_content(c, styles, out, table_depth);
        }
    }
}

/// The blocks of a `.docx` file, or why it cannot be read.
pub fn blocks(bytes: &[u8]) -> Result<Vec<Block>, DocxError> {
    let package = Package::unpack(bytes)?;
    let document = package.main_document()?;
    let root = document.tree.root();
    if !root.is(W, "document") {
        return Err(DocxError::NotWordprocessing {
            part: document.name.clone(),
            root: root.local_name().to_string(),
        });
    }
    let styles = package
        .related(document, "styles")
        .map(|styles| style_table(styles.tree.root()))
        .unwrap_or_default();
    let mut out = Vec::new();
    if let Some(body) = child(root, "body") {
        block_content(body, &styles, &mut out, 0);
    }
    Ok(out)
}
