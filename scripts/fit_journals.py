#!/usr/bin/env python3
"""Bradley-Terry ratings over the games of several tournament journals at once.

    python3 scripts/fit_journals.py DIR/games.jsonl OTHER/games.jsonl ...

Players are matched by name across the journals (`tournament`, `bench levels` and `book` write
them); the model is the tournaments' own (src/arena/bt.rs: one virtual draw added to every
pairing), fitted by minorisation-maximisation and anchored at alpha-beta depth 1 = 0. Used to
place the strength levels of src/alphabeta/level.rs on the scale (BENCHMARKS.md, "Play at a
chosen strength"). Standard library only.
"""
import collections
import json
import math
import sys


def main(paths):
    names, index = [], {}
    points = collections.defaultdict(float)
    games = collections.defaultdict(int)
    for path in paths:
        with open(path) as f:
            lines = f.read().splitlines()
        plan = json.loads(lines[0])["plan"]
        ids = []
        for name in plan["players"]:
            if name not in index:
                index[name] = len(names)
                names.append(name)
            ids.append(index[name])
        for line in lines[1:]:
            g = json.loads(line)
            a, b = ids[g["a"]], ids[g["b"]]
            points[(a, b)] += g["a_points"]
            points[(b, a)] += 1 - g["a_points"]
            games[(a, b)] += 1
            games[(b, a)] += 1
    n = len(names)
    anchor = index.get("alphabeta:depth=1")
    if anchor is None:
        sys.exit("no alphabeta:depth=1 in these journals: nothing to anchor the scale at")
    opponents = [[j for j in range(n) if games[(i, j)] > 0] for i in range(n)]
    wins = [sum(points[(i, j)] + 0.5 for j in opponents[i]) for i in range(n)]
    strength = [1.0] * n
    for _ in range(5000):
        strength = [
            wins[i] / sum((games[(i, j)] + 1) / (strength[i] + strength[j]) for j in opponents[i]) if opponents[i] else strength[i]
            for i in range(n)
        ]
    elo = [400 * math.log10(strength[i] / strength[anchor]) for i in range(n)]
    for i in sorted(range(n), key=lambda i: -elo[i]):
        played = sum(games[(i, j)] for j in range(n))
        score = sum(points[(i, j)] for j in range(n)) / max(played, 1)
        print(f"{names[i]:36s} {elo[i]:+7.0f}  games {played:5d}  score {score:.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
