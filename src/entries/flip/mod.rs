//! The flip game's entry in the house: its matches (every pair dealt the same shuffle), players
//! and ladder (expectiminimax), the training loop's settings, the protocol's texts and options,
//! the web page's board (flips whose outcome the server draws) and the command line's views.
//! The rules themselves are [`crate::flip`].

pub mod export;
mod heuristic;
pub mod players;
pub mod serve;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::HouseGame;
use crate::arena::match_game::{ArenaGame, MatchGame};
use crate::arena::play::PlayedGame;
use crate::arena::spec::{Contestants, PlayerError, PlayerSettings, PlayerSpec};
use crate::config::Config;
use crate::flip::{FlipGame, FlipMove, FlipMoveError, FlipRules, Piece, Setup, Square, play_text};
use crate::game::{Game, Outcome, Seat};
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::protocol::variant::{ProtocolGame, check_option, spin_option};
use crate::registry::{GameName, GameRulesError};
use crate::selfplay::stage::StageSettings;
use crate::serve::ServeState;
use crate::serve::analysis::{self, AlphaBetaView, Budget, MctsView, NetworkView};
use crate::serve::board::Board;
use crate::serve::position::PositionView;
use crate::switches::Switches;
use heuristic::FlipHeuristic;
use players::FlipFactory;

/// The flip game's deal: the piece under each square, by [`Piece::index`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlipDeal(pub [u8; 16]);

impl MatchGame for FlipGame {
    const SHAPE_NAME: &'static str = "flip";
    type Rules = FlipRules;
    type Deal = FlipDeal;

    fn match_start(rules: &FlipRules) -> FlipGame {
        FlipGame::start(*rules)
    }

    fn match_root(_: &str, _: &FlipRules) -> Result<FlipGame, String> {
        Err("flip-game openings are moves, not positions".into())
    }

    fn random_deal(rules: &FlipRules, rng: &mut ChaCha8Rng) -> FlipDeal {
        let mut pieces: Vec<u8> = (0..16).collect();
        match rules.setup {
            Setup::Mixed => pieces.shuffle(rng),
            // Red's eight over ranks 1-2 (squares 0-7), Blue's over ranks 3-4.
            Setup::OwnHalf => {
                pieces[..8].shuffle(rng);
                pieces[8..].shuffle(rng);
            }
        }
        let mut deal = [0u8; 16];
        deal.copy_from_slice(&pieces);
        FlipDeal(deal)
    }

    fn dealt(&self, deal: &FlipDeal) -> Option<FlipMove> {
        let s: Square = self.pending()?;
        let wanted = Piece::from_index(usize::from(deal.0[s.index()]));
        let mut outcomes = Vec::new();
        self.chance_outcomes(&mut outcomes);
        // A deal laid for this game always has its piece in the pool; anything else (a
        // position not from the start) takes the first possible piece.
        outcomes.iter().map(|o| o.0).find(|m| *m == FlipMove::Reveal(s, wanted)).or_else(|| outcomes.first().map(|o| o.0))
    }

    fn mover(&self) -> Seat {
        self.to_move()
    }

    fn opening_key(&self) -> (u64, u32) {
        (self.hash(), u32::from(self.quiet()))
    }
}

impl ArenaGame for FlipGame {
    fn engine_at(depth: u32) -> PlayerSpec {
        PlayerSpec::Expectiminimax { depth: Some(depth), movetime: None, nodes: None, tc: None }
    }

    fn classical(_: &PlayerSettings) -> PlayerSpec {
        PlayerSpec::Expectiminimax { depth: None, movetime: None, nodes: None, tc: None }
    }

    fn factory(
        spec: PlayerSpec,
        settings: &PlayerSettings,
        _: &FlipRules,
        net: Option<Arc<NetEvaluator>>,
    ) -> Result<Box<dyn Contestants<FlipGame>>, PlayerError> {
        Ok(Box::new(FlipFactory::new(spec, &settings.mcts, &settings.hardware, net)?))
    }
}

impl RunGame for FlipGame {
    fn rules(config: &Config) -> FlipRules {
        config.rules.flip
    }

    /// Self-play with the engine's material count blended into young networks' values; no
    /// teacher hands flip games over (they end by the no-progress rule).
    fn stage(config: &Config) -> StageSettings<'_, FlipGame> {
        StageSettings {
            mcts: &config.mcts,
            selfplay: &config.selfplay,
            heuristic: Some(Arc::new(FlipHeuristic)),
            rules: config.rules.flip,
            finish: None,
            seed: config.train.seed,
            oracle: None,
        }
    }
}

impl ProtocolGame for FlipGame {
    const NAME: GameName = GameName::Flip;
    const ENGINE: &'static str = "expectiminimax";
    const ROOT_TEXT: &'static str = "position string";
    type MoveError = FlipMoveError;

    fn play_text_move(&mut self, text: &str) -> Result<(), FlipMoveError> {
        play_text(self, text).map(|_| ())
    }

