#!/usr/bin/env python3
"""Check a junglezero export with numpy alone.

    python3 scripts/verify_export.py FILE.safetensors

Loads FILE.safetensors (weights), FILE.json (the architecture) and FILE.samples.npz (input
planes of sample positions with junglezero's outputs), runs the network's forward pass in
numpy, and exits with status 0 only if the policy logits, win/draw/loss probabilities and values
all match junglezero's within 1e-4. Needs `pip install numpy safetensors`.
"""

import json
import sys

import numpy as np
from safetensors.numpy import load_file

TOLERANCE = 1e-4


def conv(x, w, b=None):
    """Same-padded 2-D convolution. x: [n, c, h, w]; w: [out, in, k, k] (PyTorch layout)."""
    k = w.shape[2]
    p = k // 2
    n, _, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    out = np.zeros((n, w.shape[0], h, wd), dtype=np.float64)
    for dy in range(k):
        for dx in range(k):
            out += np.einsum("nchw,oc->nohw", xp[:, :, dy:dy + h, dx:dx + wd], w[:, :, dy, dx])
    if b is not None:
        out += b[None, :, None, None]
    return out


def batch_norm(x, t, name, eps):
    scale = t[name + ".weight"] / np.sqrt(t[name + ".running_var"] + eps)
    shift = t[name + ".bias"] - t[name + ".running_mean"] * scale
    return x * scale[None, :, None, None] + shift[None, :, None, None]


def relu(x):
    return np.maximum(x, 0.0)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def forward(t, meta, x):
    eps = meta["model"]["batch_norm_epsilon"]
    t = {k: v.astype(np.float64) for k, v in t.items()}
    h = relu(batch_norm(conv(x, t["stem_conv.weight"]), t, "stem_bn", eps))
    for i in range(meta["model"]["blocks"]):
        b = f"blocks.{i}"
        y = relu(batch_norm(conv(h, t[b + ".conv1.weight"]), t, b + ".bn1", eps))
        y = batch_norm(conv(y, t[b + ".conv2.weight"]), t, b + ".bn2", eps)
        h = relu(y + h)
    n = x.shape[0]
    p = relu(batch_norm(conv(h, t["policy_conv.weight"]), t, "policy_bn", eps))
    p = conv(p, t["policy_out.weight"], t["policy_out.bias"]).reshape(n, -1)
    v = relu(batch_norm(conv(h, t["value_conv.weight"]), t, "value_bn", eps)).reshape(n, -1)
    v = relu(v @ t["value_fc1.weight"].T + t["value_fc1.bias"])
    v = v @ t["value_fc2.weight"].T + t["value_fc2.bias"]
    m = None
    if meta["model"].get("moves_left"):
        m = relu(batch_norm(conv(h, t["moves_left.conv.weight"]), t, "moves_left.bn", eps)).reshape(n, -1)
        m = relu(m @ t["moves_left.fc1.weight"].T + t["moves_left.fc1.bias"])
        m = relu(m @ t["moves_left.fc2.weight"].T + t["moves_left.fc2.bias"]).reshape(n)
    return p, softmax(v), m


def main(argv):
    if len(argv) != 2 or not argv[1].endswith(".safetensors"):
        print("usage: verify_export.py FILE.safetensors", file=sys.stderr)
        return 2
    base = argv[1][: -len(".safetensors")]
    try:
        weights = load_file(argv[1])
        with open(base + ".json") as f:
            meta = json.load(f)
        samples = np.load(base + ".samples.npz")
    except (OSError, ValueError, KeyError) as e:
        print(f"cannot read the export: {e}", file=sys.stderr)
        return 2
    if meta.get("format") != "junglezero-export" or meta.get("format_version") != 1:
        print(f"unsupported export format {meta.get('format')} {meta.get('format_version')}", file=sys.stderr)
        return 2
    x = samples["inputs"].astype(np.float64)
    policy, wdl, moves_left = forward(weights, meta, x)
    value = wdl[:, 0] - wdl[:, 2]
    diffs = {
        "policy_logits": float(np.abs(policy - samples["policy_logits"]).max()),
        "wdl": float(np.abs(wdl - samples["wdl"]).max()),
        "value": float(np.abs(value - samples["value"]).max()),
    }
    if moves_left is not None:
        diffs["moves_left"] = float(np.abs(moves_left - samples["moves_left"]).max())
    worst = max(diffs.values())
    print(f"{x.shape[0]} positions, {len(weights)} tensors; max abs diff: "
          + ", ".join(f"{k} {v:.2e}" for k, v in diffs.items()))
    if not np.isfinite(worst) or worst > TOLERANCE:
        print(f"FAIL: outputs differ by {worst:.2e} (tolerance {TOLERANCE})", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
