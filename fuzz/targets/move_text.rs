/// Move text: every token is parsed, and those that parse are played through the checked door
/// from the start position; illegal ones are refused, never played.
pub fn run(data: &[u8]) {
    use junglezero::game::Game;
    use junglezero::jungle::{JungleGame, parse_move};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut game = JungleGame::default();
    for token in text.split_whitespace().take(64) {
        let Ok(mv) = parse_move(token) else { continue };
        assert_eq!(parse_move(&mv.to_string()).ok(), Some(mv), "{token} prints as {mv}");
        let legal = game.is_legal(mv);
        assert_eq!(game.play_checked(mv).is_ok(), legal, "{token}");
    }
}
