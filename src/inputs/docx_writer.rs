//! Writes dilemmas as a Word document with docx-rs: real heading styles and Word list
//! numbering, in one of three layouts, so the loader's tests can check each way people lay
//! these documents out.

use docx_rs::{
    AbstractNumbering, Docx, IndentLevel, Level, LevelJc, LevelOverride, LevelText, NumberFormat,
    Numbering, NumberingId, Paragraph, Run, SpecialIndentType, Start, Style, StyleType,
};

use crate::domain::Dilemma;

/// How labels and lists are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DocxLayout {
    /// Titles and section labels as Heading 1 / Heading 2; lists with Word numbering.
    #[default]
    Headings,
    /// Titles and labels as bold paragraphs (labels with a colon); list markers typed by
    /// hand (`•`, `1.`).
    BoldLabels,
    /// Titles as headings, labels as bold paragraphs, lists with Word numbering.
    Numbered,
}

const BULLETS: usize = 1;
const DECIMAL: usize = 2;

/// Builds the document: a title, then each dilemma.
pub fn write_docx(title: &str, dilemmas: &[Dilemma], layout: DocxLayout) -> Docx {
    let mut doc = Docx::new()
        .add_style(
            Style::new("Title", StyleType::Paragraph)
                .name("Title")
                .size(48)
                .bold(),
        )
        .add_style(
            Style::new("Heading1", StyleType::Paragraph)
                .name("Heading 1")
                .size(32)
                .bold(),
        )
        .add_style(
            Style::new("Heading2", StyleType::Paragraph)
                .name("Heading 2")
                .size(26)
                .bold(),
        )
        .add_abstract_numbering(one_level_list(BULLETS, "bullet", "\u{2022}"))
        .add_abstract_numbering(one_level_list(DECIMAL, "decimal", "%1."))
        .add_paragraph(
            Paragraph::new()
                .style("Title")
                .add_run(Run::new().add_text(title)),
        );
    // Each list gets its own numbering instance, so numbered lists restart at 1.
    let mut next_num = 1usize;
    for d in dilemmas {
        doc = match layout {
            DocxLayout::BoldLabels => doc.add_paragraph(
                Paragraph::new().add_run(Run::new().add_text(&d.title).bold().size(32)),
            ),
            _ => doc.add_paragraph(
                Paragraph::new()
                    .style("Heading1")
                    .add_run(Run::new().add_text(&d.title)),
            ),
        };
        let mut category = Paragraph::new()
            .add_run(Run::new().add_text("Category:").bold())
            .add_run(Run::new().add_text(format!(" {}", d.category)).italic());
        for (k, v) in &d.metadata {
            category = category.add_run(Run::new().add_text(format!(" | {k}: {v}")));
        }
        doc = doc.add_paragraph(category);
        let sections: [(&str, Section<'_>); 5] = [
            ("Core Scenario", Section::Prose(&d.core_scenario)),
            ("Complications", Section::List(&d.complications, BULLETS)),
            ("Questions", Section::List(&d.questions, DECIMAL)),
            (
                "Asymmetric Features",
                Section::List(&d.asymmetric_features, BULLETS),
            ),
            ("Consistency Case", Section::Prose(&d.consistency_case)),
        ];
        for (label, section) in sections {
            if matches!(section, Section::List(items, _) if items.is_empty()) {
                continue;
            }
            doc = match layout {
                DocxLayout::Headings => doc.add_paragraph(
                    Paragraph::new()
                        .style("Heading2")
                        .add_run(Run::new().add_text(label)),
                ),
                _ => doc.add_paragraph(
                    Paragraph::new().add_run(Run::new().add_text(format!("{label}:")).bold()),
                ),
            };
            match section {
                Section::Prose(text) => {
                    for para in text.split("\n\n") {
                        doc =
                            doc.add_paragraph(Paragraph::new().add_run(Run::new().add_text(para)));
                    }
                }
                Section::List(items, kind) => {
                    if layout == DocxLayout::BoldLabels {
                        for (i, item) in items.iter().enumerate() {
                            let marker = if kind == DECIMAL {
                                format!("{}. ", i + 1)
                            } else {
                                "\u{2022} ".to_string()
                            };
                            doc = doc.add_paragraph(
                                Paragraph::new()
                                    .add_run(Run::new().add_text(format!("{marker}{item}"))),
                            );
                        }
                    } else {
                        doc = doc.add_numbering(
                            Numbering::new(next_num, kind)
                                .add_override(LevelOverride::new(0).start(1)),
                        );
                        for item in items {
                            doc = doc.add_paragraph(
                                Paragraph::new()
                                    .numbering(NumberingId::new(next_num), IndentLevel::new(0))
                                    .add_run(Run::new().add_text(item)),
                            );
                        }
                        next_num += 1;
                    }
                }
            }
        }
    }
    doc
}

/// A one-level Word list definition (bullets or numbers), indented like Word's own.
fn one_level_list(id: usize, format: &str, text: &str) -> AbstractNumbering {
    AbstractNumbering::new(id).add_level(
        Level::new(
            0,
            Start::new(1),
            NumberFormat::new(format),
            LevelText::new(text),
            LevelJc::new("left"),
        )
        .indent(Some(720), Some(SpecialIndentType::Hanging(360)), None, None),
    )
}

enum Section<'a> {
    Prose(&'a str),
    List(&'a [String], usize),
}

/// Writes the document to a file.
pub fn save_docx(doc: Docx, path: &std::path::Path) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    doc.build().pack(file).map_err(std::io::Error::other)
}
