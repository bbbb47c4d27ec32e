#!/usr/bin/env python3
"""Runs junglezero's training stages on a Ray cluster, all pointed at one run URL.

The work stays in the Rust binary; this driver only schedules it:

- N self-play actors, each running `junglezero selfplay --run URL --games K` in a loop with the
  run's current best network (`--selfplay-gpus` GPUs each);
- one learner running `junglezero learn --run URL --config FILE --min-games G` in a loop (it
  creates the run on its first call, plays the teacher's games if the config asks for them, then
  trains one generation whenever enough new games are in the store);
- one gatekeeper running `junglezero gate --run URL` in a loop.

Ray restarts an actor that dies (`max_restarts`) and re-runs the loop it was in; the run in the
store is the only state, so a restarted actor simply goes on. The driver prints each stage's
output and, every `--progress-every` seconds, the run's state (`junglezero verify --json`).

The binary is found on each node through `JUNGLEZERO_BIN` (passed to the actors by the driver,
so it must be the same path on every node), else `junglezero` on PATH, else
target/release/junglezero beside this script. See docs/distributed.md.

    ray start --head                       # or let the driver start a local cluster
    python3 scripts/ray_train.py --run s3://bucket/runs/r1 --config configs/default.toml \\
        --selfplay 4 --generations 50
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import ray

REPO = Path(__file__).resolve().parent.parent


def find_binary() -> str:
    """The junglezero binary: $JUNGLEZERO_BIN, junglezero on PATH, or this checkout's build."""
    env = os.environ.get("JUNGLEZERO_BIN")
    if env:
        return env
    on_path = shutil.which("junglezero")
    if on_path:
        return on_path
    return str(REPO / "target" / "release" / "junglezero")


def _die_with_parent() -> None:
    """In the child: be killed when the actor process dies (Linux), so a killed actor does not
    leave its junglezero process running."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class Stage:
    """Runs one junglezero command at a time and remembers its output."""

    def __init__(self, binary: str, env: dict[str, str]):
        self.binary = binary
        self.env = {**os.environ, **env}
        self.child: subprocess.Popen | None = None

    def pids(self) -> tuple[int, int | None]:
        """This actor's process id and its running junglezero child's, if any."""
        return os.getpid(), (self.child.pid if self.child and self.child.poll() is None else None)

    def run(self, *args: str) -> tuple[int, str]:
        self.child = subprocess.Popen(
            [self.binary, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self.env,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        out, _ = self.child.communicate()
        return self.child.returncode, out


# A run that does not exist yet or has no network: wait for the learner to create it.
NOT_READY = re.compile(r"is not a training run|no model in models/")


# Each actor has two threads: `loop` runs for the actor's life, so `pids` (for whoever must kill it)
# needs its own; the threads share only `self.child`, which one of them writes.
@ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=2)
class SelfPlay(Stage):
    def loop(self, run: str, games: int, extra: list[str]) -> int:
        """Plays `games` games a call until killed; returns only on an error it cannot wait out."""
        while True:
            rc, out = self.run("selfplay", "--run", run, "--games", str(games), *extra)
            if rc == 0:
                print(out.strip().splitlines()[-1] if out.strip() else "selfplay: done", flush=True)
            elif NOT_READY.search(out):
                time.sleep(2)
            else:
                raise RuntimeError(f"selfplay failed ({rc}): {out.strip()[-2000:]}")


@ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=2)
class Learner(Stage):
    def loop(self, run: str, config: str, generations: int, min_games: int, extra: list[str]) -> list[str]:
        """Trains until candidate `generations` exists; returns the warnings the learner printed."""
        warnings: list[str] = []
        while True:
            rc, out = self.run("learn", "--run", run, "--config", config, "--min-games", str(min_games), *extra)
            if rc != 0:
                raise RuntimeError(f"learn failed ({rc}): {out.strip()[-2000:]}")
            warnings += [line for line in out.splitlines() if " WARN " in line]
            done = re.search(r"wrote candidate gen-(\d+)", out)
            if done:
                print(out.strip().splitlines()[-1], flush=True)
                if int(done.group(1)) >= generations:
                    return warnings
            else:
                time.sleep(1)


@ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=2)
class Gatekeeper(Stage):
    def loop(self, run: str, generations: int, extra: list[str]) -> str:
        """Gates until generation `generations` is decided; returns the last summary line."""
        while True:
            rc, out = self.run("gate", "--run", run, *extra)
            if rc != 0 and not NOT_READY.search(out):
                raise RuntimeError(f"gate failed ({rc}): {out.strip()[-2000:]}")
            decided = re.search(r"newest decided gen-(\d+)", out)
            if decided:
                line = out.strip().splitlines()[-1]
                if " 0 candidate(s)" not in line:
                    print(line, flush=True)
                if int(decided.group(1)) >= generations:
                    return line
            time.sleep(1)


def start(args: argparse.Namespace, binary: str, env: dict[str, str]) -> dict:
    """Starts the actors and their loops; returns the handles and the loops' futures."""
    extra = [x for s in args.set for x in ("--set", s)]
    selfplay = [
        SelfPlay.options(num_gpus=args.selfplay_gpus, num_cpus=args.selfplay_cpus).remote(binary, env)
        for _ in range(args.selfplay)
    ]
    learner = Learner.options(num_gpus=args.learner_gpus, num_cpus=1).remote(binary, env)
    gatekeeper = Gatekeeper.options(num_cpus=1).remote(binary, env)
    return {
        "selfplay": selfplay,
        "learner": learner,
        "gatekeeper": gatekeeper,
        "selfplay_loops": [a.loop.remote(args.run, args.games, extra) for a in selfplay],
        "learner_loop": learner.loop.remote(args.run, args.config, args.generations, args.min_games, extra),
        "gate_loop": gatekeeper.loop.remote(args.run, args.generations, extra),
    }


