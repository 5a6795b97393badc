"""ShardedOptimizer: ZeRO stage 1 for the functional face, each rank keeps and updates one shard.

The parameters, raveled into one vector and padded to a multiple of the ranks, are cut into
world_size() equal shards. Rank r keeps the optimizer state of shard r alone (Adam's two
moments: 1/N of the memory on each rank), updates that shard, and the ranks all-gather the
updated shards into the full parameters. The gradients are either the global means already
(data_parallel's: each rank slices its shard) or each rank's own (`reduced=False`): then they
are reduce-scattered, so each rank receives only the mean of its shard, and the step moves
what one all-reduce would (a reduce-scatter and an all-gather) while keeping 1/N of the
state. The collectives are primitives, so the whole step compiles.

`state_dict` gathers the state into a world-independent form (the full vectors), which
`load_state_dict` cuts again for the current world: a checkpoint resumes on any number of ranks.
"""
import numpy as np

from .. import numpy as fnp
from ..ir.value import peek
from ..transforms import trees
from ..typing import PyTree
from .collectives import all_gather, reduce_scatter
from .optimizers import Rule
from .world import world

__all__ = ["ShardedOptimizer"]


class ShardedOptimizer:
    """ZeRO-1 around a functional rule (`fgrad.distributed.sgd(...)` or `adam(...)`).

    Examples
    --------
    >>> import numpy as np, fgrad.distributed as dist
    >>> opt = dist.ShardedOptimizer(dist.sgd(lr=0.5))
    >>> params = {"w": np.ones(3)}
    >>> state = opt.init(params)
    >>> params, state = opt.update({"w": np.ones(3)}, state, params)
    >>> params["w"].tolist()
    [0.5, 0.5, 0.5]
    """

    def __init__(self, rule: Rule):
        if not isinstance(rule, Rule):
            raise TypeError(f"ShardedOptimizer: rule must be fgrad.distributed.sgd(...) or adam(...), got "
                            f"{type(rule).__name__}")
        self.rule = rule

    def init(self, params: PyTree) -> dict:
        """The state of this rank's shard of `params`."""
        flat, _ = _ravel(params, "init")
        return self.rule.init(_shard(_padded(flat, _layout(flat.size)), _layout(flat.size)))

    def update(self, grads: PyTree, state: dict, params: PyTree, reduced: bool = True) -> tuple[PyTree, dict]:
        """(new params, new state). `grads`: the global means (reduced=True, data_parallel's),
        or this rank's own gradients (reduced=False: their means are reduce-scattered)."""
        flat_p, unravel = _ravel(params, "update (params)")
        flat_g, _ = _ravel(grads, "update (grads)")
        if flat_g.shape != flat_p.shape:
            raise ValueError(f"ShardedOptimizer.update: grads hold {flat_g.size} numbers, params {flat_p.size}")
        layout = _layout(flat_p.size)
        n, shard = layout
        g = _padded(flat_g, layout)
        if reduced:
            g_mine = _shard(g, layout)
        else:
            g_mine = reduce_scatter(fnp.reshape(g, (world().size, shard)), op="mean", name="grads")
        p_mine, state = self.rule.update(_shard(_padded(flat_p, layout), layout), g_mine, state)
        full = all_gather(p_mine, tiled=True, name="params")
        return unravel(full[:n]), state

    def state_dict(self, state: dict, params: PyTree) -> dict:
        """The whole state of `params`' optimizer, gathered from every rank (a collective: every
        rank calls it), in a form that does not depend on the number of ranks."""
        n = _ravel(params, "state_dict")[0].size
        full = {}
        for key, value in state.items():
            full[key] = np.asarray(all_gather(value, tiled=True, name=f"state[{key!r}]"))[:n] \
                if np.ndim(peek(value)) == 1 else value
        return {"rule": self.rule.name, "settings": self.rule.settings, "state": full}

    def load_state_dict(self, saved: dict, params: PyTree) -> dict:
        """This rank's shard of a state_dict() (saved by any number of ranks), for `params`."""
        if saved["rule"] != self.rule.name:
            raise ValueError(f"ShardedOptimizer.load_state_dict: the checkpoint holds {saved['rule']}'s state, this "
                             f"optimizer runs {self.rule.name}")
        flat, _ = _ravel(params, "load_state_dict")
        layout = _layout(flat.size)
        state = {}
        for key, value in saved["state"].items():
            if np.ndim(value) == 1:
                value = np.asarray(value)
                if value.size != flat.size:
                    raise ValueError(f"ShardedOptimizer.load_state_dict: state[{key!r}] holds {value.size} numbers, "
                                     f"the parameters {flat.size}")
                value = _shard(_padded(value.astype(flat.dtype), layout), layout)
            state[key] = value
        return state


def _layout(n):
    """(n, shard): n numbers in world_size() shards of `shard` each (the last ones padded)."""
    size = world().size
    return n, -(-n // size) if n else 0


def _padded(flat, layout):
    n, shard = layout
    extra = shard * world().size - n
    return fnp.concatenate([flat, fnp.zeros(extra, dtype=flat.dtype)]) if extra else flat


def _shard(padded, layout):
    r, shard = world().rank, layout[1]
    return padded[r * shard:(r + 1) * shard]


def _ravel(tree, where):
    """(one vector of every leaf, a function from such a vector back to the tree)."""
    leaves, treedef = trees.flatten(tree)
    if not leaves:
        raise ValueError(f"ShardedOptimizer.{where}: the pytree has no leaves")
    dtypes = {np.dtype(peek(leaf).dtype) for leaf in leaves}
    if len(dtypes) != 1 or next(iter(dtypes)).kind != "f":
        raise TypeError(f"ShardedOptimizer.{where}: the leaves must share one floating dtype, got "
                        f"{sorted(map(str, dtypes))}")
    shapes = [tuple(np.shape(peek(leaf))) for leaf in leaves]
    flat = fnp.concatenate([fnp.ravel(leaf) for leaf in leaves])

    def unravel(vector):
        out, start = [], 0
        for shape in shapes:
            size = int(np.prod(shape, dtype=np.int64))
            out.append(fnp.reshape(vector[start:start + size], shape))
            start += size
        return trees.unflatten(treedef, out)
    return flat, unravel
