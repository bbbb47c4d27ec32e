//! Endgame tablebases for Jungle: the exact result and distance of every position with few
//! pieces, by retrograde analysis (`build`), stored one file per material (`table`), looked up
//! through the left-right mirror and the colour flip (`index`), and probed by the engines.
//!
//! The tables know the board and the capture rules only: they ignore the repetition rule and
//! the no-capture limit (a position is valued as if neither applied). See [`Tablebase::probe`]
//! for how the engines treat a position whose history makes the difference.

pub mod build;
pub mod generate;
pub mod index;
pub mod material;
pub mod table;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use crate::jungle::{Position, Rules};
pub use material::Material;
pub use table::{Stats, Table, Value};

/// The rules a table depends on: the capture switches (repetition, the no-capture limit, the
/// ply cap and the anti-chase rules are ignored, so they are set off).
pub fn table_rules(r: &Rules) -> Rules {
    Rules {
        dog_over_wolf: r.dog_over_wolf,
        rat_captures_across_shore: r.rat_captures_across_shore,
        elephant_takes_trapped_rat: r.elephant_takes_trapped_rat,
        elephant_takes_rat: r.elephant_takes_rat,
        repetition: crate::jungle::Repetition::Off,
        no_capture_plies: 0,
        max_plies: 0,
        anti_chase: false,
    }
}

crate::settings! {
    /// `[tablebase]`: where the tables are and who uses them.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct TablebaseConfig in "tablebase", about "Endgame tablebases (`junglezero tb build`, docs/tablebases.md): with a folder of tables, alpha-beta and MCTS players value every position they hold exactly, and self-play and matches end a game at its first such position with its exact result." {
        /// The tables' folder ("": none).
        pub dir: String = String::new() => "the tables' folder (\"\": none)", option("TablebasePath");
        /// Self-play ends a game at its first tablebase position, with the tables' result.
        pub selfplay: bool = true => "self-play ends games at tablebase positions (with dir set)";
        /// Matches (arena, tournament, gate, ladder) do the same (termination `tablebase`).
        pub adjudicate: bool = true => "matches (arena, gate, ladder) do too (termination \"tablebase\")";
    }
}

impl TablebaseConfig {
    /// The tables for `rules`, when a folder is set (opened once per folder and rules, then
    /// shared).
    pub fn open(&self, rules: &Rules) -> anyhow::Result<Option<std::sync::Arc<Tablebase>>> {
        if self.dir.is_empty() {
            return Ok(None);
        }
        shared(Path::new(&self.dir), rules).map(Some)
    }
}

/// The tables of `dir` for `rules`, opened once and shared by every engine of the process.
pub fn shared(dir: &Path, rules: &Rules) -> anyhow::Result<std::sync::Arc<Tablebase>> {
    static OPEN: std::sync::Mutex<Vec<(PathBuf, String, std::sync::Arc<Tablebase>)>> = std::sync::Mutex::new(Vec::new());
    let key = table_rules(rules).to_string();
    let mut open = OPEN.lock().map_err(|_| anyhow::anyhow!("tablebase registry poisoned"))?;
    if let Some((_, _, tb)) = open.iter().find(|(d, r, _)| d == dir && *r == key) {
        return Ok(tb.clone());
    }
    let tb = std::sync::Arc::new(Tablebase::open(dir, rules)?);
    open.push((dir.to_path_buf(), key, tb.clone()));
    Ok(tb)
}

/// Why a position has no tablebase value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("the game is over (a piece is in a den, or a side has no piece)")]
    Over,
    #[error("{0} pieces: the tables hold up to {1}")]
    TooMany(usize, usize),
    #[error("no table for {0}")]
    Missing(Material),
    /// The table's file is there but damaged (the message names the file and what is wrong).
    #[error("{0}")]
    Damaged(String),
}

/// A material's place in the folder: no file, its table, or why its file was refused.
type Slot = Result<Option<std::sync::Arc<Table>>, String>;

/// A folder of tables built under one set of rules, loaded as they are first needed.
pub struct Tablebase {
    dir: PathBuf,
    rules: Rules,
    /// The most pieces of any table in the folder.
    max_pieces: usize,
    tables: RwLock<HashMap<Material, Slot>>,
    /// Whether a damaged table found while probing is reported on stderr (off where the
    /// caller reports it as an error itself).
    warn: std::sync::atomic::AtomicBool,
}

