//! The Ethics Bowl's sections: model comparison by role, dilemma difficulty, consistency,
//! framework usage, ratings, bias checks and judge agreement (and its judge panels'),
//! each table with its CSV file and charts.

use std::collections::BTreeMap;

use super::{Link, LinkKey, Section, Style, Table, Text, Value};
use crate::analysis::Analysis;
use crate::analysis::bias::Difference;
use crate::analysis::charts;
use crate::analysis::length::ControlledRating;
use crate::analysis::qa::Proportion;
use crate::analysis::ratings::{DRAW_MARGIN, Rating};
use crate::analysis::show;
use crate::analysis::side_adjusted::{SideAdjustedRating, SideFigures};
use crate::analysis::stats::bootstrap::MIN_CLUSTERS;
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::tables::{Cell, FRAMEWORKS, JudgePair, RepeatedAgreement, unread_note};
use crate::domain::Criterion;

/// The sections, when the Ethics Bowl played any round.
pub(super) fn sections(a: &Analysis) -> Vec<Section> {
    if a.ethics_bowl_rounds == 0 {
        return Vec::new();
    }
    let mut out = vec![comparison(a)];
    out.extend(a.adjusted.as_ref().map(super::adjusted::section));
    out.extend([
        difficulty(a),
        consistency(a),
        frameworks(a),
        ratings(a),
        bias(a),
        agreement(a),
    ]);
    out.extend(a.panels.as_ref().map(super::panels::ethics_bowl));
    out
}

fn comparison(a: &Analysis) -> Section {
    let mut s = Section::new("Model comparison by role");
    s.plain(
        "Each criterion's mean and the total's, with a 95% interval and n counting exchanges (a round's \
         debate): the several judges of one exchange are one unit, not several (judgments are in the CSV). \
         These means are raw: they keep whatever judges and side the schedule gave each model (the next \
         section takes them out).",
    );
    if a.self_judgments > 0 {
        s.plain(format!(
            "{} judgments whose judge is one of the round's debaters' models are left out of this table, \
             the dilemma difficulty, the consistency flags, the ratings, the position and length checks \
             and the judge agreement: a judge scoring its own model is reported apart (self-preference, \
             under Bias checks).",
            a.self_judgments
        ));
    }
    let mut head = vec!["model".to_string(), "role".to_string()];
    head.extend(Criterion::ALL.iter().map(|c| c.label().to_string()));
    head.push("total /70".into());
    let mut t = Table::new("Models by role", head);
    let mut tidy = Vec::new();
    for m in &a.model_comparison {
        let mut cells = vec![Value::text(&m.model), Value::text(m.role)];
        cells.extend(
            Criterion::ALL
                .iter()
                .map(|c| Value::Mean(m.criteria[c.key()])),
        );
        cells.push(Value::Mean(m.total));
        let team = if m.role == "presenting" { "a" } else { "b" };
        t.row(
            cells,
            Link::model(&m.model).map(|l| l.and(LinkKey::Role, team)),
        );
        for (criterion, c) in m
            .criteria
            .iter()
            .map(|(k, c)| (k.to_string(), c))
            .chain([("total".to_string(), &m.total)])
        {
            tidy.push(vec![
                Value::text(&m.model),
                Value::text(m.role),
                Value::Text(criterion),
                Value::Mean(*c),
                Value::Count(c.n),
                Value::number(c.low, 3),
                Value::number(c.high, 3),
                Value::Count(c.units),
            ]);
        }
    }
    s.table(t.with_tidy(
        "model_comparison.csv",
        [
            "model",
            "role",
            "criterion",
            "mean",
            "n",
            "low",
            "high",
            "exchanges",
        ],
        tidy,
    ));
    s.chart(
        "criteria_profile.svg",
        charts::profile_chart(&a.model_comparison),
        true,
    );
    s
}

