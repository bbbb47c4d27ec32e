//! The replay window: training samples from the most recent self-play shards.
//!
//! A sample is a position searched with the full budget: its compact position (the encoder
//! rebuilds the planes), the visit distribution as the policy target and the game's result for
//! the player to move as the value target. Whole shards enter and leave the window, newest last;
//! the window keeps the newest shards holding at least `TrainConfig::window_size` samples.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use rand::{Rng, RngExt};

use crate::game::Seat;
use crate::selfplay::record::{GameRecord, ShardError, read_shard};
use crate::trainable::Trainable;

/// [`Sample::reply`] of the last position of a game.
pub const NO_REPLY: u16 = u16::MAX;

/// The horizon of the short-term value target, in plies: the search values of the plies that
/// follow a position are weighted by `(1 - 1/h)^k` (KataGo's TD value targets).
pub const SHORT_VALUE_HORIZON: f32 = 8.0;

/// The short-term value target of every position of a game, each for the player to move there
/// (`seats[i]`, the seat to move before move `i`): `T_i = (1 - λ) v_i + λ T_{i+1}`, in one
/// seat's view throughout, with `λ = 1 - 1/SHORT_VALUE_HORIZON`, `v_i` the search's root value
/// at ply `i` and, past the last move, the game's result. A ply without a search value (a chance
/// outcome; NaN) passes the value on undiscounted.
pub fn short_values<G: Trainable>(g: &GameRecord<G>, seats: &[Seat]) -> Vec<f32> {
    let lambda = 1.0 - 1.0 / SHORT_VALUE_HORIZON;
    let n = g.moves.len().min(seats.len());
    let view = |seat: Seat, v: f32| if seat == Seat::First { v } else { -v };
    let mut u = g.result_for(Seat::First);
    let mut out = vec![0.0; n];
    for i in (0..n).rev() {
        let v = g.moves[i].root_value;
        if v.is_finite() {
            u = (1.0 - lambda) * view(seats[i], v.clamp(-1.0, 1.0)) + lambda * u;
        }
        out[i] = view(seats[i], u);
    }
    out
}

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample<G: Trainable> {
    /// What the encoder needs to rebuild the planes.
    pub snapshot: G::Snapshot,
    /// Result for the player to move: 0 win, 1 draw, 2 loss.
    pub wdl: u8,
    /// The search's value of the position for the player to move, in [-1, 1].
    pub q: f32,
    /// Plies from this position to the end of its game (the moves-left target).
    pub moves_left: u16,
    /// Plies played in its game before this position (nature's draws included).
    pub ply: u16,
    /// The next decision played after this position's move (the opponent's reply; nature's
    /// draws are passed over), as an action seen from this position's player to move (the
    /// opponent-policy target); [`NO_REPLY`] when the game ended here.
    pub reply: u16,
    /// The short-term value target for the player to move (see [`short_values`]).
    pub short_value: f32,
    /// Where this sample's policy target starts in its shard's target list, and its length.
    pub target_start: u32,
    pub target_len: u8,
}

/// The samples of one shard file.
#[derive(Debug)]
pub struct ShardSamples<G: Trainable> {
    pub path: PathBuf,
    pub games: usize,
    pub samples: Vec<Sample<G>>,
    /// (action, probability) pairs for all samples.
    pub targets: Vec<(u16, f32)>,
}

impl<G: Trainable> ShardSamples<G> {
    /// The policy target of sample `i`.
    pub fn target(&self, i: usize) -> &[(u16, f32)] {
        let s = &self.samples[i];
        &self.targets[s.target_start as usize..s.target_start as usize + s.target_len as usize]
    }
}

