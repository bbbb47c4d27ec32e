//! Bradley–Terry ratings: the maximum-likelihood Elo of every player from all games played
//! between them, anchored at one player (alpha-beta depth 1 = 0), with 95% intervals from the
//! inverse Fisher information.
//!
//! Model: `P(i scores against j) = 1 / (1 + 10^((R_j - R_i) / 400))`, draws counting half a
//! point to each side. Every pair of players that met also gets one virtual draw, a weak prior
//! that keeps ratings finite when a player won or lost every game.

use serde::Serialize;

/// Games between two players: `points` is what `a` scored out of `games`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    pub a: usize,
    pub b: usize,
    pub points: f64,
    pub games: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    pub elo: f64,
    /// Half-width of the 95% interval (0 for the anchor).
    pub ci95: f64,
}

const SCALE: f64 = 400.0 / std::f64::consts::LN_10;

/// Solves `m x = v` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut m: Vec<Vec<f64>>, mut v: Vec<f64>) -> Option<Vec<f64>> {
    let n = v.len();
    for col in 0..n {
        let piv = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[piv][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, piv);
        v.swap(col, piv);
        for r in col + 1..n {
            let f = m[r][col] / m[col][col];
            let (above, below) = m.split_at_mut(r);
            for (x, &p) in below[0][col..n].iter_mut().zip(&above[col][col..n]) {
                *x -= f * p;
            }
            v[r] -= f * v[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| m[r][c] * x[c]).sum();
        x[r] = (v[r] - s) / m[r][r];
    }
    Some(x)
}

/// Ratings of `n` players. Players not connected to the anchor by games get `None`.
pub fn fit(n: usize, results: &[PairResult], anchor: usize) -> Vec<Option<Rating>> {
    // Aggregate into a symmetric table and add the virtual draws.
    let mut games = vec![vec![0.0; n]; n];
    let mut points = vec![vec![0.0; n]; n];
    for r in results.iter().filter(|r| r.a != r.b && r.a < n && r.b < n && r.games > 0.0) {
        games[r.a][r.b] += r.games;
        games[r.b][r.a] += r.games;
        points[r.a][r.b] += r.points;
        points[r.b][r.a] += r.games - r.points;
    }
    for i in 0..n {
        for j in 0..n {
            if i != j && games[i][j] > 0.0 {
                games[i][j] += 1.0;
                points[i][j] += 0.5;
            }
        }
    }
    // Players connected to the anchor.
    let mut connected = vec![false; n];
    let mut stack = vec![anchor];
    connected[anchor] = true;
    while let Some(i) = stack.pop() {
        for j in 0..n {
            if games[i][j] > 0.0 && !connected[j] {
                connected[j] = true;
                stack.push(j);
            }
        }
    }
    let free: Vec<usize> = (0..n).filter(|&i| connected[i] && i != anchor).collect();
    let mut r = vec![0.0f64; n]; // natural units: Elo / SCALE
    let hessian = |r: &[f64]| -> (Vec<Vec<f64>>, Vec<f64>) {
        let k = free.len();
        let mut h = vec![vec![0.0; k]; k];
        let mut g = vec![0.0; k];
        for (a, &i) in free.iter().enumerate() {
            for j in 0..n {
                if games[i][j] == 0.0 {
                    continue;
                }
                let p = 1.0 / (1.0 + (r[j] - r[i]).exp());
                g[a] += points[i][j] - games[i][j] * p;
                let w = games[i][j] * p * (1.0 - p);
                h[a][a] += w;
                if let Some(b) = free.iter().position(|&f| f == j) {
                    h[a][b] -= w;
                }
            }
        }
        (h, g)
    };
    for _ in 0..100 {
        let (h, g) = hessian(&r);
        let Some(step) = solve(h, g) else { break };
        let mut biggest = 0.0f64;
        for (a, &i) in free.iter().enumerate() {
            let s = step[a].clamp(-2.0, 2.0);
            r[i] += s;
            biggest = biggest.max(s.abs());
        }
        if biggest < 1e-10 {
            break;
        }
    }
    let (h, _) = hessian(&r);
    let k = free.len();
    let mut out = vec![None; n];
    out[anchor] = Some(Rating { elo: 0.0, ci95: 0.0 });
    for (a, &i) in free.iter().enumerate() {
        let mut e = vec![0.0; k];
        e[a] = 1.0;
        let var = solve(h.clone(), e).map_or(f64::INFINITY, |x| x[a]);
        out[i] = Some(Rating { elo: r[i] * SCALE, ci95: super::stats::Z95 * var.max(0.0).sqrt() * SCALE });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_players_match_the_score_formula() {
        // 30 points of 40 against the anchor, plus the virtual draw: 30.5 / 41.
        let r = fit(2, &[PairResult { a: 1, b: 0, points: 30.0, games: 40.0 }], 0);
        let s: f64 = 30.5 / 41.0;
        let want = -400.0 * (1.0 / s - 1.0).log10();
        let got = r[1].unwrap();
        assert!((got.elo - want).abs() < 1e-6, "{} vs {want}", got.elo);
        // Fisher information n p (1-p) in natural units.
        let se = 1.0 / (41.0 * s * (1.0 - s)).sqrt() * 400.0 / std::f64::consts::LN_10;
        assert!((got.ci95 - 1.959_964 * se).abs() < 1e-3);
        assert_eq!(r[0], Some(Rating { elo: 0.0, ci95: 0.0 }));
    }

    #[test]
    fn a_chain_of_players_is_transitive_and_unconnected_players_get_none() {
        let res = [PairResult { a: 1, b: 0, points: 15.0, games: 20.0 }, PairResult { a: 2, b: 1, points: 15.0, games: 20.0 }];
        let r = fit(4, &res, 0);
        let (e1, e2) = (r[1].unwrap().elo, r[2].unwrap().elo);
        assert!(e1 > 100.0 && (e2 - 2.0 * e1).abs() < 1.0, "{e1} {e2}");
        assert!(r[2].unwrap().ci95 > r[1].unwrap().ci95, "farther from the anchor, less certain");
        assert!(r[3].is_none());
    }

    #[test]
    fn perfect_scores_stay_finite() {
        let r = fit(2, &[PairResult { a: 1, b: 0, points: 50.0, games: 50.0 }], 0);
        assert!(r[1].unwrap().elo.is_finite() && r[1].unwrap().elo > 500.0);
    }
}