def progress(binary: str, run: str, env: dict[str, str]) -> str:
    """One line on the run's state, from `junglezero verify --json`."""
    out = subprocess.run([binary, "verify", "--run", run, "--json"], capture_output=True, text=True, env={**os.environ, **env})
    try:
        a = json.loads(out.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return "run not created yet"
    c = a.get("checkpoint") or {}
    best = a.get("best")
    return (
        f"generation {c.get('iteration', 0)}, step {c.get('step', 0)}, {a['shards']} shards "
        f"({a['shard_games']} games, {len(a['unread_shards'])} not trained on yet), "
        f"best {'none' if best is None else f'gen-{best:04}'}, {a['rejected']} rejected"
    )


def wait(handles: dict, binary: str, run: str, env: dict[str, str], every: float) -> list[str]:
    """Waits for the learner and the gatekeeper, printing progress; then stops self-play."""
    pending = [handles["learner_loop"], handles["gate_loop"]]
    results: dict = {}
    last = time.monotonic()
    while pending:
        done, pending = ray.wait(pending, timeout=1.0)
        for ref in done:
            results[ref] = ray.get(ref)  # raises if a loop failed for good
        failed = ray.wait(handles["selfplay_loops"], timeout=0)[0]
        for ref in failed:
            ray.get(ref)  # a self-play loop only returns by raising
        if every > 0 and time.monotonic() - last >= every:
            last = time.monotonic()
            print(f"[{time.strftime('%H:%M:%S')}] {progress(binary, run, env)}", flush=True)
    for a in handles["selfplay"]:
        ray.kill(a, no_restart=True)
    return results[handles["learner_loop"]]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", required=True, help="run URL (s3://bucket/prefix, gs://..., az://..., or a shared directory)")
    p.add_argument("--config", required=True, help="config file for a new run (an existing run keeps its own)")
    p.add_argument("--generations", type=int, default=10, help="stop when this generation is trained and gated")
    p.add_argument("--selfplay", type=int, default=2, help="self-play actors")
    p.add_argument("--games", type=int, default=16, help="games per self-play call (each call then uploads)")
    p.add_argument("--min-games", type=int, default=48, help="new games a generation trains on")
    p.add_argument("--selfplay-gpus", type=float, default=0, help="GPUs per self-play actor")
    p.add_argument("--selfplay-cpus", type=float, default=1, help="CPUs per self-play actor")
    p.add_argument("--learner-gpus", type=float, default=0, help="GPUs for the learner")
    p.add_argument("--set", action="append", default=[], help="KEY=VALUE passed to every stage (repeatable)")
    p.add_argument("--address", default=None, help="Ray cluster address (default: RAY_ADDRESS or a new local cluster)")
    p.add_argument("--local-cpus", type=int, default=None, help="CPUs of a new local cluster")
    p.add_argument("--progress-every", type=float, default=30, help="seconds between progress lines (0: none)")
    args = p.parse_args()

    binary = find_binary()
    if not os.path.isfile(binary):
        print(f"ray_train: no junglezero binary at {binary}; build it or set JUNGLEZERO_BIN", file=sys.stderr)
        return 2
    # What the stages need on every node: the binary's path and the store's settings.
    env = {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "GOOGLE_", "AZURE_", "JZ_", "RUST_LOG"))}
    env["JUNGLEZERO_BIN"] = binary
    ray.init(address=args.address, num_cpus=args.local_cpus if args.address is None else None, log_to_driver=True)
    started = time.monotonic()
    handles = start(args, binary, env)
    warnings = wait(handles, binary, args.run, env, args.progress_every)
    print(f"ray_train: generation {args.generations} trained and gated in {time.monotonic() - started:.0f} s; {progress(binary, args.run, env)}")
    for w in warnings:
        print(f"learner warning: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
