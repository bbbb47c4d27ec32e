//! junglezero's games, search and networks for Python: the native half of the `junglezero`
//! package (docs/python.md). The Python half (`python/junglezero/`) turns the byte buffers
//! returned here into numpy arrays and registers the games with OpenSpiel and PettingZoo.
//!
//! Every call that searches, evaluates or steps many games releases the interpreter lock while
//! it works. Errors are Python exceptions (`junglezero.JungleZeroError`, a `ValueError`)
//! with the same one-line messages the command line prints; nothing here aborts the
//! interpreter.

mod batch;
mod search;
mod state;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};

use state::Ops;

create_exception!(_native, JungleZeroError, PyValueError, "A bad input to junglezero: an illegal action, a bad FEN, a model of another game.");

/// The error of a failed call, as Python sees it.
pub(crate) fn fail(message: impl Into<String>) -> PyErr {
    JungleZeroError::new_err(message.into())
}

/// A game of the registry under its rules: what it is, and its states.
#[pyclass(module = "junglezero._native", name = "Game", frozen)]
pub struct PyGame {
    start: Box<dyn Ops>,
    facts: state::Facts,
}

#[pymethods]
impl PyGame {
    /// `Game("jungle")`, `Game("flip")`, `Game("jungle", rules="repetition=draw")`.
    #[new]
    #[pyo3(signature = (name = "jungle", rules = None))]
    fn new(name: &str, rules: Option<&str>) -> PyResult<PyGame> {
        let start = state::start(name, rules).map_err(fail)?;
        let facts = start.facts();
        Ok(PyGame { start, facts })
    }

    /// The game's name in the registry ("jungle", "flip").
    #[getter]
    fn name(&self) -> &'static str {
        self.facts.game.name()
    }

    /// The rules as `key=value,...` switches (every switch written out).
    #[getter]
    fn rules(&self) -> String {
        self.facts.rules.clone()
    }

    /// (planes, rows, cols) of an observation.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let s = self.facts.shape;
        (s.planes, s.rows, s.cols)
    }

    /// The size of the fixed action space (the network's policy).
    #[getter]
    fn num_actions(&self) -> usize {
        self.facts.shape.actions()
    }

    /// How many chance outcomes the game numbers (0 without chance).
    #[getter]
    fn num_chance_outcomes(&self) -> usize {
        self.facts.chance_outcomes
    }

    /// An upper bound on a game's length in plies under these rules, or None when only the
    /// repetition rule ends long games.
    #[getter]
    fn max_game_length(&self) -> Option<u32> {
        self.facts.ply_bound
    }

    /// The start position.
    fn new_initial_state(&self) -> PyState {
        PyState { inner: self.start.boxed() }
    }

    /// A state from a position's text (Jungle: FEN; the flip game: its position string).
    #[allow(clippy::wrong_self_convention)] // OpenSpiel's and the package's name for it
    fn from_fen(&self, text: &str) -> PyResult<PyState> {
        Ok(PyState { inner: self.start.at_position(text).map_err(fail)? })
    }

    fn __repr__(&self) -> String {
        format!("Game('{}', rules='{}')", self.facts.game.name(), self.facts.rules)
    }
}

/// One game state, in OpenSpiel's terms: players 0 and 1, chance -1, terminal -4.
#[pyclass(module = "junglezero._native", name = "State")]
pub struct PyState {
    pub(crate) inner: Box<dyn Ops>,
}

#[pymethods]
impl PyState {
    /// A state of `game` (under `rules`) at a position's text: `State.from_fen(fen)`.
    #[staticmethod]
    #[pyo3(signature = (text, game = "jungle", rules = None))]
    fn from_fen(text: &str, game: &str, rules: Option<&str>) -> PyResult<PyState> {
        let start = state::start(game, rules).map_err(fail)?;
        Ok(PyState { inner: start.at_position(text).map_err(fail)? })
    }

    fn current_player(&self) -> i32 {
        self.inner.current_player()
    }

    fn is_terminal(&self) -> bool {
        self.inner.current_player() == state::TERMINAL
    }

    fn is_chance_node(&self) -> bool {
        self.inner.current_player() == state::CHANCE
    }

    /// The legal actions in ascending order (nature's outcomes at a chance node).
    fn legal_actions(&self) -> Vec<i64> {
        self.inner.legal_actions()
    }

