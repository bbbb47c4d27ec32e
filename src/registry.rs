//! The registry of games: one line per game below, naming it, the type of its rules (a
//! [`crate::trainable::Trainable`] game of its own module) and what configs, model files,
//! shards and the command line call it.
//!
//! The line gives [`GameName`] (with its names for TOML, JSON and `--game`) and
//! [`with_game!`](crate::with_game), the one `match` on game names in the program: the pipeline,
//! the arena, the protocol, the web page, exports and the command line are generic over a game
//! type and reach the right one through it. What each of them needs of a game is a trait of
//! their own, implemented for every game in [`crate::entries`] (see ARCHITECTURE.md, "Adding a
//! game").

use serde::{Deserialize, Serialize};

use crate::game::Shape;

/// The games, one line each: `Variant => the game's type, "its name", field: "its rules'
/// section in configs", "what it is";`. This is the list the program knows games by;
/// [`GameName`], [`GameRules`] and [`with_game!`](crate::with_game) are made from it.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_game {
    ($m:ident!($($pre:tt)*)) => {
        $crate::$m! {
            $($pre)*
            Jungle => $crate::jungle::JungleGame, "jungle", jungle: "rules", "The 9 × 7 board game.";
            Flip => $crate::flip::FlipGame, "flip", flip: "flip_rules", "The 4 × 4 flip game (暗布斗兽棋).";
        }
    };
}

/// Defines [`GameName`] from the list.
#[macro_export]
#[doc(hidden)]
macro_rules! define_game_names {
    ($($variant:ident => $ty:path, $name:literal, $field:ident: $key:literal, $doc:literal;)+) => {
        /// Which game a config, run, model file or command plays.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
        #[serde(rename_all = "lowercase")]
        pub enum GameName {
            #[default]
            $(#[doc = $doc] $variant,)+
        }

        impl GameName {
            /// Every game, in the registry's order.
            pub const ALL: &'static [GameName] = &[$(GameName::$variant),+];

            /// The game's name in configs, model files, shards and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $(GameName::$variant => $name,)+
                }
            }
        }
    };
}

/// The `match` of [`with_game!`](crate::with_game), made from the list.
#[macro_export]
#[doc(hidden)]
macro_rules! match_game {
    ($name:expr, $g:ident, $body:expr; $($variant:ident => $ty:path, $n:literal, $field:ident: $key:literal, $doc:literal;)+) => {
        match $name {
            $($crate::registry::GameName::$variant => {
                type $g = $ty;
                $body
            })+
        }
    };
}

/// Runs `$body` with `$g` as the type of the game that `$name` (a [`GameName`]) names: the one
/// place where a game's name becomes its type.
///
/// ```ignore
/// with_game!(config.game, G => train::<G>(run, config))
/// ```
#[macro_export]
macro_rules! with_game {
    ($name:expr, $g:ident => $body:expr) => {
        $crate::for_each_game!(match_game!($name, $g, $body;))
    };
}

