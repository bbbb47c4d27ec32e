//! Network against network, batched: each worker keeps many games in flight, and the leaves
//! of every game whose side to move belongs to network A go to A in one call (likewise B). This
//! is how `train` gates candidates without feeding a GPU one position at a time.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::adjudicate::Adjudicator;
use super::match_game::MatchGame;
use super::openings::{Opening, random_openings, start_game};
use super::play::{MatchOutcome, MatchSettings, PairBook, PlayedGame, known_outcome};
use crate::game::{Encode, Seat, Turn};
use crate::mcts::cache::NnCache;
use crate::mcts::player::value_to_cp;
use crate::mcts::{Batch, Evaluator, InFlight, MctsConfig, Search, Step};

struct Slot<G: MatchGame + Encode> {
    game: G,
    /// The moves from the start (opening and nature's draws included).
    moves: Vec<G::Move>,
    deal: G::Deal,
    /// Searches of A and B (index 0 and 1), kept in step with the game.
    searches: [Search<G>; 2],
    pair: usize,
    a_red: bool,
    opening_plies: usize,
    /// Simulations per move, and those run for the move being searched.
    sims: u32,
    sims_done: u32,
    active: bool,
    judge: Adjudicator,
}

/// The side to move searches with its own network: A's leaves go to evaluator 0, B's to 1.
impl<G: MatchGame + Encode> InFlight<G> for Slot<G> {
    fn gather(&mut self, caches: &mut [NnCache]) -> Option<usize> {
        if !self.active {
            return None;
        }
        let p = self.mover();
        while self.sims_done < self.sims {
            self.sims_done += 1;
            if let Step::NeedsEval(_) = self.searches[p].select(&mut caches[p]) {
                return Some(p);
            }
        }
        None
    }

    fn search(&self, e: usize) -> &Search<G> {
        &self.searches[e]
    }

    fn search_mut(&mut self, e: usize) -> &mut Search<G> {
        &mut self.searches[e]
    }
}

impl<G: MatchGame + Encode> Slot<G> {
    fn mover(&self) -> usize {
        let a_seat = if self.a_red { Seat::First } else { Seat::Second };
        usize::from(self.game.mover() != a_seat)
    }

    /// Plays `mv` in the game and both searches (keeping their subtrees with
    /// `mcts.play_tree_reuse`, as the players do).
    fn play(&mut self, mv: G::Move) {
        self.game.play_unchecked(mv);
        self.moves.push(mv);
        for search in &mut self.searches {
            if search.config().play_tree_reuse {
                search.advance(mv);
            } else {
                search.reset(&self.game);
            }
        }
    }

    /// Nature's draws under the deal, in the game and both searches.
    fn resolve_chance(&mut self) {
        while matches!(self.game.turn(), Turn::Chance) {
            let Some(m) = self.game.dealt(&self.deal) else { return };
            self.play(m);
        }
    }
}

/// How two networks search in a batched match: `sims` simulations a move with `mcts`, and
/// `games_in_flight` games per worker whose leaves form one batch per network.
#[derive(Clone, Copy, Debug)]
pub struct NetworkSearch<'a> {
    pub mcts: &'a MctsConfig,
    pub sims: u32,
    pub games_in_flight: usize,
}

