"""fgrad.distributed: data-parallel training across processes and machines, on MPI.

Run a script with `mpiexec -n N python train.py` (or `srun`); run on its own it is a world of
one and works unchanged. The [distributed] extra brings mpi4py and an MPI; without it, fgrad
imports and runs in a world of one. CuPy arrays travel through NCCL where CuPy has it.

- world.py: init, rank, world_size, barrier: the world (MPI's, or a world of one) and its timeout.
- collectives.py: all_reduce, broadcast, reduce, all_gather, reduce_scatter: primitives with their rules.
- averaging.py: data_parallel: a value_and_grad function made to return the means over the ranks.
- sharded.py: ShardedOptimizer: ZeRO-1, each rank updates its shard of the optimizer state.
- optimizers.py: sgd and adam as functional update rules (torch's formulas) for ShardedOptimizer.
- saving.py: save and load: a checkpoint written by rank 0, read by any number of ranks.
- mpi.py: the world on MPI: nonblocking requests polled against a deadline.
- nccl.py: collectives of CuPy arrays through NCCL (cupy.cuda.nccl).
- faults.py: a rank that raises makes every rank raise (Note [a failing rank]).
- agreement.py: what the ranks agree on before a collective moves data, and what to say if not.
- buffers.py: leaves packed into one flat buffer per dtype and device.
- errors.py: CollectiveTimeoutError, RankFailedError, CollectiveMismatchError.

The imperative face's DistributedDataParallel is fgrad.nn.parallel's. docs/distributed.md
shows both faces and the launch commands.
"""
from .averaging import data_parallel
from .collectives import all_gather, all_reduce, broadcast, reduce, reduce_scatter
from .errors import CollectiveMismatchError, CollectiveTimeoutError, RankFailedError
from .optimizers import adam, sgd
from .saving import load, save
from .sharded import ShardedOptimizer
from .world import barrier, init, is_initialized, rank, world_size

__all__ = [
           "CollectiveMismatchError",
           "CollectiveTimeoutError",
           "RankFailedError",
           "ShardedOptimizer",
           "adam",
           "all_gather",
           "all_reduce",
           "barrier",
           "broadcast",
           "data_parallel",
           "init",
           "is_initialized",
           "load",
           "rank",
           "reduce",
           "reduce_scatter",
           "save",
           "sgd",
           "world_size",
]
