//! gpuplan-charts: the app's charts, drawn by plotters into SVG strings.
//!
//! Pure functions of their data (no IO): the caller hands numbers and labels,
//! gets SVG text back, and shows or saves it. Labels are user text (a plan may
//! be named `<script>`); plotters' SVG backend escapes text, and a test checks
//! it, so an SVG is always inert.

use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordusize};
use plotters::prelude::*;

/// Chart size in pixels.
pub const SIZE: (u32, u32) = (720, 360);

/// Palette for stacked parts, colour-blind friendly (Okabe-Ito), then a
/// dark teal for a tenth part (each bill category keeps its own colour).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(120, 120, 120),
    RGBColor(0, 0, 0),
    RGBColor(0, 90, 90),
];

/// A chart failed to draw (only a plotting backend error can cause it).
#[derive(Debug)]
pub struct ChartError(pub String);

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "chart: {}", self.0)
    }
}

impl std::error::Error for ChartError {}

fn err<E: std::fmt::Debug>(e: E) -> ChartError {
    ChartError(format!("{e:?}"))
}

/// Width of the legend column on the right of a chart: a legend there never
/// covers a bar or a line.
const LEGEND_WIDTH: u32 = 190;
/// Pixels of text a legend entry may take (the column less its swatch).
const LEGEND_TEXT_PX: f64 = 156.0;
/// Longest label drawn in a legend or on an axis; the full text is in the
/// table beside every chart.
const LABEL_CHARS: usize = 26;

