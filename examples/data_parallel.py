"""Data-parallel training with fgrad.distributed: every rank holds the whole model and a shard of
each batch; dist.data_parallel averages the loss and gradients over the ranks (an all-reduce,
staged inside the fgrad.compile'd step), and dist.ShardedOptimizer keeps Adam's moments
sharded across the ranks (ZeRO-1). With equal shards, the numbers are those of one process
training on the whole batch, which is what a single `python` run is (a world of one).

    python examples/data_parallel.py                           # one process
    mpiexec -n 2 python examples/data_parallel.py              # two ranks: the same losses

(mpiexec needs the [distributed] extra: mpi4py and an MPI)
"""
import numpy as np

import fgrad
import fgrad.distributed as dist
import fgrad.numpy as fnp


def make_data(n=512, seed=0):
    """A regression problem (every rank makes the same one and then takes its rows)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    return X, np.sin(X[:, :1]) + X[:, 1:2] * X[:, 2:3] + 0.05 * rng.standard_normal((n, 1))


def init_params(seed):
    rng = np.random.default_rng(seed)
    return {"W1": rng.standard_normal((8, 32)) / np.sqrt(8), "b1": np.zeros(32),
            "W2": rng.standard_normal((32, 1)) / np.sqrt(32), "b2": np.zeros(1)}


def loss(params, x, y):
    return fnp.mean((fnp.tanh(x @ params["W1"] + params["b1"]) @ params["W2"] + params["b2"] - y) ** 2)


def train(steps=100, batch_size=64, lr=1e-2, seed=0):
    """Adam on minibatches; returns (params, the global mean loss of every step), the same on every rank."""
    rank, size = dist.rank(), dist.world_size()
    if batch_size % size:
        raise ValueError(f"batch_size {batch_size} must divide among {size} ranks")
    X, Y = make_data()
    # ranks may start from different parameters: rank 0's go to all (uncompiled, data_parallel's first call
    # would do it in place; a compiled step cannot write into its inputs, and says so)
    params = dist.broadcast(init_params(seed + rank))
    step = fgrad.compile(dist.data_parallel(fgrad.value_and_grad(loss)))
    optimizer = dist.ShardedOptimizer(dist.adam(lr=lr))
    state = optimizer.init(params)
    order, losses = np.random.default_rng(seed).permutation(len(X)), []  # the same batches on every rank
    for i in range(steps):
        batch = order[(i * batch_size) % len(X):][:batch_size]
        mine = batch[rank * batch_size // size:(rank + 1) * batch_size // size]  # this rank's shard
        value, grads = step(params, X[mine], Y[mine])
        losses.append(float(value))
        params, state = optimizer.update(grads, state, params)
    return params, losses


def main():
    params, losses = train()
    print(f"rank {dist.rank()} of {dist.world_size()}: loss {np.mean(losses[:8]):.4f} -> {np.mean(losses[-8:]):.4f}; "
          f"final loss {losses[-1]!r}, sum of W2 {float(np.sum(params['W2']))!r}")


if __name__ == "__main__":
    main()
