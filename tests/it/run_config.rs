//! A `--config` (or `--set`) that asks an existing run for another network, through the
//! binary: refused in one line that says the fix, the run's own config kept.

use std::path::PathBuf;

use crate::common::{fresh_dir, junglezero, smoke_config};

fn tmp(name: &str) -> PathBuf {
    fresh_dir("run-config", name)
}

#[test]
fn a_config_that_is_not_the_runs_is_refused_with_the_fix() {
    let dir = tmp("config");
    let d = dir.to_str().unwrap();
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", d, "--set", "train.iterations=1", "--set", "ladder.every=0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let snapshot = std::fs::read(dir.join("config.toml")).unwrap();

    // Another network shape from a file: the fix is to leave the file out.
    let other = dir.with_extension("other.toml");
    std::fs::write(&other, "[model]\nblocks = 2\nchannels = 8\n").unwrap();
    let o = junglezero(&["train", "--config", other.to_str().unwrap(), "--run", d]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let line = err.trim_end();
    assert!(line.contains("1x8") && line.contains("2x8"), "{line}");
    assert!(line.contains("drop --config") && line.contains(&format!("junglezero train --run {d}")) && !line.contains("--rebuild"), "{line}");
    assert_eq!(std::fs::read(dir.join("config.toml")).unwrap(), snapshot, "the run's config is kept");
    // --rebuild does not make another network of the run's: the same refusal.
    let o = junglezero(&["train", "--config", other.to_str().unwrap(), "--run", d, "--rebuild"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("drop --config"), "{}", String::from_utf8_lossy(&o.stderr));
    // From --set, the fix is to drop it.
    let o = junglezero(&["learn", "--run", d, "--set", "model.channels=16"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code() == Some(2) && err.contains("drop the --set"), "{err}");
    // And as the fix says, the run resumes without the file.
    let o = junglezero(&["train", "--run", d, "--set", "train.iterations=1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = std::fs::remove_file(&other);
}
