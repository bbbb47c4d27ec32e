//! A match's or tournament's journal: what it is (players, games, seed, openings, rules) and
//! every finished game, one JSON line each, appended as the game ends. Run again with the
//! same journal, `arena` and `tournament` play only the games it does not hold yet, with the
//! openings and seats they would have had.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::match_game::MatchGame;
use super::play::{Forfeit, PlayedGame};
use crate::game::{Outcome, Reason, Seat};
use crate::store::{self, caps};

/// What a journal's description records, so that a resumed match is the same one.
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
pub struct Plan {
    pub game: String,
    pub players: Vec<String>,
    pub pairings: Vec<(usize, usize)>,
    pub games: u32,
    pub seed: u64,
    pub opening_plies: usize,
    /// The openings file's bytes, hashed (none: random openings).
    #[serde(default)]
    pub openings: Option<String>,
    pub rules: String,
}

/// One finished game, one line of the journal.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GameLine {
    /// The pairing's players (indices into the plan's players).
    pub a: usize,
    pub b: usize,
    pub pair: usize,
    /// A had the first seat.
    pub a_first: bool,
    pub a_points: f64,
    pub reason: String,
    /// Why the loser forfeited, when the game ended so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
    /// The game's PGN text, for a game that has one (a tournament's games.pgn is rebuilt from
    /// these on resume, so it always holds exactly the journal's games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgn: Option<String>,
}

impl GameLine {
    /// The line of a game of pairing (`a`, `b`).
    pub fn of<G: MatchGame>(a: usize, b: usize, g: &PlayedGame<G>) -> GameLine {
        GameLine {
            a,
            b,
            pair: g.pair,
            a_first: g.a_red,
            a_points: g.a_points,
            reason: g.outcome.reason.name().into(),
            forfeit: g.forfeit.as_ref().map(|f| f.cause.clone()),
            pgn: None,
        }
    }

    /// Whether this line can be a game of `plan`: a pairing of the plan, a pair within its
    /// games, points 0, ½ or 1 (no draw by a reason that always decides), a reason this build
    /// knows.
    pub fn check(&self, plan: &Plan) -> Result<(), String> {
        if !plan.pairings.contains(&(self.a, self.b)) {
            return Err(format!("players {} and {} are not a pairing of this match", self.a + 1, self.b + 1));
        }
        let pairs = plan.games.div_ceil(2).max(1) as usize;
        if self.pair >= pairs {
            return Err(format!("pair {} is out of range (this match has pairs 0 to {})", self.pair, pairs - 1));
        }
        if ![0.0, 0.5, 1.0].contains(&self.a_points) {
            return Err(format!("{} points: a game gives 0, 0.5 or 1", crate::check::clip(&self.a_points.to_string())));
        }
        let Some(reason) = Reason::from_name(&self.reason) else {
            return Err(format!("unknown reason '{}'", crate::check::clip(&self.reason)));
        };
        let decisive = matches!(reason, Reason::Den | Reason::Annihilation | Reason::NoMoves | Reason::Resignation | Reason::Forfeit);
        if decisive && self.a_points == 0.5 {
            return Err(format!("a draw cannot end by '{}'", self.reason));
        }
        if self.forfeit.is_some() && (reason != Reason::Forfeit || self.a_points == 0.5) {
            return Err("a forfeit's cause on a game not forfeited".into());
        }
        Ok(())
    }

    /// The game as a match counts it (without its moves, which the journal does not keep).
    pub fn played<G: MatchGame>(&self, opening_plies: usize) -> PlayedGame<G> {
        let a_seat = if self.a_first { Seat::First } else { Seat::Second };
        let winner = if self.a_points == 1.0 {
            Some(a_seat)
        } else if self.a_points == 0.0 {
            Some(a_seat.other())
        } else {
            None
        };
        let reason = Reason::from_name(&self.reason).unwrap_or(Reason::Forfeit);
        let mut g = PlayedGame::new(self.pair, self.a_first, opening_plies, Vec::new(), Outcome { winner, reason });
        g.forfeit = self.forfeit.clone().map(|cause| Forfeit { by_a: self.a_points == 0.0, cause });
        g
    }
}

