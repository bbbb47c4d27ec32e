/// FEN text: a position that parses prints back to a FEN that parses to the same text, and the
/// move generator and the game-end checks run on it without a panic.
pub fn run(data: &[u8]) {
    use junglezero::game::Game;
    use junglezero::jungle::{JungleGame, Rules, fen, parse_fen};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(pos) = parse_fen(text) else { return };
    let printed = fen(&pos);
    let again = parse_fen(&printed).unwrap_or_else(|e| panic!("printed FEN '{printed}' does not parse: {e}"));
    assert_eq!(fen(&again), printed);
    let game = JungleGame::new(pos, Rules::default());
    let _ = game.turn();
    for mv in game.legal_moves().iter().take(8) {
        let mut g = game.clone();
        g.play_checked(*mv).expect("a generated move is legal");
        let _ = g.turn();
    }
}
