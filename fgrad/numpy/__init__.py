"""fgrad.numpy: NumPy's names and signatures, differentiable.

On plain arrays every function returns a plain array of the same backend; on traced
values it traces. `import fgrad.numpy as fnp`.
"""
import sys as _sys

import numpy as _np

from . import bridge as _bridge
from . import linalg
from . import methods as _methods  # noqa: F401  (attaches operators to traced values)
from ._core import *  # noqa: F403
from .linalg import dot, einsum, inner, kron, matmul, outer, tensordot, vdot  # noqa: F401

pi, e, inf, nan, newaxis, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, None, _np.euler_gamma
float16, float32, float64, int32, int64, bool_, complex64, complex128 = (
    _np.float16, _np.float32, _np.float64, _np.int32, _np.int64, _np.bool_, _np.complex64, _np.complex128)
ndarray = _np.ndarray
zeros, ones, empty, full, eye, identity, arange, linspace, logspace, tri = (
    _np.zeros, _np.ones, _np.empty, _np.full, _np.eye, _np.identity, _np.arange, _np.linspace, _np.logspace, _np.tri)

_bridge.cover(_sys.modules[__name__], _np, "numpy.")  # np.<name>(traced) runs fgrad.numpy.<name>
_bridge.cover(linalg, _np.linalg, "numpy.linalg.")
