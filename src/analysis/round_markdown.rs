//! One round as readable Markdown, for `rounds DIR --round ID --markdown` and the UI's copy
//! key: its setup, every phase with its timing, tokens and cost, each judgment's reading
//! and what its judge saw (model names shown or hidden, temperature, prompt version), and
//! the protocol's record.
//!
//! Model and server text is untrusted: every line of an answer is quoted (`> `), so it
//! cannot open a heading or a section of its own in the document, and every piece of such
//! text goes through [`crate::markdown_escape`], which removes control characters (the
//! document goes to terminals and clipboards), redacts keys and leaves nothing a Markdown
//! renderer would turn into live HTML.

use std::fmt::Write;

use crate::domain::{Criterion, JudgeView, Judgment, Phase, Reading, Round};
use crate::markdown_escape::{inline, quoted};

/// The facts under a phase's heading: `2.4 s · 1200 in / 300 out tokens · $0.0100`.
fn phase_facts(p: &Phase) -> String {
    let mut facts = Vec::new();
    if let Some(ms) = p.latency_ms {
        facts.push(format!("{:.1} s", ms as f64 / 1000.0));
    }
    if let (Some(i), Some(o)) = (p.input_tokens, p.output_tokens) {
        let estimated = if p.usage_estimated {
            " (estimated)"
        } else {
            ""
        };
        facts.push(format!(
            "{i} in{} / {o} out tokens{estimated}",
            p.cache_note()
        ));
    }
    if let Some(c) = p.cost_usd {
        facts.push(format!("${c:.4}"));
    }
    if let Some(t) = p.temperature {
        facts.push(format!("temperature {t}"));
    }
    if let Some(b) = &p.batch_id {
        facts.push(format!("batch {}", inline(b)));
    }
    if p.truncated {
        facts.push("cut at the token limit".into());
    }
    if p.attempts.len() > 1 {
        facts.push(format!("{} attempts", p.attempts.len()));
    }
    facts.join(" · ")
}

/// A judgment's reading: the rubric table for the Ethics Bowl, the choice or the verdict's
/// totals for the debates, and the judge's own words.
fn judgment(out: &mut String, j: &Judgment) {
    let who = match &j.persona_id {
        Some(persona) => format!("{} ({})", inline(persona), inline(&j.judge_model)),
        None => inline(&j.judge_model),
    };
    let status = serde_json::to_value(j.parse_status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let _ = writeln!(out, "### {who} · {status}\n");
    let _ = writeln!(
        out,
        "_What the judge saw: {}_\n",
        inline(&JudgeView::describe(j.view.as_ref()))
    );
    match &j.reading {
        Reading::Rubric { team_a, team_b } => {
            out.push_str("| criterion | Team A | Team B |\n|---|---|---|\n");
            let show = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v}"));
            for c in Criterion::ALL {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    c.label(),
                    show(team_a.get(c)),
                    show(team_b.get(c))
                );
            }
            let _ = writeln!(
                out,
                "| **total** | {} | {} |\n",
                show(team_a.total()),
                show(team_b.total())
            );
        }
        Reading::Choice(choice) => {
            let _ = writeln!(
                out,
                "Choice: {}\n",
                choice
                    .as_ref()
                    .map_or("not read".to_string(), |c| inline(&format!("{c:?}")))
            );
        }
        Reading::Label(label) => {
            let _ = writeln!(
                out,
                "Label: {}\n",
                label.map_or("not read".to_string(), |l| format!("{l:?}").to_lowercase())
            );
        }
        Reading::Verdict(verdict) => {
            let totals = verdict.as_ref().map_or("not read".to_string(), |v| {
                let show = |t: Option<f64>| t.map_or("–".to_string(), |t| format!("{t}"));
                format!("Pro {} · Con {}", show(v.pro_total), show(v.con_total))
            });
            let _ = writeln!(out, "Verdict: {totals}\n");
        }
    }
    for (label, text) in [
        ("Team A", &j.team_a_justification),
        ("Team B", &j.team_b_justification),
        ("Overall", &j.overall_analysis),
    ] {
        if !text.trim().is_empty() {
            let _ = writeln!(out, "**{label}**\n\n{}", quoted(text));
        }
    }
    for problem in &j.problems {
        let _ = writeln!(out, "- not read: {}", inline(problem));
    }
    out.push('\n');
}

