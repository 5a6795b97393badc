"""The engine's threads, measured (issue 20): `python -m benchmarks.threads`.

1. Two independent heavy branches (two chains of 1024x1024 matmuls): the backward pass's
   wall time with set_num_threads(2) against 1, BLAS pinned to one thread (threadpoolctl),
   so any speed-up is the engine's branches running at once. On the Tensor face
   (`.backward()`), and by `fgrad.grad` (whose tape turns into a graph at its first heavy
   node, Note [a tape turns into a graph]; there the time is the whole call).
2. A chain of 1,000 small ops (x of shape (16,)): the backward pass's time per op with
   threads on (the default) against off; small graphs must stay on the calling thread.

Timings are the best of several rounds, 1 and 2 threads interleaved in each round.
"""
import time

import numpy as np

import fgrad


def _best(fn, rounds):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def two_branches(n=1024, depth=4, rounds=5):
    rng = np.random.default_rng(0)
    A, B = (rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(2))
    x = fgrad.tensor(rng.standard_normal((n, n)), requires_grad=True)

    def run():
        a = b = x
        for _ in range(depth):
            a, b = a @ A, b @ B
        loss = a.sum() + b.sum()
        t0 = time.perf_counter()
        loss.backward()
        x.grad = None
        return time.perf_counter() - t0
    out = {1: [], 2: []}
    for _ in range(rounds):
        for k in (1, 2):
            fgrad.set_num_threads(k)
            out[k].append(run())
    return min(out[1]), min(out[2])


def two_branches_grad(n=1024, depth=4, rounds=5):
    import fgrad.numpy as fnp
    rng = np.random.default_rng(0)
    A, B = (rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(2))
    x = rng.standard_normal((n, n))

    def f(x):
        a = b = x
        for _ in range(depth):
            a, b = a @ A, b @ B
        return fnp.sum(a) + fnp.sum(b)
    grad = fgrad.grad(f)
    out = {1: [], 2: []}
    for _ in range(rounds):
        for k in (1, 2):
            fgrad.set_num_threads(k)
            t0 = time.perf_counter()
            grad(x)
            out[k].append(time.perf_counter() - t0)
    return min(out[1]), min(out[2])


def small_chain(n_ops=1000, rounds=20):
    x = fgrad.tensor(np.linspace(0.1, 0.9, 16), requires_grad=True)

    def graph():
        y = x
        for _ in range(n_ops // 2):
            y = (y * 1.0001).sin()
        return y.sum()
    out = {1: [], 2: []}
    for _ in range(rounds):
        for k in (1, 2):
            fgrad.set_num_threads(k)
            loss = graph()
            t0 = time.perf_counter()
            loss.backward()
            out[k].append(time.perf_counter() - t0)
            x.grad = None
    return min(out[1]) / n_ops, min(out[2]) / n_ops


def main():
    from threadpoolctl import threadpool_limits
    before = fgrad.get_num_threads()
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            t1, t2 = two_branches()
            print(f"two heavy branches (2 x 4 matmuls 1024x1024), Tensor .backward(): 1 thread {t1 * 1e3:.1f} ms, "
                  f"2 threads {t2 * 1e3:.1f} ms, speed-up {t1 / t2:.2f}x")
            t1, t2 = two_branches_grad()
            print(f"the same by fgrad.grad (forward and backward): 1 thread {t1 * 1e3:.1f} ms, 2 threads "
                  f"{t2 * 1e3:.1f} ms, speed-up {t1 / t2:.2f}x")
            s1, s2 = small_chain()
            print(f"chain of 1,000 small ops, backward per op: 1 thread {s1 * 1e6:.2f} us, 2 threads "
                  f"{s2 * 1e6:.2f} us ({(s2 / s1 - 1) * 100:+.1f}%)")
    finally:
        fgrad.set_num_threads(before)


if __name__ == "__main__":
    main()
