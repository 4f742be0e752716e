//! Markdown dilemma documents (the editable source of the sample document) read into blocks
//! with pulldown-cmark.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

use super::blocks::{Block, BlockKind};

/// The blocks of a Markdown document, in order.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    // The block being read: its kind, text, and bold spans.
    let mut kind: Option<BlockKind> = None;
    let mut buf = String::new();
    let mut strong_depth = 0usize;
    let mut bold_chars = 0usize;
    let mut plain_chars = 0usize;
    let mut lead = String::new();
    let mut lead_open = true;
    let mut list_depth = 0usize;

    let mut flush = |kind: &mut Option<BlockKind>,
                     buf: &mut String,
                     bold: usize,
                     plain: usize,
                     lead: &mut String| {
        if let Some(k) = kind.take() {
            let text = std::mem::take(buf);
            let lead_text = std::mem::take(lead);
            if !text.trim().is_empty() {
                let all_bold = bold > 0 && plain == 0;
                let lead = (!all_bold && bold > 0).then_some(lead_text);
                out.push(Block::new(k, &text, all_bold, lead));
            }
        }
        buf.clear();
    };

    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                flush(&mut kind, &mut buf, bold_chars, plain_chars, &mut lead);
                kind = Some(BlockKind::Heading(heading_level(level)));
                (bold_chars, plain_chars, lead_open) = (0, 0, true);
            }
            Event::Start(Tag::Item) => {
                flush(&mut kind, &mut buf, bold_chars, plain_chars, &mut lead);
                kind = Some(BlockKind::ListItem);
                (bold_chars, plain_chars, lead_open) = (0, 0, true);
            }
            Event::Start(Tag::List(_)) => {
                // A nested list ends the item it stands in.
                if list_depth > 0 {
                    flush(&mut kind, &mut buf, bold_chars, plain_chars, &mut lead);
                }
                list_depth += 1;
            }
            Event::End(TagEnd::List(_)) => list_depth = list_depth.saturating_sub(1),
            Event::Start(Tag::Paragraph) => {
                if kind != Some(BlockKind::ListItem) || !buf.trim().is_empty() {
                    if kind == Some(BlockKind::ListItem) {
                        // A second paragraph inside an item continues it.
                        buf.push(' ');
                        continue;
                    }
                    flush(&mut kind, &mut buf, bold_chars, plain_chars, &mut lead);
                    kind = Some(BlockKind::Paragraph);
                    (bold_chars, plain_chars, lead_open) = (0, 0, true);
                } else if kind.is_none() {
                    kind = Some(BlockKind::Paragraph);
                }
            }
            // A paragraph inside a list item does not end the item.
            Event::End(TagEnd::Paragraph) if kind == Some(BlockKind::ListItem) => {}
            Event::End(TagEnd::Heading(_) | TagEnd::Paragraph | TagEnd::Item) => {
                flush(&mut kind, &mut buf, bold_chars, plain_chars, &mut lead);
            }
            Event::Start(Tag::Strong) => strong_depth += 1,
            Event::End(TagEnd::Strong) => strong_depth = strong_depth.saturating_sub(1),
            Event::Text(t) | Event::Code(t) => {
                if kind.is_none() {
                    kind = Some(BlockKind::Paragraph);
                }
                let n = t.trim().chars().count();
                if strong_depth > 0 {
                    bold_chars += n;
                    if lead_open {
                        lead.push_str(&t);
                    }
                } else if n > 0 {
                    plain_chars += n;
                    lead_open = false;
                }
                buf.push_str(&t);
            }
            Event::SoftBreak | Event::HardBreak => buf.push(' '),
            _ => {}
        }
    }
    flush(&mut kind, &mut buf, bold_chars, plain_chars, &mut lead);
    out
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_lists_bold_and_lead_ins() {
        let b = blocks(
            "# Title\n\n**Category:** *Moral Status*\n\nPlain text\nwrapped.\n\n- one\n- two **bold**\n\n1. first\n\n**A bold line**\n",
        );
        let kinds: Vec<_> = b.iter().map(|b| (b.kind, b.text.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (BlockKind::Heading(1), "Title"),
                (BlockKind::Paragraph, "Category: Moral Status"),
                (BlockKind::Paragraph, "Plain text wrapped."),
                (BlockKind::ListItem, "one"),
                (BlockKind::ListItem, "two bold"),
                (BlockKind::ListItem, "first"),
                (BlockKind::Paragraph, "A bold line"),
            ]
        );
        assert_eq!(b[1].lead.as_deref(), Some("Category:"));
        assert!(b[6].bold);
        assert!(!b[2].bold);
    }
}
