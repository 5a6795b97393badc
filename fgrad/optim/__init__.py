"""fgrad.optim: SGD and Adam."""
from .optimizer import SGD, Adam, Optimizer

__all__ = ["SGD", "Adam", "Optimizer"]
