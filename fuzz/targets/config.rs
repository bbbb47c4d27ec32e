/// Config TOML and `--set` overrides: a config that loads prints back to TOML that loads to
/// the same config.
pub fn run(data: &[u8]) {
    use junglezero::config::Config;
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(c) = Config::from_toml(text) {
        let again = Config::from_toml(&c.to_toml()).unwrap_or_else(|e| panic!("printed config does not load: {e}"));
        assert_eq!(again, c);
    }
    let sets: Vec<String> = text.lines().take(16).map(str::to_string).collect();
    let _ = Config::load(None, &sets);
}
