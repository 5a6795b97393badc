"""fgrad.nn.parallel: DistributedDataParallel, torch's data-parallel Module, on fgrad.distributed.

- distributed.py: DistributedDataParallel: parameters from rank 0, hooks, no_sync.
- reducer.py: the buckets, all-reduced while backward runs.
"""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
