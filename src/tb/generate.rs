//! `tb build`: the tables of a set of materials and of every material their captures reach,
//! smallest first, materials of one size in parallel; each table is written as soon as it is
//! done, and a table already in the folder (built under the same rules) is read instead of
//! built again, so an interrupted build goes on where it stopped.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::build::build;
use super::index::{decode_full, encode_table, full_len, table_len};
use super::material::Material;
use super::table::{NONE, Stats, Table};
use super::{probe_in, table_rules};
use crate::jungle::Rules;

/// One material's table: built now or read from the folder.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Built {
    pub material: String,
    pub pieces: usize,
    pub stats: Stats,
    /// Seconds to build (0 when read from the folder).
    pub seconds: f64,
    pub bytes: u64,
    pub reused: bool,
}

/// `targets` and every material their captures reach, fewest pieces first.
pub fn closure(targets: &[Material]) -> Vec<Material> {
    let mut all = BTreeSet::new();
    let mut todo: Vec<Material> = targets.iter().map(|m| m.canonical()).collect();
    while let Some(m) = todo.pop() {
        if all.insert(m) {
            todo.extend(m.after_captures());
        }
    }
    let mut v: Vec<Material> = all.into_iter().collect();
    v.sort_by_key(|m| (m.count(), *m));
    v
}

/// Builds (or reads) the tables of `targets` and what they need into `dir`; `done` sees each
/// table as it is finished.
pub fn build_dir(dir: &Path, rules: &Rules, targets: &[Material], done: &(dyn Fn(&Built) + Sync)) -> anyhow::Result<Vec<Built>> {
    let rules = table_rules(rules);
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let all = closure(targets);
    let mut tables: HashMap<Material, Arc<Table>> = HashMap::new();
    let mut out = Vec::new();
    let max = all.iter().map(|m| m.count()).max().unwrap_or(0);
    for n in 2..=max {
        let level: Vec<Material> = all.iter().copied().filter(|m| m.count() == n).collect();
        let known = &tables;
        let results: Vec<anyhow::Result<(Table, Built)>> = level.par_iter().map(|&m| one(dir, &rules, m, known, done)).collect();
        for r in results {
            let (t, b) = r?;
            // The largest tables are needed by nothing bigger: written, not kept.
            if n < max {
                tables.insert(t.material, Arc::new(t));
            }
            out.push(b);
        }
    }
    Ok(out)
}

/// The table of `m`: read from `dir` when it is there, otherwise built and written.
fn one(dir: &Path, rules: &Rules, m: Material, known: &HashMap<Material, Arc<Table>>, done: &(dyn Fn(&Built) + Sync)) -> anyhow::Result<(Table, Built)> {
    let path = dir.join(Table::file_name(m));
    let want = rules.to_string();
    if std::fs::symlink_metadata(&path).is_ok() {
        let t = Table::load(&path, m)?;
        if t.rules != want {
            anyhow::bail!("{} was built for rules '{}', not '{want}': name another folder", path.display(), t.rules);
        }
        let b = Built { material: m.to_string(), pieces: m.count(), stats: t.stats.clone(), seconds: 0.0, bytes: file_len(&path), reused: true };
        done(&b);
        return Ok((t, b));
    }
    let start = Instant::now();
    let full = build(m, rules, &|p| probe_in(known, p))?;
    let t = to_table(m, &want, &full);
    let bytes = t.to_bytes()?;
    crate::store::write_atomic(&path, &bytes)?;
    let b = Built {
        material: m.to_string(),
        pieces: m.count(),
        stats: t.stats.clone(),
        seconds: start.elapsed().as_secs_f64(),
        bytes: bytes.len() as u64,
        reused: false,
    };
    done(&b);
    Ok((t, b))
}

/// A whole-board build folded into table order (the mirror halves agree: each writes the
/// same code); its counts are the whole board's.
pub fn to_table(m: Material, rules: &str, full: &[u8]) -> Table {
    let n = m.count();
    let mut codes = vec![NONE; table_len(n)];
    let mut squares = vec![0usize; n];
    for (idx, &c) in full.iter().enumerate().take(full_len(n)) {
        let stm = decode_full(idx, n, &mut squares);
        codes[encode_table(stm, &squares)] = c;
    }
    // Counted over the whole board: every position, mirror images apart.
    let stats = Table::count(m, full);
    Table { material: m, rules: rules.to_string(), codes, stats }
}

fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}
