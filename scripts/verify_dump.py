#!/usr/bin/env python3
"""Checks a `junglezero dump` file: python3 scripts/verify_dump.py data.npz

Reads data.npz and its sidecar data.json with numpy alone and checks that the arrays have the
shapes the sidecar gives, that every policy target is a distribution over legal actions, that
the value targets agree with each other, and that the piece planes of a sample of positions
are what the positions' text (FEN, or the flip game's position string) says, decoded here
independently of the Rust encoder. Exits 1 with a message on the first failure.
"""

import json
import sys

import numpy as np

KINDS = "RCDWPTLE"  # Rat, Cat, Dog, Wolf, Leopard, Tiger, Lion, Elephant: plane order


def fail(msg):
    print(f"verify_dump: {msg}", file=sys.stderr)
    sys.exit(1)


def rule(rules, key, default):
    """A rule switch from the sidecar's rules text (`default` or `key=value,...`)."""
    for part in rules.split(","):
        k, _, v = part.strip().partition("=")
        if k == key:
            return v
    return default


def squares(board, ranks):
    """(rank, file, letter) for each occupied square of a board written top rank first."""
    for i, row in enumerate(board.split("/")):
        rank, file = ranks - 1 - i, 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            yield rank, file, ch
            file += 1


def jungle_pieces(text):
    """Piece planes 0-15 (9 x 7, the mover's view) and the no-capture counter from a FEN."""
    fields = text.split()
    board, side = fields[0], fields[1]
    halfmove = int(fields[-2]) if len(fields) >= 4 else 0
    red = side in ("w", "r")
    planes = np.zeros((16, 9, 7), dtype=np.float32)
    for rank, file, ch in squares(board, 9):
        square = rank * 7 + file
        view = square if red else 62 - square
        own = ch.isupper() == red
        planes[(0 if own else 8) + KINDS.index(ch.upper()), view // 7, view % 7] = 1.0
    return planes, halfmove


def flip_planes(text):
    """Piece planes 0-15 and the face-down plane 16 (4 x 4, not turned) from a position string."""
    board, mover, colour = text.split()[:3]
    first_red = colour != "b"
    mine_red = first_red if mover == "1" else not first_red
    if colour == "-":
        mine_red = True
    planes = np.zeros((17, 4, 4), dtype=np.float32)
    for rank, file, ch in squares(board, 4):
        if ch == "?":
            planes[16, rank, file] = 1.0
        else:
            own = ch.isupper() == mine_red
            planes[(0 if own else 8) + KINDS.index(ch.upper()), rank, file] = 1.0
    return planes


def main():
    if len(sys.argv) != 2:
        fail("usage: verify_dump.py DATA.npz")
    path = sys.argv[1]
    side = path[: -len(".npz")] + ".json" if path.endswith(".npz") else path + ".json"
    with open(side) as f:
        meta = json.load(f)
    if meta.get("format") != "junglezero-dump" or meta.get("version") != 1:
        fail(f"{side} is not a version-1 junglezero dump sidecar")
    data = np.load(path)
    n, actions = meta["positions"], meta["actions"]
    for a in meta["arrays"]:
        arr = data[a["name"]]
        if list(arr.shape) != a["shape"] or arr.dtype != np.dtype(a["dtype"]):
            fail(f"array {a['name']}: {arr.dtype}{list(arr.shape)}, sidecar says {a['dtype']}{a['shape']}")
    inputs, policy, legal = data["inputs"], data["policy"], data["legal"]
    if list(inputs.shape) != [n] + meta["input_shape"] or len(meta["planes"]) != meta["input_shape"][0]:
        fail(f"inputs {inputs.shape} do not match input_shape {meta['input_shape']} and {len(meta['planes'])} plane names")
    if policy.shape != (n, actions) or len(meta["position_text"]) != n:
        fail("policy or position_text does not have one row per position")
    sums = policy.sum(axis=1)
    if np.abs(sums - 1.0).max() > 1e-4:
        fail(f"policy targets must sum to 1; position {int(np.abs(sums - 1).argmax())} sums to {sums[np.abs(sums - 1).argmax()]}")
    off = (policy * (legal == 0)).sum(axis=1)
    if off.max() > 1e-6:
        fail(f"position {int(off.argmax())} puts {off.max()} of its policy target on illegal actions")
    wdl = data["wdl"]
    if not np.allclose(wdl.sum(axis=1), 1.0) or not np.array_equal(1 - wdl.argmax(axis=1), data["result"]):
        fail("wdl is not one-hot or disagrees with result")
    q = data["q"]
    if np.abs(q).max() > 1.0 or data["ply"].min() < 0 or data["moves_left"].min() < 0:
        fail("q outside [-1, 1] or a negative ply count")
    # The positions' text against the planes, for up to 200 positions spread over the dump.
    checked = 0
    for i in np.unique(np.linspace(0, n - 1, num=min(n, 200)).astype(int)):
        text = meta["position_text"][i]
        if meta["game"] == "jungle":
            pieces, halfmove = jungle_pieces(text)
            if not np.array_equal(inputs[i, :16], pieces):
                fail(f"position {i} ({text}): piece planes differ from its FEN")
            limit = int(rule(meta["rules"], "no_capture_plies", "200"))
            want = min(halfmove / limit, 1.0) if limit > 0 else 0.0
            if not np.allclose(inputs[i, 22], want, atol=1e-6):
                fail(f"position {i} ({text}): no-capture plane {inputs[i, 22, 0, 0]} != {want}")
        elif meta["game"] == "flip":
            if not np.array_equal(inputs[i, :17], flip_planes(text)):
                fail(f"position {i} ({text}): piece or face-down planes differ from its position string")
        else:
            fail(f"unknown game {meta['game']!r}")
        checked += 1
    print(f"verify_dump: {path}: {n} {meta['game']} positions from {len(meta['shards'])} shards ok; {checked} checked against their text")


if __name__ == "__main__":
    main()
