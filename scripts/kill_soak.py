#!/usr/bin/env python3
"""Kill soak: a real training run, killed with SIGKILL at random moments and restarted.

Usage: scripts/kill-soak.sh MINUTES [--kills N] [--run DIR] [--bin PATH] [--set KEY=VALUE ...]

The run uses configs/default.toml with a generation small enough to cycle in a minute or two,
and with the gate on.
The stages announce themselves on stderr (RUST_LOG=junglezero::phase=debug), so each kill is
aimed at a phase in turn: the alpha-beta teacher, self-play, training, gating and the ladder.
After every kill and restart it checks:

- every shard that was complete before the kill is still there and reads;
- the trainer's counters (generation, step, samples, games seen) and the best generation
  never go backwards, and the run resumes rather than starting over;
- `junglezero verify` finds no problem: the best model and the trainer checkpoint load, the
  learner has read no shard twice and counts exactly the games its shards hold, and no
  temporary file was taken for a finished one (temporaries are removed at the restart).

At the end the run finishes one more generation, and every shard written before the last kill
must have been read by the learner exactly once. It prints a table (kills by phase, games lost,
time to resume) and writes the details to DIR.soak.json. Exit status 1 on any failed check.
"""

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = ["teacher", "selfplay", "train", "gate", "ladder"]
# How long after a phase starts a kill may land (seconds): within the phase's usual length.
WINDOW = {"teacher": 60, "selfplay": 40, "train": 4, "gate": 8, "ladder": 15}
COUNTERS = ["iteration", "step", "samples_trained", "games_seen", "samples_seen", "seen_shards"]


class Run:
    """One training process and what its stderr said."""

    def __init__(self, args, n):
        env = dict(os.environ, RUST_LOG="info,junglezero::phase=debug", NO_COLOR="1")
        cmd = [args.bin, "train", "--config", str(args.config), "--run", str(args.run)]
        for s in args.set:
            cmd += ["--set", s]
        self.log = open(args.logs / f"start-{n:03}.log", "w")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        self.phase = None
        self.phase_since = None
        self.starts = []  # (time, phase) of every stage start
        self.first_phase_at = None
        self.unwritten = 0
        self.resumed = None
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.log.write(line)
            self.log.flush()
            now = time.monotonic()
            with self.lock:
                m = re.search(r"DEBUG phase (\w+)\s*$", line)
                if m:
                    self.phase, self.phase_since = m.group(1), now
                    self.starts.append((now, self.phase))
                    if self.phase in ("teacher", "selfplay"):
                        self.unwritten = 0
                    if self.first_phase_at is None:
                        self.first_phase_at = now
                m = re.search(r"unwritten games (\d+)", line)
                if m:
                    self.unwritten = int(m.group(1))
                if "resumed run" in line:
                    self.resumed = True
                elif "created run" in line:
                    self.resumed = False

    def started_since(self, t, phase):
        with self.lock:
            return next((s for s, p in self.starts if s >= t and p == phase), None)

    def state(self):
        with self.lock:
            return self.phase, self.phase_since, self.unwritten

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        time.sleep(0.2)
        self.log.close()


def verify(args):
    out = subprocess.run([args.bin, "verify", "--run", str(args.run), "--json"], capture_output=True, text=True)
    if not out.stdout.strip():
        return {"problems": [f"verify printed nothing: {out.stderr.strip()}"]}
    return json.loads(out.stdout)


