"""One training step of examples/digits_cnn.py's CNN (batch 64), fgrad eager against torch 2.13
on the CPU, float64 and float32, one BLAS thread and one torch thread (issue 31's Speed section).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.digits_cnn [--rounds 200]

A step is zero_grad, forward, cross-entropy, backward and AdamW's step on one fixed batch; the
two libraries' steps alternate, round by round, so that a busy machine slows both alike. Wall
and CPU (process) time, median and best, per step.
"""
import argparse
import os
import time

from .env import pin_threads

__all__ = ["main", "step_times"]


def _fgrad_step(dtype, images, labels):
    import fgrad
    from examples.digits_cnn import make_model, train_step
    fgrad.manual_seed(0)
    model = make_model(getattr(fgrad, dtype))
    optimizer = fgrad.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn, x, y = fgrad.nn.CrossEntropyLoss(), fgrad.tensor(images.astype(dtype)), fgrad.tensor(labels)
    return lambda: train_step(model, optimizer, loss_fn, x, y)


def _torch_step(dtype, images, labels):
    import torch
    from torch import nn
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(128, 10)).to(getattr(torch, dtype))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn, x, y = nn.CrossEntropyLoss(), torch.tensor(images.astype(dtype)), torch.tensor(labels)
    from examples.digits_cnn import train_step
    return lambda: train_step(model, optimizer, loss_fn, x, y)


def step_times(dtype, rounds, warmup=20):
    """{"fgrad": (wall seconds, cpu seconds) per round, "torch": ...} for one dtype."""
    import numpy as np
    rng = np.random.default_rng(0)
    images, labels = rng.random((64, 1, 8, 8)), rng.integers(0, 10, 64)
    steps = {"fgrad": _fgrad_step(dtype, images, labels), "torch": _torch_step(dtype, images, labels)}
    times = {name: [] for name in steps}
    for r in range(warmup + rounds):
        for name, step in steps.items():
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            if r >= warmup:
                times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    pin_threads()
    import numpy as np
    print(f"load average before: {os.getloadavg()}")
    print("| dtype | impl | wall median | wall best | CPU median | ratio to torch (wall median, CPU median) |")
    print("|---|---|---:|---:|---:|---:|")
    for dtype in ("float64", "float32"):
        times = step_times(dtype, args.rounds)
        med = {k: np.median(np.asarray(v), axis=0) for k, v in times.items()}
        for name, t in times.items():
            t = np.asarray(t)
            ratio = med[name] / med["torch"]
            print(f"| {dtype} | {name} | {med[name][0] * 1e3:.2f} ms | {t[:, 0].min() * 1e3:.2f} ms | "
                  f"{med[name][1] * 1e3:.2f} ms | {ratio[0]:.2f}, {ratio[1]:.2f} |")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