/// How far the hardest-first order is established: how many neighbours' intervals overlap.
fn overlaps(dilemmas: &[crate::analysis::tables::DilemmaDifficulty]) -> String {
    let pairs = dilemmas.len().saturating_sub(1);
    let overlapping = dilemmas
        .windows(2)
        .filter(|w| match (w[0].mean_total.high, w[1].mean_total.low) {
            (Some(h), Some(l)) => h >= l,
            _ => true,
        })
        .count();
    format!(
        "Order: the 95% intervals of {overlapping} of the {pairs} neighbouring pairs overlap (or one has \
         none); where they overlap, the order between the two is not established. n counts exchanges."
    )
}

fn difficulty(a: &Analysis) -> Section {
    let mut s = Section::new("Dilemma difficulty (hardest first)");
    let mut t = Table::new(
        "Dilemmas, hardest first",
        [
            "dilemma",
            "mean total /70",
            "spread between models (sd of model means)",
            "models",
            "separates models",
        ],
    );
    let mut tidy = Vec::new();
    for (i, d) in a.dilemma_difficulty.iter().enumerate() {
        t.row(
            vec![
                Value::text(&d.dilemma_id),
                Value::Mean(d.mean_total),
                Value::Statistic(d.spread, Style::Decimals(2)),
                Value::Count(d.models),
                Value::strong(if d.separates_models { "yes" } else { "" }),
            ],
            Link::dilemma(&d.dilemma_id),
        );
        tidy.push(vec![
            Value::Count(i + 1),
            Value::text(&d.dilemma_id),
            Value::Mean(d.mean_total),
            Value::Count(d.mean_total.n),
            Value::number(d.spread.value, 3),
            Value::Count(d.models),
            Value::Flag(d.separates_models),
            Value::number(d.mean_total.low, 3),
            Value::number(d.mean_total.high, 3),
            Value::Count(d.mean_total.units),
            Value::number(d.spread.low, 3),
            Value::number(d.spread.high, 3),
        ]);
    }
    s.table(t.with_tidy(
        "dilemma_difficulty.csv",
        [
            "rank_hardest_first",
            "dilemma_id",
            "mean_total",
            "n",
            "spread_between_models",
            "models",
            "separates_models",
            "low",
            "high",
            "exchanges",
            "spread_low",
            "spread_high",
        ],
        tidy,
    ));
    s.plain(overlaps(&a.dilemma_difficulty));
    s.plain(
        "The spread's interval resamples the dilemma's exchanges; \"separates models\" marks the top third \
         by the spread's estimate, which is only a lead where those intervals overlap.",
    );
    s.chart(
        "dilemma_difficulty.svg",
        charts::difficulty_chart(&a.dilemma_difficulty),
        true,
    );
    s
}

