/// Match and tournament journals (`arena --log`, `tournament`'s games.jsonl): the text after a
/// valid description line of a small match, read as a resumed match reads it; whatever it
/// accepts must be games of that match, each once.
pub fn run(data: &[u8]) {
    use junglezero::arena::journal::{Plan, read_games};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let plan = Plan {
        game: "jungle".into(),
        players: vec!["a".into(), "b".into(), "c".into()],
        pairings: vec![(0, 1), (0, 2), (1, 2)],
        games: 4,
        seed: 1,
        opening_plies: 2,
        openings: None,
        rules: "default".into(),
    };
    let head = r#"{"plan":{"game":"jungle","players":["a","b","c"],"pairings":[[0,1],[0,2],[1,2]],"games":4,"seed":1,"opening_plies":2,"openings":null,"rules":"default"}}"#;
    for input in [format!("{head}\n{text}"), text.to_string()] {
        if let Ok((games, _)) = read_games(&input, &plan, "fuzz.jsonl") {
            let mut seen = std::collections::HashSet::new();
            for g in &games {
                assert!(plan.pairings.contains(&(g.a, g.b)) && g.pair < 2 && [0.0, 0.5, 1.0].contains(&g.a_points));
                assert!(seen.insert((g.a, g.b, g.pair, g.a_first)), "a game counted twice");
            }
        }
    }
}
