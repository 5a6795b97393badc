"""Data-parallel scaling of W2's training step (issue 30): `python -m benchmarks.distributed`.

The step: forward, backward and an SGD update of W2's MLP (784-256(tanh)-10, log-softmax
cross-entropy, float64) with the global batch fixed at 256, on 1 rank (the whole batch) and on
2 ranks (128 rows each), one BLAS thread per rank, each launched by `mpiexec -n N` from here:

- `data_parallel`: the functional face, `data_parallel(value_and_grad(loss))`: one all-reduce
  (mean) of the loss and the four gradients after backward;
- `DDP, overlapped`: the Tensor face, DistributedDataParallel with torch's bucket sizes (a first
  bucket of at most 1 MiB: b2, W2, b1; then W1, 1.6 MB), each bucket's all-reduce started by
  the hooks while backward runs;
- `DDP, after backward`: the same module without DDP: backward, then one all-reduce of every
  gradient (fgrad.distributed.all_reduce), as a loop without hooks would do it;
- `each rank alone`, the control: the functional step on this rank's rows with no collective
  at all, so that the 2-rank figure shows what two ranks computing at once cost this machine.

Every step's gradients are checked against one process on the whole batch before anything
is timed. A time is the median over rounds of (a round's wall time / its steps), the round
timed between barriers and taken on the slowest rank. On 2 ranks, the all-reduce alone is
also timed over message sizes (a raw nonblocking all-reduce, and fgrad's checked one, which
agrees on the signature first), which gives the latency and bandwidth of this machine's
shared-memory transport. The same 2-rank steps are timed again with MPICH's own progress
thread (MPIR_CVAR_ASYNC_PROGRESS=1), which moves a started all-reduce along while Python
computes. The load average before and after is printed with the results.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

SIZES = (256, 784, 256, 10)  # global batch, inputs, hidden, outputs


def _env():
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "FGRAD_NUM_THREADS"):
        env[var] = "1"
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


# ---- the worker: one rank of a world of N -------------------------------------------------
def _data(sizes):
    batch, n_in, n_hidden, n_out = sizes
    rng = np.random.default_rng(0)
    labels = rng.integers(0, n_out, size=batch)
    return {"X": rng.standard_normal((batch, n_in)), "labels": labels, "Y": np.eye(n_out)[labels],
            "W1": rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in), "b1": 0.1 * rng.standard_normal(n_hidden),
            "W2": rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden), "b2": 0.1 * rng.standard_normal(n_out)}


def _loss(params, X, Y):
    import fgrad.numpy as fnp
    h = fnp.tanh(X @ params["W1"] + params["b1"])
    z = h @ params["W2"] + params["b2"]
    zs = z - fnp.max(z, axis=1, keepdims=True)
    return -fnp.sum(Y * (zs - fnp.log(fnp.sum(fnp.exp(zs), axis=1, keepdims=True)))) / X.shape[0]


def _shard(a, rank, size):
    n = a.shape[0]
    return a[rank * n // size:(rank + 1) * n // size]


def _module(d):
    """W2's MLP as fgrad.nn modules holding d's parameters (W stored transposed, as Linear's)."""
    import fgrad
    n_in, n_hidden = d["W1"].shape
    n_out = d["W2"].shape[1]
    net = fgrad.nn.Sequential(fgrad.nn.Linear(n_in, n_hidden), fgrad.nn.Tanh(), fgrad.nn.Linear(n_hidden, n_out))
    for p, v in zip(net.parameters(), (d["W1"].T, d["b1"], d["W2"].T, d["b2"])):
        p.primal[...] = v
    return net


def steps(kind, sizes=SIZES):
    """(step(), grads()): one training step of `kind` on this rank's shard, and its gradients
    as (W1, b1, W2, b2) after the last step."""
    import fgrad
    import fgrad.distributed as dist
    from fgrad.nn import functional as F
    from fgrad.nn.parallel import DistributedDataParallel
    rank, size = dist.rank(), dist.world_size()
    d = _data(sizes)
    X, Y, labels = (_shard(d[k], rank, size) for k in ("X", "Y", "labels"))
    lr = 0.01
    if kind == "each rank alone":  # (the control: the same compute, no collective)
        params, vg = {k: d[k].copy() for k in ("W1", "b1", "W2", "b2")}, fgrad.value_and_grad(_loss)

        def alone():
            _, g = vg(params, X, Y)
            for k in params:
                params[k] -= lr * g[k]
        return alone, None
    if kind == "data_parallel":
        params = {k: d[k].copy() for k in ("W1", "b1", "W2", "b2")}
        step_fn = dist.data_parallel(fgrad.value_and_grad(_loss))
        last = {}

        def step():
            _, g = step_fn(params, X, Y)
            for k in params:
                params[k] -= lr * g[k]
            last.update(g)
        return step, lambda: tuple(last[k] for k in ("W1", "b1", "W2", "b2"))
    net = _module(d)
    model = DistributedDataParallel(net) if kind == "DDP, overlapped" else net
    opt = fgrad.optim.SGD(model.parameters(), lr=lr)
    x, y = fgrad.tensor(X), fgrad.tensor(labels)

    def step():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        if kind == "DDP, after backward":
            params = list(net.parameters())
            means = dist.all_reduce([p.grad.primal for p in params], op="mean")
            for p, m in zip(params, means):
                p.grad.primal[...] = m
        opt.step()

    def grads():
        w1, b1, w2, b2 = (p.grad.numpy() for p in net.parameters())
        return w1.T, b1, w2.T, b2
    return step, grads


def reference_grads(sizes=SIZES):
    """W2's gradients on the whole batch, in one process, at the starting parameters."""
    import fgrad
    d = _data(sizes)
    g = fgrad.grad(_loss)({k: d[k] for k in ("W1", "b1", "W2", "b2")}, d["X"], d["Y"])
    return tuple(g[k] for k in ("W1", "b1", "W2", "b2"))


def check(kind, sizes=SIZES):
    """One step of `kind`: its gradients must be the whole batch's (else it is not timed)."""
    step, grads = steps(kind, sizes)
    step()
    for got, want, name in zip(grads(), reference_grads(sizes), ("W1", "b1", "W2", "b2")):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13, err_msg=f"{kind}: d loss / d {name}")


