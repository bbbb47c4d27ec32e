/// Config TOML and `--set` overrides: a config that loads prints back to TOML that loads to
/// the same config, and holds only finite numbers; each override line is also tried with its
/// value replaced by numbers that are not numbers (NaN, the infinities, huge and negative
/// values), which must be refused or give a config of finite numbers.
pub fn run(data: &[u8]) {
    use junglezero::config::Config;
    fn all_finite(v: &toml::Value) -> bool {
        match v {
            toml::Value::Float(f) => f.is_finite(),
            toml::Value::Table(t) => t.values().all(all_finite),
            toml::Value::Array(a) => a.iter().all(all_finite),
            _ => true,
        }
    }
    fn check(c: &Config) {
        let v = toml::Value::try_from(c).unwrap_or_else(|e| panic!("a loaded config does not print: {e}"));
        assert!(all_finite(&v), "a loaded config holds a non-finite number");
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(c) = Config::from_toml(text) {
        check(&c);
        let again = Config::from_toml(&c.to_toml()).unwrap_or_else(|e| panic!("printed config does not load: {e}"));
        assert_eq!(again, c);
    }
    let sets: Vec<String> = text.lines().take(16).map(str::to_string).collect();
    if let Ok(c) = Config::load(None, &sets) {
        check(&c);
    }
    for line in sets.iter().take(4) {
        let Some((key, _)) = line.split_once('=') else { continue };
        for bad in ["nan", "inf", "-inf", "1e308", "-1e308", "-1", "18446744073709551615"] {
            if let Ok(c) = Config::load(None, &[format!("{key}={bad}")]) {
                check(&c);
            }
        }
    }
}
