//! One tree searched by several threads, each sending minibatches of leaves to the network
//! (the players' `mcts.play_threads` and `mcts.play_minibatch`). Each thread gathers up to a
//! minibatch of leaves under the tree's lock (parking them with a virtual loss, see
//! `search::parking`), evaluates them without the lock, and completes them under it again;
//! so the network calls of different threads overlap.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::Evaluator;
use super::cache::NnCache;
use super::driver::EvalBuffers;
use super::search::{Search, Step};
use crate::game::Encode;

/// What bounds a parallel search.
pub struct Budget<'a> {
    /// Simulations to run (each parked leaf counts when gathered).
    pub sims: u32,
    pub deadline: Option<Instant>,
    pub stop: &'a AtomicBool,
    /// The search ends when its tree's nodes take this many bytes.
    pub max_tree_bytes: usize,
}

/// The tree and what the threads share, under one lock.
struct Shared<'s, G: Encode> {
    search: &'s mut Search<G>,
    cache: &'s mut NnCache,
    /// Simulations started (gathered) and finished.
    started: u32,
    done: u32,
}

/// One thread's own buffers.
pub struct Lane<G: Encode> {
    bufs: EvalBuffers,
    states: Vec<G>,
    slots: Vec<usize>,
}

impl<G: Encode> Lane<G> {
    pub fn new(minibatch: usize) -> Lane<G> {
        Lane { bufs: EvalBuffers::new::<G>(minibatch), states: Vec::with_capacity(minibatch), slots: Vec::with_capacity(minibatch) }
    }

    /// Leaves it can send the network at once.
    pub fn capacity(&self) -> usize {
        self.bufs.capacity::<G>()
    }
}

/// Runs simulations on `search` with one thread per lane (`minibatch` leaves per network call
/// each) until `budget` says stop. `progress` runs on the calling thread between its batches
/// with the tree and the simulations finished so far. Returns the simulations finished.
pub fn search_parallel<G: Encode, E: Evaluator<G> + ?Sized>(
    search: &mut Search<G>,
    cache: &mut NnCache,
    evaluator: &E,
    lanes: &mut [Lane<G>],
    minibatch: usize,
    budget: &Budget<'_>,
    progress: &mut dyn FnMut(&Search<G>, u32),
) -> u32 {
    let shared = Mutex::new(Shared { search, cache, started: 0, done: 0 });
    let Some((first, rest)) = lanes.split_first_mut() else { return 0 };
    std::thread::scope(|scope| {
        for lane in rest.iter_mut() {
            let shared = &shared;
            scope.spawn(move || while run_batch(shared, evaluator, lane, minibatch, budget, &mut |_, _| {}) {});
        }
        while run_batch(&shared, evaluator, first, minibatch, budget, progress) {}
    });
    shared.into_inner().map_or(0, |s| s.done)
}

/// Gathers, evaluates and completes one minibatch; false when the budget is spent.
fn run_batch<G: Encode, E: Evaluator<G> + ?Sized>(
    shared: &Mutex<Shared<'_, G>>,
    evaluator: &E,
    lane: &mut Lane<G>,
    minibatch: usize,
    budget: &Budget<'_>,
    progress: &mut dyn FnMut(&Search<G>, u32),
) -> bool {
    lane.slots.clear();
    {
        let Ok(mut guard) = shared.lock() else { return false };
        let s = &mut *guard;
        // A proven root (the players' solver) ends the search as the budget does.
        let spent = s.started >= budget.sims || s.search.root_proven() || s.search.tree_bytes() >= budget.max_tree_bytes;
        if spent || budget.stop.load(Ordering::Relaxed) || budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        let want = (minibatch as u32).min(budget.sims - s.started);
        let mut ended_at_once = 0;
        for _ in 0..want {
            match s.search.select(s.cache) {
                Step::Done => {
                    s.started += 1;
                    s.done += 1;
                    ended_at_once += 1;
                }
                Step::NeedsEval(_) => {
                    if let Some(slot) = s.search.park() {
                        lane.slots.push(slot);
                        s.started += 1;
                    }
                }
                Step::Collision => break,
            }
        }
        for (k, &slot) in lane.slots.iter().enumerate() {
            let state = s.search.parked_state(slot);
            state.encode(&mut lane.bufs.inputs[k * G::INPUT_SIZE..(k + 1) * G::INPUT_SIZE]);
            match lane.states.get_mut(k) {
                Some(st) => st.clone_from(state),
                None => lane.states.push(state.clone()),
            }
        }
        if lane.slots.is_empty() {
            if ended_at_once > 0 {
                // Simulations that ended at known values (a den, the tables) finished here.
                progress(s.search, s.done);
                return true;
            }
            // Every line ends at a leaf another thread is evaluating: let it finish.
            drop(guard);
            std::thread::yield_now();
            return true;
        }
    }
    let n = lane.slots.len();
    let refs: Vec<&G> = lane.states[..n].iter().collect();
    let (inputs, out) = lane.bufs.split::<G>(n);
    evaluator.evaluate(&refs, inputs, out);
    let Ok(mut guard) = shared.lock() else { return false };
    let s = &mut *guard;
    for (k, &slot) in lane.slots.iter().enumerate() {
        s.search.complete_parked(slot, lane.bufs.result::<G>(k), s.cache);
    }
    s.done += n as u32;
    progress(s.search, s.done);
    true
}
