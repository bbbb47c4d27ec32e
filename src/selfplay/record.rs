//! Game records and shard files: a versioned little-endian binary format, for any
//! [`Trainable`] game.
//!
//! A shard is `magic "JZGS" | version u16 | game name (string) | game count u32 | games... |
//! crc32 of everything before it (u32)`, framed by [`crate::store::framed`]. Version 1 shards
//! (before the flip game) have no game name and hold Jungle games. A game is:
//!
//! ```text
//! rules (string) | model id (string) | seed u64 | root position (string)
//! winner u8 (0 first seat, 1 second, 2 draw) | reason u8 | would-resign u8 (0, 1, 2 none)
//! move count u16 | moves...
//! ```
//!
//! and a move is `move u16 | flags u8 (bit 0: full search) | root value f32 (mover's view)
//! | visit entry count u8 | (move u16, visits u32) * count`, moves as [`Trainable::move_code`]
//! writes them (in the flip game a flip's chance outcome is a move of its own). Strings are
//! `length u16 | UTF-8`. Positions are not stored: they are replayed from the root, which also
//! rebuilds the history the repetition rule and the input planes need. A reader refuses other
//! magic numbers, versions it does not know, bad checksums, truncated data and shards of
//! another game, naming the file.

use std::fmt;
use std::path::Path;

use crate::game::{Reason, Seat};
use crate::store::framed::{self, BodyReader, BodyWriter, Format, FrameError};
use crate::store::{self, StoreError};
use crate::trainable::Trainable;

/// The game shard format.
pub const SHARD_FORMAT: Format = Format { magic: *b"JZGS", version: 2, what: "game shard" };
/// Shards written before the game name was recorded (Jungle only).
const SHARD_FORMAT_V1: Format = Format { magic: *b"JZGS", version: 1, what: "game shard" };

/// One move of a self-play game. Equality compares root values bit for bit, so that records
/// holding nature's moves (NaN values) equal themselves.
#[derive(Clone, Debug)]
pub struct MoveRecord<M> {
    pub mv: M,
    /// Searched with the full budget (only these are policy targets).
    pub full_search: bool,
    /// The search's value of the position for the player to move, in [-1, 1] (NaN for a
    /// chance outcome, which nobody searched).
    pub root_value: f32,
    /// Root visit counts (full searches only).
    pub visits: Vec<(M, u32)>,
}

impl<M: PartialEq> PartialEq for MoveRecord<M> {
    fn eq(&self, o: &Self) -> bool {
        self.mv == o.mv && self.full_search == o.full_search && self.root_value.to_bits() == o.root_value.to_bits() && self.visits == o.visits
    }
}

/// A finished self-play game.
pub struct GameRecord<G: Trainable> {
    pub rules: G::Rules,
    pub model_id: String,
    pub seed: u64,
    /// The position the game started from, as [`Trainable::root_text`] writes it.
    pub root: String,
    pub moves: Vec<MoveRecord<G::Move>>,
    /// `None` for a draw.
    pub winner: Option<Seat>,
    pub reason: Reason,
    /// In a game played out with resignation disabled: the seat that would have resigned.
    pub would_resign: Option<Seat>,
}

impl<G: Trainable> Clone for GameRecord<G> {
    fn clone(&self) -> Self {
        GameRecord {
            rules: self.rules.clone(),
            model_id: self.model_id.clone(),
            seed: self.seed,
            root: self.root.clone(),
            moves: self.moves.clone(),
            winner: self.winner,
            reason: self.reason,
            would_resign: self.would_resign,
        }
    }
}

impl<G: Trainable> PartialEq for GameRecord<G> {
    fn eq(&self, o: &Self) -> bool {
        self.rules == o.rules
            && self.model_id == o.model_id
            && self.seed == o.seed
            && self.root == o.root
            && self.moves == o.moves
            && self.winner == o.winner
            && self.reason == o.reason
            && self.would_resign == o.would_resign
    }
}

impl<G: Trainable> fmt::Debug for GameRecord<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameRecord")
            .field("game", &G::SHAPE.game)
            .field("rules", &self.rules)
            .field("model_id", &self.model_id)
            .field("seed", &self.seed)
            .field("root", &self.root)
            .field("moves", &self.moves)
            .field("winner", &self.winner)
            .field("reason", &self.reason)
            .field("would_resign", &self.would_resign)
            .finish()
    }
}