def shards(args):
    d = args.run / "games"
    return {f"games/{p.name}" for p in d.glob("*.jzg")} if d.exists() else set()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("minutes", type=float)
    ap.add_argument("--kills", type=int, default=20, help="at least this many kills (default 20)")
    ap.add_argument("--run", type=Path, default=ROOT / "target/kill-soak")
    ap.add_argument("--bin", default=str(ROOT / "target/release/junglezero"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--config", type=Path, default=ROOT / "configs/default.toml")
    ap.add_argument("--set", action="append", default=[], help="config override for the run")
    args = ap.parse_args()
    # The gate is switched on (the default recipe promotes without it) so that it can be hit too.
    args.set = ["train.games_per_iteration=32", "teacher.games=400", "selfplay.games_per_shard=8", "gate.enabled=true"] + args.set
    rng = random.Random(args.seed)
    subprocess.run(["rm", "-rf", str(args.run)], check=True)
    args.logs = Path(str(args.run) + ".logs")
    subprocess.run(["rm", "-rf", str(args.logs)], check=True)
    args.logs.mkdir(parents=True)

    failures, kills = [], []
    best_counters, best_gen = {k: 0 for k in COUNTERS}, -1
    deadline = time.monotonic() + args.minutes * 60
    run = Run(args, 0)
    n = 0
    generation = 0
    waited_since = time.monotonic()
    while n < args.kills or time.monotonic() < deadline:
        done = {p: sum(1 for k in kills if k["phase"] == p) for p in PHASES}
        # The teacher only plays before the first generation: aim there first.
        if generation == 0 and sum(1 for k in kills if k["target"] == "teacher") < 2:
            target = "teacher"
        else:
            target = min(PHASES[1:], key=lambda p: (done[p], rng.random()))
        # Wait for the target stage to start (or give up after a while and kill wherever the run
        # is), then kill at a random moment of its usual length.
        start = None
        wait_until = time.monotonic() + (60 if target == "teacher" else 240)
        while time.monotonic() < wait_until and start is None:
            if run.proc.poll() is not None:
                failures.append(f"start {n}: the run exited by itself with status {run.proc.returncode}")
                break
            start = run.started_since(waited_since, target)
            time.sleep(0.02)
        at = (start if start is not None else time.monotonic()) + rng.uniform(0, WINDOW[target])
        time.sleep(max(0.0, at - time.monotonic()))
        before = shards(args)
        phase, _, unwritten = run.state()
        lost = unwritten if phase in ("teacher", "selfplay") else 0
        run.kill()
        n += 1
        killed_at = time.monotonic()

        # Checks on the killed state, then again once the restart has resumed.
        a = verify(args)
        after = shards(args)
        missing = sorted(before - after)
        if missing:
            failures.append(f"kill {n}: shards complete before the kill are gone: {missing}")
        for p in a.get("problems", []):
            failures.append(f"kill {n}: verify: {p}")
        cp = a.get("checkpoint") or {}
        generation = cp.get("iteration", 0)
        for k in COUNTERS:
            if cp.get(k, 0) < best_counters[k]:
                failures.append(f"kill {n}: {k} went back from {best_counters[k]} to {cp.get(k)}")
            best_counters[k] = max(best_counters[k], cp.get(k, 0))
        if (a.get("best") if a.get("best") is not None else -1) < best_gen:
            failures.append(f"kill {n}: the best generation went back from {best_gen} to {a.get('best')}")
        best_gen = max(best_gen, a.get("best") if a.get("best") is not None else -1)
        temporaries = a.get("temporaries", [])

        run = Run(args, n)
        waited_since = run.started
        while run.first_phase_at is None and run.proc.poll() is None and time.monotonic() - killed_at < 300:
            time.sleep(0.05)
        resume = (run.first_phase_at or time.monotonic()) - run.started
        if run.resumed is not True:
            failures.append(f"kill {n}: the restart did not resume the run")
        left = [t for t in temporaries if (args.run / t).exists()]
        if left:
            failures.append(f"kill {n}: temporaries of the killed writer survived the restart: {left}")
        kills.append({"kill": n, "phase": phase, "target": target, "games_lost": lost, "resume_s": round(resume, 2), "temporaries": len(temporaries), "generation": cp.get("iteration")})
        print(f"kill {n:2}: aimed at {target:8} landed in {phase or '?':8} generation {cp.get('iteration')}, games lost {lost}, "
              f"{len(temporaries)} temporaries, resumed in {resume:.1f} s", flush=True)

    # Let the run read everything written so far, then check the learner's books.
    last = shards(args)
    gen = best_counters["iteration"]
    wait_until = time.monotonic() + 600
    while time.monotonic() < wait_until:
        cp = (verify(args).get("checkpoint") or {})
        if cp.get("iteration", 0) > gen:
            break
        time.sleep(5)
    run.kill()
    a = verify(args)
    for p in a.get("problems", []):
        failures.append(f"end: verify: {p}")
    unread = sorted(set(a.get("unread_shards", [])) & last)
    if unread:
        failures.append(f"end: shards written before the last kill were never read by the learner: {unread}")
    if (a.get("checkpoint") or {}).get("iteration", 0) <= gen:
        failures.append("end: no generation was completed after the last kill")

    print()
    print("| phase | kills | games lost (total / max) | time to resume, s (mean / max) |")
    print("|---|---:|---:|---:|")
    for p in PHASES:
        ks = [k for k in kills if k["phase"] == p]
        if ks:
            lost = [k["games_lost"] for k in ks]
            res = [k["resume_s"] for k in ks]
            print(f"| {p} | {len(ks)} | {sum(lost)} / {max(lost)} | {sum(res) / len(res):.1f} / {max(res):.1f} |")
    other = [k for k in kills if k["phase"] not in PHASES]
    if other:
        print(f"| (before any phase) | {len(other)} | 0 | - |")
    cp = a.get("checkpoint") or {}
    print(f"\n{len(kills)} kills in {args.minutes:g} minutes; the run ended at generation {cp.get('iteration')}, "
          f"{cp.get('games_seen')} games seen from {a.get('shards')} shards, best gen-{a.get('best')}")
    Path(str(args.run) + ".soak.json").write_text(json.dumps({"kills": kills, "failures": failures, "final": a}, indent=1))
    for f in failures:
        print("FAILED:", f)
    print("kill soak: " + ("FAILED" if failures else "passed"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
