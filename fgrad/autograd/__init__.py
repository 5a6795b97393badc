"""fgrad.autograd: the imperative, PyTorch-style face (Tensor, backward, Function, hooks).

It shares the primitives, the tape nodes and the backward engine with the functional
transforms: the bottom trace records ops on tensors (tape.py) and backward() runs the
same engine as fgrad.grad.

- tensor.py: `Tensor`, an array that may record its history: methods, operators, views.
- tape.py: the imperative tape: an op on tensors records a grad_fn node (`record`).
- functional.py: backward() and grad(), the face's entry points into the engine.
- callbacks.py: queue_callback: what a hook queues runs before backward() returns.
- function.py: `Function`, user-defined forward and backward, PyTorch style.
- factories.py: tensor constructors (fgrad.tensor, zeros, ones, randn, arange, ...).
- torch_functions.py: torch's functions on Tensors (fgrad.cat, gather, sort, ...), also bound as methods.
- torch_linalg.py: fgrad.linalg, torch.linalg's functions on Tensors (norms, solves, decompositions).
- torch_fft.py: fgrad.fft, torch.fft's functions on Tensors (n/s, dim, norm).
- torch_special.py: fgrad.special, torch.special's functions on Tensors.
- torch_complex.py: complex and distance functions (view_as_real, polar, angle, cdist, cholesky, ...).
- torch_order.py: order statistics, scans and searches (median, quantile, kthvalue, mode, cummax, unique, ...).
- torch_shapes.py: shapes, joining, splitting, indexing (meshgrid, hstack, tensor_split, index_add, cov, trapezoid).
- dtypes.py: torch's dtype names (fgrad.float32, fgrad.long, ...) and Size.
- promotion.py: torch's type promotion (result_type, promote_types, can_cast) and the operators that follow it.
- dims.py: torch's `dim` arguments checked (IndexError, torch's message) and made nonnegative.
- serialization.py: fgrad.save and fgrad.load (pickle, with torch's weights_only guard).
- generator.py: `Generator`, a seedable random stream (numpy's), and the default one.
- grad_mode.py: no_grad, enable_grad, set_grad_enabled: whether ops record, per thread.
- anomaly_mode.py: detect_anomaly: where each node was made, and a loud failure on NaN.
- nan_check.py: debug_nans on backward(): the node whose rule made a NaN a leaf's gradient holds.
- saved_hooks.py: saved_tensors_hooks(pack, unpack) around the values saved for backward.
- forward_ad.py: forward-mode AD on tensors: dual_level, make_dual, unpack_dual.
- graph.py: fgrad.autograd.graph's names: the node type and saved_tensors_hooks.
- profiler.py: a small profiler: per-op forward and backward counts and times.
- viz.py: make_dot: a picture of a Tensor's grad_fn graph (torchviz's), drawn by Graphviz.
"""
from . import forward_ad, graph, profiler, viz
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
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
           "once_differentiable",
           "profiler",
           "set_detect_anomaly",
           "set_grad_enabled",
           "viz",
]
