"""Run by tests/distributed/test_distributed_mpi.py under `mpiexec -n 2` and `-n 3` (and on its
own, a world of one): the collectives against NumPy on the gathered data, their derivatives
(jvp against finite differences, the vjp against the jvp summed over the ranks, second
order), vmap, compile and the Tensor face through them, two losses written with collectives
against one process holding every rank's data, and the agreement errors. Prints one line:
`collectives ok on rank r of n: k checks`."""
import numpy as np

import fgrad
import fgrad.distributed as dist
import fgrad.numpy as fnp
from fgrad.distributed import CollectiveMismatchError

dist.init(timeout=60)
R, N = dist.rank(), dist.world_size()
CHECKS = [0]


def close(got, want, what, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol, err_msg=f"rank {R}: {what}")
    CHECKS[0] += 1


def data(r, seed=0, shape=(3, 4), dtype=np.float64):
    """Rank r's data, which every rank can make (so each computes the reference itself)."""
    return np.random.default_rng(100 * seed + r).standard_normal(shape).astype(dtype)


def every(seed=0, shape=(3, 4), dtype=np.float64):
    return np.stack([data(r, seed, shape, dtype) for r in range(N)])


# ---- values against NumPy on the gathered data -------------------------------------------
tree = {"a": data(R), "b": data(R, 1, (5,), np.float32), "c": np.arange(3) * (R + 1), "s": float(R + 1)}
for op, ref in (("sum", np.sum), ("max", np.max), ("min", np.min)):
    out = dist.all_reduce(tree, op=op)
    close(out["a"], ref(every(), 0), f"all_reduce {op} a")
    close(out["b"], ref(every(1, (5,), np.float32), 0), f"all_reduce {op} b", rtol=1e-6)
    close(out["c"], ref(np.stack([np.arange(3) * (r + 1) for r in range(N)]), 0), f"all_reduce {op} c")
    assert out["b"].dtype == np.float32 and out["c"].dtype == tree["c"].dtype and isinstance(out["s"], float)
    close(out["s"], ref(np.arange(1, N + 1.0)), f"all_reduce {op} s")
out = dist.all_reduce({"a": data(R), "z": data(R, 2, (2,)) * 1j + data(R, 3, (2,))}, op="mean")
close(out["a"], every().mean(0), "all_reduce mean")
close(out["z"], (every(2, (2,)) * 1j + every(3, (2,))).mean(0), "all_reduce mean of complex")
root = N - 1
close(dist.broadcast({"a": data(R)}, root=root)["a"], data(root), "broadcast")
close(dist.reduce(data(R), root=root), every().sum(0) if R == root else np.zeros((3, 4)), "reduce")
close(dist.reduce(data(R), root=0, op="mean"), every().mean(0) if R == 0 else np.zeros((3, 4)), "reduce mean")
for axis in (0, 1, -1):
    close(dist.all_gather(data(R), axis=axis), np.moveaxis(every(), 0, axis), f"all_gather axis {axis}")
close(dist.all_gather(data(R), axis=1, tiled=True), np.concatenate(list(every()), axis=1), "all_gather tiled")
rows = every(4, (N, 3))  # rank r's (N, 3) array is rows[r]
close(dist.reduce_scatter(rows[R]), rows.sum(0)[R], "reduce_scatter")
tall = every(5, (2 * N, 3))
close(dist.reduce_scatter(tall[R], op="mean", tiled=True), tall.mean(0)[2 * R:2 * R + 2], "reduce_scatter tiled")
wide = every(6, (3, 2 * N))
close(dist.reduce_scatter(wide[R], axis=1, tiled=True), wide.sum(0)[:, 2 * R:2 * R + 2], "reduce_scatter axis 1")


# ---- derivatives -------------------------------------------------------------------------
def f_all(x, op):
    return fnp.sin(dist.all_reduce(x * x, op=op)) * x


FUNS = {
    "all_reduce sum": lambda x: f_all(x, "sum"),
    "all_reduce mean": lambda x: f_all(x, "mean"),
    "all_reduce max": lambda x: f_all(x, "max"),
    "all_reduce min": lambda x: f_all(x, "min"),
    "broadcast": lambda x: fnp.tanh(dist.broadcast(x * x, root=N - 1)) * x,
    "reduce": lambda x: fnp.tanh(dist.reduce(x * x, root=0)) + x,
    "all_gather": lambda x: fnp.sum(fnp.sin(dist.all_gather(x * x, axis=1)), axis=1) * x,
    "all_gather tiled": lambda x: fnp.sin(dist.all_gather(x, axis=0, tiled=True))[R * 3:R * 3 + 3] * x,
    "reduce_scatter": lambda x: fnp.sin(dist.reduce_scatter(fnp.stack([x * (k + 1) for k in range(N)]))) * x,
}
x0, u, v = data(R, 7), data(R, 8), data(R, 9)


def total(value):
    """The sum over the ranks of a number (a raw collective, outside any transform)."""
    return float(dist.all_reduce(float(value)))


for name, f in FUNS.items():
    out, tangent = fgrad.jvp(f, (x0,), (u,))
    eps = 1e-6
    fd = (f(x0 + eps * u) - f(x0 - eps * u)) / (2 * eps)  # (every rank perturbs its own x at once)
    close(tangent, fd, f"{name}: jvp against finite differences", rtol=1e-6, atol=1e-8)
    _, pullback = fgrad.vjp(f, x0)
    (ct,) = pullback(v)
    # v . (J u) == (J^T v) . u holds for the whole map, so summed over the ranks
    close(total(np.vdot(v, tangent)), total(np.vdot(ct, u)), f"{name}: vjp against jvp", rtol=1e-10)
    g = fgrad.grad(lambda x: fnp.sum(f(x) ** 2))
    hv = fgrad.jvp(g, (x0,), (u,))[1]
    close(hv, (g(x0 + eps * u) - g(x0 - eps * u)) / (2 * eps), f"{name}: second order", rtol=1e-5, atol=1e-7)
    gc = fgrad.compile(g)
    close(gc(x0), g(x0), f"{name}: compile, first call")
    close(gc(x0 + 1.0), g(x0 + 1.0), f"{name}: compile, replay")

