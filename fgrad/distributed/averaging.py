"""data_parallel: a value_and_grad function, on this rank's shard of the batch, made to return
the mean loss and gradients over all ranks.

Each rank computes its loss and gradients on its own shard of the global batch; one
all_reduce (mean) of (loss, grads) then gives every rank the same numbers, which for shards
of equal size are the loss and gradients of the whole batch. The first call also makes every
rank start from rank 0's parameters: it broadcasts them (the broadcast's agreement check
names the first leaf whose structure, shape or dtype differs between ranks) and writes them
into each other rank's arrays where they differ. The all_reduce is a primitive, so
`fgrad.compile(data_parallel(...))` stages it as a step of the program.
"""
import functools

import numpy as np

from ..backend.arrays import array_module
from ..ir.value import Tracer, peek
from ..typing import Callable
from .agreement import Call
from .buffers import writeable
from .collectives import _leaves, all_reduce
from .world import world

__all__ = ["data_parallel"]


def data_parallel(fun: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """`fun` (a value_and_grad function) with its loss and gradients averaged over the ranks.

    Each rank passes its own shard of the batch; with shards of equal size the results are
    those of the whole batch (a mean of means otherwise).

    Parameters
    ----------
    fun : callable returning (loss, grads), or ((loss, aux), grads) with has_aux=True (aux
        stays this rank's own), as `fgrad.value_and_grad(loss, argnums, has_aux)` does.
    argnums : which arguments are the parameters, broadcast from rank 0 at the first call.

    Examples
    --------
    >>> import numpy as np, fgrad, fgrad.numpy as fnp, fgrad.distributed as dist
    >>> step = dist.data_parallel(fgrad.value_and_grad(lambda w, x: fnp.sum((x @ w) ** 2)))
    >>> loss, g = step(np.ones(2), np.ones((3, 2)))
    >>> float(loss), g.tolist()
    (12.0, [12.0, 12.0])
    """
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    started = []

    @functools.wraps(fun)
    def step(*args, **kwargs):
        if not started:
            for i in nums:
                _from_rank_0(args[i], f"args[{i}]")
            started.append(True)
        value, grads = fun(*args, **kwargs)
        loss, aux = value if has_aux else (value, None)
        loss, grads = all_reduce((loss, grads), op="mean", name="(loss, grads)")
        return ((loss, aux) if has_aux else loss), grads
    return step


def _from_rank_0(tree, name):
    """Make this rank's parameters rank 0's, in place (Tracers' values are only compared)."""
    leaves, labels, _ = _leaves("data_parallel", tree, name)
    mine = [_array(leaf) for leaf in leaves]
    theirs = world().broadcast(mine, 0, Call("data_parallel's start", "root=0", labels))
    if world().rank == 0:
        return
    for leaf, value, got, label in zip(leaves, mine, theirs, labels):
        if array_module(value).array_equal(value, got, equal_nan=True):
            continue
        if isinstance(leaf, Tracer) or not writeable(leaf):
            raise ValueError(
                f"fgrad.distributed.data_parallel: {label} on rank {world().rank} differs from rank 0's and cannot "
                f"be overwritten in place (it is a {type(leaf).__name__}); start every rank from the same values: "
                f"params = fgrad.distributed.broadcast(params) before the first step")
        leaf[...] = got


def _array(leaf):
    value = peek(leaf)
    return np.asarray(value) if isinstance(value, (int, float, complex, np.generic)) else value
