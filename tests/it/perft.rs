//! Every row of `tests/data/perft.tsv` (counts agreed by independent Jungle engines).
//! Rows above `QUICK_LIMIT` leaves run with `cargo test --release -- --ignored`.

use junglezero::jungle::{Rules, parse_fen, perft};

const QUICK_LIMIT: u64 = 60_000_000;

struct Row {
    name: String,
    fen: String,
    rules: Rules,
    depth: u32,
    nodes: u64,
}

fn rows() -> Vec<Row> {
    let text = include_str!("../data/perft.tsv");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("name\tfen\trules\tdepth\tnodes"));
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "malformed row {l:?}");
            Row {
                name: f[0].into(),
                fen: f[1].into(),
                rules: f[2].parse().unwrap_or_else(|e| panic!("rules {:?}: {e}", f[2])),
                depth: f[3].parse().unwrap(),
                nodes: f[4].parse().unwrap(),
            }
        })
        .collect()
}

fn check(filter: impl Fn(&Row) -> bool) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in rows().iter().filter(|r| filter(r)) {
        let pos = parse_fen(&row.fen).unwrap();
        let got = perft::perft(&pos, &row.rules, row.depth);
        checked += 1;
        if got != row.nodes {
            failures.push(format!("{} [{}] depth {}: got {got}, want {}", row.name, row.rules, row.depth, row.nodes));
        }
    }
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
    checked
}

#[test]
fn perft_table_quick_rows() {
    let n = check(|r| r.nodes <= QUICK_LIMIT);
    assert!(n >= 100, "only {n} rows checked");
}

#[test]
#[ignore = "deep rows (over 60M leaves); run with --ignored in release"]
fn perft_table_deep_rows() {
    let n = check(|r| r.nodes > QUICK_LIMIT);
    assert!(n >= 1);
}

#[test]
fn divide_sums_to_perft() {
    let pos = parse_fen("7/7/2e4/7/l2TR2/2r4/2L4/7/7 w").unwrap();
    let rules = Rules::default();
    let div = perft::divide(&pos, &rules, 4);
    assert_eq!(div.len() as u64, perft::perft(&pos, &rules, 1));
    assert_eq!(div.iter().map(|(_, n)| n).sum::<u64>(), perft::perft(&pos, &rules, 4));
}