def tie_data(r):
    return np.array([1.0, 2.0, 3.0]) if r < 2 else np.array([1.0, 5.0, 0.0])  # (ranks 0 and 1 tie everywhere)


c = np.array([1.0, 2.0, 3.0])
everyone = np.stack([tie_data(r) for r in range(N)])
top = everyone.max(0)
gmax = fgrad.grad(lambda x: fnp.sum(dist.all_reduce(x, op="max") * c))(tie_data(R))
# the sum over the ranks of their losses is N c . max: shared among the ranks that hold the max
close(gmax, N * c * (tie_data(R) == top) / (everyone == top).sum(0), "all_reduce max: ties share the gradient")

batch = every(10, (4, 3))[R]  # 4 examples of shape (3,) on each rank
close(fgrad.vmap(lambda x: dist.all_reduce(fnp.sin(x)))(batch), np.sin(every(10, (4, 3))).sum(0), "vmap all_reduce")
close(fgrad.vmap(lambda x: dist.all_gather(x))(batch), np.moveaxis(every(10, (4, 3)), 0, 1), "vmap all_gather")
close(fgrad.vmap(lambda x: dist.all_gather(x, axis=0, tiled=True), in_axes=1)(batch),
      np.concatenate(list(np.moveaxis(every(10, (4, 3)), 2, 1)), axis=1), "vmap all_gather tiled, in_axes=1")
close(fgrad.vmap(lambda x: dist.reduce_scatter(fnp.stack([x] * N)))(batch), every(10, (4, 3)).sum(0),
      "vmap reduce_scatter")
close(fgrad.jacrev(lambda x: dist.all_reduce(x, op="mean"))(x0[0]), np.eye(4), "jacrev of all_reduce mean")

t = fgrad.tensor(x0, requires_grad=True)
y = dist.all_reduce(t * t, op="sum")
assert y.grad_fn.name() == "AllReduceBackward0"
(y * y).sum().backward()
close(t.grad.numpy(), fgrad.grad(lambda x: fnp.sum(dist.all_reduce(x * x) ** 2))(x0), "Tensor face")


# ---- losses written with collectives, against one process holding every rank's data -------
def global_batch_norm(x):
    """A batch norm over the global batch: each rank holds 4 rows; the loss is this rank's."""
    n = 4.0 * N
    mean = dist.all_reduce(fnp.sum(x, axis=0)) / n
    var = dist.all_reduce(fnp.sum((x - mean) ** 2, axis=0)) / n
    return fnp.sum(fnp.tanh((x - mean) / fnp.sqrt(var + 1e-5)) * np.arange(1.0, 4.0))


def global_batch_norm_alone(xs):
    mean = fnp.mean(xs, axis=0)
    var = fnp.mean((xs - mean) ** 2, axis=0)
    return fnp.sum(fnp.tanh((xs - mean) / fnp.sqrt(var + 1e-5)) * np.arange(1.0, 4.0))


xs = every(11, (4, 3)).reshape(4 * N, 3)
close(fgrad.grad(global_batch_norm)(xs[4 * R:4 * R + 4]), fgrad.grad(global_batch_norm_alone)(xs)[4 * R:4 * R + 4],
      "grad of a global batch norm (the sum of every rank's loss)")

# model parallel by hand: rank r holds column block r of W; the activations are all-gathered
W = np.random.default_rng(12).standard_normal((5, 2 * N))
inputs = np.random.default_rng(13).standard_normal((6, 5))


def column_parallel(w_r):
    h = dist.all_gather(fnp.tanh(inputs @ w_r), axis=1, tiled=True)
    return fnp.sum(h ** 2) / N  # (every rank holds the same loss: divided by N, their sum is it)


close(fgrad.grad(column_parallel)(W[:, 2 * R:2 * R + 2]),
      fgrad.grad(lambda w: fnp.sum(fnp.tanh(inputs @ w) ** 2))(W)[:, 2 * R:2 * R + 2], "grad, model parallel by hand")


# ---- the ranks disagree: every rank raises the same error, and the world goes on ---------
def raises(fn, *words):
    try:
        fn()
    except CollectiveMismatchError as e:
        for w in words:
            assert w in str(e), f"rank {R}: {w!r} not in {e}"
        CHECKS[0] += 1
        return
    raise AssertionError(f"rank {R}: no CollectiveMismatchError")


if N > 1:
    raises(lambda: dist.all_reduce({"w": np.ones(3), "b": np.ones(2 if R == 0 else 3)}), "x['b']", "(2,)", "(3,)",
           "rank 1")
    raises(lambda: dist.all_reduce({"w": np.ones(3), ("b" if R == 0 else "c"): np.ones(2)}), "x['b']", "x['c']")
    raises(lambda: dist.all_reduce(np.ones(2)) if R == 0 else dist.broadcast(np.ones(2)), "all_reduce(op='sum')",
           "broadcast(root=0)")
    raises(lambda: dist.all_reduce(np.ones(2), op="sum" if R == 0 else "max"), "op='max'")
close(dist.all_reduce(1.0), N, "the world goes on after the errors")
dist.barrier()
print(f"collectives ok on rank {R} of {N}: {CHECKS[0]} checks", flush=True)