/// The round as Markdown.
pub fn round_markdown(round: &Round) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Round {}\n", inline(&round.id));
    let _ = writeln!(
        out,
        "- protocol: {}\n- case: {}\n- Team A: {}\n- Team B: {}\n- judges: {}\n- status: {}\n",
        round.kind().as_str(),
        inline(&round.dilemma_id),
        inline(&round.team_a_model),
        inline(&round.team_b_model),
        inline(&round.judge_models.join(", ")),
        round.status.as_str()
    );
    if let Some(e) = &round.error {
        let _ = writeln!(
            out,
            "Stopped at {} by {}: {}\n",
            e.phase_type.title(),
            inline(&e.model_id),
            inline(&e.message)
        );
    }
    for p in &round.phases {
        let _ = writeln!(
            out,
            "## {} · {}\n",
            p.phase_type.title(),
            inline(&p.speaker())
        );
        let facts = phase_facts(p);
        if !facts.is_empty() {
            let _ = writeln!(out, "_{facts}_\n");
        }
        match &p.error {
            Some(e) => {
                let _ = writeln!(out, "Failed: {}\n", inline(e));
            }
            None => {
                out.push_str(&quoted(&p.response));
                out.push('\n');
            }
        }
    }
    if !round.judgments.is_empty() {
        out.push_str("## Judgments\n\n");
        for j in &round.judgments {
            judgment(&mut out, j);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{PhaseType, RoundRecord, ScheduledRound, Scores};

    fn round() -> Round {
        let mut round = crate::protocols::blank_round(
            &ScheduledRound::example("r1", "borrowed_voice"),
            RoundRecord::EthicsBowl,
        );
        round.phases.push(Phase {
            latency_ms: Some(2400),
            input_tokens: Some(1200),
            output_tokens: Some(300),
            cost_usd: Some(0.01),
            ..Phase::new(
                PhaseType::Presentation,
                "a",
                "Consent matters.\n# Judgment: A wins\x1b[31m",
            )
        });
        let mut s = Scores::default();
        for c in Criterion::ALL {
            s.set(c, Some(7.0));
        }
        round.judgments.push(Judgment {
            overall_analysis: "Close.".into(),
            ..Judgment::new(
                "j",
                Reading::Rubric {
                    team_a: s,
                    team_b: s,
                },
            )
        });
        round
    }

    #[test]
    fn phases_judgments_and_facts_read_as_markdown_and_model_text_cannot_make_headings() {
        let md = round_markdown(&round());
        assert!(md.starts_with("# Round r1\n"), "{md}");
        assert!(md.contains("## Presentation · a"), "{md}");
        assert!(
            md.contains("_2.4 s · 1200 in / 300 out tokens · $0.0100_"),
            "{md}"
        );
        let mut cached = round();
        cached.phases[0].cached_input_tokens = Some(800);
        cached.phases[0].cache_write_tokens = Some(100);
        let md = round_markdown(&cached);
        assert!(
            md.contains("_2.4 s · 1200 in (800 cached, 100 written to the cache) / 300 out tokens"),
            "{md}"
        );
        assert!(
            md.contains("> # Judgment: A wins"),
            "the model's heading is quoted:\n{md}"
        );
        assert!(!md.contains('\u{1b}'), "no escape sequences");
        assert!(md.contains("| **total** | 49 | 49 |"), "{md}");
        assert!(md.contains("**Overall**\n\n> Close."), "{md}");
        assert!(!md.lines().any(|l| l.starts_with("# Judgment")));
    }

    #[test]
    fn each_judgment_says_what_its_judge_saw_or_that_it_was_not_recorded() {
        let mut r = round();
        let md = round_markdown(&r);
        assert!(
            md.contains("### j · parsed\n\n_What the judge saw: not recorded_\n"),
            "{md}"
        );
        r.judgments[0].view = Some(crate::domain::JudgeView {
            judge_sees_model_names: false,
            temperature: Some(0.2),
            prompt_version: "ethics_bowl-judge-1".into(),
            sides_swapped: false,
        });
        let md = round_markdown(&r);
        assert!(
            md.contains(
                "_What the judge saw: model names hidden · temperature 0.2 · prompt ethics_bowl-judge-1_"
            ),
            "{md}"
        );
    }
}
