//! Many games stepped and encoded at once, for training code: one call a step for the whole
//! batch, numpy-ready buffers back, the interpreter lock released while the games move.
//! Nature's moves are drawn here (with the batch's own seeded generator), so every game of a
//! batch waits on a player or is over.

use pyo3::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::state::{CHANCE, Ops, TERMINAL};
use crate::{PyGame, PyState, array, bytes_of, fail, floats_to_bytes};

/// The most games one batch holds: its observations are then a few hundred megabytes.
const MAX_GAMES: usize = 1 << 16;

#[pyclass(module = "junglezero._native", name = "Batch")]
pub struct Batch {
    games: Vec<Box<dyn Ops>>,
    start: Box<dyn Ops>,
    rng: ChaCha8Rng,
    plies: u64,
    finished: u64,
}

impl Batch {
    /// Draws nature's moves until a player is to move or the game is over.
    fn settle(game: &mut dyn Ops, rng: &mut ChaCha8Rng) {
        while game.current_player() == CHANCE {
            if !game.random_step(rng) {
                break;
            }
        }
    }

    fn with_games<T: Send>(&mut self, py: Python<'_>, f: impl FnOnce(&mut Vec<Box<dyn Ops>>, &mut ChaCha8Rng) -> T + Send) -> T {
        let (games, rng) = (&mut self.games, &mut self.rng);
        py.detach(move || f(games, rng))
    }
}

#[pymethods]
impl Batch {
    /// `n` games of `game` from its start, nature's draws seeded by `seed`.
    #[new]
    #[pyo3(signature = (game, n, seed = 0))]
    fn new(game: &PyGame, n: usize, seed: u64) -> PyResult<Batch> {
        if n == 0 || n > MAX_GAMES {
            return Err(fail(format!("a batch holds 1 to {MAX_GAMES} games, not {n}")));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let games = (0..n)
            .map(|_| {
                let mut g = game.start.boxed();
                Batch::settle(g.as_mut(), &mut rng);
                g
            })
            .collect();
        Ok(Batch { games, start: game.start.boxed(), rng, plies: 0, finished: 0 })
    }

    fn __len__(&self) -> usize {
        self.games.len()
    }

    /// A copy of game `i`'s state.
    fn state(&self, i: usize) -> PyResult<PyState> {
        let g = self.games.get(i).ok_or_else(|| fail(format!("no game {i} in a batch of {}", self.games.len())))?;
        Ok(PyState { inner: g.boxed() })
    }

    /// Puts a copy of `state` (of this batch's game) in slot `i`.
    fn set_state(&mut self, i: usize, state: &PyState) -> PyResult<()> {
        let n = self.games.len();
        let (want, got) = (self.start.game(), state.inner.game());
        if want != got {
            return Err(fail(format!("a state of game '{got}' in a batch of '{want}'")));
        }
        let slot = self.games.get_mut(i).ok_or_else(|| fail(format!("no game {i} in a batch of {n}")))?;
        *slot = state.inner.boxed();
        Batch::settle(slot.as_mut(), &mut self.rng);
        Ok(())
    }

    /// Each game's player to move: 0, 1, or -4 once over (numpy int32, n).
    fn current_players<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v: Vec<u8> = self.games.iter().flat_map(|g| g.current_player().to_le_bytes()).collect();
        array(py, &v, "<i4", &[self.games.len()])
    }

