//! The report of a short run, through the binary: every axis labels its ticks apart (no
//! `0.00, 0.00, 0.00` on an hours axis of a few seconds), never as `-0`, and the config it
//! shows has no float noise; its PNGs are the size drawn.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// A label of a figure: where it is anchored and its text.
struct Label {
    x: f64,
    y: f64,
    anchor: String,
    text: String,
}

/// The `<text>` elements of an SVG that plotters wrote.
fn labels(svg: &str) -> Vec<Label> {
    let attr = |tag: &str, name: &str| tag.split(&format!(" {name}=\"")).nth(1).and_then(|r| r.split('"').next()).unwrap_or("").to_string();
    svg.split("<text ")
        .skip(1)
        .filter_map(|part| {
            let (attrs, rest) = part.split_once('>')?;
            let tag = format!(" {attrs}");
            let tag = tag.as_str();
            let text = rest.split("</text>").next()?.trim().to_string();
            Some(Label { x: attr(tag, "x").parse().ok()?, y: attr(tag, "y").parse().ok()?, anchor: attr(tag, "text-anchor"), text })
        })
        .collect()
}

/// Numeric tick labels that repeat on one axis of one panel, and any `-0`. An axis is the
/// labels at one right edge within a row of panels (a y axis) or on one line within a column
/// (an x axis); `grid` is the panels (columns, rows) and `size` the figure's (width, height).
fn axis_problems(svg: &str, grid: (f64, f64), size: (f64, f64)) -> Vec<String> {
    let (column, row) = (size.0 / grid.0, size.1 / grid.1);
    let mut axes: HashMap<String, Vec<String>> = HashMap::new();
    let mut problems = Vec::new();
    for l in labels(svg) {
        let Ok(v) = l.text.parse::<f64>() else { continue };
        if v == 0.0 && l.text.starts_with('-') {
            problems.push(format!("'{}' at ({}, {})", l.text, l.x, l.y));
        }
        let key = match l.anchor.as_str() {
            "end" => format!("y axis at x {} in row {}", l.x, (l.y / row).floor()),
            _ => format!("x axis at y {} in column {}", l.y, (l.x / column).floor()),
        };
        axes.entry(key).or_default().push(l.text);
    }
    for (axis, mut texts) in axes {
        let n = texts.len();
        texts.sort();
        texts.dedup();
        if texts.len() != n {
            problems.push(format!("{axis} repeats labels: {texts:?} from {n}"));
        }
    }
    problems
}

#[test]
fn a_short_runs_report_labels_every_axis_apart_and_shows_its_config_plainly() {
    let dir = std::env::temp_dir().join(format!("jz-report-axes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = dir.join("run");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    let bin = env!("CARGO_BIN_EXE_junglezero");
    let o = Command::new(bin).args(["train", "--config", config.to_str().unwrap(), "--run", run.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(bin).args(["report", "--run", run.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // (figure, its panels (columns, rows), its size): as src/report/plots.rs draws them.
    for (figure, grid, size) in [
        ("elo", (3.0, 1.0), (1500.0, 480.0)),
        ("losses", (2.0, 2.0), (1200.0, 760.0)),
        ("gate", (1.0, 1.0), (1000.0, 460.0)),
        ("reasons", (1.0, 1.0), (900.0, 420.0)),
    ] {
        let svg = std::fs::read_to_string(run.join("report").join(format!("{figure}.svg"))).unwrap();
        assert!(labels(&svg).iter().filter(|l| l.text.parse::<f64>().is_ok()).count() >= 4, "{figure}.svg has no tick labels");
        let problems = axis_problems(&svg, grid, size);
        assert!(problems.is_empty(), "{figure}.svg: {problems:#?}");
    }

    // The run's config and the report's copy of it: single-precision settings as written
    // (0.4, not 0.4000000059604645).
    for text in [std::fs::read_to_string(run.join("config.toml")).unwrap(), std::fs::read_to_string(run.join("report/report.md")).unwrap()] {
        assert!(text.contains("dirichlet_alpha = 0.4\n"), "{text}");
        let noisy: Vec<&str> = text.split(|c: char| !(c.is_ascii_digit() || c == '.')).filter(|w| w.contains('.') && w.len() > 12).collect();
        assert!(noisy.is_empty(), "float noise: {noisy:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_axis_check_finds_repeats_and_minus_zero() {
    let svg = r#"<text x="50" y="10" text-anchor="end">1</text><text x="50" y="20" text-anchor="end">1</text>
<text x="50" y="30" text-anchor="end">-0</text><text x="100" y="300" text-anchor="middle">0.00</text>
<text x="200" y="300" text-anchor="middle">0.00</text><text x="700" y="300" text-anchor="middle">0.00</text>"#;
    let problems = axis_problems(svg, (2.0, 1.0), (1000.0, 400.0));
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems.iter().any(|p| p.contains("'-0'")));
}

/// The figures' PNGs (plotters draws into a pixel buffer, the png crate encodes it) are RGB
/// images of the size drawn, with the plot on them; and no environment arms the binary's fault
/// points: `FAILPOINTS` naming the store's write changes nothing, so the report is written.
#[test]
fn the_reports_pngs_are_the_drawn_size_and_no_environment_arms_a_fault_point() {
    let dir = std::env::temp_dir().join(format!("jz-report-png-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/sample-cpu-1h");
    for file in ["config.toml", "metrics.jsonl"] {
        std::fs::copy(shipped.join(file), run.join(file)).unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["report", "--run", run.to_str().unwrap()])
        .env("FAILPOINTS", "store::write=return(enospc)")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (figure, width, height) in [("elo", 1500, 480), ("losses", 1200, 760), ("reasons", 900, 420)] {
        let bytes = std::fs::read(run.join("report").join(format!("{figure}.png"))).unwrap();
        assert!(bytes.ends_with(b"IEND\xaeB`\x82"), "{figure}.png does not end with its IEND chunk");
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.width, info.height, info.color_type, info.bit_depth), (width, height, png::ColorType::Rgb, png::BitDepth::Eight), "{figure}.png");
        let inked = pixels.chunks(3).filter(|p| p != &[255, 255, 255]).count();
        let share = inked as f64 / (width * height) as f64;
        assert!((0.01..0.6).contains(&share), "{figure}.png: {share:.3} of its pixels are not white");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
