#!/usr/bin/env python3
"""Hostile inputs over every surface of the binary, one command each, with what each got.

Usage: python3 scripts/hostile_inputs.py [--bin PATH] [--model FILE]

Each case runs the binary once (under a 4 GiB memory limit and a 60 s time limit) and is judged
by what the user sees: a clean refusal is exit status 2 with one line on stderr that starts with
"error:" (or, for the protocol, an `info string error` line and an engine that keeps answering;
for the web server, a 4xx with a one-line JSON error). Any panic, abort, signal, hang or memory
past the limit fails the case. Prints one Markdown table per surface and a count; exit status 1
if any case failed.
"""

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 4 << 30


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run(binary, argv, stdin=None, timeout=60):
    """(exit status or 'timeout', stdout, stderr, seconds, peak MiB of this command).

    `stdin` is a file to read input from (kept out of this process's memory: a forked child
    counts its parent's pages in its peak until it runs the binary)."""
    start = time.monotonic()
    source = open(stdin, "rb") if stdin else subprocess.DEVNULL
    p = subprocess.Popen([binary] + argv, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit)
    # Reap the child ourselves (wait4) for its own peak memory.
    p.wait = lambda timeout=None: None
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        os.waitpid(p.pid, 0)
        return "timeout", out, err, time.monotonic() - start, 0
    _, status, usage = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return code, out, err, time.monotonic() - start, usage.ru_maxrss / 1024


def judge_refusal(code, err):
    lines = err.decode(errors="replace").strip().splitlines()
    if code == "timeout":
        return "HANG"
    if code not in (0, 2):
        return f"exit {code}"
    if b"panicked" in err:
        return "PANIC"
    if code == 2 and (not lines or not lines[-1].startswith("error:") or len(lines[-1]) > 1200):
        return "not one line"
    return "ok"