def _timed(fn, count, rounds):
    """Median over rounds of the slowest rank's time per call."""
    import fgrad.distributed as dist
    per = []
    for _ in range(rounds):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        dist.barrier()
        per.append(float(dist.all_reduce(time.perf_counter() - t0, op="max")) / count)
    return float(np.median(per))


def sweep(rounds):
    """Seconds per all-reduce of float64 buffers of 2**k bytes: raw (a started Iallreduce,
    waited for) and checked (fgrad.distributed.all_reduce, its agreement first)."""
    import fgrad.distributed as dist
    world = dist.init()
    out = []
    for k in range(3, 25, 3):
        buf = np.ones(2 ** k // 8)
        count = max(5, min(400, 2 ** 22 // 2 ** k))

        def raw(buf=buf):
            world.wait([world.start("all_reduce", buf, buf, op="sum")], "sweep")

        def checked(buf=buf):
            dist.all_reduce(buf)
        out.append({"bytes": 2 ** k, "raw": _timed(raw, count, rounds), "checked": _timed(checked, count, rounds)})
    return out


def worker(count, rounds):
    import fgrad.distributed as dist
    dist.init(timeout=120)
    result = {"ranks": dist.world_size(), "steps": {}}
    for kind in ("data_parallel", "DDP, overlapped", "DDP, after backward", "each rank alone"):
        if kind != "each rank alone":
            check(kind)
        step, _ = steps(kind)
        for _ in range(3):
            step()
        result["steps"][kind] = _timed(step, count, rounds)
    if dist.world_size() > 1:
        result["sweep"] = sweep(rounds)
    else:  # (the compute of one rank of two: the whole step on half the batch, alone)
        step, _ = steps("data_parallel", (SIZES[0] // 2, *SIZES[1:]))
        for _ in range(3):
            step()
        result["half batch"] = _timed(step, count, rounds)
    if dist.rank() == 0:
        print("RESULT " + json.dumps(result), flush=True)


# ---- the driver -----------------------------------------------------------------------------
def run(ranks, count, rounds, env=None):
    cmd = ([_mpiexec(), "-n", str(ranks)] if ranks > 1 else []) + [sys.executable, "-m", "benchmarks.distributed",
                                                                   "--worker", "--steps", str(count), "--rounds",
                                                                   str(rounds)]
    out = subprocess.run(cmd, env={**_env(), **(env or {})}, capture_output=True, text=True, timeout=1800)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}")
    return json.loads(lines[0][len("RESULT "):])


def _mpiexec():
    import shutil
    found = shutil.which("mpiexec", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]))
    if found is None:
        raise SystemExit("benchmarks.distributed needs mpiexec: pip install -e '.[distributed]'")
    return found


def table(one, two, progress=None):
    rows = ["| step (global batch 256) | 1 rank, ms | 2 ranks, ms | speed-up | efficiency |", "|---|---|---|---|---|"]
    for kind, t1 in one["steps"].items():
        t2 = two["steps"][kind]
        if kind == "each rank alone":
            rows.append(f"| {kind} (no collective: the control) | {t1 * 1e3:.2f} | {t2 * 1e3:.2f} | | |")
            continue
        rows.append(f"| {kind} | {t1 * 1e3:.2f} | {t2 * 1e3:.2f} | {t1 / t2:.2f}x | {t1 / (2 * t2) * 100:.0f}% |")
    over, after = two["steps"]["DDP, overlapped"], two["steps"]["DDP, after backward"]
    rows.append("")
    if "half batch" in one:
        rows.append(f"1 rank, data_parallel on half the batch (128), what each of 2 ranks computes: "
                    f"{one['half batch'] * 1e3:.2f} ms")
    rows.append(f"2 ranks: DDP overlapped {over * 1e3:.2f} ms against all-reduce after backward {after * 1e3:.2f} ms "
                f"({(after / over - 1) * 100:+.1f}% for the latter)")
    if progress is not None:
        rows.append("2 ranks with MPICH's progress thread (MPIR_CVAR_ASYNC_PROGRESS=1): " + ", ".join(
            f"{kind} {t * 1e3:.2f} ms" for kind, t in progress["steps"].items()))
    rows += ["", "| all-reduce of | raw, us | checked, us | raw GB/s |", "|---|---|---|---|"]
    for s in two["sweep"]:
        rows.append(f"| {_bytes(s['bytes'])} | {s['raw'] * 1e6:.1f} | {s['checked'] * 1e6:.1f} | "
                    f"{s['bytes'] / s['raw'] / 1e9:.2f} |")
    return "\n".join(rows)


def _bytes(n):
    return f"{n // 2 ** 20} MiB" if n >= 2 ** 20 else f"{n // 2 ** 10} KiB" if n >= 2 ** 10 else f"{n} B"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.distributed", description=__doc__.split("\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=20, help="steps per timed round (default 20)")
    parser.add_argument("--rounds", type=int, default=9, help="rounds; the median is reported (default 9)")
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.steps, args.rounds)
    load = os.getloadavg()
    one, two = run(1, args.steps, args.rounds), run(2, args.steps, args.rounds)
    progress = run(2, args.steps, args.rounds, {"MPIR_CVAR_ASYNC_PROGRESS": "1"})
    print(table(one, two, progress))
    print(f"\nload average (1, 5, 15 min) before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()) + f"; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
