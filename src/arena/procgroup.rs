//! External programs in process groups of their own, ended together with everything they
//! started.
//!
//! An external engine is started as `sh -c CMD`, and the shell may start the engine (and the
//! engine helpers) as its children. Killing the shell alone would leave those running, so
//! each program gets its own process group and the whole group is killed: when the player is
//! dropped (a finished match, a forfeit, a timeout), and when this process is ended by SIGINT,
//! SIGTERM or SIGHUP (a terminal's Ctrl-C no longer reaches a group of its own). On Linux the
//! program also gets SIGKILL if this process dies without a chance to clean up.
//!
//! What the program started itself survives that (a `kill -9` of this process leaves no one
//! to kill the group), so the binary also starts a small reaper, itself again
//! ([`REAPER_ARG`]): told each group as it starts and ends over a pipe, it kills the groups
//! still alive when the pipe closes, which it does however this process ends.

/// The hidden first argument that makes the binary the reaper ([`reap`]).
pub const REAPER_ARG: &str = "__reap-process-groups";

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, Once, OnceLock};

/// The groups alive, for the signal handler (which may not lock or allocate): a fixed table
/// of process-group ids, 0 for a free slot. More engines at once than slots are still killed
/// on drop, only not from the handler.
const SLOTS: usize = 256;
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
static HANDLERS: Once = Once::new();

/// Sets `cmd` up to start in a new process group (and, on Linux, to be killed with this
/// process).
pub fn configure(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe and touches only the child's own settings.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

/// A started program's process group; [`Group::kill`] ends every process in it.
#[derive(Debug)]
pub struct Group {
    pgid: i32,
    slot: Option<usize>,
}

impl Group {
    /// The group of `child`, started with [`configure`] (its pid is the group's id).
    pub fn of(child: &Child) -> Group {
        install_handlers();
        let pgid = i32::try_from(child.id()).unwrap_or(0);
        let slot = GROUPS.iter().position(|s| s.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst).is_ok());
        tell_reaper('+', pgid);
        Group { pgid, slot }
    }

    /// Sends SIGKILL to every process of the group. Call it before the leader is reaped
    /// (`Child::wait`), so that its id cannot have been reused.
    pub fn kill(&self) {
        #[cfg(unix)]
        if self.pgid > 0 {
            // SAFETY: kill has no memory effects; a group already gone gives ESRCH.
            unsafe {
                libc::kill(-self.pgid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(s) = self.slot {
            GROUPS[s].store(0, Ordering::SeqCst);
        }
        tell_reaper('-', self.pgid);
    }
}

/// The reaper's end of the pipe; `None` where none could start (or outside the binary: a test
/// harness or the Python module is not the binary that knows [`REAPER_ARG`]).
static REAPER: OnceLock<Option<Mutex<ChildStdin>>> = OnceLock::new();

/// Tells the reaper that group `pgid` started (`+`) or ended (`-`). Best effort: without a
/// reaper the other safeguards still hold.
fn tell_reaper(sign: char, pgid: i32) {
    if pgid <= 0 {
        return;
    }
    let reaper = REAPER.get_or_init(|| {
        let exe = std::env::current_exe().ok()?;
        if exe.file_stem().and_then(|n| n.to_str()) != Some("junglezero") {
            return None;
        }
        let mut cmd = Command::new(exe);
        cmd.arg(REAPER_ARG).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
        // Its own group: a terminal's Ctrl-C to this process's group does not end it first.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().ok()?;
        child.stdin.map(Mutex::new)
    });
    if let Some(pipe) = reaper {
        let mut w = pipe.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(w, "{sign}{pgid}").and_then(|_| w.flush());
    }
}

/// The reaper's life ([`REAPER_ARG`]): reads `+PGID` and `-PGID` lines until its input ends
/// (the process that started it has ended, however), then kills every group still listed.
/// At most [`SLOTS`] × 16 groups are kept; a line it cannot read is skipped.
pub fn reap() -> std::process::ExitCode {
    let mut alive: Vec<i32> = Vec::new();
    let stdin = std::io::stdin();
    let mut lines = crate::store::lines::CappedLines::new(stdin.lock(), 64);
    while let Some(line) = lines.next_line() {
        let Ok(line) = line else { continue };
        let number = |id: &str| id.trim().parse::<i32>().ok().filter(|&g| g > 0);
        if let Some(pgid) = line.strip_prefix('+').and_then(number) {
            if alive.len() < SLOTS * 16 {
                alive.push(pgid);
            }
        } else if let Some(pgid) = line.strip_prefix('-').and_then(number) {
            alive.retain(|&g| g != pgid);
        }
    }
    #[cfg(unix)]
    for pgid in alive {
        // SAFETY: kill has no memory effects; a group already gone gives ESRCH.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    std::process::ExitCode::SUCCESS
}

/// On SIGINT, SIGTERM and SIGHUP: kill every group in the table, then end as the signal
/// would have ended the process.
fn install_handlers() {
    #[cfg(unix)]
    HANDLERS.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the action only reads atomics and calls kill(2), both async-signal-safe,
            // then the default action of the signal.
            let _ = unsafe {
                signal_hook::low_level::register(sig, move || {
                    for g in &GROUPS {
                        let pgid = g.load(Ordering::SeqCst);
                        if pgid > 0 {
                            libc::kill(-pgid, libc::SIGKILL);
                        }
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                })
            };
        }
    });
}
