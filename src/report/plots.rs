//! The report's figures (plotters), each written as PNG and SVG. Text uses the embedded DejaVu
//! Sans font, so no system font libraries are needed.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::RunData;
use super::ticks;

/// A drawing backend's failure, in its own words (plotters' error types are generic over the
/// backend, so the message is what is kept).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlotError(pub String);

pub type PlotResult = Result<(), PlotError>;

fn err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError(format!("{e:?}"))
}

static FONT: Once = Once::new();

/// Registers the embedded font once (plotters' ab_glyph backend needs it before any text).
pub fn register_font() {
    FONT.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

/// Renders `draw` to `dir/name.png` and `dir/name.svg`, each written as every file of a run
/// is: to a temporary name, then renamed into place (so a link at either name is replaced,
/// never written through, and a killed report leaves no half figure).
macro_rules! render {
    ($dir:expr, $name:expr, $size:expr, $draw:expr) => {{
        register_font();
        let (width, height): (u32, u32) = $size;
        let mut pixels = vec![0u8; width as usize * height as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut pixels, $size).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            $draw(&root)?;
            root.present().map_err(err)?;
        }
        let png = encode_png(&pixels, width, height)?;
        crate::store::write_atomic(&$dir.join(format!("{}.png", $name)), &png).map_err(err)?;
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, $size).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            $draw(&root)?;
            root.present().map_err(err)?;
        }
        crate::store::write_atomic(&$dir.join(format!("{}.svg", $name)), text.as_bytes()).map_err(err)?;
        Ok::<(), PlotError>(())
    }};
}

/// An RGB image (three bytes a pixel, rows top to bottom) as the bytes of a PNG file.
fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(err)?;
    writer.write_image_data(rgb).map_err(err)?;
    // finish() writes the closing chunk and says if that failed (a drop would not).
    writer.finish().map_err(err)?;
    Ok(bytes)
}

const FONT_NAME: &str = "sans-serif";

/// A range with some margin that is never empty.
fn span(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let w = (hi - lo).max(1e-9);
    let p = w * pad + if hi == lo { 1.0 } else { 0.0 };
    (lo - p, hi + p)
}

/// Elo of every rated checkpoint against games played, training steps and wall time, with the
/// alpha-beta depths as dashed reference lines.
fn elo_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, d: &RunData, axis: usize) -> PlotResult {
    let (label, xs): (&str, Vec<f64>) = match axis {
        0 => ("self-play games", d.checkpoints.iter().map(|c| c.games as f64).collect()),
        1 => ("training steps", d.checkpoints.iter().map(|c| c.steps as f64).collect()),
        _ => ("training time (hours)", d.checkpoints.iter().map(|c| d.elapsed(c.created) / 3600.0).collect()),
    };
    let pts: Vec<(f64, f64, f64)> = d.checkpoints.iter().zip(&xs).filter_map(|(c, &x)| c.rating.map(|r| (x, r.elo, r.ci95))).collect();
    let (x0, x1) = span(xs.iter().copied().chain([0.0]), 0.05);
    let (y0, y1) = span(pts.iter().flat_map(|p| [p.1 - p.2, p.1 + p.2]).chain(d.depths.iter().map(|x| x.1.elo)), 0.1);
    let mut chart = ChartBuilder::on(area)
        .caption(format!("Elo vs {label}"), (FONT_NAME, 18))
        .margin(12)
        .x_label_area_size(38)
        .y_label_area_size(55)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let hours = ticks::real(x0, x1);
    let x_fmt = |x: &f64| if axis == 2 { hours(x) } else { ticks::whole(x) };
    chart
        .configure_mesh()
        .x_desc(label)
        .y_desc(format!("Elo ({} depth 1 = 0)", d.engine))
        .x_labels(ticks::LABELS)
        .y_labels(ticks::LABELS)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&ticks::real(y0, y1))
        .label_style((FONT_NAME, 12))
        .draw()
        .map_err(err)?;
    for (depth, r) in &d.depths {
        let c = Palette99::pick(*depth as usize + 3).mix(0.8);
        chart.draw_series(DashedLineSeries::new(vec![(x0, r.elo), (x1, r.elo)], 6, 4, c.stroke_width(1))).map_err(err)?;
        chart
            .draw_series(std::iter::once(Text::new(format!("{} d{depth}", d.engine), (x0 + (x1 - x0) * 0.01, r.elo), (FONT_NAME, 11).into_font().color(&c))))
            .map_err(err)?;
    }
    chart.draw_series(pts.iter().map(|&(x, y, e)| ErrorBar::new_vertical(x, y - e, y, y + e, BLUE.mix(0.6).stroke_width(1), 6))).map_err(err)?;
    chart.draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), BLUE.stroke_width(2))).map_err(err)?;
    chart.draw_series(pts.iter().map(|&(x, y, _)| Circle::new((x, y), 4, BLUE.filled()))).map_err(err)?;
    Ok(())
}