fn consistency(a: &Analysis) -> Section {
    let mut s = Section::new("Consistency");
    let flagged = a
        .consistency
        .iter()
        .filter(|c| c.flagged_inconsistent)
        .count();
    let silent = a
        .consistency
        .iter()
        .filter(|c| c.flagged_inconsistent && c.flagged_unacknowledged)
        .count();
    let honest = a.consistency.iter().filter(|c| c.acknowledged).count();
    s.paragraph(
        Text::plain(format!(
            "{} consistency tests; {honest} acknowledged an inconsistency or drew a distinction. Two flags: ",
            a.consistency.len()
        ))
        .emphasis("failed to maintain consistency")
        .and(format!(
            " (most of its judges read the test's answer as not carrying the principle over): {flagged}; "
        ))
        .emphasis("failed to acknowledge the inconsistency")
        .and(format!(
            " (most of its judges read it as inconsistent without saying so): {silent}. The table gives each \
             flag as a share of the tests a judge read, and acknowledging as a share of every test, with a \
             Wilson 95% interval: each test is one team's answer in one round, its own unit."
        )),
    );
    if let Some(note) = unread_note(&a.consistency) {
        s.plain(note);
    }
    let mut t = Table::new(
        "Consistency by model",
        [
            "model",
            "tests",
            "mean consistency score",
            "failed to maintain consistency",
            "failed to acknowledge",
            "acknowledged",
        ],
    );
    let mut tidy = Vec::new();
    for m in &a.consistency_by_model {
        // A flag is a share of the tests a judge read; acknowledging, of every test. Each
        // test is one team's answer in one round: its own unit.
        let read = m.tests - m.unread;
        let inconsistent = Proportion::new(m.flagged_inconsistent, read);
        let unacknowledged = Proportion::new(m.flagged_unacknowledged, read);
        let acknowledged = Proportion::new(m.acknowledged, m.tests);
        t.row(
            vec![
                Value::text(&m.model),
                Value::Count(m.tests),
                Value::Mean(m.mean_score),
                Value::Share(inconsistent),
                Value::Share(unacknowledged),
                Value::Share(acknowledged),
            ],
            Link::player(&m.model),
        );
        let mut row = vec![
            Value::text(&m.model),
            Value::Count(m.tests),
            Value::Mean(m.mean_score),
            Value::Count(m.mean_score.n),
            Value::Count(m.flagged_inconsistent),
            Value::Count(m.flagged_unacknowledged),
            Value::Count(m.acknowledged),
            Value::Count(read),
        ];
        for p in [inconsistent, unacknowledged, acknowledged] {
            row.extend([Value::number(p.low, 3), Value::number(p.high, 3)]);
        }
        tidy.push(row);
    }
    s.table(t.with_tidy(
        "consistency_by_model.csv",
        [
            "model",
            "tests",
            "mean_consistency_score",
            "scored_tests",
            "flagged_inconsistent",
            "flagged_unacknowledged",
            "acknowledged",
            "read_tests",
            "flagged_inconsistent_low",
            "flagged_inconsistent_high",
            "flagged_unacknowledged_low",
            "flagged_unacknowledged_high",
            "acknowledged_low",
            "acknowledged_high",
        ],
        tidy,
    ));
    // The flagged tests are listed; every test is in the CSV.
    let mut t = Table::new(
        "Consistency flags",
        [
            "round (transcript: rounds/<id>.json)",
            "model",
            "team",
            "stated principle",
            "consistency score",
            "acknowledged",
        ],
    );
    let mut tidy = Vec::new();
    for c in &a.consistency {
        if c.flagged_inconsistent {
            t.row(
                vec![
                    Value::text(&c.round_id),
                    Value::text(&c.model),
                    Value::text(format!("{:?}", c.team)),
                    c.principle
                        .clone()
                        .map_or_else(|| Value::text("(not labelled)"), Value::Quote),
                    Value::number(c.consistency_score, 3),
                    if c.acknowledged {
                        Value::text("yes")
                    } else {
                        Value::strong("no")
                    },
                ],
                Link::round(&c.round_id),
            );
        }
        tidy.push(vec![
            Value::text(&c.round_id),
            Value::text(&c.model),
            Value::text(format!("{:?}", c.team)),
            Value::Quote(c.principle.clone().unwrap_or_default()),
            Value::Quote(c.conclusion.clone().unwrap_or_default()),
            Value::number(c.consistency_score, 3),
            Value::Flag(c.acknowledged),
            Value::Flag(c.flagged_inconsistent),
            Value::Flag(c.flagged_unacknowledged),
        ]);
    }
    s.table(t.with_tidy(
        "consistency.csv",
        [
            "round_id",
            "model",
            "team",
            "principle",
            "conclusion",
            "consistency_score",
            "acknowledged",
            "flagged_inconsistent",
            "flagged_unacknowledged",
        ],
        tidy,
    ));
    s
}

