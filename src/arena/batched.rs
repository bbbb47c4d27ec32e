//! Network against network, batched: each worker keeps many games in flight, and the leaves
//! of every game whose side to move belongs to network A go to A in one call (likewise B). This
//! is how `train` gates candidates without feeding a GPU one position at a time.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::openings::{random_openings, start_game};
use super::play::{MatchOutcome, MatchSettings, PairBook, PlayedGame};
use super::adjudicate::Adjudicator;
use crate::game::{Game, Turn};
use crate::jungle::{JungleGame, Move, Side};
use crate::mcts::cache::NnCache;
use crate::mcts::player::value_to_cp;
use crate::mcts::{Batch, Evaluator, InFlight, MctsConfig, Search, Step};

struct Slot {
    game: JungleGame,
    /// Searches of A and B (index 0 and 1), kept in step with the game.
    searches: [Search<JungleGame>; 2],
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
impl InFlight<JungleGame> for Slot {
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

    fn search(&self, e: usize) -> &Search<JungleGame> {
        &self.searches[e]
    }

    fn search_mut(&mut self, e: usize) -> &mut Search<JungleGame> {
        &mut self.searches[e]
    }
}

impl Slot {
    fn mover(&self) -> usize {
        let a_side = if self.a_red { Side::Red } else { Side::Blue };
        usize::from(self.game.side_to_move() != a_side)
    }
}

/// Plays a match between two networks with `sims` simulations per move.
#[allow(clippy::too_many_arguments)]
pub fn run_network_match<A: Evaluator<JungleGame>, B: Evaluator<JungleGame>>(
    a: &A,
    b: &B,
    mcts: &MctsConfig,
    sims: u32,
    s: &MatchSettings,
    games_in_flight: usize,
    mut on_game: impl FnMut(&PlayedGame, &super::stats::Tally, Option<f64>),
) -> MatchOutcome {
    let pairs = s.games.div_ceil(2).max(1) as usize;
    let openings = random_openings(&s.rules, s.opening_plies, pairs, s.seed);
    let jobs: Vec<(usize, bool)> = (0..pairs).flat_map(|p| [(p, true), (p, false)]).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<PlayedGame>();
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
                let mut batch = Batch::new::<JungleGame>(2, n, quiet.cache_entries);
                let evaluators: [&dyn Evaluator<JungleGame>; 2] = [a, b];
                let root = JungleGame::start(s.rules);
                let mut slots: Vec<Slot> = (0..n)
                    .map(|_| Slot {
                        game: root.clone(),
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
                let claim = |slot: &mut Slot| {
                    if stop.load(Ordering::Relaxed) {
                        return false;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(pair, a_red)) = jobs.get(i) else { return false };
                    let opening = &openings[pair % openings.len()];
                    slot.game = start_game(&s.rules, opening);
                    for search in &mut slot.searches {
                        search.reset(&slot.game);
                    }
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
                            let mv: Option<Move> = slot.searches[p].best_move();
                            let Some(mv) = mv else {
                                slot.active = false;
                                continue;
                            };
                            // The mover's score, as its info line would report it.
                            let score = value_to_cp(slot.searches[p].root_value());
                            let mover = slot.game.side_to_move().player();
                            slot.game.play_move_unchecked(mv);
                            for search in &mut slot.searches {
                                search.advance(mv);
                            }
                            slot.sims_done = 0;
                            let over = match slot.game.turn() {
                                Turn::Over(o) => Some(o),
                                _ => slot.judge.note(slot.game.position().ply(), mover, Some(score)),
                            };
                            if let Some(o) = over {
                                let g = PlayedGame::from_game(slot.pair, slot.a_red, slot.opening_plies, &slot.game, o);
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
fn budgeted(mut s: Search<JungleGame>, sims: u32) -> Search<JungleGame> {
    s.set_budget(sims);
    s
}