fn shorten(s: &str) -> String {
    if s.chars().count() <= LABEL_CHARS {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(LABEL_CHARS.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Draws `items` (label, colour, line or box) as a legend column in `area`.
fn legend_column(area: &Area<'_>, items: &[(String, RGBColor, bool)]) -> Result<(), ChartError> {
    // Each label on two lines where one would cut it ("optimizer stat…"),
    // while the column still fits the chart's height; else on one, cut.
    let wrapped: Vec<Vec<String>> = items.iter().map(|(l, ..)| legend_lines(l)).collect();
    let tall = wrapped
        .iter()
        .map(|l| 22usize.saturating_add(LEGEND_LINE_PX.saturating_mul(l.len().saturating_sub(1))))
        .sum::<usize>()
        .saturating_add(48);
    let wrap = tall
        <= usize::try_from(SIZE.1)
            .unwrap_or(usize::MAX)
            .saturating_sub(8);
    let mut y = 48i32;
    for ((label, color, line), lines) in items.iter().zip(&wrapped) {
        if *line {
            area.draw(&PathElement::new(
                vec![(6, y), (22, y)],
                color.stroke_width(2),
            ))
            .map_err(err)?;
        } else {
            area.draw(&Rectangle::new(
                [(8, y.saturating_sub(6)), (20, y.saturating_add(6))],
                color.filled(),
            ))
            .map_err(err)?;
        }
        let shown = if wrap {
            lines.clone()
        } else {
            vec![fit_entry(label)]
        };
        let mut text_y = y.saturating_sub(7);
        for l in &shown {
            area.draw(&Text::new(
                l.clone(),
                (28, text_y),
                ("sans-serif", MIN_TEXT),
            ))
            .map_err(err)?;
            text_y = text_y.saturating_add(i32::try_from(LEGEND_LINE_PX).unwrap_or(15));
        }
        let extra = i32::try_from(LEGEND_LINE_PX.saturating_mul(shown.len().saturating_sub(1)))
            .unwrap_or(0);
        y = y.saturating_add(22).saturating_add(extra);
    }
    Ok(())
}

/// Pixels between the lines of one legend label.
const LEGEND_LINE_PX: usize = 15;

/// A legend label on at most two lines of the legend's width: broken at a
/// space (anywhere in Chinese, which has none), the second cut with "…" if
/// it is still too long; a trailing figure is always shown whole.
fn legend_lines(label: &str) -> Vec<String> {
    if text_px(label) <= LEGEND_TEXT_PX {
        return vec![label.to_owned()];
    }
    let (name, figure) = split_figure(label);
    let mut first = String::new();
    let mut cut = 0;
    for (i, c) in name.char_indices() {
        if text_px(&format!("{first}{c}")) > LEGEND_TEXT_PX {
            break;
        }
        first.push(c);
        cut = i.saturating_add(c.len_utf8());
    }
    // Back to the last space, where the name was cut inside a word.
    let cut_in_word = name
        .get(cut..)
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with(' '));
    if let Some(space) = first.rfind(' ').filter(|s| *s > 0 && cut_in_word) {
        first.truncate(space);
        cut = space.saturating_add(1);
    }
    let rest = name.get(cut..).unwrap_or("").trim_start();
    let second = match figure {
        Some(v) => with_figure(rest, v).trim_start().to_owned(),
        None => fit(rest, LEGEND_TEXT_PX),
    };
    vec![first, second]
}

/// A round upper bound for an axis showing values up to `max`: 0.3 gets 0.4,
/// 7 gets 8, 130 gets 150; never the fixed 0..1 a small bill would sit in.
pub fn nice_ceiling(max: f64) -> f64 {
    if !(max.is_finite() && max > 0.0) {
        return 1.0;
    }
    let m = max;
    let step = 10f64.powf(m.log10().floor());
    for f in [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0] {
        if f * step >= m * 1.08 {
            return f * step;
        }
    }
    10.0 * step
}

/// The SVG with every control character but tab and newline removed: XML
/// forbids them, and a label carrying one (from a plan or pack name) would
/// make the whole chart invalid and its PNG export fail.
fn inert(svg: String) -> String {
    if svg
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
    {
        svg.chars()
            .filter(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\r'))
            .collect()
    } else {
        svg
    }
}

/// Colours for a dark window: the chart is shown as an image, so it cannot
/// inherit the page's colours; a style inside the SVG follows the system's
/// scheme instead (CSS rules outrank the drawing's own colour attributes).
const DARK: &str = "<style>@media (prefers-color-scheme: dark){\
rect[fill=\"#FFFFFF\"]{fill:#1f2125}\
text{fill:#e6e6e6}\
line[stroke=\"#000000\"],polyline[stroke=\"#000000\"]{stroke:#c8c8c8}\
}</style>";

/// The SVG with [`DARK`] inside its root element.
fn themed(svg: String) -> String {
    match svg.find("<svg").and_then(|at| {
        svg[at..]
            .find('>')
            .map(|end| at.saturating_add(end).saturating_add(1))
    }) {
        Some(end) => format!("{}{DARK}{}", &svg[..end], &svg[end..]),
        None => svg,
    }
}

/// An axis tick as a reader writes it: no decimals on a round value
/// (`1000`, not `1000.0`), and no trailing zeros on the others (`0.25`).
pub fn tick(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if (v - v.round()).abs() < 1e-9 {
        return format!("{v:.0}");
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A legend entry: the name and its figure (`value`), which the legend
/// always shows whole ([`legend_lines`]).
fn entry(name: &str, value: &str) -> String {
    format!("{name} {value}")
}

/// A label's trailing figure ("2.00", "35%"), kept whole when the label is
/// cut or wrapped: (the name before it, the figure).
fn split_figure(label: &str) -> (&str, Option<&str>) {
    match label.rsplit_once(' ') {
        Some((name, v))
            if !v.is_empty()
                && v.chars().any(|c| c.is_ascii_digit())
                && v.chars().all(|c| c.is_ascii_digit() || ".,%-+".contains(c)) =>
        {
            (name, Some(v))
        }
        _ => (label, None),
    }
}

/// `label` cut to one legend line, its figure kept whole.
fn fit_entry(label: &str) -> String {
    match split_figure(label) {
        (name, Some(v)) => with_figure(name, v),
        (_, None) => fit(label, LEGEND_TEXT_PX),
    }
}

/// `name` cut to leave room on the line for its figure `v`, then the figure.
fn with_figure(name: &str, v: &str) -> String {
    let room = LEGEND_TEXT_PX - text_px(v) - text_px(" ");
    format!("{} {v}", fit(name, room))
}

/// `s` cut (with an ellipsis) to at most `px` pixels of text.
fn fit(s: &str, px: f64) -> String {
    if text_px(s) <= px {
        return s.to_owned();
    }
    let mut out = String::new();
    for c in s.chars() {
        let next = format!("{out}{c}…");
        if text_px(&next) > px {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// Text sizes as plotters takes them: its SVG writes a font size of 1/1.24
/// of the size given, so 15 is drawn at 12 px, the least a chart shows.
const MIN_TEXT: u32 = 15;
const TITLE_TEXT: u32 = 20;

fn finite(x: f64) -> f64 {
    if x.is_finite() {
        x.max(0.0)
    } else {
        0.0
    }
}

/// Peak memory stacked by component, against the memory of some cards.
/// `parts`: (label, GiB); `cards`: (label, GiB).
pub fn vram_breakdown(
    title: &str,
    parts: &[(String, f64)],
    cards: &[(String, f64)],
) -> Result<String, ChartError> {
    stacked_bar(title, parts, cards, "GiB", (1.6, 2.4))
}

/// Where a run's time goes: one bar stacked by part. `parts`: (label,
/// amount in `unit`, e.g. minutes). The bar sits low so the legend above it
/// never covers its end.
pub fn run_split(title: &str, parts: &[(String, f64)], unit: &str) -> Result<String, ChartError> {
    stacked_bar(title, parts, &[], unit, (0.2, 0.9))
}

/// One horizontal bar stacked by part, with vertical marks (label, value).
fn stacked_bar(
    title: &str,
    parts: &[(String, f64)],
    cards: &[(String, f64)],
    unit: &str,
    bar: (f64, f64),
) -> Result<String, ChartError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(SIZE.0.saturating_sub(LEGEND_WIDTH));
        let total: f64 = parts.iter().map(|(_, v)| finite(*v)).sum();
        let max = nice_ceiling(cards.iter().map(|(_, v)| finite(*v)).fold(total, f64::max));
        let mut items: Vec<(String, RGBColor, bool)> = Vec::new();
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", TITLE_TEXT))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(10)
            .build_cartesian_2d(0.0..max, 0.0..3.0)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_desc(unit)
            .x_label_style(("sans-serif", MIN_TEXT))
            .axis_desc_style(("sans-serif", MIN_TEXT))
            .x_label_formatter(&|v| tick(*v))
            .draw()
            .map_err(err)?;
        let mut x = 0.0;
        for (i, (label, v)) in parts.iter().enumerate() {
            let v = finite(*v);
            if v <= 0.0 {
                continue;
            }
            let color = PALETTE[i.checked_rem(PALETTE.len()).unwrap_or(0)];
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x, bar.0), (x + v, bar.1)],
                    color.filled(),
                )))
                .map_err(err)?;
            items.push((entry(label, &format!("{v:.2}")), color, false));
            x += v;
        }
        card_marks(&mut chart, cards, max)?;
        legend_column(&side, &items)?;
        root.present().map_err(err)?;
    }
    Ok(themed(inert(svg)))
}

/// Text width in pixels at [`MIN_TEXT`], roughly: CJK characters are
/// square, Latin ones a little over half as wide.
fn text_px(s: &str) -> f64 {
    s.chars()
        .map(|c| if c as u32 >= 0x2E80 { 12.5 } else { 7.5 })
        .sum()
}

/// Vertical marks for `cards` (label, GiB) on a stacked bar whose axis ends
/// at `max`: each named below or above the bar, wherever its name does not
/// run into another's; a name with no room on either side is left out (the
/// table beside the chart lists every card).
fn card_marks(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    cards: &[(String, f64)],
    max: f64,
) -> Result<(), ChartError> {
    let mut sorted: Vec<(String, f64)> = cards
        .iter()
        .map(|(l, g)| (shorten(l), finite(*g)))
        .collect();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    let plot_px = f64::from(SIZE.0.saturating_sub(LEGEND_WIDTH).saturating_sub(34));
    let px = |g: f64| g / max.max(1e-9) * plot_px;
    // Where the last name on each level ends, in pixels.
    let mut ends = [f64::NEG_INFINITY; 2];
    for (label, g) in sorted {
        chart
            .draw_series(LineSeries::new(
                vec![(g, 0.4), (g, 2.8)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
        let (start, width) = (px(g), text_px(&label));
        let Some(level) = (0..2).find(|l| ends[*l] + 6.0 <= start) else {
            continue;
        };
        ends[level] = start + width;
        let y = if level == 0 { 0.3 } else { 3.0 };
        chart
            .draw_series(std::iter::once(Text::new(
                label,
                (g, y),
                ("sans-serif", MIN_TEXT),
            )))
            .map_err(err)?;
    }
    Ok(())
}

/// Rows of a bar chart with `len` bars. One bar gets three rows and the
/// middle one: a one-row segmented axis has no height in plotters (every
/// value maps to its start), and two rows left an empty row that read as
/// a missing month.
fn rows(len: usize) -> usize {
    if len <= 1 {
        3
    } else {
        len
    }
}

/// The row bar `i` of `len` is drawn in: the first at the top, as in the
/// lists beside the charts; a lone bar in the middle row.
fn row_of(i: usize, len: usize) -> usize {
    if len <= 1 {
        1
    } else {
        len.saturating_sub(1).saturating_sub(i)
    }
}

/// A chart of horizontal bars, one segment per row.
type RowChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, SegmentedCoord<RangedCoordusize>>>;

/// Horizontal bars' axes: one row per label, named on the left (shortened),
/// the first label at the top, as in the lists beside the charts; the x axis
/// from 0 to `x.0` in unit `x.1`. Row `i` of the labels is drawn at segment
/// `labels.len() - 1 - i`.
fn labelled_rows<'a, 'b>(
    plot: &'a Area<'b>,
    title: &str,
    labels: &[String],
    x: (f64, &str),
    label_width: u32,
) -> Result<RowChart<'a, 'b>, ChartError> {
    let n = rows(labels.len());
    let short: Vec<String> = labels.iter().map(|l| shorten(l)).collect();
    let mut chart = ChartBuilder::on(plot)
        .caption(title, ("sans-serif", TITLE_TEXT))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(label_width)
        .build_cartesian_2d(0.0..x.0, (0..n.saturating_sub(1)).into_segmented())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(x.1)
        .x_label_style(("sans-serif", MIN_TEXT))
        .axis_desc_style(("sans-serif", MIN_TEXT))
        .x_label_formatter(&|v| tick(*v))
        .y_label_style(("sans-serif", MIN_TEXT))
        .y_label_formatter(&|y| match y {
            SegmentValue::CenterOf(row) => (0..labels.len())
                .find(|i| row_of(*i, labels.len()) == *row)
                .and_then(|i| short.get(i))
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Cost per option stacked by category, one horizontal bar per option with
/// its name on the left (names never overlap, however many) and its total
/// at the bar's end. `categories`: (label, palette slot): a category keeps
/// its colour on every chart whichever categories a chart shows.
/// `options`: (label, [CNY per category]).
pub fn cost_breakdown(
    title: &str,
    categories: &[(String, usize)],
    options: &[(String, Vec<f64>)],
    money: &str,
) -> Result<String, ChartError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(SIZE.0.saturating_sub(LEGEND_WIDTH));
        let totals: Vec<f64> = options
            .iter()
            .map(|(_, v)| v.iter().map(|x| finite(*x)).sum::<f64>())
            .collect();
        let max = nice_ceiling(totals.iter().copied().fold(0.0, f64::max) * 1.15);
        let labels: Vec<String> = options.iter().map(|(l, _)| l.clone()).collect();
        let mut chart = labelled_rows(&plot, title, &labels, (max, money), 170)?;
        let mut items: Vec<(String, RGBColor, bool)> = Vec::new();
        for (c, (name, slot)) in categories.iter().enumerate() {
            let color = PALETTE[slot.checked_rem(PALETTE.len()).unwrap_or(0)];
            let bars: Vec<Rectangle<(f64, SegmentValue<usize>)>> = options
                .iter()
                .enumerate()
                .map(|(i, (_, vals))| {
                    let row = row_of(i, options.len());
                    let before: f64 = vals.iter().take(c).map(|x| finite(*x)).sum();
                    let v = vals.get(c).copied().map(finite).unwrap_or(0.0);
                    let mut r = Rectangle::new(
                        [
                            (before, SegmentValue::Exact(row)),
                            (before + v, SegmentValue::Exact(row.saturating_add(1))),
                        ],
                        color.filled(),
                    );
                    r.set_margin(8, 8, 0, 0);
                    r
                })
                .collect();
            chart.draw_series(bars).map_err(err)?;
            items.push((name.clone(), color, false));
        }
        // Each option's total at the end of its bar.
        chart
            .draw_series(totals.iter().enumerate().map(|(i, t)| {
                let row = row_of(i, options.len());
                Text::new(
                    format!(" {t:.2}"),
                    (*t, SegmentValue::CenterOf(row)),
                    ("sans-serif", MIN_TEXT),
                )
            }))
            .map_err(err)?;
        legend_column(&side, &items)?;
        root.present().map_err(err)?;
    }
    Ok(themed(inert(svg)))
}

/// Plan versus actual: for each measure (run time, peak memory, cost) a
/// pair of bars, planned and measured, as a percentage of the plan (the
/// measures have different units, so the plan is the common scale), with a
/// line at 100% and each bar's value written at its end. `rows`: (label,
/// planned, measured, unit); a measure with no plan or no measurement is
/// left out. `names`: the legend's words for planned and measured.
pub fn plan_versus_actual(
    title: &str,
    rows: &[(String, f64, f64, String)],
    names: (&str, &str),
) -> Result<String, ChartError> {
    let rows: Vec<&(String, f64, f64, String)> = rows
        .iter()
        .filter(|(_, p, m, _)| finite(*p) > 0.0 && m.is_finite() && *m >= 0.0)
        .collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(SIZE.0.saturating_sub(LEGEND_WIDTH));
        let pct = |p: f64, m: f64| 100.0 * finite(m) / finite(p).max(1e-12);
        let largest = rows
            .iter()
            .map(|(_, p, m, _)| pct(*p, *m))
            .fold(100.0, f64::max)
            // A run ten times its plan would squash the rest: the axis stops
            // at 400% and the bar's text says the real figure.
            .min(400.0);
        // Room past the longest bar for its figures, clear of the legend.
        let max = nice_ceiling(largest * 1.6);
        let n = self::rows(rows.len());
        let labels: Vec<String> = rows.iter().map(|(l, ..)| l.clone()).collect();
        let mut chart = labelled_rows(&plot, title, &labels, (max, "%"), 120)?;
        let (planned, measured) = (RGBColor(170, 170, 170), PALETTE[0]);
        for (i, (_, p, m, unit)) in rows.iter().enumerate() {
            let row = row_of(i, rows.len());
            let v = pct(*p, *m).min(largest);
            // Two bars share the row: planned in its upper part, measured
            // in its lower part (margins in pixels, from the row's height).
            let row_px = f64::from(SIZE.1.saturating_sub(100)) / n as f64;
            let px = |f: f64| (row_px * f).round() as u32;
            for (x, color, (top, bottom)) in [
                (100.0, planned, (px(0.12), px(0.55))),
                (v, measured, (px(0.5), px(0.12))),
            ] {
                let mut r = Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(row)),
                        (x, SegmentValue::Exact(row.saturating_add(1))),
                    ],
                    color.filled(),
                );
                r.set_margin(top, bottom, 0, 0);
                chart.draw_series(std::iter::once(r)).map_err(err)?;
            }
            // One text per row, past the longer bar: planned → measured.
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(" {p:.2} → {m:.2} {unit}"),
                    (v.max(100.0), SegmentValue::CenterOf(row)),
                    ("sans-serif", MIN_TEXT),
                )))
                .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(
                vec![(100.0, SegmentValue::Exact(0)), (100.0, SegmentValue::Last)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
        legend_column(
            &side,
            &[
                (names.0.to_owned(), planned, false),
                (names.1.to_owned(), measured, false),
            ],
        )?;
        root.present().map_err(err)?;
    }
    Ok(themed(inert(svg)))
}

/// Cumulative spend by day against a budget line.
pub fn cumulative_spend(
    title: &str,
    days: &[(u32, f64)],
    budget: Option<f64>,
    budget_label: &str,
    day_label: &str,
    money: &str,
) -> Result<String, ChartError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(SIZE.0.saturating_sub(LEGEND_WIDTH));
        let last_day = days.iter().map(|(d, _)| *d).max().unwrap_or(1).max(1);
        let spent = days.iter().map(|(_, v)| finite(*v)).fold(0.0, f64::max);
        // The budget line is drawn when it is within reach of the spend;
        // a budget many times the bill would flatten the spend into the
        // axis, so it is then only named in the legend.
        let budget = budget.map(finite);
        let budget_shown = budget.filter(|b| *b <= spent * 3.0 || spent <= 0.0);
        let max = nice_ceiling(budget_shown.unwrap_or(0.0).max(spent));
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", TITLE_TEXT))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(0u32..last_day, 0.0..max)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(day_label)
            .y_desc(money)
            .label_style(("sans-serif", MIN_TEXT))
            .axis_desc_style(("sans-serif", MIN_TEXT))
            .y_label_formatter(&|v| tick(*v))
            .draw()
            .map_err(err)?;
        let mut pts = vec![(0u32, 0.0)];
        pts.extend(days.iter().map(|(d, v)| (*d, finite(*v))));
        chart
            .draw_series(LineSeries::new(pts, PALETTE[0].stroke_width(2)))
            .map_err(err)?;
        let mut items = vec![(entry(title, &format!("{spent:.2}")), PALETTE[0], true)];
        if let Some(b) = budget_shown {
            chart
                .draw_series(LineSeries::new(
                    vec![(0, b), (last_day, b)],
                    PALETTE[5].stroke_width(2),
                ))
                .map_err(err)?;
        }
        if let Some(b) = budget {
            let off = if budget_shown.is_some() { "" } else { " ↑" };
            items.push((
                entry(budget_label, &format!("{b:.0}{off}")),
                PALETTE[5],
                true,
            ));
        }
        legend_column(&side, &items)?;
        root.present().map_err(err)?;
    }
    Ok(themed(inert(svg)))
}

