"""fgrad.nn: torch.nn's modules and their API.

- module.py: Module (registration, traversal, state dicts, to(), hooks) and Parameter.
- containers.py: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.
- modules.py: the layers: Linear, Identity, Flatten, Unflatten, the activations and the losses.
- conv.py: the convolutions (Conv1d, Conv2d, ConvTranspose2d), each function beside its Module.
- pooling.py: the pools (MaxPool1d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d), function and Module.
- normalization.py: BatchNorm1d/2d, LayerNorm, GroupNorm, RMSNorm, function and Module.
- dropout.py: Dropout and Dropout2d, function and Module.
- sparse.py: Embedding and its function.
- parameters.py: new parameters' values (torch's initializations) and constants on an input's device.
- functional.py: fgrad.nn.functional: activations and losses written in fgrad ops.
- parallel/: fgrad.nn.parallel: DistributedDataParallel (on fgrad.distributed).
"""
from . import functional, parallel
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .dropout import Dropout, Dropout2d
from .module import Module, Parameter
from .modules import CrossEntropyLoss, Flatten, Identity, Linear, MSELoss, ReLU, Sigmoid, Tanh, Unflatten
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm, RMSNorm
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool1d, MaxPool2d
from .sparse import Embedding

__all__ = [
           "AdaptiveAvgPool2d",
           "AvgPool2d",
           "BatchNorm1d",
           "BatchNorm2d",
           "Conv1d",
           "Conv2d",
           "ConvTranspose2d",
           "CrossEntropyLoss",
           "Dropout",
           "Dropout2d",
           "Embedding",
           "Flatten",
           "GroupNorm",
           "Identity",
           "LayerNorm",
           "Linear",
           "MSELoss",
           "MaxPool1d",
           "MaxPool2d",
           "Module",
           "ModuleDict",
           "ModuleList",
           "Parameter",
           "ParameterDict",
           "ParameterList",
           "RMSNorm",
           "ReLU",
           "Sequential",
           "Sigmoid",
           "Tanh",
           "Unflatten",
           "functional",
           "parallel",
]