fn frameworks(a: &Analysis) -> Section {
    let mut s = Section::new("Framework usage");
    s.plain(
        "Each framework's share of a model's keyword hits (in its own phases and in the judges' remarks on it), \
         with a 95% interval resampling the rounds it played, n counting them: the hits within one text are \
         not independent. A keyword count is a coarse reading of a text; the CSV has the hits.",
    );
    let names: Vec<&str> = FRAMEWORKS.iter().map(|(n, _)| *n).collect();
    let mut head = vec!["model"];
    head.extend(&names);
    head.extend(["dominant", "n (keyword hits)"]);
    let mut t = Table::new("Frameworks", head);
    let mut tidy = Vec::new();
    for f in &a.framework_usage {
        let mut cells = vec![Value::text(&f.model)];
        cells.extend(names.iter().map(|n| {
            f.share
                .get(n)
                .map_or(Value::Empty, |s| Value::Statistic(*s, Style::Percent))
        }));
        cells.push(Value::text(f.dominant.unwrap_or("–")));
        cells.push(Value::Count(
            f.hits.values().chain(f.judges_named.values()).sum(),
        ));
        t.row(cells, Link::model(&f.model));
        for name in &names {
            let share = f.share.get(name);
            tidy.push(vec![
                Value::text(&f.model),
                Value::text(*name),
                Value::Count(f.hits.get(name).copied().unwrap_or(0)),
                Value::Count(f.judges_named.get(name).copied().unwrap_or(0)),
                share.map_or(Value::Empty, |s| Value::number(s.value, 4)),
                share.map_or(Value::Empty, |s| Value::number(s.low, 4)),
                share.map_or(Value::Empty, |s| Value::number(s.high, 4)),
                share.map_or(Value::Empty, |s| Value::Count(s.n)),
            ]);
        }
    }
    s.table(t.with_tidy(
        "framework_usage.csv",
        [
            "model",
            "framework",
            "hits_in_own_phases",
            "named_by_judges",
            "share",
            "low",
            "high",
            "rounds",
        ],
        tidy,
    ));
    s
}

/// The refitted ratings shown beside the raw ones (overall only): length-controlled and
/// side-adjusted, each by model.
#[derive(Default)]
struct Refitted<'a> {
    controlled: &'a [ControlledRating],
    side: &'a [SideAdjustedRating],
}

fn rating_table(
    title: &str,
    list: &[Rating],
    link: fn(&str) -> Option<Link>,
    refitted: Refitted<'_>,
) -> Table {
    let Refitted { controlled, side } = refitted;
    let mut columns = vec![title, "rating", "95% interval", "matches"];
    if !controlled.is_empty() {
        columns.push("length-controlled");
    }
    if !side.is_empty() {
        columns.push("side-adjusted");
    }
    let mut t = Table::new(format!("Ratings {title}"), columns);
    let mut tidy = Vec::new();
    for r in list {
        let lc = controlled
            .iter()
            .find(|c| c.model == r.entrant)
            .map(|c| c.rating);
        let sa = side.iter().find(|c| c.model == r.entrant).map(|c| c.rating);
        let mut cells = vec![
            Value::text(&r.entrant),
            Value::number(Some(r.rating), 0),
            Value::text(match (r.low, r.high) {
                (Some(low), Some(high)) => format!("{low:.0} – {high:.0}"),
                _ => format!("too few exchanges (under {MIN_CLUSTERS})"),
            }),
            Value::Count(r.matches),
        ];
        for (shown, refit) in [(!controlled.is_empty(), lc), (!side.is_empty(), sa)] {
            if shown {
                cells.push(refit.map_or(Value::number(None, 0), |c| {
                    Value::Statistic(c, Style::Decimals(0))
                }));
            }
        }
        t.row(cells, link(&r.entrant));
        tidy.push(vec![
            Value::text(&r.entrant),
            Value::number(Some(r.rating), 1),
            Value::number(r.low, 1),
            Value::number(r.high, 1),
            Value::Count(r.matches),
            Value::number(lc.and_then(|c| c.value), 1),
            Value::number(lc.and_then(|c| c.low), 1),
            Value::number(lc.and_then(|c| c.high), 1),
            Value::number(sa.and_then(|c| c.value), 1),
            Value::number(sa.and_then(|c| c.low), 1),
            Value::number(sa.and_then(|c| c.high), 1),
        ]);
    }
    let file = format!("ratings_{}.csv", title.replace(' ', "_"));
    t.with_tidy(
        file,
        [
            "entrant",
            "rating",
            "low",
            "high",
            "matches",
            "length_controlled",
            "length_controlled_low",
            "length_controlled_high",
            "side_adjusted",
            "side_adjusted_low",
            "side_adjusted_high",
        ],
        tidy,
    )
}

