//! Ctrl-C during `train`: one line saying what is kept, then a prompt stop where the stage can
//! stop between games or steps, or an exit at once where it cannot (a match is logged whole
//! when it ends). A second Ctrl-C exits at once. Whatever the moment, the run resumes with the
//! same command: every file of a run is written whole or not at all.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The exit status of a process ended by Ctrl-C (128 + SIGINT), as shells report it.
const INTERRUPTED: i32 = 130;

/// Handles Ctrl-C from now on; the flag is raised by the first one at a stage that stops by
/// itself. Without a signal handler (none could be installed), Ctrl-C ends the process as
/// before.
pub fn on_ctrl_c() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT]) else { return stop };
    let flag = stop.clone();
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if flag.load(Ordering::Relaxed) {
                eprintln!("interrupted again: stopping at once; the run resumes with the same command");
                std::process::exit(INTERRUPTED);
            }
            let stage = crate::store::hooks::current();
            match what_is_kept(&stage) {
                Kept::StopsBetween(text) => {
                    eprintln!("interrupted {text}; Ctrl-C again to stop at once");
                    flag.store(true, Ordering::Relaxed);
                }
                Kept::ExitsNow(text) => {
                    eprintln!("interrupted {text}; the run resumes with the same command");
                    std::process::exit(INTERRUPTED);
                }
            }
        }
    });
    stop
}

/// What a Ctrl-C in a stage does.
enum Kept {
    /// The stage stops at its next game or step; what it finished is kept.
    StopsBetween(&'static str),
    /// The stage cannot stop part way; the process ends now.
    ExitsNow(&'static str),
}

fn what_is_kept(stage: &str) -> Kept {
    match stage {
        "teacher" | "selfplay" => Kept::StopsBetween("during self-play: stopping; every finished game is kept in games/"),
        "train" => Kept::StopsBetween("during training: stopping; the last checkpoint is kept and this generation's steps are dropped"),
        "calibration" => Kept::ExitsNow(
            "during the ladder's calibration matches: the finished matches are kept in metrics.jsonl, and the finished games of the one under way in ladder/, where it resumes",
        ),
        "ladder" => Kept::ExitsNow("during the ladder: its finished matches are kept in metrics.jsonl, and the finished games of the one under way in ladder/"),
        "gate" => Kept::ExitsNow("during the gate: the candidate waits in candidates/ and is gated again"),
        _ => Kept::ExitsNow("before the first stage: nothing was under way"),
    }
}