def third_round(b, model, tmp):
    """The third round's cases: outputs that exist or are links, a tournament folder that is not
    its own, a network with one huge weight, FIFOs where files are read, damaged, truncated and
    renamed tables, damaged journals, an export description with bad rules."""
    d = tmp / "third"
    d.mkdir()
    exist = d / "exist.onnx"
    exist.write_text("mine")
    target = d / "theirs.bin"
    target.write_text("theirs")
    (d / "link.onnx").symlink_to(target)
    (d / "y.json").write_text("their notes")
    (d / "z.samples.npz").write_text("their samples")
    foreign = d / "foreign"
    foreign.mkdir()
    (foreign / "results.json").write_text("{}")
    fifo = d / "in.fifo"
    os.mkfifo(fifo)
    for name in ("pipe.safetensors", "pipe.json"):
        os.mkfifo(d / name)
    # The export of the model, with one weight set to 3e38, and with "rules": "bogus".
    subprocess.run([b, "export", "--model", model, "--out", str(d / "net.safetensors")], check=True, capture_output=True)
    raw = bytearray((d / "net.safetensors").read_bytes())
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    for name, value in [("huge", 3e38), ("big", 1e5)]:
        data = bytearray(raw)
        at = 8 + n + header["value_fc2.weight"]["data_offsets"][0]
        data[at:at + 4] = __import__("struct").pack("<f", value)
        (d / f"{name}.safetensors").write_bytes(data)
        (d / f"{name}.json").write_bytes((d / "net.json").read_bytes())
    desc = json.loads((d / "net.json").read_text())
    desc["rules"] = "bogus"
    (d / "bogus.safetensors").write_bytes(raw)
    (d / "bogus.json").write_text(json.dumps(desc))
    # Tables: a good folder, and one damaged copy of it per kind of damage.
    good = d / "tables"
    subprocess.run([b, "tb", "build", "--material", "E-r,L-r", "--out", str(good)], check=True, capture_output=True)
    table = (good / "E-r.jztb").read_bytes()
    damaged = {
        "flipped": table[:-20] + bytes([table[-20] ^ 0x10]) + table[-19:],
        "truncated": table[:-9],
        "extended": table + b"\0",
        "renamed": (good / "L-r.jztb").read_bytes(),
        "empty": b"",
        "garbage": os.urandom(len(table)),
    }
    tables = {}
    for kind, data in damaged.items():
        t = d / f"tables-{kind}"
        t.mkdir()
        (t / "L-r.jztb").write_bytes((good / "L-r.jztb").read_bytes())
        (t / "E-r.jztb").write_bytes(data)
        tables[kind] = t
    fifo_tables = d / "tables-fifo"
    fifo_tables.mkdir()
    (fifo_tables / "L-r.jztb").write_bytes((good / "L-r.jztb").read_bytes())
    os.mkfifo(fifo_tables / "E-r.jztb")
    tables["fifo"] = fifo_tables
    # A journal of a finished match, then damaged copies.
    log = d / "match.jsonl"
    match = ["arena", "--a", "random", "--b", "alphabeta:depth=1", "--games", "4"]
    subprocess.run([b] + match + ["--log", str(log)], check=True, capture_output=True)
    lines = log.read_text().splitlines()
    journals = {
        "duplicated line": lines + [lines[1]],
        "pair out of range": lines + [lines[1].replace('"pair":0', '"pair":99').replace('"pair":1', '"pair":99')],
        "points 0.3": [lines[0], json.dumps({**json.loads(lines[1]), "a_points": 0.3}, separators=(",", ":"))] + lines[2:],
        "reason bogus": [lines[0], json.dumps({**json.loads(lines[1]), "reason": "bogus"}, separators=(",", ":"))] + lines[2:],
        "players out of range": lines + [json.dumps({**json.loads(lines[1]), "b": 7}, separators=(",", ":"))],
        "blank line inside": lines[:2] + [""] + lines[2:],
        "a draw by den": [lines[0], json.dumps({**json.loads(lines[1]), "a_points": 0.5, "reason": "den"}, separators=(",", ":"))] + lines[2:],
    }
    journal_cases = []
    for kind, text in journals.items():
        path = d / f"journal-{kind.replace(' ', '-')}.jsonl"
        path.write_text("\n".join(text) + "\n")
        journal_cases.append(["refuse", *match, "--log", str(path)])
    fen = "7/3E3/7/7/7/7/7/7/r6 w"
    (d / "probe.txt").write_text(fen + "\n")
    return {
        "outputs that exist or are links (third round)": [
            ["refuse", "export", "--model", model, "--format", "onnx", "--out", str(exist)],
            ["refuse", "export", "--model", model, "--format", "onnx", "--out", str(d / "link.onnx")],
            ["refuse", "export", "--model", model, "--out", str(d / "y.safetensors")],
            ["refuse", "export", "--model", model, "--out", str(d / "z.safetensors")],
            ["refuse", "export", "--model", model, "--out", str(d / "net.safetensors")],
            ["refuse", "import", str(d / "net.safetensors"), "--out", str(exist)],
            ["refuse", "average", model, "--out", str(exist)],
            ["refuse", "average", model, "--out", str(d / "link.onnx")],
            ["refuse", "arena", "--a", "random", "--b", "random", "--games", "2", "--json", str(exist)],
            ["refuse", "arena", "--a", "random", "--b", "random", "--games", "2", "--games-out", str(exist)],
            ["refuse", "tb", "build", "--material", "E-r", "--out", str(good), "--json", str(exist)],
            ["refuse", "tournament", "--players", "random", "random", "--games", "2", "--out", str(foreign)],
            ["export", "--model", model, "--format", "onnx", "--out", str(d / "link.onnx"), "--force"],
        ],
        "networks with a huge weight": [
            ["refuse", "import", str(d / "huge.safetensors"), "--out", str(d / "huge.jzm")],
            ["refuse", "import", str(d / "big.safetensors"), "--out", str(d / "big.jzm")],
            ["refuse", "import", str(d / "bogus.safetensors"), "--out", str(d / "bogus.jzm")],
        ],
        "FIFOs and devices where a file is read": [
            ["refuse", "search", "--depth", "1", "--config", str(fifo)],
            ["refuse", "serve", "--model", str(fifo), "--port", "0"],
            ["refuse", "inspect", str(fifo)],
            ["refuse", "import", str(d / "pipe.safetensors"), "--out", str(d / "f.jzm")],
            ["refuse", "arena", "--a", "random", "--b", "random", "--games", "2", "--openings", str(fifo)],
            ["refuse", "arena", "--a", "random", "--b", "random", "--games", "2", "--log", str(fifo)],
            ["refuse", "arena", "--a", "random", "--b", "random", "--games", "2", "--log", "/dev/full"],
            ["refuse", "arena", "--a", "random", "--b", f"mcts:model={fifo}", "--games", "2"],
            ["refuse", "tb", "score", "--tb", str(tables["fifo"]), model],
        ],
        "damaged tables (tb probe, tb score)": [
            ["refuse", "tb", cmd, "--tb", str(t)] + ([model] if cmd == "score" else [])
            for kind, t in tables.items() if kind != "fifo" for cmd in ("probe", "score")
        ],
        "damaged journals (arena --log)": journal_cases,
    }


