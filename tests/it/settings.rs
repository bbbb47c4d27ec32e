//! Each setting declared once: configs/default.toml is what the declarations document, every
//! key in it is declared, and the protocol's options and the command line's flags take the
//! declared ranges.

use std::io::Write;
use std::process::{Command, Stdio};

use junglezero::config::doc::settings;
use junglezero::config::experimental;
use junglezero::settings::{Setting, find};

use crate::common::junglezero;

fn default_toml() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/default.toml")).unwrap()
}

#[test]
fn the_default_config_is_the_documented_declarations() {
    let out = junglezero(&["config", "defaults"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let generated = String::from_utf8(out.stdout).unwrap();
    // Line by line first, so a difference is named.
    for (i, (have, want)) in default_toml().lines().zip(generated.lines()).enumerate() {
        assert_eq!(have, want, "configs/default.toml line {} differs from the declarations (junglezero config defaults > configs/default.toml)", i + 1);
    }
    assert_eq!(default_toml(), generated, "configs/default.toml is `junglezero config defaults`");
}

#[test]
fn every_key_of_the_default_config_is_declared() {
    let table: toml::Table = default_toml().parse().unwrap();
    let all = settings();
    let mut keys = Vec::new();
    for (k, v) in &table {
        match v {
            toml::Value::Table(t) => keys.extend(t.keys().map(|name| format!("{k}.{name}"))),
            _ => keys.push(k.clone()),
        }
    }
    assert!(keys.len() >= 150, "the default config lists every setting: {}", keys.len());
    for key in &keys {
        let key = experimental::section_key(key).unwrap_or(key);
        assert!(find(&all, key).is_some(), "{key} in configs/default.toml is not declared");
    }
    // ...and every declared setting is in it.
    assert_eq!(keys.len(), all.len(), "configs/default.toml lists each declared setting once");
}

/// The `option` lines the protocol answers `uci` with.
fn uci_options(variant: &str) -> Vec<String> {
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_junglezero")).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "setoption name UCI_Variant value {variant}\nuci\nquit").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // The answer to the second `uci` (after the variant is chosen).
    let last = text.rfind("id name").unwrap_or(0);
    text[last..].lines().filter(|l| l.starts_with("option name ")).map(str::to_string).collect()
}

#[test]
fn the_protocols_options_agree_with_the_declarations() {
    let all = settings();
    let options = uci_options("jungle");
    let declared: Vec<&Setting> = all.iter().filter(|s| s.option.is_some()).collect();
    assert!(declared.len() >= 6, "Hash, Threads (twice), Playouts, MinibatchSize, NNCacheSize, TablebasePath");
    for s in declared {
        let name = s.option.unwrap();
        let line = options.iter().find(|l| l.starts_with(&format!("option name {name} "))).unwrap_or_else(|| panic!("no option {name} for {}", s.key()));
        if let Some((lo, hi)) = s.int_range() {
            assert!(line.contains(" type spin ") && line.ends_with(&format!(" min {lo} max {hi}")), "{line} against {}'s range {lo}..={hi}", s.key());
        } else {
            assert!(line.contains(" type string "), "{line}");
        }
    }
    // A value outside the declared range is refused with the range; one inside is taken.
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_junglezero")).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "setoption name Playouts value 0\nsetoption name Threads value 257\nsetoption name Playouts value 64\nuci\nquit").unwrap();
    drop(stdin);
    let text = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    assert!(text.contains("'Playouts' needs a whole number from 1 to 10000000"), "{text}");
    assert!(text.contains("'Threads' needs a whole number from 1 to 256"), "{text}");
    assert!(text.contains("option name Playouts type spin default 64 min 1 max 10000000"), "{text}");
    // The rule switches are the rules' declared keys, for each game.
    for (variant, section) in [("jungle", "rules"), ("flip", "flip_rules")] {
        let options = uci_options(variant);
        for s in all.iter().filter(|s| s.section == section) {
            assert!(options.iter().any(|l| l.starts_with(&format!("option name {} ", s.name))), "{variant}: no option for {}", s.key());
        }
    }
}

#[test]
fn flags_take_the_declared_range_and_config_keys_lists_every_setting() {
    let out = junglezero(&["analyse", "--model", "x.jzm", "--sims", "0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("0 is not in 1..=10000000"), "{err}");
    let out = junglezero(&["arena", "--a", "random", "--b", "random", "--concurrency", "5000"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("5000 is not in 0..=4096"), "{err}");
    let out = junglezero(&["config", "keys"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for s in settings() {
        assert!(text.lines().any(|l| l.starts_with(&format!("{} ", s.key()))), "config keys lacks {}", s.key());
    }
    assert!(text.lines().any(|l| l.starts_with("mcts.playouts ") && l.contains("1 to 10000000") && l.contains("Playouts")), "{text}");
    // Types in words, never the program's own names.
    assert!(!text.contains("::") && !text.contains(" u32 ") && !text.contains("GameName"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("hardware.cpu_kernels ") && l.contains(" choice ")), "{text}");
}

#[test]
fn the_rules_switch_keys_are_their_declared_settings() {
    use junglezero::flip::FlipRules;
    use junglezero::jungle::Rules;
    use junglezero::switches::Switches;
    let all = settings();
    for (section, keys) in [("rules", <Rules as Switches>::KEYS), ("flip_rules", <FlipRules as Switches>::KEYS)] {
        let declared: Vec<&str> = all.iter().filter(|s| s.section == section).map(|s| s.name).collect();
        assert_eq!(declared, keys.to_vec(), "[{section}]'s switches and its declared settings");
    }
}
