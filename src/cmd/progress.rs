//! Progress bars (indicatif) shared by the long-running commands. Bars draw on stderr and hide
//! themselves when stderr is not a terminal.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `len` items with a running message.
pub fn bar(len: u64, unit: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    let template = format!("{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit} (eta {{eta}}) {{msg}}");
    pb.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    pb.enable_steady_tick(Duration::from_millis(250));
    pb
}

/// Per-second rate.
pub fn per_sec(n: u64, secs: f64) -> f64 {
    if secs > 0.0 { n as f64 / secs } else { 0.0 }
}
