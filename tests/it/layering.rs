//! The crate's import graph: the rules, search and MCTS never import the network, training,
//! self-play, arena or configuration modules, and no import cycle spans two top-level modules.
//! Read from the sources, so a new `use crate::` edge that breaks the layering fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crate's top-level modules.
fn modules() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';').to_string()).collect()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `crate::NAME` references in code (comments and doc links left out), including every name
/// of a braced group `crate::{a, b::c}` (over several lines too).
fn crate_refs(text: &str) -> BTreeSet<String> {
    refs_after(text, "crate::")
}

/// `PREFIX::NAME` references in code (comments left out), a braced group's names included:
/// [`crate_refs`] for any path prefix.
fn refs_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let ident = |s: &str| s.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut refs = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find(prefix) {
        let after = &rest[i + prefix.len()..];
        if let Some(group) = after.strip_prefix('{') {
            let (mut depth, mut start) = (0usize, 0usize);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        refs.insert(ident(&group[start..j]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        refs.insert(ident(&group[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            refs.insert(ident(after));
        }
        rest = after;
    }
    refs.remove("");
    refs
}

/// Every folder of the crate, with each of its files (and subfolders) by name and the siblings
/// each names through `super::` (the folder's `mod.rs`, its entrance, left out).
fn rooms() -> Vec<(PathBuf, BTreeMap<String, BTreeSet<String>>)> {
    let mut dirs = vec![src()];
    let mut out = Vec::new();
    while let Some(dir) = dirs.pop() {
        let mut names = BTreeMap::new();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p.clone());
                let mut files = Vec::new();
                rust_files(&p, &mut files);
                // A subfolder's own files name their siblings inside it with `super::`; what
                // its entrance names is what it takes from this folder.
                let entrance = p.join("mod.rs");
                let text = std::fs::read_to_string(&entrance).unwrap_or_default();
                names.insert(p.file_name().unwrap().to_string_lossy().into_owned(), refs_after(&text, "super::"));
            } else if p.extension().is_some_and(|x| x == "rs") && p.file_name().is_some_and(|n| n != "mod.rs" && n != "lib.rs" && n != "main.rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                names.insert(p.file_stem().unwrap().to_string_lossy().into_owned(), refs_after(&text, "super::"));
            }
        }
        let siblings: BTreeSet<String> = names.keys().cloned().collect();
        for refs in names.values_mut() {
            refs.retain(|r| siblings.contains(r));
        }
        out.push((dir, names));
    }
    out
}

/// Every node `from` reaches in the import graph `g`.
fn reachable(g: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(m) = stack.pop() {
        for d in g.get(&m).into_iter().flatten() {
            if seen.insert(d.clone()) {
                stack.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn no_import_cycle_inside_a_room() {
    // Files in one folder read top to bottom: none reaches back to a file that reaches it.
    for (dir, g) in rooms() {
        let reach = |from: &str| reachable(&g, from);
        for (a, deps) in &g {
            for b in deps {
                assert!(b == a || !reach(b).contains(a), "import cycle in {}: {a} -> {b} -> ... -> {a}", dir.display());
            }
        }
    }
}

#[test]
fn the_room_scanner_sees_sibling_imports() {
    let refs = refs_after(
        "use super::legality::{can_capture, jump};\nuse super::{history::History, tables};\n// super::chase\nlet x = super::explain::why(1);",
        "super::",
    );
    assert_eq!(refs.into_iter().collect::<Vec<_>>(), vec!["explain", "history", "legality", "tables"]);
}

/// Module → the other top-level modules its files reference.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in &mods {
        let dir = src().join(m);
        let mut files = Vec::new();
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src().join(format!("{m}.rs")));
        }
        let e = g.entry(m.clone()).or_default();
        for f in files {
            for r in crate_refs(&std::fs::read_to_string(&f).unwrap()) {
                if &r != m && mods.contains(&r) {
                    e.insert(r);
                }
            }
        }
    }
    g
}

#[test]
fn the_reference_scanner_sees_imports_and_skips_comments() {
    let refs = crate_refs("use crate::nn::model::Net; // crate::train\n/// [`crate::arena`]\nlet x = crate::store::clock();");
    assert_eq!(refs.into_iter().collect::<Vec<_>>(), vec!["nn".to_string(), "store".to_string()]);
    let grouped = crate_refs("use crate::{\n    game::{Game, Turn},\n    nn::Net, // crate::report\n    train,\n};");
    assert_eq!(grouped.into_iter().collect::<Vec<_>>(), vec!["game".to_string(), "nn".to_string(), "train".to_string()]);
}

#[test]
fn rules_search_and_mcts_never_import_the_network_training_or_matches() {
    let g = graph();
    let low = ["game", "check", "player", "animals", "jungle", "flip", "alphabeta", "mcts"];
    let high = ["nn", "train", "selfplay", "arena", "config", "pipeline", "protocol", "report", "store", "entries", "serve"];
    for m in low {
        let deps = g.get(m).unwrap_or_else(|| panic!("module {m} exists"));
        for h in high {
            assert!(!deps.contains(h), "{m} imports crate::{h}; the layering forbids it (see ARCHITECTURE.md)");
        }
    }
    // The endgame tables sit between the rules and the search that probes them: rules and the
    // store's file framing below them, nothing of the network, training, matches or the search.
    for h in ["nn", "train", "selfplay", "arena", "config", "pipeline", "protocol", "report", "entries", "serve", "mcts", "alphabeta"] {
        assert!(!g["tb"].contains(h), "tb imports crate::{h}; the layering forbids it (see ARCHITECTURE.md)");
    }
    // Search and the players are written for any game: they name `G::MAX_MOVES`, `G::encode`,
    // never the Jungle module.
    for m in ["mcts", "player", "game", "check", "animals"] {
        assert!(!g[m].contains("jungle"), "{m} imports crate::jungle; it must stay generic over the game");
        assert!(!g[m].contains("flip"), "{m} imports crate::flip; it must stay generic over the game");
    }
    // Each game stands on the core alone: what both use (sides, animals) is in `animals`.
    assert!(!g["flip"].contains("jungle"), "flip imports crate::jungle; shared types belong in crate::animals");
    assert!(!g["jungle"].contains("flip"), "jungle imports crate::flip; shared types belong in crate::animals");
}

#[test]
fn no_import_cycle_spans_two_modules() {
    let g = graph();
    // A cycle through two modules means each reaches the other.
    let reach = |from: &str| reachable(&g, from);
    for (a, deps) in &g {
        for b in deps {
            assert!(!reach(b).contains(a), "import cycle: {a} -> {b} -> ... -> {a}");
        }
    }
}

/// The registry is the only place that turns a game's name into its type: no file outside
/// `src/registry.rs` and the games' entries (`src/entries/`) matches on a game's name, and no part
/// of the program but the command line imports the entries (the parts reach a game through
/// their own traits, which the entries implement).
#[test]
fn games_are_named_only_in_the_registry_and_their_entries() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    for f in files {
        let rel = f.strip_prefix(src()).unwrap().to_string_lossy().replace('\\', "/");
        if rel == "registry.rs" || rel.starts_with("entries/") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for variant in ["GameName::Jungle", "GameName::Flip"] {
            assert!(!text.contains(variant), "{rel} names {variant}; dispatch through with_game! (src/registry.rs) instead");
        }
        if !rel.starts_with("cmd/") && rel != "main.rs" && rel != "cli.rs" {
            assert!(!crate_refs(&text).contains("entries"), "{rel} imports crate::entries; only the command line may");
        }
    }
}

