//! `junglezero config keys|defaults`: the settings as declared.

use std::io::Write;

use crate::config::Config;
use crate::config::doc::{documented_defaults, settings};

use crate::cli::ConfigCommand;

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
                writeln!(out, "{:<40} {:<10} {:<14} {:<22} {:<14} {}", s.key(), s.ty, default, range, s.option.unwrap_or(""), s.help)?;
            }
        }
    }
    Ok(())
}
