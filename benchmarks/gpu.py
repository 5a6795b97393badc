"""The GPU check of issue 20, as one prepared script: `python -m benchmarks.gpu`.

1. The `gpu`-marked tests (the op table and the JAX corpus on CUDA arrays, float64, with
   every derivative on the GPU; the CuPy device tests), by pytest.
2. The gradient of an MLP's mean log-softmax cross-entropy (batch 4096, 1024-4096-4096-10,
   float32 and float64) on CUDA against the CPU: the best of several calls each, the GPU
   timed to completion (the stream synchronised after each call).

Without CuPy or a CUDA device it says so and exits 0: nothing here can run. The tests run in
8 processes where pytest-xdist is installed (one process took more than 330 s for the 933 of
them on an H200; 8 took 126 s), and go on past a module that cannot be collected there.
"""
import importlib.util
import subprocess
import sys
import time

import numpy as np

import fgrad
import fgrad.numpy as fnp


def mlp_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h = fnp.tanh(x @ w1 + b1)
    h = fnp.tanh(h @ w2 + b2)
    z = h @ w3 + b3
    z = z - fnp.max(z, axis=1, keepdims=True)
    logp = z - fnp.log(fnp.sum(fnp.exp(z), axis=1, keepdims=True))
    return -fnp.mean(fnp.sum(logp * y, axis=1))


def _data(dtype, rng, sizes=(4096, 1024, 4096, 4096, 10)):
    batch, n_in, h1, h2, n_out = sizes
    params = []
    for a, b in [(n_in, h1), (h1, h2), (h2, n_out)]:
        params += [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(dtype), np.zeros(b, dtype)]
    x = rng.standard_normal((batch, n_in)).astype(dtype)
    y = np.eye(n_out, dtype=dtype)[rng.integers(0, n_out, batch)]
    return params, x, y


def _best(fn, sync, rounds=5):
    fn()
    sync()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    if not fgrad.backend.cupy_available():
        print("no CUDA device (or no CuPy): the GPU check cannot run here")
        return 0
    import cupy as cp
    workers = ["-n", "8"] if importlib.util.find_spec("xdist") else []
    rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-m", "gpu", *workers, "-rfE",
                          "--continue-on-collection-errors", "tests"])
    grad = fgrad.grad(mlp_loss)
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        params, x, y = _data(dtype, rng)
        cpu = _best(lambda a=(params, x, y): grad(*a), lambda: None, rounds=2)
        gp, gx, gy = fgrad.device_put((params, x, y), "cuda:0")
        g = grad(gp, gx, gy)
        assert all(isinstance(a, cp.ndarray) for a in g), "a derivative left the GPU"
        gpu = _best(lambda a=(gp, gx, gy): grad(*a), cp.cuda.Device(0).synchronize)
        print(f"MLP gradient, batch 4096, 1024-4096-4096-10, {np.dtype(dtype).name}: CPU {cpu * 1e3:.1f} ms, "
              f"CUDA {gpu * 1e3:.2f} ms ({cpu / gpu:.1f}x)")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
