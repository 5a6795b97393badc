"""fgrad.numpy: NumPy's names and signatures, differentiable.

On plain arrays every function returns a plain array of the same backend; on traced
values it traces. `import fgrad.numpy as fnp`.
"""
import sys as _sys

import numpy as _np

from ..ops.special import i0  # noqa: F401  (np.i0 is the modified Bessel function scipy.special.i0 is)
from . import bridge as _bridge
from . import linalg
from . import methods as _methods  # noqa: F401  (attaches operators to traced values)
from ._calculus import *  # noqa: F403
from ._core import *  # noqa: F403
from ._indexing import *  # noqa: F403
from ._math import *  # noqa: F403
from ._sets import *  # noqa: F403
from ._shaping import *  # noqa: F403
from ._statistics import *  # noqa: F403
from ._types import *  # noqa: F403
from .linalg import dot, einsum, inner, kron, matmul, outer, tensordot, vdot  # noqa: F401

pi, e, inf, nan, newaxis, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, None, _np.euler_gamma
ndarray = _np.ndarray
# NumPy's floating-point error handling: the kernels are NumPy's, so its settings govern them.
seterr, geterr, errstate, seterrcall, geterrcall = _np.seterr, _np.geterr, _np.errstate, _np.seterrcall, _np.geterrcall
zeros, ones, empty, eye, identity, arange, linspace, logspace, tri = (
    _np.zeros, _np.ones, _np.empty, _np.eye, _np.identity, _np.arange, _np.linspace, _np.logspace, _np.tri)

_bridge.cover(_sys.modules[__name__], _np, "numpy.")  # np.<name>(traced) runs fgrad.numpy.<name>
_bridge.cover(linalg, _np.linalg, "numpy.linalg.")
