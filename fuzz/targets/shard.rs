/// Game shards, framed as the model files are (see model_file): a shard that decodes is turned
/// into training samples as the learner does, games that do not replay being skipped. Both
/// games' readers see every input (a shard names its game, so at most one accepts it).
pub fn run(data: &[u8]) {
    use junglezero::selfplay::record::{SHARD_FORMAT, decode_shard};
    use junglezero::store::framed;
    use junglezero::train::replay::samples_from_games;
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let mut out = framed::begin(&SHARD_FORMAT, rest.len());
        out.extend_from_slice(rest);
        framed::seal(out)
    };
    let path = std::path::Path::new("fuzz.jzg");
    if let Ok(games) = decode_shard::<junglezero::jungle::JungleGame>(&bytes) {
        let rules = games.first().map(|g| g.rules).unwrap_or_default();
        let _ = samples_from_games(path, &games, &rules);
    }
    if let Ok(games) = decode_shard::<junglezero::flip::FlipGame>(&bytes) {
        let rules = games.first().map(|g| g.rules).unwrap_or_default();
        let _ = samples_from_games(path, &games, &rules);
    }
}
