"""DistributedDataParallel: a Module whose backward all-reduces its gradients over the ranks.

As torch's: the wrapped module's parameters are broadcast from rank 0 when it is made (after
the ranks have agreed on their names, shapes and dtypes), each parameter gets a
post-accumulate-grad hook that hands its gradient to the reducer (reducer.py), which
all-reduces buckets while backward runs, and backward() returns with every .grad the mean
over the ranks. `no_sync()` skips the reduction, for gradient accumulation: the gradients of
the backward passes inside it accumulate locally, and the first backward after it reduces
their sum.
"""
import contextlib
import functools

from ...autograd.grad_mode import is_grad_enabled
from ...distributed import init
from ...distributed.agreement import Call
from ..modules import Module
from .reducer import Reducer

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Data-parallel training of `module` over the ranks of fgrad.distributed (torch's DDP).

    Parameters
    ----------
    module : the Module to train; every rank builds the same one.
    bucket_cap_mb : the size of a gradient bucket in MiB (25, as torch's; the first bucket
        holds at most 1 MiB, so its all-reduce starts early).
    find_unused_parameters : walk each forward pass's graph for parameters the loss does not
        use, and reduce without them (their .grad stays None where no rank used them).

    Examples
    --------
    >>> import numpy as np, fgrad
    >>> from fgrad.nn.parallel import DistributedDataParallel
    >>> model = DistributedDataParallel(fgrad.nn.Linear(3, 1))
    >>> model(fgrad.tensor(np.ones((4, 3)))).sum().backward()
    >>> model.module.weight.grad.shape
    (1, 3)
    """

    def __init__(self, module: Module, bucket_cap_mb: float = 25, find_unused_parameters: bool = False):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be a fgrad.nn.Module, got {type(module).__name__}")
        if not bucket_cap_mb > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got {bucket_cap_mb!r}")
        self.module = module
        world = init()
        named = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel: the module has no parameter that requires grad")
        names, params = [n for n, _ in named], [p for _, p in named]
        _from_rank_0(world, names, params)
        self.reducer = Reducer(params, names, int(bucket_cap_mb * (1 << 20)), world, find_unused_parameters)
        self._handles = [p.register_post_accumulate_grad_hook(functools.partial(self.reducer.on_ready, i))
                         for i, p in enumerate(params)]
        self.require_backward_grad_sync = True

    def forward(self, *inputs, **kwargs):
        out = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare(out)
        else:
            self.reducer.skip()
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Inside it, backward passes accumulate .grad locally; the next one outside reduces.

        Examples
        --------
        >>> import numpy as np, fgrad
        >>> from fgrad.nn.parallel import DistributedDataParallel
        >>> model = DistributedDataParallel(fgrad.nn.Linear(2, 1))
        >>> with model.no_sync():
        ...     model(fgrad.tensor(np.ones((1, 2)))).sum().backward()
        >>> model(fgrad.tensor(np.ones((1, 2)))).sum().backward()
        >>> model.module.bias.grad.tolist()
        [2.0]
        """
        before = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = before

    @property
    def bucket_log(self) -> list:
        """The last reduced backward's events, in order: ("ready", name) as each gradient came in,
        ("start", k) as bucket k's all-reduce started, ("done",) when backward was returning."""
        return list(self.reducer.log)

    @property
    def buckets(self) -> list[list[str]]:
        """The parameters' names, bucket by bucket, in the order the buckets are reduced."""
        return [[self.reducer.names[i] for i in b.members] for b in self.reducer.buckets]

    def extra_repr(self):
        return f"buckets={len(self.reducer.buckets)}, find_unused_parameters={self.reducer.find_unused}"


def _from_rank_0(world, names, params):
    """Every rank's parameters become rank 0's (the broadcast's agreement check first names a
    parameter whose name, shape or dtype differs between ranks)."""
    theirs = world.broadcast([p.primal for p in params], 0, Call("DistributedDataParallel's parameters", "root=0",
                                                                names))
    if world.rank == 0:
        return
    for p, value in zip(params, theirs):
        p.primal[...] = value
        p._version_counter.value += 1  # (written in place, as an optimizer step writes it)
