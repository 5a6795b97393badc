"""fgrad.nn: just enough of torch.nn for training loops.

- modules.py: Module, Parameter, Linear, the activations, Sequential and the losses.
- functional.py: fgrad.nn.functional: activations and losses written in fgrad ops.
- parallel/: fgrad.nn.parallel: DistributedDataParallel (on fgrad.distributed).
"""
from . import functional, parallel
from .modules import CrossEntropyLoss, Linear, Module, MSELoss, Parameter, ReLU, Sequential, Sigmoid, Tanh

__all__ = [
           "CrossEntropyLoss",
           "Linear",
           "MSELoss",
           "Module",
           "Parameter",
           "ReLU",
           "Sequential",
           "Sigmoid",
           "Tanh",
           "functional",
           "parallel",
]