/// An open journal: its file, appended to as games finish.
pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
}

/// The key of the journal's first line, which holds the plan.
const HEADER_KEY: &str = "plan";

impl Journal {
    /// Opens the journal at `path` for `plan`: a new file starts with the plan; an existing one
    /// must hold the same plan, and its games are returned. A torn last line (a kill while it
    /// was written) is dropped; a file of another match is refused.
    pub fn open(path: &Path, plan: &Plan) -> anyhow::Result<(Journal, Vec<GameLine>)> {
        let mut games = Vec::new();
        let meta = std::fs::symlink_metadata(path).ok();
        if meta.as_ref().is_some_and(|m| m.file_type().is_symlink()) {
            anyhow::bail!("{}: is a symbolic link; a journal is read and appended to, never through a link", path.display());
        }
        if meta.is_some() {
            let text = store::read_text_capped(path, caps::METRICS, "match journal").map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            let (read, torn) = read_games(&text, plan, &path.display().to_string())?;
            games = read;
            if torn {
                let mut kept = header(plan)?;
                for g in &games {
                    kept.push_str(&serde_json::to_string(g)?);
                    kept.push('\n');
                }
                store::write_atomic(path, kept.as_bytes())?;
            }
        } else {
            store::write_atomic(path, header(plan)?.as_bytes())?;
        }
        let file = store::open_append(path).map_err(|e| anyhow::anyhow!("cannot append to {}: {e}", path.display()))?;
        Ok((Journal { path: path.to_path_buf(), file }, games))
    }

    /// Appends one finished game (flushed at once).
    pub fn append(&mut self, line: &GameLine) -> anyhow::Result<()> {
        let text = serde_json::to_string(line)?;
        writeln!(self.file, "{text}").and_then(|_| self.file.flush()).map_err(|e| anyhow::anyhow!("cannot append to {}: {e}", self.path.display()))
    }
}

/// A journal's games (and whether its last line is torn, a kill while it was written: then it
/// is left out), checked line by line against `plan`: a journal of another match, or a line
/// that is not a game of this one or repeats one, is an error naming `name` and the line.
pub fn read_games(text: &str, plan: &Plan, name: &str) -> anyhow::Result<(Vec<GameLine>, bool)> {
    let mut lines = text.lines();
    let head: serde_json::Value = lines.next().and_then(|l| serde_json::from_str(l).ok()).unwrap_or_default();
    let old: Plan =
        serde_json::from_value(head[HEADER_KEY].clone()).map_err(|_| anyhow::anyhow!("{name} is not a match journal (its first line is not a description)"))?;
    if &old != plan {
        anyhow::bail!("{name} holds another match (other players, games, seed, openings or rules); name a new file to start one");
    }
    let rest: Vec<&str> = lines.collect();
    let mut games = Vec::new();
    let mut torn = false;
    let mut seen = std::collections::HashSet::new();
    for (i, line) in rest.iter().enumerate() {
        let bad = |why: String| anyhow::anyhow!("{name} line {}: {why}; the journal is damaged (name a new file to start the match again)", i + 2);
        let g = match serde_json::from_str::<GameLine>(line) {
            Ok(g) => g,
            // A kill while the last line was written leaves it torn: it is dropped.
            Err(_) if i + 1 == rest.len() && !text.ends_with('\n') => {
                torn = true;
                continue;
            }
            Err(_) => return Err(bad("not a game line".into())),
        };
        g.check(plan).map_err(bad)?;
        if !seen.insert((g.a, g.b, g.pair, g.a_first)) {
            let first = if g.a_first { g.a } else { g.b } + 1;
            return Err(bad(format!("the game of pair {} with player {first} first is there a second time", g.pair)));
        }
        games.push(g);
    }
    Ok((games, torn))
}

