//! Jungle's entry in the house: its matches (no luck to deal), players and ladder, the
//! training loop's settings and teacher, the protocol's texts and options, the web page's board
//! and the command line's views. The rules themselves are [`crate::jungle`].

pub mod export;
pub mod external;
mod heuristic;
pub mod pgn;
pub mod players;
mod serve;
pub mod tablebase;
pub mod tactics;
pub mod teacher;

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;

use super::HouseGame;
use crate::arena::match_game::{ArenaGame, MatchGame};
use crate::arena::play::PlayedGame;
use crate::arena::spec::{Contestants, PlayerError, PlayerSettings, PlayerSpec};
use crate::config::Config;
use crate::game::{Outcome, Seat};
use crate::jungle::{JungleGame, PlayError, Repetition, Rules, describe_outcome, diagram, diagram_turned, legend, perft};
use crate::nn::NetEvaluator;
use crate::pipeline::{Pipeline, PipelineError, ProgressFn, RunGame};
use crate::protocol::variant::{ProtocolGame, check_option, spin_option};
use crate::registry::{GameName, GameRulesError};
use crate::selfplay::stage::StageSettings;
use crate::switches::Switches;
use heuristic::JungleHeuristic;
use pgn::{game_pgn, today};
use players::JungleFactory;
use teacher::games::Finisher;

impl MatchGame for JungleGame {
    const SHAPE_NAME: &'static str = "jungle";
    type Rules = Rules;
    type Deal = ();

    fn match_start(rules: &Rules) -> JungleGame {
        JungleGame::start(*rules)
    }

    fn match_root(text: &str, rules: &Rules) -> Result<JungleGame, String> {
        JungleGame::from_fen(text, *rules).map_err(|e| e.to_string())
    }

    fn random_deal(_: &Rules, _: &mut ChaCha8Rng) {}

    fn dealt(&self, _: &()) -> Option<crate::jungle::Move> {
        None
    }

    fn mover(&self) -> Seat {
        self.side_to_move().player()
    }

    fn opening_key(&self) -> (u64, u32) {
        (self.position().hash(), u32::from(self.position().halfmove()))
    }
}

impl ArenaGame for JungleGame {
    fn engine_at(depth: u32) -> PlayerSpec {
        PlayerSpec::AlphaBeta { depth: Some(depth), movetime: None, nodes: None, hash_mb: 16, threads: 1, temp: None, elo: None, tc: None }
    }

    const LEVELS: Option<(i32, i32)> = Some(crate::alphabeta::level::ELO_RANGE);

    fn at_level(elo: i32, settings: &PlayerSettings) -> Option<PlayerSpec> {
        let (lo, hi) = crate::alphabeta::level::ELO_RANGE;
        (lo..=hi).contains(&elo).then_some(PlayerSpec::AlphaBeta {
            depth: None,
            movetime: None,
            nodes: None,
            hash_mb: settings.search.hash_mb,
            threads: 1,
            temp: None,
            elo: Some(elo),
            tc: None,
        })
    }

    fn classical(settings: &PlayerSettings) -> PlayerSpec {
        PlayerSpec::AlphaBeta {
            depth: None,
            movetime: None,
            nodes: None,
            hash_mb: settings.search.hash_mb,
            threads: settings.search.threads,
            temp: None,
            elo: None,
            tc: None,
        }
    }

    fn factory(
        spec: PlayerSpec,
        settings: &PlayerSettings,
        rules: &Rules,
        net: Option<Arc<NetEvaluator>>,
    ) -> Result<Box<dyn Contestants<JungleGame>>, PlayerError> {
        Ok(Box::new(JungleFactory::new(spec, settings, *rules, net)?))
    }
}

impl RunGame for JungleGame {
    fn rules(config: &Config) -> Rules {
        config.rules.jungle
    }

    /// 512 positions of the tables (seeded: the same every generation and run), with
    /// `config`'s rules.
    fn yardstick(config: &Config) -> Vec<(JungleGame, crate::mcts::oracle::Exact)> {
        match config.tablebase.open(&config.rules.jungle) {
            Ok(Some(tb)) => tablebase::sample(&tb, &config.rules.jungle, 512, 2026, 2..=3, &|_| true),
            _ => Vec::new(),
        }
    }

