"""fgrad.autograd: the imperative, PyTorch-style face (Tensor, backward, Function, hooks).

It shares the primitives, the tape nodes and the backward engine with the functional
transforms: the bottom trace records ops on tensors (tape.py) and backward() runs the
same engine as fgrad.grad.
"""
from . import forward_ad, graph, profiler
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx
from .functional import backward, grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .tensor import Tensor

__all__ = [
           "Function",
           "FunctionCtx",
           "Tensor",
           "backward",
           "detect_anomaly",
           "enable_grad",
           "forward_ad",
           "grad",
           "graph",
           "is_grad_enabled",
           "no_grad",
           "profiler",
           "set_detect_anomaly",
           "set_grad_enabled",
]
