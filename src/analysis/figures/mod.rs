//! The report as one typed model: sections of paragraphs, lists, tables and charts, whose
//! table cells are values (a count, a mean with its n, a share with its interval) and whose
//! rows carry the link to the rounds behind them. Each protocol builds its sections here,
//! once; four generic renderers draw the model: Markdown (`report.md`), CSV (one tidy file
//! per table), HTML (`report.html`) and the terminal UI's Analysis screen. No table is
//! written by hand anywhere else.

mod adjusted;
mod calls;
mod ethics_bowl;
mod flips;
mod human;
mod link;
mod markdown;
mod panels;
mod qa_debate;
mod report_card;
mod structured_debate;
mod usage;
mod value;
mod warnings;

pub use link::{Link, LinkKey, RoundTags, judges_of};
pub use markdown::markdown;
pub use panels::section as judge_panels;
pub use qa_debate::section as qa_section;
pub use structured_debate::section as structured_section;
pub use value::{Style, Value};

use crate::analysis::Analysis;
use crate::domain::ProtocolKind;

/// A run of text with the emphasis the report gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    /// Words as they are.
    Plain(String),
    /// A configuration key or value (`judging = "all"`): code in Markdown and HTML.
    Code(String),
    /// A term the text defines: italic.
    Emphasis(String),
    /// A warning's lead: bold.
    Strong(String),
    /// Words from outside the tool (a tournament file's names, a document's titles, as a
    /// recorded warning quotes them): escaped in Markdown as model text is.
    Quote(String),
}

/// A paragraph or a list item: spans in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Text(pub Vec<Span>);

impl Text {
    /// Plain words.
    pub fn plain(s: impl Into<String>) -> Self {
        Self(vec![Span::Plain(s.into())])
    }

    /// Adds plain words.
    pub fn and(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Plain(s.into()));
        self
    }

    /// Adds a configuration key or value.
    pub fn code(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Code(s.into()));
        self
    }

    /// Adds a defined term.
    pub fn emphasis(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Emphasis(s.into()));
        self
    }

    /// Adds a warning's lead.
    pub fn strong(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Strong(s.into()));
        self
    }

    /// Adds words from outside the tool.
    pub fn quote(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Quote(s.into()));
        self
    }

    /// The words without emphasis (the terminal's form).
    pub fn flat(&self) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Span::Plain(t)
                | Span::Code(t)
                | Span::Emphasis(t)
                | Span::Strong(t)
                | Span::Quote(t) => t.as_str(),
            })
            .collect()
    }
}

/// One row of a table: its cells, one per column, and the rounds it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The cells.
    pub cells: Vec<Value>,
    /// The rounds the row counts (a model's, a dilemma's, one round), when it has any.
    pub link: Option<Link>,
}

/// The observation-level form of a table, written as `<file>`: one header row, one row per
/// observation (a table of means per model is a row per model and criterion here), for
/// pandas, R or DuckDB. It sits beside the table it belongs to so the two cannot drift.
#[derive(Debug, Clone, PartialEq)]
pub struct Tidy {
    /// The file name in the report folder (`model_comparison.csv`).
    pub file: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<Value>>,
}

/// A table of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// A short name for the table, unique in the report: the Analysis screen's list of
    /// tables shows it.
    pub name: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// The rows; a table without rows is left out of `report.md`, `report.html` and the
    /// screen (its CSV, if any, is still written, with its header).
    pub rows: Vec<Row>,
    /// Its CSV file, when it has one.
    pub tidy: Option<Tidy>,
}

impl Table {
    /// A table with these columns and no rows yet.
    pub fn new<S: Into<String>>(
        name: impl Into<String>,
        columns: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            name: name.into(),
            columns: columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
            tidy: None,
        }
    }

    /// Adds a row.
    pub fn row(&mut self, cells: Vec<Value>, link: Option<Link>) {
        self.rows.push(Row { cells, link });
    }

    /// Gives the table its CSV file.
    pub fn with_tidy<S: Into<String>>(
        mut self,
        file: impl Into<String>,
        header: impl IntoIterator<Item = S>,
        rows: Vec<Vec<Value>>,
    ) -> Self {
        self.tidy = Some(Tidy {
            file: file.into(),
            header: header.into_iter().map(Into::into).collect(),
            rows,
        });
        self
    }
}

