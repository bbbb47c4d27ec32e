#!/usr/bin/env python3
"""Check a junglezero ONNX export with ONNX Runtime.

    python3 scripts/verify_onnx.py FILE.onnx

Checks FILE.onnx with the onnx package's model checker, runs it with ONNX Runtime on the input
planes of FILE.samples.npz (sample positions with junglezero's outputs, written beside it by
`junglezero export --format onnx`), and exits with status 0 only if the policy logits, the
win/draw/loss probabilities and (for networks with the head) the moves left all match
junglezero's within 1e-4, at batch 1 and at the whole batch. Needs
`pip install numpy onnx onnxruntime`.
"""

import sys

import numpy as np
import onnx
import onnxruntime as ort

TOLERANCE = 1e-4


def main():
    if len(sys.argv) != 2 or not sys.argv[1].endswith(".onnx"):
        sys.exit("usage: verify_onnx.py FILE.onnx")
    path = sys.argv[1]
    samples = np.load(path[: -len(".onnx")] + ".samples.npz")
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    expected = {"policy_logits": samples["policy_logits"], "wdl": samples["wdl"]}
    if "moves_left" in samples:
        expected["moves_left"] = samples["moves_left"].reshape(-1, 1)
    if sorted(names) != sorted(expected):
        sys.exit(f"outputs {names}, expected {sorted(expected)}")
    x = samples["inputs"].astype(np.float32)
    worst = 0.0
    for batch in (x[:1], x):
        got = dict(zip(names, session.run(names, {"input": batch})))
        for name, want in expected.items():
            diff = float(np.max(np.abs(got[name] - want[: len(batch)])))
            worst = max(worst, diff)
            print(f"batch {len(batch):2}: {name} max |difference| {diff:.2e}")
    if worst > TOLERANCE:
        sys.exit(f"FAILED: the ONNX model differs from junglezero by {worst:.2e} (tolerance {TOLERANCE})")
    print(f"ok: {path} (opset {model.opset_import[0].version}) computes what junglezero computes")


if __name__ == "__main__":
    main()