def fourth_round(b, model, tmp):
    """The fourth round's cases: one NaN weight in an export, a network too large for the
    machine, a run's metrics file as a link or a FIFO, a run whose promoted network is gone,
    duplicate and out-of-range spec numbers, an endless `play` line, a flip engine left searching
    at the end of its input, a huge MCTS budget. A case starting with "stdin=PATH" reads PATH."""
    d = tmp / "fourth"
    d.mkdir()
    subprocess.run([b, "export", "--model", model, "--out", str(d / "net.safetensors")], check=True, capture_output=True)
    raw = bytearray((d / "net.safetensors").read_bytes())
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    # The second weight of the tensor: f32::max used to drop a NaN that other weights follow.
    at = 8 + n + header["value_fc2.weight"]["data_offsets"][0] + 4
    raw[at:at + 4] = __import__("struct").pack("<f", float("nan"))
    (d / "nan.safetensors").write_bytes(raw)
    (d / "nan.json").write_bytes((d / "net.json").read_bytes())
    smoke = str(ROOT / "configs/smoke.toml")
    linked, fifo_run, gone = d / "linked", d / "fifo-run", d / "gone"
    linked.mkdir()
    (d / "outside.txt").write_text("mine\n")
    (linked / "metrics.jsonl").symlink_to(d / "outside.txt")
    fifo_run.mkdir()
    os.mkfifo(fifo_run / "metrics.jsonl")
    subprocess.run([b, "train", "--config", smoke, "--run", str(gone), "--set", "train.iterations=2", "--set", "gate.enabled=false"], check=True, capture_output=True)
    for f in (gone / "models").iterdir():
        if f.name != "gen-0000.jzm":
            f.unlink()
    flip_eof = d / "flip-eof.txt"
    flip_eof.write_text("position startpos\ngo infinite\n")
    huge_budget = d / "huge-budget.txt"
    huge_budget.write_text(f"setoption name Engine value mcts\nsetoption name Model value {model}\ngo nodes 4294967295\n")
    return {
        "fourth round: networks, runs and specs": [
            ["refuse", "import", str(d / "nan.safetensors"), "--out", str(d / "nan.jzm")],
            ["refuse", "train", "--run", str(d / "huge"), "--set", "model.blocks=64", "--set", "model.channels=1024", "--set", "train.batch_size=65536"],
            ["refuse", "train", "--config", smoke, "--run", str(linked), "--set", "train.iterations=1"],
            ["refuse", "train", "--config", smoke, "--run", str(fifo_run), "--set", "train.iterations=1"],
            ["refuse", "verify", "--run", str(gone)],
            ["refuse", "search", "--depth", "1", "--set", "game=chess"],
            ["refuse", "arena", "--a", "random", "--b", "alphabeta:depth=3,depth=4", "--games", "2"],
            ["refuse", "arena", "--a", "random", "--b", "random", "--games", "2", "--each", "tc=0/5+0,tc=0/9+0"],
            ["refuse", "arena", "--a", "random", "--b", "alphabeta:depth=99999999999999999999", "--games", "2"],
            ["refuse", "arena", "--a", "random", "--b", "mcts:model=x.jzm,sims=99999999999", "--games", "2"],
            ["refuse", "arena", "--a", "random", "--b", "random:tc=99999999999/10+0", "--games", "2"],
        ],
        "fourth round: input that never ends": [
            ["stdin=/dev/zero", "refuse", "play", "--movetime", "100"],
            [f"stdin={flip_eof}", "uci", "--game", "flip"],
            [f"stdin={huge_budget}", "uci", "--set", "mcts.play_tree_mb=64"],
        ],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/release/junglezero"))
    ap.add_argument("--model", default=str(ROOT / "checkpoints/sample-cpu-1h/gen-0072.jzm"))
    args = ap.parse_args()
    b = args.bin
    tmp = Path(tempfile.mkdtemp(prefix="jz-hostile-"))
    big = tmp / "big.toml"
    big.write_text("# " + "x" * (2 << 20) + "\n")
    nan_toml = tmp / "nan.toml"
    nan_toml.write_text("[train]\nlr = nan\n")
    garbage_model = tmp / "garbage.jzm"
    garbage_model.write_bytes(b"JZNM\x01\x00" + os.urandom(4096))
    truncated = tmp / "truncated.jzm"
    truncated.write_bytes(Path(args.model).read_bytes()[:5000])
    fifo = tmp / "out.fifo"
    os.mkfifo(fifo)
    link = tmp / "link.json"
    link.symlink_to(tmp / "target.json")
    huge_fen = "7/" * 40000 + " w 0 1"
    third = third_round(b, args.model, tmp)
    fourth = fourth_round(b, args.model, tmp)
    cases = {
        "FEN and moves (search, show)": [
            ["show", "--fen", ""], ["show", "--fen", "7/7/7/7/7/7/7/7/7 w 0 1"], ["show", "--fen", "3R3/7/7/7/7/7/7/7/3r3 w 0 1"],
            ["show", "--fen", huge_fen], ["show", "--fen", "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w 0 99999999999"],
            ["show", "--fen", "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L x"], ["show", "--moves", "a3a4 a4a9"], ["show", "--moves", "zz" * 50000],
            ["search", "--depth", "1000000"], ["search", "--movetime", "99999999999"], ["search", "--nodes", "0"],
            ["show", "--game", "flip", "--fen", "????/????/????/???? 1 - " + "L" * 100000 + " 0 0"],
        ],
        "configs and overrides": [
            ["search", "--depth", "1", "--config", "/dev/zero"], ["search", "--depth", "1", "--config", "/dev/urandom"],
            ["search", "--depth", "1", "--config", str(big)], ["search", "--depth", "1", "--config", str(nan_toml)],
            ["search", "--depth", "1", "--config", str(tmp)], ["search", "--depth", "1", "--set", "train.lr=nan"],
            ["search", "--depth", "1", "--set", "mcts.c_puct=-1"], ["search", "--depth", "1", "--set", "mcts.c_puct=inf"],
            ["search", "--depth", "1", "--set", "selfplay.temperature_end=-inf"], ["search", "--depth", "1", "--set", "train={lr=0.5}"],
            ["search", "--depth", "1", "--set", "search.hash_mb=1048576"], ["search", "--depth", "1", "--set", "model.channels=999999"],
            ["search", "--depth", "1", "--set", "train.iterations=9223372036854775807"], ["search", "--depth", "1", "--set", "gate.alpha=1e300"],
            ["search", "--depth", "1", "--set", "train.seed=18446744073709551615"], ["search", "--depth", "1", "--set", "train.seed=-1"],
            ["search", "--depth", "1", "--set", "nokey"], ["search", "--depth", "1", "--set", "train.lr=0x10"],
        ],
        "player specs (arena)": [
            ["arena", "--a", "random", "--b", s, "--games", "2"] for s in [
                "mcts:model=x.jzm,cpuct=nan", "mcts:model=x.jzm,cpuct=-1", "mcts:model=x.jzm,sims=0", "mcts:model=x.jzm,sims=99999999",
                "alphabeta:depth=1000000", "alphabeta:movetime=99999999999", "alphabeta:depth=2,hash=1048576", "alphabeta:depth=2,threads=100000",
                "alphabeta:tc=0/nan+1", "alphabeta:tc=0/1e300", "expectiminimax:depth=100000", "external:cmd=\"\"", "external:cmd=\"/nonexistent\",depth=1",
                "mcts:model=/dev/zero", "mcts:model=/dev/urandom", f"mcts:model={garbage_model}", f"mcts:model={truncated}", f"mcts:model={tmp}",
                "chess:depth=1", "alphabeta:depth=" + "9" * 100000,
            ]
        ],
        "output paths": [
            ["arena", "--a", "random", "--b", "random", "--games", "2", "--json", str(tmp)],
            # A FIFO is written into (a build that replaced its outputs would destroy it); the
            # link is refused, never written through.
            ["arena", "--a", "random", "--b", "random", "--games", "2", "--json", str(link), "--games-out", str(fifo)],
            ["export", "--model", args.model, "--out", str(tmp / "x.txt")],
        ],
    }
    cases.update(third)
    cases.update(fourth)
    total, failed = 0, 0
    rows_all = {}
    for surface, argvs in cases.items():
        rows = []
        for argv in argvs:
            # ("stdin=PATH", ...): the command reads PATH.
            given = argv[0][len("stdin="):] if argv[0].startswith("stdin=") else None
            argv = argv[1:] if given else argv
            # ("refuse", argv): the command must refuse (exit 0 means it accepted what it must not).
            must_refuse = argv[0] == "refuse"
            argv = argv[1:] if must_refuse else argv
            if str(fifo) in argv:
                # Something must read the FIFO for the writer to finish.
                reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.DEVNULL)
            # `tb probe` probes a position the damaged tables hold.
            probe = str(tmp / "third" / "probe.txt") if argv[:2] == ["tb", "probe"] else given
            code, out, err, secs, peak = run(b, argv, stdin=probe)
            verdict = judge_refusal(code, err)
            if must_refuse and code == 0:
                verdict = "ACCEPTED"
            if str(fifo) in argv:
                reader.kill()
                reader.wait()
                if not fifo.is_fifo() or not link.is_symlink():
                    verdict = "REPLACED the FIFO or the link"
            said = err.decode(errors="replace").strip().splitlines()[-1][:110] if err.strip() else out.decode(errors="replace").strip().split("\n")[0][:110]
            shown = " ".join(a if len(a) < 60 else a[:40] + f"...({len(a)} chars)" for a in argv)
            rows.append((shown, code, round(secs, 2), said, verdict))
            total += 1
            failed += verdict != "ok"
        rows_all[surface] = rows
    # The protocol: one session of hostile lines; the engine must answer each and stay alive.
    proto = [b"position fen " + b"x" * (300 << 20), b"go depth 99999999999", b"go movetime 99999999999999999999", b"go wtime -5 btime -5",
             b"setoption name Hash value 99999999999", b"setoption name Threads value 0", b"position startpos moves " + b"a3a4 " * 100000,
             b"go nodes nan", b"\xff\xfe garbage", b"go depth 30", b"go depth 1", b"isready", b"stop", b"quit"]
    script = tmp / "protocol.txt"
    with open(script, "wb") as f:
        for line in proto:
            f.write(line + b"\n")
    label = "; ".join(l[:30].decode(errors="replace") for l in proto)
    del proto, line
    code, out, err, secs, peak = run(b, ["uci"], stdin=script, timeout=60)
    text = out.decode(errors="replace")
    # `quit` ends the session at once, so the searches queued behind the stopped one never run.
    verdict = "ok" if code == 0 and "readyok" in text and text.count("bestmove") >= 1 and peak < 200 and b"panicked" not in err else f"exit {code}"
    rows_all["protocol session (a 300 MB line, huge numbers, a search, stop, quit)"] = [
        (label, code, round(secs, 2),
         f"{text.count('info string error')} error lines, {text.count('bestmove')} bestmoves, readyok: {'readyok' in text}, peak {peak:.0f} MiB", verdict)]
    total += 1
    failed += verdict != "ok"
    for surface, rows in engine_cases(b, args.model, tmp).items():
        rows_all[surface] = rows
        total += len(rows)
        failed += sum(r[4] != "ok" for r in rows)
    for surface, rows in rows_all.items():
        print(f"\n### {surface}\n\n| input | exit | s | what it said | verdict |\n|---|---|---|---|---|")
        for shown, code, secs, said, verdict in rows:
            print(f"| `{shown.replace('|', '/')}` | {code} | {secs} | {said.replace('|', '/')} | {verdict} |")
    print(f"\n{total} inputs, {failed} failed")
    sys.exit(1 if failed else 0)


