//! A search's verdict in words for the side to move, read from the protocol lines the search
//! printed (the terminal game's hint).

/// What a search's last scored `info` line says: its depth, its score (`score cp N` or `score
/// mate N` from Jungle's engines; `score V`, the expected result in [-1, 1], from the flip
/// game's expectiminimax), its win/draw/loss per mille and its principal variation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scored {
    pub depth: Option<u32>,
    pub cp: Option<i64>,
    pub mate: Option<i64>,
    pub value: Option<f64>,
    pub wdl: Option<[f64; 3]>,
    pub pv: Vec<String>,
}

/// The last `info` line with a score, read; `None` when no line has a readable score.
pub fn last_scored(lines: &[String]) -> Option<Scored> {
    let scored = lines.iter().rev().find(|l| l.starts_with("info ") && l.contains(" score "))?;
    let words: Vec<&str> = scored.split_whitespace().collect();
    let at = |key: &str, k: usize| words.iter().position(|w| *w == key).and_then(|i| words.get(i + k)).copied();
    let mut s = Scored { depth: at("depth", 1).and_then(|d| d.parse().ok()), ..Scored::default() };
    match (at("score", 1), at("score", 2)) {
        (Some("cp"), Some(v)) => s.cp = Some(v.parse().ok()?),
        (Some("mate"), Some(v)) => s.mate = Some(v.parse().ok()?),
        (Some(v), _) => s.value = Some(v.parse().ok()?),
        _ => return None,
    }
    if let Some(i) = words.iter().position(|w| *w == "wdl")
        && let [w, d, l] = words.get(i + 1..i + 4).unwrap_or(&[])
    {
        let permille = |x: &str| x.parse::<f64>().unwrap_or(0.0);
        s.wdl = Some([permille(w), permille(d), permille(l)]);
    }
    if let Some(i) = words.iter().position(|w| *w == "pv") {
        s.pv = words[i + 1..].iter().map(|w| w.to_string()).collect();
    }
    Some(s)
}

/// The last `info` line's score and depth, for the side to move, and the tables' result when
/// an `info string tablebase ...` line gave one: "score +23 for you at depth 9",
/// "a win in 3 moves for you at depth 5; tablebase win in 5". `None` when no line had a
/// centipawn or mate score.
pub fn of_search(lines: &[String]) -> Option<String> {
    let s = last_scored(lines)?;
    let score = match (s.cp, s.mate) {
        (Some(cp), _) => format!("score {cp:+} for you"),
        (_, Some(moves)) if moves > 0 => format!("a win in {moves} moves for you"),
        (_, Some(moves)) => format!("a loss in {} moves for you", -moves),
        _ => return None,
    };
    let mut text = match s.depth {
        Some(d) => format!("{score} at depth {d}"),
        None => score,
    };
    if let Some([w, d, l]) = s.wdl {
        text.push_str(&format!(", win {:.0} % draw {:.0} % loss {:.0} %", w / 10.0, d / 10.0, l / 10.0));
    }
    if let Some(exact) = lines.iter().rev().find_map(|l| l.strip_prefix("info string tablebase ")) {
        text.push_str(&format!("; tablebase {exact}"));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::{last_scored, of_search};

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn scores_mates_and_tables_read_as_words() {
        let ab = lines(&[
            "info depth 1 seldepth 1 score cp 5 nodes 9 nps 0 time 0 hashfull 0 pv a3a4",
            "info depth 2 seldepth 3 score cp -40 nodes 90 nps 0 time 1 hashfull 0 pv a3a4 g7g6",
        ]);
        assert_eq!(of_search(&ab).as_deref(), Some("score -40 for you at depth 2"));
        let mate = lines(&["info depth 1 seldepth 1 time 0 nodes 0 nps 0 score mate 14 pv d2d3", "info string tablebase win in 27"]);
        assert_eq!(of_search(&mate).as_deref(), Some("a win in 14 moves for you at depth 1; tablebase win in 27"));
        let lost = lines(&["info depth 3 seldepth 3 score mate -2 nodes 1 nps 0 time 0 hashfull 0 pv a1a2"]);
        assert_eq!(of_search(&lost).as_deref(), Some("a loss in 2 moves for you at depth 3"));
        let mcts = lines(&["info depth 4 seldepth 7 time 1000 nodes 7040 nps 7037 multipv 1 score cp 2 wdl 133 748 119 pv a1a2"]);
        assert_eq!(of_search(&mcts).as_deref(), Some("score +2 for you at depth 4, win 13 % draw 75 % loss 12 %"));
        assert_eq!(of_search(&lines(&["info string something"])), None);
        let flip = lines(&["info depth 2 score 0.106 nodes 1058"]);
        assert_eq!(of_search(&flip), None, "an expected result is no centipawn score");
        let read = last_scored(&flip).unwrap();
        assert_eq!((read.depth, read.value, read.cp), (Some(2), Some(0.106), None));
        assert_eq!(last_scored(&ab).unwrap().pv, ["a3a4", "g7g6"]);
        assert_eq!(of_search(&[]), None);
    }
}
