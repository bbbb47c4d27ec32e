//! Axis labels chosen from the data's range: as many decimals as the ticks' step needs (so a
//! short run's axis never repeats a label), counts labelled at whole numbers only, and never
//! a "-0".

use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;

/// Tick labels per axis (plotters' default, set explicitly so that the labels' decimals are
/// worked out for the ticks plotters draws).
pub const LABELS: usize = 10;

/// The decimals that tell apart the ticks plotters puts on `lo..hi` when asked for at most
/// `LABELS` of them (its steps are 1, 2 or 5 times a power of ten).
pub fn decimals(lo: f64, hi: f64) -> usize {
    let ticks = RangedCoordf64::from(lo..hi).key_points(LABELS);
    let step = ticks.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
    if !step.is_finite() || step <= 0.0 {
        return 0;
    }
    // A step of 0.05 needs 2 decimals, 0.2 one, 5 none (the small slack absorbs rounding).
    (-step.log10() - 1e-9).ceil().clamp(0.0, 12.0) as usize
}

/// `v` with `decimals` decimals; a value that rounds to zero is "0" (no "-0").
pub fn label(v: f64, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

/// A label for a tick of a real-valued axis over `lo..hi`.
pub fn real(lo: f64, hi: f64) -> impl Fn(&f64) -> String {
    let d = decimals(lo, hi);
    move |v| label(*v, d)
}

/// A label for a tick of an axis of counts (games, steps, generations): whole numbers only,
/// the ticks between them unlabelled.
pub fn whole(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-6 { label(v.round(), 0) } else { String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The labels of the ticks plotters draws on `lo..hi`.
    fn labels(lo: f64, hi: f64) -> Vec<String> {
        let f = real(lo, hi);
        RangedCoordf64::from(lo..hi).key_points(LABELS).iter().map(f).collect()
    }

    #[test]
    fn short_ranges_get_distinct_labels_without_a_minus_zero() {
        // A few minutes of a run in hours, losses that barely move, a tight Elo range around
        // zero, a long run's Elo and a value accuracy.
        for (lo, hi) in [(0.0, 0.021), (-0.05, 0.05), (-1.2, 1.3), (0.9312, 0.9356), (-310.0, 905.0), (0.0, 1.0), (-0.003, 0.0004)] {
            let l = labels(lo, hi);
            assert!(!l.is_empty(), "{lo}..{hi}");
            let mut unique = l.clone();
            unique.dedup();
            assert_eq!(unique, l, "{lo}..{hi}: repeated labels");
            assert!(l.iter().all(|x| !x.starts_with('-') || x.parse::<f64>().unwrap() != 0.0), "{lo}..{hi}: {l:?}");
        }
        assert_eq!(labels(-0.05, 0.05), ["-0.04", "-0.02", "0.00", "0.02", "0.04"]);
        assert_eq!(labels(-310.0, 905.0)[..3], ["-200", "0", "200"]);
    }

    #[test]
    fn zero_is_never_negative_and_counts_are_whole() {
        assert_eq!(label(-0.0004, 2), "0.00");
        assert_eq!(label(-0.4, 0), "0");
        assert_eq!(label(-0.6, 0), "-1");
        assert_eq!(label(-0.25, 1), "-0.2");
        assert_eq!((whole(&2.0), whole(&2.5), whole(&-0.0000001)), ("2".to_string(), String::new(), "0".to_string()));
    }
}
