"""Speed through Python against the native code, measured in one run:

    python -m junglezero.bench [--games N] [--batch B] [--model FILE --sims S] [--binary PATH]

Random playouts: the native loop (``Batch.random_playouts``: whole games inside the native
code), the batched Python path with native random moves (``step_random`` a call a ply for the
whole batch), with moves drawn natively from a weights array Python passes each ply
(``step_policy``: what training code does with a network's policy), and with numpy choosing
the moves from ``legal_masks``. With ``--model``: MCTS simulations per second through
``Mcts.search`` over the positions ``junglezero bench player`` searches, one thread and
minibatch 1 (compare ``junglezero bench player --model FILE --sims S --combos 1x1``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from . import Batch, Game, Mcts, Network
from ._native import bench_fens


def _native(game: Game, batch: int, games: int) -> tuple:
    b = Batch(game, batch, seed=1)
    t = time.perf_counter()
    done, plies = b.random_playouts(games)
    return done, plies, time.perf_counter() - t


def _step_random(game: Game, batch: int, games: int) -> tuple:
    b = Batch(game, batch, seed=1)
    t = time.perf_counter()
    done = 0
    while done < games:
        b.step_random()
        done += b.reset_finished()
    return done, b.counters()[0], time.perf_counter() - t


def _numpy_policy(game: Game, batch: int, games: int) -> tuple:
    b = Batch(game, batch, seed=1)
    rng = np.random.default_rng(1)
    t = time.perf_counter()
    done = 0
    while done < games:
        masks = b.legal_masks()
        # A uniform choice among each game's legal actions: the largest random key where legal.
        keys = np.where(masks, rng.random(masks.shape, dtype=np.float32), -1.0)
        actions = keys.argmax(axis=1)
        actions[~masks.any(axis=1)] = -1
        b.step(actions)
        done += b.reset_finished()
    return done, b.counters()[0], time.perf_counter() - t


def _policy(game: Game, batch: int, games: int) -> tuple:
    b = Batch(game, batch, seed=1)
    uniform = np.ones((batch, game.num_actions), dtype=np.float32)
    t = time.perf_counter()
    done = 0
    while done < games:
        b.step_policy(uniform)
        done += b.reset_finished()
    return done, b.counters()[0], time.perf_counter() - t


def playouts(games: int, batch: int, rounds: int = 3) -> None:
    print(f"random playouts: {games} games a path, batches of {batch}, best of {rounds} rounds (paths alternated)")
    print("game    path                              plies/s  share of native")
    paths = (
        ("native loop", _native),
        ("python: step_random", _step_random),
        ("python: step_policy(weights)", _policy),
        ("python: numpy over legal_masks", _numpy_policy),
    )
    for name in ("jungle", "flip"):
        game = Game(name)
        _native(game, batch, games // 4)  # warm-up: the allocator, the caches
        best = {}
        for r in range(rounds):
            order = paths if r % 2 == 0 else paths[::-1]
            for label, fn in order:
                done, plies, secs = fn(game, batch, games)
                best[label] = max(best.get(label, 0.0), plies / secs)
        native = best["native loop"]
        for label, _ in paths:
            print(f"{name:7} {label:32} {best[label]:10.0f}  {best[label] / native:6.2f}")


def mcts(model: str, sims: int) -> None:
    net = Network(model)
    search = Mcts(net, sims=sims, set=["mcts.play_threads=1", "mcts.play_minibatch=1"])
    game = Game(net.game)
    total, secs = 0, 0.0
    for fen in bench_fens():
        state = game.from_fen(fen)
        t = time.perf_counter()
        found = search.search(state)
        secs += time.perf_counter() - t
        total += found["simulations"]
    print(f"mcts through python: {len(bench_fens())} positions, {sims} sims each, 1 thread, minibatch 1: {total / secs:.0f} sims/s")


def perft(binary: str) -> None:
    import re
    import subprocess

    for name, depth in (("jungle", 5), ("flip", 4)):
        out = subprocess.run([binary, "perft", str(depth), "--game", name], capture_output=True, text=True, check=True).stdout
        nps = re.search(r"nps (\d+)", out).group(1)
        print(f"binary perft {depth} ({name}): {nps} leaves/s")


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m junglezero.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2000, help="random games a path (default 2000)")
    p.add_argument("--batch", type=int, default=256, help="games stepped together (default 256)")
    p.add_argument("--model", help="a Jungle network (.jzm) for the MCTS figure")
    p.add_argument("--sims", type=int, default=2000, help="simulations a position (default 2000)")
    p.add_argument("--binary", help="the junglezero binary, for its perft speed beside the playouts")
    a = p.parse_args()
    playouts(a.games, a.batch)
    if a.binary:
        perft(a.binary)
    if a.model:
        mcts(a.model, a.sims)


if __name__ == "__main__":
    main()