impl<G: Trainable> GameRecord<G> {
    /// An empty record of a game about to start from `root`.
    pub fn starting(root: &G, model_id: &str, seed: u64) -> GameRecord<G> {
        GameRecord {
            rules: root.game_rules().clone(),
            model_id: model_id.into(),
            seed,
            root: root.root_text(),
            moves: Vec::new(),
            winner: None,
            reason: Reason::MoveCap,
            would_resign: None,
        }
    }

    /// The game at its root.
    pub fn root_game(&self) -> Result<G, RecordError> {
        G::from_root(&self.root, &self.rules).map_err(|e| RecordError::Corrupt(format!("bad root position: {e}")))
    }

    /// Replays the game, calling `f(game_before_move, move_record)` for every move.
    pub fn replay(&self, mut f: impl FnMut(&G, &MoveRecord<G::Move>)) -> Result<(), RecordError> {
        let mut g = self.root_game()?;
        for (i, m) in self.moves.iter().enumerate() {
            f(&g, m);
            g.play(m.mv).map_err(|e| RecordError::Corrupt(format!("move {}: {e}", i + 1)))?;
        }
        Ok(())
    }

    /// The result for `seat`: 1 win, 0 draw, -1 loss.
    pub fn result_for(&self, seat: Seat) -> f32 {
        match self.winner {
            None => 0.0,
            Some(w) if w == seat => 1.0,
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
    #[error("a shard of the {found} game; this run plays {expected}")]
    WrongGame { found: String, expected: String },
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

fn read_move<G: Trainable>(r: &mut BodyReader) -> Result<G::Move, RecordError> {
    let raw = r.u16()?;
    G::move_from_code(raw).ok_or_else(|| RecordError::Corrupt(format!("bad move code {raw}")))
}

fn seat_code(s: Option<Seat>) -> u8 {
    s.map_or(2, |s| s.index() as u8)
}

fn seat_from(code: u8) -> Result<Option<Seat>, RecordError> {
    match code {
        0 => Ok(Some(Seat::First)),
        1 => Ok(Some(Seat::Second)),
        2 => Ok(None),
        _ => Err(RecordError::Corrupt(format!("bad side code {code}"))),
    }
}

fn write_game<G: Trainable>(w: &mut Vec<u8>, g: &GameRecord<G>) {
    w.put_str16(&g.rules.to_string());
    w.put_str16(&g.model_id);
    w.put_u64(g.seed);
    w.put_str16(&g.root);
    w.put_u8(seat_code(g.winner));
    w.put_u8(g.reason as u8);
    w.put_u8(seat_code(g.would_resign));
    w.put_u16(g.moves.len().min(u16::MAX as usize) as u16);
    for m in g.moves.iter().take(u16::MAX as usize) {
        w.put_u16(G::move_code(m.mv));
        w.put_u8(u8::from(m.full_search));
        w.put_f32(m.root_value);
        let n = m.visits.len().min(u8::MAX as usize);
        w.put_u8(n as u8);
        for &(mv, v) in &m.visits[..n] {
            w.put_u16(G::move_code(mv));
            w.put_u32(v);
        }
    }
}

fn read_game<G: Trainable>(r: &mut BodyReader) -> Result<GameRecord<G>, RecordError> {
    let rules: G::Rules = r.str16()?.parse().map_err(|e| RecordError::Corrupt(format!("rules: {e}")))?;
    let model_id = r.str16()?.to_string();
    let seed = r.u64()?;
    let root = r.str16()?.to_string();
    let winner = seat_from(r.u8()?)?;
    let reason_code = r.u8()?;
    let reason = Reason::from_u8(reason_code).ok_or_else(|| RecordError::Corrupt(format!("bad reason {reason_code}")))?;
    let would_resign = seat_from(r.u8()?)?;
    let n = r.u16()? as usize;
    let mut moves = Vec::with_capacity(n);
    for _ in 0..n {
        let mv = read_move::<G>(r)?;
        let flags = r.u8()?;
        let root_value = r.f32()?;
        let k = r.u8()? as usize;
        let mut visits = Vec::with_capacity(k);
        for _ in 0..k {
            visits.push((read_move::<G>(r)?, r.u32()?));
        }
        moves.push(MoveRecord { mv, full_search: flags & 1 != 0, root_value, visits });
    }
    Ok(GameRecord { rules, model_id, seed, root, moves, winner, reason, would_resign })
}

/// The bytes of a shard holding `games`.
pub fn encode_shard<G: Trainable>(games: &[GameRecord<G>]) -> Vec<u8> {
    let mut w = framed::begin(&SHARD_FORMAT, games.len() * 2048);
    w.put_str16(G::SHAPE.game);
    w.put_u32(games.len() as u32);
    for g in games {
        write_game(&mut w, g);
    }
    framed::seal(w)
}

/// Parses shard bytes.
pub fn decode_shard<G: Trainable>(bytes: &[u8]) -> Result<Vec<GameRecord<G>>, RecordError> {
    let (mut r, game) = match framed::open(&SHARD_FORMAT, bytes) {
        Ok(body) => {
            let mut r = BodyReader::new(&SHARD_FORMAT, body);
            let game = r.str16()?.to_string();
            (r, game)
        }
        Err(FrameError::Version { found: 1, .. }) => (BodyReader::new(&SHARD_FORMAT_V1, framed::open(&SHARD_FORMAT_V1, bytes)?), "jungle".into()),
        Err(e) => return Err(e.into()),
    };
    if game != G::SHAPE.game {
        return Err(RecordError::WrongGame { found: game, expected: G::SHAPE.game.into() });
    }
    let count = r.u32()? as usize;
    let mut games = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        games.push(read_game(&mut r)?);
    }
    r.finish()?;
    Ok(games)
}

/// Writes a shard atomically.
pub fn write_shard<G: Trainable>(path: &Path, games: &[GameRecord<G>]) -> Result<(), StoreError> {
    store::write_atomic(path, &encode_shard(games))
}

/// Reads a shard, naming the file in any error.
pub fn read_shard<G: Trainable>(path: &Path) -> Result<Vec<GameRecord<G>>, ShardError> {
    let err = |error| ShardError { path: path.display().to_string(), error };
    let bytes = store::read_framed(path, &SHARD_FORMAT, store::caps::SHARD).map_err(|e| err(RecordError::Store(e)))?;
    decode_shard(&bytes).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flip::{FlipGame, FlipRules};
    use crate::game::Game;
    use crate::jungle::JungleGame;

    pub fn sample() -> GameRecord<JungleGame> {
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
            g.play(mv).unwrap();
        }
        GameRecord {
            rules: "max_plies=300".parse().unwrap(),
            model_id: "gen-0003".into(),
            seed: 0xDEAD_BEEF_1234,
            root: crate::jungle::START_FEN.into(),
            moves,
            winner: Some(Seat::Second),
            reason: Reason::Resignation,
            would_resign: None,
        }
    }

    #[test]
    fn shards_round_trip() {
        let games = vec![sample(), GameRecord { winner: None, reason: Reason::NoProgress, would_resign: Some(Seat::First), ..sample() }];
        let bytes = encode_shard(&games);
        assert_eq!(decode_shard::<JungleGame>(&bytes).unwrap(), games);
        // A flip game with its chance outcome, and the wrong game refused.
        let rules = FlipRules::default();
        let mut g = FlipGame::start(rules);
        let mut flip = GameRecord::starting(&g, "gen-0001", 7);
        for t in ["f:b2", "f:b2=L"] {
            let mv = crate::flip::parse_move(&g, t).unwrap();
            let chance = t.len() > 4;
            let root_value = if chance { f32::NAN } else { 0.5 };
            flip.moves.push(MoveRecord { mv, full_search: !chance, root_value, visits: if chance { vec![] } else { vec![(mv, 3)] } });
            g.play(mv).unwrap();
        }
        let bytes = encode_shard(std::slice::from_ref(&flip));
        assert_eq!(decode_shard::<FlipGame>(&bytes).unwrap(), vec![flip]);
        let e = decode_shard::<JungleGame>(&bytes).unwrap_err().to_string();
        assert!(e.contains("flip game; this run plays jungle"), "{e}");
    }

    #[test]
    fn version_1_shards_read_as_jungle() {
        // Version 1: no game name before the count.
        let v2 = encode_shard(&[sample()]);
        let name = 2 + "jungle".len();
        let mut v1 = v2[..4].to_vec();
        v1.extend_from_slice(&1u16.to_le_bytes());
        v1.extend_from_slice(&v2[6 + name..v2.len() - 4]);
        let v1 = framed::seal(v1);
        assert_eq!(decode_shard::<JungleGame>(&v1).unwrap(), vec![sample()]);
        assert!(matches!(decode_shard::<FlipGame>(&v1), Err(RecordError::WrongGame { .. })));
    }

    #[test]
    fn damaged_shards_are_refused() {
        let bytes = encode_shard(&[sample()]);
        let decode_shard = decode_shard::<JungleGame>;
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
