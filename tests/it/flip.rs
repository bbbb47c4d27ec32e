//! The flip game's perft against a slow referee written here from docs/rules.md alone (its own board
//! layout and move rules; only the position parser is shared).

use junglezero::flip::{Cell, FlipGame, FlipRules, Setup, parse_position, perft};
use junglezero::game::Seat;
use junglezero::jungle::Side;

/// The referee's position: cells are 0 (empty), -1 (face down) or 1 + piece (piece = colour * 8
/// + animal, animals in rank order Rat … Elephant, colour 0 Red and 1 Blue).
#[derive(Clone)]
struct Ref {
    cells: [i8; 16],
    pool: [u8; 16],
    /// 0: the first player to move, 1: the second.
    mover: usize,
    /// The colour the first player owns, once decided.
    first: Option<usize>,
    quiet: u32,
    rules: FlipRules,
}

fn from_game(g: &FlipGame) -> Ref {
    let mut cells = [0i8; 16];
    for (i, c) in cells.iter_mut().enumerate() {
        *c = match g.cell(junglezero::flip::Square(i as u8)) {
            Cell::Empty => 0,
            Cell::Hidden => -1,
            Cell::Up(p) => 1 + p.index() as i8,
        };
    }
    Ref {
        cells,
        pool: *g.hidden(),
        mover: if g.to_move() == Seat::First { 0 } else { 1 },
        first: g.colour_of(Seat::First).map(|s| if s == Side::Red { 0 } else { 1 }),
        quiet: u32::from(g.quiet()),
        rules: *g.rules(),
    }
}

impl Ref {
    fn colour_of_mover(&self) -> Option<usize> {
        self.first.map(|f| if self.mover == 0 { f } else { 1 - f })
    }

    fn rank(&self, animal: usize) -> usize {
        match animal {
            2 if self.rules.dog_over_wolf => 4,
            3 if self.rules.dog_over_wolf => 3,
            a => a + 1,
        }
    }

    fn takes(&self, a: usize, d: usize) -> bool {
        if a == 0 && d == 7 {
            return true;
        }
        if a == 7 && d == 0 {
            return false;
        }
        self.rank(a) >= self.rank(d)
    }

    fn count(&self, colour: usize) -> usize {
        let up = self.cells.iter().filter(|&&c| c > 0 && (c as usize - 1) / 8 == colour).count();
        up + self.pool[colour * 8..colour * 8 + 8].iter().map(|&n| n as usize).sum::<usize>()
    }

    fn after(&self) -> Ref {
        let mut r = self.clone();
        r.mover = 1 - r.mover;
        r
    }

    /// Positions one ply on (a flip branches into each piece that can appear); `None` when the
    /// game is over.
    fn children(&self) -> Option<Vec<Ref>> {
        if let Some(f) = self.first
            && (self.count(f) == 0 || self.count(1 - f) == 0)
        {
            return None;
        }
        let limit = u32::from(self.rules.no_progress_plies);
        if limit > 0 && self.quiet >= limit {
            return None;
        }
        let mut out = Vec::new();
        for sq in 0..16 {
            if self.cells[sq] != -1 {
                continue;
            }
            for piece in 0..16 {
                let half_ok = self.rules.setup == Setup::Mixed || (piece / 8) == if sq < 8 { 0 } else { 1 };
                if self.pool[piece] == 0 || !half_ok {
                    continue;
                }
                let mut r = self.after();
                r.cells[sq] = 1 + piece as i8;
                r.pool[piece] -= 1;
                r.quiet = 0;
                if r.first.is_none() {
                    r.first = Some(if self.mover == 0 { piece / 8 } else { 1 - piece / 8 });
                }
                out.push(r);
            }
        }
        if let Some(mine) = self.colour_of_mover() {
            for from in 0..16usize {
                let c = self.cells[from];
                if c <= 0 || (c as usize - 1) / 8 != mine {
                    continue;
                }
                let (f, rk) = ((from % 4) as i32, (from / 4) as i32);
                for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let (nf, nr) = (f + df, rk + dr);
                    if !(0..4).contains(&nf) || !(0..4).contains(&nr) {
                        continue;
                    }
                    let to = (nr * 4 + nf) as usize;
                    let t = self.cells[to];
                    let capture = t > 0 && (t as usize - 1) / 8 != mine && self.takes((c as usize - 1) % 8, (t as usize - 1) % 8);
                    if t == 0 || capture {
                        let mut r = self.after();
                        r.cells[to] = c;
                        r.cells[from] = 0;
                        r.quiet = if capture { 0 } else { self.quiet + 1 };
                        out.push(r);
                    }
                }
            }
        }
        if out.is_empty() {
            if self.rules.no_move_loses {
                return None;
            }
            let mut r = self.after();
            r.quiet += 1;
            out.push(r);
        }
        Some(out)
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        match self.children() {
            None => 0,
            Some(c) if depth == 1 => c.len() as u64,
            Some(c) => c.iter().map(|r| r.perft(depth - 1)).sum(),
        }
    }
}

