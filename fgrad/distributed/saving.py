"""save and load: a checkpoint written by rank 0 and read by any number of ranks.

`save` pickles on rank 0 only (every rank holds the same parameters after a data-parallel
step, and ShardedOptimizer.state_dict gathers the shards first), into a temporary file renamed
over the target, so a crash never leaves half a checkpoint; every rank returns once it is
written. `load` reads on rank 0 and broadcasts, so the ranks of a run on machines without a
shared file system all get it. Both are collectives: every rank calls them.
"""
import os
import pickle

from ..typing import Any
from .agreement import Call
from .world import world

__all__ = ["load", "save"]


def save(obj: Any, path: str | os.PathLike) -> None:
    """Write `obj` (parameters, optimizer state: anything picklable) to `path`, from rank 0.

    Examples
    --------
    >>> import os, tempfile, numpy as np, fgrad.distributed as dist
    >>> path = os.path.join(tempfile.mkdtemp(), "step.pkl")
    >>> dist.save({"w": np.ones(2)}, path)
    >>> dist.load(path)["w"].tolist()
    [1.0, 1.0]
    """
    w = world()
    path = os.fspath(path)
    if w.rank == 0:
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            pickle.dump(obj, f, protocol=5)
        os.replace(tmp, path)
    w.barrier(Call("save"))  # (the path matters on rank 0 alone: the ranks need not agree on it)


def load(path: str | os.PathLike) -> Any:
    """What `save` wrote to `path`, on every rank (read by rank 0, sent to the others)."""
    w = world()
    path = os.fspath(path)
    obj = None
    if w.rank == 0:
        with open(path, "rb") as f:
            obj = pickle.load(f)
    return w.broadcast_object(obj, 0, Call("load"))