/// Where a game may be named: its rules (`jungle/`, `flip/`), its entry (`entries/jungle/`,
/// `entries/flip/`), its commands (`cmd/jungle/`, `cmd/flip/`), the rooms that serve Jungle
/// alone (`alphabeta/`, the classical engines; `tb/`, the endgame tables) and the registry.
fn names_games(rel: &str) -> bool {
    ["jungle/", "flip/", "entries/jungle/", "entries/flip/", "cmd/jungle/", "cmd/flip/", "alphabeta/", "tb/"].iter().any(|room| rel.starts_with(room))
        || rel == "registry.rs"
}

/// A file's code without its comments and its test module (tests may name the games they play).
fn production_code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines.windows(2).position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod ")).unwrap_or(lines.len());
    lines[..end].iter().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The games a file's production code names: a game's module of the library (`crate::jungle`,
/// `junglezero::flip::...`, `entries::jungle`, `alphabeta::flip`, in braced groups too) or a
/// game's type. The command line's dispatch to a game's own commands (`cmd::jungle::tb`,
/// `super::jungle::bench_search`) routes a command that is that game's alone, and is allowed.
fn games_named(text: &str) -> BTreeSet<&'static str> {
    let code = production_code(text);
    let mut named = BTreeSet::new();
    for game in ["jungle", "flip"] {
        let module = |prefix: &str| {
            code.contains(&format!("{prefix}::{game}::")) || code.contains(&format!("{prefix}::{game};")) || code.contains(&format!("{prefix}::{game} "))
        };
        let grouped = crate_refs(&code.replace("junglezero::", "crate::")).contains(game);
        if grouped || ["crate", "junglezero", "entries", "alphabeta"].iter().any(|p| module(p)) {
            named.insert(game);
        }
    }
    for (ty, game) in [("JungleGame", "jungle"), ("FlipGame", "flip")] {
        if code.contains(ty) {
            named.insert(game);
        }
    }
    named
}

