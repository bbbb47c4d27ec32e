//! Parsing protocol lines into commands. Every malformed line becomes an error message; nothing
//! here panics.

/// `go` parameters; unset fields do not limit the search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    pub infinite: bool,
    /// `mate N`: look for a win in N moves.
    pub mate: Option<u32>,
    /// `searchmoves M...`: only these root moves (as written; checked against the position
    /// when the search starts).
    pub searchmoves: Vec<String>,
    /// `ponder`: search the position (after the expected reply) until `ponderhit` or `stop`.
    pub ponder: bool,
}

/// The words of a `go` line; `searchmoves` takes the tokens after it up to the next of them.
const GO_WORDS: [&str; 12] = ["depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "infinite", "mate", "searchmoves", "ponder"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    NewGame,
    /// `fen: None` is the start position.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(GoParams),
    /// The expected reply was played: a `go ponder` search goes on as the `go` it came with.
    PonderHit,
    Stop,
    Quit,
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// A blank line.
    Nothing,
}

/// Why a protocol line does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    #[error("'go {0}' needs a number")]
    MissingNumber(String),
    #[error("'go {what} {token}': '{token}' is not a whole number")]
    NotANumber { what: String, token: String },
    #[error("unknown 'go' parameter '{0}'")]
    UnknownGoParameter(String),
    #[error("'go searchmoves' needs at least one move")]
    NoSearchMoves,
    #[error("'go {what} {token}': {what} must be {range}")]
    OutOfRange { what: String, token: String, range: &'static str },
    #[error("unexpected '{0}' after 'position startpos'")]
    AfterStartpos(String),
    #[error("'position fen' needs a FEN")]
    MissingFen,
    #[error("'position {0}': expected 'startpos' or 'fen'")]
    UnknownPositionKind(String),
    #[error("'position' needs 'startpos' or 'fen'")]
    MissingPositionKind,
    #[error("expected 'setoption name <id> [value <x>]'")]
    SetOptionSyntax,
    #[error("'setoption name' needs an option name")]
    MissingOptionName,
}

/// Parses one line.
pub fn parse(line: &str) -> Result<Command, ParseError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some(&verb) = tokens.first() else { return Ok(Command::Nothing) };
    let rest = &tokens[1..];
    match verb {
        "uci" => Ok(Command::Uci),
        "isready" => Ok(Command::IsReady),
        "ucinewgame" => Ok(Command::NewGame),
        "stop" => Ok(Command::Stop),
        "ponderhit" => Ok(Command::PonderHit),
        "quit" => Ok(Command::Quit),
        "position" => parse_position(rest),
        "go" => parse_go(rest).map(Command::Go),
        "setoption" => parse_setoption(rest),
        other => Err(ParseError::UnknownCommand(crate::check::clip(other))),
    }
}

fn parse_position(rest: &[&str]) -> Result<Command, ParseError> {
    let moves_at = rest.iter().position(|t| *t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&rest[..i], rest[i + 1..].iter().map(|s| s.to_string()).collect()),
        None => (rest, Vec::new()),
    };
    match head.first() {
        Some(&"startpos") if head.len() == 1 => Ok(Command::Position { fen: None, moves }),
        Some(&"startpos") => Err(ParseError::AfterStartpos(head[1].into())),
        Some(&"fen") if head.len() > 1 => Ok(Command::Position { fen: Some(head[1..].join(" ")), moves }),
        Some(&"fen") => Err(ParseError::MissingFen),
        Some(other) => Err(ParseError::UnknownPositionKind(other.to_string())),
        None => Err(ParseError::MissingPositionKind),
    }
}

/// The longest `go mate` (moves): 2N − 1 plies must fit a search's depth.
pub const MAX_MATE: u32 = 40;
/// The most `searchmoves` kept (more than any position's legal moves).
const MAX_SEARCHMOVES: usize = 256;

