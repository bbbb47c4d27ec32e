#!/usr/bin/env python3
"""A reference for `junglezero bench train`: the same network trained by JAX (XLA on the CPU).

The default network of configs/default.toml (4 residual blocks of 32 channels, the policy and
value heads), on Jungle's input (32 planes of 9 x 7), batch 256, in single precision: stem and
tower 3x3 convolutions with batch norm (batch statistics) and ReLU, residual adds, the policy
head (1x1 conv to 16 channels, batch norm, ReLU, 1x1 conv to 4 planes with bias), the value
head (1x1 conv to 4 channels, batch norm, ReLU, 252 -> 64 -> 3), policy and WDL cross-entropy,
SGD with Nesterov momentum 0.9 and L2 weight decay 1e-4. One jitted step updates weights and
optimiser state; the batch is random but fixed (a step's arithmetic does not depend on the
values). A reference only: it measures what a general-purpose compiler makes of the same step.

    python3 -m pip install "jax[cpu]"
    python3 scripts/train_anchor.py --threads 2 --steps 20 [--blocks 10 --channels 128 \
        --policy-channels 32 --value-channels 8 --value-hidden 128]

The last line is `anchor jax net BxC batch N: X samples/s (S s/step)`.
"""

import argparse
import os
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--policy-channels", type=int, default=16)
    ap.add_argument("--value-channels", type=int, default=4)
    ap.add_argument("--value-hidden", type=int, default=64)
    args = ap.parse_args()
    # XLA uses the cores this process may run on: limit them with the affinity (taskset -c).
    if args.threads < (os.cpu_count() or 1) and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.threads]))
    import jax
    import jax.numpy as jnp

    planes, rows, cols, policy_planes = 32, 9, 7, 4
    sq = rows * cols
    c, b = args.channels, args.batch

    def conv_init(key, k, cin, cout):
        return jax.random.normal(key, (k, k, cin, cout), jnp.float32) * (2.0 / (k * k * cin)) ** 0.5

    def bn_init(n):
        return {"g": jnp.ones((n,), jnp.float32), "b": jnp.zeros((n,), jnp.float32)}

    keys = iter(jax.random.split(jax.random.PRNGKey(1), 64))
    params = {
        "stem": conv_init(next(keys), 3, planes, c),
        "stem_bn": bn_init(c),
        "blocks": [
            {"c1": conv_init(next(keys), 3, c, c), "b1": bn_init(c), "c2": conv_init(next(keys), 3, c, c), "b2": bn_init(c)}
            for _ in range(args.blocks)
        ],
        "p_conv": conv_init(next(keys), 1, c, args.policy_channels),
        "p_bn": bn_init(args.policy_channels),
        "p_out": conv_init(next(keys), 1, args.policy_channels, policy_planes),
        "p_out_b": jnp.zeros((policy_planes,), jnp.float32),
        "v_conv": conv_init(next(keys), 1, c, args.value_channels),
        "v_bn": bn_init(args.value_channels),
        "v_fc1": jax.random.normal(next(keys), (args.value_channels * sq, args.value_hidden), jnp.float32) * 0.05,
        "v_fc1_b": jnp.zeros((args.value_hidden,), jnp.float32),
        "v_fc2": jax.random.normal(next(keys), (args.value_hidden, 3), jnp.float32) * 0.05,
        "v_fc2_b": jnp.zeros((3,), jnp.float32),
    }

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def bn(x, p):
        mean = x.mean(axis=(0, 1, 2))
        var = x.var(axis=(0, 1, 2))
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * p["g"] + p["b"]

    def forward(p, x):
        h = jax.nn.relu(bn(conv(x, p["stem"]), p["stem_bn"]))
        for blk in p["blocks"]:
            y = jax.nn.relu(bn(conv(h, blk["c1"]), blk["b1"]))
            h = jax.nn.relu(bn(conv(y, blk["c2"]), blk["b2"]) + h)
        pol = jax.nn.relu(bn(conv(h, p["p_conv"]), p["p_bn"]))
        logits = (conv(pol, p["p_out"]) + p["p_out_b"]).reshape(x.shape[0], -1)
        v = jax.nn.relu(bn(conv(h, p["v_conv"]), p["v_bn"])).reshape(x.shape[0], -1)
        v = jax.nn.relu(v @ p["v_fc1"] + p["v_fc1_b"])
        return logits, v @ p["v_fc2"] + p["v_fc2_b"]

    def loss(p, x, pi, z):
        logits, wdl = forward(p, x)
        policy = -(pi * jax.nn.log_softmax(logits)).sum(axis=1).mean()
        value = -(z * jax.nn.log_softmax(wdl)).sum(axis=1).mean()
        return policy + value

    lr, momentum, decay = 0.02, 0.9, 1e-4

    @jax.jit
    def step(p, m, x, pi, z):
        g = jax.grad(loss)(p, x, pi, z)
        g = jax.tree_util.tree_map(lambda gi, pi_: gi + decay * pi_, g, p)
        m = jax.tree_util.tree_map(lambda mi, gi: momentum * mi + gi, m, g)
        p = jax.tree_util.tree_map(lambda pi_, mi, gi: pi_ - lr * (gi + momentum * mi), p, m, g)
        return p, m

    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(2), 3)
    x = (jax.random.uniform(k1, (b, rows, cols, planes)) < 0.1).astype(jnp.float32)
    pi = jax.nn.softmax(jax.random.normal(k2, (b, policy_planes * sq)))
    z = jax.nn.one_hot(jax.random.randint(k3, (b,), 0, 3), 3)
    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    for _ in range(2):  # compile and warm up
        params, m = step(params, m, x, pi, z)
    jax.block_until_ready(params)
    start = time.perf_counter()
    for _ in range(args.steps):
        params, m = step(params, m, x, pi, z)
    jax.block_until_ready(params)
    per_step = (time.perf_counter() - start) / args.steps
    print(f"jax {jax.__version__} devices {jax.devices()} threads {args.threads}")
    print(f"anchor jax net {args.blocks}x{c} batch {b}: {b / per_step:.0f} samples/s ({per_step:.3f} s/step)")


if __name__ == "__main__":
    main()
