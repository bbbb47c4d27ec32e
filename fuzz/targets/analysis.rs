/// Analysis engine queries (`junglezero analysis`): each line is read and checked, or refused
/// with its id; a query that reads has at most one position per turn, in turn order, each the
/// position after that many of its moves.
pub fn run(data: &[u8]) {
    use junglezero::config::Config;
    use junglezero::entries::analysis::{MAX_QUERY_MOVES, Plan};
    use junglezero::jungle::JungleGame;
    let Ok(text) = std::str::from_utf8(data) else { return };
    let config = Config::default();
    for line in text.lines().take(16) {
        let Ok(plan) = Plan::<JungleGame>::read(line, &config) else { continue };
        let mut last = None;
        let mut count = 0usize;
        plan.for_each_job(|job| {
            assert!(last.is_none_or(|t| job.turn > t), "turns out of order");
            assert!(job.turn <= MAX_QUERY_MOVES && (1..=256).contains(&job.max_moves));
            last = Some(job.turn);
            count += 1;
            true
        });
        assert!((1..=MAX_QUERY_MOVES + 1).contains(&count));
    }
}