/// The longest time a `go` line may give, in milliseconds (about 115 days): larger times are
/// taken as this, so that no deadline computed from them can overflow.
pub const MAX_GO_MS: u64 = 10_000_000_000;

/// A whole number of any size, saturated to the range of `i128` (a clock of 10^30 ms is as
/// good as infinite); `None` for a token that is not one.
fn whole(t: &str) -> Option<i128> {
    if let Ok(v) = t.parse::<i128>() {
        return Some(v);
    }
    let (negative, digits) = t.strip_prefix('-').map_or((false, t), |d| (true, d));
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(if negative { i128::MIN } else { i128::MAX })
}

/// The number after `what`, at least `min`, taken as at most `max` when larger. A value below
/// `min` is refused naming the token, except that a negative clock (`wtime`, `btime`: some
/// hosts send a clock that ran out as a negative number) is 0.
fn ranged(tokens: &mut std::slice::Iter<&str>, what: &str, min: i128, max: i128, range: &'static str) -> Result<u64, ParseError> {
    let t = tokens.next().ok_or_else(|| ParseError::MissingNumber(what.into()))?;
    let v = whole(t).ok_or_else(|| ParseError::NotANumber { what: what.into(), token: crate::check::clip(t) })?;
    let clock = matches!(what, "wtime" | "btime");
    if v < min && !clock {
        return Err(ParseError::OutOfRange { what: what.into(), token: crate::check::clip(t), range });
    }
    Ok(v.clamp(min.max(0), max) as u64)
}

/// `go` parameters, each checked: `depth`, `nodes` and `movetime` at least 1, increments at
/// least 0, clocks taken as 0 when negative; times above [`MAX_GO_MS`] (and depths and node
/// counts above what a search can reach) are taken as the largest.
fn parse_go(rest: &[&str]) -> Result<GoParams, ParseError> {
    const MS: i128 = MAX_GO_MS as i128;
    let mut p = GoParams::default();
    let mut it = rest.iter();
    while let Some(&t) = it.next() {
        match t {
            "depth" => p.depth = Some(ranged(&mut it, t, 1, i128::from(u32::MAX), "at least 1")? as u32),
            "nodes" => p.nodes = Some(ranged(&mut it, t, 1, i128::from(u64::MAX), "at least 1")?),
            "movetime" => p.movetime = Some(ranged(&mut it, t, 1, MS, "at least 1 millisecond")?),
            "wtime" => p.wtime = Some(ranged(&mut it, t, 0, MS, "a number of milliseconds")?),
            "btime" => p.btime = Some(ranged(&mut it, t, 0, MS, "a number of milliseconds")?),
            "winc" => p.winc = Some(ranged(&mut it, t, 0, MS, "0 or more milliseconds")?),
            "binc" => p.binc = Some(ranged(&mut it, t, 0, MS, "0 or more milliseconds")?),
            "movestogo" => p.movestogo = Some(ranged(&mut it, t, 0, i128::from(u64::MAX), "0 or more")?),
            "infinite" => p.infinite = true,
            "ponder" => p.ponder = true,
            "mate" => p.mate = Some(ranged(&mut it, t, 1, i128::from(MAX_MATE), "from 1 to 40 moves")?.min(u64::from(MAX_MATE)) as u32),
            "searchmoves" => {
                let mut any = false;
                while let Some(&m) = it.as_slice().first() {
                    if GO_WORDS.contains(&m) {
                        break;
                    }
                    it.next();
                    any = true;
                    if p.searchmoves.len() < MAX_SEARCHMOVES && !p.searchmoves.iter().any(|x| x == m) {
                        p.searchmoves.push(m.to_string());
                    }
                }
                if !any {
                    return Err(ParseError::NoSearchMoves);
                }
            }
            other => return Err(ParseError::UnknownGoParameter(crate::check::clip(other))),
        }
    }
    Ok(p)
}

