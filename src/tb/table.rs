//! One material's table: a code per entry, on disk through the project's framed files.
//!
//! Code 0 is a draw, 255 an entry that is not a position (two pieces on a square, a piece on a
//! den, a non-Rat in the water), any other code `c` a result `c - 1` plies from the end with
//! best play: odd distances are wins for the side to move, even ones losses (a loss in 0 is a
//! position without a move).

use std::io::{Read, Write};
use std::path::Path;

use super::index::table_len;
use super::material::Material;
use crate::store::framed::{self, BodyReader, Format, FrameError};

pub const DRAW: u8 = 0;
pub const NONE: u8 = 255;
/// The longest distance a code holds.
pub const MAX_DISTANCE: u16 = 253;

/// A tablebase result for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Wins in this many plies (odd) with best play.
    Win(u16),
    /// Loses in this many plies (even; 0: no move left).
    Loss(u16),
    Draw,
}

impl Value {
    pub fn from_code(c: u8) -> Option<Value> {
        match c {
            DRAW => Some(Value::Draw),
            NONE => None,
            c => {
                let d = u16::from(c) - 1;
                Some(if d % 2 == 1 { Value::Win(d) } else { Value::Loss(d) })
            }
        }
    }

    pub fn code(self) -> u8 {
        match self {
            Value::Draw => DRAW,
            Value::Win(d) | Value::Loss(d) => (d.min(MAX_DISTANCE) + 1) as u8,
        }
    }

    /// The value for the side to move in [-1, 1] (a search's scale).
    pub fn score(self) -> f32 {
        match self {
            Value::Win(_) => 1.0,
            Value::Loss(_) => -1.0,
            Value::Draw => 0.0,
        }
    }

    /// The result in the words the players' `info string` lines use: "tablebase win in 27",
    /// "tablebase loss in 4", "tablebase draw".
    pub fn describe(self) -> String {
        match self {
            Value::Win(d) => format!("tablebase win in {d}"),
            Value::Loss(d) => format!("tablebase loss in {d}"),
            Value::Draw => "tablebase draw".to_string(),
        }
    }

    /// The same position seen from the side that just moved into it.
    pub fn from_mover(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }
}

impl std::fmt::Display for Value {
    /// `win 17`, `loss 4`, `draw`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win {d}"),
            Value::Loss(d) => write!(f, "loss {d}"),
            Value::Draw => f.write_str("draw"),
        }
    }
}

/// What a table's file says of it besides its codes.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct Stats {
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest win (plies).
    pub longest_win: u16,
}

/// One material's codes, in table order (see `tb::index`).
#[derive(Clone, Debug)]
pub struct Table {
    pub material: Material,
    /// The rule switches it was built under (`Rules::capture_text`).
    pub rules: String,
    pub codes: Vec<u8>,
    pub stats: Stats,
}

const FORMAT: Format = Format { magic: *b"JZTB", version: 1, what: "tablebase file" };

/// The largest table file read: a 4-piece table deflates to about 1.2 MB, and its codes
/// (`table_len(4)` bytes) bound any file.
const MAX_FILE: u64 = 256 << 20;

/// Bytes of a file's start read to check its header: the rules' text is a few dozen bytes.
const HEAD_MAX: usize = 4096;

impl Table {
    pub fn file_name(m: Material) -> String {
        format!("{m}.jztb")
    }

    /// Counts the results.
    pub fn count(material: Material, codes: &[u8]) -> Stats {
        let mut s = Stats::default();
        for &c in codes {
            match Value::from_code(c) {
                None => {}
                Some(v) => {
                    s.positions += 1;
                    match v {
                        Value::Win(d) => {
                            s.wins += 1;
                            s.longest_win = s.longest_win.max(d);
                        }
                        Value::Loss(_) => s.losses += 1,
                        Value::Draw => s.draws += 1,
                    }
                }
            }
        }
        let _ = material;
        s
    }

