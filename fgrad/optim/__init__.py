"""fgrad.optim: SGD and Adam.

- optimizer.py: `Optimizer`, and SGD and Adam updating parameters in place from their .grad.
"""
from .optimizer import SGD, Adam, Optimizer

__all__ = ["SGD", "Adam", "Optimizer"]
