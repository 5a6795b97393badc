"""fgrad.nn: just enough of torch.nn for training loops."""
from . import functional
from .modules import CrossEntropyLoss, Linear, Module, MSELoss, Parameter, ReLU, Sequential, Sigmoid, Tanh

__all__ = ["functional", "Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Sequential", "MSELoss",
           "CrossEntropyLoss"]