/// Turns games into samples. Games played under other rules than `rules` are skipped (and
/// counted) so one run never mixes rule sets, as are games that do not replay: an illegal move,
/// a target move that is not legal where it was searched, or a value that is not a number
/// (a shard can be damaged before its checksum was computed). A skipped game leaves no samples.
pub fn samples_from_games<G: Trainable>(path: &Path, games: &[GameRecord<G>], rules: &G::Rules) -> (ShardSamples<G>, usize) {
    let mut out = ShardSamples { path: path.to_path_buf(), games: 0, samples: Vec::new(), targets: Vec::new() };
    let mut skipped = 0;
    let mut seats = Vec::new();
    let mut plies = Vec::new();
    for g in games {
        if g.rules != *rules {
            skipped += 1;
            continue;
        }
        let (samples_before, targets_before) = (out.samples.len(), out.targets.len());
        let mut damaged = false;
        let mut ply = 0usize;
        seats.clear();
        plies.clear();
        let replayed = g.replay(|state, m| {
            ply += 1;
            seats.push(state.seat_to_move().unwrap_or(Seat::First));
            if damaged || !m.full_search || m.visits.is_empty() {
                return;
            }
            let legal = state.legal_moves();
            if !m.root_value.is_finite() || m.visits.len() > usize::from(u8::MAX) || m.visits.iter().any(|(mv, _)| !legal.contains(mv)) {
                damaged = true;
                return;
            }
            let mover = state.seat_to_move().unwrap_or(Seat::First);
            // In u64: a damaged shard's counts can sum past u32 (found by fuzzing).
            let total: u64 = m.visits.iter().map(|v| u64::from(v.1)).sum();
            if total == 0 {
                return;
            }
            let start = out.targets.len() as u32;
            for &(mv, n) in &m.visits {
                let Some(a) = state.try_action(mv) else {
                    damaged = true;
                    return;
                };
                out.targets.push((a as u16, n as f32 / total as f32));
            }
            let r = g.result_for(mover);
            let wdl = if r > 0.0 {
                0
            } else if r < 0.0 {
                2
            } else {
                1
            };
            plies.push(ply - 1);
            out.samples.push(Sample {
                snapshot: state.snapshot(),
                wdl,
                q: m.root_value.clamp(-1.0, 1.0),
                moves_left: (g.moves.len() + 1 - ply).min(usize::from(u16::MAX)) as u16,
                ply: (ply - 1).min(usize::from(u16::MAX)) as u16,
                // The next move is checked when it is replayed; a damaged one that has no action
                // here (not even a step) has none (and its game is skipped then).
                // The opponent's next decision: nature's draw after a flip is passed over.
                reply: g.moves[ply..].iter().find(|r| !G::is_chance_move(r.mv)).and_then(|r| state.try_action(r.mv)).map_or(NO_REPLY, |a| a as u16),
                short_value: 0.0,
                target_start: start,
                target_len: m.visits.len() as u8,
            });
        });
        if replayed.is_err() || damaged {
            out.samples.truncate(samples_before);
            out.targets.truncate(targets_before);
            skipped += 1;
        } else {
            let short = short_values(g, &seats);
            for (s, &p) in out.samples[samples_before..].iter_mut().zip(&plies) {
                s.short_value = short[p];
            }
            out.games += 1;
        }
    }
    (out, skipped)
}

/// Reads a shard file into samples.
pub fn load_shard<G: Trainable>(path: &Path, rules: &G::Rules) -> Result<(ShardSamples<G>, usize), ShardError> {
    let games = read_shard::<G>(path)?;
    Ok(samples_from_games(path, &games, rules))
}

/// The window of recent shards.
#[derive(Debug)]
pub struct ReplayWindow<G: Trainable> {
    shards: VecDeque<ShardSamples<G>>,
    len: usize,
}

impl<G: Trainable> Default for ReplayWindow<G> {
    fn default() -> Self {
        ReplayWindow { shards: VecDeque::new(), len: 0 }
    }
}

impl<G: Trainable> ReplayWindow<G> {
    pub fn new() -> ReplayWindow<G> {
        ReplayWindow::default()
    }

