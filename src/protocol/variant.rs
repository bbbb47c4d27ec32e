//! What the protocol needs of a game: its name for `UCI_Variant`, moves as text, results in
//! words, its rule switches as options, and its players (through [`ArenaGame`], as every
//! match builds them). Every game implements it in its entry (`crate::entries`).

use std::sync::Arc;

use crate::arena::match_game::ArenaGame;
use crate::arena::spec::{PlayerError, PlayerSpec};
use crate::config::Config;
use crate::game::Outcome;
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::player::Player;
use crate::registry::{GameName, GameRulesError};

/// A game the protocol serves.
pub trait ProtocolGame: RunGame {
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

    /// The `option` lines of the rule switches, with their defaults.
    fn rule_options() -> Vec<String>;

    /// Sets rule switch `key` in `config`; `None` when `key` is not one of this game's.
    fn set_rule(config: &mut Config, key: &str, value: &str) -> Option<Result<(), GameRulesError>>;

    /// The player for the current settings: the classical engine held to `level` on the Elo
    /// scale when one is given (`UCI_LimitStrength`), else MCTS with `net` when `mcts` is set,
    /// otherwise the classical engine, built as every match builds its players.
    fn build_player(
        config: &Config,
        mcts: bool,
        model: &str,
        net: Option<Arc<NetEvaluator>>,
        level: Option<i32>,
    ) -> Result<Box<dyn Player<Self>>, PlayerError> {
        let settings = config.players();
        let spec = match level.and_then(|e| <Self as ArenaGame>::at_level(e, &settings)) {
            Some(spec) => spec,
            None if mcts && net.is_some() => PlayerSpec::mcts(model.into(), config.mcts.playouts),
            None => <Self as ArenaGame>::classical(&settings),
        };
        Ok(<Self as ArenaGame>::factory(spec, &settings, &Self::rules(config), net)?.make(0)?.player)
    }
}

/// `option` line of a yes/no rule switch.
pub fn check_option(name: &str, v: bool) -> String {
    format!("option name {name} type check default {v}")
}

/// `option` line of a whole-number rule switch.
pub fn spin_option(name: &str, v: u16) -> String {
    format!("option name {name} type spin default {v} min 0 max 65535")
}
