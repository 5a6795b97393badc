"""Forward-mode AD for tensors: dual_level, make_dual, unpack_dual (torch.autograd.forward_ad).

A dual level is a fresh JVP trace: make_dual(primal, tangent) gives a dual value whose
operations carry their tangent through the same jvp rules as fgrad.jvp.
"""
import collections
import threading

from ..ops.primitive import new_trace
from ..transforms.forward import JVPTrace, JVPTracer, dual

__all__ = ["UnpackedDualTensor", "dual_level", "make_dual", "unpack_dual"]

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])
_state = threading.local()


class dual_level:
    """Context manager: dual values made inside belong to this level and die with it."""

    def __enter__(self):
        self._ctx = new_trace(JVPTrace, "forward_ad.dual_level")
        trace = self._ctx.__enter__()
        _state.levels = getattr(_state, "levels", []) + [trace]
        return trace

    def __exit__(self, *exc):
        _state.levels.pop()
        return self._ctx.__exit__(*exc)


def make_dual(tensor, tangent, *, level=None):
    """A dual value with primal `tensor` and tangent `tangent` (same shape)."""
    levels = getattr(_state, "levels", [])
    if not levels:
        raise RuntimeError("make_dual: to create a dual tensor, you must be inside a dual_level() context")
    trace = level if level is not None else levels[-1]
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"make_dual: expected tangent of shape {tuple(tensor.shape)}, got {tuple(tangent.shape)}")
    trace.direct = False  # its primals are tensors: ops go through the imperative tape
    return dual(trace, tensor, tangent)


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a dual value; tangent is None for an ordinary tensor."""
    levels = getattr(_state, "levels", [])
    trace = level if level is not None else (levels[-1] if levels else None)
    if isinstance(tensor, JVPTracer) and tensor._trace is trace:
        return UnpackedDualTensor(tensor.primal, tensor.tangent)
    return UnpackedDualTensor(tensor, None)
