//! Search and networks for Python: the classical engine, MCTS with a model file, the
//! network's raw outputs for a batch of states, and endgame-table probes. The same code the
//! binary runs, reached through the registry (`with_game!`) and each part's own trait.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use junglezero::config::Config;
use junglezero::entries::HouseGame;
use junglezero::game::Turn;
use junglezero::mcts::MctsPlayer;
use junglezero::mcts::oracle::Oracle;
use junglezero::nn::NetEvaluator;
use junglezero::pipeline::RunGame;
use junglezero::player::{Limits, Player};
use junglezero::protocol::variant::ProtocolGame;
use junglezero::registry::GameName;
use junglezero::trainable::Trainable;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::state::{Ops, Typed};
use crate::{PyState, array, bytes_of, fail, floats_to_bytes};

/// The settings of `config` (a TOML file) with `set` overrides (`key=value`, as `--set` takes
/// them), or the defaults.
fn settings(config: Option<&str>, set: Option<Vec<String>>) -> PyResult<Config> {
    Config::load(config.map(std::path::Path::new), &set.unwrap_or_default()).map_err(|e| fail(e.to_string()))
}

/// The state of game `G` behind `state`, or why it is another game's.
fn typed<'a, G: HouseGame>(state: &'a dyn Ops, what: &str) -> Result<&'a G, String> {
    state.as_any().downcast_ref::<Typed<G>>().map(|t| &t.g).ok_or_else(|| format!("a state of game '{}' given to {what} of game '{}'", state.game(), G::NAME))
}

/// The action of `mv` in `g`: its policy index, or nature's number for a chance outcome.
fn action_of<G: HouseGame>(g: &G, mv: G::Move) -> i64 {
    if G::is_chance_move(mv) { G::chance_index(mv) as i64 } else { g.action_index(mv) as i64 }
}

/// A line of moves from `g`: (actions, moves as text).
fn line_of<G: HouseGame>(g: &G, moves: &[G::Move]) -> (Vec<i64>, Vec<String>) {
    let mut g = g.clone();
    let mut actions = Vec::new();
    let mut text = Vec::new();
    for &m in moves {
        if !g.is_legal(m) {
            break;
        }
        actions.push(action_of(&g, m));
        text.push(m.to_string());
        g.play_unchecked(m);
    }
    (actions, text)
}

fn limits(depth: Option<u32>, movetime: Option<u64>, nodes: Option<u64>) -> PyResult<Limits> {
    if depth.is_none() && movetime.is_none() && nodes.is_none() {
        return Err(fail("give a depth, a movetime (milliseconds) or a node count"));
    }
    if depth == Some(0) || movetime == Some(0) || nodes == Some(0) {
        return Err(fail("a depth, movetime or node count of 0 searches nothing; give at least 1"));
    }
    if depth.is_some_and(|d| d > 88) {
        return Err(fail("depth above 88: the engine searches 88 plies at most"));
    }
    Ok(Limits { depth, nodes, movetime: movetime.map(Duration::from_millis), ..Limits::default() })
}

fn classical_move<G: HouseGame>(state: &dyn Ops, config: &Config, limits: &Limits) -> Result<(i64, String, Vec<String>), String> {
    let g = typed::<G>(state, "the engine")?;
    if !matches!(g.turn(), Turn::Player(_)) {
        return Err("no move to search: the game is over or nature is to move".into());
    }
    let settings = config.players();
    let spec = G::classical(&settings);
    let rules = g.game_rules().clone();
    let mut player = G::factory(spec, &settings, &rules, None).and_then(|f| f.make(0)).map_err(|e| e.to_string())?.player;
    let mut info = Vec::new();
    let mv = player.choose(g, limits, &mut |line: &str| info.push(line.to_string())).ok_or("the engine found no move")?;
    Ok((action_of(g, mv), mv.to_string(), info))
}

