//! Opening suites: distinct random openings, each played twice with the seats swapped (in a
//! game with chance events, under one deal shared by the pair; see [`super::match_game`]).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::match_game::{MatchGame, resolve_chance};
use crate::game::Turn;

/// An opening: nature's deal and the moves played from its root (nature's draws included);
/// the root is the start position unless the opening names another (a FEN and its game).
#[derive(Debug)]
pub struct Opening<G: MatchGame> {
    pub deal: G::Deal,
    pub moves: Vec<G::Move>,
    pub root: Option<(String, G)>,
}

impl<G: MatchGame> Clone for Opening<G> {
    fn clone(&self) -> Self {
        Opening { deal: self.deal.clone(), moves: self.moves.clone(), root: self.root.clone() }
    }
}

impl<G: MatchGame> PartialEq for Opening<G> {
    fn eq(&self, o: &Self) -> bool {
        self.deal == o.deal && self.moves == o.moves && self.root.as_ref().map(|r| &r.0) == o.root.as_ref().map(|r| &r.0)
    }
}

impl<G: MatchGame> Opening<G> {
    /// Plies of the opening.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// Up to `count` distinct openings of `plies` random legal moves from the start position
/// (deduplicated by the position they reach and the deal; never a finished game). Fewer are
/// returned when that few distinct ones exist (e.g. `plies = 0` in Jungle gives one).
pub fn random_openings<G: MatchGame>(rules: &G::Rules, plies: usize, count: usize, seed: u64) -> Vec<Opening<G>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0;
    while out.len() < count && attempts < count * 200 + 100 {
        attempts += 1;
        let deal = G::random_deal(rules, &mut rng);
        let mut g = G::match_start(rules);
        let mut moves = Vec::with_capacity(plies);
        let mut played = 0;
        while played < plies {
            resolve_chance(&mut g, &deal, &mut moves);
            if !matches!(g.turn(), Turn::Player(_)) {
                break;
            }
            let legal = g.legal_moves();
            let m = legal[rng.random_range(0..legal.len())];
            g.play_unchecked(m);
            moves.push(m);
            played += 1;
        }
        resolve_chance(&mut g, &deal, &mut moves);
        if g.outcome().is_some() || played < plies {
            continue;
        }
        if seen.insert((g.opening_key(), deal.clone())) {
            out.push(Opening { deal, moves, root: None });
        }
    }
    out
}

/// The game after an opening.
pub fn start_game<G: MatchGame>(rules: &G::Rules, opening: &Opening<G>) -> G {
    let mut g = opening.root.as_ref().map_or_else(|| G::match_start(rules), |r| r.1.clone());
    for &m in &opening.moves {
        g.play_unchecked(m);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flip::{FlipGame, FlipRules};
    use crate::game::Game;
    use crate::jungle::{JungleGame, Rules};

    #[test]
    fn openings_are_distinct_and_reproducible() {
        let r = Rules::default();
        let a = random_openings::<JungleGame>(&r, 4, 50, 9);
        assert_eq!(a.len(), 50);
        let hashes: std::collections::HashSet<u64> = a.iter().map(|o| start_game(&r, o).position().hash()).collect();
        assert_eq!(hashes.len(), 50, "deduplicated by position");
        assert_eq!(a, random_openings(&r, 4, 50, 9), "same seed, same suite");
        assert_ne!(a, random_openings(&r, 4, 50, 10));
        assert_eq!(random_openings::<JungleGame>(&r, 0, 5, 1).len(), 1, "only one 0-ply opening exists");
        // Two plies from the start reach at most 24 * 24 positions.
        assert!(random_openings::<JungleGame>(&r, 1, 100, 1).len() <= 24);
    }

    #[test]
    fn flip_openings_differ_by_their_deals_and_end_at_a_player_s_turn() {
        let r = FlipRules::default();
        let a = random_openings::<FlipGame>(&r, 0, 20, 4);
        assert_eq!(a.len(), 20, "no moves, twenty deals");
        assert!(a.iter().all(|o| o.moves.is_empty()));
        let b = random_openings::<FlipGame>(&r, 2, 20, 4);
        assert_eq!(b.len(), 20);
        for o in &b {
            // Two decisions, each flip followed by its draw.
            assert!((2..=4).contains(&o.moves.len()), "{:?}", o.moves);
            assert!(matches!(start_game(&r, o).turn(), Turn::Player(_)));
        }
    }
}

/// Why an openings file was refused.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    #[error("opening {index} (line {line}): '{text}' is not a legal move there")]
    Illegal { index: usize, line: usize, text: String },
    #[error("opening {index} (line {line}): the game is over after it")]
    Finished { index: usize, line: usize },
    #[error("opening {index} (line {line}): it reaches a chance event; this game's openings come from its random deals, not a file")]
    Chance { index: usize, line: usize },
    #[error("opening {index} (line {line}): bad position: {why}")]
    Root { index: usize, line: usize, why: String },
    #[error("the file holds no opening")]
    Empty,
}

