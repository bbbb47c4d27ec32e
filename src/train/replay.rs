//! The replay window: training samples from the most recent self-play shards.
//!
//! A sample is a position searched with the full budget: its compact position (the encoder
//! rebuilds the planes), the visit distribution as the policy target and the game's result for
//! the player to move as the value target. Whole shards enter and leave the window, newest last;
//! the window keeps the newest shards holding at least `TrainConfig::window_size` samples.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use rand::{Rng, RngExt};

use crate::game::Game;
use crate::jungle::encode::action_index;
use crate::jungle::{Position, Rules};
use crate::selfplay::record::{GameRecord, ShardError, read_shard};

/// One training position.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub pos: Position,
    /// The position had occurred before in its game (an input plane).
    pub repeated: bool,
    /// Result for the player to move: 0 win, 1 draw, 2 loss.
    pub wdl: u8,
    /// The search's value of the position for the player to move, in [-1, 1].
    pub q: f32,
    /// Plies from this position to the end of its game (the moves-left target).
    pub moves_left: u16,
    /// Where this sample's policy target starts in its shard's target list, and its length.
    pub target_start: u32,
    pub target_len: u8,
}

/// The samples of one shard file.
#[derive(Debug)]
pub struct ShardSamples {
    pub path: PathBuf,
    pub games: usize,
    pub samples: Vec<Sample>,
    /// (action, probability) pairs for all samples.
    pub targets: Vec<(u8, f32)>,
}

impl ShardSamples {
    /// The policy target of sample `i`.
    pub fn target(&self, i: usize) -> &[(u8, f32)] {
        let s = &self.samples[i];
        &self.targets[s.target_start as usize..s.target_start as usize + s.target_len as usize]
    }
}

/// Turns games into samples. Games played under other rules than `rules` are skipped (and
/// counted) so one run never mixes rule sets, as are games that do not replay: an illegal move,
/// a target move that is not legal where it was searched, or a value that is not a number
/// (a shard can be damaged before its checksum was computed). A skipped game leaves no samples.
pub fn samples_from_games(path: &Path, games: &[GameRecord], rules: &Rules) -> (ShardSamples, usize) {
    let mut out = ShardSamples { path: path.to_path_buf(), games: 0, samples: Vec::new(), targets: Vec::new() };
    let mut skipped = 0;
    for g in games {
        if g.rules != *rules {
            skipped += 1;
            continue;
        }
        let (samples_before, targets_before) = (out.samples.len(), out.targets.len());
        let mut damaged = false;
        let mut ply = 0usize;
        let replayed = g.replay(|state, m| {
            ply += 1;
            if damaged || !m.full_search || m.visits.is_empty() {
                return;
            }
            let legal = state.legal_moves();
            if !m.root_value.is_finite() || m.visits.len() > usize::from(u8::MAX) || m.visits.iter().any(|(mv, _)| !legal.contains(mv)) {
                damaged = true;
                return;
            }
            let mover = state.side_to_move();
            // In u64: a damaged shard's counts can sum past u32 (found by fuzzing).
            let total: u64 = m.visits.iter().map(|v| u64::from(v.1)).sum();
            if total == 0 {
                return;
            }
            let start = out.targets.len() as u32;
            for &(mv, n) in &m.visits {
                out.targets.push((action_index(mover, mv) as u8, n as f32 / total as f32));
            }
            let r = g.result_for(mover);
            let wdl = if r > 0.0 {
                0
            } else if r < 0.0 {
                2
            } else {
                1
            };
            out.samples.push(Sample {
                pos: *state.position(),
                repeated: state.history().current_reps() >= 2,
                wdl,
                q: m.root_value.clamp(-1.0, 1.0),
                moves_left: (g.moves.len() + 1 - ply).min(usize::from(u16::MAX)) as u16,
                target_start: start,
                target_len: m.visits.len() as u8,
            });
        });
        if replayed.is_err() || damaged {
            out.samples.truncate(samples_before);
            out.targets.truncate(targets_before);
            skipped += 1;
        } else {
            out.games += 1;
        }
    }
    (out, skipped)
}

/// Reads a shard file into samples.
pub fn load_shard(path: &Path, rules: &Rules) -> Result<(ShardSamples, usize), ShardError> {
    let games = read_shard(path)?;
    Ok(samples_from_games(path, &games, rules))
}

/// The window of recent shards.
#[derive(Debug, Default)]
pub struct ReplayWindow {
    shards: VecDeque<ShardSamples>,
    len: usize,
}

impl ReplayWindow {
    pub fn new() -> ReplayWindow {
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
    pub fn shards(&self) -> impl Iterator<Item = &ShardSamples> {
        self.shards.iter()
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.shards.iter().any(|s| s.path == path)
    }

    /// Adds the newest shard.
    pub fn push(&mut self, shard: ShardSamples) {
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
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Option<(&ShardSamples, usize)> {
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
    use crate::jungle::{START_FEN, parse_move};
    use crate::selfplay::record::MoveRecord;

    fn game(visits: &[&str], root_value: f32) -> GameRecord {
        let mv = parse_move("a3a4").unwrap();
        let visits = visits.iter().map(|t| (parse_move(t).unwrap(), 10)).collect();
        GameRecord {
            rules: Rules::default(),
            model_id: "test".into(),
            seed: 1,
            root_fen: START_FEN.into(),
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
        let (s, skipped) = samples_from_games(path, &[good.clone()], &Rules::default());
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
    }
}
