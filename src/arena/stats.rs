//! Match statistics: Elo difference with a 95% interval from pentanomial (game-pair) results,
//! likelihood of superiority, and the sequential probability ratio test.
//!
//! Each opening is played twice with colours swapped, so results come in pairs. A pair scores
//! 0, ½, 1, 1½ or 2 points for A; the five counts are the *pentanomial*. Treating pairs rather
//! than games as the independent trials removes the opening's bias from the variance (as
//! fishtest and fastchess do).

use serde::Serialize;

/// Logistic Elo → expected score.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Expected score → logistic Elo (the score is clamped away from 0 and 1).
pub fn score_to_elo(score: f64) -> f64 {
    let s = score.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Standard normal cumulative distribution.
pub fn phi(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

/// Two-sided 95% quantile of the standard normal.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Results from A's point of view.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    /// Pairs by A's points: 0, ½, 1, 1½, 2.
    pub penta: [u32; 5],
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Adds one finished game (`points` for A: 1, ½ or 0).
    pub fn add_game(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Adds a finished pair (A's points over both games, 0 to 2).
    pub fn add_pair(&mut self, points: f64) {
        let i = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.penta[i] += 1;
    }

    pub fn pairs(&self) -> u32 {
        self.penta.iter().sum()
    }

    /// A's mean score per game, in [0, 1].
    pub fn score(&self) -> f64 {
        let g = self.games();
        if g == 0 { 0.5 } else { (self.wins as f64 + 0.5 * self.draws as f64) / g as f64 }
    }

    pub fn draw_ratio(&self) -> f64 {
        let g = self.games();
        if g == 0 { 0.0 } else { self.draws as f64 / g as f64 }
    }

    /// Mean and variance of the per-pair score (each pair normalised to [0, 1]) and the pair
    /// count. Falls back to treating games as trials while there are no complete pairs.
    fn pair_moments(&self) -> (f64, f64, f64) {
        let n_pairs = self.pairs();
        if n_pairs == 0 {
            let g = self.games().max(1) as f64;
            let m = self.score();
            let var = (self.wins as f64 * (1.0 - m).powi(2) + self.draws as f64 * (0.5 - m).powi(2) + self.losses as f64 * m.powi(2)) / g;
            return (m, var, g);
        }
        let counts: Vec<f64> = self.penta.iter().map(|&c| c as f64).collect();
        let n: f64 = counts.iter().sum();
        let m: f64 = counts.iter().enumerate().map(|(i, c)| c * i as f64 / 4.0).sum::<f64>() / n;
        let var: f64 = counts.iter().enumerate().map(|(i, c)| c * (i as f64 / 4.0 - m).powi(2)).sum::<f64>() / n;
        (m, var, n)
    }

    /// Elo difference and the half-width of its 95% interval. Perfect scores are clamped to
    /// half a game short of perfect so the figures stay finite. When every pair (or game)
    /// scored the same there is no estimate of the spread and the half-width is NaN.
    pub fn elo(&self) -> (f64, f64) {
        let (m, var, n) = self.pair_moments();
        let eps = 0.5 / self.games().max(1) as f64;
        let m = m.clamp(eps, 1.0 - eps);
        let elo = score_to_elo(m) + 0.0; // + 0.0 turns -0 into 0
        if var <= 0.0 {
            return (elo, f64::NAN);
        }
        let se = (var / n).sqrt();
        let lo = score_to_elo((m - Z95 * se).clamp(eps, 1.0 - eps));
        let hi = score_to_elo((m + Z95 * se).clamp(eps, 1.0 - eps));
        (elo, (hi - lo) / 2.0)
    }

    /// `Some(true)` when A won every game, `Some(false)` when A lost every game: the Elo
    /// estimate is then only a bound.
    pub fn one_sided(&self) -> Option<bool> {
        match (self.wins, self.losses, self.draws) {
            (w, 0, 0) if w > 0 => Some(true),
            (0, l, 0) if l > 0 => Some(false),
            _ => None,
        }
    }

    /// Likelihood of superiority: the probability that A is the stronger player. With complete
    /// pairs it comes from the pentanomial mean and its standard error, `Φ((m − ½) / se)`, so
    /// the openings' bias leaves the variance as it does for the Elo interval; without pairs,
    /// from the decisive games, `Φ((W − L) / √(W + L))`.
    pub fn los(&self) -> f64 {
        if self.pairs() > 0 {
            let (m, var, n) = self.pair_moments();
            if var <= 0.0 {
                return if m > 0.5 {
                    1.0
                } else if m < 0.5 {
                    0.0
                } else {
                    0.5
                };
            }
            return phi((m - 0.5) / (var / n).sqrt());
        }
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        phi((self.wins as f64 - self.losses as f64) / decisive.sqrt())
    }
}

/// A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// H1 accepted: A is better by about `elo1`.
    H1,
    /// H0 accepted: A is not better than `elo0`.
    H0,
    Continue,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::H1 => "H1 accepted",
            Verdict::H0 => "H0 accepted",
            Verdict::Continue => "continue",
        })
    }
}

