//! Game records and shard files: a versioned little-endian binary format.
//!
//! A shard is `magic "JZGS" | version u16 | game count u32 | games... | crc32 of everything
//! before it (u32)`, framed by [`crate::store::framed`]. A game is:
//!
//! ```text
//! rules (string) | model id (string) | seed u64 | root FEN (string)
//! winner u8 (0 Red, 1 Blue, 2 draw) | reason u8 | would-resign u8 (0 Red, 1 Blue, 2 none)
//! move count u16 | moves...
//! ```
//!
//! and a move is `move u16 | flags u8 (bit 0: full search) | root value f32 (mover's view)
//! | visit entry count u8 | (move u16, visits u32) * count`. Strings are `length u16 | UTF-8`.
//! Positions are not stored: they are replayed from the root FEN, which also rebuilds the
//! history the repetition rule and the input planes need. A reader refuses other magic
//! numbers, versions it does not know, bad checksums and truncated data, naming the file.

use std::path::Path;

use crate::game::Reason;
use crate::jungle::{JungleGame, Move, Rules, Side, parse_fen};
use crate::store::framed::{self, BodyReader, BodyWriter, Format, FrameError};
use crate::store::{self, StoreError};

/// The game shard format.
pub const SHARD_FORMAT: Format = Format { magic: *b"JZGS", version: 1, what: "game shard" };

/// One move of a self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord {
    pub mv: Move,
    /// Searched with the full budget (only these are policy targets).
    pub full_search: bool,
    /// The search's value of the position for the player to move, in [-1, 1].
    pub root_value: f32,
    /// Root visit counts (full searches only).
    pub visits: Vec<(Move, u32)>,
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    pub rules: Rules,
    pub model_id: String,
    pub seed: u64,
    pub root_fen: String,
    pub moves: Vec<MoveRecord>,
    /// `None` for a draw.
    pub winner: Option<Side>,
    pub reason: Reason,
    /// In a game played out with resignation disabled: the side that would have resigned.
    pub would_resign: Option<Side>,
}

impl GameRecord {
    /// Replays the game, calling `f(game_before_move, move_record)` for every move.
    pub fn replay(&self, mut f: impl FnMut(&JungleGame, &MoveRecord)) -> Result<(), RecordError> {
        let root = parse_fen(&self.root_fen).map_err(|e| RecordError::Corrupt(format!("bad root FEN: {e}")))?;
        let mut g = JungleGame::new(root, self.rules);
        for (i, m) in self.moves.iter().enumerate() {
            f(&g, m);
            g.play_checked(m.mv).map_err(|e| RecordError::Corrupt(format!("move {}: {e}", i + 1)))?;
        }
        Ok(())
    }

