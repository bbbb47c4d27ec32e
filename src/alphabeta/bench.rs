//! The fixed positions of `junglezero bench search`: the start, middle games and endgames from
//! engine games, and the perft table's special positions. Changing this list changes the
//! search signature, so append rather than edit.

pub const BENCH_FENS: [&str; 24] = [
    "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w 0 1",
    "1l3t1/1d2c2/1Tp1w1e/7/r6/7/E2WP1R/2C2D1/6L b 15 8",
    "1l5/1dp1ct1/1T2w1e/7/7/7/r1EWP1R/2C2D1/5L1 w 30 16",
    "2p4/dl2c2/2Twt1e/7/4R2/r6/C1EWP2/5D1/5L1 b 45 23",
    "1p5/d1w1c1R/l6/3t3/6e/2rT3/C3P2/1EW1D2/5L1 b 75 38",
    "1p3c1/d1T4/3w1l1/7/3t3/1r5/C6/1EW1D2/4Pe1 w 4 61",
    "1d3c1/1T5/3w1l1/7/3t3/1r5/C6/1EW4/4D2 b 2 68",
    "1d5/2p1c2/2lw2e/3L2t/7/2r4/1ETWP2/2C1D1R/7 b 45 23",
    "1d5/2p1c2/2lw3/3L3/7/6e/1T1E3/2CW1t1/4D2 b 2 38",
    "1d2c2/2p4/4w2/3L3/3T3/7/7/3l3/1C2E2 b 2 53",
    "5c1/2p4/1d1w1e1/3l3/4R1t/2rE3/2T2L1/2CWP1D/7 w 60 31",
    "5c1/1l1pw2/T3e2/3E2t/4R2/1r5/3W2L/2C1P1D/7 w 25 46",
    "4w2/2p2e1/7/4R1t/3E3/2r3D/3W3/2lP3/7 w 8 106",
    "1l2w2/d1p2c1/1e1R3/7/1r5/6L/E5P/T1C2t1/5D1 w 6 31",
    "5t1/2d1w1c/3p3/7/3l1R1/2r3L/1EWe3/T1CP3/5D1 w 60 31",
    "5t1/1d2w1c/3p3/5RL/3l3/2r4/TE1W3/7/4Ce1 w 4 46",
    "5c1/2d1te1/3l1w1/2rpR2/3L3/3W3/1E2T2/2C1D1P/7 w 60 31",
    "1l2cL1/2pew2/2d1R2/7/1r5/3t3/T1EW2D/2C1P2/7 w 60 31",
    "1E3c1/2d1w2/2e4/3lR2/p2t3/2rL3/T2W3/2C1P2/5D1 b 75 38",
    "5L1/1lpw3/3d1R1/7/1r1e3/3t3/T2E1D1/2CWP2/7 b 0 38",
    "4c2/2p1wL1/l3e1t/5R1/7/1r5/1T1E2D/2CWP2/7 b 100 83",
    "7/7/2e4/7/l2TR2/2r4/2L4/7/7 w 0 1",
    "4dC1/2cW3/3p3/7/7/7/3R3/3l3/1Er1D2 w 0 1",
    "7/4c2/7/7/7/rR5/Ee5/2C4/7 w 0 1",
];

/// One bench position searched from an empty table.
#[derive(Clone, Debug)]
pub struct BenchPosition {
    pub fen: &'static str,
    pub result: super::SearchResult,
    pub seconds: f64,
}

/// Every bench position searched to `depth` on one thread, each from an empty table of
/// `hash_mb` MiB, with the default evaluation and rules. The node total is deterministic and
/// changes only when search or evaluation behaviour changes (`junglezero bench search`).
pub fn run(depth: u32, hash_mb: usize) -> Vec<BenchPosition> {
    use crate::jungle::{JungleGame, Rules, parse_fen};
    let config = super::SearchConfig { hash_mb, threads: 1, ..super::SearchConfig::default() };
    let rules = Rules::default();
    let mut engine = super::Engine::new(&config, super::Eval::new(&super::EvalWeights::default(), rules));
    BENCH_FENS
        .iter()
        .map(|&fen| {
            engine.clear();
            let game = JungleGame::new(parse_fen(fen).expect("the bench positions are valid"), rules);
            let start = std::time::Instant::now();
            let result = engine.search(&game, &super::Limits::depth(depth), &mut |_| {});
            BenchPosition { fen, result, seconds: start.elapsed().as_secs_f64() }
        })
        .collect()
}