/// The distribution `q` over outcomes `xs` closest to `p` in likelihood with mean `s`:
/// `q_i = p_i / (1 + lambda (x_i - s))`, with `lambda` found by bisection.
fn constrained_mle(p: &[f64], xs: &[f64], s: f64) -> Vec<f64> {
    let (xmin, xmax) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
    let s = s.clamp(xmin + 1e-9, xmax - 1e-9);
    // 1 + lambda (x - s) must stay positive for every x.
    let (mut lo, mut hi) = (-1.0 / (xmax - s) + 1e-12, 1.0 / (s - xmin) - 1e-12);
    let f = |lam: f64| p.iter().zip(xs).map(|(pi, x)| pi * (x - s) / (1.0 + lam * (x - s))).sum::<f64>();
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lam = 0.5 * (lo + hi);
    p.iter().zip(xs).map(|(pi, x)| pi / (1.0 + lam * (x - s))).collect()
}

impl Default for Sprt {
    fn default() -> Self {
        Sprt { elo0: 0.0, elo1: 30.0, alpha: 0.05, beta: 0.05 }
    }
}

/// Why SPRT settings are unusable.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    #[error("SPRT setting '{0}' is not key=value")]
    NotKeyValue(String),
    #[error("SPRT {key}: '{value}' is not a number")]
    NotANumber { key: String, value: String },
    #[error("unknown SPRT setting '{0}' (elo0, elo1, alpha, beta)")]
    Unknown(String),
    #[error("SPRT needs elo1 > elo0 (got {elo0} and {elo1})")]
    Order { elo0: f64, elo1: f64 },
    #[error("SPRT {name} must be between 0 and 0.5 (got {value})")]
    Rate { name: &'static str, value: f64 },
}

