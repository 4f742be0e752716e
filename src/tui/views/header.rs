//! The header, always visible: the run's name, time, whether it was resumed, counts, calls,
//! retries, answers cut at the token limit, tokens and cost (the last five over every stored
//! round, earlier sessions included; tokens and cost marked when some usage is estimated),
//! and the run's warnings from planning (a judge confound first).

use std::time::Duration;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::engine::UsageTotals;
use crate::tui::app::App;
use crate::tui::mirror::Mode;
use crate::tui::theme::Theme;

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// 1234567 → "1.2M", 45678 → "45.7k".
fn short(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// The tokens of every stored call, `~`-marked with how many calls' usage is estimated
/// when the server reported none for some, and how many answers the response cache served
/// instead of a call (` · 12 reused`), when any.
fn tokens(t: &UsageTotals) -> String {
    let counted = counted_tokens(t);
    match t.reused {
        0 => counted,
        n => format!("{counted} · {n} reused"),
    }
}

/// [`tokens`] without the answers the response cache served.
fn counted_tokens(t: &UsageTotals) -> String {
    if t.is_estimated() {
        format!(
            " │ tokens ~{} in/~{} out ({} call{} estimated)",
            short(t.input_tokens),
            short(t.output_tokens),
            t.estimated,
            if t.estimated == 1 { "" } else { "s" }
        )
    } else if t.cached_input_tokens > 0 {
        format!(
            " │ tokens {} in ({} cached)/{} out",
            short(t.input_tokens),
            short(t.cached_input_tokens),
            short(t.output_tokens)
        )
    } else {
        format!(
            " │ tokens {} in/{} out",
            short(t.input_tokens),
            short(t.output_tokens)
        )
    }
}

/// [`tokens`] in short: ` │ tok ~1.2k/~3.4k (2 est.)` (`~` and how many calls' usage is
/// estimated, when some is), and the answers the response cache served (` · 12 reused`),
/// which at 80 columns are what says why a finished run shows no tokens.
fn compact_tokens(t: &UsageTotals) -> String {
    let (mark, note) = if t.is_estimated() {
        ("~", format!(" ({} est.)", t.estimated))
    } else {
        ("", String::new())
    };
    let reused = match t.reused {
        0 => String::new(),
        n => format!(" · {n} reused"),
    };
    format!(
        " │ tok {mark}{}/{mark}{}{note}{reused}",
        short(t.input_tokens),
        short(t.output_tokens)
    )
}

/// Each adaptive model's window out of its ceiling, with the requests its provider says are
/// left and any hold for a quota reset: ` · concurrency gpt 3/8 (1.2k req left)`.
fn concurrency(app: &App) -> String {
    let models: Vec<String> = app
        .mirror
        .rate_limits
        .iter()
        .map(|(model, s)| {
            let mut notes = Vec::new();
            if let Some(left) = s.remaining_requests {
                notes.push(format!("{} req left", short(left)));
            }
            if let Some(held) = s.held_for {
                notes.push(format!("held {} s", held.as_secs().max(1)));
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join(", "))
            };
            format!("{model} {}/{}{notes}", s.window, s.max_concurrency)
        })
        .collect();
    if models.is_empty() {
        String::new()
    } else {
        format!(" · concurrency {}", models.join(", "))
    }
}

/// A duration as people read it at a glance: `45 s`, `12 min`, `3 h`.
fn span(d: Duration) -> String {
    match d.as_secs() {
        s @ 0..120 => format!("{s} s"),
        s @ 120..7200 => format!("{} min", s / 60),
        s => format!("{} h", s / 3600),
    }
}