/// Plays a match between two networks searching as `search` says, from the openings of `book`
/// (pair N plays opening N, round and round; each from the start position) or, without one,
/// random openings as `s` says.
pub fn run_network_match<G: MatchGame + Encode, A: Evaluator<G>, B: Evaluator<G>>(
    a: &A,
    b: &B,
    search: NetworkSearch,
    s: &MatchSettings<G>,
    book: Option<&[Opening<G>]>,
    mut on_game: impl FnMut(&PlayedGame<G>, &super::stats::Tally, Option<f64>),
) -> MatchOutcome<G> {
    let NetworkSearch { mcts, sims, games_in_flight } = search;
    let pairs = s.games.div_ceil(2).max(1) as usize;
    let openings = match book {
        Some(b) => b.to_vec(),
        None => random_openings::<G>(&s.rules, s.opening_plies, pairs, s.seed),
    };
    if openings.is_empty() {
        return MatchOutcome::default();
    }
    let jobs: Vec<(usize, bool)> = (0..pairs).flat_map(|p| [(p, true), (p, false)]).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<PlayedGame<G>>();
    let workers = s.concurrency.max(1).min(jobs.len());
    let quiet = MctsConfig { dirichlet_fraction: 0.0, ..mcts.clone() };
    let mut out = MatchOutcome { openings: openings.len(), ..MatchOutcome::default() };
    let mut book = PairBook::default();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, stop, jobs, openings, quiet) = (&next, &stop, &jobs, &openings, &quiet);
            scope.spawn(move || {
                // At most this worker's share of the games, so that every worker gets some.
                let n = games_in_flight.max(1).min(jobs.len().div_ceil(workers));
                let mut batch = Batch::new::<G>(2, n, quiet.cache_entries);
                let evaluators: [&dyn Evaluator<G>; 2] = [a, b];
                let root = G::match_start(&s.rules);
                let mut slots: Vec<Slot<G>> = (0..n)
                    .map(|_| Slot {
                        game: root.clone(),
                        moves: Vec::new(),
                        deal: openings[0].deal.clone(),
                        searches: [budgeted(Search::new(root.clone(), quiet, 0), sims), budgeted(Search::new(root.clone(), quiet, 0), sims)],
                        pair: 0,
                        a_red: true,
                        opening_plies: 0,
                        sims,
                        sims_done: 0,
                        active: false,
                        judge: Adjudicator::new(s.adjudication),
                    })
                    .collect();
                let claim = |slot: &mut Slot<G>| {
                    if stop.load(Ordering::Relaxed) {
                        return false;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(pair, a_red)) = jobs.get(i) else { return false };
                    let opening = &openings[pair % openings.len()];
                    slot.game = start_game(&s.rules, opening);
                    slot.moves.clone_from(&opening.moves);
                    slot.deal = opening.deal.clone();
                    // Seeded by the game, so that chance nodes sampled inside the searches (the
                    // flip game's) repeat whichever worker and slot play it.
                    let game_seed = s.seed ^ (pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(a_red);
                    for (k, search) in slot.searches.iter_mut().enumerate() {
                        search.reset(&slot.game);
                        search.reseed(game_seed.rotate_left(k as u32 * 17));
                    }
                    slot.resolve_chance();
                    (slot.pair, slot.a_red, slot.opening_plies, slot.sims_done, slot.active) = (pair, a_red, opening.len(), 0, true);
                    slot.judge = Adjudicator::new(s.adjudication);
                    true
                };
                for slot in slots.iter_mut() {
                    claim(slot);
                }
                loop {
                    batch.round(&mut slots, &evaluators);
                    let mut any = false;
                    for slot in slots.iter_mut() {
                        if !slot.active {
                            continue;
                        }
                        let p = slot.mover();
                        if slot.sims_done >= sims && !slot.searches[p].is_pending() {
                            let Some(mv) = slot.searches[p].best_move() else {
                                slot.active = false;
                                continue;
                            };
                            // The mover's score, as its info line would report it.
                            let score = value_to_cp(slot.searches[p].root_value());
                            let mover = slot.game.mover();
                            slot.play(mv);
                            slot.resolve_chance();
                            slot.sims_done = 0;
                            let over = match slot.game.turn() {
                                Turn::Over(o) => Some(o),
                                _ => known_outcome(s.oracle.as_deref(), &slot.game).or_else(|| slot.judge.note(slot.game.ply(), mover, Some(score))),
                            };
                            if let Some(o) = over {
                                let g = PlayedGame::new(slot.pair, slot.a_red, slot.opening_plies, slot.moves.clone(), o);
                                if tx.send(g).is_err() {
                                    return;
                                }
                                slot.active = false;
                                claim(slot);
                            }
                        }
                        any |= slot.active;
                    }
                    if !any {
                        return;
                    }
                }
            });
        }
        drop(tx);
        for g in rx {
            if out.record(&mut book, g, s.sprt, &mut on_game) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    out.games.sort_by_key(|g| (g.pair, !g.a_red));
    out
}

/// A search planned for `sims` simulations per move.
fn budgeted<G: Encode>(mut s: Search<G>, sims: u32) -> Search<G> {
    s.set_budget(sims);
    s.set_solver(s.config().play_solver);
    s
}
