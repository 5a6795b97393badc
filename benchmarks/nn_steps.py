"""One training step (batch 64) of three models, fgrad eager against torch 2.13 on the CPU,
float64 and float32, one BLAS thread and one torch thread (issue 31's Speed section): W2's MLP
(784-256-10), a 1-layer LSTM (input 32, hidden 128, sequence 50) and a TransformerEncoderLayer
(d_model 128, 4 heads, feed-forward 512, sequence 64, dropout 0).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.nn_steps [--rounds 50] [--models mlp,lstm,transformer]

A step is zero_grad, forward, the loss, backward and Adam's step on one fixed batch: fgrad
eager, as one fgrad.compile'd program (benchmarks/compiled_step.py) and torch. The steps
alternate, round by round, so that a busy machine slows them alike. Wall and CPU (process)
time, median and best, per step.
"""
import argparse
import os
import time

from .compiled_step import compiled_adam_step
from .env import pin_threads

__all__ = ["main", "step_times"]

BATCH = 64


def _models(lib, name, dtype):
    """(model, loss of (model, x, y)) built from lib (fgrad or torch) in dtype."""
    nn = lib.nn
    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
        loss = lambda m, x, y: nn.functional.cross_entropy(m(x), y)  # noqa: E731
    elif name == "lstm":
        model = nn.ModuleDict({"rnn": nn.LSTM(32, 128), "head": nn.Linear(128, 10)})
        loss = lambda m, x, y: nn.functional.cross_entropy(m["head"](m["rnn"](x)[1][0][0]), y)  # noqa: E731
    else:
        model = nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.0, batch_first=True)
        loss = lambda m, x, y: nn.functional.mse_loss(m(x), y)  # noqa: E731
    return model.to(getattr(lib, dtype)), loss


def _data(name, dtype):
    import numpy as np
    rng = np.random.default_rng(0)
    shapes = {"mlp": (BATCH, 784), "lstm": (50, BATCH, 32), "transformer": (BATCH, 64, 128)}
    x = rng.standard_normal(shapes[name]).astype(dtype)
    y = rng.standard_normal(x.shape).astype(dtype) if name == "transformer" else rng.integers(0, 10, BATCH)
    return x, y


def _step(lib, name, dtype):
    if lib.__name__ == "fgrad":
        lib.manual_seed(0)
    model, loss = _models(lib, name, dtype)
    optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)
    x, y = (lib.tensor(a) for a in _data(name, dtype))

    def step():
        optimizer.zero_grad()
        loss(model, x, y).backward()
        optimizer.step()
    return step


def interleaved(steps, rounds, warmup):
    """{impl: [(wall, cpu) seconds per round]}: the steps run in turn, round after round, so that
    a change in the machine's load falls on each impl alike."""
    times = {k: [] for k in steps}
    for r in range(warmup + rounds):
        for k, step in steps.items():
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            if r >= warmup:
                times[k].append((time.perf_counter() - wall, time.process_time() - cpu))
    return times


def table_cells(times):
    """Per impl: its wall median, best wall and CPU median (ms), and its ratios to torch's medians."""
    import numpy as np
    med = {k: np.median(np.asarray(v), axis=0) for k, v in times.items()}
    for k, t in times.items():
        ratio = med[k] / med["torch"]
        yield (k, f"{med[k][0] * 1e3:.2f} ms | {np.asarray(t)[:, 0].min() * 1e3:.2f} ms | {med[k][1] * 1e3:.2f} ms | "
                  f"{ratio[0]:.2f}, {ratio[1]:.2f}")


def _compiled_step(name, dtype):
    """The same step as one fgrad.compile'd program (benchmarks/compiled_step.py)."""
    import fgrad
    fgrad.manual_seed(0)
    model, loss = _models(fgrad, name, dtype)
    step = compiled_adam_step(model, loss, *_data(name, dtype), lr=1e-3)
    step()  # (the trace: the first call, not timed)
    return step


def step_times(name, dtype, rounds, warmup=5):
    """{"fgrad": [(wall, cpu) seconds per round], "fgrad.compile": [...], "torch": [...]} for one
    model and dtype."""
    import torch

    import fgrad
    return interleaved({"fgrad": _step(fgrad, name, dtype), "fgrad.compile": _compiled_step(name, dtype),
                        "torch": _step(torch, name, dtype)}, rounds, warmup)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--models", default="mlp,lstm,transformer")
    args = parser.parse_args()
    pin_threads()
    print(f"load average before: {os.getloadavg()}")
    print("| model | dtype | impl | wall median | wall best | CPU median | ratio to torch (wall, CPU medians) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name in args.models.split(","):
        for dtype in ("float64", "float32"):
            for k, cells in table_cells(step_times(name, dtype, args.rounds)):
                print(f"| {name} | {dtype} | {k} | {cells} |", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
