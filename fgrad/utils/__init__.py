"""fgrad.utils: torch.utils's names for training loops.

- data.py: fgrad.utils.data: Dataset, TensorDataset, Subset, random_split, the samplers, DataLoader.
- checkpoint.py: fgrad.utils.checkpoint: checkpoint(fn, *args) and checkpoint_sequential.
"""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
