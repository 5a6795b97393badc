"""Run by tests/distributed/test_distributed_gpu.py under `mpiexec -n 2` where CuPy finds GPUs:
collectives of CuPy arrays (through NCCL, or with FGRAD_DISTRIBUTED_NCCL=0 through host copies)
against NumPy on the gathered data, their results on the device, and a data-parallel step.
Prints `gpu ok on rank r of n: k checks`."""
import cupy
import numpy as np

import fgrad
import fgrad.distributed as dist
import fgrad.numpy as fnp

dist.init(timeout=60)
R, N = dist.rank(), dist.world_size()
CHECKS = [0]


def data(r, seed=0, shape=(3, 4)):
    return np.random.default_rng(100 * seed + r).standard_normal(shape)


def every(seed=0, shape=(3, 4)):
    return np.stack([data(r, seed, shape) for r in range(N)])


def close(got, want, what):
    assert isinstance(got, cupy.ndarray), f"rank {R}: {what} came back as {type(got).__name__}"
    np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-12, atol=1e-12, err_msg=f"rank {R}: {what}")
    CHECKS[0] += 1


x = cupy.asarray(data(R))
for op, ref in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min)):
    close(dist.all_reduce({"x": x}, op=op)["x"], ref(every(), 0), f"all_reduce {op}")
close(dist.broadcast(x, root=N - 1), data(N - 1), "broadcast")
close(dist.reduce(x, root=0), every().sum(0) if R == 0 else np.zeros((3, 4)), "reduce")
close(dist.all_gather(x, axis=1), np.moveaxis(every(), 0, 1), "all_gather")
rows = every(4, (N, 3))
close(dist.reduce_scatter(cupy.asarray(rows[R])), rows.sum(0)[R], "reduce_scatter")
w = cupy.asarray(np.linspace(-1.0, 1.0, 4))
step = dist.data_parallel(fgrad.value_and_grad(lambda w, x: fnp.sum(fnp.tanh(x @ w) ** 2)))
_, g = step(w, x)
ref = sum(fgrad.grad(lambda w, x: fnp.sum(fnp.tanh(x @ w) ** 2))(np.linspace(-1.0, 1.0, 4), data(r))
          for r in range(N)) / N
close(g, ref, "data_parallel gradient")
print(f"gpu ok on rank {R} of {N}: {CHECKS[0]} checks", flush=True)