/// A chart: SVG from `analysis::charts`, written as its own file and, where it helps,
/// inlined in `report.html`.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The file name in the report folder (`ratings.svg`).
    pub file: &'static str,
    /// The SVG.
    pub svg: String,
    /// Whether `report.html` shows it.
    pub in_page: bool,
}

/// One part of a section, in reading order.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A subheading.
    Heading(String),
    /// A paragraph.
    Paragraph(Text),
    /// A bulleted list.
    List(Vec<Text>),
    /// A table.
    Table(Table),
    /// A chart (not drawn in Markdown or on the screen).
    Chart(Chart),
}

/// A section of the report: a heading and its blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The heading.
    pub title: String,
    /// What it holds.
    pub blocks: Vec<Block>,
}

impl Section {
    /// An empty section.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            blocks: Vec::new(),
        }
    }

    /// Adds a subheading.
    pub fn heading(&mut self, title: impl Into<String>) {
        self.blocks.push(Block::Heading(title.into()));
    }

    /// Adds a paragraph.
    pub fn paragraph(&mut self, text: Text) {
        self.blocks.push(Block::Paragraph(text));
    }

    /// Adds a paragraph of plain words.
    pub fn plain(&mut self, text: impl Into<String>) {
        self.paragraph(Text::plain(text));
    }

    /// Adds a list (nothing when it is empty).
    pub fn list(&mut self, items: Vec<Text>) {
        if !items.is_empty() {
            self.blocks.push(Block::List(items));
        }
    }

    /// Adds a table.
    pub fn table(&mut self, table: Table) {
        self.blocks.push(Block::Table(table));
    }

    /// Adds a chart.
    pub fn chart(&mut self, file: &'static str, svg: String, in_page: bool) {
        self.blocks.push(Block::Chart(Chart { file, svg, in_page }));
    }

    /// The link of every row of the section's tables, in reading order (the rows a reader
    /// steps through on the Analysis screen).
    pub fn links(&self) -> Vec<Option<&Link>> {
        self.tables()
            .flat_map(|t| t.rows.iter().map(|r| r.link.as_ref()))
            .collect()
    }

    /// Every table of the section, in order.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        })
    }

    /// Narrows every row's link to one protocol's rounds (a folder may hold several, and a
    /// protocol's figures count its own rounds only); a link to one round needs no more.
    fn within(mut self, protocol: &str) -> Self {
        for block in &mut self.blocks {
            let Block::Table(t) = block else { continue };
            for link in t.rows.iter_mut().filter_map(|r| r.link.as_mut()) {
                if link.get(LinkKey::Round).is_none() && link.get(LinkKey::Protocol).is_none() {
                    link.0.push((LinkKey::Protocol, protocol.to_string()));
                }
            }
        }
        self
    }
}

/// Every section of the report, in order: the run's warnings (when it recorded any, or its
/// rounds' judges saw unlike things), cost
/// and usage, answers cut or estimated, then each protocol's own sections with its judge
/// panels'.
pub fn sections(a: &Analysis) -> Vec<Section> {
    let mut out = Vec::new();
    out.extend(warnings::section(
        &a.warnings,
        &crate::analysis::judge_views::warnings(&a.judge_views),
    ));
    out.extend(usage::section(&a.usage_by_model));
    out.extend(calls::section(&a.calls_by_model));
    for kind in ProtocolKind::ALL {
        out.extend(protocol_sections(a, kind));
    }
    out.extend(flips::section(&a.position_flips));
    out.extend(human::section(&a.human_agreement, a.human.as_ref()));
    out.extend(report_card::section(&a.judge_cards));
    out
}

/// One protocol's sections (none when it played no round): what the Analysis screen shows
/// for a tournament of that protocol.
pub fn protocol_sections(a: &Analysis, kind: ProtocolKind) -> Vec<Section> {
    let sections = match kind {
        ProtocolKind::EthicsBowl => ethics_bowl::sections(a),
        ProtocolKind::QaDebate => {
            a.qa.iter()
                .map(qa_debate::section)
                .chain(a.qa_panels.iter().map(panels::section))
                .collect()
        }
        ProtocolKind::StructuredDebate => a
            .structured
            .iter()
            .map(structured_debate::section)
            .chain(a.structured_panels.iter().map(panels::section))
            .collect(),
    };
    sections
        .into_iter()
        .map(|s| s.within(kind.as_str()))
        .collect()
}