/// The classical engine's move (alpha-beta for Jungle, expectiminimax for the flip game) as
/// a dict: `action`, `move`, the engine's `info` lines, and what the last scored one says
/// (`depth`, `score_cp`, `mate`, `value`, `pv`; None where it says nothing).
#[pyfunction]
#[pyo3(signature = (state, depth = None, movetime = None, nodes = None, config = None, set = None))]
pub fn alphabeta<'py>(
    py: Python<'py>,
    state: &PyState,
    depth: Option<u32>,
    movetime: Option<u64>,
    nodes: Option<u64>,
    config: Option<&str>,
    set: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let limits = limits(depth, movetime, nodes)?;
    let config = settings(config, set)?;
    let inner = &state.inner;
    let game = inner.game();
    let (action, mv, info) = py.detach(|| junglezero::with_game!(game, G => classical_move::<G>(inner.as_ref(), &config, &limits))).map_err(fail)?;
    let scored = junglezero::protocol::verdict::last_scored(&info).unwrap_or_default();
    let d = PyDict::new(py);
    d.set_item("action", action)?;
    d.set_item("move", mv)?;
    d.set_item("depth", scored.depth)?;
    d.set_item("score_cp", scored.cp)?;
    d.set_item("mate", scored.mate)?;
    d.set_item("value", scored.value)?;
    d.set_item("pv", scored.pv)?;
    d.set_item("info", info)?;
    Ok(d)
}

/// A loaded network: the game it plays, and its raw outputs for batches of states.
#[pyclass(module = "junglezero._native", name = "Network", frozen)]
pub struct Network {
    pub(crate) net: Arc<NetEvaluator>,
    pub(crate) game: GameName,
}

#[pymethods]
impl Network {
    /// Loads a model file (`.jzm`); its header says which game it plays.
    #[new]
    #[pyo3(signature = (path, config = None, set = None))]
    fn new(py: Python<'_>, path: &str, config: Option<&str>, set: Option<Vec<String>>) -> PyResult<Network> {
        let config = settings(config, set)?;
        let p = std::path::Path::new(path);
        py.detach(|| {
            let meta = junglezero::nn::modelfile::read_meta(p).map_err(|e| e.to_string())?;
            let game = GameName::named(&meta.game).ok_or_else(|| format!("{path}: a model of unknown game '{}'", meta.game))?;
            let net = NetEvaluator::load(p, &config.hardware, game.shape()).map_err(|e| e.to_string())?;
            Ok::<_, String>(Network { net: Arc::new(net), game })
        })
        .map_err(fail)
    }

    /// The game the network plays.
    #[getter]
    fn game(&self) -> &'static str {
        self.game.name()
    }

    /// The network in words: its id, size and inference path.
    fn describe(&self) -> String {
        self.net.describe()
    }

    /// One forward pass over `states` (all of the network's game): policy logits (numpy
    /// float32, n × actions) and win/draw/loss probabilities for the player to move (n × 3).
    fn evaluate<'py>(&self, py: Python<'py>, states: Vec<PyRef<'py, PyState>>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        if states.is_empty() {
            return Err(fail("evaluate: no states"));
        }
        let shape = self.game.shape();
        let size = shape.input_size();
        let mut planes = vec![0f32; states.len() * size];
        for (i, (s, out)) in states.iter().zip(planes.chunks_exact_mut(size)).enumerate() {
            let got = s.inner.game();
            if got != self.game {
                return Err(fail(format!("state {i} is of game '{got}'; the network plays '{}'", self.game)));
            }
            s.inner.encode(out);
        }
        self.forward(py, planes, states.len())
    }

    /// The same for `n` encoded positions: a float32 array-like of n × planes × rows × cols
    /// values (a `Batch`'s observations, say).
    fn evaluate_planes<'py>(&self, py: Python<'py>, planes: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let shape = self.game.shape();
        let size = shape.input_size();
        let total: usize = py.import("numpy")?.call_method1("size", (planes,))?.extract()?;
        if total == 0 || !total.is_multiple_of(size) {
            return Err(fail(format!("evaluate_planes: {total} values are not whole positions of {} × {} × {}", shape.planes, shape.rows, shape.cols)));
        }
        let n = total / size;
        let bytes = bytes_of(planes, "<f4", total, "evaluate_planes")?;
        let floats: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        self.forward(py, floats, n)
    }
}

impl Network {
    fn forward<'py>(&self, py: Python<'py>, planes: Vec<f32>, n: usize) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let net = &self.net;
        let out = py.detach(|| net.forward(&planes, n));
        let actions = self.game.shape().actions();
        Ok((array(py, &floats_to_bytes(&out.policy), "<f4", &[n, actions])?, array(py, &floats_to_bytes(&out.wdl), "<f4", &[n, 3])?))
    }
}