pub fn elo(dir: &Path, d: &RunData) -> PlotResult {
    render!(dir, "elo", (1500, 480), |root: &DrawingArea<_, Shift>| -> PlotResult {
        let panels = root.split_evenly((1, 3));
        for (i, p) in panels.iter().enumerate() {
            elo_panel(p, d, i)?;
        }
        Ok(())
    })
}

/// Policy and value loss, policy entropy and value accuracy against training steps.
pub fn losses(dir: &Path, d: &RunData) -> PlotResult {
    render!(dir, "losses", (1200, 760), |root: &DrawingArea<_, Shift>| -> PlotResult {
        let panels = root.split_evenly((2, 2));
        let series: [(&str, fn(&super::data::TrainPoint) -> f64, RGBColor); 4] = [
            ("policy loss (cross-entropy, nats)", |t| t.policy_loss, BLUE),
            ("value loss (win/draw/loss cross-entropy)", |t| t.value_loss, RED),
            ("policy entropy (nats)", |t| t.policy_entropy, full_palette::PURPLE),
            ("value accuracy", |t| t.value_accuracy, full_palette::GREEN_800),
        ];
        for (panel, (title, get, colour)) in panels.iter().zip(series) {
            let pts: Vec<(f64, f64)> = d.train.iter().map(|t| (t.step as f64, get(t))).collect();
            let (x0, x1) = span(pts.iter().map(|p| p.0).chain([0.0]), 0.02);
            let (y0, y1) = span(pts.iter().map(|p| p.1), 0.08);
            let mut chart = ChartBuilder::on(panel)
                .caption(title, (FONT_NAME, 17))
                .margin(12)
                .x_label_area_size(35)
                .y_label_area_size(50)
                .build_cartesian_2d(x0..x1, y0..y1)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc("training step")
                .x_labels(ticks::LABELS)
                .y_labels(ticks::LABELS)
                .x_label_formatter(&ticks::whole)
                .y_label_formatter(&ticks::real(y0, y1))
                .label_style((FONT_NAME, 12))
                .draw()
                .map_err(err)?;
            chart.draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2))).map_err(err)?;
        }
        Ok(())
    })
}

