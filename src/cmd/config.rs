//! `junglezero config keys|defaults`: the settings as declared.

use std::io::Write;

use clap::Subcommand;

use crate::config::Config;
use crate::config::doc::{documented_defaults, settings};

pub fn run(cmd: ConfigCommand) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match cmd {
        ConfigCommand::Defaults => write!(out, "{}", documented_defaults())?,
        ConfigCommand::Keys => {
            let table: toml::Table = toml::from_str(&Config::default().to_toml())?;
            let surface = crate::config::experimental::into_sections(table)?;
            writeln!(out, "{:<40} {:<10} {:<14} {:<22} {:<14} help", "key", "type", "default", "range", "option")?;
            for s in settings() {
                let default = s.value_in(&surface).map_or_else(String::new, |v| v.to_string());
                let range = match (s.range_text(), s.each) {
                    (Some((lo, hi)), false) => format!("{lo} to {hi}"),
                    (Some((lo, hi)), true) => format!("each {lo} to {hi}"),
                    (None, _) => String::new(),
                };
                writeln!(out, "{:<40} {:<10} {:<14} {:<22} {:<14} {}", s.key(), kind_of(s.ty), default, range, s.option.unwrap_or(""), s.help)?;
            }
        }
    }
    Ok(())
}

/// A setting's type as a user reads it: the Rust type of its declaration in words.
fn kind_of(ty: &str) -> &'static str {
    match ty.trim() {
        "u8" | "u16" | "u32" | "u64" | "usize" => "count",
        "i8" | "i16" | "i32" | "i64" => "integer",
        "f32" | "f64" => "number",
        "bool" => "on/off",
        "String" => "text",
        t if t.starts_with("Vec<") || t.starts_with('[') => "list",
        // The enums: one of the words the help names.
        _ => "choice",
    }
}

#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Every setting: key, type, default, range, the protocol option that sets it, and its help.
    Keys,
    /// The default config with every key's help (what configs/default.toml holds).
    Defaults,
}