impl Tablebase {
    /// The tables in `dir` for `rules`. Every table file's header is checked here (a regular
    /// file, of the material its name says, built under these capture switches, of the size
    /// its header gives), and every table's checksum as it loads: a damaged table is an error
    /// naming its file, never a missing one.
    pub fn open(dir: &Path, rules: &Rules) -> anyhow::Result<Tablebase> {
        let entries = std::fs::read_dir(dir).map_err(|e| anyhow::anyhow!("tablebase folder {}: {e}", dir.display()))?;
        let rules = table_rules(rules);
        let want = rules.to_string();
        let mut max_pieces = 0;
        let mut any = None;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".jztb") else { continue };
            let m = Material::parse(stem)
                .ok()
                .filter(|m| m.is_canonical() && Table::file_name(*m) == name)
                .ok_or_else(|| anyhow::anyhow!("{}: not a table's name (tables are named <material>.jztb, e.g. ER-l.jztb)", e.path().display()))?;
            Table::check_file(&e.path(), m, &want)?;
            max_pieces = max_pieces.max(m.count());
            any.get_or_insert(m);
        }
        let Some(first) = any else { anyhow::bail!("{} holds no tablebase file (*.jztb); build them with `junglezero tb build`", dir.display()) };
        let tb = Tablebase { dir: dir.to_path_buf(), rules, max_pieces, tables: RwLock::new(HashMap::new()), warn: true.into() };
        tb.table(first, false).map_err(|e| anyhow::anyhow!(e))?;
        Ok(tb)
    }

    /// The tables built so far in memory, for `build`: `tables` by material.
    pub fn from_tables(rules: &Rules, tables: Vec<Table>) -> Tablebase {
        let max_pieces = tables.iter().map(|t| t.material.count()).max().unwrap_or(0);
        let map = tables.into_iter().map(|t| (t.material, Ok(Some(std::sync::Arc::new(t))))).collect();
        Tablebase { dir: PathBuf::new(), rules: table_rules(rules), max_pieces, tables: RwLock::new(map), warn: true.into() }
    }

    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// The table of canonical material `m` (loaded from the folder the first time), or why
    /// its file is refused (remembered, so a damaged file is read once).
    fn table(&self, m: Material, warn: bool) -> Slot {
        if let Some(t) = self.tables.read().unwrap_or_else(|p| p.into_inner()).get(&m) {
            return t.clone();
        }
        let path = self.dir.join(Table::file_name(m));
        let t = if self.dir.as_os_str().is_empty() || std::fs::symlink_metadata(&path).is_err() {
            Ok(None)
        } else {
            let want = self.rules.to_string();
            match Table::load(&path, m) {
                Ok(t) if t.rules != want => Err(format!("{} was built for rules '{}', not '{want}'", path.display(), t.rules)),
                Ok(t) => Ok(Some(std::sync::Arc::new(t))),
                Err(e) => {
                    // Engines go on without the table; the damage is said once, here, and
                    // `tb probe`, `tb score` and [`Tablebase::damage`] report it as an error.
                    if warn && self.warn.load(std::sync::atomic::Ordering::Relaxed) {
                        eprintln!("warning: {e}: the table is not used");
                    }
                    Err(e.to_string())
                }
            }
        };
        self.tables.write().unwrap_or_else(|p| p.into_inner()).insert(m, t.clone());
        t
    }

    /// Stops the stderr warning on a damaged table, for a caller that checks
    /// [`Tablebase::damage`] or [`ProbeError::Damaged`] and reports it itself.
    pub fn report_damage_myself(&self) {
        self.warn.store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// The first table found damaged so far (its file and what is wrong), if any.
    pub fn damage(&self) -> Option<String> {
        self.tables.read().unwrap_or_else(|p| p.into_inner()).values().find_map(|t| t.as_ref().err().cloned())
    }

    /// The result for the side to move in `pos`, as if repetitions and the no-capture limit did
    /// not exist. The engines use it as it is; a game that the repetition rule or the
    /// no-capture limit would end differently (a drawn or forbidden repetition on the way, a
    /// win longer than the plies the limit leaves) is the one case where it is not exact, and
    /// [`Tablebase::probe_game`] refuses the wins and losses the limit would cut off.
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        let n = pos.count(crate::jungle::Side::Red) + pos.count(crate::jungle::Side::Blue);
        if pos.den_winner().is_some() || pos.count(crate::jungle::Side::Red) == 0 || pos.count(crate::jungle::Side::Blue) == 0 {
            return Err(ProbeError::Over);
        }
        if n as usize > self.max_pieces {
            return Err(ProbeError::TooMany(n as usize, self.max_pieces));
        }
        let mut squares = index::Placement::new();
        let (m, stm) = index::locate(pos, &mut squares);
        match self.table(m, true) {
            Ok(Some(t)) => lookup_in(&t, stm, &squares),
            Ok(None) => Err(ProbeError::Missing(m)),
            Err(e) => Err(ProbeError::Damaged(e)),
        }
    }

    /// [`Tablebase::probe`] for a game in progress: a win or loss longer than the plies the
    /// no-capture limit leaves (`no_capture_plies - halfmove`) is no result (`None`), since
    /// the limit may draw the game first.
    pub fn probe_game(&self, pos: &Position, rules: &Rules) -> Option<Value> {
        let v = self.probe(pos).ok()?;
        let left = if rules.no_capture_plies == 0 { u16::MAX } else { rules.no_capture_plies.saturating_sub(pos.halfmove()) };
        match v {
            Value::Win(d) | Value::Loss(d) if d > left => None,
            v => Some(v),
        }
    }
}

/// The value of a located position in its table.
fn lookup_in(t: &Table, stm: crate::jungle::Side, squares: &[usize]) -> Result<Value, ProbeError> {
    let code = t.codes.get(index::encode_table(stm, squares)).copied().unwrap_or(table::NONE);
    Value::from_code(code).ok_or(ProbeError::Over)
}

/// The value of `pos` in whichever of `tables` holds its material (`None`: none does, or the
/// game is over there).
pub fn probe_in(tables: &HashMap<Material, std::sync::Arc<Table>>, pos: &Position) -> Option<Value> {
    let mut squares = index::Placement::new();
    let (m, stm) = index::locate(pos, &mut squares);
    lookup_in(tables.get(&m)?, stm, &squares).ok()
}