/// Each generation's value accuracy (and mean value error) on the endgame tables' positions.
pub fn tablebase(dir: &Path, d: &RunData) -> PlotResult {
    render!(dir, "tablebase", (1000, 420), |root: &DrawingArea<_, Shift>| -> PlotResult {
        let acc: Vec<(f64, f64)> = d.tablebase.iter().map(|t| (t.generation as f64, t.accuracy)).collect();
        let err_pts: Vec<(f64, f64)> = d.tablebase.iter().map(|t| (t.generation as f64, t.value_error)).collect();
        let (x0, x1) = span(acc.iter().map(|p| p.0).chain([0.0]), 0.03);
        let mut chart = ChartBuilder::on(root)
            .caption("Value on tablebase positions", (FONT_NAME, 18))
            .margin(12)
            .x_label_area_size(38)
            .y_label_area_size(50)
            .build_cartesian_2d(x0..x1, 0.0..1.0)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("generation")
            .y_desc("accuracy / mean value error")
            .x_label_formatter(&ticks::whole)
            .y_label_formatter(&|y| format!("{y:.1}"))
            .label_style((FONT_NAME, 12))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(acc.iter().copied(), full_palette::GREEN_800.stroke_width(2)))
            .map_err(err)?
            .label("accuracy")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], full_palette::GREEN_800.stroke_width(2)));
        chart
            .draw_series(LineSeries::new(err_pts.iter().copied(), RED.stroke_width(2)))
            .map_err(err)?
            .label("mean value error")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], RED.stroke_width(2)));
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).label_font((FONT_NAME, 12)).draw().map_err(err)?;
        Ok(())
    })
}

/// Each candidate's Elo against the best network at the time, with its interval, green when
/// promoted and red when rejected.
pub fn gates(dir: &Path, d: &RunData) -> PlotResult {
    let pts: Vec<(f64, f64, f64, bool)> =
        d.gates.iter().filter_map(|g| Some((g.generation as f64, g.elo?, g.elo_ci95.filter(|c| c.is_finite()).unwrap_or(0.0), g.accepted))).collect();
    render!(dir, "gate", (1000, 460), |root: &DrawingArea<_, Shift>| -> PlotResult {
        let (x0, x1) = span(pts.iter().map(|p| p.0), 0.05);
        let (y0, y1) = span(pts.iter().flat_map(|p| [p.1 - p.2, p.1 + p.2]).chain([0.0]), 0.1);
        let mut chart = ChartBuilder::on(root)
            .caption("Gate: candidate vs best (green promoted, red rejected)", (FONT_NAME, 18))
            .margin(12)
            .x_label_area_size(38)
            .y_label_area_size(55)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("candidate generation")
            .y_desc("Elo vs the best network")
            .x_labels(ticks::LABELS)
            .y_labels(ticks::LABELS)
            .x_label_formatter(&ticks::whole)
            .y_label_formatter(&ticks::real(y0, y1))
            .label_style((FONT_NAME, 12))
            .draw()
            .map_err(err)?;
        chart.draw_series(DashedLineSeries::new(vec![(x0, 0.0), (x1, 0.0)], 5, 4, BLACK.mix(0.5).stroke_width(1))).map_err(err)?;
        let col = |ok: bool| if ok { full_palette::GREEN_700 } else { RED };
        chart.draw_series(pts.iter().map(|&(x, y, e, ok)| ErrorBar::new_vertical(x, y - e, y, y + e, col(ok).mix(0.7).stroke_width(1), 6))).map_err(err)?;
        chart.draw_series(pts.iter().map(|&(x, y, _, ok)| Circle::new((x, y), 5, col(ok).filled()))).map_err(err)?;
        Ok(())
    })
}

/// Self-play results by colour per generation (fractions of games).
pub fn colours(dir: &Path, d: &RunData) -> PlotResult {
    let mut per: std::collections::BTreeMap<u64, [u64; 3]> = Default::default();
    for s in &d.selfplay {
        let e = per.entry(s.iteration).or_default();
        e[0] += s.red_wins;
        e[1] += s.draws;
        e[2] += s.blue_wins;
    }
    render!(dir, "colours", (1000, 460), |root: &DrawingArea<_, Shift>| -> PlotResult {
        let n = per.len().max(1) as f64;
        let mut chart = ChartBuilder::on(root)
            .caption("Self-play results by colour (red: Red wins, grey: draws, blue: Blue wins)", (FONT_NAME, 17))
            .margin(12)
            .x_label_area_size(38)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.5..n - 0.5, 0.0..1.0)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("generation")
            .y_desc("fraction of games")
            .x_labels(per.len().clamp(2, 25))
            .x_label_formatter(&|x| {
                if (x - x.round()).abs() > 1e-6 || *x < 0.0 {
                    return String::new();
                }
                per.keys().nth(x.round() as usize).map_or(String::new(), |g| g.to_string())
            })
            .label_style((FONT_NAME, 12))
            .draw()
            .map_err(err)?;
        let colours = [RED.mix(0.8), full_palette::GREY_500.mix(0.8), BLUE.mix(0.8)];
        for (i, counts) in per.values().enumerate() {
            let total = counts.iter().sum::<u64>().max(1) as f64;
            let mut y = 0.0;
            for (k, &c) in counts.iter().enumerate() {
                let h = c as f64 / total;
                chart.draw_series(std::iter::once(Rectangle::new([(i as f64 - 0.4, y), (i as f64 + 0.4, y + h)], colours[k].filled()))).map_err(err)?;
                y += h;
            }
        }
        Ok(())
    })
}