def shuffle(plies):
    """Moves that shuffle a Tiger each side from the start (legal for ever with
    repetition=off,no_capture_plies=0)."""
    cycle = ["a1a2", "g9g8", "a2a1", "g8g9"]
    return [cycle[i % 4] for i in range(plies)]


def analysis_session(binary, model, queries, tmp, name, threads=2, timeout=120):
    """Runs `analysis` over `queries` (one per line); each query's answers by id, the exit
    status, the seconds and the peak MiB."""
    path = tmp / f"{name}.jsonl"
    path.write_text("".join(q + "\n" for q in queries))
    code, out, err, secs, peak = run(binary, ["analysis", "--model", model, "--threads", str(threads)], stdin=path, timeout=timeout)
    answers = {}
    for line in out.decode(errors="replace").splitlines():
        try:
            a = json.loads(line)
        except ValueError:
            a = {"id": "NOT JSON", "error": line[:80]}
        answers.setdefault(a.get("id"), []).append(a)
    return code, answers, secs, peak, err


def engine_cases(b, model, tmp):
    """The engines that answer other programs: analysis queries, the protocol's numbers and a
    search stopped at once, the web server's slow bodies, external engines that flood."""
    rows = {}
    # Analysis queries: each must get exactly one error naming its field (or its answers), and
    # the engine must end cleanly with bounded memory.
    bad = {
        "empty-turns": ({"analyzeTurns": []}, "analyzeTurns"),
        "max-moves-0": ({"maxMoves": 0}, "maxMoves"),
        "max-moves-300": ({"maxMoves": 300}, "maxMoves"),
        "visits-1e6": ({"maxVisits": 1000000}, "maxVisits"),
        "visits-0": ({"maxVisits": 0}, "maxVisits"),
        "time-nan": ({"maxTime": "NaN"}, "maxTime"),
        "time-huge": ({"maxTime": 1e300}, "maxTime"),
        "turn-past": ({"moves": ["a3a4"], "analyzeTurns": [2]}, "analyzeTurns"),
        "turns-too-many": ({"moves": ["a3a4"], "analyzeTurns": [0, 1, 0, 1]}, "analyzeTurns"),
        "turn-negative": ({"analyzeTurns": [-1]}, "analyzeTurns"),
        "turn-fraction": ({"moves": ["a3a4"], "analyzeTurns": [0.5]}, "analyzeTurns"),
        "visits-huge": ({"maxVisits": 1e30}, "maxVisits"),
        "moves-10000": ({"moves": shuffle(10000), "rules": "repetition=off,no_capture_plies=0", "maxVisits": 1}, "moves"),
        "moves-illegal-late": ({"moves": shuffle(40) + ["a3a9"], "rules": "repetition=off,no_capture_plies=0"}, "move 41"),
        "rules-bogus": ({"rules": "bogus=1"}, "rules"),
        "fen-huge": ({"initialFen": "7/" * 40000}, "initialFen"),
        "unknown-field": ({"maxVisits": 1, "bogus": 1}, "bogus"),
        "id-number": ({"id": 5}, "bad query"),
    }
    queries = []
    for name, (fields, _) in bad.items():
        q = {"id": name}
        q.update(fields)
        queries.append(json.dumps(q))
    queries += ["not json", "{" * 100000, json.dumps({"id": "fine", "maxVisits": 1})]
    code, answers, secs, peak, err = analysis_session(b, model, queries, tmp, "queries")
    table = []
    for name, (fields, says) in bad.items():
        got = answers.get(name, []) if name != "id-number" else answers.get(5, [])
        ok = code == 0 and len(got) == 1 and says in got[0].get("error", "")
        table.append((f"analysis {name}", code, round(secs, 2), (got[0].get("error", "") if got else "no answer")[:110], "ok" if ok else "WRONG"))
    nulls = answers.get(None, [])
    table.append(("analysis: a line that is not JSON, and 100 000 '{'", code, round(secs, 2), f"{len(nulls)} errors with id null",
                  "ok" if len(nulls) == 2 else "WRONG"))
    table.append(("analysis: a plain query after them", code, round(secs, 2), f"{len(answers.get('fine', []))} answer, peak {peak:.0f} MiB",
                  "ok" if len(answers.get("fine", [])) == 1 and b"panicked" not in err else "WRONG"))
    # Every turn of a 4000-move game, one visit each: answered, once per turn, bounded memory.
    long = {"id": "all", "moves": shuffle(4000), "rules": "repetition=off,no_capture_plies=0", "analyzeTurns": list(range(4001)), "maxVisits": 1, "maxMoves": 1}
    code, answers, secs, peak, err = analysis_session(b, model, [json.dumps(long)], tmp, "long")
    turns = sorted(a.get("turnNumber", -1) for a in answers.get("all", []))
    table.append(("analysis: every turn of a 4000-move game", code, round(secs, 2), f"{len(turns)} answers, peak {peak:.0f} MiB",
                  "ok" if code == 0 and turns == list(range(4001)) and peak < 500 else "WRONG"))
    # A client that sends without end: memory must stay bounded while the engine searches.
    start = time.monotonic()
    yes = subprocess.Popen(["yes", json.dumps({"id": "x", "maxVisits": 100000})], stdout=subprocess.PIPE)
    eng = subprocess.Popen([b, "analysis", "--model", model], stdin=yes.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit)
    yes.stdout.close()
    peak = 0
    for _ in range(15):
        time.sleep(1)
        status = Path(f"/proc/{eng.pid}/status").read_text() if eng.poll() is None else ""
        peak = max([peak] + [int(l.split()[1]) // 1024 for l in status.splitlines() if l.startswith("VmHWM:")])
    alive = eng.poll() is None
    eng.kill()
    yes.kill()
    eng.wait()
    yes.wait()
    table.append(("`yes '{\"id\":\"x\",\"maxVisits\":100000}' / analysis` for 15 s", "killed" if alive else eng.returncode, round(time.monotonic() - start, 2),
                  f"peak {peak} MiB, still running: {alive}", "ok" if alive and peak < 1024 else "WRONG"))
    rows["analysis queries (errors by field, long games, a client that sends without end)"] = table

    # The protocol: numbers out of range refused by token; an MCTS search stopped at once names a
    # move. No `quit`: the end of the input lets every queued command run.
    lines = ["go movetime -5", "go movetime 0", "go nodes 0", "go nodes -1", "go winc -5", "go binc -1", "go depth -1", "go depth 0", "go movestogo -3",
             "go wtime 99999999999999999999 btime 1 depth 1", "go wtime -5 btime -5 depth 1", "go nodes 99999999999999999999999999999999999999999 depth 1"]
    session = tmp / "protocol-numbers.txt"
    stopped = 8
    session.write_text("".join(l + "\nisready\n" for l in lines) + f"setoption name Engine value mcts\nsetoption name Model value {model}\n"
                       + "position startpos\ngo infinite\nstop\n" * stopped + "isready\n")
    code, out, err, secs, peak = run(b, ["uci"], stdin=session, timeout=60)
    text = out.decode(errors="replace").splitlines()
    errors = [l for l in text if l.startswith("info string error")]
    best = [l for l in text if l.startswith("bestmove")]
    table = []
    for i, l in enumerate(lines):
        refused = any(f"'{l}'" in e or (" ".join(l.split()[:3]) in e) for e in errors)
        should = i < 9
        table.append((l, code, round(secs, 2), "refused" if refused else "searched", "ok" if refused == should else "WRONG"))
    table.append((f"{stopped} x go infinite, stop (MCTS)", code, round(secs, 2), f"{sum(b == 'bestmove (none)' for b in best)} bestmove (none) of {len(best)}",
                  "ok" if code == 0 and len(best) == stopped + 3 and "bestmove (none)" not in best else "WRONG"))
    rows["protocol numbers and a search stopped at once"] = table

    # The web server: 256 connections sending a body a byte a second; past the body deadline
    # (60 s) every one is cut off with 408 and a new client is served.
    table = []
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    srv = subprocess.Popen([b, "serve", "--host", "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        start = time.monotonic()
        slow = []
        for _ in range(256):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /api/position HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
            s.setblocking(False)
            slow.append(s)
        answers = {}
        while time.monotonic() - start < 75 and len(answers) < len(slow):
            for i, s in enumerate(slow):
                if i in answers:
                    continue
                try:
                    s.send(b" ")
                except OSError:
                    pass
                try:
                    data = s.recv(4096)
                    answers[i] = data.split(b" ")[1].decode() if data else "closed"
                except BlockingIOError:
                    pass
                except OSError:
                    answers[i] = "reset"
            time.sleep(1)
        cut = time.monotonic() - start
        for s in slow:
            s.close()
        codes = sorted(set(answers.values()))
        table.append(("256 POST bodies, a byte a second", len(answers), round(cut, 2), f"cut: {len(answers)} of 256, answers {codes}",
                      "ok" if len(answers) == 256 and codes == ["408"] else "WRONG"))
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /api/info HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            first = s.recv(4096).split(b"\r\n")[0].decode()
        table.append(("a new client after them", 0, 0, first, "ok" if " 200 " in first else "WRONG"))
    finally:
        srv.kill()
        srv.wait()
    rows["web server (slow bodies)"] = table

    # External engines that flood their output: one line saying why, no process left behind.
    table = []
    flood = tmp / "flood.sh"
    for name, spec, says in [
        ("yes as the engine", 'external:cmd="yes jzflood",movetime=50', "uciok"),
        ("endless line after go", f'external:cmd="sh {flood} nl",tc=40/1+0', "64 KiB"),
        ("endless nonsense lines after go", f'external:cmd="sh {flood} lines",tc=40/1+0', "no answer in time"),
    ]:
        flood.write_text('while read line; do case "$line" in uci) echo uciok;; isready) echo readyok;;\n'
                         'go*) if [ "$1" = nl ]; then yes jzflood | tr -d "\\n" & else yes jzflood & fi;; esac; done\n')
        code, out, err, secs, peak = run(b, ["arena", "--a", "random", "--b", spec, "--games", "2"], timeout=60)
        time.sleep(0.3)
        left = subprocess.run(["pgrep", "-f", "yes jzflood"], capture_output=True, text=True).stdout.split()
        said = err.decode(errors="replace").strip().splitlines()
        # Refused at the handshake (exit 2, one line), or games lost (by forfeit or on time) with
        # one warning a game; never a hang, a panic or memory that grows.
        ok = code in (0, 2) and any(says in l for l in said) and all(len(l) < 300 for l in said) and b"panicked" not in err and peak < 500 and not left
        ok = ok and (code == 0 or said[-1].startswith("error:"))
        table.append((name, code, round(secs, 2), (said[-1] if said else "")[:110] + f" (peak {peak:.0f} MiB, {len(left)} left)", "ok" if ok else "WRONG"))
    rows["external engines that flood"] = table
    return rows


if __name__ == "__main__":
    main()
