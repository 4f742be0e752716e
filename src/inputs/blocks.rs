//! A document as a flat list of blocks: what every reader (Markdown, Word) produces and the
//! dilemma recogniser consumes, so the rules for finding titles, labels and lists live once.

/// What kind of paragraph a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// A heading of this level (1 = title level).
    Heading(u8),
    /// A list item (Word numbering, Markdown list).
    ListItem,
    /// A subtitle (Word's Subtitle style): under a title, the category.
    Subtitle,
    /// Ordinary text.
    Paragraph,
}

/// One paragraph of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Heading, list item or paragraph.
    pub kind: BlockKind,
    /// The text, white space folded.
    pub text: String,
    /// The whole paragraph is bold.
    pub bold: bool,
    /// The bold text the paragraph starts with, when it starts with bold and goes on.
    pub lead: Option<String>,
    /// Set in a large size (14 pt or more), as titles often are.
    pub large: bool,
}

impl Block {
    /// A block with folded white space.
    pub fn new(kind: BlockKind, text: &str, bold: bool, lead: Option<String>) -> Self {
        Self {
            kind,
            text: fold_whitespace(text),
            bold,
            lead: lead.map(|l| fold_whitespace(&l)).filter(|l| !l.is_empty()),
            large: false,
        }
    }
}

/// Cleans text as documents produce it: non-breaking spaces become spaces, soft hyphens and
/// zero-width characters go, runs of white space fold to one space. Smart quotes stay.
pub fn fold_whitespace(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .filter(|c| {
            !matches!(
                c,
                '\u{ad}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{feff}'
            )
        })
        .map(|c| {
            if c == '\u{a0}' || c == '\u{202f}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}
