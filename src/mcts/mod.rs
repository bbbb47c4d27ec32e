//! Monte-Carlo tree search with PUCT, generic over the game and the evaluator.

pub mod baseline;
pub mod bench;
pub mod cache;
pub mod driver;
pub mod evaluator;
pub mod gumbel;
pub mod oracle;
pub mod parallel;
pub mod player;
pub mod search;
pub mod server;
pub mod tactics;
pub mod tree;

use serde::{Deserialize, Serialize};

use crate::check::{ConfigError, check_memory};

pub use driver::{Batch, EvalBuffers, InFlight, RoundStats, run_batched, run_plain};
pub use evaluator::{Evaluator, Outputs};
pub use player::MctsPlayer;
pub use search::{Search, Step};

/// How the tree is searched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// AlphaZero's PUCT with Dirichlet noise and visit-count targets.
    #[default]
    Puct,
    /// Gumbel search: Gumbel-top-k root sampling with sequential halving, deterministic
    /// selection below the root, and the improved policy as the target (see [`gumbel`]).
    Gumbel,
}

crate::settings! {
    /// `[mcts]`: the tree search's settings (self-play, the arena and the protocol share them).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct MctsConfig in "mcts", about "Monte-Carlo tree search (self-play, the arena, the protocol's Engine=mcts)." {
        /// "puct" or "gumbel".
        pub algorithm: Algorithm = Algorithm::Puct => "\"puct\" (AlphaZero) or \"gumbel\" (Gumbel root sampling + sequential halving, improved-policy targets; run \"gumbel\" of the training history)";
        /// Gumbel: root actions considered by sequential halving (m).
        pub gumbel_considered: u32 = 16 => "gumbel: root moves sampled for sequential halving (m)", range(1, 1024);
        /// Gumbel: c_visit of σ(q) = (c_visit + max N) · c_scale · q̂.
        pub gumbel_c_visit: f32 = 50.0 => "gumbel: c_visit of sigma(q) = (c_visit + max visits) x c_scale x q", range(0.0, 10_000.0);
        /// Gumbel: c_scale of the same (values rescaled to [0, 1] among siblings).
        pub gumbel_c_scale: f32 = 0.1 => "gumbel: c_scale of the same (q rescaled to [0, 1] among the siblings)", range(0.0, 100.0);
        /// Exploration constant of PUCT...
        pub c_puct: f32 = 1.5 => "exploration constant of PUCT", range(0.0, 100.0);
        /// ...growing with the parent's visits N by `c_puct_factor × ln((N + c_puct_base) /
        /// c_puct_base)` (AlphaZero's and lc0's CPuctFactor and CPuctBase), so that long searches
        /// keep exploring. 0 disables.
        pub c_puct_factor: f32 = 0.0 => "...growing with a node's visits N by this x ln((N + base) / base) (0: constant)", range(0.0, 100.0);
        pub c_puct_base: f32 = 19_652.0 => "...the base of that growth (lc0's CPuctBase)", range(1.0, 1e9);
        /// First-play urgency: an unvisited child is valued at the parent's value minus this times
        /// the square root of the policy mass already visited.
        pub fpu_reduction: f32 = 0.25 => "unvisited children: parent value minus this x sqrt(visited policy)", range(-2.0, 2.0);
        /// The same at the root (where noise wants wider exploration).
        pub fpu_reduction_root: f32 = 0.1 => "the same at the root", range(-2.0, 2.0);
        /// Softmax temperature applied to the policy logits.
        pub policy_temperature: f32 = 1.0 => "softmax temperature on the policy logits", range(0.05, 10.0);
        /// Dirichlet noise at the root of self-play searches: concentration...
        pub dirichlet_alpha: f32 = 0.4 => "root noise in self-play full searches: concentration (~10 / moves)", range(0.001, 100.0);
        /// ...and weight (0 disables).
        pub dirichlet_fraction: f32 = 0.25 => "...and weight (0 disables)", range(0.0, 1.0);
        /// Network cache entries per worker (0 disables the cache).
        pub cache_entries: usize = 1 << 16 => "network-output cache entries per worker (0 disables)", range(0, 1 << 26), option("NNCacheSize");
        /// Simulations per move when playing (protocol, terminal play, arena) without a node or
        /// time limit.
        pub playouts: u32 = 400 => "simulations per move when playing without a node or time limit", range(1, 10_000_000), option("Playouts");
        /// Moves-left utility (PUCT, networks with a moves-left head): a visited child's value
        /// gains `clamp(slope × (parent plies left − child plies left), ±max_effect) × |q|` for the
        /// side that is winning (q > 0) and loses it when losing, so search prefers the faster
        /// win and the slower loss (lc0's moves-left head). 0 disables.
        pub moves_left_slope: f32 = 0.0027 => "search with a moves-left head: a child's value gains clamp(slope x (parent - child plies left), +-max) x q (0: off)", range(0.0, 1.0);
        /// ...capped at this much value.
        pub moves_left_max_effect: f32 = 0.0345 => "...at most this much (the max of that clamp)", range(0.0, 1.0);
        /// Forced playouts and policy-target pruning (KataGo): in searches with root noise, a root
        /// child with fewer than `sqrt(k · prior · root visits)` visits is searched next, and the
        /// recorded policy target takes those forced visits back off every child but the best
        /// one as far as PUCT would not have spent them. k; 0 disables (KataGo's 2 is the default).
        pub forced_playouts: f32 = 2.0 => "k of KataGo's forced playouts with policy-target pruning in full self-play searches: root children get sqrt(k x prior x visits) (0: off)", range(0.0, 100.0);
        /// Players (arena, ladder, protocol, terminal play) keep the subtree of the position the
        /// game reached since their last search (the opponent's reply to their move) instead of
        /// starting each move from an empty tree; a move's simulations come on top of its visits.
        pub play_tree_reuse: bool = true => "players keep the subtree of the position reached since their last move (an arena spec's reuse=false overrides)";
        /// A player's search threads sharing one tree (protocol, terminal play, arena players; the
        /// protocol's `Threads`). Self-play, batched matches and analysis run many searches instead.
        pub play_threads: usize = 1 => "a player's threads sharing its tree", range(1, 256), option("Threads");
        /// Leaves each of a player's threads gathers before calling the network, kept apart by
        /// virtual loss (the protocol's `MinibatchSize`; PUCT only, Gumbel search takes one).
        pub play_minibatch: usize = 1 => "leaves each of them sends the network at once, spread by virtual loss (the protocol's MinibatchSize; PUCT only)", range(1, 1024), option("MinibatchSize");
        /// Players prove wins and losses in their trees (MCTS-Solver: a finished game or a table
        /// result proves its node, a node with a won move is won, one whose moves all lose is
        /// lost): proven-lost moves are never searched again, a proven win is played at once and
        /// reported as `score mate N`. Self-play searches never prove.
        pub play_solver: bool = true => "players prove won and lost positions in their trees (never search a lost move again, play a proven win at once, report `score mate N`)";
        /// Players check each root with a shallow exhaustive search this many plies deep before
        /// the tree search (for Jungle, the alpha-beta engine; a game without such a check ignores
        /// it): a forced win it finds is played at once, moves it proves lost are never searched
        /// (with `play_solver`). At most a tenth of a timed move goes to it. 0 disables.
        pub play_tactics: u32 = 0 => "players first check each root with alpha-beta this many plies deep: a forced win is played at once, moves it refutes are proven lost (0: off)", range(0, 24);
        /// The most memory the nodes of one player's search tree may take, in MiB (protocol,
        /// terminal play, arena players, Python): a search whose tree reaches it stops there and
        /// says so, whatever node count or time it was given (`go infinite` included).
        pub play_tree_mb: u32 = 1024 => "the most memory one player's search tree may take (MiB): a search that fills it stops there and says so, whatever it was asked", range(16, 65_536);
    }
}

impl MctsConfig {
    /// The exploration constant at a node with `visits` visits.
    #[inline]
    pub fn c_puct_at(&self, visits: u32) -> f32 {
        if self.c_puct_factor > 0.0 { self.c_puct + self.c_puct_factor * ((visits as f32 + self.c_puct_base) / self.c_puct_base).ln() } else { self.c_puct }
    }

    pub fn gumbel_params(&self) -> gumbel::GumbelParams {
        gumbel::GumbelParams { considered: self.gumbel_considered, c_visit: self.gumbel_c_visit, c_scale: self.gumbel_c_scale }
    }

    /// Checks the ranges, and the cache's memory for the moves a state of `G` can have.
    pub fn validate<G: crate::game::Game>(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        // Per entry: key, value, count and MAX_MOVES (action, prior) pairs (see `NnCache`).
        let entry = 8 + 4 + 4 + 2 + G::MAX_MOVES * std::mem::size_of::<(u16, f32)>();
        check_memory("mcts.cache_entries", (self.cache_entries.next_power_of_two() * entry) as u128)?;
        check_memory("mcts.play_tree_mb", u128::from(self.play_tree_mb) << 20)?;
        Ok(())
    }
}
