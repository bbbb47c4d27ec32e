//! A search's verdict in words for the side to move, read from the protocol lines the search
//! printed (the terminal game's hint).

/// The last `info` line's score and depth, for the side to move, and the tables' result when
/// an `info string tablebase ...` line gave one: "score +23 for you at depth 9",
/// "a win in 3 moves for you at depth 5; tablebase win in 5". `None` when no line had a score.
pub fn of_search(lines: &[String]) -> Option<String> {
    let scored = lines.iter().rev().find(|l| l.starts_with("info ") && l.contains(" score "))?;
    let words: Vec<&str> = scored.split_whitespace().collect();
    let after = |key: &str| words.iter().position(|w| *w == key).and_then(|i| words.get(i + 1)).copied();
    let score = match (after("score"), words.iter().position(|w| *w == "score").and_then(|i| words.get(i + 2))) {
        (Some("cp"), Some(v)) => {
            let cp: i64 = v.parse().ok()?;
            format!("score {cp:+} for you")
        }
        (Some("mate"), Some(v)) => {
            let moves: i64 = v.parse().ok()?;
            if moves > 0 { format!("a win in {moves} moves for you") } else { format!("a loss in {} moves for you", -moves) }
        }
        _ => return None,
    };
    let mut text = match after("depth") {
        Some(d) => format!("{score} at depth {d}"),
        None => score,
    };
    if let Some(i) = words.iter().position(|w| *w == "wdl")
        && let [w, d, l] = words.get(i + 1..i + 4).unwrap_or(&[])
    {
        let pct = |x: &str| x.parse::<f64>().map(|p| p / 10.0).unwrap_or(0.0);
        text.push_str(&format!(", win {:.0} % draw {:.0} % loss {:.0} %", pct(w), pct(d), pct(l)));
    }
    if let Some(exact) = lines.iter().rev().find_map(|l| l.strip_prefix("info string tablebase ")) {
        text.push_str(&format!("; tablebase {exact}"));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::of_search;

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
        assert_eq!(of_search(&[]), None);
    }
}
