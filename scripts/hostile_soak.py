#!/usr/bin/env python3
"""Hostile soak: a real training run with bad settings and damaged files injected between legs.

Usage: scripts/hostile-soak.sh [--run DIR] [--bin PATH] [--memory-gib N]

Every command runs under a virtual-memory limit (`ulimit -v`, default 8 GiB) and a time limit.
The run trains the smoke recipe (configs/smoke.toml) one generation per good leg; between good
legs each injection below is tried once on the same run:

- settings that are not numbers or out of range (`--set train.lr=nan`, `mcts.c_puct=-1`, ...),
  a config that is `/dev/zero` or 2 MB long, a whole section replaced by an override;
- a settings change that makes training diverge (a learning rate of 10 with heavy momentum);
- the trainer checkpoint removed, then corrupted, then older than the networks;
- a shard and a candidate network replaced by garbage;
- endgame tables in the run's tables folder truncated, renamed to another material, and with one
  byte flipped.

After every command it checks: the command ended within its time limit (nothing spins); it
either succeeded or failed with exit status 2 and one line on stderr's last line (no panic, no
abort by signal); every promoted network and every shard that existed before is still there
with the same bytes; at most a few shards appeared during a failed command; no process the
command started is still alive. At the end `junglezero verify` must find nothing wrong once the
damage the soak did itself is repaired. It prints one table and writes DIR.soak.json; exit
status 1 on any failed check.
"""

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(run):
    """Every promoted network and shard with its hash."""
    out = {}
    for sub in ("models", "games"):
        d = run / sub
        if d.is_dir():
            for p in sorted(d.iterdir()):
                if p.is_file() and not p.name.startswith("."):
                    out[str(p.relative_to(run))] = digest(p)
    return out


def children_alive(marker):
    """Processes whose command line holds the run directory (a leftover of a finished command)."""
    alive = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd and "hostile_soak" not in cmd:
            alive.append(int(d.name))
    return alive


