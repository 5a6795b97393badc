"""fgrad.nn: just enough of torch.nn for training loops."""
from . import functional
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
]