    /// Samples in the window.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Shard files in the window, oldest first.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.shards.iter().map(|s| s.path.as_path())
    }

    /// The shards in the window, oldest first.
    pub fn shards(&self) -> impl Iterator<Item = &ShardSamples<G>> {
        self.shards.iter()
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.shards.iter().any(|s| s.path == path)
    }

    /// Adds the newest shard.
    pub fn push(&mut self, shard: ShardSamples<G>) {
        self.len += shard.samples.len();
        self.shards.push_back(shard);
    }

    /// Drops the oldest shards while the rest still hold at least `size` samples.
    pub fn trim(&mut self, size: usize) {
        while let Some(front) = self.shards.front() {
            if self.len - front.samples.len() >= size {
                self.len -= front.samples.len();
                self.shards.pop_front();
            } else {
                break;
            }
        }
    }

    /// A uniformly random sample: (its shard, its index).
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Option<(&ShardSamples<G>, usize)> {
        if self.len == 0 {
            return None;
        }
        let mut k = rng.random_range(0..self.len);
        for s in &self.shards {
            if k < s.samples.len() {
                return Some((s, k));
            }
            k -= s.samples.len();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Reason;
    use crate::jungle::encode::action_index;
    use crate::jungle::{JungleGame, Rules, START_FEN, Side, parse_move};
    use crate::selfplay::record::MoveRecord;

    fn game(visits: &[&str], root_value: f32) -> GameRecord<JungleGame> {
        let mv = parse_move("a3a4").unwrap();
        let visits = visits.iter().map(|t| (parse_move(t).unwrap(), 10)).collect();
        GameRecord {
            rules: Rules::default(),
            model_id: "test".into(),
            seed: 1,
            root: START_FEN.into(),
            moves: vec![MoveRecord { mv, full_search: true, root_value, visits }],
            winner: None,
            reason: Reason::MoveCap,
            would_resign: None,
        }
    }

    #[test]
    fn damaged_games_are_skipped_whole_and_never_panic() {
        let path = Path::new("test.jzg");
        let good = game(&["a3a4", "g3g4"], 0.1);
        let (s, skipped) = samples_from_games(path, std::slice::from_ref(&good), &Rules::default());
        assert_eq!((s.games, s.samples.len(), s.targets.len(), skipped), (1, 1, 2, 0));
        // A target move no piece can make (not even a step: action_index has no direction for
        // it), an opponent's move, a value that is not a number.
        for bad in [game(&["a3a4", "a1c5"], 0.1), game(&["a7a6"], 0.1), game(&["a3a4"], f32::NAN)] {
            let (s, skipped) = samples_from_games(path, &[good.clone(), bad, good.clone()], &Rules::default());
            assert_eq!((s.games, s.samples.len(), s.targets.len(), skipped), (2, 2, 4, 1));
        }
        // Visit counts whose sum does not fit in 32 bits still make a distribution.
        let mut huge = game(&["a3a4", "g3g4"], 0.1);
        huge.moves[0].visits[0].1 = u32::MAX;
        let (s, _) = samples_from_games(path, &[huge], &Rules::default());
        let sum: f32 = s.targets.iter().map(|t| t.1).sum();
        assert!((sum - 1.0).abs() < 1e-6 && s.targets.iter().all(|t| t.1 >= 0.0), "{:?}", s.targets);
    }

    #[test]
    fn the_moves_left_target_is_the_plies_to_the_end_of_the_game() {
        // Five plies; the searched ones (full, with visits) become samples.
        let texts = ["a3a4", "g7g6", "a4a5", "g6g5", "g3g4"];
        let mut moves = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            let mv = parse_move(t).unwrap();
            let full = i != 1;
            moves.push(MoveRecord { mv, full_search: full, root_value: 0.0, visits: if full { vec![(mv, 3)] } else { Vec::new() } });
        }
        let g = GameRecord { moves, ..game(&["a3a4"], 0.0) };
        let (s, skipped) = samples_from_games(Path::new("t.jzg"), &[g], &Rules::default());
        assert_eq!(skipped, 0);
        let left: Vec<u16> = s.samples.iter().map(|x| x.moves_left).collect();
        assert_eq!(left, [5, 3, 2, 1], "plies from each searched position to the end");
        // The reply of each searched position is the next move, as its player to move sees it:
        // g7g6 after a3a4 (Red to move), g6g5 after a4a5, g3g4 after g6g5 (Blue to move), none
        // after the last move.
        let reply = |side, t: &str| action_index(side, parse_move(t).unwrap()) as u16;
        let replies: Vec<u16> = s.samples.iter().map(|x| x.reply).collect();
        assert_eq!(replies, [reply(Side::Red, "g7g6"), reply(Side::Red, "g6g5"), reply(Side::Blue, "g3g4"), NO_REPLY]);
        assert_ne!(reply(Side::Red, "g7g6"), reply(Side::Blue, "g7g6"), "each side sees the board from its own end");
    }

    #[test]
    fn the_short_term_value_discounts_the_next_search_values_into_the_result() {
        // Red plays a3a4 (root value 0.5), Blue g7g6 (-0.2), Red a4a5 (0.8); Red wins.
        let moves = [("a3a4", 0.5), ("g7g6", -0.2), ("a4a5", 0.8)]
            .iter()
            .map(|&(t, v)| MoveRecord { mv: parse_move(t).unwrap(), full_search: true, root_value: v, visits: vec![(parse_move(t).unwrap(), 1)] })
            .collect();
        let g = GameRecord { moves, winner: Some(Seat::First), reason: Reason::Den, ..game(&["a3a4"], 0.0) };
        // λ = 7/8. Backwards from Blue to move after the last move (a loss, -1):
        // T2 = 0.8/8 + 7/8 * 1 = 0.975 (Red), T1 = -0.2/8 - 7/8 * 0.975 = -0.878125 (Blue),
        // T0 = 0.5/8 + 7/8 * 0.878125 = 0.830859375 (Red).
        let want = [0.830_859_4f32, -0.878_125, 0.975];
        let got = short_values(&g, &[Seat::First, Seat::Second, Seat::First]);
        for (a, b) in got.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{got:?} vs {want:?}");
        }
        let (s, skipped) = samples_from_games(Path::new("t.jzg"), &[g], &Rules::default());
        assert_eq!(skipped, 0);
        let sv: Vec<f32> = s.samples.iter().map(|x| x.short_value).collect();
        assert_eq!(sv, got, "each sample carries its position's target");
    }

    #[test]
    fn in_the_flip_game_the_reply_is_the_opponent_s_decision_not_nature_s_draw() {
        use crate::flip::{FlipGame, FlipRules, parse_move};
        use crate::game::Game;
        let rules = FlipRules::default();
        let mut g = FlipGame::start(rules);
        let mut rec = GameRecord::<FlipGame>::starting(&g, "t", 1);
        for t in ["f:a1", "f:a1=R", "f:b1", "f:b1=c"] {
            let mv = parse_move(&g, t).unwrap();
            let chance = t.contains('=');
            let (root_value, visits) = if chance { (f32::NAN, vec![]) } else { (0.1, vec![(mv, 5)]) };
            rec.moves.push(MoveRecord { mv, full_search: !chance, root_value, visits });
            g.play(mv).unwrap();
        }
        let (s, skipped) = samples_from_games(Path::new("f.jzg"), std::slice::from_ref(&rec), &rules);
        assert_eq!((skipped, s.samples.len()), (0, 2));
        // After the first player's flip of a1 (and nature's Red Rat) the second player flips b1:
        // action 1 (the flip plane at b1), not a1's reveal.
        assert_eq!(s.samples[0].reply, 1);
        assert_eq!(s.samples[1].reply, NO_REPLY);
        // The seats do not alternate: nature's ply keeps the first seat's value undiscounted.
        let seats = [Seat::First, Seat::First, Seat::Second, Seat::Second];
        let sv = short_values(&rec, &seats);
        assert!(sv.iter().all(|v| v.is_finite()));
        // Nature's ply (index 1) passes on what follows it undiscounted: the second player's
        // target at ply 2, seen from the first seat.
        assert_eq!(sv[1], -sv[2], "{sv:?}");
        assert_eq!(sv[3], 0.0, "a drawn game's last (chance) ply");
    }
}