    fn outcome_text(o: &Outcome) -> String {
        match o.winner {
            Some(Seat::First) => format!("the first player wins ({})", o.reason),
            Some(Seat::Second) => format!("the second player wins ({})", o.reason),
            None => format!("draw ({})", o.reason),
        }
    }

    fn rule_options() -> Vec<String> {
        let d = FlipRules::default();
        vec![
            check_option("dog_over_wolf", d.dog_over_wolf),
            check_option("no_move_loses", d.no_move_loses),
            spin_option("no_progress_plies", d.no_progress_plies),
            format!("option name setup type combo default {} var mixed var own_half", d.setup.name()),
            spin_option("max_plies", d.max_plies),
        ]
    }

    fn set_rule(config: &mut Config, key: &str, value: &str) -> Option<Result<(), GameRulesError>> {
        FlipRules::KEYS.contains(&key).then(|| Switches::set(&mut config.rules.flip, key, value).map_err(|e| GameRulesError::Rules(e.to_string())))
    }
}

/// A flip-game position, the text it started from and its moves (nature's draws written in).
pub struct FlipBoard {
    game: FlipGame,
    root: String,
    moves: Vec<String>,
}

impl Board for FlipBoard {
    fn view(&self) -> PositionView {
        serve::view_of(&self.game, &self.root, self.moves.clone())
    }
    fn name(&self) -> GameName {
        GameName::Flip
    }
    fn is_over(&self) -> bool {
        self.game.outcome().is_some()
    }
    fn network_view(&self, net: &NetEvaluator) -> NetworkView {
        analysis::network_view(net, &self.game)
    }
    fn mcts(&self, st: &ServeState, net: &Arc<NetEvaluator>, budget: Budget, stop: &AtomicBool, report: &mut dyn FnMut(&MctsView) -> bool) -> MctsView {
        let (sims, time) = budget.mcts_limits();
        analysis::run_mcts(&**net, &st.config.mcts, &self.game, analysis::MctsBudget { sims, time, stop }, None, report)
    }
    fn alphabeta(&self, _: &ServeState, budget: Budget, stop: &Arc<AtomicBool>, report: &mut dyn FnMut(&AlphaBetaView) -> bool) -> AlphaBetaView {
        serve::run_expectimax(&self.game, &budget.alphabeta_limits(), stop, report)
    }
}

impl HouseGame for FlipGame {
    const MOVE_HELP: &'static str = "a move like f:b3 (flip), b3b4 or b3xb4";
    const ROOT_WORD: &'static str = "position";
    const SMOKE_CONFIG: &'static str = "configs/flip-smoke.toml";

    fn apply_rules(rules: &mut FlipRules, spec: &str) -> Result<(), String> {
        Switches::apply_overrides(rules, spec).map_err(|e| e.to_string())
    }

    fn diagram(&self) -> String {
        crate::flip::diagram(self)
    }

    fn legend() -> String {
        crate::flip::legend()
    }

    fn seat_name(seat: Seat) -> &'static str {
        match seat {
            Seat::First => "the first player",
            Seat::Second => "the second player",
        }
    }

    fn mover_name(&self) -> Option<String> {
        None
    }

    fn perft(&self, depth: u32) -> u64 {
        crate::flip::perft::perft(self, depth)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        crate::flip::perft::divide(self, depth)
    }

    fn export(rules: &FlipRules) -> crate::nn::files::export::GameExport {
        export::export(rules)
    }

    fn games_text(_: &[PlayedGame<FlipGame>], _: &str, _: &str, _: &FlipRules) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::match_game::resolve_chance;
    use crate::game::Turn;
    use rand::SeedableRng;

    #[test]
    fn a_deal_decides_every_flip_and_own_half_deals_keep_the_halves() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for setup in [Setup::Mixed, Setup::OwnHalf] {
            let rules = FlipRules { setup, ..FlipRules::default() };
            let deal = FlipGame::random_deal(&rules, &mut rng);
            let mut sorted = deal.0;
            sorted.sort_unstable();
            assert_eq!(sorted, core::array::from_fn(|i| i as u8), "a permutation");
            if setup == Setup::OwnHalf {
                assert!(deal.0[..8].iter().all(|&p| p < 8) && deal.0[8..].iter().all(|&p| p >= 8), "{deal:?}");
            }
            // Flip every square in turn: each reveals what the deal put there.
            let mut g = FlipGame::match_start(&rules);
            let mut moves = Vec::new();
            for s in Square::all() {
                if !matches!(g.turn(), Turn::Player(_)) {
                    break;
                }
                if g.play(FlipMove::Flip(s)).is_err() {
                    continue;
                }
                resolve_chance(&mut g, &deal, &mut moves);
                let want = Piece::from_index(usize::from(deal.0[s.index()]));
                assert_eq!(moves.last(), Some(&FlipMove::Reveal(s, want)));
            }
            assert!(moves.len() >= 2);
        }
    }
}
