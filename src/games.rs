//! The games junglezero plays, by the names that configs, model files and game records use.

use serde::{Deserialize, Serialize};

use crate::flip::{FlipGame, FlipRules, FlipRulesError};
use crate::game::{Encode, Shape};
use crate::jungle::{JungleGame, Rules, RulesError};

/// Which game a config, run or command plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum GameName {
    /// The 9 × 7 board game.
    #[default]
    Jungle,
    /// The 4 × 4 flip game (暗布斗兽棋).
    Flip,
}

impl GameName {
    pub fn shape(self) -> Shape {
        match self {
            GameName::Jungle => JungleGame::SHAPE,
            GameName::Flip => FlipGame::SHAPE,
        }
    }
}

impl std::fmt::Display for GameName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.shape().game)
    }
}

/// Every game's network view.
pub const SHAPES: [Shape; 2] = [JungleGame::SHAPE, FlipGame::SHAPE];

/// The network view of the game called `name`.
pub fn shape_named(name: &str) -> Option<Shape> {
    SHAPES.into_iter().find(|s| s.game == name)
}

/// Why rule switches written for a named game do not read.
#[derive(Debug, thiserror::Error)]
pub enum GameRulesError {
    #[error(transparent)]
    Jungle(#[from] RulesError),
    #[error(transparent)]
    Flip(#[from] FlipRulesError),
    #[error("unknown game '{0}'")]
    UnknownGame(String),
}

/// Whether `text` reads as rule switches of the game called `name`.
pub fn check_rules(name: &str, text: &str) -> Result<(), GameRulesError> {
    match name {
        "jungle" => text.parse::<Rules>().map(|_| ()).map_err(GameRulesError::from),
        "flip" => text.parse::<FlipRules>().map(|_| ()).map_err(GameRulesError::from),
        other => Err(GameRulesError::UnknownGame(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_found_by_name_and_their_rules_checked() {
        assert_eq!(shape_named("flip").map(|s| (s.rows, s.cols, s.actions())), Some((4, 4, 80)));
        assert_eq!(shape_named("jungle").map(|s| s.actions()), Some(252));
        assert_eq!(shape_named("chess"), None);
        assert!(check_rules("jungle", &Rules::default().to_string()).is_ok());
        assert!(check_rules("flip", &FlipRules::default().to_string()).is_ok());
        assert!(check_rules("chess", "").is_err());
    }
}
