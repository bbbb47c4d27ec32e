//! Jungle's teacher: the alpha-beta engine scores every legal move by a shallow search and
//! plays the games that teach the first network (see [`crate::selfplay::teacher`] for the
//! targets and the `[teacher]` settings), and finishes self-play's long games.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::alphabeta::{Engine, Eval, EvalWeights, Limits, SearchConfig, WIN, WIN_BOUND};
use crate::game::{Game, Outcome, Turn};
use crate::jungle::{JungleGame, Move, Rules};
use crate::selfplay::record::{GameRecord, MoveRecord};
use crate::selfplay::slot::PlayOut;
use crate::selfplay::teacher::{TARGET_TOTAL, TeacherConfig, score_value};
use crate::selfplay::worker::Handover;

/// How self-play hands long games over: once a game has `after_plies` plies, a teacher built
/// from these settings plays both sides to the end, its moves recorded with teacher targets.
/// Games that would otherwise shuffle into the ply cap end with a real result, and the network
/// sees how the engine converts (or holds) the endgames it reached.
#[derive(Clone, Debug)]
pub struct Finisher {
    pub after_plies: u32,
    pub teacher: TeacherConfig,
    pub search: SearchConfig,
    pub eval: EvalWeights,
    pub rules: Rules,
}

impl Finisher {
    /// The finisher `[selfplay]` asks for (`None` when `finish_after_plies` is 0).
    pub fn from_settings(
        selfplay: &crate::selfplay::SelfplayConfig,
        teacher: &TeacherConfig,
        search: &SearchConfig,
        eval: &EvalWeights,
        rules: Rules,
    ) -> Option<Finisher> {
        (selfplay.finish_after_plies > 0).then(|| Finisher {
            after_plies: selfplay.finish_after_plies,
            teacher: TeacherConfig { depth: selfplay.finish_depth, ..teacher.clone() },
            search: search.clone(),
            eval: eval.clone(),
            rules,
        })
    }

    pub fn build(&self) -> Teacher {
        Teacher::new(&self.teacher, &self.search, &self.eval, self.rules)
    }

    /// The hand-over self-play workers use: a teacher per worker thread.
    pub fn handover(&self) -> Handover<JungleGame> {
        let spec = self.clone();
        Handover {
            after_plies: self.after_plies,
            name: format!("alphabeta:depth={}", self.teacher.depth),
            build: Arc::new(move || Box::new(spec.build()) as Box<dyn PlayOut<JungleGame>>),
        }
    }
}

impl PlayOut<JungleGame> for Teacher {
    fn play_out(&mut self, g: &mut JungleGame, moves: &mut Vec<MoveRecord<Move>>) -> Outcome {
        Teacher::play_out(self, g, moves)
    }
}

/// A move's score for the side to move (centi-units; forced results near ±`WIN`).
struct Scored {
    mv: Move,
    score: i32,
}

/// Plays teacher games with one engine (one thread).
pub struct Teacher {
    engine: Engine,
    config: TeacherConfig,
    rules: Rules,
    scored: Vec<Scored>,
    weights: Vec<f32>,
}

impl Teacher {
    pub fn new(config: &TeacherConfig, search: &SearchConfig, eval: &EvalWeights, rules: Rules) -> Teacher {
        let mut s = search.clone();
        s.hash_mb = config.hash_mb;
        s.threads = 1;
        Teacher { engine: Engine::new(&s, Eval::new(eval, rules)), config: config.clone(), rules, scored: Vec::new(), weights: Vec::new() }
    }

    /// Scores every legal move of `g` (which must be a live position) into `self.scored`,
    /// best first.
    fn score_moves(&mut self, g: &JungleGame) {
        self.scored.clear();
        let mover = g.side_to_move();
        let child_limits = Limits::depth(self.config.depth.saturating_sub(1).max(1));
        for &mv in g.legal_moves().iter() {
            let mut child = g.clone();
            child.play_move_unchecked(mv);
            let score = match child.turn() {
                Turn::Over(o) => match o.winner {
                    None => 0,
                    Some(w) if w == mover.player() => WIN - 1,
                    Some(_) => -(WIN - 1),
                },
                _ if self.config.depth <= 1 => -self.engine.eval().evaluate(child.position()),
                _ => {
                    let r = self.engine.search(&child, &child_limits, &mut |_| {});
                    // A forced result found below the root is one ply further from here.
                    let v = -r.value;
                    if v >= WIN_BOUND {
                        v - 1
                    } else if v <= -WIN_BOUND {
                        v + 1
                    } else {
                        v
                    }
                }
            };
            self.scored.push(Scored { mv, score });
        }
        self.scored.sort_by_key(|s| std::cmp::Reverse(s.score));
    }