    /// A numpy bool array over the fixed action space: true where legal (all false at a
    /// chance node and at the end).
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let actions = self.inner.shape().actions();
        let mut out = vec![0u8; actions];
        self.inner.legal_mask(&mut out);
        array(py, &out, "?", &[actions])
    }

    /// At a chance node, (outcome, probability) pairs; empty elsewhere.
    fn chance_outcomes(&self) -> Vec<(i64, f64)> {
        self.inner.chance_outcomes()
    }

    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        self.inner.apply_action(action).map_err(fail)
    }

    fn action_to_string(&self, action: i64) -> PyResult<String> {
        self.inner.action_to_string(action).map_err(fail)
    }

    fn string_to_action(&self, text: &str) -> PyResult<i64> {
        self.inner.string_to_action(text).map_err(fail)
    }

    /// Each player's result: +1 a win, -1 a loss, 0 a draw (and 0 before the end).
    fn returns(&self) -> (f64, f64) {
        let r = self.inner.returns();
        (r[0], r[1])
    }

    /// Why the game ended ("den", "annihilation", "no-capture-limit", ...), or None.
    fn end_reason(&self) -> Option<&'static str> {
        self.inner.end_reason()
    }

    /// The network's input planes, a float32 numpy array (planes, rows, cols), from the view
    /// of the player to move.
    fn observation_tensor<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let shape = self.inner.shape();
        let mut out = vec![0f32; shape.input_size()];
        self.inner.encode(&mut out);
        array(py, &floats_to_bytes(&out), "<f4", &[shape.planes, shape.rows, shape.cols])
    }

    fn to_fen(&self) -> String {
        self.inner.to_text()
    }

    fn ply(&self) -> u32 {
        self.inner.ply()
    }

    /// The position's hash as search sees it.
    fn position_hash(&self) -> u64 {
        self.inner.hash()
    }

    /// Leaves of the move tree `depth` plies deep, as `junglezero perft` counts them.
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let inner = &self.inner;
        py.detach(|| inner.perft(depth))
    }

    /// The size of the fixed action space.
    fn num_actions(&self) -> usize {
        self.inner.shape().actions()
    }

    fn game_name(&self) -> &'static str {
        self.inner.game().name()
    }

    fn rules(&self) -> String {
        self.inner.facts().rules
    }

    fn clone(&self) -> PyState {
        PyState { inner: self.inner.boxed() }
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    /// Pickled as its record: game, rules, the position it started from and the moves since.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Record)> {
        let (root, moves) = self.inner.record();
        let facts = self.inner.facts();
        Ok((py.import("junglezero._native")?.getattr("_restore")?, (facts.game.name(), facts.rules, root, moves)))
    }

    fn __str__(&self) -> String {
        self.inner.diagram()
    }

    fn __repr__(&self) -> String {
        format!("State('{}', '{}')", self.inner.game().name(), self.inner.to_text())
    }
}

/// What a pickled state keeps: game, rules, the position it started from, the moves since.
type Record = (&'static str, String, String, Vec<u16>);

/// A writable numpy array of `dtype` and `shape` holding a copy of `bytes`.
pub(crate) fn array<'py>(py: Python<'py>, bytes: &[u8], dtype: &str, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let flat = numpy.call_method1("frombuffer", (PyByteArray::new(py, bytes), dtype))?;
    flat.call_method1("reshape", (PyTuple::new(py, shape)?,))
}

/// The bytes of `value` as a contiguous numpy array of `dtype` with `count` elements (any
/// array-like: a list, a numpy array of another type).
pub(crate) fn bytes_of(value: &Bound<'_, PyAny>, dtype: &str, count: usize, what: &str) -> PyResult<Vec<u8>> {
    let py = value.py();
    let numpy = py.import("numpy")?;
    let a = numpy.call_method1("ascontiguousarray", (value, dtype)).map_err(|e| fail(format!("{what}: {e}")))?;
    let size: usize = a.getattr("size")?.extract()?;
    if size != count {
        return Err(fail(format!("{what}: {count} values wanted, got {size}")));
    }
    let b = a.call_method0("tobytes")?;
    Ok(b.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// Little-endian float32 bytes (numpy's `<f4`).
pub(crate) fn floats_to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A pickled state back (see `State.__reduce__`).
#[pyfunction]
fn _restore(name: &str, rules: &str, root: &str, moves: Vec<u16>) -> PyResult<PyState> {
    Ok(PyState { inner: state::restore(name, rules, root, &moves).map_err(fail)? })
}

/// The registry's games, by name.
#[pyfunction]
fn games() -> Vec<&'static str> {
    junglezero::registry::GameName::ALL.iter().map(|g| g.name()).collect()
}

/// The positions `junglezero bench player` searches (Jungle FENs), so a benchmark through
/// Python searches the same ones.
#[pyfunction]
fn bench_fens() -> Vec<&'static str> {
    junglezero::alphabeta::bench::BENCH_FENS.to_vec()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("JungleZeroError", m.py().get_type::<JungleZeroError>())?;
    m.add("CHANCE", state::CHANCE)?;
    m.add("TERMINAL", state::TERMINAL)?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyState>()?;
    m.add_class::<batch::Batch>()?;
    m.add_class::<search::Network>()?;
    m.add_class::<search::Mcts>()?;
    m.add_class::<search::Tablebase>()?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(bench_fens, m)?)?;
    m.add_function(wrap_pyfunction!(_restore, m)?)?;
    m.add_function(wrap_pyfunction!(search::alphabeta, m)?)?;
    Ok(())
}