fn ratings(a: &Analysis) -> Section {
    let mut s = Section::new("Ratings (Bradley–Terry, Elo scale, 95% bootstrap intervals)");
    s.plain(format!(
        "{} matches (one per usable judgment; a margin under {DRAW_MARGIN} points is a draw), {} draws, \
         from {} exchanges; the intervals resample exchanges, so the judges of one debate count once.",
        a.ratings.matches, a.ratings.draws, a.ratings.exchanges
    ));
    let l = &a.length;
    if l.controlled.is_empty() {
        s.plain(
            "No length-controlled rating: the teams' lengths do not vary, or the matches cannot be fitted.",
        );
    } else {
        s.plain(format!(
            "Length-controlled: the ratings refitted with a term for the length difference between the \
             teams (each team's length standardised within its role, the difference bounded by tanh, as \
             AlpacaEval's length-controlled win rate does) and read at equal length. Odds ratio of winning for a \
             team longer than its opponent by one standard deviation of that difference, against equal length: \
             ×{} (above 1: judges reward length). This fit has no side term; the side-adjusted one below has.",
            Value::Statistic(l.length_odds, Style::Decimals(2)).shown()
        ));
    }
    s.plain(side_statement(&a.side));
    s.table(rating_table(
        "overall",
        &a.ratings.overall,
        Link::player,
        Refitted {
            controlled: &l.controlled,
            side: &a.side.ratings,
        },
    ));
    if let Some(order) = rating_order(&a.ratings.overall) {
        s.plain(order);
    }
    s.table(rating_table(
        "by role",
        &a.ratings.by_role,
        role_entrant,
        Refitted::default(),
    ));
    s.chart(
        "ratings.svg",
        charts::ratings_chart(
            &a.ratings.overall,
            "Ratings (Bradley–Terry, Elo scale) with 95% intervals",
        ),
        true,
    );
    s
}

/// What the side-adjusted column is and the side terms it fitted: Team A's advantage and
/// each judge's preference, in Elo points with their intervals.
fn side_statement(side: &SideFigures) -> String {
    if side.ratings.is_empty() {
        return "No side-adjusted rating: no usable judgment between two different models.".into();
    }
    let judges = if side.judges.is_empty() {
        "one judge, whose preference it is".to_string()
    } else {
        let each: Vec<String> = side
            .judges
            .iter()
            .map(|j| {
                format!(
                    "{} {}",
                    j.judge,
                    Value::Statistic(j.preference, Style::Signed(0)).shown(),
                )
            })
            .collect();
        format!(
            "the mean of each judge's, weighted by its judgments: {}",
            each.join("; ")
        )
    };
    format!(
        "Side-adjusted: refitted with Team A's advantage and each judge's own preference for Team A, \
         P(Team A wins) = σ(θa − θb + h + h_judge), so a side preference falling unevenly on the models \
         no longer moves them. Priors: sd 400 Elo points on a strength (which also shrinks it toward \
         1500, where the raw rating has only one pseudo-draw per pair), 1 logit on h, 0.5 on a judge's \
         offset. Team A's advantage, in Elo points: {} ({judges}).",
        Value::Statistic(side.team_a_advantage, Style::Signed(0)).shown(),
    )
}

/// How far the leaderboard's order is established: which neighbours' intervals overlap
/// (none to say with fewer than two entrants).
fn rating_order(list: &[Rating]) -> Option<String> {
    let pairs = list.len().checked_sub(1).filter(|p| *p > 0)?;
    if list.iter().any(|r| r.low.is_none() || r.high.is_none()) {
        return Some(format!(
            "Order: not established: the ratings rest on fewer than {MIN_CLUSTERS} exchanges, \
             too few for intervals."
        ));
    }
    let overlapping: Vec<String> = list
        .windows(2)
        .filter(|w| match (w[0].low, w[1].high) {
            (Some(low), Some(high)) => low <= high,
            _ => true,
        })
        .map(|w| format!("{} and {}", w[0].entrant, w[1].entrant))
        .collect();
    Some(if overlapping.is_empty() {
        format!("Order: no two neighbours' 95% intervals overlap ({pairs} neighbouring pairs).")
    } else {
        format!(
            "Order: neighbours whose 95% intervals overlap, so read their order with care (overlap is a caution, not a test of their difference): {} ({} of {pairs} neighbouring pairs).",
            overlapping.join("; "),
            overlapping.len()
        )
    })
}

