//! Replays the fuzz targets' committed seed corpora (fuzz/corpus/TARGET/*) on stable Rust: the
//! same target code as `cargo +nightly fuzz run TARGET`, over every seed, must not panic.

#[path = "../../fuzz/targets/analysis.rs"]
mod analysis;
#[path = "../../fuzz/targets/checkpoint.rs"]
mod checkpoint;
#[path = "../../fuzz/targets/config.rs"]
mod config;
#[path = "../../fuzz/targets/events.rs"]
mod events;
#[path = "../../fuzz/targets/fen.rs"]
mod fen;
#[path = "../../fuzz/targets/journal.rs"]
mod journal;
#[path = "../../fuzz/targets/model_file.rs"]
mod model_file;
#[path = "../../fuzz/targets/move_text.rs"]
mod move_text;
#[path = "../../fuzz/targets/protocol.rs"]
mod protocol;
#[path = "../../fuzz/targets/shard.rs"]
mod shard;
#[path = "../../fuzz/targets/spec.rs"]
mod spec;
#[path = "../../fuzz/targets/table.rs"]
mod table;

const TARGETS: [(&str, fn(&[u8])); 12] = [
    ("analysis", analysis::run),
    ("checkpoint", checkpoint::run),
    ("config", config::run),
    ("events", events::run),
    ("fen", fen::run),
    ("journal", journal::run),
    ("model_file", model_file::run),
    ("move_text", move_text::run),
    ("protocol", protocol::run),
    ("shard", shard::run),
    ("spec", spec::run),
    ("table", table::run),
];

#[test]
fn every_committed_fuzz_seed_runs_clean() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for (name, run) in TARGETS {
        let dir = root.join(name);
        let mut seeds: Vec<_> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
        seeds.sort();
        assert!(!seeds.is_empty(), "no seeds for {name}");
        for seed in seeds {
            let data = std::fs::read(&seed).unwrap();
            if std::panic::catch_unwind(|| run(&data)).is_err() {
                panic!("fuzz seed {} makes the {name} target panic", seed.display());
            }
        }
    }
}