/// The open batches per model: its provider, how many are open, requests answered and
/// failed out of those sent, the oldest batch's age and the next poll: ` · batches gpt
/// (openai) 1 (120/200 done, 2 failed, open 3 min, next poll 45 s)`.
fn batches(app: &App) -> String {
    let since = app
        .mirror
        .now
        .saturating_duration_since(app.mirror.batches_at);
    let mut models: Vec<&str> = app
        .mirror
        .batches
        .iter()
        .map(|b| b.model.as_str())
        .collect();
    models.dedup();

    let parts: Vec<String> = models
        .into_iter()
        .map(|model| {
            let open: Vec<_> = app
                .mirror
                .batches
                .iter()
                .filter(|b| b.model == model)
                .collect();
            let requests: u64 = open.iter().map(|b| b.requests).sum();
            let done: u64 = open.iter().map(|b| b.succeeded).sum();
            let failed: u64 = open.iter().map(|b| b.failed).sum();
            let oldest = open.iter().map(|b| b.age).max().unwrap_or_default() + since;
            let next = open
                .iter()
                .filter_map(|b| b.next_poll_in)
                .min()
                .map(|d| format!(", next poll {}", span(d.saturating_sub(since))))
                .unwrap_or_default();
            let failed = if failed > 0 {
                format!(", {failed} failed")
            } else {
                String::new()
            };
            let provider = open.first().map_or("", |b| b.provider);
            format!(
                "{} ({provider}) {} ({done}/{requests} done{failed}, open {}{next})",
                crate::sanitize::sanitize(model),
                open.len(),
                span(oldest)
            )
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" · batches {}", parts.join(", "))
    }
}

/// What is compared, with `open DIR --compare OTHER`: both runs by name, the judgments
/// found in both and how many flipped.
fn comparing(app: &App) -> String {
    let Some(c) = &app.mirror.compare else {
        return String::new();
    };
    format!(
        " · comparing {} ({} judgment{} in both, {} flipped)",
        super::compare::runs_compared(c),
        c.comparison.pairs.len(),
        if c.comparison.pairs.len() == 1 {
            ""
        } else {
            "s"
        },
        c.comparison.flipped
    )
}

/// What the header says while rounds retried over stored results run: `retrying 2 rounds
/// (1 running, 1 queued)`, then `PAUSED` when paused.
fn retrying(app: &App, paused: bool) -> String {
    let rounds = &app.mirror.rounds;
    let running = rounds.iter().filter(|r| r.is_running()).count();
    let queued = rounds
        .iter()
        .filter(|r| r.queued && !r.is_running())
        .count();
    let n = running + queued;
    if n == 0 {
        return format!(
            "retrying: finishing{}",
            if paused { " · PAUSED" } else { "" }
        );
    }
    format!(
        "retrying {n} round{} ({running} running, {queued} queued){}",
        if n == 1 { "" } else { "s" },
        if paused { " · PAUSED" } else { "" }
    )
}

/// The most characters of a warning the header shows (the log has it whole).
const WARNING_SHOWN: usize = 200;

/// The run's warnings from planning, as the header's third line: one in full, a judge
/// confound before any other, and how many more the log holds: `⚠ judge confound: … (+1
/// more warning; log: g)`.
fn warnings(app: &App) -> Option<String> {
    let all = &app.mirror.warnings;
    let first = all
        .iter()
        .find(|w| w.starts_with("judge confound"))
        .or_else(|| all.first())?;
    let mut shown: String = first.chars().take(WARNING_SHOWN).collect();
    if shown.len() < first.len() {
        shown.push('…');
    }
    let more = match all.len() - 1 {
        0 => " (log: g)".to_string(),
        n => format!(
            " (+{n} more warning{}; log: g)",
            if n == 1 { "" } else { "s" }
        ),
    };
    Some(format!("⚠ {shown}{more}"))
}

/// The header's two lines, and a third with the run's warnings from planning when it has
/// any, wrapping on a narrow terminal. When its two lines do not fit in `width` they drop
/// their words for symbols (`✓3 ▶2 ·37`, `tok`), so the matrix keeps the screen.
pub fn paragraph(app: &App, theme: &Theme, width: u16) -> Paragraph<'static> {
    let full = lines(app, theme, false);
    let fits = full.iter().take(2).all(|l| l.width() <= usize::from(width));
    let lines = if fits { full } else { lines(app, theme, true) };
    Paragraph::new(lines).wrap(Wrap { trim: true })
}

