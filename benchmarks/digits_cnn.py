"""One training step of examples/digits_cnn.py's CNN (batch 64), fgrad eager against torch 2.13
on the CPU, float64 and float32, one BLAS thread and one torch thread (issue 31's Speed section).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.digits_cnn [--rounds 200]

A step is zero_grad, forward, cross-entropy, backward and AdamW's step on one fixed batch:
fgrad eager, as one fgrad.compile'd program (benchmarks/compiled_step.py), written by hand in
NumPy (benchmarks/numpy_cnn.py: the floor for NumPy's kernels) and torch. The steps alternate,
round by round, so that a busy machine slows them alike. Wall and CPU (process) time, median
and best, per step.
"""
import argparse
import os

from .compiled_step import compiled_adam_step
from .env import pin_threads
from .nn_steps import interleaved, table_cells
from .numpy_cnn import NumpyCNN

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


def _compiled_step(dtype, images, labels):
    import fgrad
    from examples.digits_cnn import make_model
    fgrad.manual_seed(0)
    model = make_model(getattr(fgrad, dtype))
    loss = lambda m, x, y: fgrad.nn.functional.cross_entropy(m(x), y)  # noqa: E731
    step = compiled_adam_step(model, loss, images.astype(dtype), labels, lr=1e-3, weight_decay=1e-2)
    step()  # (the trace: the first call, not timed)
    return step


def _numpy_step(dtype, images, labels):
    import fgrad
    from examples.digits_cnn import make_model
    fgrad.manual_seed(0)
    state = {k: v.numpy().copy() for k, v in make_model(getattr(fgrad, dtype)).state_dict().items()}
    model, x = NumpyCNN(state, lr=1e-3, weight_decay=1e-2), images.astype(dtype)
    return lambda: model.step(x, labels)


def step_times(dtype, rounds, warmup=20):
    """{"fgrad": (wall seconds, cpu seconds) per round, "torch": ...} for one dtype."""
    import numpy as np
    rng = np.random.default_rng(0)
    images, labels = rng.random((64, 1, 8, 8)), rng.integers(0, 10, 64)
    steps = {"fgrad": _fgrad_step(dtype, images, labels), "fgrad.compile": _compiled_step(dtype, images, labels),
             "numpy": _numpy_step(dtype, images, labels), "torch": _torch_step(dtype, images, labels)}
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