/// Openings from a text: one opening a line (moves from the start, as the protocol writes
/// them, or a position in the game's FEN, optionally followed by `moves` and moves from it),
/// or PGN (games after `[Tag "..."]` headers, from the `[FEN "..."]` tag's position when there
/// is one; move numbers, comments in braces and results are skipped). Lines starting with `#`
/// are comments. Each opening gets a deal drawn from `seed`.
pub fn openings_from_text<G: MatchGame>(text: &str, rules: &G::Rules, seed: u64) -> Result<Vec<Opening<G>>, OpeningsError> {
    let pgn = text.lines().any(|l| l.trim_start().starts_with('['));
    // (first line, root FEN, move texts) of each opening.
    let mut lines: Vec<(usize, Option<String>, String)> = Vec::new();
    let mut current: Option<(usize, Option<String>, String)> = None;
    // A PGN game's FEN tag, for the moves that follow the tags.
    let mut tag_root: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with('[') {
            if pgn && l.starts_with('[') {
                lines.extend(current.take());
                if let Some(v) = l.strip_prefix("[FEN \"").and_then(|r| r.strip_suffix("\"]")) {
                    tag_root = Some(v.to_string());
                }
            }
            continue;
        }
        match (&mut current, pgn) {
            (Some((_, _, body)), true) => {
                body.push(' ');
                body.push_str(l);
            }
            _ => {
                lines.extend(current.take());
                current = Some(if pgn {
                    (i + 1, tag_root.take(), l.to_string())
                } else if l.split_whitespace().next().is_some_and(|t| t.contains('/')) {
                    // A FEN, then `moves ...` if any.
                    let (fen, moves) = l.split_once(" moves ").map_or((l, ""), |(f, m)| (f, m));
                    (i + 1, Some(fen.trim().to_string()), moves.to_string())
                } else {
                    (i + 1, None, l.to_string())
                });
            }
        }
    }
    lines.extend(current);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(lines.len());
    for (index, (line, root, body)) in lines.iter().enumerate() {
        let (index, line) = (index + 1, *line);
        let deal = G::random_deal(rules, &mut rng);
        let root = match root {
            None => None,
            Some(text) => Some((text.clone(), G::match_root(text, rules).map_err(|why| OpeningsError::Root { index, line, why: crate::check::clip(&why) })?)),
        };
        let mut g = root.as_ref().map_or_else(|| G::match_start(rules), |r| r.1.clone());
        let mut moves = Vec::new();
        let body = strip_braces(body);
        for token in body.split_whitespace() {
            // Results, and move numbers ("1.", "12...", "1.a3a4").
            if ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
                continue;
            }
            let token = token.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
            if token.is_empty() {
                continue;
            }
            if !matches!(g.turn(), Turn::Player(_)) {
                return Err(if g.outcome().is_some() { OpeningsError::Finished { index, line } } else { OpeningsError::Chance { index, line } });
            }
            let Some(m) = g.legal_moves().iter().copied().find(|m| m.to_string() == token) else {
                return Err(OpeningsError::Illegal { index, line, text: crate::check::clip(token) });
            };
            g.play_unchecked(m);
            moves.push(m);
        }
        match g.turn() {
            Turn::Player(_) => out.push(Opening { deal, moves, root }),
            Turn::Over(_) => return Err(OpeningsError::Finished { index, line }),
            Turn::Chance => return Err(OpeningsError::Chance { index, line }),
        }
    }
    if out.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(out)
}

/// `text` without `{...}` comments.
fn strip_braces(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .filter(|&c| {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect()
}
