"""One training step of examples/digits_cnn.py's CNN (batch 64), fgrad eager against torch 2.13
on the CPU, float64 and float32, one BLAS thread and one torch thread (issue 31's Speed section).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.digits_cnn [--rounds 200]

A step is zero_grad, forward, cross-entropy, backward and AdamW's step on one fixed batch; the
two libraries' steps alternate, round by round, so that a busy machine slows both alike. Wall
and CPU (process) time, median and best, per step.
"""
import argparse
import os

from .env import pin_threads
from .nn_steps import interleaved, table_cells

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
    return interleaved(steps, rounds, warmup)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    pin_threads()
    print(f"load average before: {os.getloadavg()}")
    print("| dtype | impl | wall median | wall best | CPU median | ratio to torch (wall median, CPU median) |")
    print("|---|---|---:|---:|---:|---:|")
    for dtype in ("float64", "float32"):
        for name, cells in table_cells(step_times(dtype, args.rounds)):
            print(f"| {dtype} | {name} | {cells} |")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