    fn oracle_under(config: &Config, rules: &Rules) -> anyhow::Result<Option<Arc<dyn crate::mcts::oracle::Oracle<JungleGame>>>> {
        Ok(config.tablebase.open(rules)?.map(|t| t as Arc<dyn crate::mcts::oracle::Oracle<JungleGame>>))
    }

    /// Self-play with the handcrafted evaluation blended into young networks' values, and the
    /// alpha-beta teacher finishing long games (when `experimental.finish_after_plies` is set).
    fn stage(config: &Config) -> StageSettings<'_, JungleGame> {
        let heuristic = JungleHeuristic::new(&config.eval, config.rules.jungle, config.selfplay.heuristic_scale);
        let finisher = Finisher::from_settings(&config.selfplay, &config.teacher, &config.search, &config.eval, config.rules.jungle);
        StageSettings {
            mcts: &config.mcts,
            selfplay: &config.selfplay,
            heuristic: Some(Arc::new(heuristic)),
            rules: config.rules.jungle,
            finish: finisher.map(|f| f.handover()),
            seed: config.train.seed,
            // A folder that cannot be opened was refused when the run started (see `train`).
            oracle: if config.tablebase.selfplay { Self::oracle(config).ok().flatten() } else { None },
        }
    }

    fn teach(p: &mut Pipeline<JungleGame>, progress: &mut ProgressFn, stop: &std::sync::atomic::AtomicBool) -> Result<u64, PipelineError> {
        teacher::teach(p, progress, stop)
    }
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

    fn rule_options() -> Vec<String> {
        let d = Rules::default();
        vec![
            check_option("dog_over_wolf", d.dog_over_wolf),
            check_option("rat_captures_across_shore", d.rat_captures_across_shore),
            check_option("elephant_takes_trapped_rat", d.elephant_takes_trapped_rat),
            check_option("elephant_takes_rat", d.elephant_takes_rat),
            format!("option name repetition type combo default {} var forbidden var draw var off", Repetition::default().name()),
            spin_option("no_capture_plies", d.no_capture_plies),
            spin_option("max_plies", d.max_plies),
            check_option("anti_chase", d.anti_chase),
        ]
    }

    fn set_rule(config: &mut Config, key: &str, value: &str) -> Option<Result<(), GameRulesError>> {
        Rules::KEYS.contains(&key).then(|| Switches::set(&mut config.rules.jungle, key, value).map_err(|e| GameRulesError::Rules(e.to_string())))
    }
}

impl HouseGame for JungleGame {
    const MOVE_HELP: &'static str = "a move like a3a4";
    const ROOT_WORD: &'static str = "fen";
    const SMOKE_CONFIG: &'static str = "configs/smoke.toml";
    const BOOK: Option<&'static str> = Some(include_str!("../../../books/jungle-balanced.txt"));

    fn apply_rules(rules: &mut Rules, spec: &str) -> Result<(), String> {
        rules.apply_overrides(spec).map_err(|e| e.to_string())
    }

    fn diagram(&self) -> String {
        diagram(self.position())
    }

    fn diagram_for(&self, seat: Seat) -> String {
        match seat {
            Seat::First => diagram(self.position()),
            Seat::Second => diagram_turned(self.position()),
        }
    }

    fn legend() -> String {
        legend()
    }

    fn seat_name(seat: Seat) -> &'static str {
        match seat {
            Seat::First => "Red",
            Seat::Second => "Blue",
        }
    }

    fn mover_name(&self) -> Option<String> {
        Some(self.side_to_move().to_string())
    }

    fn perft(&self, depth: u32) -> u64 {
        perft::perft_game(self, depth)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        let mut rows: Vec<(String, u64)> = perft::divide_game(self, depth).into_iter().map(|(m, n)| (m.to_string(), n)).collect();
        rows.sort();
        rows
    }

    fn export(rules: &Rules) -> crate::nn::files::export::GameExport {
        export::export(rules)
    }

    fn games_text(games: &[PlayedGame<JungleGame>], a: &str, b: &str, rules: &Rules) -> Option<String> {
        let date = today();
        Some(games.iter().enumerate().map(|(i, g)| game_pgn(g, i + 1, a, b, rules, &date)).collect())
    }
}