    /// The file's bytes: header (rules, material, pieces, counts), then the codes deflated.
    pub fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&self.codes)?;
        let packed = z.finish()?;
        let mut out = framed::begin(&FORMAT, packed.len() + 128);
        let material = self.material.to_string();
        for text in [&self.rules, &material] {
            out.extend_from_slice(&(text.len() as u16).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
        out.push(self.material.count() as u8);
        let s = &self.stats;
        for v in [self.codes.len() as u64, s.positions, s.wins, s.draws, s.losses] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&s.longest_win.to_le_bytes());
        out.extend_from_slice(&(packed.len() as u64).to_le_bytes());
        out.extend_from_slice(&packed);
        Ok(framed::seal(out))
    }

    /// Reads a file written by [`Table::to_bytes`]; anything else is an error naming what is
    /// wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Table, FrameError> {
        let body = framed::open(&FORMAT, bytes)?;
        let mut r = BodyReader::new(&FORMAT, body);
        let rules = r.str16()?.to_string();
        let text = r.str16()?;
        let material = Material::parse(text).map_err(|e| r.corrupt(e.to_string()))?;
        if !material.is_canonical() || usize::from(r.u8()?) != material.count() {
            return Err(r.corrupt(format!("material {material} does not match its header")));
        }
        let len = r.u64()?;
        if len != table_len(material.count()) as u64 {
            return Err(r.corrupt(format!("{len} entries, not the {} of {material}", table_len(material.count()))));
        }
        let stats = Stats { positions: r.u64()?, wins: r.u64()?, draws: r.u64()?, losses: r.u64()?, longest_win: r.u16()? };
        let packed = r.bytes64()?;
        r.finish()?;
        let mut codes = Vec::with_capacity(len as usize);
        // At most `len` bytes come out, whatever the stream says.
        flate2::read::DeflateDecoder::new(packed)
            .take(len + 1)
            .read_to_end(&mut codes)
            .map_err(|e| FrameError::Corrupt { what: FORMAT.what, message: e.to_string() })?;
        if codes.len() as u64 != len {
            return Err(FrameError::Corrupt { what: FORMAT.what, message: format!("{} codes for {len} entries", codes.len()) });
        }
        Ok(Table { material, rules, codes, stats })
    }

    /// Reads `DIR/<material>.jztb`, which must hold the table of `m` (the material its name
    /// says): a file copied over another material's name is refused, as is a damaged one.
    pub fn load(path: &Path, m: Material) -> anyhow::Result<Table> {
        let bytes = crate::store::read_capped(path, MAX_FILE, FORMAT.what).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let t = Table::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if t.material != m {
            anyhow::bail!("{}: holds the table of {}, not of {m} (its name)", path.display(), t.material);
        }
        Ok(t)
    }

    /// Checks a table file without reading its codes: a regular file whose header is this
    /// format's, names material `m` and `rules`, and gives the file's own size (so a truncated
    /// or extended file is caught here; a damaged byte inside is caught by the checksum when
    /// the table loads).
    pub fn check_file(path: &Path, m: Material, rules: &str) -> anyhow::Result<()> {
        let fail = |message: String| anyhow::anyhow!("{}: {message}", path.display());
        let f = crate::store::open_regular(path, MAX_FILE, FORMAT.what).map_err(|e| fail(e.to_string()))?;
        let len = f.metadata().map_err(|e| fail(e.to_string()))?.len();
        let mut head = Vec::with_capacity(HEAD_MAX);
        f.take(HEAD_MAX as u64).read_to_end(&mut head).map_err(|e| fail(e.to_string()))?;
        if head.len() < 6 || head[..4] != FORMAT.magic {
            return Err(fail(FrameError::BadMagic { what: FORMAT.what }.to_string()));
        }
        let version = u16::from_le_bytes([head[4], head[5]]);
        if version != FORMAT.version {
            return Err(fail(FrameError::Version { what: FORMAT.what, found: version, supported: FORMAT.version }.to_string()));
        }
        let mut r = BodyReader::new(&FORMAT, &head[6..]);
        let parsed = (|| -> Result<(String, String, u64), FrameError> {
            let found_rules = r.str16()?.to_string();
            let material = r.str16()?.to_string();
            r.take(1 + 5 * 8 + 2)?;
            let packed = r.u64()?;
            Ok((found_rules, material, packed))
        })();
        let (found_rules, material, packed) = parsed.map_err(|e| fail(e.to_string()))?;
        if material != m.to_string() {
            return Err(fail(format!("holds the table of {material}, not of {m} (its name)")));
        }
        if found_rules != rules {
            return Err(fail(format!("was built for rules '{found_rules}', not '{rules}'")));
        }
        let header = 6 + 2 + found_rules.len() as u64 + 2 + material.len() as u64 + 1 + 5 * 8 + 2 + 8;
        let want = header.saturating_add(packed).saturating_add(4);
        if len != want {
            return Err(fail(format!("{len} bytes where its header says {want}: the {} is truncated or damaged", FORMAT.what)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_files_round_trip_and_damage_is_named() {
        for v in [Value::Win(1), Value::Win(37), Value::Loss(0), Value::Loss(36), Value::Draw] {
            assert_eq!(Value::from_code(v.code()), Some(v));
        }
        assert_eq!(Value::from_code(NONE), None);
        assert_eq!(Value::Loss(4).from_mover(), Value::Win(5));
        let material = Material::parse("E-r").unwrap();
        let mut codes = vec![NONE; table_len(2)];
        codes[5] = Value::Win(3).code();
        codes[9] = DRAW;
        let t = Table { material, rules: "default".into(), stats: Table::count(material, &codes), codes };
        assert_eq!((t.stats.positions, t.stats.wins, t.stats.draws, t.stats.longest_win), (2, 1, 1, 3));
        let bytes = t.to_bytes().unwrap();
        assert!(bytes.len() < 200, "deflated: {} bytes", bytes.len());
        let back = Table::from_bytes(&bytes).unwrap();
        assert_eq!((back.codes, back.rules, back.stats), (t.codes, t.rules, t.stats));
        let mut bad = bytes.clone();
        bad[20] ^= 1;
        assert!(Table::from_bytes(&bad).unwrap_err().to_string().contains("corrupt"));
        assert!(Table::from_bytes(&bytes[..bytes.len() - 9]).is_err());
    }
}
