/// Player specs, time controls, rule switches and SPRT settings from the command line: each
/// line parses or is refused; what parses prints back to text that parses the same.
pub fn run(data: &[u8]) {
    use junglezero::arena::clock::TimeControl;
    use junglezero::arena::spec::PlayerSpec;
    use junglezero::arena::stats::Sprt;
    use junglezero::jungle::Rules;
    let Ok(text) = std::str::from_utf8(data) else { return };
    for line in text.lines().take(16) {
        if let Ok(s) = line.parse::<PlayerSpec>() {
            let _ = s.to_string();
        }
        if let Ok(tc) = line.parse::<TimeControl>() {
            let _ = tc.to_string().parse::<TimeControl>().unwrap_or_else(|e| panic!("printed time control does not parse: {e}"));
        }
        if let Ok(r) = line.parse::<Rules>() {
            assert_eq!(r.to_string().parse::<Rules>().ok(), Some(r));
        }
        let _ = Sprt::parse(line);
    }
}