class Soak:
    def __init__(self, args):
        self.args = args
        self.run = Path(args.run).resolve()
        self.rows = []
        self.failures = []
        self.iterations = 0

    def limit(self):
        gib = self.args.memory_gib << 30
        resource.setrlimit(resource.RLIMIT_AS, (gib, gib))

    def cmd(self, name, argv, expect, timeout=300, shard_budget=4):
        """Runs the binary with `argv`; `expect` is "ok", "refused" or "either"."""
        before = snapshot(self.run) if self.run.exists() else {}
        started = time.monotonic()
        try:
            p = subprocess.run([self.args.bin] + argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=timeout, preexec_fn=self.limit, env=dict(os.environ, NO_COLOR="1"))
            code, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired as e:
            code, err = "timeout", (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        seconds = time.monotonic() - started
        last = err.strip().splitlines()[-1] if err.strip() else ""
        after = snapshot(self.run) if self.run.exists() else {}
        problems = []
        if code == "timeout":
            problems.append(f"did not end within {timeout} s")
        elif code not in (0, 2):
            problems.append(f"exit status {code} (a panic or a signal)")
        elif expect == "ok" and code != 0:
            problems.append("failed where it should succeed")
        elif expect == "refused" and code != 2:
            problems.append("succeeded where it should be refused")
        if code == 2 and (not last.startswith("error: ") or len(last) > 1200):
            problems.append(f"the error is not one line: {last[:200]!r}")
        if "panicked" in err:
            problems.append("panicked")
        lost = [k for k, h in before.items() if after.get(k) != h]
        if lost:
            problems.append(f"lost or changed: {lost[:3]}")
        new_shards = [k for k in after if k not in before and k.startswith("games/")]
        if code != 0 and len(new_shards) > shard_budget:
            problems.append(f"{len(new_shards)} shards written by a failed command")
        time.sleep(0.3)
        left = children_alive(str(self.run))
        if left:
            problems.append(f"processes left: {left}")
        self.rows.append({"injection": name, "exit": code, "seconds": round(seconds, 1), "said": last[:160],
                          "networks": sum(1 for k in after if k.startswith("models/")),
                          "shards": sum(1 for k in after if k.startswith("games/")), "problems": problems})
        for pr in problems:
            self.failures.append(f"{name}: {pr}")
        print(f"{name:<38} exit {code!s:<7} {seconds:6.1f} s  {'OK' if not problems else 'FAIL: ' + '; '.join(problems)}", flush=True)
        return code

    def good_leg(self, name):
        self.iterations += 1
        return self.cmd(name, ["train", "--run", str(self.run), "--set", f"train.iterations={self.iterations}"], "ok")

    def go(self):
        run = self.run
        if run.exists():
            shutil.rmtree(run)
        self.iterations = 1
        self.cmd("create the run (smoke recipe)", ["train", "--config", str(ROOT / "configs/smoke.toml"), "--run", str(run),
                                                    "--set", "train.iterations=1", "--set", "ladder.every=0"], "ok")
        it = lambda: f"train.iterations={self.iterations + 1}"
        for bad in ["train.lr=nan", "train.lr=inf", "mcts.c_puct=-1", "mcts.c_puct=nan", "selfplay.temperature_end=-inf",
                    "train.batch_size=0", "search.hash_mb=1048576", "model.channels=999999", "train.window_exponent=1e300",
                    "train={lr=0.5}", "train.seed=-1"]:
            self.cmd(f"--set {bad}", ["train", "--run", str(run), "--set", it(), "--set", bad], "refused", timeout=60)
        self.cmd("--config /dev/zero", ["train", "--run", str(run), "--config", "/dev/zero"], "refused", timeout=60)
        big = run.parent / (run.name + ".big.toml")
        big.write_text("# " + "x" * (2 << 20) + "\n")
        self.cmd("--config of 2 MB", ["train", "--run", str(run), "--config", str(big)], "refused", timeout=60)
        big.unlink()
        self.good_leg("good leg")

        # Training that diverges: it either stops with an error or stays finite; nothing is lost.
        self.cmd("diverging: lr 10, momentum 0.999", ["train", "--run", str(run), "--set", it(), "--set", "train.lr=10",
                                                      "--set", "train.momentum=0.999", "--set", "train.lr_warmup_steps=0"], "either")
        # The snapshot now holds the diverging leg's config; the next good leg sets it back.
        self.good_leg_with("good leg (lr back to 0.02)", ["train.lr=0.02", "train.momentum=0.9", "train.lr_warmup_steps=100"])

        ck = run / "train" / "checkpoint.jzc"
        saved = ck.read_bytes()
        ck.unlink()
        self.cmd("checkpoint removed", ["train", "--run", str(run), "--set", it()], "refused", timeout=60)
        ck.write_bytes(saved[: len(saved) // 2])
        self.cmd("checkpoint truncated", ["train", "--run", str(run), "--set", it()], "refused", timeout=60)
        self.iterations += 1
        self.cmd("--rebuild", ["train", "--run", str(run), "--rebuild", "--set", f"train.iterations={self.iterations}"], "ok")
        newer = ck.read_bytes()
        ck.write_bytes(saved)
        self.cmd("checkpoint older than the networks", ["train", "--run", str(run), "--set", it()], "refused", timeout=60)
        ck.write_bytes(newer)

        shards = sorted((run / "games").glob("gen-*.jzg"))
        junk = run / "games" / "gen-9999-junk.jzg"
        junk.write_bytes(os.urandom(4096))
        self.good_leg("good leg with a garbage shard")
        junk.unlink()
        cand = run / "candidates" / "gen-9998.jzm"
        cand.parent.mkdir(exist_ok=True)
        cand.write_bytes(b"JZNM" + os.urandom(4096))
        self.cmd("garbage candidate waiting", ["train", "--run", str(run), "--set", it()], "either")
        if cand.exists():
            cand.unlink()
        # Endgame tables the run is pointed at: sound ones are used, a truncated one, a renamed
        # one and one with a byte flipped are never trusted (refused naming the file, or the
        # damaged table left out with a warning).
        tb = run.parent / (run.name + ".tables")
        if tb.exists():
            shutil.rmtree(tb)
        self.cmd("tb build (two pieces)", ["tb", "build", "--material", "E-r,L-r", "--out", str(tb)], "ok", timeout=120)
        self.good_leg_with("good leg with tables", [f"tablebase.dir={tb}"])
        table = tb / "E-r.jztb"
        sound = table.read_bytes()
        table.write_bytes(sound[: len(sound) // 2])
        self.cmd("a truncated table", ["train", "--run", str(run), "--set", it(), "--set", f"tablebase.dir={tb}"], "refused", timeout=60)
        table.unlink()
        (tb / "L-r.jztb").rename(table)
        self.cmd("a table under another material's name", ["train", "--run", str(run), "--set", it(), "--set", f"tablebase.dir={tb}"],
                 "refused", timeout=60)
        shutil.rmtree(tb)
        self.cmd("tb build again", ["tb", "build", "--material", "E-r", "--out", str(tb)], "ok", timeout=120)
        flipped = bytearray(sound)
        flipped[len(flipped) - 9] ^= 0x40
        table.write_bytes(bytes(flipped))
        self.cmd("a table with a byte flipped", ["train", "--run", str(run), "--set", it(), "--set", f"tablebase.dir={tb}"], "either")
        shutil.rmtree(tb)
        self.good_leg_with("good leg without tables", ["tablebase.dir="])

        self.cmd("verify", ["verify", "--run", str(run)], "either", timeout=120)
        v = subprocess.run([self.args.bin, "verify", "--run", str(run), "--json"], capture_output=True, text=True, timeout=120)
        problems = json.loads(v.stdout).get("problems", []) if v.stdout.strip() else ["verify printed nothing"]
        # The garbage shard the soak planted was read (and skipped) by the learner before the
        # soak removed it; verify rightly names it. Anything else is a finding.
        problems = [p for p in problems if "gen-9999-junk" not in p]
        self.rows.append({"injection": "verify at the end", "exit": v.returncode, "seconds": 0, "said": "; ".join(problems)[:160],
                          "networks": 0, "shards": len(shards), "problems": [f"verify: {p}" for p in problems]})
        self.failures += [f"verify: {p}" for p in problems]

    def good_leg_with(self, name, sets):
        self.iterations += 1
        argv = ["train", "--run", str(self.run), "--set", f"train.iterations={self.iterations}"]
        for s in sets:
            argv += ["--set", s]
        return self.cmd(name, argv, "ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", default=str(ROOT / "target" / "hostile-soak"))
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "junglezero"))
    ap.add_argument("--memory-gib", type=int, default=8)
    args = ap.parse_args()
    soak = Soak(args)
    soak.go()
    out = Path(str(soak.run) + ".soak.json")
    out.write_text(json.dumps({"rows": soak.rows, "failures": soak.failures, "memory_gib": args.memory_gib}, indent=1))
    print()
    print("| injection | exit | seconds | networks | shards | what it said | checks |")
    print("|---|---|---|---|---|---|---|")
    for r in soak.rows:
        said = r["said"].replace("|", "\\|")
        print(f"| {r['injection']} | {r['exit']} | {r['seconds']} | {r['networks']} | {r['shards']} | {said} | {'ok' if not r['problems'] else 'FAIL'} |")
    print(f"\n{len(soak.failures)} failed checks; details in {out}")
    sys.exit(1 if soak.failures else 0)


if __name__ == "__main__":
    main()
