//! Writing finished games into shard files as they come: every producer of games (the
//! training loop's self-play and teacher stages, `junglezero selfplay`) goes through one
//! [`ShardWriter`], so shards are named and cut the same way everywhere.

use std::path::{Path, PathBuf};

use super::record::{GameRecord, write_shard};
use crate::store::StoreError;
use crate::store::events::now;
use crate::trainable::Trainable;

/// Collects games and writes them `per_shard` at a time to
/// `DIR/PREFIX-STAMP-PID-NNNNN.jzg` (STAMP: the writer's creation time in milliseconds, PID:
/// the process), each shard atomically. A kill loses at most the games not written yet.
pub struct ShardWriter<G: Trainable> {
    dir: PathBuf,
    prefix: String,
    stamp: u64,
    per_shard: usize,
    pending: Vec<GameRecord<G>>,
    shards: u32,
}

impl<G: Trainable> ShardWriter<G> {
    pub fn new(dir: &Path, prefix: &str, per_shard: usize) -> ShardWriter<G> {
        ShardWriter {
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
            stamp: (now() * 1000.0) as u64,
            per_shard: per_shard.max(1),
            pending: Vec::new(),
            shards: 0,
        }
    }

    /// The writer's creation time in milliseconds (part of every shard's name).
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Adds a finished game; writes a shard when `per_shard` games are waiting and returns its
    /// path.
    pub fn push(&mut self, game: GameRecord<G>) -> Result<Option<PathBuf>, StoreError> {
        self.pending.push(game);
        if self.pending.len() >= self.per_shard { self.flush() } else { Ok(None) }
    }

    /// Writes the waiting games (if any) as one shard and returns its path.
    pub fn flush(&mut self) -> Result<Option<PathBuf>, StoreError> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let name = format!("{}-{}-{}-{:05}.jzg", self.prefix, self.stamp, std::process::id(), self.shards);
        let path = self.dir.join(name);
        write_shard(&path, &self.pending)?;
        self.shards += 1;
        self.pending.clear();
        Ok(Some(path))
    }

    /// Games waiting for the next shard.
    pub fn unwritten(&self) -> usize {
        self.pending.len()
    }

    /// Shards written so far.
    pub fn shards(&self) -> u32 {
        self.shards
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Reason;
    use crate::jungle::{JungleGame, Rules, START_FEN};
    use crate::selfplay::record::read_shard;

    fn game(seed: u64) -> GameRecord<JungleGame> {
        GameRecord {
            rules: Rules::default(),
            model_id: "test".into(),
            seed,
            root: START_FEN.into(),
            moves: Vec::new(),
            winner: None,
            reason: Reason::MoveCap,
            would_resign: None,
        }
    }

    #[test]
    fn games_are_cut_into_shards_and_nothing_is_lost_at_the_end() {
        let dir = std::env::temp_dir().join(format!("jz-shards-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut w = ShardWriter::new(&dir, "gen-0003", 3);
        let mut written = Vec::new();
        for seed in 0..7 {
            if let Some(p) = w.push(game(seed)).unwrap() {
                written.push(p);
            }
        }
        assert_eq!((written.len(), w.unwritten()), (2, 1), "two full shards, one game waiting");
        written.extend(w.flush().unwrap());
        assert_eq!(w.flush().unwrap(), None, "nothing left to write");
        assert_eq!(w.shards(), 3);
        let mut seeds = Vec::new();
        for (i, p) in written.iter().enumerate() {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.starts_with("gen-0003-") && name.ends_with(&format!("-{i:05}.jzg")), "{name}");
            seeds.extend(read_shard::<JungleGame>(p).unwrap().iter().map(|g| g.seed));
        }
        assert_eq!(seeds, (0..7).collect::<Vec<u64>>(), "every game once, in order");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
