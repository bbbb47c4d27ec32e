/// Player specs, time controls, rule switches and SPRT settings from the command line: each
/// line parses or is refused; what parses prints back to text that parses the same, and its
/// numbers are finite and inside the ranges the spec documents. Each `key=value` option is
/// also tried with numbers that are not numbers (NaN, the infinities, huge and negative).
pub fn run(data: &[u8]) {
    use junglezero::arena::clock::TimeControl;
    use junglezero::arena::spec::{PlayerSpec, ranges};
    use junglezero::arena::stats::Sprt;
    use junglezero::jungle::Rules;
    fn check(s: &PlayerSpec) {
        let _ = s.to_string();
        let in_range = |v: Option<u64>, r: (u64, u64)| v.is_none_or(|v| (r.0..=r.1).contains(&v));
        match s {
            PlayerSpec::AlphaBeta { depth, movetime, nodes, .. } => {
                assert!(depth.is_none_or(|d| (1..=junglezero::alphabeta::MAX_DEPTH).contains(&d)), "{s}");
                assert!(in_range(*movetime, ranges::MOVETIME_MS) && in_range(*nodes, ranges::NODES), "{s}");
            }
            PlayerSpec::Mcts { sims, movetime, c_puct, .. } => {
                assert!(sims.is_none_or(|n| (ranges::SIMS.0..=ranges::SIMS.1).contains(&n)), "{s}");
                assert!(c_puct.is_none_or(|c| c.is_finite() && c > 0.0), "{s}");
                assert!(in_range(*movetime, ranges::MOVETIME_MS), "{s}");
            }
            PlayerSpec::External { movetime, nodes, .. } | PlayerSpec::Expectiminimax { movetime, nodes, .. } => {
                assert!(in_range(*movetime, ranges::MOVETIME_MS) && in_range(*nodes, ranges::NODES), "{s}");
            }
            PlayerSpec::Random { .. } => {}
        }
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    for line in text.lines().take(16) {
        if let Ok(s) = line.parse::<PlayerSpec>() {
            check(&s);
        }
        if let Some((head, _)) = line.rsplit_once('=') {
            for bad in ["nan", "inf", "-inf", "1e300", "-1", "99999999999", "18446744073709551616"] {
                if let Ok(s) = format!("{head}={bad}").parse::<PlayerSpec>() {
                    check(&s);
                }
            }
        }
        if let Ok(tc) = line.parse::<TimeControl>() {
            let _ = tc.to_string().parse::<TimeControl>().unwrap_or_else(|e| panic!("printed time control does not parse: {e}"));
        }
        if let Ok(r) = line.parse::<Rules>() {
            assert_eq!(r.to_string().parse::<Rules>().ok(), Some(r));
        }
        let _ = Sprt::parse(line);
    }
}
