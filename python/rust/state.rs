//! A game state behind a trait object: every game of the registry reached through one set of
//! methods, in the numbering OpenSpiel uses (players 0 and 1, chance -1, terminal -4; a
//! player's actions are the network's policy indices, nature's the game's chance numbers).

use std::any::Any;
use std::sync::Arc;

use junglezero::entries::HouseGame;
use junglezero::game::{Shape, Turn, by_weight};
use junglezero::registry::GameName;
use junglezero::trainable::Trainable;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// OpenSpiel's number for nature.
pub const CHANCE: i32 = -1;
/// OpenSpiel's number for a finished game.
pub const TERMINAL: i32 = -4;

/// What a game's description says, whatever the game.
#[derive(Clone, Debug)]
pub struct Facts {
    pub game: GameName,
    pub shape: Shape,
    pub chance_outcomes: usize,
    pub ply_bound: Option<u32>,
    pub rules: String,
}

/// One game state of any registered game.
pub trait Ops: Send + Sync {
    fn boxed(&self) -> Box<dyn Ops>;
    fn facts(&self) -> Facts;
    fn game(&self) -> GameName;
    fn shape(&self) -> Shape;
    fn current_player(&self) -> i32;
    fn legal_actions(&self) -> Vec<i64>;
    /// Writes 1 for each legal action (of the player to move; none at chance nodes and at the
    /// end) into `out`, one byte an action.
    fn legal_mask(&self, out: &mut [u8]);
    fn chance_outcomes(&self) -> Vec<(i64, f64)>;
    fn apply_action(&mut self, action: i64) -> Result<(), String>;
    /// Whether `action` is legal here, or why not.
    fn check_action(&self, action: i64) -> Result<(), String>;
    fn action_to_string(&self, action: i64) -> Result<String, String>;
    fn string_to_action(&self, text: &str) -> Result<i64, String>;
    /// Each player's result: +1 a win, -1 a loss, 0 a draw or a game not over.
    fn returns(&self) -> [f64; 2];
    /// Why the game ended ("den", "no-capture-limit", ...), once it has.
    fn end_reason(&self) -> Option<&'static str>;
    /// The network's input planes (the player to move's view) into `out`.
    fn encode(&self, out: &mut [f32]);
    /// The position as the game writes positions (Jungle: FEN).
    fn to_text(&self) -> String;
    /// A state of the same game and rules at a position written as text.
    fn at_position(&self, text: &str) -> Result<Box<dyn Ops>, String>;
    fn diagram(&self) -> String;
    fn ply(&self) -> u32;
    fn hash(&self) -> u64;
    fn perft(&self, depth: u32) -> u64;
    /// Plays a uniformly random legal move, or nature's move by its probabilities; false once
    /// the game is over.
    fn random_step(&mut self, rng: &mut ChaCha8Rng) -> bool;
    /// Plays a legal move drawn with probability proportional to its action's weight in
    /// `weights` (one per action; a player whose legal actions all weigh 0 draws uniformly);
    /// false when no player is to move.
    fn weighted_step(&mut self, weights: &[f32], rng: &mut ChaCha8Rng) -> bool;
    /// The game's record: the text of the position it started from, and the moves played
    /// since as the game's 16-bit codes (what pickling keeps).
    fn record(&self) -> (String, Vec<u16>);
    fn as_any(&self) -> &dyn Any;
}

/// A state of game `G`.
pub struct Typed<G: HouseGame> {
    pub g: G,
    /// Nature's outcomes at a chance node, kept so random play allocates nothing a move.
    scratch: Vec<(G::Move, f32)>,
    /// The position the game started from (shared by its copies), and the moves since: a
    /// Jungle state's repetition history is more than its FEN, so a copy that must come back
    /// exactly (a pickled state) replays them.
    root: Arc<str>,
    moves: Vec<u16>,
}

impl<G: HouseGame> Typed<G> {
    pub fn new(g: G) -> Typed<G> {
        let root = g.root_text().into();
        Typed { g, scratch: Vec::new(), root, moves: Vec::new() }
    }

    fn play(&mut self, mv: G::Move) {
        self.g.play_unchecked(mv);
        self.moves.push(G::move_code(mv));
    }

    /// The move of `action` in this state: a legal move whose policy index it is, or at a
    /// chance node the outcome of that number.
    pub fn move_of(&self, action: i64) -> Result<G::Move, String> {
        let bad = || format!("action {action} is not legal here ({})", self.legal_summary());
        let a = usize::try_from(action).map_err(|_| bad())?;
        match self.g.turn() {
            Turn::Player(_) => self.g.legal_moves().iter().copied().find(|&m| self.g.action_index(m) == a).ok_or_else(bad),
            Turn::Chance => {
                let mut out = Vec::new();
                self.g.chance_outcomes(&mut out);
                out.iter().find(|(m, p)| *p > 0.0 && G::chance_index(*m) == a).map(|(m, _)| *m).ok_or_else(bad)
            }
            Turn::Over(_) => Err(format!("action {action}: the game is over")),
        }
    }

