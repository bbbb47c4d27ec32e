//! The events of a run's `metrics.jsonl`, one JSON object per line, typed: the pipeline writes
//! these structs and the report and the ratings read the same structs back, so a field cannot
//! be written under one name and read under another. A line that does not parse is reported
//! with its line number and the reason, never silently read as zeros.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch, the `time` of every event.
pub fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// One line of metrics.jsonl; `kind` names the variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    /// Training losses over the last logged steps.
    Train(TrainEvent),
    /// A batch of self-play games.
    Selfplay(GamesEvent),
    /// The alpha-beta teacher's games.
    Teacher(GamesEvent),
    /// A gate decision on a candidate.
    Gate(GateEvent),
    /// A finished match (gate, ladder or calibration) for the ratings.
    Match(MatchEvent),
    /// The ratings fitted after a ladder.
    Ratings(RatingsEvent),
    /// A `train` invocation began (a run resumed after a pause has one per session).
    Start(StartEvent),
    /// A new network's value accuracy on the endgame tables' positions.
    Tablebase(TablebaseEvent),
}

impl Event {
    pub fn time(&self) -> f64 {
        match self {
            Event::Train(e) => e.time,
            Event::Selfplay(e) | Event::Teacher(e) => e.time,
            Event::Gate(e) => e.time,
            Event::Match(e) => e.time,
            Event::Ratings(e) => e.time,
            Event::Start(e) => e.time,
            Event::Tablebase(e) => e.time,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainEvent {
    pub time: f64,
    /// The generation being trained.
    pub iteration: u64,
    pub step: u64,
    pub samples_trained: u64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub policy_entropy: f64,
    pub value_accuracy: f64,
    pub lr: f64,
    pub samples_per_sec: f64,
    /// Samples in the replay window.
    pub window: u64,
    /// The moves-left head's loss (0 without the head).
    #[serde(default)]
    pub moves_left_loss: f64,
    /// The opponent-policy head's loss (0 without the head).
    #[serde(default)]
    pub opponent_policy_loss: f64,
    /// The short-term value head's loss (0 without the head).
    #[serde(default)]
    pub short_value_loss: f64,
    /// Where a step's time went, mean seconds a step since the last event (absent in older runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_seconds: Option<StepSeconds>,
}

/// Mean seconds of one training step by part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSeconds {
    /// Drawing the batch from the replay window, augmentation and targets included.
    pub batch: f64,
    /// The batch copied into tensors.
    pub inputs: f64,
    /// The forward pass and the losses.
    pub forward: f64,
    pub backward: f64,
    pub optimizer: f64,
}

/// How well a generation's network knows positions whose result the endgame tables know: the
/// same fixed sample every generation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TablebaseEvent {
    pub time: f64,
    pub generation: u64,
    pub positions: u64,
    /// The share whose most likely win/draw/loss class is the tables' result.
    pub accuracy: f64,
    /// The mean |network value - exact value| (values in [-1, 1]).
    pub value_error: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GamesEvent {
    pub time: f64,
    pub iteration: u64,
    /// Who played: a network id or `alphabeta:depth=N`.
    pub model: String,
    pub games: u64,
    pub moves: u64,
    pub evals: u64,
    pub seconds: f64,
    pub evals_per_sec: f64,
    pub mean_length: f64,
    /// Plies of each game.
    pub lengths: Vec<u64>,
    /// Wins of the first and the second seat (Red and Blue in Jungle).
    pub red_wins: u64,
    pub blue_wins: u64,
    pub draws: u64,
    /// Games by how they ended (`Reason::name`).
    pub reasons: BTreeMap<String, u64>,
    /// Games played out with resignation disabled, and those the would-be resigner won.
    pub resign_playouts: u64,
    pub false_resigns: u64,
    /// The handcrafted evaluation's share of leaf values (self-play only).
    #[serde(default)]
    pub heuristic_weight: f64,
    /// Games handed to the alpha-beta teacher to finish (`selfplay.finish_after_plies`).
    #[serde(default)]
    pub engine_finished: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateEvent {
    pub time: f64,
    pub generation: u64,
    pub accepted: bool,
    pub reason: String,
    /// The best network's generation (absent when gating is disabled, as are the match fields).
    #[serde(default)]
    pub best: Option<u64>,
    #[serde(default)]
    pub games: u64,
    #[serde(default)]
    pub wins: u64,
    #[serde(default)]
    pub losses: u64,
    #[serde(default)]
    pub draws: u64,
    #[serde(default)]
    pub penta: [u32; 5],
    #[serde(default)]
    pub elo: Option<f64>,
    #[serde(default)]
    pub elo_ci95: Option<f64>,
    #[serde(default)]
    pub llr: Option<f64>,
    /// The candidate's training steps and the games its run had seen.
    #[serde(default)]
    pub steps: Option<u64>,
    #[serde(default)]
    pub games_seen: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchEvent {
    pub time: f64,
    /// `gate`, `ladder` or `calibration`.
    pub source: String,
    pub a: String,
    pub b: String,
    /// From `a`'s side.
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    #[serde(default)]
    pub penta: [u32; 5],
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RatingEntry {
    pub elo: f64,
    pub ci95: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RatingsEvent {
    pub time: f64,
    pub generation: u64,
    pub ratings: BTreeMap<String, RatingEntry>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StartEvent {
    pub time: f64,
    /// The generation the run stood at.
    pub generation: u64,
}

/// The events of a metrics file's text and, for each line that could not be read, its number
/// and the reason.
pub fn parse(text: &str) -> (Vec<Event>, Vec<String>) {
    let mut events = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Event>(line) {
            Ok(e) => events.push(e),
            Err(e) => problems.push(format!("line {}: {e}", i + 1)),
        }
    }
    (events, problems)
}

/// One event as a metrics line (no newline).
pub fn to_line(event: &Event) -> String {
    serde_json::to_string(event).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_bad_lines_are_named() {
        let m = Event::Match(MatchEvent {
            time: 1.5,
            source: "ladder".into(),
            a: "gen-0002".into(),
            b: "alphabeta:depth=1".into(),
            wins: 3,
            losses: 1,
            draws: 0,
            penta: [0, 0, 1, 0, 1],
        });
        let g = Event::Gate(GateEvent { time: 2.0, generation: 3, accepted: true, reason: "gating disabled".into(), ..GateEvent::default() });
        let st = Event::Start(StartEvent { time: 2.5, generation: 3 });
        assert_eq!(to_line(&st), r#"{"kind":"start","time":2.5,"generation":3}"#);
        let text = format!(
            "{}\n\n{}\n{}\n{{\"kind\":\"train\",\"time\":1}}\n{{\"kind\":\"mystery\"}}\n{{\"kind\":\"match\",\"ti",
            to_line(&m),
            to_line(&g),
            to_line(&st)
        );
        let (events, problems) = parse(&text);
        assert_eq!(events, vec![m, g, st]);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].starts_with("line 5:") && problems[0].contains("missing field"), "{}", problems[0]);
        assert!(problems[1].starts_with("line 6:") && problems[1].contains("mystery"), "{}", problems[1]);
        assert!(problems[2].starts_with("line 7:"), "{}", problems[2]);
    }

    #[test]
    fn a_disabled_gate_line_reads_without_its_match_fields() {
        let (events, problems) = parse(r#"{"kind":"gate","time":5.0,"generation":2,"accepted":true,"reason":"gating disabled"}"#);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(matches!(&events[0], Event::Gate(g) if g.generation == 2 && g.best.is_none()));
    }
}