    /// Every game's input planes (numpy float32, n × planes × rows × cols).
    fn observations<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let shape = self.start.shape();
        let size = shape.input_size();
        let n = self.games.len();
        let out = self.with_games(py, |games, _| {
            let mut out = vec![0f32; games.len() * size];
            for (g, o) in games.iter().zip(out.chunks_exact_mut(size)) {
                g.encode(o);
            }
            floats_to_bytes(&out)
        });
        array(py, &out, "<f4", &[n, shape.planes, shape.rows, shape.cols])
    }

    /// Every game's legal-action mask (numpy bool, n × actions); all false once over.
    fn legal_masks<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let actions = self.start.shape().actions();
        let n = self.games.len();
        let out = self.with_games(py, |games, _| {
            let mut out = vec![0u8; games.len() * actions];
            for (g, o) in games.iter().zip(out.chunks_exact_mut(actions)) {
                g.legal_mask(o);
            }
            out
        });
        array(py, &out, "?", &[n, actions])
    }

    /// Each game's returns (numpy float32, n × 2): ±1 or 0 once over, 0 before.
    fn returns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v: Vec<f32> = self.games.iter().flat_map(|g| g.returns().map(|x| x as f32)).collect();
        array(py, &floats_to_bytes(&v), "<f4", &[self.games.len(), 2])
    }

    /// Plays one action in each game (any integer array-like, one per game; -1 for a game
    /// that is over or is to be left as it is). Every action is checked before any is
    /// played, so a bad one changes nothing.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        const SKIP: i64 = -1;
        let n = self.games.len();
        // Integers only: numpy would truncate 1.7 to action 1 without a word.
        let array = py.import("numpy")?.call_method1("asarray", (actions,)).map_err(|e| fail(format!("step: {e}")))?;
        let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
        let size: usize = array.getattr("size")?.extract()?;
        if size > 0 && kind != "i" && kind != "u" {
            let dtype: String = array.getattr("dtype")?.str()?.extract()?;
            return Err(fail(format!("step: actions are integers, not {dtype} values")));
        }
        let actions = bytes_of(&array, "<i8", n, "step: one action per game")?;
        let actions: Vec<i64> = actions.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default())).collect();
        let plies = self.with_games(py, |games, rng| {
            for (i, (g, &a)) in games.iter().zip(&actions).enumerate() {
                if a == SKIP {
                    continue;
                }
                if a < 0 {
                    return Err(format!("game {i}: action {a}: -1 leaves a game as it is, and actions are 0 and up"));
                }
                if g.current_player() == TERMINAL {
                    return Err(format!("game {i} is over; give it action -1 or reset it"));
                }
                if let Err(e) = g.check_action(a) {
                    return Err(format!("game {i}: {e}"));
                }
            }
            let mut plies = 0;
            for (g, &a) in games.iter_mut().zip(&actions) {
                if a != SKIP && g.apply_action(a).is_ok() {
                    plies += 1;
                    Batch::settle(g.as_mut(), rng);
                }
            }
            Ok(plies)
        });
        self.plies += plies.map_err(fail)?;
        Ok(())
    }

    /// Plays a uniformly random legal move in every game not over; how many games are still
    /// going afterwards.
    fn step_random(&mut self, py: Python<'_>) -> usize {
        let (going, plies) = self.with_games(py, |games, rng| {
            let (mut going, mut plies) = (0, 0);
            for g in games.iter_mut() {
                if g.random_step(rng) {
                    plies += 1;
                    Batch::settle(g.as_mut(), rng);
                }
                going += usize::from(g.current_player() != TERMINAL);
            }
            (going, plies)
        });
        self.plies += plies;
        going
    }

    /// Plays in every game not over a legal action drawn from `weights` (n × actions, float:
    /// a policy's probabilities, or any non-negative weights; only the legal actions count, so
    /// no mask is needed; a game whose legal actions all weigh 0 draws uniformly); how many
    /// games are still going afterwards.
    fn step_policy(&mut self, py: Python<'_>, weights: &Bound<'_, PyAny>) -> PyResult<usize> {
        let actions = self.start.shape().actions();
        let n = self.games.len();
        let bytes = bytes_of(weights, "<f4", n * actions, "step_policy: n × actions weights")?;
        let w: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if let Some(i) = w.iter().position(|x| !x.is_finite() || *x < 0.0) {
            return Err(fail(format!("step_policy: weight {} of game {} is {}; weights are finite and not negative", i % actions, i / actions, w[i])));
        }
        let (going, plies) = self.with_games(py, |games, rng| {
            let (mut going, mut plies) = (0, 0);
            for (g, row) in games.iter_mut().zip(w.chunks_exact(actions)) {
                if g.weighted_step(row, rng) {
                    plies += 1;
                    Batch::settle(g.as_mut(), rng);
                }
                going += usize::from(g.current_player() != TERMINAL);
            }
            (going, plies)
        });
        self.plies += plies;
        Ok(going)
    }

    /// Starts every finished game again from the start; how many were.
    fn reset_finished(&mut self) -> usize {
        let mut n = 0;
        for g in self.games.iter_mut() {
            if g.current_player() == TERMINAL {
                *g = self.start.boxed();
                Batch::settle(g.as_mut(), &mut self.rng);
                n += 1;
            }
        }
        self.finished += n as u64;
        n
    }

    /// Starts every game again from the start.
    fn reset_all(&mut self) {
        for g in self.games.iter_mut() {
            *g = self.start.boxed();
            Batch::settle(g.as_mut(), &mut self.rng);
        }
    }

    /// Random games played to their end: `games` of them, the batch's slots refilled from the
    /// start as they finish, all inside the native code (the native speed the batched Python
    /// path is measured against). Returns (games finished, plies played).
    fn random_playouts(&mut self, py: Python<'_>, games: u64) -> (u64, u64) {
        let start = self.start.boxed();
        self.with_games(py, move |slots, rng| {
            let (mut done, mut plies) = (0u64, 0u64);
            while done < games {
                for g in slots.iter_mut() {
                    if g.random_step(rng) {
                        plies += 1;
                        Batch::settle(g.as_mut(), rng);
                    }
                    if g.current_player() == TERMINAL {
                        done += 1;
                        *g = start.boxed();
                        Batch::settle(g.as_mut(), rng);
                    }
                }
            }
            (done, plies)
        })
    }

    /// Plies played and games finished (reset) through this batch so far.
    fn counters(&self) -> (u64, u64) {
        (self.plies, self.finished)
    }
}
