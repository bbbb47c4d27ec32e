//! What the protocol needs of a game: its name for `UCI_Variant`, moves as text, results in
//! words, its rule switches as options and its players. Jungle and the flip game implement it.

use std::sync::Arc;

use crate::arena::flip_players::FlipFactory;
use crate::arena::spec::{Contestants, PlayerError, PlayerFactory, PlayerSpec};
use crate::config::Config;
use crate::flip::{FlipGame, FlipMoveError, FlipRules, play_text};
use crate::game::{Outcome, Seat};
use crate::games::{GameName, GameRulesError};
use crate::jungle::{JungleGame, PlayError, Repetition, Rules, describe_outcome};
use crate::nn::burn_eval::NetEvaluator;
use crate::player::Player;
use crate::switches::Switches;
use crate::trainable::Trainable;

/// A game the protocol serves.
pub trait ProtocolGame: Trainable {
    /// The game's name, which `UCI_Variant` selects it by.
    const NAME: GameName;
    /// The classical engine's name in the `Engine` option.
    const ENGINE: &'static str;
    /// What its root positions are called in messages.
    const ROOT_TEXT: &'static str;
    type MoveError: std::fmt::Display;

    /// Plays one move written as the protocol writes moves.
    fn play_text_move(&mut self, text: &str) -> Result<(), Self::MoveError>;

    /// The result in words, for `info string`.
    fn outcome_text(o: &Outcome) -> String;

    /// The rules this game is played under in `config`.
    fn rules_of(config: &Config) -> Self::Rules;

    /// The `option` lines of the rule switches, with their defaults.
    fn rule_options() -> Vec<String>;

    /// Sets rule switch `key` in `config`; `None` when `key` is not one of this game's.
    fn set_rule(config: &mut Config, key: &str, value: &str) -> Option<Result<(), GameRulesError>>;

    /// The classical engine's spec for the protocol's settings (searching as `go` says).
    fn classical_spec(config: &Config) -> PlayerSpec;

    /// A player from `spec` by the game's arena factory, like every other player.
    fn player_from(spec: PlayerSpec, config: &Config, net: Option<Arc<NetEvaluator>>) -> Result<Box<dyn Player<Self>>, PlayerError>;

    /// The player for the current settings: MCTS with `net` when `mcts` is set, otherwise the
    /// classical engine.
    fn build_player(config: &Config, mcts: bool, model: &str, net: Option<Arc<NetEvaluator>>) -> Result<Box<dyn Player<Self>>, PlayerError> {
        let spec = if mcts && net.is_some() {
            PlayerSpec::Mcts { model: model.into(), sims: config.mcts.playouts, movetime: None, c_puct: None, reuse: None, tc: None }
        } else {
            Self::classical_spec(config)
        };
        Self::player_from(spec, config, net)
    }
}

fn check(name: &str, v: bool) -> String {
    format!("option name {name} type check default {v}")
}

fn spin(name: &str, v: u16) -> String {
    format!("option name {name} type spin default {v} min 0 max 65535")
}

impl ProtocolGame for JungleGame {
    const NAME: GameName = GameName::Jungle;
    const ENGINE: &'static str = "alphabeta";
    const ROOT_TEXT: &'static str = "FEN";
    type MoveError = PlayError;

    fn play_text_move(&mut self, text: &str) -> Result<(), PlayError> {
        self.play_text(text).map(|_| ())
    }

    fn outcome_text(o: &Outcome) -> String {
        describe_outcome(o)
    }

    fn rules_of(config: &Config) -> Rules {
        config.rules
    }

    fn rule_options() -> Vec<String> {
        let d = Rules::default();
        vec![
            check("dog_over_wolf", d.dog_over_wolf),
            check("rat_captures_across_shore", d.rat_captures_across_shore),
            check("elephant_takes_trapped_rat", d.elephant_takes_trapped_rat),
            format!("option name repetition type combo default {} var forbidden var draw var off", Repetition::default().name()),
            spin("no_capture_plies", d.no_capture_plies),
            spin("max_plies", d.max_plies),
            check("anti_chase", d.anti_chase),
        ]
    }

    fn set_rule(config: &mut Config, key: &str, value: &str) -> Option<Result<(), GameRulesError>> {
        Rules::KEYS.contains(&key).then(|| Switches::set(&mut config.rules, key, value).map_err(GameRulesError::from))
    }

    fn classical_spec(config: &Config) -> PlayerSpec {
        PlayerSpec::AlphaBeta { depth: None, movetime: None, nodes: None, hash_mb: config.search.hash_mb, threads: config.search.threads, tc: None }
    }

    fn player_from(spec: PlayerSpec, config: &Config, net: Option<Arc<NetEvaluator>>) -> Result<Box<dyn Player<JungleGame>>, PlayerError> {
        Ok(PlayerFactory::with_network(spec, &config.players(), net).make(0)?.player)
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

    fn rules_of(config: &Config) -> FlipRules {
        config.flip_rules
    }

    fn rule_options() -> Vec<String> {
        let d = FlipRules::default();
        vec![
            check("dog_over_wolf", d.dog_over_wolf),
            check("no_move_loses", d.no_move_loses),
            spin("no_progress_plies", d.no_progress_plies),
            format!("option name setup type combo default {} var mixed var own_half", d.setup.name()),
            spin("max_plies", d.max_plies),
        ]
    }

    fn set_rule(config: &mut Config, key: &str, value: &str) -> Option<Result<(), GameRulesError>> {
        FlipRules::KEYS.contains(&key).then(|| Switches::set(&mut config.flip_rules, key, value).map_err(GameRulesError::from))
    }

    fn classical_spec(_: &Config) -> PlayerSpec {
        PlayerSpec::Expectiminimax { depth: None, movetime: None, nodes: None, tc: None }
    }

    fn player_from(spec: PlayerSpec, config: &Config, net: Option<Arc<NetEvaluator>>) -> Result<Box<dyn Player<FlipGame>>, PlayerError> {
        Ok(FlipFactory::with_network(spec, &config.mcts, net).make(0)?.player)
    }
}
