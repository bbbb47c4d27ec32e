//! Every setting as declared, and the documented default config built from the declarations
//! (configs/default.toml is its output: `junglezero config defaults`).

use std::fmt::Write as _;

use super::{Config, experimental};
use crate::alphabeta::{EvalWeights, SearchConfig};
use crate::arena::{ArenaConfig, GateConfig, LadderConfig};
use crate::mcts::MctsConfig;
use crate::nn::device::HardwareConfig;
use crate::nn::model::ModelConfig;
use crate::registry::GameRules;
use crate::selfplay::SelfplayConfig;
use crate::selfplay::teacher::TeacherConfig;
use crate::settings::{Section, Setting};
use crate::tb::TablebaseConfig;
use crate::train::TrainConfig;

/// The config's keys outside any section.
const TOP: &[Setting] = &[Setting {
    section: "",
    name: "game",
    ty: "GameName",
    range: None,
    each: false,
    option: None,
    help: "\"jungle\" (the 9 x 7 board game) or \"flip\" (the 4 x 4 flip game, rules in [flip_rules]; configs/flip.toml)",
}];

/// The opening of the documented defaults.
const HEADER: &str = "\
# junglezero default config: the main job on a CPU-only machine.
#
#   cargo run --release -- train --config configs/default.toml
#
# trains from scratch into checkpoints/default/ until interrupted (Ctrl-C is safe at any time:
# running `train` again resumes). Every key is listed with its meaning; unknown keys are errors
# and values are range-checked. Any key can be overridden on the command line with
# `--set section.key=value`. `junglezero config keys` lists every key with its type and range.
# This file is written from the settings' declarations: `junglezero config defaults`.
";

/// What the `[experimental]` table holds.
const EXPERIMENTAL: &str = "Settings that were measured and left off: each has its run in the training history \
(docs/training-history.md). Set them here, never in the sections above.";

/// Where a key's comment starts, and how wide a line may be.
const COMMENT_COLUMN: usize = 28;
const WIDTH: usize = 100;

/// A section as declared: its name, what it configures and its settings.
pub struct SectionInfo {
    pub name: &'static str,
    pub about: &'static str,
    pub settings: &'static [Setting],
}

fn section<S: Section>() -> SectionInfo {
    SectionInfo { name: S::SECTION, about: S::ABOUT, settings: S::SETTINGS }
}

/// Every section, in the order the documented defaults list them: each game's rules, then the
/// network, where it runs, search, self-play, the teacher, training, gating, the ladder,
/// matches, the alpha-beta engine and the tables.
pub fn sections() -> Vec<SectionInfo> {
    let mut all: Vec<SectionInfo> = GameRules::sections().into_iter().map(|(name, about, settings)| SectionInfo { name, about, settings }).collect();
    all.extend([
        section::<ModelConfig>(),
        section::<HardwareConfig>(),
        section::<MctsConfig>(),
        section::<SelfplayConfig>(),
        section::<TeacherConfig>(),
        section::<TrainConfig>(),
        section::<GateConfig>(),
        section::<LadderConfig>(),
        section::<ArenaConfig>(),
        section::<SearchConfig>(),
        section::<EvalWeights>(),
        section::<TablebaseConfig>(),
    ]);
    all
}

/// Every declared setting: the top-level keys, then each section's.
pub fn settings() -> Vec<Setting> {
    let mut all = TOP.to_vec();
    for s in sections() {
        all.extend_from_slice(s.settings);
    }
    all
}

/// `text` as comment lines (`# ...`) of at most [`WIDTH`] columns, each starting at `indent`.
fn comment(out: &mut String, text: &str, indent: usize) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent + 2 + line.len() + 1 + word.len() > WIDTH {
            let _ = writeln!(out, "{:indent$}# {line}", "");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{:indent$}# {line}", "");
    }
}

/// `key = value` with its help as a comment beside it (continued below, aligned, when long).
fn entry(out: &mut String, key: &str, value: &toml::Value, help: &str) {
    let assignment = format!("{key} = {value}");
    let column = COMMENT_COLUMN.max(assignment.len() + 1);
    let mut first = String::new();
    comment(&mut first, help, column);
    let mut lines = first.lines();
    match lines.next() {
        Some(l) => {
            // The first comment line follows the assignment; the rest (already indented) below.
            let _ = writeln!(out, "{assignment:column$}{}", l.trim_start());
        }
        None => {
            let _ = writeln!(out, "{assignment}");
        }
    }
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
}

/// The default config with every key's help, as the declarations give them.
pub fn documented_defaults() -> String {
    let table: toml::Table = Config::default().to_toml().parse().expect("the default config reads back");
    let value = |section: &str, key: &str| -> toml::Value {
        crate::settings::lookup(&table, section, key).cloned().unwrap_or_else(|| panic!("the default config has {section}.{key}"))
    };
    let mut out = String::from(HEADER);
    out.push('\n');
    for s in TOP {
        entry(&mut out, s.name, &value("", s.name), s.help);
    }
    for sec in sections() {
        out.push('\n');
        let _ = writeln!(out, "# {}", "-".repeat(WIDTH - 2));
        comment(&mut out, sec.about, 0);
        let _ = writeln!(out, "[{}]", sec.name);
        // The experimental switches are written under `[experimental]`, below.
        for s in sec.settings.iter().filter(|s| !experimental::SWITCHES.iter().any(|(_, section, key)| *section == s.section && *key == s.name)) {
            entry(&mut out, s.name, &value(sec.name, s.name), s.help);
        }
    }
    out.push('\n');
    let _ = writeln!(out, "# {}", "-".repeat(WIDTH - 2));
    comment(&mut out, EXPERIMENTAL, 0);
    out.push_str("[experimental]\n");
    let all = settings();
    for (name, section, key) in experimental::SWITCHES {
        let help = all.iter().find(|s| s.section == *section && s.name == *key).map_or("", |s| s.help);
        entry(&mut out, name, &value("experimental", name), help);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_wrap_at_the_width_and_keys_align() {
        let mut out = String::new();
        entry(&mut out, "playouts", &toml::Value::Integer(400), &"word ".repeat(40));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() > 1, "{out}");
        assert!(lines.iter().all(|l| l.len() <= WIDTH), "{out}");
        assert_eq!(lines[0].find('#'), Some(COMMENT_COLUMN));
        assert_eq!(lines[1].find('#'), Some(COMMENT_COLUMN));
        let mut short = String::new();
        entry(&mut short, "x", &toml::Value::Boolean(true), "");
        assert_eq!(short, "x = true\n");
    }

    #[test]
    fn every_setting_is_declared_once_and_its_default_is_in_range() {
        let all = settings();
        let mut keys: Vec<String> = all.iter().map(Setting::key).collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "a key is declared twice");
        let table: toml::Table = Config::default().to_toml().parse().unwrap();
        let surface = experimental::into_sections(table).unwrap();
        for s in &all {
            let v = s.value_in(&surface).unwrap_or_else(|| panic!("{} is declared but not in the config", s.key()));
            if let (Some((lo, hi)), false) = (s.range, s.each) {
                let x = v.as_float().or_else(|| v.as_integer().map(|i| i as f64)).unwrap();
                assert!(lo <= x && x <= hi, "{}: default {x} outside {lo}..={hi}", s.key());
            }
        }
    }
}
