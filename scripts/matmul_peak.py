#!/usr/bin/env python3
"""This machine's single-precision matrix-product rate, the yardstick for `junglezero bench nn`.

Times NumPy's float32 matrix product (OpenBLAS, the kernel set it picks for this CPU) on square
matrices with a fixed number of threads, and prints GFLOP/s for each size and the best:

    python3 -m pip install numpy threadpoolctl
    python3 scripts/matmul_peak.py --threads 2

The last line is `peak GFLOP/s X (threads T, kernels K)`. `bench nn`'s GFLOP/s divided by it is
the share of the machine's matrix-product rate the network reaches.
"""

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits


def rate(n: int, seconds: float) -> float:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    a @ b  # warm-up
    runs, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        a @ b
        runs += 1
    return 2.0 * n**3 * runs / (time.perf_counter() - start) / 1e9


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=2.0, help="per size")
    p.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048])
    args = p.parse_args()
    with threadpool_limits(limits=args.threads, user_api="blas"):
        blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
        kernels = ", ".join(f"{i.get('internal_api')} {i.get('architecture', '?')}" for i in blas) or "unknown"
        best = 0.0
        for n in args.sizes:
            r = rate(n, args.seconds)
            best = max(best, r)
            print(f"n {n:5} GFLOP/s {r:8.1f}", flush=True)
    print(f"peak GFLOP/s {best:.1f} (threads {args.threads}, kernels {kernels})")


if __name__ == "__main__":
    main()
