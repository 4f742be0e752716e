//! `ethics-bowl dilemmas FILE [--json]`: what the loader finds in a dilemma document.

use std::path::Path;

use ethics_bowl::inputs::load_dilemmas;

/// Prints an outline (or the dilemmas as JSON), and the loader's warnings on stderr.
pub fn run(file: &Path, as_json: bool) -> anyhow::Result<()> {
    let loaded = load_dilemmas(file)?;
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    if as_json {
        println!("{}", serde_json::to_string_pretty(&loaded.dilemmas)?);
        return Ok(());
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