/// How self-play games ended.
pub fn reasons(dir: &Path, d: &RunData) -> PlotResult {
    let mut totals: std::collections::BTreeMap<String, u64> = Default::default();
    for s in &d.selfplay {
        for (k, v) in &s.reasons {
            *totals.entry(k.clone()).or_default() += v;
        }
    }
    let items: Vec<(String, u64)> = totals.into_iter().collect();
    render!(dir, "reasons", (900, 420), |root: &DrawingArea<_, Shift>| -> PlotResult {
        let n = items.len().max(1);
        let max = items.iter().map(|x| x.1).max().unwrap_or(1).max(1) as f64;
        let mut chart = ChartBuilder::on(root)
            .caption("How self-play games ended", (FONT_NAME, 18))
            .margin(12)
            .x_label_area_size(38)
            .y_label_area_size(140)
            .build_cartesian_2d(0.0..max * 1.1, 0.0..n as f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("games")
            .x_label_formatter(&ticks::whole)
            .y_labels(n * 2 + 1)
            .y_label_formatter(&|y| {
                let i = *y - 0.5;
                if (i - i.round()).abs() < 1e-6 && i >= 0.0 { items.get(i.round() as usize).map_or(String::new(), |x| x.0.clone()) } else { String::new() }
            })
            .label_style((FONT_NAME, 12))
            .draw()
            .map_err(err)?;
        for (i, (_, v)) in items.iter().enumerate() {
            chart
                .draw_series(std::iter::once(Rectangle::new([(0.0, i as f64 + 0.15), (*v as f64, i as f64 + 0.85)], full_palette::TEAL.filled())))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// Self-play game lengths.
pub fn lengths(dir: &Path, d: &RunData) -> PlotResult {
    let all: Vec<u64> = d.selfplay.iter().flat_map(|s| s.lengths.iter().copied()).collect();
    let max = all.iter().copied().max().unwrap_or(10).max(10);
    let bin = (max / 30).max(1) * 2;
    render!(dir, "lengths", (900, 420), |root: &DrawingArea<_, Shift>| -> PlotResult {
        let mut counts = vec![0u64; (max / bin + 1) as usize];
        for &l in &all {
            counts[(l / bin) as usize] += 1;
        }
        let top = counts.iter().copied().max().unwrap_or(1).max(1);
        let mut chart = ChartBuilder::on(root)
            .caption(format!("Self-play game lengths ({} games)", all.len()), (FONT_NAME, 18))
            .margin(12)
            .x_label_area_size(38)
            .y_label_area_size(50)
            .build_cartesian_2d(0u64..(max + bin), 0u64..top + top / 10 + 1)
            .map_err(err)?;
        chart.configure_mesh().x_desc("plies").y_desc("games").label_style((FONT_NAME, 12)).draw().map_err(err)?;
        chart
            .draw_series(counts.iter().enumerate().map(|(i, &c)| {
                let x = i as u64 * bin;
                Rectangle::new([(x, 0), (x + bin, c)], full_palette::INDIGO_400.filled())
            }))
            .map_err(err)?;
        Ok(())
    })
}
