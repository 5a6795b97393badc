"""A scan-based RNN's gradient (issue 32): fgrad eager and compiled against torch (eager, a
Python loop) and jax.jit of lax.scan, float64, one thread each.

    python -m benchmarks.scan_rnn [--rounds 30] [--steps 200] [--hidden 128] [--batch 32]

h_{t+1} = tanh(h_t W + x_t U + b), h_0 = 0, over T steps of inputs x_t (batch x 32); the loss
the sum of squares of every h_t; its gradient in (W, U, b). fgrad and JAX write the loop as
lax.scan, torch as a Python loop. Each round calls every implementation once, in turn; the
ratios are medians of same-round ratios. Every gradient is checked against jax.jit's.
"""
import argparse
import time

from .env import pin_threads

__all__ = ["main"]

INPUT = 32


def _fgrad_grad(fgrad):
    fnp, lax = fgrad.numpy, fgrad.lax

    def loss(W, U, b, xs):
        def step(h, x):
            h = fnp.tanh(h @ W + x @ U + b)
            return h, h
        _, hs = lax.scan(step, fnp.zeros((xs.shape[1], W.shape[0])), xs)
        return fnp.sum(hs ** 2)
    return fgrad.grad(loss, argnums=(0, 1, 2))


def _jax_grad(jax):
    jnp = jax.numpy

    def loss(W, U, b, xs):
        def step(h, x):
            h = jnp.tanh(h @ W + x @ U + b)
            return h, h
        _, hs = jax.lax.scan(step, jnp.zeros((xs.shape[1], W.shape[0])), xs)
        return jnp.sum(hs ** 2)
    return jax.jit(jax.grad(loss, argnums=(0, 1, 2)))


def _torch_grad(torch):
    def grad(W, U, b, xs):
        W, U, b = (torch.tensor(a, requires_grad=True) for a in (W, U, b))
        xs = torch.from_numpy(xs)
        h, total = torch.zeros(xs.shape[1], W.shape[0], dtype=torch.float64), 0.0
        for x in xs:
            h = torch.tanh(h @ W + x @ U + b)
            total = total + (h ** 2).sum()
        total.backward()
        return W.grad.numpy(), U.grad.numpy(), b.grad.numpy()
    return grad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    opts = parser.parse_args(argv)
    pin_threads()
    import jax
    import numpy as np
    import torch

    import fgrad

    rng = np.random.default_rng(0)
    n = opts.hidden
    W, U = rng.normal(size=(n, n)) / np.sqrt(n), rng.normal(size=(INPUT, n)) / np.sqrt(INPUT)
    b, xs = 0.1 * rng.normal(size=n), rng.normal(size=(opts.steps, opts.batch, INPUT))
    eager, jitted, torch_grad = _fgrad_grad(fgrad), _jax_grad(jax), _torch_grad(torch)
    compiled = fgrad.compile(eager)
    calls = {"jax.jit": lambda: [np.asarray(g) for g in jax.block_until_ready(jitted(W, U, b, xs))],
             "torch": lambda: torch_grad(W, U, b, xs),
             "fgrad": lambda: [np.asarray(g) for g in eager(W, U, b, xs)],
             "fgrad.compile": lambda: [np.asarray(g) for g in compiled(W, U, b, xs)]}
    first, got = {}, {}
    for k, call in calls.items():
        start = time.perf_counter()
        got[k] = call()
        first[k] = time.perf_counter() - start
    for k in calls:
        for a, want in zip(got[k], got["jax.jit"]):
            np.testing.assert_allclose(a, want, rtol=1e-9, atol=1e-9, err_msg=k)
    times = {k: [] for k in calls}
    names = list(calls)
    for r in range(opts.rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            start = time.perf_counter()
            calls[k]()
            times[k].append(time.perf_counter() - start)
    t = {k: np.asarray(v) for k, v in times.items()}
    print(f"scan RNN grad: T={opts.steps}, hidden {n}, batch {opts.batch}, input {INPUT}, float64; "
          f"{opts.rounds} rounds")
    print(f"{'impl':<15}{'best ms':>10}{'median ms':>11}{'x torch':>9}{'x jit':>8}{'first call s':>14}")
    for k, v in t.items():
        print(f"{k:<15}{1e3 * v.min():>10.3f}{1e3 * np.median(v):>11.3f}{np.median(v / t['torch']):>9.2f}"
              f"{np.median(v / t['jax.jit']):>8.2f}{first[k]:>14.3f}")
    print(f"fgrad.compile: {compiled.cache_info().traces} trace(s)")


if __name__ == "__main__":
    main()