    fn legal_summary(&self) -> String {
        match self.g.turn() {
            Turn::Over(_) => "the game is over".into(),
            Turn::Chance => "nature is to move".into(),
            Turn::Player(_) => {
                let n = self.g.legal_moves().len();
                format!("{n} legal move{}", if n == 1 { "" } else { "s" })
            }
        }
    }

    fn action_of(&self, mv: G::Move) -> i64 {
        if G::is_chance_move(mv) { G::chance_index(mv) as i64 } else { self.g.action_index(mv) as i64 }
    }
}

impl<G: HouseGame> Ops for Typed<G> {
    fn boxed(&self) -> Box<dyn Ops> {
        Box::new(Typed { g: self.g.clone(), scratch: Vec::new(), root: self.root.clone(), moves: self.moves.clone() })
    }

    fn facts(&self) -> Facts {
        let rules = self.g.game_rules();
        Facts { game: G::NAME, shape: G::SHAPE, chance_outcomes: G::CHANCE_OUTCOMES, ply_bound: G::ply_bound(rules), rules: rules.to_string() }
    }

    fn game(&self) -> GameName {
        G::NAME
    }

    fn shape(&self) -> Shape {
        G::SHAPE
    }

    fn current_player(&self) -> i32 {
        match self.g.turn() {
            Turn::Player(s) => s.index() as i32,
            Turn::Chance => CHANCE,
            Turn::Over(_) => TERMINAL,
        }
    }

    fn legal_actions(&self) -> Vec<i64> {
        let mut v: Vec<i64> = match self.g.turn() {
            Turn::Player(_) => self.g.legal_moves().iter().map(|&m| self.g.action_index(m) as i64).collect(),
            Turn::Chance => self.chance_outcomes().into_iter().map(|(a, _)| a).collect(),
            Turn::Over(_) => Vec::new(),
        };
        v.sort_unstable();
        v
    }

    fn legal_mask(&self, out: &mut [u8]) {
        out.fill(0);
        if let Turn::Player(_) = self.g.turn() {
            for &m in self.g.legal_moves().iter() {
                if let Some(slot) = out.get_mut(self.g.action_index(m)) {
                    *slot = 1;
                }
            }
        }
    }

    fn chance_outcomes(&self) -> Vec<(i64, f64)> {
        let mut out = Vec::new();
        self.g.chance_outcomes(&mut out);
        let mut v: Vec<(i64, f64)> = out.into_iter().filter(|(_, p)| *p > 0.0).map(|(m, p)| (G::chance_index(m) as i64, f64::from(p))).collect();
        v.sort_by_key(|&(a, _)| a);
        v
    }

    fn apply_action(&mut self, action: i64) -> Result<(), String> {
        let mv = self.move_of(action)?;
        self.play(mv);
        Ok(())
    }

    fn check_action(&self, action: i64) -> Result<(), String> {
        self.move_of(action).map(|_| ())
    }

    fn action_to_string(&self, action: i64) -> Result<String, String> {
        self.move_of(action).map(|m| m.to_string())
    }

    fn string_to_action(&self, text: &str) -> Result<i64, String> {
        let text = text.trim();
        let matching = |m: &G::Move| m.to_string() == text;
        match self.g.turn() {
            Turn::Player(_) => {
                if let Some(&m) = self.g.legal_moves().iter().find(|m| matching(m)) {
                    return Ok(self.action_of(m));
                }
            }
            Turn::Chance => {
                let mut out = Vec::new();
                self.g.chance_outcomes(&mut out);
                if let Some((m, _)) = out.iter().find(|(m, p)| *p > 0.0 && matching(m)) {
                    return Ok(self.action_of(*m));
                }
            }
            Turn::Over(_) => return Err(format!("move '{}': the game is over", junglezero::check::clip(text))),
        }
        // Not one of this state's moves as they are written: the game's own reader says why
        // (a malformed move, or an illegal one and the rule it breaks).
        let mut probe = self.g.clone();
        match probe.play_text_move(text) {
            Err(e) => Err(format!("move '{}': {e}", junglezero::check::clip(text))),
            Ok(()) => Err(format!("move '{}' is not one action here; write it as one of this state's moves ({})", junglezero::check::clip(text), G::MOVE_HELP)),
        }
    }

