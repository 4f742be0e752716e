//! `ethics-bowl dilemmas FILE [--json]`: what the loader finds in a dilemma document.

use std::path::Path;

use ethics_bowl::inputs::{DocxLayout, load_dilemmas, save_docx, write_docx};

use crate::cli::LayoutArg;

/// Prints an outline (or the dilemmas as JSON), and the loader's warnings on stderr.
pub fn run(file: &Path, as_json: bool) -> anyhow::Result<()> {
    let loaded = load_dilemmas(file)?;
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    if !loaded.front_matter.is_empty() {
        eprintln!(
            "skipped before the first dilemma (front matter, not dilemmas): {}",
            loaded
                .front_matter
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if as_json {
        // The dilemmas as a tournament reads them, in the spec's fields.
        return super::json::print(&loaded.dilemmas);
    }
    for d in &loaded.dilemmas {
        println!("{}  {}  [{}]", d.id, d.title, d.category);
        println!(
            "    complications {}, questions {}, asymmetric features {}; scenario {} words, consistency case {} words",
            d.complications.len(),
            d.questions.len(),
            d.asymmetric_features.len(),
            d.core_scenario.split_whitespace().count(),
            d.consistency_case.split_whitespace().count()
        );
    }
    println!("{} dilemmas", loaded.dilemmas.len());
    Ok(())
}

/// Reads `input` and writes its dilemmas to `output` as a Word document.
pub fn convert(input: &Path, output: &Path, layout: LayoutArg) -> anyhow::Result<()> {
    let loaded = load_dilemmas(input)?;
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    // The document's own title: its first level-one Markdown heading, if it has one.
    let title = std::fs::read_to_string(input)
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("# ").map(|s| s.trim().to_string()))
        })
        .unwrap_or_else(|| "Ethics Bowl dilemmas".to_string());
    let layout = match layout {
        LayoutArg::Headings => DocxLayout::Headings,
        LayoutArg::BoldLabels => DocxLayout::BoldLabels,
        LayoutArg::Numbered => DocxLayout::Numbered,
    };
    save_docx(write_docx(&title, &loaded.dilemmas, layout), output)
        .map_err(|e| super::UsageError(format!("{}: cannot write: {e}", output.display())))?;
    eprintln!(
        "wrote {} dilemmas to {}",
        loaded.dilemmas.len(),
        output.display()
    );
    Ok(())
}