/// What one MCTS search found.
pub struct Found {
    /// (action, move, visits, prior, mean value for the player to move) of each root move.
    pub children: Vec<(i64, String, u32, f32, f32)>,
    pub best: Option<(i64, String)>,
    pub value: f32,
    pub wdl: Option<[f32; 3]>,
    pub pv: (Vec<i64>, Vec<String>),
    pub visits: u32,
}

trait Searcher: Send {
    fn game(&self) -> GameName;
    fn search(&mut self, state: &dyn Ops, limits: &Limits) -> Result<Found, String>;
}

struct TypedMcts<G: HouseGame> {
    player: MctsPlayer<G, NetEvaluator>,
}

impl<G: HouseGame> Searcher for TypedMcts<G> {
    fn game(&self) -> GameName {
        G::NAME
    }

    fn search(&mut self, state: &dyn Ops, limits: &Limits) -> Result<Found, String> {
        let g = typed::<G>(state, "a search")?;
        if !matches!(g.turn(), Turn::Player(_)) {
            return Err("no move to search: the game is over or nature is to move".into());
        }
        let best = self.player.choose(g, limits, &mut |_: &str| {});
        let best_text = best.map(|m| (action_of(g, m), m.to_string()));
        // With the endgame tables holding the root the player moves without searching: the
        // move alone, and the tables' line of one move.
        let Some(s) = self.player.last_search().filter(|s| s.root_state().hash() == g.hash()) else {
            let pv = line_of(g, &best.into_iter().collect::<Vec<_>>());
            return Ok(Found { children: Vec::new(), best: best_text, value: 0.0, wdl: None, pv, visits: 0 });
        };
        let root = s.root_state();
        let children = s.root_children().map(|(m, n, p, q)| (action_of(root, m), m.to_string(), n, p, q)).collect();
        Ok(Found {
            children,
            best: best_text,
            value: s.root_value(),
            wdl: s.root_wdl(),
            pv: line_of(root, &s.principal_variation(64)),
            visits: s.root_visits(),
        })
    }
}

/// MCTS with a network: `search(state, sims)` gives each root move's visits, the root's
/// value and win/draw/loss estimate, and the principal variation.
#[pyclass(module = "junglezero._native", name = "Mcts", frozen)]
pub struct Mcts {
    searcher: Mutex<Box<dyn Searcher>>,
    sims: u32,
}

#[pymethods]
impl Mcts {
    /// A search with `network` (a `Network`), `sims` simulations a move by default, the
    /// `[mcts]` settings of `config`/`set`, and exact values from the endgame tables in
    /// `tablebase` (a folder) where the game has tables.
    #[new]
    #[pyo3(signature = (network, sims = 800, config = None, set = None, tablebase = None))]
    fn new(network: &Network, sims: u32, config: Option<&str>, set: Option<Vec<String>>, tablebase: Option<&str>) -> PyResult<Mcts> {
        if sims == 0 {
            return Err(fail("sims must be at least 1"));
        }
        let mut config = settings(config, set)?;
        if let Some(dir) = tablebase {
            config.tablebase.dir = dir.to_string();
        }
        let net = network.net.clone();
        let searcher = junglezero::with_game!(network.game, G => {
            let oracle = match tablebase {
                Some(_) => <G as RunGame>::oracle(&config).map_err(|e| fail(format!("{e:#}")))?,
                None => None,
            };
            let mcts = junglezero::mcts::MctsConfig { play_tree_reuse: false, ..config.mcts.clone() };
            Box::new(TypedMcts::<G> { player: MctsPlayer::new(net, &mcts, sims).with_oracle(oracle) }) as Box<dyn Searcher>
        });
        Ok(Mcts { searcher: Mutex::new(searcher), sims })
    }