#[test]
fn perft_agrees_with_the_referee() {
    let mixed = FlipRules::default();
    let own = FlipRules { setup: Setup::OwnHalf, ..mixed };
    let loose = FlipRules { no_move_loses: false, dog_over_wolf: true, no_progress_plies: 12, ..mixed };
    let cases: [(&str, FlipRules, u32); 8] = [
        ("????/????/????/???? 1 - RCDWPTLErcdwptle 0 0", mixed, 3),
        ("????/????/????/???? 1 - RCDWPTLErcdwptle 0 0", own, 3),
        ("?L?c/e??W/?r??/D?t? 1 r RCPTEdwpl 5 20", mixed, 3),
        ("L2c/e1?W/1r2/D1t1 2 r P 7 40", mixed, 5),
        ("L2c/e1?W/1r2/D1t1 2 r P 7 40", loose, 6),
        ("R1?e/4/4/l3 2 r C 3 17", mixed, 6),
        ("4/4/4/R2e 1 b - 0 30", loose, 8),
        ("2?1/w3/4/1D1? 1 r Ce 0 9", own, 6),
    ];
    for (fen, rules, depth) in cases {
        let g = parse_position(fen, rules).unwrap_or_else(|e| panic!("{e}"));
        let r = from_game(&g);
        for d in 1..=depth {
            assert_eq!(perft::perft(&g, d), r.perft(d), "{fen} ({rules}) at depth {d}");
        }
    }
}

#[test]
fn the_known_counts_from_the_start() {
    let g = FlipGame::start(FlipRules::default());
    assert_eq!(perft::perft(&g, 1), 256);
    assert_eq!(perft::perft(&g, 2), 57_600);
    let divide = perft::divide(&g, 2);
    assert_eq!(divide.len(), 256);
    assert!(divide.iter().all(|(_, n)| *n == 225), "every first flip leaves 15 squares x 15 pieces");
}

#[test]
fn no_move_loses_or_passes() {
    // Blue to move (second player; the first owns Red): Blue's only piece, a Rat on a1, is
    // boxed in by a Red Cat and a Red Dog it cannot take, and nothing is face down.
    let boxed = "4/4/D3/rC2 2 r - 0 12";
    let g = parse_position(boxed, FlipRules::default()).unwrap();
    assert_eq!(g.outcome().map(|o| (o.winner, o.reason)), Some((Some(Seat::First), junglezero::game::Reason::NoMoves)));
    let g = parse_position(boxed, FlipRules { no_move_loses: false, ..FlipRules::default() }).unwrap();
    use junglezero::game::Game;
    assert_eq!(g.legal_moves().iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["pass"]);
}

#[test]
fn forty_quiet_plies_draw_and_the_last_capture_wins() {
    use junglezero::game::{Game, Reason};
    let g = parse_position("4/4/4/R2e 1 r - 40 60", FlipRules::default()).unwrap();
    assert_eq!(g.outcome().map(|o| o.reason), Some(Reason::NoProgress));
    let mut g = parse_position("4/4/4/Re2 1 r - 10 60", FlipRules::default()).unwrap();
    junglezero::flip::play_text(&mut g, "a1xb1").unwrap();
    assert_eq!(g.outcome().map(|o| (o.winner, o.reason)), Some((Some(Seat::First), Reason::Annihilation)));
}

/// The exact value for the first player: expectimax over the whole game tree (flips average
/// over what they reveal).
fn solve(g: &FlipGame) -> f32 {
    use junglezero::game::{Game, Turn};
    match g.turn() {
        Turn::Over(o) => o.value_for(Seat::First),
        Turn::Chance => {
            let mut outcomes = Vec::new();
            g.chance_outcomes(&mut outcomes);
            outcomes
                .iter()
                .map(|&(m, p)| {
                    let mut c = g.clone();
                    c.play_unchecked(m);
                    p * solve(&c)
                })
                .sum()
        }
        Turn::Player(s) => {
            let moves = g.legal_moves();
            let values = moves.iter().map(|&m| {
                let mut c = g.clone();
                c.play_unchecked(m);
                solve(&c)
            });
            if s == Seat::First { values.fold(f32::NEG_INFINITY, f32::max) } else { values.fold(f32::INFINITY, f32::min) }
        }
    }
}

#[test]
fn mcts_through_chance_nodes_converges_to_the_exact_value() {
    use junglezero::flip::FlipGame;
    use junglezero::game::Game;
    use junglezero::mcts::baseline::UniformEvaluator;
    use junglezero::mcts::cache::NnCache;
    use junglezero::mcts::{EvalBuffers, MctsConfig, Search, run_plain};
    // A quiet move draws at once (no_progress_plies = 1), so the trees are small and every
    // line ends in a few flips and captures. In the first, Red's Lion is boxed in by two
    // face-down Blue pieces (a Cat and a Tiger) and Red must flip one of them.
    let quick = FlipRules { no_progress_plies: 1, ..FlipRules::default() };
    let cases = [("4/4/?3/L?2 1 r ct 0 5", quick), ("4/1?2/?3/L?2 1 r cte 0 5", quick), ("?3/4/4/2?R 2 r le 0 5", quick)];
    let mut fractional = 0;
    for (fen, rules) in cases {
        let g = parse_position(fen, rules).unwrap();
        let mover = g.to_move();
        let exact = solve(&g) * if mover == Seat::First { 1.0 } else { -1.0 };
        if exact.abs() < 0.99 && exact.abs() > 0.01 {
            fractional += 1;
        }
        let config = MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() };
        let mut s = Search::new(g.clone(), &config, 7);
        let mut cache = NnCache::new(1 << 14, FlipGame::MAX_MOVES);
        let mut buf = EvalBuffers::new::<FlipGame>(1);
        run_plain(&mut s, &UniformEvaluator::default(), &mut cache, 200_000, &mut buf);
        let v = s.root_value();
        assert!((v - exact).abs() < 0.05, "{fen}: search {v:.3}, exact {exact:.3}");
    }
    assert!(fractional > 0, "at least one case turns on the luck of a flip");
}