    /// The result for `side`: 1 win, 0 draw, -1 loss.
    pub fn result_for(&self, side: Side) -> f32 {
        match self.winner {
            None => 0.0,
            Some(w) if w == side => 1.0,
            Some(_) => -1.0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error("corrupt shard: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A shard problem with the file it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {error}")]
pub struct ShardError {
    pub path: String,
    pub error: RecordError,
}

fn read_move(r: &mut BodyReader) -> Result<Move, RecordError> {
    let raw = r.u16()?;
    Move::from_raw(raw).ok_or_else(|| RecordError::Corrupt(format!("bad move code {raw}")))
}

fn side_code(s: Option<Side>) -> u8 {
    s.map_or(2, |s| s.index() as u8)
}

fn side_from(code: u8) -> Result<Option<Side>, RecordError> {
    match code {
        0 => Ok(Some(Side::Red)),
        1 => Ok(Some(Side::Blue)),
        2 => Ok(None),
        _ => Err(RecordError::Corrupt(format!("bad side code {code}"))),
    }
}

fn write_game(w: &mut Vec<u8>, g: &GameRecord) {
    w.put_str16(&g.rules.to_string());
    w.put_str16(&g.model_id);
    w.put_u64(g.seed);
    w.put_str16(&g.root_fen);
    w.put_u8(side_code(g.winner));
    w.put_u8(g.reason as u8);
    w.put_u8(side_code(g.would_resign));
    w.put_u16(g.moves.len().min(u16::MAX as usize) as u16);
    for m in g.moves.iter().take(u16::MAX as usize) {
        w.put_u16(m.mv.raw());
        w.put_u8(u8::from(m.full_search));
        w.put_f32(m.root_value);
        let n = m.visits.len().min(u8::MAX as usize);
        w.put_u8(n as u8);
        for &(mv, v) in &m.visits[..n] {
            w.put_u16(mv.raw());
            w.put_u32(v);
        }
    }
}

fn read_game(r: &mut BodyReader) -> Result<GameRecord, RecordError> {
    let rules: Rules = r.str16()?.parse().map_err(|e| RecordError::Corrupt(format!("rules: {e}")))?;
    let model_id = r.str16()?.to_string();
    let seed = r.u64()?;
    let root_fen = r.str16()?.to_string();
    let winner = side_from(r.u8()?)?;
    let reason_code = r.u8()?;
    let reason = Reason::from_u8(reason_code).ok_or_else(|| RecordError::Corrupt(format!("bad reason {reason_code}")))?;
    let would_resign = side_from(r.u8()?)?;
    let n = r.u16()? as usize;
    let mut moves = Vec::with_capacity(n);
    for _ in 0..n {
        let mv = read_move(r)?;
        let flags = r.u8()?;
        let root_value = r.f32()?;
        let k = r.u8()? as usize;
        let mut visits = Vec::with_capacity(k);
        for _ in 0..k {
            visits.push((read_move(r)?, r.u32()?));
        }
        moves.push(MoveRecord { mv, full_search: flags & 1 != 0, root_value, visits });
    }
    Ok(GameRecord { rules, model_id, seed, root_fen, moves, winner, reason, would_resign })
}

/// The bytes of a shard holding `games`.
pub fn encode_shard(games: &[GameRecord]) -> Vec<u8> {
    let mut w = framed::begin(&SHARD_FORMAT, games.len() * 2048);
    w.put_u32(games.len() as u32);
    for g in games {
        write_game(&mut w, g);
    }
    framed::seal(w)
}

/// Parses shard bytes.
pub fn decode_shard(bytes: &[u8]) -> Result<Vec<GameRecord>, RecordError> {
    let mut r = BodyReader::new(&SHARD_FORMAT, framed::open(&SHARD_FORMAT, bytes)?);
    let count = r.u32()? as usize;
    let mut games = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        games.push(read_game(&mut r)?);
    }
    r.finish()?;
    Ok(games)
}

/// Writes a shard atomically.
pub fn write_shard(path: &Path, games: &[GameRecord]) -> Result<(), StoreError> {
    store::write_atomic(path, &encode_shard(games))
}

/// Reads a shard, naming the file in any error.
pub fn read_shard(path: &Path) -> Result<Vec<GameRecord>, ShardError> {
    let err = |error| ShardError { path: path.display().to_string(), error };
    let bytes = store::read(path).map_err(|e| err(RecordError::Store(e)))?;
    decode_shard(&bytes).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn sample() -> GameRecord {
        let mut g = JungleGame::default();
        let mut moves = Vec::new();
        for (i, t) in ["a3a4", "g7g6", "a4a5"].iter().enumerate() {
            let mv = crate::jungle::parse_move(t).unwrap();
            moves.push(MoveRecord {
                mv,
                full_search: i != 1,
                root_value: 0.25 * i as f32 - 0.1,
                visits: if i != 1 { vec![(mv, 70 + i as u32), (mv.mirror(), 3)] } else { vec![] },
            });
            g.play_checked(mv).unwrap();
        }
        GameRecord {
            rules: "max_plies=300".parse().unwrap(),
            model_id: "gen-0003".into(),
            seed: 0xDEAD_BEEF_1234,
            root_fen: crate::jungle::START_FEN.into(),
            moves,
            winner: Some(Side::Blue),
            reason: Reason::Resignation,
            would_resign: None,
        }
    }

    #[test]
    fn shards_round_trip() {
        let games = vec![sample(), GameRecord { winner: None, reason: Reason::NoProgress, would_resign: Some(Side::Red), ..sample() }];
        let bytes = encode_shard(&games);
        assert_eq!(decode_shard(&bytes).unwrap(), games);
    }

    #[test]
    fn damaged_shards_are_refused() {
        let bytes = encode_shard(&[sample()]);
        let mut bad = bytes.clone();
        bad[20] ^= 1;
        assert!(matches!(decode_shard(&bad), Err(RecordError::Frame(FrameError::Checksum { .. }))));
        assert!(matches!(decode_shard(&bytes[..bytes.len() - 9]), Err(RecordError::Frame(FrameError::Checksum { .. } | FrameError::Truncated { .. }))));
        let mut v = bytes.clone();
        v[4] = 9;
        assert!(matches!(decode_shard(&v), Err(RecordError::Frame(FrameError::Version { found: 9, .. }))));
        assert!(matches!(decode_shard(b"PK\x03\x04 not a shard"), Err(RecordError::Frame(FrameError::BadMagic { .. }))));
    }
}