/// Defines [`GameRules`] from the list.
#[macro_export]
#[doc(hidden)]
macro_rules! define_game_rules {
    ($($variant:ident => $ty:path, $name:literal, $field:ident: $key:literal, $doc:literal;)+) => {
        /// Every game's rule switches as a config holds them, each game's in a section of its
        /// own, whichever game the config plays.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct GameRules {
            $(
                #[doc = concat!("The rules of the game called ", $name, ", section `[", $key, "]`.")]
                #[serde(rename = $key)]
                pub $field: <$ty as $crate::trainable::Trainable>::Rules,
            )+
        }

        // The section a game's rules are read from is the one its rules type declares.
        $(const _: () = assert!(
            $crate::settings::same_name(<<$ty as $crate::trainable::Trainable>::Rules as $crate::settings::Section>::SECTION, $key),
            concat!("the registry's section for ", $name, " is not the one its rules declare"),
        );)+

        impl GameRules {
            /// Each game's checks of its switches.
            pub fn validate(&self) -> Result<(), $crate::check::ConfigError> {
                $(<$ty as $crate::trainable::Trainable>::check_rules(&self.$field)?;)+
                Ok(())
            }

            /// Each game's rules section: its name, what it is and its settings, as its rules
            /// type declares them.
            pub fn sections() -> Vec<(&'static str, &'static str, &'static [$crate::settings::Setting])> {
                vec![$((
                    <<$ty as $crate::trainable::Trainable>::Rules as $crate::settings::Section>::SECTION,
                    <<$ty as $crate::trainable::Trainable>::Rules as $crate::settings::Section>::ABOUT,
                    <<$ty as $crate::trainable::Trainable>::Rules as $crate::settings::Section>::SETTINGS,
                ),)+]
            }

            /// Reads each game's section of a config's `table` on its own: a bad switch is then
            /// named by its section and key (`rules.max_plies`), which the read of the whole
            /// config, where the sections are gathered into [`GameRules`], cannot say.
            pub fn check_sections(table: &toml::Table) -> Result<(), toml::de::Error> {
                $({
                    #[derive(Deserialize)]
                    struct Only {
                        #[serde(rename = $key)]
                        _rules: <$ty as $crate::trainable::Trainable>::Rules,
                    }
                    if let Some(v) = table.get($key) {
                        let one: toml::Table = [($key.to_string(), v.clone())].into_iter().collect();
                        Only::deserialize(toml::Value::Table(one))?;
                    }
                })+
                Ok(())
            }

            /// The switches of `game`'s rules as text.
            pub fn text(&self, game: GameName) -> String {
                match game {
                    $(GameName::$variant => self.$field.to_string(),)+
                }
            }
        }
    };
}

for_each_game!(define_game_names!());
for_each_game!(define_game_rules!());

impl GameName {
    /// The network's view of the game (board, input planes, policy planes).
    pub fn shape(self) -> Shape {
        crate::with_game!(self, G => <G as crate::game::Encode>::SHAPE)
    }

    /// The game called `name` (configs, model files, shards).
    pub fn named(name: &str) -> Option<GameName> {
        GameName::ALL.iter().copied().find(|g| g.name() == name)
    }
}

impl std::fmt::Display for GameName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The network view of the game called `name`.
pub fn shape_named(name: &str) -> Option<Shape> {
    GameName::named(name).map(GameName::shape)
}

/// Why rule switches written for a named game do not read.
#[derive(Debug, thiserror::Error)]
pub enum GameRulesError {
    #[error("{0}")]
    Rules(String),
    #[error("unknown game '{0}'")]
    UnknownGame(String),
}

/// Whether `text` reads as rule switches of the game called `name`.
pub fn check_rules(name: &str, text: &str) -> Result<(), GameRulesError> {
    let game = GameName::named(name).ok_or_else(|| GameRulesError::UnknownGame(name.to_string()))?;
    crate::with_game!(game, G => text.parse::<<G as crate::trainable::Trainable>::Rules>().map(|_| ()).map_err(|e| GameRulesError::Rules(e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flip::FlipRules;
    use crate::jungle::Rules;

    #[test]
    fn games_are_found_by_name_and_their_rules_checked() {
        assert_eq!(shape_named("flip").map(|s| (s.rows, s.cols, s.actions())), Some((4, 4, 80)));
        assert_eq!(shape_named("jungle").map(|s| s.actions()), Some(252));
        assert_eq!(shape_named("chess"), None);
        assert!(check_rules("jungle", &Rules::default().to_string()).is_ok());
        assert!(check_rules("flip", &FlipRules::default().to_string()).is_ok());
        assert!(check_rules("jungle", "repetition=sometimes").is_err());
        assert!(check_rules("chess", "").is_err());
        for g in GameName::ALL {
            assert_eq!(GameName::named(g.name()), Some(*g));
            assert_eq!(g.shape().game, g.name(), "the shape names its game as the registry does");
            assert_eq!(serde_json::to_value(g).unwrap(), g.name());
        }
    }
}
