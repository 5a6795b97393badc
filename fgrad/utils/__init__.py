"""fgrad.utils: torch.utils's names for training loops.

- data.py: fgrad.utils.data: Dataset, TensorDataset, Subset, random_split, the samplers, DataLoader.
"""
from . import data

__all__ = ["data"]
