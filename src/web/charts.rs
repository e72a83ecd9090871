//! Charts drawn as SVG on the server: no script, readable in light and dark
//! scheme (colours come from CSS classes in `charts.css`, except a category's
//! own colour), and each with a text alternative: a `<title>`, a `<desc>`
//! summing it up in words, and a visually hidden table of the numbers.

use crate::domain::locale::Locale;
use crate::i18n::format;
use maud::{html, Markup};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use std::sync::atomic::{AtomicU32, Ordering};

/// One bar of the category chart.
pub struct CategorySlice {
    pub label: String,
    pub amount: Decimal,
    /// `#rrggbb`; anything else is drawn in a neutral grey.
    pub color: String,
}

/// One month of the income-and-expenses chart.
pub struct MonthBars {
    pub label: String,
    pub income: Decimal,
    pub expenses: Decimal,
}

/// A unique id prefix per chart on a page, for `aria-labelledby`.
fn chart_id(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A user-chosen colour, or grey when it is not `#rrggbb`.
fn safe_color(c: &str) -> &str {
    let ok = c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|x| x.is_ascii_hexdigit());
    if ok {
        c
    } else {
        "#94a3b8"
    }
}

/// SVG coordinates are not money: a float is fine here.
fn f(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

/// Horizontal bars, one per category, largest first and full width.
///
/// Drawn twice, and `charts.css` shows one: names beside their bars, the
/// drawing scaled to the chart's width (`.labels-beside`), and, where that
/// scale would shrink its text below a readable size, names above bars as
/// wide as the chart, its text at its own size (`.labels-above`: no
/// `viewBox`, so a unit is a CSS pixel and the bars' lengths are
/// percentages of the width). Each has the title and description.
pub fn spending_by_category(
    title: &str,
    slices: &[CategorySlice],
    currency: &str,
    locale: Locale,
) -> Markup {
    let t = locale.texts();
    let mut rows: Vec<&CategorySlice> =
        slices.iter().filter(|s| s.amount > Decimal::ZERO).collect();
    rows.sort_by(|a, b| b.amount.cmp(&a.amount).then_with(|| a.label.cmp(&b.label)));
    let id = chart_id("cat");
    let max = rows.first().map(|s| f(s.amount)).unwrap_or(0.0);
    let share = |s: &CategorySlice| if max > 0.0 { f(s.amount) / max } else { 0.0 };
    let (label_w, bar_w, amount_w, row_h) = (140.0, 190.0, 105.0, 28.0);
    let width = label_w + bar_w + amount_w;
    let height = row_h * rows.len() as f64 + 6.0;
    // Names above bars: a line of text (name and amount), the bar under it.
    let (above_h, above_bar) = (42.0, 12.0);
    let desc = rows
        .iter()
        .map(|s| format!("{} {}", s.label, format::money(s.amount, currency, locale)))
        .collect::<Vec<_>>()
        .join(", ");
    let alt = |suffix: &str| {
        html! {
            title id={ (id) "-t" (suffix) } { (title) }
            desc id={ (id) "-d" (suffix) } { (desc) }
        }
    };
    html! {
        figure.chart.categories {
            figcaption { h2 { (title) } }
            @if rows.is_empty() {
                p.muted { (t.empty_list) }
            } @else {
                svg.labels-beside role="img" aria-labelledby={ (id) "-t " (id) "-d" } viewBox={ "0 0 " (width) " " (height) }
                    width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg" {
                    (alt(""))
                    @for (i, s) in rows.iter().enumerate() {
                        @let y = 3.0 + row_h * i as f64;
                        @let w = if max > 0.0 { (share(s) * bar_w).max(2.0) } else { 0.0 };
                        text.chart-label x="0" y=(y + row_h * 0.62) { (truncate(&s.label, 18)) }
                        rect.chart-track x=(label_w) y=(y + 5.0) width=(bar_w) height=(row_h - 12.0) rx="4" {}
                        rect x=(label_w) y=(y + 5.0) width=(format!("{w:.1}")) height=(row_h - 12.0) rx="4" fill=(safe_color(&s.color)) {}
                        text.chart-value x=(width) y=(y + row_h * 0.62) text-anchor="end" { (format::money(s.amount, currency, locale)) }
                    }
                }
                svg.labels-above role="img" aria-labelledby={ (id) "-t-above " (id) "-d-above" }
                    width="100%" height=(above_h * rows.len() as f64) xmlns="http://www.w3.org/2000/svg" {
                    (alt("-above"))
                    @for (i, s) in rows.iter().enumerate() {
                        @let y = above_h * i as f64;
                        @let w = if max > 0.0 { (share(s) * 100.0).max(1.0) } else { 0.0 };
                        text.chart-label x="0" y=(y + 16.0) { (truncate(&s.label, 18)) }
                        text.chart-value x="100%" y=(y + 16.0) text-anchor="end" { (format::money(s.amount, currency, locale)) }
                        rect.chart-track x="0" y=(y + 23.0) width="100%" height=(above_bar) rx="4" {}
                        rect x="0" y=(y + 23.0) width=(format!("{w:.1}%")) height=(above_bar) rx="4" fill=(safe_color(&s.color)) {}
                    }
                }
                (values_table(t.chart_values, &[t.category, t.amount], rows.iter().map(|s| vec![s.label.clone(), format::money(s.amount, currency, locale)])))
            }
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

/// The chart's numbers as a table that opens under it, for keyboards,
/// screen readers and anyone who wants the exact values.
fn values_table(summary: &str, head: &[&str], rows: impl Iterator<Item = Vec<String>>) -> Markup {
    html! {
        // The values behind the drawing, a click or a key press away (the
        // bars also name theirs on hover).
        details.chart-values {
            summary { (summary) }
            table.records {
                thead { tr { @for h in head { th scope="col" { (h) } } } }
                tbody { @for row in rows { tr { @for (i, cell) in row.iter().enumerate() {
                    @if i == 0 { th scope="row" { (cell) } } @else { td { (cell) } }
                } } } }
            }
        }
    }
}

/// A gridline's value with its currency and no cents, so an axis says
/// what it counts: "€3,000" (en), "3.000 €" (de).
fn axis_money(v: f64, currency: &str, locale: Locale) -> String {
    format::money_whole(
        Decimal::from_f64_retain(v).unwrap_or_default(),
        currency,
        locale,
    )
}

/// A round step for about four gridlines up to `max`: 1, 2 or 5 times a power of ten.
pub fn nice_step(max: f64) -> f64 {
    if max <= 0.0 {
        return 1.0;
    }
    let raw = max / 4.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let norm = raw / magnitude;
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// The width of a value axis's labels and of a whole drawing with one, in
/// the units of its `viewBox`; `charts.css` sets `.chart-plot`'s columns in
/// this ratio (72 : 568).
const AXIS_W: f64 = 72.0;
const DRAWN_W: f64 = 640.0;

/// A drawing with a value axis: the axis's labels (`ticks`, each a value
/// and its height) in a column of their own, and the drawing (`plot`, from
/// `x = AXIS_W` on, gridlines included) with its title and description in
/// a box beside it. On a phone only that box scrolls sideways
/// (`charts.css`), so the values stay in view at the newest month.
fn with_value_axis(
    id: &str,
    title: &str,
    desc: &str,
    height: f64,
    ticks: &[(f64, String)],
    plot: Markup,
) -> Markup {
    html! {
        div.chart-plot {
            svg.chart-y-axis aria-hidden="true" viewBox={ "0 0 " (AXIS_W) " " (height) }
                width="100%" xmlns="http://www.w3.org/2000/svg" {
                @for (y, label) in ticks {
                    text.chart-axis x=(AXIS_W - 6.0) y=(format!("{:.1}", y + 4.0)) text-anchor="end" { (label) }
                }
            }
            // A box that scrolls takes the keyboard focus (app.js), so the
            // drawing can be scrolled without a mouse; it is named by the
            // chart's title.
            div.chart-scroll role="group" aria-labelledby={ (id) "-t" } {
                svg role="img" aria-labelledby={ (id) "-t " (id) "-d" }
                    viewBox={ (AXIS_W) " 0 " (DRAWN_W - AXIS_W) " " (height) }
                    width="100%" xmlns="http://www.w3.org/2000/svg" {
                    title id={ (id) "-t" } { (title) }
                    desc id={ (id) "-d" } { (desc) }
                    (plot)
                }
            }
        }
    }
}

/// Income and expenses side by side for each month, with gridlines.
pub fn income_vs_expenses(
    title: &str,
    months: &[MonthBars],
    currency: &str,
    locale: Locale,
) -> Markup {
    let t = locale.texts();
    let id = chart_id("iv");
    let max = months
        .iter()
        .flat_map(|m| [f(m.income), f(m.expenses)])
        .fold(0.0f64, f64::max);
    let step = nice_step(max);
    let top = if max > 0.0 {
        (max / step).ceil() * step
    } else {
        step * 4.0
    };
    let ticks: Vec<f64> = (0..=((top / step).round() as i64))
        .map(|i| i as f64 * step)
        .collect();
    let (left, width, plot_h, bottom) = (AXIS_W, DRAWN_W, 200.0, 28.0);
    let plot_w = width - left;
    let n = months.len().max(1) as f64;
    let group = plot_w / n;
    let bar = (group * 0.34).min(22.0);
    let y = |v: f64| 8.0 + plot_h - v / top * plot_h;
    let axis: Vec<(f64, String)> = ticks
        .iter()
        .map(|v| (y(*v), axis_money(*v, currency, locale)))
        .collect();
    let desc = months
        .iter()
        .map(|m| {
            format!(
                "{}: {} {}, {} {}",
                m.label,
                t.income,
                format::money(m.income, currency, locale),
                t.expenses,
                format::money(m.expenses, currency, locale)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    if max <= 0.0 {
        // Nothing in or out in any month: no scale made up from nothing.
        return html! {
            figure.chart {
                figcaption { h2 { (title) } }
                p.muted { (t.empty_list) }
            }
        };
    }
    html! {
        figure.chart {
            figcaption {
                h2 { (title) }
                span.legend {
                    span.key.income aria-hidden="true" {} (t.income)
                    span.key.expenses aria-hidden="true" {} (t.expenses)
                }
            }
            (with_value_axis(&id, title, &desc, 8.0 + plot_h + bottom, &axis, html! {
                defs {
                    pattern id={ (id) "-hatch" } width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)" {
                        rect.chart-expenses width="6" height="6" {}
                        line.chart-hatch x1="0" y1="0" x2="0" y2="6" {}
                    }
                }
                @for v in &ticks {
                    line.chart-grid x1=(left) x2=(width) y1=(y(*v)) y2=(y(*v)) {}
                }
                @for (i, m) in months.iter().enumerate() {
                    @let x = left + group * i as f64 + group / 2.0;
                    // Each bar names its month, series and amount on hover.
                    rect.chart-income x=(format!("{:.1}", x - bar - 1.0)) y=(format!("{:.1}", y(f(m.income))))
                        width=(format!("{bar:.1}")) height=(format!("{:.1}", plot_h + 8.0 - y(f(m.income)))) rx="2" {
                        title { (m.label) ", " (t.income) ": " (format::money(m.income, currency, locale)) }
                    }
                    // Expenses are hatched as well as coloured, so the two
                    // series differ without telling colours apart.
                    rect.chart-expenses-bar x=(format!("{:.1}", x + 1.0)) y=(format!("{:.1}", y(f(m.expenses))))
                        width=(format!("{bar:.1}")) height=(format!("{:.1}", plot_h + 8.0 - y(f(m.expenses)))) rx="2"
                        fill={ "url(#" (id) "-hatch)" } {
                        title { (m.label) ", " (t.expenses) ": " (format::money(m.expenses, currency, locale)) }
                    }
                    text.chart-axis x=(x) y=(8.0 + plot_h + 18.0) text-anchor="middle" { (m.label) }
                }
                line.chart-baseline x1=(left) x2=(width) y1=(y(0.0)) y2=(y(0.0)) {}
            }))
            (values_table(t.chart_values, &[t.month, t.income, t.expenses], months.iter().map(|m| vec![
                m.label.clone(),
                format::money(m.income, currency, locale),
                format::money(m.expenses, currency, locale),
            ])))
        }
    }
}

/// A line of a balance over the months, with gridlines; the lowest point is marked.
pub fn balance_line(
    title: &str,
    points: &[(String, Decimal)],
    currency: &str,
    locale: Locale,
) -> Markup {
    let labels: Vec<String> = points.iter().map(|(l, _)| l.clone()).collect();
    let line = Line::new(
        locale.texts().projected_balance,
        points.iter().map(|(_, v)| *v).collect(),
    )
    .lowest();
    balance_lines(title, &labels, &[line], currency, locale)
}

/// How a line of [`balance_lines`] is drawn: they differ in their stroke,
/// not only in their colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    Solid,
    Dashed,
    Dotted,
}

impl Stroke {
    fn class(self) -> &'static str {
        match self {
            Stroke::Solid => "solid",
            Stroke::Dashed => "dashed",
            Stroke::Dotted => "dotted",
        }
    }
}

/// One line of [`balance_lines`]: a value per label from the label `from` on.
pub struct Line<'a> {
    pub label: &'a str,
    pub values: Vec<Decimal>,
    /// The index of the label of the first value (a forecast starts at today).
    pub from: usize,
    pub stroke: Stroke,
    /// Whether the line's lowest point is marked.
    pub mark_lowest: bool,
}

impl<'a> Line<'a> {
    /// A solid line from the first label on.
    pub fn new(label: &'a str, values: Vec<Decimal>) -> Line<'a> {
        Line {
            label,
            values,
            from: 0,
            stroke: Stroke::Solid,
            mark_lowest: false,
        }
    }

    /// Starting at the label with index `from`.
    pub fn from(mut self, from: usize) -> Self {
        self.from = from;
        self
    }

    pub fn stroke(mut self, stroke: Stroke) -> Self {
        self.stroke = stroke;
        self
    }

    /// With its lowest point marked.
    pub fn lowest(mut self) -> Self {
        self.mark_lowest = true;
        self
    }

    /// The value at label `i`, if the line has one there.
    fn at(&self, i: usize) -> Option<Decimal> {
        i.checked_sub(self.from)
            .and_then(|k| self.values.get(k))
            .copied()
    }
}

/// Balances over the months, one line each (each with its own stroke,
/// named in a legend when there are several), with gridlines; the lowest
/// point of a line that asks for it is marked.
pub fn balance_lines(
    title: &str,
    labels: &[String],
    lines: &[Line<'_>],
    currency: &str,
    locale: Locale,
) -> Markup {
    let t = locale.texts();
    let id = chart_id("bal");
    let all = lines.iter().flat_map(|l| l.values.iter().map(|v| f(*v)));
    let hi = all.clone().fold(f64::MIN, f64::max).max(0.0);
    let lo = all.fold(f64::MAX, f64::min).min(0.0);
    let step = nice_step(hi - lo);
    let top = (hi / step).ceil() * step;
    let bottom_v = (lo / step).floor() * step;
    let span = (top - bottom_v).max(step);
    let (left, width, plot_h) = (AXIS_W, DRAWN_W, 180.0);
    let n = labels.len().max(2) as f64 - 1.0;
    let x = |i: usize| left + (width - left - 10.0) * i as f64 / n;
    let y = |v: f64| 8.0 + plot_h - (v - bottom_v) / span * plot_h;
    let path = |l: &Line<'_>| -> String {
        l.values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", x(l.from + i), y(f(*v))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let lowest: Vec<(usize, f64)> = lines
        .iter()
        .filter(|l| l.mark_lowest)
        .filter_map(|l| {
            l.values
                .iter()
                .enumerate()
                .min_by_key(|(_, v)| **v)
                .map(|(i, v)| (l.from + i, f(*v)))
        })
        .collect();
    let ticks: Vec<f64> = (0..=((span / step).round() as i64))
        .map(|i| bottom_v + i as f64 * step)
        .collect();
    let desc = lines
        .iter()
        .map(|l| {
            let points = labels
                .iter()
                .skip(l.from)
                .zip(&l.values)
                .map(|(label, v)| format!("{label}: {}", format::money(*v, currency, locale)))
                .collect::<Vec<_>>()
                .join(", ");
            if lines.len() > 1 {
                format!("{}: {points}", l.label)
            } else {
                points
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    let axis: Vec<(f64, String)> = ticks
        .iter()
        .map(|v| (y(*v), axis_money(*v, currency, locale)))
        .collect();
    let mut head = vec![t.month];
    head.extend(lines.iter().map(|l| l.label));
    html! {
        figure.chart {
            figcaption {
                h2 { (title) }
                @if lines.len() > 1 || !lowest.is_empty() {
                    span.legend {
                        @if lines.len() > 1 {
                            @for l in lines {
                                span { span class={ "key line " (l.stroke.class()) } aria-hidden="true" {} (l.label) }
                            }
                        }
                        // The red dot says what it marks.
                        @if !lowest.is_empty() {
                            span { span.key.low aria-hidden="true" {} (t.lowest_point) }
                        }
                    }
                }
            }
            @if labels.is_empty() {
                p.muted { (t.empty_list) }
            } @else {
                (with_value_axis(&id, title, &desc, 8.0 + plot_h + 28.0, &axis, html! {
                    @for v in &ticks {
                        line.chart-grid x1=(left) x2=(width) y1=(y(*v)) y2=(y(*v)) {}
                    }
                    @for l in lines.iter().rev() {
                        polyline class={ "chart-line " (l.stroke.class()) } points=(path(l)) fill="none" {
                            title { (l.label) }
                        }
                    }
                    @for (i, label) in labels.iter().enumerate() {
                        @if labels.len() <= 13 || i % 2 == 0 {
                            text.chart-axis x=(format!("{:.1}", x(i))) y=(8.0 + plot_h + 18.0) text-anchor="middle" { (label) }
                        }
                    }
                    @for (i, v) in &lowest {
                        circle.chart-low cx=(format!("{:.1}", x(*i))) cy=(format!("{:.1}", y(*v))) r="5" {
                            title { (t.lowest_point) ", " (labels.get(*i).map(String::as_str).unwrap_or("")) ": " (format::money(Decimal::from_f64_retain(*v).unwrap_or_default().round_dp(2), currency, locale)) }
                        }
                    }
                }))
                (values_table(t.chart_values, &head, labels.iter().enumerate().map(|(i, label)| {
                    let mut row = vec![label.clone()];
                    row.extend(lines.iter().map(|l| l.at(i).map(|v| format::money(v, currency, locale)).unwrap_or_default()));
                    row
                })))
            }
        }
    }
}

/// One month of the net-worth chart, in the base currency.
pub struct WorthMonth {
    /// Under its bar ("Jan", or "Jan 26" over more than a year).
    pub label: String,
    /// In the text alternative and the table ("January 2026").
    pub name: String,
    pub checking: Decimal,
    pub savings: Decimal,
    pub etf: Decimal,
    pub total: Decimal,
}

/// Net worth month by month: a bar per month stacked by account type
/// (checking plain, savings hatched, ETF dotted: they differ without
/// telling colours apart), what is owed below the zero line, and the total
/// marked across each bar; the numbers in a table under it.
///
/// `summary` says it in words under the title: net worth now and its
/// change over the months drawn.
pub fn net_worth(
    title: &str,
    summary: Option<&str>,
    months: &[WorthMonth],
    currency: &str,
    locale: Locale,
) -> Markup {
    let t = locale.texts();
    let id = chart_id("nw");
    let kinds = ["checking", "savings", "etf"];
    let parts = |m: &WorthMonth| [m.checking, m.savings, m.etf];
    // How far a month's bar reaches above zero (what is owned) and below
    // (what is owed).
    let reach = |m: &WorthMonth, above: bool| {
        parts(m)
            .iter()
            .filter(|v| v.is_sign_positive() == above)
            .map(|v| f(*v))
            .sum::<f64>()
    };
    let hi = months.iter().map(|m| reach(m, true)).fold(0.0f64, f64::max);
    let lo = months
        .iter()
        .map(|m| reach(m, false))
        .fold(0.0f64, f64::min);
    let step = nice_step(hi - lo);
    let top = if hi > 0.0 {
        (hi / step).ceil() * step
    } else {
        0.0
    };
    let bottom_v = (lo / step).floor() * step;
    let span = (top - bottom_v).max(step);
    let (left, width, plot_h, bottom) = (AXIS_W, DRAWN_W, 200.0, 28.0);
    let plot_w = width - left;
    let n = months.len().max(1);
    let group = plot_w / n as f64;
    let bar = (group * 0.62).min(28.0);
    let y = |v: f64| 8.0 + plot_h - (v - bottom_v) / span * plot_h;
    // Every label fits up to a year and a bit; beyond, every k-th.
    let every = n.div_ceil(13);
    let ticks: Vec<f64> = (0..=((span / step).round() as i64))
        .map(|i| bottom_v + i as f64 * step)
        .collect();
    let axis: Vec<(f64, String)> = ticks
        .iter()
        .map(|v| (y(*v), axis_money(*v, currency, locale)))
        .collect();
    let money = |v: Decimal| format::money(v, currency, locale);
    let desc = months
        .iter()
        .map(|m| {
            format!(
                "{}: {} ({} {}, {} {}, {} {})",
                m.name,
                money(m.total),
                locale.account_type("checking"),
                money(m.checking),
                locale.account_type("savings"),
                money(m.savings),
                locale.account_type("etf"),
                money(m.etf)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    html! {
        figure.chart.net-worth {
            figcaption {
                h2 { (title) }
                span.legend {
                    @for kind in kinds {
                        span { span class={ "key worth-" (kind) } aria-hidden="true" {} (locale.account_type(kind)) }
                    }
                    span { span.key.worth-total aria-hidden="true" {} (t.total) }
                }
                @if let Some(summary) = summary {
                    p.chart-summary { (summary) }
                }
            }
            @if months.is_empty() {
                p.muted { (t.empty_list) }
            } @else {
                (with_value_axis(&id, title, &desc, 8.0 + plot_h + bottom, &axis, html! {
                    defs {
                        pattern id={ (id) "-savings" } width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)" {
                            rect.chart-worth-savings width="6" height="6" {}
                            line.chart-hatch x1="0" y1="0" x2="0" y2="6" {}
                        }
                        pattern id={ (id) "-etf" } width="6" height="6" patternUnits="userSpaceOnUse" {
                            rect.chart-worth-etf width="6" height="6" {}
                            circle.chart-dot cx="3" cy="3" r="1.3" {}
                        }
                    }
                    @for v in &ticks {
                        line.chart-grid x1=(left) x2=(width) y1=(format!("{:.1}", y(*v))) y2=(format!("{:.1}", y(*v))) {}
                    }
                    @for (i, m) in months.iter().enumerate() {
                        @let x = left + group * i as f64 + group / 2.0;
                        @let (mut above, mut below) = (0.0f64, 0.0f64);
                        @for (kind, value) in kinds.iter().zip(parts(m)) {
                            @if !value.is_zero() {
                                @let v = f(value);
                                @let (from, to) = if v > 0.0 { above += v; (above - v, above) } else { below += v; (below, below - v) };
                                // The pattern's fill, not a class's: CSS would win over it.
                                rect class={ "chart-part part-" (kind) } x=(format!("{:.1}", x - bar / 2.0)) y=(format!("{:.1}", y(to)))
                                    width=(format!("{bar:.1}")) height=(format!("{:.1}", (y(from) - y(to)).max(0.5)))
                                    fill=[(*kind != "checking").then(|| format!("url(#{id}-{kind})"))] {
                                    title { (m.name) ", " (locale.account_type(kind)) ": " (money(value)) }
                                }
                            }
                        }
                        line.chart-total x1=(format!("{:.1}", x - bar / 2.0 - 3.0)) x2=(format!("{:.1}", x + bar / 2.0 + 3.0))
                            y1=(format!("{:.1}", y(f(m.total)))) y2=(format!("{:.1}", y(f(m.total)))) {
                            title { (m.name) ", " (t.total) ": " (money(m.total)) }
                        }
                        @if i % every == (n - 1) % every {
                            text.chart-axis x=(format!("{x:.1}")) y=(8.0 + plot_h + 18.0) text-anchor="middle" { (m.label) }
                        }
                    }
                    line.chart-baseline x1=(left) x2=(width) y1=(format!("{:.1}", y(0.0))) y2=(format!("{:.1}", y(0.0))) {}
                }))
                (values_table(t.chart_values,
                    &[t.month, locale.account_type("checking"), locale.account_type("savings"), locale.account_type("etf"), t.total],
                    months.iter().map(|m| vec![m.name.clone(), money(m.checking), money(m.savings), money(m.etf), money(m.total)])))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    fn slices() -> Vec<CategorySlice> {
        vec![
            CategorySlice {
                label: "Food".into(),
                amount: dec("100"),
                color: "#16a34a".into(),
            },
            CategorySlice {
                label: "Rent <b>".into(),
                amount: dec("400"),
                color: "red; x".into(),
            },
        ]
    }

    #[test]
    fn the_largest_category_is_first_and_full_width() {
        let svg = spending_by_category("Spending", &slices(), "EUR", Locale::En).into_string();
        let rent = svg.find("Rent &lt;b&gt;").unwrap();
        let food = svg.find(">Food<").unwrap();
        assert!(rent < food, "sorted largest first");
        assert!(svg.contains("width=\"190.0\""), "largest is full width");
        assert!(svg.contains("width=\"47.5\""), "100 of 400 is a quarter");
        assert!(
            svg.contains("fill=\"#94a3b8\""),
            "a bad colour falls back to grey"
        );
        assert!(!svg.contains("<b>"), "labels are escaped");
    }

    #[test]
    fn the_category_chart_is_also_drawn_with_its_names_above_bars_as_wide_as_the_chart() {
        let svg = spending_by_category("Spending", &slices(), "EUR", Locale::En).into_string();
        let above = &svg[svg
            .find("<svg class=\"labels-above\"")
            .expect("a second drawing")..];
        let above = &above[..above.find("</svg>").unwrap()];
        assert!(!above.contains("viewBox"), "drawn at its own size: {above}");
        assert!(above.contains("width=\"100.0%\"") && above.contains("width=\"25.0%\""));
        assert!(above.contains("x=\"100%\" y=\"16\" text-anchor=\"end\">€400.00<"));
        // Its own title and description, named by its own ids.
        let labelled = &above[above.find("aria-labelledby=\"").unwrap() + 17..];
        for id in labelled[..labelled.find('"').unwrap()].split(' ') {
            assert!(above.contains(&format!("id=\"{id}\"")), "{id}: {above}");
        }
        assert_eq!(svg.matches("<title").count(), 2);
        assert!(svg.contains("<svg class=\"labels-beside\" role=\"img\""));
    }

    #[test]
    fn charts_have_text_alternatives_and_no_inline_style() {
        let svg = spending_by_category("Spending", &slices(), "EUR", Locale::En).into_string();
        assert!(svg.contains("role=\"img\"") && svg.contains("<title") && svg.contains("<desc"));
        assert!(svg.contains("Food €100.00") && svg.contains("€400.00"));
        assert!(svg.contains("<details class=\"chart-values\"><summary>Show the values</summary><table class=\"records\">"));
        let months = vec![
            MonthBars {
                label: "Jan".into(),
                income: dec("3000"),
                expenses: dec("2750.5"),
            },
            MonthBars {
                label: "Feb".into(),
                income: dec("0"),
                expenses: dec("0"),
            },
        ];
        let bars = income_vs_expenses("Income", &months, "EUR", Locale::De).into_string();
        for out in [&svg, &bars] {
            assert!(
                !out.contains("style=") && !out.contains("NaN") && !out.contains("inf"),
                "{out}"
            );
        }
        assert!(bars.contains("Jan: Einnahmen 3.000,00\u{a0}€, Ausgaben 2.750,50\u{a0}€"));
        assert!(
            bars.contains(">3.000\u{a0}€<"),
            "round ticks with their unit: {bars}"
        );
        let en = income_vs_expenses("Income", &months, "EUR", Locale::En).into_string();
        assert!(en.contains(">€3,000<"), "{en}");
    }

    #[test]
    fn empty_and_zero_data_do_not_break() {
        let none = spending_by_category("Spending", &[], "EUR", Locale::En).into_string();
        assert!(!none.contains("<svg") && none.contains("Nothing here yet."));
        let zeros = vec![MonthBars {
            label: "Jan".into(),
            income: dec("0"),
            expenses: dec("0"),
        }];
        let out = income_vs_expenses("x", &zeros, "EUR", Locale::En).into_string();
        // No 0–4 scale made up from nothing: the chart says it is empty.
        assert!(!out.contains("NaN") && !out.contains("<svg") && out.contains("Nothing here yet."));
    }

    #[test]
    fn the_balance_line_marks_its_lowest_point() {
        let points = vec![
            ("Jan".to_string(), dec("500")),
            ("Feb".to_string(), dec("-200")),
            ("Mar".to_string(), dec("300")),
        ];
        let svg = balance_line("Balance", &points, "EUR", Locale::En).into_string();
        assert!(svg.contains("<polyline") && svg.contains("chart-low"));
        assert!(svg.contains("Feb: -€200.00"));
        assert!(!svg.contains("NaN") && !svg.contains("style="));
        // The dot has its legend entry and names its point.
        assert!(
            svg.contains("class=\"key low\"") && svg.contains("Lowest month-end</span>"),
            "{svg}"
        );
        assert!(
            svg.contains("<title>Lowest month-end, Feb: -€200.00</title>"),
            "{svg}"
        );
        // The axis says what it counts.
        assert!(svg.contains(">-€200<") || svg.contains(">€0<"), "{svg}");
    }

    #[test]
    fn the_net_worth_chart_stacks_by_type_and_names_every_value() {
        let months = vec![
            WorthMonth {
                label: "Jan".into(),
                name: "January 2026".into(),
                checking: dec("-200"),
                savings: dec("1000"),
                etf: dec("500"),
                total: dec("1300"),
            },
            WorthMonth {
                label: "Feb".into(),
                name: "February 2026".into(),
                checking: dec("300"),
                savings: dec("0"),
                etf: dec("0"),
                total: dec("300"),
            },
        ];
        let svg = net_worth(
            "Net worth",
            Some("€1,600.00, +€100 in 2 months"),
            &months,
            "EUR",
            Locale::En,
        )
        .into_string();
        assert!(svg.contains("role=\"img\"") && svg.contains("<desc"));
        assert!(
            svg.contains(
                "January 2026: €1,300.00 (Checking -€200.00, Savings €1,000.00, ETF €500.00)"
            ),
            "{svg}"
        );
        // Savings hatched, ETF dotted: told apart without colour.
        assert!(svg.contains("fill=\"url(#nw-") && svg.contains("-savings)\""));
        assert!(svg.contains("chart-dot"));
        // A zero part draws nothing; what is owed is drawn below zero.
        assert_eq!(svg.matches("class=\"chart-part ").count(), 4, "{svg}");
        assert!(svg.contains("<th scope=\"row\">February 2026</th><td>€300.00</td>"));
        assert!(!svg.contains("NaN") && !svg.contains("inf") && !svg.contains("style="));
        assert!(svg.contains("<p class=\"chart-summary\">€1,600.00, +€100 in 2 months</p>"));
        // The value axis in a column of its own, the drawing in the box
        // that scrolls on a phone.
        let axis = &svg[svg
            .find("<svg class=\"chart-y-axis\" aria-hidden=\"true\"")
            .unwrap()..];
        let (axis, rest) = axis.split_at(axis.find("</svg>").unwrap());
        assert!(
            axis.contains(">€1,500<") && axis.contains(">-€500<"),
            "{axis}"
        );
        let drawing = &rest[rest.find("<div class=\"chart-scroll\"").unwrap()..];
        assert!(drawing.contains("viewBox=\"72 0 568 236\""), "{drawing}");
        assert!(!drawing.contains(">€1,500<"));
        let none = net_worth("Net worth", None, &[], "EUR", Locale::En).into_string();
        assert!(!none.contains("<svg"));
    }

    #[test]
    fn a_line_may_start_later_and_lines_differ_in_their_stroke() {
        let labels: Vec<String> = ["Jan", "Feb", "Today", "Apr"].map(String::from).to_vec();
        let past = Line::new("Past", vec![dec("10"), dec("20"), dec("30")]);
        let ahead = Line::new("Ahead", vec![dec("30"), dec("5")])
            .from(2)
            .stroke(Stroke::Dashed)
            .lowest();
        let svg = balance_lines("Giro", &labels, &[past, ahead], "EUR", Locale::En).into_string();
        assert!(
            svg.contains("class=\"chart-line solid\"")
                && svg.contains("class=\"chart-line dashed\"")
        );
        assert!(svg.contains("Ahead: Today: €30.00, Apr: €5.00"), "{svg}");
        // The table leaves the months before the forecast empty.
        assert!(
            svg.contains("<th scope=\"row\">Jan</th><td>€10.00</td><td></td>"),
            "{svg}"
        );
        assert_eq!(svg.matches("chart-low").count(), 1);
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(3000.0), 1000.0);
        assert_eq!(nice_step(4100.0), 2000.0);
        assert_eq!(nice_step(180.0), 50.0);
        assert_eq!(nice_step(0.0), 1.0);
    }
}
