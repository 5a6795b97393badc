"""fgrad.nn: torch.nn's modules and their API.

- module.py: Module (registration, traversal, state dicts, to(), hooks) and Parameter.
- containers.py: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.
- modules.py: the layers: Linear, Identity, Flatten, Unflatten, the activations and the losses.
- functional.py: fgrad.nn.functional: activations and losses written in fgrad ops.
- parallel/: fgrad.nn.parallel: DistributedDataParallel (on fgrad.distributed).
"""
from . import functional, parallel
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .module import Module, Parameter
from .modules import CrossEntropyLoss, Flatten, Identity, Linear, MSELoss, ReLU, Sigmoid, Tanh, Unflatten

__all__ = [
           "CrossEntropyLoss",
           "Flatten",
           "Identity",
           "Linear",
           "MSELoss",
           "Module",
           "ModuleDict",
           "ModuleList",
           "Parameter",
           "ParameterDict",
           "ParameterList",
           "ReLU",
           "Sequential",
           "Sigmoid",
           "Tanh",
           "Unflatten",
           "functional",
           "parallel",
]