#[test]
fn the_game_scanner_sees_modules_types_and_groups_and_skips_tests() {
    assert_eq!(games_named("use crate::jungle::{JungleGame, Move, fen, parse_move};").into_iter().collect::<Vec<_>>(), vec!["jungle"]);
    assert_eq!(games_named("use junglezero::{config, flip::FlipRules};").into_iter().collect::<Vec<_>>(), vec!["flip"]);
    assert_eq!(games_named("let e = crate::alphabeta::flip::evaluate(s);").into_iter().collect::<Vec<_>>(), vec!["flip"]);
    assert_eq!(games_named("pub struct MatchSettings<G: MatchGame = JungleGame> {").into_iter().collect::<Vec<_>>(), vec!["jungle"]);
    assert!(games_named("use crate::game::Game; // crate::jungle\n#[cfg(test)]\nmod tests {\n    use crate::flip::FlipGame;\n}\n").is_empty());
    assert!(games_named("let flip = game.flip_count(); use crate::registry::GameName;").is_empty());
}

/// Generic code reaches a game through the registry and the traits its entry implements: no
/// file outside the games' own rooms names a game's module or type (tests aside).
#[test]
fn generic_code_names_no_game() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut offenders = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src()).unwrap().to_string_lossy().replace('\\', "/");
        if names_games(&rel) {
            continue;
        }
        let named = games_named(&std::fs::read_to_string(&f).unwrap());
        if !named.is_empty() {
            offenders.push(format!("{rel} ({})", named.into_iter().collect::<Vec<_>>().join(", ")));
        }
    }
    assert!(offenders.is_empty(), "generic code names a game (reach it through the registry, src/registry.rs): {}", offenders.join("; "));
}

/// The declarations of settings sit in the core: every section (the rules' too) uses them, so
/// they import nothing but the range check.
#[test]
fn settings_import_only_the_check() {
    let g = graph();
    let deps: Vec<&String> = g["settings"].iter().filter(|m| m.as_str() != "check").collect();
    assert!(deps.is_empty(), "settings imports {deps:?}; it may import only crate::check");
}