    /// Softmax weights of the scored moves at `temperature`, into `self.weights`.
    fn softmax(&mut self, temperature: f32) {
        let best = self.scored.first().map_or(0, |s| s.score);
        self.weights.clear();
        for s in &self.scored {
            // Clamp so that forced results act as very large, finite differences.
            let d = (s.score - best).max(-10_000) as f32;
            self.weights.push((d / temperature).exp());
        }
        let total: f32 = self.weights.iter().sum();
        for w in self.weights.iter_mut() {
            *w /= total;
        }
    }

    /// Scores every legal move of the live position `g` and returns the move to play with its
    /// targets: the policy `softmax(score / policy_temperature)` as integer counts summing to
    /// exactly 1000, the value `tanh(best / value_scale)`. The move is sampled from
    /// `softmax(score / play_temperature)` when `rng` is given, else the best-scored one.
    fn teach(&mut self, g: &JungleGame, rng: Option<&mut ChaCha8Rng>) -> MoveRecord<Move> {
        self.score_moves(g);
        let value = score_value(self.scored[0].score, self.config.value_scale);
        self.softmax(self.config.policy_temperature);
        let mut visits: Vec<(Move, u32)> = Vec::with_capacity(self.scored.len());
        for (s, &w) in self.scored.iter().zip(&self.weights) {
            let n = (w * TARGET_TOTAL).round() as u32;
            if n > 0 {
                visits.push((s.mv, n));
            }
        }
        // Rounding loses or adds a few units over many small weights: the best move (first,
        // at least 1/len of the total) absorbs the difference so every target sums exactly.
        let sum: u32 = visits.iter().map(|v| v.1).sum();
        visits[0].1 = (visits[0].1 + TARGET_TOTAL as u32).saturating_sub(sum).max(1);
        let mv = match rng {
            Some(rng) => {
                self.softmax(self.config.play_temperature);
                let mut x: f32 = rng.random();
                let mut pick = self.scored[0].mv;
                for (s, &w) in self.scored.iter().zip(&self.weights) {
                    x -= w;
                    if x <= 0.0 {
                        pick = s.mv;
                        break;
                    }
                }
                pick
            }
            None => self.scored[0].mv,
        };
        MoveRecord { mv, full_search: true, root_value: value, visits }
    }

    /// Plays both sides of `g` to the end with the best-scored moves, appending each move with
    /// its targets to `moves` (how self-play hands long games over, `selfplay.finish_after_plies`).
    pub fn play_out(&mut self, g: &mut JungleGame, moves: &mut Vec<MoveRecord<Move>>) -> Outcome {
        loop {
            match g.turn() {
                Turn::Over(o) => return o,
                Turn::Chance => unreachable!("Jungle has no chance events"),
                Turn::Player(_) => {}
            }
            let rec = self.teach(g, None);
            g.play_move_unchecked(rec.mv);
            moves.push(rec);
        }
    }

    /// One game from the start position, seeded by `seed`.
    pub fn play_game(&mut self, seed: u64) -> GameRecord<JungleGame> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut g = JungleGame::start(self.rules);
        let mut record = GameRecord::starting(&g, &format!("alphabeta:depth={}", self.config.depth), seed);
        record.moves.reserve(200);
        self.engine.clear();
        let outcome: Outcome = loop {
            let ply = record.moves.len() as u32;
            match g.turn() {
                Turn::Over(o) => break o,
                Turn::Chance => unreachable!("Jungle has no chance events"),
                Turn::Player(_) => {}
            }
            if ply < self.config.opening_plies {
                let legal = g.legal_moves();
                let mv = legal[rng.random_range(0..legal.len())];
                record.moves.push(MoveRecord { mv, full_search: false, root_value: 0.0, visits: Vec::new() });
                g.play_move_unchecked(mv);
                continue;
            }
            let sample = ply < self.config.opening_plies + self.config.sample_plies;
            let rec = self.teach(&g, sample.then_some(&mut rng));
            g.play_move_unchecked(rec.mv);
            record.moves.push(rec);
        };
        record.winner = outcome.winner;
        record.reason = outcome.reason;
        record
    }
}

