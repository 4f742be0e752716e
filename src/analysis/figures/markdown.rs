//! The figure model as Markdown (`report.md`): a section is a `##` heading, blocks are
//! separated by one blank line, tables are GitHub's pipe tables.

use std::fmt::Write as _;

use super::{Block, Section, Span, Table, Text, Value};
use crate::markdown_escape::inline;

/// The sections as Markdown, each followed by a blank line.
pub fn markdown(sections: &[Section]) -> String {
    let mut s = String::new();
    for section in sections {
        let _ = writeln!(s, "## {}\n", section.title);
        let blocks: Vec<String> = section.blocks.iter().filter_map(block).collect();
        s.push_str(&blocks.join("\n"));
        s.push('\n');
    }
    s
}

fn block(b: &Block) -> Option<String> {
    match b {
        Block::Heading(t) => Some(format!("### {t}\n")),
        Block::Paragraph(t) => Some(format!("{}\n", text(t))),
        Block::List(items) => Some(items.iter().map(|i| format!("- {}\n", text(i))).collect()),
        Block::Table(t) if t.rows.is_empty() => None,
        Block::Table(t) => Some(table(t)),
        Block::Chart(_) => None,
    }
}

fn text(t: &Text) -> String {
    t.0.iter()
        .map(|span| match span {
            Span::Plain(s) => s.clone(),
            Span::Code(s) => format!("`{s}`"),
            Span::Emphasis(s) => format!("*{s}*"),
            Span::Strong(s) => format!("**{s}**"),
            Span::Quote(s) => inline(s),
        })
        .collect()
}

/// A cell: model text escaped, a pipe never ending the cell.
fn cell(v: &Value) -> String {
    let shown = match v {
        Value::Quote(q) => inline(q),
        Value::Strong(lead, rest) if !lead.is_empty() => format!("**{lead}**{rest}"),
        other => other.shown(),
    };
    shown.replace('|', "\\|")
}

fn table(t: &Table) -> String {
    // Headings are the tool's words; `<` and `>` in them are shown, not read as HTML.
    let head = t
        .columns
        .join(" | ")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let mut s = format!("| {head} |\n|{}\n", "---|".repeat(t.columns.len()));
    for row in &t.rows {
        let cells: Vec<String> = row.cells.iter().map(cell).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_one_blank_line_apart_and_cells_cannot_break_the_table() {
        let mut sec = Section::new("Models");
        sec.paragraph(Text::plain("Use ").code("judging = \"all\"").and("."));
        let mut t = Table::new("models", ["model", "note"]);
        t.row(
            vec![Value::text("a|b"), Value::Quote("<b>x</b>".into())],
            None,
        );
        sec.table(t);
        sec.table(Table::new("empty", ["x"]));
        sec.list(vec![Text::plain("one")]);
        assert_eq!(
            markdown(&[sec]),
            "## Models\n\nUse `judging = \"all\"`.\n\n| model | note |\n|---|---|\n| a\\|b | &lt;b&gt;x&lt;/b&gt; |\n\n- one\n\n"
        );
    }
}
