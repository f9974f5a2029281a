//! gpuplan-charts: the app's charts, drawn by plotters into SVG strings.
//!
//! Pure functions of their data (no IO): the caller hands numbers and labels,
//! gets SVG text back, and shows or saves it. Labels are user text (a plan may
//! be named `<script>`); plotters' SVG backend escapes text, and a test checks
//! it, so an SVG is always inert.

use plotters::prelude::*;

/// Chart size in pixels.
pub const SIZE: (u32, u32) = (720, 360);

/// Palette for stacked parts, colour-blind friendly (Okabe-Ito).
const PALETTE: [RGBColor; 9] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(120, 120, 120),
    RGBColor(0, 0, 0),
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

/// The legend box every chart uses.
fn legend<'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    position: SeriesLabelPosition,
) -> Result<(), ChartError> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(err)
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
        let total: f64 = parts.iter().map(|(_, v)| finite(*v)).sum();
        let max = cards
            .iter()
            .map(|(_, v)| finite(*v))
            .fold(total, f64::max)
            .max(1.0)
            * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
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
                .map_err(err)?
                .label(format!("{label} {v:.2}"))
                .legend(move |(lx, ly)| {
                    Rectangle::new(
                        [
                            (lx, ly.saturating_sub(5)),
                            (lx.saturating_add(10), ly.saturating_add(5)),
                        ],
                        color.filled(),
                    )
                });
            x += v;
        }
        for (label, gib) in cards {
            let g = finite(*gib);
            chart
                .draw_series(LineSeries::new(
                    vec![(g, 0.4), (g, 2.8)],
                    BLACK.stroke_width(1),
                ))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (g, 0.3),
                    ("sans-serif", 12),
                )))
                .map_err(err)?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(inert(svg))
}

/// Cost per option stacked by category. `options`: (label, [(category, CNY)]).
pub fn cost_breakdown(
    title: &str,
    categories: &[String],
    options: &[(String, Vec<f64>)],
) -> Result<String, ChartError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let max = options
            .iter()
            .map(|(_, v)| v.iter().map(|x| finite(*x)).sum::<f64>())
            .fold(1.0, f64::max)
            * 1.15;
        let n = options.len().max(1);
        let labels: Vec<String> = options.iter().map(|(l, _)| l.clone()).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d((0..n).into_segmented(), 0.0..max)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_desc("CNY")
            .x_label_formatter(&|x| match x {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()
            .map_err(err)?;
        for (c, name) in categories.iter().enumerate() {
            let color = PALETTE[c.checked_rem(PALETTE.len()).unwrap_or(0)];
            let bars: Vec<Rectangle<(SegmentValue<usize>, f64)>> = options
                .iter()
                .enumerate()
                .map(|(i, (_, vals))| {
                    let below: f64 = vals.iter().take(c).map(|x| finite(*x)).sum();
                    let v = vals.get(c).copied().map(finite).unwrap_or(0.0);
                    let mut r = Rectangle::new(
                        [
                            (SegmentValue::Exact(i), below),
                            (SegmentValue::Exact(i.saturating_add(1)), below + v),
                        ],
                        color.filled(),
                    );
                    r.set_margin(0, 0, 12, 12);
                    r
                })
                .collect();
            chart
                .draw_series(bars)
                .map_err(err)?
                .label(name.clone())
                .legend(move |(lx, ly)| {
                    Rectangle::new(
                        [
                            (lx, ly.saturating_sub(5)),
                            (lx.saturating_add(10), ly.saturating_add(5)),
                        ],
                        color.filled(),
                    )
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(inert(svg))
}

/// Cumulative spend by day against a budget line.
pub fn cumulative_spend(
    title: &str,
    days: &[(u32, f64)],
    budget: Option<f64>,
    budget_label: &str,
    day_label: &str,
) -> Result<String, ChartError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let last_day = days.iter().map(|(d, _)| *d).max().unwrap_or(1).max(1);
        let max = days
            .iter()
            .map(|(_, v)| finite(*v))
            .fold(budget.map(finite).unwrap_or(0.0), f64::max)
            .max(1.0)
            * 1.15;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(0u32..last_day, 0.0..max)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(day_label)
            .y_desc("CNY")
            .draw()
            .map_err(err)?;
        let mut pts = vec![(0u32, 0.0)];
        pts.extend(days.iter().map(|(d, v)| (*d, finite(*v))));
        chart
            .draw_series(LineSeries::new(pts, PALETTE[0].stroke_width(2)))
            .map_err(err)?
            .label(title.to_owned())
            .legend(|(lx, ly)| {
                PathElement::new(
                    vec![(lx, ly), (lx.saturating_add(12), ly)],
                    PALETTE[0].stroke_width(2),
                )
            });
        if let Some(b) = budget {
            let b = finite(b);
            chart
                .draw_series(LineSeries::new(
                    vec![(0, b), (last_day, b)],
                    PALETTE[5].stroke_width(2),
                ))
                .map_err(err)?
                .label(format!("{budget_label} {b:.0}"))
                .legend(|(lx, ly)| {
                    PathElement::new(
                        vec![(lx, ly), (lx.saturating_add(12), ly)],
                        PALETTE[5].stroke_width(2),
                    )
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(err)?;
    }
    Ok(inert(svg))
}

/// Ledger spend by month: (YYYY-MM, CNY).
pub fn spend_by_month(title: &str, months: &[(String, f64)]) -> Result<String, ChartError> {
    let categories = vec![title.to_owned()];
    let options: Vec<(String, Vec<f64>)> =
        months.iter().map(|(m, v)| (m.clone(), vec![*v])).collect();
    cost_breakdown(title, &categories, &options)
}

#[cfg(test)]
mod tests {
    use super::*;

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
                std::slice::from_ref(&hostile),
                &[(hostile.clone(), vec![5.0])],
            ),
            cumulative_spend(
                &hostile,
                &[(1, 3.0), (2, 6.0)],
                Some(10.0),
                &hostile,
                &hostile,
            ),
            spend_by_month(&hostile, &[(hostile.clone(), 4.0)]),
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
            std::slice::from_ref(&label),
            &[(label.clone(), vec![5.0])],
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
            cumulative_spend("t", &[], None, "b", "day").is_ok(),
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
        )
        .expect("draws");
        assert!(
            svg.contains("budget 100"),
            "the budget line is labelled with its amount"
        );
        let svg = cost_breakdown(
            "cost",
            &["gpu".into(), "storage".into()],
            &[("A".into(), vec![10.0, 2.0]), ("B".into(), vec![8.0, 0.5])],
        )
        .expect("draws");
        assert!(
            svg.matches("<rect").count() >= 4,
            "two options x two categories give at least four bars"
        );
    }
}