/// The header's lines, in words or (`compact`) in symbols.
fn lines(app: &App, theme: &Theme, compact: bool) -> Vec<Line<'static>> {
    let [done, running, queued, incomplete, review] = app.mirror.counts();
    let state = match (app.mirror.mode, app.mirror.finished, app.mirror.paused) {
        // Rounds retried over stored results (`r`, `R` in `open`).
        (Mode::Browse, _, paused) if app.mirror.engine_running => retrying(app, paused),
        (Mode::Browse, _, _) => "browsing stored results".to_string(),
        (_, Some(status), _) => format!("{status:?}").to_lowercase(),
        (_, None, true) => "PAUSED".to_string(),
        (_, None, false) => "live".to_string(),
    };
    let t = app.mirror.totals();
    let unpriced = app
        .mirror
        .progress
        .unpriced()
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    // Cost from estimated tokens is an estimate of an estimate: said, not hidden.
    let estimated = match (t.is_estimated(), compact) {
        (false, _) => "",
        (true, false) => " (incl. estimated usage)",
        (true, true) => " (incl. est.)",
    };
    // What the providers' prompt caches saved, when they changed the cost.
    let saved = if !compact && t.cache_saved_usd.abs() >= 0.00005 {
        format!(" (cache saved ${:.4})", t.cache_saved_usd)
    } else {
        String::new()
    };
    let cost = match (t.cost_usd > 0.0, unpriced.is_empty()) {
        (false, true) => String::new(),
        (true, true) => format!(" · cost ~${:.4}{estimated}{saved}", t.cost_usd),
        (true, false) => format!(
            " · cost ~${:.4}{estimated}{saved} (partial: no price for {unpriced})",
            t.cost_usd
        ),
        (false, false) => format!(" · cost unknown (no price for {unpriced})"),
    };
    let eta = app
        .mirror
        .eta()
        .map(|d| format!(" · ETA {}", clock(d)))
        .unwrap_or_default();
    // A resumed run says so until it ends: the totals include earlier sessions.
    let resumed = if app.mirror.mode == Mode::Live
        && app.mirror.finished.is_none()
        && app.mirror.resume().stored > 0
    {
        format!(
            " · resumed: {} finished, {} to run",
            app.mirror.resume().finished,
            app.mirror.resume().to_run
        )
    } else {
        String::new()
    };
    let first = Line::from(vec![
        Span::styled(
            "ethics-bowl ",
            Style::new().fg(theme.accent).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            app.mirror.name.clone(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::raw(match app.mirror.mode {
            Mode::Live => format!(
                " · {state} · {}{}{eta}{cost}",
                if compact { "" } else { "elapsed " },
                clock(app.mirror.elapsed())
            ),
            Mode::Browse => format!(" · {state}{cost}"),
        }),
        Span::styled(resumed, Style::new().fg(theme.accent)),
        Span::styled(comparing(app), Style::new().fg(theme.accent)),
        Span::raw(match app.mirror.mode {
            Mode::Live => concurrency(app) + &batches(app),
            Mode::Browse => String::new(),
        }),
        Span::styled(
            match app.mirror.unreadable {
                0 => String::new(),
                n => format!(
                    " · ⚠ {n} unreadable round file{} (log: g)",
                    if n == 1 { "" } else { "s" }
                ),
            },
            Style::new().fg(theme.review),
        ),
    ]);
    // Calls under way (▶) and retries waiting (⟳), as the matrix marks them.
    let live = match app.mirror.in_flight() {
        0 => String::new(),
        n => format!(" ▶{n}"),
    };
    let waiting = match app.mirror.retries_waiting().0 {
        0 => String::new(),
        n => format!(" ⟳{n}"),
    };
    // The counts' words, dropped when compact (the legend names the symbols).
    let word = |w: &'static str| if compact { "" } else { w };
    let second = Line::from(vec![
        Span::styled(
            format!("✓{done}{} ", word(" done")),
            Style::new().fg(theme.complete),
        ),
        Span::styled(
            format!("▶{running}{} ", word(" running")),
            Style::new().fg(theme.running),
        ),
        Span::raw(format!("·{queued}{} ", word(" queued"))),
        Span::styled(
            format!("✗{incomplete}{} ", word(" failed")),
            Style::new().fg(theme.incomplete),
        ),
        Span::styled(
            format!("?{review}{}", word(" needs review")),
            Style::new().fg(theme.review),
        ),
        Span::raw(format!(
            " │ calls {}{live} │ retries {}{waiting}{}",
            t.calls,
            app.mirror.retries(),
            match t.failures {
                0 => String::new(),
                n => format!(" │ failed {n}"),
            },
        )),
        Span::styled(
            match t.truncated {
                0 => String::new(),
                n => format!(" │ ✂{n} cut"),
            },
            Style::new().fg(theme.review),
        ),
        Span::raw(if compact {
            compact_tokens(&t)
        } else {
            tokens(&t)
        }),
    ]);
    let mut lines = vec![first, second];
    if let Some(w) = warnings(app) {
        lines.push(Line::from(Span::styled(w, Style::new().fg(theme.review))));
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use crate::tui::app::App;
    use crate::tui::mirror::Mode;
    use crate::tui::theme::Theme;

    /// The whole screen, `width` columns wide, as text.
    fn screen(app: &App, width: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, 24)).unwrap();
        terminal
            .draw(|f| crate::tui::views::render(f, app, &Theme::no_color()))
            .unwrap();
        let buffer = terminal.backend().buffer().clone();
        buffer
            .content()
            .chunks(usize::from(width))
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_runs_warnings_show_in_the_header_a_judge_confound_first() {
        let mut app = App::new("t", Mode::Live, Instant::now());
        let plain = screen(&app, 100);
        assert!(!plain.contains('⚠'), "{plain}");
        app.mirror.note_warnings(&[
            "dilemma \"x\": no stakeholders; the list is empty".to_string(),
            "judge confound: 6 of 6 ordered pairings are scored by one judge only\x1b[31m"
                .to_string(),
        ]);
        let text = screen(&app, 100);
        let header: String = text.lines().take(5).collect::<Vec<_>>().join(" ");
        assert!(
            header
                .contains("⚠ judge confound: 6 of 6 ordered pairings are scored by one judge only")
                && header.contains("(+1 more warning; log: g)"),
            "{text}"
        );
        // Sanitised, and in the log whole.
        assert!(!text.contains('\x1b'));
        assert_eq!(app.mirror.log.len(), 2);
        assert!(app.mirror.log[0].text.starts_with("warning: dilemma"));
        // A long warning is cut in the header, never in the log.
        let mut app = App::new("t", Mode::Browse, Instant::now());
        app.mirror
            .note_warnings(&[format!("judge balance: {}@tail", "x".repeat(300))]);
        let text = screen(&app, 100);
        assert!(text.contains('…') && !text.contains("@tail"), "{text}");
        assert!(app.mirror.log[0].text.ends_with("@tail"));
    }

    #[test]
    fn answers_the_response_cache_served_are_counted_beside_the_tokens() {
        let mut t = super::UsageTotals {
            input_tokens: 1200,
            output_tokens: 300,
            ..super::UsageTotals::default()
        };
        assert_eq!(super::tokens(&t), " │ tokens 1.2k in/300 out");
        assert_eq!(super::compact_tokens(&t), " │ tok 1.2k/300");
        t.reused = 4;
        assert_eq!(super::tokens(&t), " │ tokens 1.2k in/300 out · 4 reused");
        assert_eq!(super::compact_tokens(&t), " │ tok 1.2k/300 · 4 reused");
    }
}