/// A batch of teacher games: the engine's settings and which games to play.
pub struct TeacherRun<'a> {
    pub config: &'a TeacherConfig,
    pub search: &'a SearchConfig,
    pub eval: &'a EvalWeights,
    pub rules: Rules,
    /// Game indices `first..first + games` are played, each seeded from `seed` and its index.
    pub first: u64,
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
}

/// Plays the teacher games of `run` on its threads, handing each finished game to `on_game`
/// on the calling thread. Stops early when `stop` is raised or `on_game` fails; `on_tick` runs
/// about every 200 ms.
pub fn play_games<E>(
    run: &TeacherRun,
    stop: &AtomicBool,
    on_game: impl FnMut(GameRecord<JungleGame>) -> Result<(), E>,
    on_tick: impl FnMut(),
) -> Result<(), E> {
    let next = AtomicU64::new(0);
    let work = |tx: mpsc::Sender<GameRecord<JungleGame>>, quit: &AtomicBool| {
        let mut teacher = Teacher::new(run.config, run.search, run.eval, run.rules);
        while !quit.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= run.games {
                return;
            }
            if tx.send(teacher.play_game(crate::selfplay::slot::game_seed(run.seed, run.first + i))).is_err() {
                return;
            }
        }
    };
    crate::selfplay::pool::run_pool(run.threads, work, on_game, on_tick)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::record::{decode_shard, encode_shard};

    fn small() -> TeacherConfig {
        TeacherConfig { games: 1, depth: 2, sample_plies: 6, ..TeacherConfig::default() }
    }

    #[test]
    fn targets_are_distributions_over_legal_moves_and_the_record_replays() {
        let rules = Rules { max_plies: 60, ..Rules::default() };
        let mut t = Teacher::new(&small(), &SearchConfig::default(), &EvalWeights::default(), rules);
        let rec = t.play_game(7);
        assert_eq!(rec.moves.len(), 60.min(rec.moves.len()));
        let mut targets = 0;
        rec.replay(|g, m| {
            if !m.full_search {
                assert!(m.visits.is_empty());
                return;
            }
            targets += 1;
            let legal = g.legal_moves();
            let total: u32 = m.visits.iter().map(|v| v.1).sum();
            assert_eq!(total, 1000, "a target sums to exactly 1000");
            for (mv, _) in &m.visits {
                assert!(legal.contains(mv), "target move {mv} is legal");
            }
            assert!((-1.0..=1.0).contains(&m.root_value));
        })
        .unwrap();
        assert_eq!(targets, rec.moves.len() - 4, "every move after the 4 opening plies is a target");
        // Same seed, same game.
        assert_eq!(t.play_game(7), rec);
    }

    #[test]
    fn a_winning_capture_gets_the_target_and_value() {
        // Blue has only its Rat, on a4; Red's Lion on a3 takes it and wins by annihilation.
        let rules = Rules::default();
        let g = JungleGame::from_fen("7/7/7/7/7/r6/L6/7/E6 w", rules).unwrap();
        let mut t = Teacher::new(&small(), &SearchConfig::default(), &EvalWeights::default(), rules);
        t.score_moves(&g);
        assert_eq!(t.scored[0].mv.to_string(), "a3a4");
        assert!(t.scored[0].score >= WIN_BOUND);
        assert_eq!(score_value(t.scored[0].score, 500.0), 1.0);
        t.softmax(50.0);
        assert!(t.weights[0] > 0.99);
    }

    #[test]
    fn teacher_games_round_trip_through_the_shard_format() {
        let rules = Rules { max_plies: 40, ..Rules::default() };
        let mut t = Teacher::new(&small(), &SearchConfig::default(), &EvalWeights::default(), rules);
        let games = vec![t.play_game(1), t.play_game(2)];
        let back = decode_shard(&encode_shard(&games)).unwrap();
        assert_eq!(back, games);
    }
}
