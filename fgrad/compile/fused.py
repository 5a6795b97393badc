"""The fused step's pieces that fusion (compile/fusion.py) and its numba backend
(compile/numba_kernels.py) share: `FusedKernel`, the primitive of a fused step, and
`loop_dtypes`, the loop NumPy resolves for a step's operands (Note [fused results are NumPy's]
in compile/fusion.py)."""
import numpy as np

from ..backend import CPU
from ..ir.value import WEAK_TYPES

__all__ = ["FusedKernel", "loop_dtypes"]

_LOOPS = {}  # (ufunc, operand dtypes or weak types) -> NumPy's loop dtypes for them, or None


class FusedKernel:
    """The primitive of a fused step: `impl` runs the region (numba's loop, or NumPy's steps
    when that cannot be used); `steps` are the region's Eqns, `text` them as printed, `label`
    what the kernel is, `source` the loop numba compiled."""

    __slots__ = ("name", "label", "impl", "steps", "text", "source")
    effectful = fresh = False
    multiple_results = True

    def __init__(self, name, label, impl, steps, text, source):
        self.name, self.label, self.impl, self.steps, self.text, self.source = name, label, impl, steps, text, source

    def __repr__(self):
        return f"FusedKernel({self.name})"


def loop_dtypes(p, step):
    """NumPy's loop dtypes (inputs..., output) for `step`'s operands, Python numbers weak;
    None if an operand is not a CPU array, a NumPy scalar or a Python number."""
    given = []
    for a in step.ins:
        if a.__class__ is int:
            _, dtype, (cls, device) = p.avals[a]
            if cls in WEAK_TYPES:
                given.append(cls)
            elif (device is CPU or device == CPU) and (cls is np.ndarray or issubclass(cls, np.generic)):
                given.append(dtype)
            else:
                return None
        else:
            v = a.value
            given.append(type(v) if type(v) in WEAK_TYPES else getattr(v, "dtype", None))
            if given[-1] is None:
                return None
    key = (step.prim.impl, *given)
    loop = _LOOPS.get(key, False)
    if loop is False:  # (resolve_dtypes costs ~10 us: a million-step program asks about few kinds of step)
        try:
            loop = step.prim.impl.resolve_dtypes(tuple(given) + (None,))
        except (TypeError, ValueError):  # (no loop for these dtypes: NumPy would raise too)
            loop = None
        _LOOPS[key] = loop
    return loop