impl Sprt {
    /// Parses `elo0=0,elo1=30,alpha=0.05,beta=0.05` (missing keys keep their defaults).
    pub fn parse(spec: &str) -> Result<Sprt, SprtError> {
        let mut s = Sprt::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| SprtError::NotKeyValue(part.into()))?;
            let v: f64 = v.trim().parse().map_err(|_| SprtError::NotANumber { key: k.into(), value: v.into() })?;
            match k.trim() {
                "elo0" => s.elo0 = v,
                "elo1" => s.elo1 = v,
                "alpha" => s.alpha = v,
                "beta" => s.beta = v,
                other => return Err(SprtError::Unknown(other.into())),
            }
        }
        s.validate()?;
        Ok(s)
    }

    pub fn validate(&self) -> Result<(), SprtError> {
        // Written so that NaN bounds fail too.
        if self.elo1.partial_cmp(&self.elo0) != Some(std::cmp::Ordering::Greater) {
            return Err(SprtError::Order { elo0: self.elo0, elo1: self.elo1 });
        }
        for (name, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(SprtError::Rate { name, value });
            }
        }
        Ok(())
    }

    /// (lower, upper) log-likelihood-ratio bounds.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The generalised log-likelihood ratio of H1 against H0 for `t`: the outcome distribution
    /// (pentanomial over pairs, or win/draw/loss while no pair is complete) is fitted by
    /// maximum likelihood under each hypothesis's mean score, and the ratio of the two
    /// likelihoods is taken (the GSPRT fishtest uses). Empty outcome bins get a count of 1e-3.
    /// Unlike the normal approximation this stays sensible for a handful of games.
    pub fn llr(&self, t: &Tally) -> f64 {
        if t.games() == 0 {
            return 0.0;
        }
        let (xs, counts): (Vec<f64>, Vec<f64>) = if t.pairs() > 0 {
            ((0..5).map(|i| i as f64 / 4.0).collect(), t.penta.iter().map(|&c| c as f64).collect())
        } else {
            (vec![0.0, 0.5, 1.0], vec![t.losses as f64, t.draws as f64, t.wins as f64])
        };
        let n: f64 = counts.iter().sum();
        let reg: Vec<f64> = counts.iter().map(|&c| if c > 0.0 { c } else { 1e-3 }).collect();
        let total: f64 = reg.iter().sum();
        let p: Vec<f64> = reg.iter().map(|c| c / total).collect();
        let q0 = constrained_mle(&p, &xs, elo_to_score(self.elo0));
        let q1 = constrained_mle(&p, &xs, elo_to_score(self.elo1));
        n * p.iter().zip(q0.iter().zip(&q1)).map(|(pi, (a, b))| pi * (b / a).ln()).sum::<f64>()
    }

    pub fn verdict(&self, t: &Tally) -> Verdict {
        let llr = self.llr(t);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Verdict::H1
        } else if llr <= lo {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert!(close(elo_to_score(0.0), 0.5, 1e-12));
        // 400 Elo is odds of 10:1.
        assert!(close(elo_to_score(400.0), 10.0 / 11.0, 1e-12));
        assert!(close(score_to_elo(0.75), 190.848_501_887_865, 1e-9));
        assert!(close(score_to_elo(elo_to_score(-123.0)), -123.0, 1e-9));
    }

    #[test]
    fn los_by_hand() {
        // 60 wins, 40 losses: Phi(20 / 10) = Phi(2) = 0.977250.
        let t = Tally { wins: 60, losses: 40, draws: 17, penta: [0; 5] };
        assert!(close(t.los(), 0.977_249_868, 1e-6));
        let even = Tally { wins: 5, losses: 5, draws: 0, penta: [0; 5] };
        assert!(close(even.los(), 0.5, 1e-12));
        // Paired: pairs scoring 2, 2, 1, 1.5 normalised to 1, 1, 0.5, 0.75: mean 0.8125,
        // variance 0.04296875, se = sqrt(0.04296875 / 4) = 0.103645; Phi(0.3125 / 0.103645)
        // = Phi(3.015113) = 0.998715.
        let paired = Tally { wins: 6, losses: 1, draws: 1, penta: [0, 0, 1, 1, 2] };
        assert!(close(paired.los(), 0.998_715, 1e-5), "{}", paired.los());
        // The game formula would say Phi(5 / sqrt(7)) = 0.970611 for the same games.
        assert!(!close(paired.los(), 0.970_611, 1e-3));
    }

    #[test]
    fn elo_interval_by_hand() {
        // Pairs scoring 2, 1, 1, 0 normalised to 1, 0.5, 0.5, 0: mean 0.5, variance 0.125, 4
        // pairs: se = sqrt(0.125 / 4) = 0.176777; interval 0.5 +- 0.346476.
        let t = Tally { wins: 3, losses: 3, draws: 2, penta: [1, 0, 2, 0, 1] };
        let (elo, half) = t.elo();
        assert!(close(elo, 0.0, 1e-9));
        let lo = score_to_elo(0.5 - Z95 * 0.176_776_695);
        let hi = score_to_elo(0.5 + Z95 * 0.176_776_695);
        assert!(close(half, (hi - lo) / 2.0, 1e-6), "{half}");
        assert!(close(hi, 296.575, 0.01), "{hi}");
    }

    #[test]
    fn sprt_bounds_and_llr_by_hand() {
        let s = Sprt::default();
        let (lo, hi) = s.bounds();
        // ln(0.05 / 0.95) and ln(0.95 / 0.05).
        assert!(close(lo, -2.944_438_979, 1e-9) && close(hi, 2.944_438_979, 1e-9));
        // One won pair: the best fit under each hypothesis puts its mean's worth of mass on a
        // won pair, so the LLR is ln(s1 / s0) = ln(0.543066 / 0.5).
        let one = Tally { wins: 2, losses: 0, draws: 0, penta: [0, 0, 0, 0, 1] };
        assert!(close(s.llr(&one), (elo_to_score(30.0) / 0.5).ln(), 2e-3), "{}", s.llr(&one));
        assert_eq!(s.verdict(&one), Verdict::Continue);
        // With plenty of varied pairs the GSPRT agrees with the normal approximation
        // N (s1 - s0) (2 m - s0 - s1) / (2 var): 100 pairs [10, 20, 40, 20, 10] have m = 0.5,
        // var = (10 * 0.25 + 20 * 0.0625) * 2 / 100 = 0.075, so -100 * 0.043066^2 / 0.15 =
        // -1.2365; the GSPRT gives -1.2291.
        let even = Tally { wins: 60, losses: 60, draws: 80, penta: [10, 20, 40, 20, 10] };
        let d = elo_to_score(30.0) - 0.5;
        let normal = -100.0 * d * d / (2.0 * 0.075);
        assert!(close(s.llr(&even), normal, 0.01 * normal.abs()), "{} vs {normal}", s.llr(&even));
        // A long run of won pairs accepts H1; of lost pairs, H0.
        let won = Tally { wins: 60, losses: 20, draws: 0, penta: [0, 2, 6, 12, 20] };
        assert_eq!(s.verdict(&won), Verdict::H1);
        let lost = Tally { wins: 20, losses: 60, draws: 0, penta: [20, 12, 6, 2, 0] };
        assert_eq!(s.verdict(&lost), Verdict::H0);
    }

    #[test]
    fn sprt_spec_parsing() {
        let s = Sprt::parse("elo0=0,elo1=30,alpha=0.05,beta=0.1").unwrap();
        assert_eq!((s.elo1, s.beta), (30.0, 0.1));
        assert!(Sprt::parse("elo0=10,elo1=5").unwrap_err().to_string().contains("elo1 > elo0"));
        assert!(Sprt::parse("gamma=1").unwrap_err().to_string().contains("unknown SPRT setting"));
        assert!(Sprt::parse("alpha=0.7").unwrap_err().to_string().contains("alpha"));
    }

    #[test]
    fn perfect_scores_stay_finite() {
        let t = Tally { wins: 20, losses: 0, draws: 0, penta: [0, 0, 0, 0, 10] };
        let (elo, half) = t.elo();
        assert!(elo.is_finite() && elo > 400.0);
        assert!(half.is_nan(), "no spread observed, no interval");
        assert_eq!(t.one_sided(), Some(true));
        let drawn = Tally { wins: 0, losses: 0, draws: 4, penta: [0, 0, 2, 0, 0] };
        assert_eq!(drawn.elo().0.to_string(), "0", "no negative zero");
    }
}
