/// metrics.jsonl text: every line is an event or a reported problem.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (events, problems) = junglezero::store::events::parse(text);
    assert!(events.len() + problems.len() <= text.lines().count());
}
