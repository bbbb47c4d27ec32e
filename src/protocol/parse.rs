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
}

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
    #[error("'go depth 0': depth must be at least 1")]
    ZeroDepth,
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

fn number<T: std::str::FromStr>(tokens: &mut std::slice::Iter<&str>, what: &str) -> Result<T, ParseError> {
    let t = tokens.next().ok_or_else(|| ParseError::MissingNumber(what.into()))?;
    t.parse().map_err(|_| ParseError::NotANumber { what: what.into(), token: crate::check::clip(t) })
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

/// The longest time a `go` line may give, in milliseconds (about 115 days): larger times are
/// taken as this, so that no deadline computed from them can overflow.
pub const MAX_GO_MS: u64 = 10_000_000_000;

/// A time in milliseconds (or a depth), at most [`MAX_GO_MS`]; a negative one (some hosts
/// send a clock that ran out as a negative number) is 0.
fn clamped(tokens: &mut std::slice::Iter<&str>, what: &str) -> Result<u64, ParseError> {
    let t = tokens.next().ok_or_else(|| ParseError::MissingNumber(what.into()))?;
    match t.parse::<i128>() {
        Ok(v) => Ok(v.clamp(0, i128::from(MAX_GO_MS)) as u64),
        Err(_) => Err(ParseError::NotANumber { what: what.into(), token: crate::check::clip(t) }),
    }
}

fn parse_go(rest: &[&str]) -> Result<GoParams, ParseError> {
    let mut p = GoParams::default();
    let mut it = rest.iter();
    while let Some(&t) = it.next() {
        match t {
            // Larger than any search reaches: taken as the most there is.
            "depth" => p.depth = Some(u32::try_from(clamped(&mut it, t)?).unwrap_or(u32::MAX)),
            "nodes" => p.nodes = Some(number(&mut it, t)?),
            "movetime" => p.movetime = Some(clamped(&mut it, t)?),
            "wtime" => p.wtime = Some(clamped(&mut it, t)?),
            "btime" => p.btime = Some(clamped(&mut it, t)?),
            "winc" => p.winc = Some(clamped(&mut it, t)?),
            "binc" => p.binc = Some(clamped(&mut it, t)?),
            "movestogo" => p.movestogo = Some(number(&mut it, t)?),
            "infinite" => p.infinite = true,
            other => return Err(ParseError::UnknownGoParameter(crate::check::clip(other))),
        }
    }
    if p.depth == Some(0) {
        return Err(ParseError::ZeroDepth);
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
        assert_eq!(parse("setoption name Hash value 128"), Ok(Command::SetOption { name: "Hash".into(), value: Some("128".into()) }));
    }

    #[test]
    fn rejects_malformed_lines_with_a_reason() {
        for (line, want) in [
            ("bogus", "unknown command 'bogus'"),
            ("go depth", "needs a number"),
            ("go depth x", "'x' is not a whole number"),
            ("go sideways", "unknown 'go' parameter"),
            ("go depth 0", "at least 1"),
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
