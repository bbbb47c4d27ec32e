//! Game records the page can step through: the arena's PGN-style files (`--games-out`) and
//! self-play shards, both sent as the request's body (the server never opens a path a request
//! names).

use serde::{Deserialize, Serialize};

use super::ApiError;
use super::board::{Board, ServeGame};
use super::position::ResultView;
use crate::selfplay::record::{SHARD_FORMAT, decode_shard};
use crate::trainable::Trainable;

/// The most games one upload may hold.
pub const MAX_GAMES: usize = 20_000;

/// One game: what the page needs to replay it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RecordView {
    /// A line for the game list (players, result, length).
    pub title: String,
    pub fen: String,
    /// The rule switches (`default` or `key=value,...`).
    pub rules: String,
    pub moves: Vec<String>,
    pub result: Option<ResultView>,
}

/// The games of `G` in `bytes`: a self-play shard when it starts with the shard magic, else PGN
/// text (played under `base` with each game's `Rules` tag over them).
pub fn parse_records<G: ServeGame>(bytes: &[u8], base: <G as Trainable>::Rules) -> Result<Vec<RecordView>, ApiError> {
    if bytes.starts_with(&SHARD_FORMAT.magic) {
        return shard_records::<G>(bytes);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| ApiError::bad("the file is neither a self-play shard nor PGN text (not UTF-8)"))?;
    pgn_records::<G>(text, &base)
}

fn shard_records<G: ServeGame>(bytes: &[u8]) -> Result<Vec<RecordView>, ApiError> {
    let games = decode_shard::<G>(bytes).map_err(|e| ApiError::bad(format!("bad self-play shard: {e}")))?;
    if games.len() > MAX_GAMES {
        return Err(ApiError::bad(format!("the shard holds {} games, more than {MAX_GAMES}", games.len())));
    }
    games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let moves: Vec<String> = g.moves.iter().map(|m| m.mv.to_string()).collect();
            let board =
                G::replay(g.rules.clone(), Some(g.root.as_str()), &moves, None).map_err(|e| ApiError::bad(format!("shard game {}: {}", i + 1, e.message)))?;
            Ok(view(format!("self-play {} ({}, seed {})", i + 1, g.model_id, g.seed), &*board))
        })
        .collect()
}

/// The record of the game on `board`, as the page draws it.
fn view(title: String, board: &dyn Board) -> RecordView {
    let position = board.view();
    let outcome = position.result.as_ref().map_or("unfinished".to_string(), |r| r.text.clone());
    RecordView {
        title: format!("{title}: {} plies, {outcome}", position.moves.len()),
        fen: position.root_fen,
        rules: position.rules,
        moves: position.moves,
        result: position.result,
    }
}

/// One game's tags and move tokens as read.
#[derive(Default)]
struct RawGame {
    tags: Vec<(String, String)>,
    tokens: Vec<String>,
    /// The line its first tag or move was on.
    line: usize,
}

impl RawGame {
    fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.tokens.is_empty()
    }
}

/// PGN games: tag pairs, then move text (move numbers, results and `{comments}` skipped).
fn pgn_records<G: ServeGame>(text: &str, base: &<G as Trainable>::Rules) -> Result<Vec<RecordView>, ApiError> {
    let mut raw = Vec::new();
    let mut cur = RawGame::default();
    let mut in_comment = false;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if !in_comment && t.starts_with('[') {
            if !cur.tokens.is_empty() {
                raw.push(std::mem::take(&mut cur));
            }
            if cur.is_empty() {
                cur.line = n + 1;
            }
            cur.tags.push(parse_tag(t).ok_or_else(|| ApiError::bad(format!("line {}: not a PGN tag: {}", n + 1, clip(t))))?);
            continue;
        }
        for word in t.split_whitespace() {
            if in_comment {
                in_comment = !word.contains('}');
                continue;
            }
            if word.starts_with('{') {
                in_comment = !word.contains('}');
                continue;
            }
            if cur.is_empty() {
                cur.line = n + 1;
            }
            cur.tokens.push(word.to_string());
        }
        if raw.len() + 1 > MAX_GAMES {
            return Err(ApiError::bad(format!("more than {MAX_GAMES} games in one file")));
        }
    }
    if !cur.is_empty() {
        raw.push(cur);
    }
    if raw.is_empty() {
        return Err(ApiError::bad("no game found: expected PGN tags and moves, or a self-play shard"));
    }
    raw.iter().enumerate().map(|(i, g)| pgn_game::<G>(i, g, base)).collect()
}

/// One PGN game: from its `FEN` tag (none: the usual start), under `base` with its `Rules` tag
/// over them.
fn pgn_game<G: ServeGame>(i: usize, g: &RawGame, base: &<G as Trainable>::Rules) -> Result<RecordView, ApiError> {
    let moves: Vec<&str> = g.tokens.iter().map(String::as_str).filter(|t| !is_move_number(t) && !is_result(t)).collect();
    let board =
        G::replay(base.clone(), g.tag("FEN"), &moves, g.tag("Rules")).map_err(|e| ApiError::bad(format!("game {} (line {}): {}", i + 1, g.line, e.message)))?;
    let who = match (g.tag("White"), g.tag("Black")) {
        (Some(w), Some(b)) => format!("{w} – {b}"),
        _ => format!("game {}", i + 1),
    };
    let round = g.tag("Round").map_or(String::new(), |r| format!("round {r}, "));
    Ok(view(format!("{round}{who}"), &*board))
}

/// `[Key "value"]` with `\"` and `\\` escapes.
fn parse_tag(t: &str) -> Option<(String, String)> {
    let inner = t.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (key, rest) = inner.split_once(char::is_whitespace)?;
    let rest = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::with_capacity(rest.len());
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        value.push(if c == '\\' { chars.next()? } else { c });
    }
    Some((key.to_string(), value))
}

fn is_move_number(t: &str) -> bool {
    let digits = t.trim_end_matches('.');
    t.ends_with('.') && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn is_result(t: &str) -> bool {
    matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*")
}

fn clip(s: &str) -> String {
    s.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_unescape_and_reject_junk() {
        assert_eq!(parse_tag(r#"[White "a \"b\" c"]"#), Some(("White".into(), "a \"b\" c".into())));
        assert_eq!(parse_tag("[White]"), None);
        assert_eq!(parse_tag("[White \"x]"), None);
    }

    #[test]
    fn move_numbers_and_results_are_recognised() {
        assert!(is_move_number("12."));
        assert!(is_move_number("3..."));
        assert!(!is_move_number("a3a4"));
        assert!(!is_move_number("."));
        assert!(is_result("1/2-1/2"));
        assert!(!is_result("a1a2"));
    }
}