/// The rounds of a role entrant, `model (presenting)`: the model's as Team A or Team B.
fn role_entrant(entrant: &str) -> Option<Link> {
    let (model, role) = entrant.rsplit_once(" (")?;
    let team = match role.strip_suffix(')')? {
        "presenting" => "a",
        "responding" => "b",
        _ => return None,
    };
    Link::model(model).map(|l| l.and(LinkKey::Role, team))
}

fn difference(d: &Difference) -> String {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let n = format!(
        "{}, {}",
        plural(d.exchanges, "exchange"),
        plural(d.n, "judgment")
    );
    match (d.mean, d.low, d.high) {
        (Some(m), Some(l), Some(h)) => format!("{m:+.2} (95% {l:+.2} to {h:+.2}; {n})"),
        (Some(m), _, _) => format!("{m:+.2} ({n})"),
        _ => "–".into(),
    }
}

fn bias(a: &Analysis) -> Section {
    let b = &a.bias;
    let mut s = Section::new("Bias checks");
    let mut items = vec![Text::plain(format!(
        "Position: Team A total minus Team B total: {}.",
        difference(&b.position)
    ))];
    items.extend(a.length.by_role.iter().map(|l| {
        Text::plain(format!(
            "Length, {} team: correlation between its text length and its total: {}; {} judgments.",
            l.role,
            Value::Statistic(l.correlation, Style::Decimals(3)).shown(),
            l.judgments
        ))
    }));
    if b.self_preference.is_empty() {
        items.push(Text::plain(
            "Self-preference: no judge scored its own model or its provider's (rotating judges never do).",
        ));
    }
    items.extend(b.self_preference.iter().map(|p| {
        Text::plain(format!(
            "Self-preference: {} on its {}: {} against the other judges.",
            p.judge,
            p.relation,
            Value::Mean(p.difference).shown()
        ))
    }));
    s.list(items);
    let ceiling: Vec<Text> = b
        .distributions
        .iter()
        .filter(|d| d.ceiling_warning)
        .map(|d| {
            Text::plain(format!(
                "{} on {}, scores at 9–10: {}",
                d.judge,
                d.criterion,
                show::share(&d.ceiling)
            ))
        })
        .collect();
    if !ceiling.is_empty() {
        s.paragraph(Text::default().strong("Ceiling warning").and(format!(
            ": for {} judge–criterion pairs, half the scores or more are 9–10, so the rubric cannot \
             separate models there:",
            ceiling.len()
        )));
        s.list(ceiling);
    }
    s
}

/// The pairs of judges and each judge's offset, with the pairs' CSV file.
fn pairs(
    s: &mut Section,
    what: &str,
    pairs: &[JudgePair],
    offsets: &BTreeMap<String, Cell>,
    file: &str,
    offset_heading: &str,
) {
    let mut t = Table::new(
        format!("Judge pairs ({what})"),
        ["judges", what, "Pearson", "Spearman", "Pearson on totals"],
    );
    // Judges of one exchange link to the rounds both judged. Judges of one configuration
    // judged different repetitions of it: no filter selects exactly those rounds (either
    // judge's, in the configurations both judged), so those rows link nowhere rather than
    // to rounds they do not count.
    let exchanges = what == "shared exchanges";
    for p in pairs {
        let link = Link::judge(&p.a)
            .map(|l| l.and(LinkKey::Judge2, &p.b))
            .filter(|_| exchanges);
        t.row(
            vec![
                Value::text(format!("{} – {}", p.a, p.b)),
                Value::Count(p.shared_exchanges),
                Value::Statistic(p.pearson, Style::Decimals(3)),
                Value::Statistic(p.spearman, Style::Decimals(3)),
                Value::Statistic(p.pearson_totals, Style::Decimals(3)),
            ],
            link,
        );
    }
    let snake = what.replace(' ', "_");
    s.table(t.with_tidy(
        file,
        [
            "judge_a",
            "judge_b",
            "criterion",
            "statistic",
            "value",
            "low",
            "high",
            snake.as_str(),
        ],
        pair_rows(pairs),
    ));
    let mut t = Table::new(format!("Judge offsets ({what})"), ["judge", offset_heading]);
    for (j, c) in offsets {
        // Across configurations a judge's offset counts only the configurations another
        // judge judged too: no filter says so (see the pairs above).
        let link = Link::judge(j).filter(|_| exchanges);
        t.row(vec![Value::text(j), Value::Mean(*c)], link);
    }
    s.table(t);
}