fn header(plan: &Plan) -> anyhow::Result<String> {
    Ok(serde_json::to_string(&serde_json::json!({ HEADER_KEY: plan }))? + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jungle::JungleGame;

    fn plan() -> Plan {
        Plan {
            game: "jungle".into(),
            players: vec!["a".into(), "b".into()],
            pairings: vec![(0, 1)],
            games: 4,
            seed: 1,
            opening_plies: 2,
            openings: None,
            rules: "standard".into(),
        }
    }

    fn line(pair: usize, a_first: bool, a_points: f64) -> GameLine {
        GameLine { a: 0, b: 1, pair, a_first, a_points, reason: if a_points == 0.5 { "repetition" } else { "den" }.into(), forfeit: None, pgn: None }
    }

    #[test]
    fn damaged_lines_are_refused_by_line() {
        let dir = std::env::temp_dir().join(format!("jz-journal-damaged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("match.jsonl");
        let good = serde_json::to_string(&line(0, true, 1.0)).unwrap();
        let cases = [
            (good.clone(), "a second time"),
            (good.replace("\"pair\":0", "\"pair\":2"), "out of range"),
            (good.replace("\"a_points\":1.0", "\"a_points\":0.3"), "0, 0.5 or 1"),
            (good.replace("den", "bogus"), "unknown reason"),
            (good.replace("\"b\":1", "\"b\":5"), "not a pairing"),
            (good.replace("\"a_points\":1.0", "\"a_points\":0.5"), "cannot end by"),
            (String::new(), "not a game line"),
        ];
        for (extra, why) in cases {
            std::fs::write(&path, format!("{}{good}\n{extra}\n", header(&plan()).unwrap())).unwrap();
            let e = Journal::open(&path, &plan()).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains("line 3") && e.contains(why), "{why}: {e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_journal_resumes_drops_a_torn_line_and_refuses_another_match() {
        let dir = std::env::temp_dir().join(format!("jz-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("match.jsonl");
        let _ = std::fs::remove_file(&path);
        let (mut j, games) = Journal::open(&path, &plan()).unwrap();
        assert!(games.is_empty());
        j.append(&line(0, true, 1.0)).unwrap();
        j.append(&line(0, false, 0.5)).unwrap();
        drop(j);
        // A kill while the third line was written.
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        write!(f, "{{\"a\":0,\"b\":1,\"pa").unwrap();
        drop(f);
        let (_, games) = Journal::open(&path, &plan()).unwrap();
        assert_eq!(games, vec![line(0, true, 1.0), line(0, false, 0.5)]);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3, "the torn line is gone");
        let other = Plan { seed: 2, ..plan() };
        let e = Journal::open(&path, &other).err().unwrap().to_string();
        assert!(e.contains("another match"), "{e}");
        std::fs::write(&path, "hello\n").unwrap();
        assert!(Journal::open(&path, &plan()).err().unwrap().to_string().contains("not a match journal"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_line_becomes_the_game_it_records() {
        let g: PlayedGame<JungleGame> = line(3, false, 0.0).played(2);
        assert_eq!((g.pair, g.a_red, g.a_points), (3, false, 0.0));
        assert_eq!(g.outcome.winner, Some(Seat::First), "A had the second seat and lost");
        let f = GameLine { forfeit: Some("crashed".into()), reason: "forfeit".into(), ..line(1, true, 0.0) };
        let g: PlayedGame<JungleGame> = f.played(0);
        assert_eq!(g.forfeit.as_ref().map(|f| (f.by_a, f.cause.as_str())), Some((true, "crashed")));
        assert_eq!(GameLine::of(0, 1, &g), f);
        assert_eq!(line(2, true, 0.5).played::<JungleGame>(0).outcome.winner, None);
    }
}