fn parse_setoption(rest: &[&str]) -> Result<Command, ParseError> {
    if rest.first() != Some(&"name") {
        return Err(ParseError::SetOptionSyntax);
    }
    let value_at = rest.iter().position(|t| *t == "value");
    let name_end = value_at.unwrap_or(rest.len());
    let name = rest[1..name_end].join(" ");
    if name.is_empty() {
        return Err(ParseError::MissingOptionName);
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_verbs() {
        assert_eq!(parse("uci"), Ok(Command::Uci));
        assert_eq!(parse("  "), Ok(Command::Nothing));
        assert_eq!(parse("position startpos moves a3a4 g7g6"), Ok(Command::Position { fen: None, moves: vec!["a3a4".into(), "g7g6".into()] }));
        assert_eq!(
            parse("position fen 6c/7/7/7/7/7/7/7/C6 w 0 1 moves a1a2"),
            Ok(Command::Position { fen: Some("6c/7/7/7/7/7/7/7/C6 w 0 1".into()), moves: vec!["a1a2".into()] })
        );
        let go = parse("go wtime 1000 btime 2000 winc 10 binc 20").unwrap();
        assert_eq!(go, Command::Go(GoParams { wtime: Some(1000), btime: Some(2000), winc: Some(10), binc: Some(20), ..GoParams::default() }));
        // A clock that ran out may come negative; huge numbers are the largest there is.
        let go = parse("go wtime -20 btime 99999999999999999999999999999999999999999999 nodes 99999999999999999999999").unwrap();
        assert_eq!(go, Command::Go(GoParams { wtime: Some(0), btime: Some(MAX_GO_MS), nodes: Some(u64::MAX), ..GoParams::default() }));
        assert_eq!(parse("setoption name Hash value 128"), Ok(Command::SetOption { name: "Hash".into(), value: Some("128".into()) }));
        // searchmoves ends at the next word of `go`; mate and ponder.
        let go = parse("go searchmoves a3a4 g3g4 a3a4 depth 3").unwrap();
        assert_eq!(go, Command::Go(GoParams { searchmoves: vec!["a3a4".into(), "g3g4".into()], depth: Some(3), ..GoParams::default() }));
        let go = parse("go ponder wtime 100 btime 200 mate 3").unwrap();
        assert_eq!(go, Command::Go(GoParams { ponder: true, wtime: Some(100), btime: Some(200), mate: Some(3), ..GoParams::default() }));
        assert_eq!(parse("go mate 1000"), Ok(Command::Go(GoParams { mate: Some(MAX_MATE), ..GoParams::default() })));
        assert_eq!(parse("ponderhit"), Ok(Command::PonderHit));
    }

    #[test]
    fn rejects_malformed_lines_with_a_reason() {
        for (line, want) in [
            ("bogus", "unknown command 'bogus'"),
            ("go depth", "needs a number"),
            ("go depth x", "'x' is not a whole number"),
            ("go sideways", "unknown 'go' parameter"),
            ("go searchmoves", "'go searchmoves' needs at least one move"),
            ("go searchmoves depth 3", "'go searchmoves' needs at least one move"),
            ("go mate 0", "'go mate 0': mate must be from 1 to 40 moves"),
            ("go mate", "'go mate' needs a number"),
            ("go depth 0", "'go depth 0': depth must be at least 1"),
            ("go depth -3", "'go depth -3': depth must be at least 1"),
            ("go nodes 0", "'go nodes 0': nodes must be at least 1"),
            ("go movetime -5", "'go movetime -5': movetime must be at least 1 millisecond"),
            ("go movetime 0", "movetime must be at least 1"),
            ("go winc -5", "'go winc -5': winc must be 0 or more"),
            ("go binc -1", "binc must be 0 or more"),
            ("go movestogo -2", "movestogo must be 0 or more"),
            ("go wtime 1.5", "'1.5' is not a whole number"),
            ("position", "needs 'startpos' or 'fen'"),
            ("position fen", "needs a FEN"),
            ("position middle", "expected 'startpos' or 'fen'"),
            ("setoption Hash 5", "setoption name"),
        ] {
            let e = parse(line).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }
}