/// A pair of judges as CSV rows, one per statistic: over every score (Pearson's and
/// Spearman's), over totals, and per criterion, each with its interval.
fn pair_rows(pairs: &[JudgePair]) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for p in pairs {
        let row = |criterion: &str, statistic: &str, s: &Statistic| {
            vec![
                Value::text(&p.a),
                Value::text(&p.b),
                Value::text(criterion),
                Value::text(statistic),
                Value::number(s.value, 3),
                Value::number(s.low, 3),
                Value::number(s.high, 3),
                Value::Count(p.shared_exchanges),
            ]
        };
        rows.push(row("all", "pearson", &p.pearson));
        rows.push(row("all", "spearman", &p.spearman));
        rows.push(row("total", "pearson", &p.pearson_totals));
        for (c, r) in &p.per_criterion {
            rows.push(row(c, "pearson", r));
        }
    }
    rows
}

fn agreement(a: &Analysis) -> Section {
    let ag = &a.judge_agreement;
    let mut s = Section::new("Judge agreement");
    if ag.shared_exchanges == 0 {
        s.paragraph(
            Text::plain("No exchange was scored by two judges or more (use ")
                .code("judging = \"all\"")
                .and("), so agreement on the same exchange cannot be measured."),
        );
    } else {
        s.plain(format!(
            "{} exchanges scored by several judges; Krippendorff's alpha (interval): {}. Every \
             coefficient's 95% interval resamples exchanges (the scores of one exchange move \
             together), and its n counts them; an offset is a judge's score minus the mean of \
             the other judges' scores of the same thing.",
            ag.shared_exchanges,
            Value::Statistic(ag.alpha, Style::Decimals(3)).shown()
        ));
    }
    // The CSV is written even when no pair shares an exchange (header only).
    pairs(
        &mut s,
        "shared exchanges",
        &ag.pairs,
        &ag.offsets,
        "judge_agreement.csv",
        "mean offset from the others (+ generous, − harsh)",
    );
    s.chart(
        "judge_agreement.svg",
        charts::agreement_chart(ag),
        ag.shared_exchanges > 0,
    );
    repetitions(&mut s, &ag.across_repetitions);
    s
}

fn repetitions(s: &mut Section, r: &RepeatedAgreement) {
    s.heading("Across repetitions");
    if r.configurations == 0 {
        s.paragraph(
            Text::plain(
                "No configuration (dilemma, Team A, Team B) was judged by different judges in different \
                 rounds; with ",
            )
            .code("judging = \"rotate\"")
            .and(", set ")
            .code("repetitions")
            .and(" above 1 and give more judges than a round excludes."),
        );
    } else {
        s.plain(format!(
            "{} configurations (dilemma, Team A, Team B) were judged by different judges in different rounds \
             (one judge per round); a judge's score for a configuration is its mean over the rounds it judged \
             there. Krippendorff's alpha (interval): {}; intervals resample configurations.",
            r.configurations,
            Value::Statistic(r.alpha, Style::Decimals(3)).shown()
        ));
    }
    pairs(
        s,
        "shared configurations",
        &r.pairs,
        &r.offsets,
        "judge_agreement_across_repetitions.csv",
        "mean offset from the others on the same configurations (+ generous, − harsh)",
    );
}