/// Ledger spend by month: (YYYY-MM, CNY); `money` names the currency.
pub fn spend_by_month(
    title: &str,
    months: &[(String, f64)],
    money: &str,
) -> Result<String, ChartError> {
    let categories = vec![(title.to_owned(), 0)];
    let options: Vec<(String, Vec<f64>)> =
        months.iter().map(|(m, v)| (m.clone(), vec![*v])).collect();
    cost_breakdown(title, &categories, &options, money)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_fit_the_values_shown() {
        // (largest value, expected upper bound, why)
        let cases = [
            (0.07, 0.08, "a 7-fen bill gets a 0..0.08 axis, not 0..1"),
            (0.3, 0.4, "0.3 rounds up to 0.4"),
            (7.0, 8.0, "7 rounds up to 8"),
            (130.0, 150.0, "130 rounds up to 150"),
            (1000.0, 1200.0, "exact powers leave headroom"),
            (0.0, 1.0, "nothing at all still draws an axis"),
            (f64::NAN, 1.0, "a broken value still draws an axis"),
        ];
        for (max, want, why) in cases {
            let got = nice_ceiling(max);
            assert!((got - want).abs() < 1e-9, "{why}: got {got}");
            assert!(got >= max || !max.is_finite(), "{why}: the value fits");
        }
    }

    #[test]
    fn a_small_bill_is_not_a_sliver_and_a_far_budget_is_named_not_drawn() {
        let svg = cost_breakdown(
            "cost",
            &[("GPU".to_owned(), 0)],
            &[
                ("AutoDL RTX 3090".to_owned(), vec![0.07]),
                ("Kaggle T4".to_owned(), vec![0.0]),
            ],
            "CNY",
        )
        .expect("draws");
        assert!(!svg.contains(">1.0<"), "no 0..1 axis for a 7-fen bill");
        assert!(svg.contains("0.07"), "the total is written at the bar");
        let spend = cumulative_spend("spend", &[(1, 0.3)], Some(150.0), "budget", "day", "CNY")
            .expect("draws");
        assert!(
            spend.contains("budget 150 ↑"),
            "the far budget is named in the legend"
        );
        assert!(
            !spend.contains(">150<") && !spend.contains(">140<"),
            "and the axis stays near the spend"
        );
        let near = cumulative_spend("spend", &[(1, 100.0)], Some(150.0), "budget", "day", "CNY")
            .expect("draws");
        assert!(
            !near.contains('↑'),
            "a budget within reach is drawn as a line, not named as off the chart"
        );
    }

    #[test]
    fn plan_versus_actual_draws_every_measure_and_skips_the_unplanned() {
        let svg = plan_versus_actual(
            "plan vs actual",
            &[
                ("run".to_owned(), 2.0, 2.8, "h".to_owned()),
                ("memory".to_owned(), 0.0, 9.0, "GiB".to_owned()),
                ("cost".to_owned(), 4.0, 40.0, "CNY".to_owned()),
            ],
            ("planned", "measured"),
        )
        .expect("draws");
        assert!(
            svg.contains("2.00 → 2.80 h"),
            "the run's figures are written"
        );
        assert!(
            svg.contains("4.00 → 40.00 CNY"),
            "a cost ten times the plan is written even though its bar stops at the axis"
        );
        assert!(!svg.contains("GiB"), "a measure with no plan is left out");
        assert!(
            svg.contains("planned") && svg.contains("measured"),
            "the legend"
        );
    }

    #[test]
    fn labels_are_escaped_so_svg_stays_inert() {
        let hostile = "<script>alert(1)</script>".to_owned();
        let charts = [
            vram_breakdown(
                &hostile,
                &[(hostile.clone(), 3.0)],
                &[(hostile.clone(), 24.0)],
            ),
            cost_breakdown(
                &hostile,
                &[(hostile.clone(), 0)],
                &[(hostile.clone(), vec![5.0])],
                &hostile,
            ),
            cumulative_spend(
                &hostile,
                &[(1, 3.0), (2, 6.0)],
                Some(10.0),
                &hostile,
                &hostile,
                &hostile,
            ),
            spend_by_month(&hostile, &[(hostile.clone(), 4.0)], &hostile),
            run_split(&hostile, &[(hostile.clone(), 4.0)], &hostile),
        ];
        for (i, c) in charts.into_iter().enumerate() {
            let svg = c.expect("draws");
            assert!(svg.starts_with("<svg"), "chart {i} is an SVG document");
            assert!(
                !svg.contains("<script"),
                "chart {i}: user text never becomes markup"
            );
            assert!(
                svg.contains("&lt;script&gt;"),
                "chart {i}: it shows as text"
            );
        }
    }

    #[test]
    fn control_characters_in_labels_leave_a_valid_svg() {
        let label = "plan\u{1b}[2J\u{0}\u{7}name".to_owned();
        let svg = cost_breakdown(
            &label,
            &[(label.clone(), 0)],
            &[(label.clone(), vec![5.0])],
            "CNY",
        )
        .expect("draws");
        assert!(
            !svg.chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')),
            "no character XML forbids is left"
        );
        assert!(
            svg.contains("plan[2Jname"),
            "the printable rest of the label is kept"
        );
    }

    #[test]
    fn odd_numbers_still_draw() {
        // (parts, why)
        let cases: [(&[(String, f64)], &str); 3] = [
            (&[], "no data"),
            (&[("a".into(), f64::NAN)], "NaN"),
            (&[("a".into(), -5.0)], "negative"),
        ];
        for (parts, why) in cases {
            assert!(
                vram_breakdown("t", parts, &[]).is_ok(),
                "{why} draws an empty chart rather than failing"
            );
        }
        assert!(
            cumulative_spend("t", &[], None, "b", "day", "CNY").is_ok(),
            "an empty timeline draws"
        );
    }

    #[test]
    fn budget_line_and_bars_are_drawn() {
        let svg = cumulative_spend(
            "spend",
            &[(1, 20.0), (2, 45.0)],
            Some(100.0),
            "budget",
            "day",
            "CNY",
        )
        .expect("draws");
        assert!(
            svg.contains("budget 100"),
            "the budget line is labelled with its amount"
        );
        let svg = cost_breakdown(
            "cost",
            &[("gpu".into(), 0), ("storage".into(), 2)],
            &[("A".into(), vec![10.0, 2.0]), ("B".into(), vec![8.0, 0.5])],
            "CNY",
        )
        .expect("draws");
        assert!(
            svg.matches("<rect").count() >= 4,
            "two options x two categories give at least four bars"
        );
    }

    /// Every `<text>` of an SVG: (x, y, font size, text).
    fn texts(svg: &str) -> Vec<(f64, f64, f64, String)> {
        let attr = |tag: &str, name: &str| -> Option<f64> {
            let at = tag
                .find(&format!(" {name}=\""))?
                .saturating_add(name.len())
                .saturating_add(3);
            tag[at..].split('"').next()?.parse().ok()
        };
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let (tag, rest) = t.split_once('>')?;
                let text = rest.split("</text>").next()?.trim().to_owned();
                Some((
                    attr(tag, "x")?,
                    attr(tag, "y")?,
                    attr(tag, "font-size")?,
                    text,
                ))
            })
            .collect()
    }

    #[test]
    fn text_is_legible_and_round_ticks_carry_no_decimals() {
        let charts = [
            cumulative_spend(
                "累计花费（元）",
                &[(1, 300.0), (9, 900.0)],
                None,
                "预算",
                "天",
                "元",
            ),
            cost_breakdown(
                "费用",
                &[("GPU".into(), 0)],
                &[("AutoDL".into(), vec![900.0])],
                "元",
            ),
            vram_breakdown(
                "显存",
                &[("权重".into(), 30.0)],
                &[("RTX 4090".into(), 24.0)],
            ),
        ];
        for (i, c) in charts.into_iter().enumerate() {
            let svg = c.expect("draws");
            let all = texts(&svg);
            assert!(!all.is_empty(), "chart {i}: its texts are found");
            for (_, _, size, text) in &all {
                assert!(
                    *size >= 12.0,
                    "chart {i}: {text:?} is {size}px, at least 12"
                );
            }
            assert!(
                !all.iter().any(|(.., t)| t.ends_with(".0")),
                "chart {i}: a round tick is written without decimals: {:?}",
                all.iter().map(|(.., t)| t).collect::<Vec<_>>()
            );
        }
        let spend = cumulative_spend("累计花费（元）", &[(1, 300.0)], None, "预算", "天", "元")
            .expect("draws");
        assert!(
            texts(&spend).iter().any(|(.., t)| t == "元"),
            "the Chinese axis says 元, not CNY"
        );
        assert!(!spend.contains("CNY"), "no CNY on a Chinese chart");
    }

    #[test]
    fn tick_texts() {
        // (value, text, why)
        let cases = [
            (1000.0, "1000", "a round value has no decimals"),
            (0.25, "0.25", "a fraction keeps its digits"),
            (0.1 + 0.2, "0.3", "float noise is not shown"),
            (2.5, "2.5", "no trailing zero"),
        ];
        for (v, want, why) in cases {
            assert_eq!(tick(v), want, "{why}");
        }
    }

    #[test]
    fn a_legend_keeps_its_figure_whole() {
        let title = "Cumulative spend (CNY) over the whole plan";
        let svg =
            cumulative_spend(title, &[(1, 1234.5)], None, "budget", "day", "CNY").expect("draws");
        assert!(
            svg.contains("1234.50"),
            "the total is never cut from the legend"
        );
    }

    #[test]
    fn a_single_month_is_drawn_as_a_bar() {
        let svg = spend_by_month("spend", &[("2026-11".into(), 42.0)], "CNY").expect("draws");
        assert!(
            svg.to_ascii_uppercase().contains("FILL=\"#0072B2\""),
            "the one month's bar is drawn"
        );
        assert!(svg.contains("2026-11"), "and named");
        // The bar sits beside its name and no empty row is left for a
        // month that is not there (it was drawn in the top half).
        let number = |tag: &str, attr: &str| -> f64 {
            let at = svg.find(tag).expect("drawn");
            let rest = &svg[at..];
            let v = rest.split(&format!("{attr}=\"")).nth(1).expect("attr");
            v.split('"')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("number")
        };
        let bar = "<rect x=\"182\"";
        let (top, height) = (number(bar, "y"), number(bar, "height"));
        let name_y = {
            let before = &svg[..svg.find("2026-11").expect("named")];
            let tag = &before[before.rfind("<text").expect("a text")..];
            number(tag, "y")
        };
        assert!(
            (top + height / 2.0 - name_y).abs() <= 2.0,
            "the bar's middle ({}) is its name's line ({name_y})",
            top + height / 2.0
        );
        assert!(
            top > 100.0 && top + height < 260.0,
            "the lone bar is in the middle of the plot, not at its top: {top}..{}",
            top + height
        );
    }

    #[test]
    fn card_names_never_overlap() {
        // Cards close together, as at a large batch where the axis is long.
        let cards: Vec<(String, f64)> = [
            ("RTX 3060 12GB", 12.0),
            ("RTX 2080 Ti", 11.0),
            ("T4", 15.0),
            ("V100 16GB (SXM2)", 15.8),
            ("RTX 4090 24 GB", 24.0),
            ("RTX 3090 24 GB", 24.0),
            ("A100 40GB PCIe", 40.0),
            ("A100 80GB SXM4", 80.0),
            ("H200 141GB SXM", 140.4),
        ]
        .iter()
        .map(|(n, g)| ((*n).to_owned(), *g))
        .collect();
        let svg =
            vram_breakdown("memory", &[("activations".into(), 160.0)], &cards).expect("draws");
        let names: Vec<(f64, f64, f64, String)> = texts(&svg)
            .into_iter()
            .filter(|(.., t)| cards.iter().any(|(n, _)| n == t))
            .collect();
        // Nine names cannot all fit beside 11–40 GiB on a 200 GiB axis: the
        // ones with room are named, the table lists every card.
        assert!(names.len() >= 4, "the cards with room are named: {names:?}");
        for (i, a) in names.iter().enumerate() {
            for b in names.iter().skip(i + 1) {
                let same_line = (a.1 - b.1).abs() < a.2;
                let (left, right) = if a.0 <= b.0 { (a, b) } else { (b, a) };
                let overlap = left.0 + text_px(&left.3) > right.0;
                assert!(
                    !(same_line && overlap),
                    "{:?} and {:?} do not overlap",
                    a.3,
                    b.3
                );
            }
        }
    }

    #[test]
    fn charts_follow_a_dark_system_theme() {
        let svg = spend_by_month("spend", &[("2026-11".into(), 42.0)], "CNY").expect("draws");
        assert!(
            svg.contains("prefers-color-scheme: dark"),
            "a dark window gets a dark chart"
        );
        assert!(svg.starts_with("<svg"), "still an SVG document");
    }
}
#[cfg(test)]
mod legend_tests {
    use super::{legend_lines, text_px, LEGEND_TEXT_PX};

    #[test]
    fn a_long_legend_label_wraps_with_its_figure_whole() {
        // (label, lines, why)
        let cases: [(&str, &[&str], &str); 5] = [
            ("weights 2.00", &["weights 2.00"], "short: one line"),
            (
                "optimizer states (Adam moments) 2.00",
                &["optimizer states", "(Adam moments) 2.00"],
                "broken at a space, not cut to \"optimizer stat…\"",
            ),
            (
                "allocator overhead and fragmentation 2.00",
                &["allocator overhead", "and fragmentat… 2.00"],
                "a second line still too long is cut before its figure, never in it",
            ),
            (
                "optimizer states and then some 12.34",
                &["optimizer states and", "then some 12.34"],
                "cut at a space already: no backing up",
            ),
            (
                "Cumulative spend over the plan",
                &["Cumulative spend", "over the plan"],
                "no figure: words wrapped",
            ),
        ];
        for (label, want, why) in cases {
            let got = legend_lines(label);
            assert_eq!(got, want, "{why}");
            for l in &got {
                assert!(text_px(l) <= LEGEND_TEXT_PX, "{why}: each line fits: {l}");
            }
        }
    }
}