    fn returns(&self) -> [f64; 2] {
        match self.g.turn() {
            Turn::Over(o) => {
                let v = |s| f64::from(o.value_for(s));
                [v(junglezero::game::Seat::First), v(junglezero::game::Seat::Second)]
            }
            _ => [0.0, 0.0],
        }
    }

    fn end_reason(&self) -> Option<&'static str> {
        self.g.outcome().map(|o| o.reason.name())
    }

    fn encode(&self, out: &mut [f32]) {
        self.g.encode(out);
    }

    fn to_text(&self) -> String {
        self.g.root_text()
    }

    fn at_position(&self, text: &str) -> Result<Box<dyn Ops>, String> {
        let g = G::from_root(text, self.g.game_rules()).map_err(|e| format!("bad {}: {e}", G::ROOT_TEXT))?;
        Ok(Box::new(Typed::new(g)))
    }

    fn diagram(&self) -> String {
        self.g.diagram()
    }

    fn ply(&self) -> u32 {
        self.g.ply()
    }

    fn hash(&self) -> u64 {
        self.g.hash()
    }

    fn perft(&self, depth: u32) -> u64 {
        self.g.perft(depth)
    }

    fn random_step(&mut self, rng: &mut ChaCha8Rng) -> bool {
        match self.g.turn() {
            Turn::Over(_) => false,
            Turn::Player(_) => {
                let moves = self.g.legal_moves();
                if moves.is_empty() {
                    return false;
                }
                let m = moves[rng.random_range(0..moves.len())];
                self.play(m);
                true
            }
            Turn::Chance => {
                self.g.chance_outcomes(&mut self.scratch);
                match by_weight(self.scratch.iter().copied(), rng.random::<f32>()) {
                    Some(m) => {
                        self.play(m);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    fn weighted_step(&mut self, weights: &[f32], rng: &mut ChaCha8Rng) -> bool {
        if !matches!(self.g.turn(), Turn::Player(_)) {
            return false;
        }
        let moves = self.g.legal_moves();
        let weight = |m: G::Move| weights.get(self.g.action_index(m)).copied().unwrap_or(0.0);
        let total: f32 = moves.iter().map(|&m| weight(m)).sum();
        if moves.is_empty() {
            return false;
        }
        if total <= 0.0 {
            return self.random_step(rng);
        }
        match by_weight(moves.iter().map(|&m| (m, weight(m))), rng.random::<f32>() * total) {
            Some(m) => {
                self.play(m);
                true
            }
            None => false,
        }
    }

    fn record(&self) -> (String, Vec<u16>) {
        (self.root.to_string(), self.moves.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The start of the game called `name` under `rules` (`key=value,...` switches over the
/// game's defaults).
pub fn start(name: &str, rules: Option<&str>) -> Result<Box<dyn Ops>, String> {
    let game = GameName::named(name).ok_or_else(|| {
        let known: Vec<&str> = GameName::ALL.iter().map(|g| g.name()).collect();
        format!("unknown game '{}' (known games: {})", junglezero::check::clip(name), known.join(", "))
    })?;
    let config = junglezero::config::Config::default();
    junglezero::with_game!(game, G => {
        let rules = G::rules_with(&config, rules).map_err(|e| format!("bad rules: {e}"))?;
        Ok(Box::new(Typed::new(G::start_under(&rules))) as Box<dyn Ops>)
    })
}

/// The state a record describes: game `name` under rules written as the game writes them
/// (`Game.rules`), from the position `root`, with `moves` (16-bit codes) played; each move is
/// checked.
pub fn restore(name: &str, rules: &str, root: &str, moves: &[u16]) -> Result<Box<dyn Ops>, String> {
    let game = GameName::named(name).ok_or_else(|| format!("unknown game '{}'", junglezero::check::clip(name)))?;
    junglezero::with_game!(game, G => restore_as::<G>(rules, root, moves))
}

fn restore_as<G: HouseGame>(rules: &str, root: &str, moves: &[u16]) -> Result<Box<dyn Ops>, String> {
    let rules: <G as Trainable>::Rules = rules.parse().map_err(|e| format!("bad rules: {e}"))?;
    let g = G::from_root(root, &rules).map_err(|e| format!("bad {}: {e}", G::ROOT_TEXT))?;
    let mut t = Typed::new(g);
    for (i, &code) in moves.iter().enumerate() {
        match G::move_from_code(code) {
            Some(m) if t.g.is_legal(m) => t.play(m),
            _ => return Err(format!("move {} of the record (code {code}) is not legal there", i + 1)),
        }
    }
    Ok(Box::new(t))
}
