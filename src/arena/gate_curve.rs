//! What a gate does with candidates of known strength: the probability that it promotes a
//! candidate, and the games it plays, as functions of the true Elo difference.
//!
//! The match is simulated as the gate plays it: pairs of games with colours swapped, each game
//! won, drawn or lost independently with the probabilities of a given Elo difference and draw
//! ratio, the SPRT checked after every game once a pair is complete, and the
//! `undecided_min_score` rule applied when `max_games` run out. Openings in real matches make
//! the two games of a pair correlated, which the pentanomial SPRT accounts for; independent
//! games are the simple, slightly pessimistic case.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::GateConfig;
use super::stats::{Tally, Verdict, elo_to_score};

/// One point of the curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// True Elo difference of the candidate over the best network.
    pub elo: f64,
    /// Probability that the candidate is promoted.
    pub promote: f64,
    /// Of which by the SPRT accepting H1 (the rest by the undecided rule).
    pub promote_by_sprt: f64,
    /// Mean games played.
    pub games: f64,
}

/// Win, draw and loss probabilities of one game at `elo` with draw ratio `draws` (reduced
/// where the score leaves no room for that many draws).
pub fn game_probabilities(elo: f64, draws: f64) -> [f64; 3] {
    let s = elo_to_score(elo);
    let d = draws.clamp(0.0, 1.0).min(2.0 * s).min(2.0 * (1.0 - s));
    [s - d / 2.0, d, 1.0 - s - d / 2.0]
}

/// Simulates `trials` gate matches at each Elo difference.
pub fn promotion_curve(gate: &GateConfig, elos: &[f64], draws: f64, trials: u32, seed: u64) -> Vec<CurvePoint> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sprt = gate.sprt();
    let pairs = (gate.max_games / 2).max(1);
    elos.iter()
        .map(|&elo| {
            if !gate.enabled {
                return CurvePoint { elo, promote: 1.0, promote_by_sprt: 0.0, games: 0.0 };
            }
            let [w, d, _] = game_probabilities(elo, draws);
            let (mut promoted, mut by_sprt, mut games) = (0u32, 0u32, 0u64);
            for _ in 0..trials {
                let mut t = Tally::default();
                let mut verdict = Verdict::Continue;
                'pairs: for _ in 0..pairs {
                    let mut pair_points = 0.0;
                    for _ in 0..2 {
                        let x: f64 = rng.random();
                        let points = if x < w {
                            1.0
                        } else if x < w + d {
                            0.5
                        } else {
                            0.0
                        };
                        t.add_game(points);
                        pair_points += points;
                    }
                    t.add_pair(pair_points);
                    verdict = sprt.verdict(&t);
                    if verdict != Verdict::Continue {
                        break 'pairs;
                    }
                }
                games += u64::from(t.games());
                let accept = match verdict {
                    Verdict::H1 => {
                        by_sprt += 1;
                        true
                    }
                    Verdict::H0 => false,
                    Verdict::Continue => t.score() >= gate.undecided_min_score,
                };
                promoted += u32::from(accept);
            }
            let n = f64::from(trials.max(1));
            CurvePoint { elo, promote: f64::from(promoted) / n, promote_by_sprt: f64::from(by_sprt) / n, games: games as f64 / n }
        })
        .collect()
}

/// The largest LLR any result of `pairs` pairs can reach (all pairs won), to show whether the
/// SPRT can accept H1 within the budget at all.
pub fn best_case_llr(gate: &GateConfig) -> f64 {
    let pairs = (gate.max_games / 2).max(1);
    let t = Tally { wins: 2 * pairs, losses: 0, draws: 0, penta: [0, 0, 0, 0, pairs] };
    gate.sprt().llr(&t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_default_gate_can_never_accept_by_sprt() {
        // 32 games, elo1 = 50, alpha = beta = 0.1: even 16 won pairs stay below the bound.
        let g = GateConfig { enabled: true, max_games: 32, elo0: 0.0, elo1: 50.0, alpha: 0.1, beta: 0.1, ..GateConfig::default() };
        let (_, upper) = g.sprt().bounds();
        assert!(best_case_llr(&g) < upper, "{} vs {upper}", best_case_llr(&g));
        let c = promotion_curve(&g, &[0.0, 200.0], 0.3, 400, 1);
        assert_eq!(c[0].promote_by_sprt, 0.0);
        assert_eq!(c[1].promote_by_sprt, 0.0);
        // Equal strength is promoted about half the time (score >= 0.5 includes ties).
        assert!(c[0].promote > 0.4 && c[0].promote < 0.75, "{:?}", c[0]);
    }

    #[test]
    fn promotion_rises_with_strength_and_a_disabled_gate_promotes_everything() {
        let g = GateConfig { enabled: true, max_games: 200, elo1: 30.0, alpha: 0.05, beta: 0.05, ..GateConfig::default() };
        let c = promotion_curve(&g, &[-100.0, 0.0, 100.0], 0.3, 300, 2);
        assert!(c[0].promote < c[1].promote && c[1].promote < c[2].promote, "{c:?}");
        assert!(c[2].promote > 0.9 && c[0].promote < 0.05, "{c:?}");
        assert!(c[2].promote_by_sprt > 0.5, "a budget that can decide decides: {c:?}");
        let off = GateConfig { enabled: false, ..g };
        assert!(promotion_curve(&off, &[-300.0], 0.3, 10, 3).iter().all(|p| p.promote == 1.0));
    }

    #[test]
    fn game_probabilities_are_distributions_with_the_right_score() {
        for (elo, d) in [(0.0, 0.3), (400.0, 0.5), (-800.0, 0.9), (50.0, 0.0)] {
            let p = game_probabilities(elo, d);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12 && p.iter().all(|&x| x >= 0.0), "{p:?}");
            assert!((p[0] + p[1] / 2.0 - elo_to_score(elo)).abs() < 1e-12);
        }
    }
}
