//! The report's static part as HTML: headings, paragraphs, lists, inline SVG charts and
//! tables whose rows link to the rounds behind them. Every piece of text goes through
//! [`escape::html`](super::escape::html) here and nowhere else.

use super::escape;
use crate::analysis::figures::{self, Block, Link, Span, Text, Value};

/// The link of a row: `#rounds?model=a&dilemma=b`.
fn link_href(link: &Link) -> String {
    let query: Vec<String> = link
        .0
        .iter()
        .map(|(k, v)| format!("{}={}", k.as_str(), escape::query(v)))
        .collect();
    format!("#rounds?{}", query.join("&"))
}

/// Text with its emphasis as HTML, every run escaped.
fn rich(t: &Text) -> String {
    t.0.iter()
        .map(|span| match span {
            Span::Plain(s) | Span::Quote(s) => escape::html(s),
            Span::Code(s) => format!("<code>{}</code>", escape::html(s)),
            Span::Emphasis(s) => format!("<em>{}</em>", escape::html(s)),
            Span::Strong(s) => format!("<strong>{}</strong>", escape::html(s)),
        })
        .collect()
}

/// A cell as HTML: escaped, its bold lead in `<strong>`.
fn value(v: &Value) -> String {
    match v {
        Value::Strong(lead, rest) if !lead.is_empty() => format!(
            "<strong>{}</strong>{}",
            escape::html(lead),
            escape::html(rest)
        ),
        other => escape::html(&other.shown()),
    }
}

/// The HTML of the report's sections, in order, with a contents list of its headings.
#[derive(Default)]
pub(super) struct Doc {
    body: String,
    contents: Vec<(String, String)>,
}

impl Doc {
    /// A section heading (`h2`), listed in the contents.
    pub(super) fn h2(&mut self, title: &str) {
        let id = format!("s{}", self.contents.len() + 1);
        self.body
            .push_str(&format!("<h2 id=\"{id}\">{}</h2>\n", escape::html(title)));
        self.contents.push((id, title.to_string()));
    }

    /// A subsection heading (`h3`).
    pub(super) fn h3(&mut self, title: &str) {
        self.body
            .push_str(&format!("<h3>{}</h3>\n", escape::html(title)));
    }

    /// A paragraph.
    pub(super) fn p(&mut self, text: &str) {
        self.body
            .push_str(&format!("<p>{}</p>\n", escape::html(text)));
    }

    /// A chart: SVG from `analysis::charts`, which escapes its own text; inlined without the
    /// XML declaration a standalone file needs.
    pub(super) fn chart(&mut self, svg: &str) {
        let start = svg.find("<svg").unwrap_or(0);
        self.body.push_str("<figure class=\"chart\">");
        self.body.push_str(&svg[start..]);
        self.body.push_str("</figure>\n");
    }

    /// A section of the figure model: its heading, then each block.
    pub(super) fn section(&mut self, section: &figures::Section) {
        self.h2(&section.title);
        for block in &section.blocks {
            match block {
                Block::Heading(t) => self.h3(t),
                Block::Paragraph(t) => {
                    self.body.push_str(&format!("<p>{}</p>\n", rich(t)));
                }
                Block::List(items) => {
                    self.body.push_str("<ul>");
                    for i in items {
                        self.body.push_str(&format!("<li>{}</li>", rich(i)));
                    }
                    self.body.push_str("</ul>\n");
                }
                Block::Table(t) if !t.rows.is_empty() => self.figure_table(t),
                Block::Table(_) => {}
                Block::Chart(c) if c.in_page => self.chart(&c.svg),
                Block::Chart(_) => {}
            }
        }
    }

    /// A table of the figure model; a row with a link links every cell to its rounds.
    fn figure_table(&mut self, t: &figures::Table) {
        self.body
            .push_str("<div class=\"scroll\"><table><thead><tr>");
        for h in &t.columns {
            self.body.push_str(&format!("<th>{}</th>", escape::html(h)));
        }
        self.body.push_str("</tr></thead><tbody>\n");
        for row in &t.rows {
            self.body.push_str("<tr>");
            let link = row.link.as_ref().map(link_href);
            for c in &row.cells {
                let text = value(c);
                match &link {
                    Some(l) => self.body.push_str(&format!(
                        "<td><a href=\"{}\">{text}</a></td>",
                        escape::html(l)
                    )),
                    None => self.body.push_str(&format!("<td>{text}</td>")),
                }
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody></table></div>\n");
    }

    /// The contents list's entries: (anchor, title).
    pub(super) fn contents(&self) -> &[(String, String)] {
        &self.contents
    }

    /// The sections' HTML.
    pub(super) fn body(&self) -> &str {
        &self.body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_escaped_and_link_to_their_rounds() {
        let mut doc = Doc::default();
        let mut section = figures::Section::new("Models <b>");
        let mut t = figures::Table::new("models", ["model", "n"]);
        t.row(
            vec![Value::text("<script>x</script>"), Value::Count(3)],
            Link::model("a&b c"),
        );
        t.row(vec![Value::text("plain"), Value::Count(1)], None);
        section.table(t);
        doc.section(&section);
        let html = doc.body();
        assert!(
            html.contains("<h2 id=\"s1\">Models &lt;b&gt;</h2>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<td><a href=\"#rounds?model=a%26b%20c\">&lt;script&gt;x&lt;/script&gt;</a></td>"
            ),
            "{html}"
        );
        assert!(html.contains("<td>plain</td>"), "{html}");
        assert!(!html.contains("<script>"));
    }
}