    /// The game it searches.
    #[getter]
    fn game(&self) -> PyResult<&'static str> {
        Ok(self.searcher.lock().map_err(|_| fail("a search panicked earlier"))?.game().name())
    }

    /// Searches `state` for `sims` simulations (default: the constructor's), or for
    /// `movetime` milliseconds. Returns a dict: `best` (action), `move`, `visits` (action →
    /// visits), `priors`, `q` (action → mean value for the player to move), `value`, `wdl`
    /// (or None), `pv` (actions), `pv_moves`, `simulations`.
    #[pyo3(signature = (state, sims = None, movetime = None))]
    fn search<'py>(&self, py: Python<'py>, state: &PyState, sims: Option<u32>, movetime: Option<u64>) -> PyResult<Bound<'py, PyDict>> {
        if sims == Some(0) || movetime == Some(0) {
            return Err(fail("sims and movetime must be at least 1"));
        }
        let nodes = match (sims, movetime) {
            (None, Some(_)) => None,
            (s, _) => Some(u64::from(s.unwrap_or(self.sims))),
        };
        let limits = Limits { nodes, movetime: movetime.map(Duration::from_millis), ..Limits::default() };
        let inner = &state.inner;
        let searcher = &self.searcher;
        let found = py
            .detach(|| {
                let mut s = searcher.lock().map_err(|_| "a search panicked earlier".to_string())?;
                s.search(inner.as_ref(), &limits)
            })
            .map_err(fail)?;
        let d = PyDict::new(py);
        let visits = PyDict::new(py);
        let priors = PyDict::new(py);
        let q = PyDict::new(py);
        for (a, _, n, p, v) in &found.children {
            visits.set_item(a, n)?;
            priors.set_item(a, p)?;
            q.set_item(a, v)?;
        }
        d.set_item("best", found.best.as_ref().map(|b| b.0))?;
        d.set_item("move", found.best.as_ref().map(|b| b.1.clone()))?;
        d.set_item("visits", visits)?;
        d.set_item("priors", priors)?;
        d.set_item("q", q)?;
        d.set_item("value", found.value)?;
        d.set_item("wdl", found.wdl.map(|w| (w[0], w[1], w[2])))?;
        d.set_item("pv", found.pv.0)?;
        d.set_item("pv_moves", found.pv.1)?;
        d.set_item("simulations", found.visits)?;
        Ok(d)
    }
}

trait Prober: Send + Sync {
    fn probe(&self, state: &dyn Ops) -> Result<Option<(f32, u16)>, String>;
}

struct TypedProber<G: HouseGame> {
    oracle: Arc<dyn Oracle<G>>,
}

impl<G: HouseGame> Prober for TypedProber<G> {
    fn probe(&self, state: &dyn Ops) -> Result<Option<(f32, u16)>, String> {
        let g = typed::<G>(state, "tables")?;
        Ok(self.oracle.exact(g).map(|e| (e.value, e.plies)))
    }
}

/// A game's endgame tables (Jungle's, built by `junglezero tb build`).
#[pyclass(module = "junglezero._native", name = "Tablebase", frozen)]
pub struct Tablebase {
    prober: Box<dyn Prober>,
}

#[pymethods]
impl Tablebase {
    /// The tables in folder `dir` for `game` under `rules` (the game's defaults when None).
    #[new]
    #[pyo3(signature = (dir, game = "jungle", rules = None))]
    fn new(py: Python<'_>, dir: &str, game: &str, rules: Option<&str>) -> PyResult<Tablebase> {
        let start = crate::state::start(game, rules).map_err(fail)?;
        let name = start.game();
        let mut config = Config::default();
        config.tablebase.dir = dir.to_string();
        let prober = py.detach(|| {
            junglezero::with_game!(name, G => {
                let g = typed::<G>(start.as_ref(), "tables")?;
                let oracle = <G as RunGame>::oracle_under(&config, g.game_rules()).map_err(|e| format!("{e:#}"))?;
                let oracle = oracle.ok_or_else(|| format!("the {} game has no endgame tables", G::NAME))?;
                Ok::<Box<dyn Prober>, String>(Box::new(TypedProber::<G> { oracle }))
            })
        });
        Ok(Tablebase { prober: prober.map_err(fail)? })
    }

    /// The exact result for the player to move: (value, plies) with value 1 a win, -1 a
    /// loss, 0 a draw, and plies to the end with best play; None when the tables do not
    /// hold the position.
    fn probe(&self, state: &PyState) -> PyResult<Option<(f32, u16)>> {
        self.prober.probe(state.inner.as_ref()).map_err(fail)
    }
}
