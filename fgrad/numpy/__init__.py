"""fgrad.numpy: NumPy's names and signatures, differentiable.

On plain arrays every function returns a plain array of the same backend; on traced
values it traces. `import fgrad.numpy as fnp`.

One module per concept, each with a literal `__all__` (what fgrad.numpy exports from it);
each imports only modules listed above it:
- _arguments.py: what every function does to its arguments first (operands, shapes, axes).
- _shaping.py: reshaping, transposing, broadcasting, joining, splitting, padding, appliers.
- _creation.py: np.array and asarray (lists of traced values stack), full, the *_like.
- _elementwise.py: the primitives' entry functions under NumPy's names; round, clip, where.
- _indexing.py: a[index], take, `at`, diagonals and triangles, index builders, selections.
- _reductions.py: sum, mean, var, extrema, products, scans, arg-reductions, sort, any/all.
- _types.py: NumPy's dtypes and scalar types, and the type queries.
- _math.py: the remaining elementwise and array-API functions, and the cross product.
- _sets.py: searching, sorting by value, counting and set operations.
- _statistics.py: quantiles, weighted means, covariances, histograms, nan-reductions.
- linalg.py: fgrad.numpy.linalg, and the matrix and vector products (dot, einsum, vecdot, ...).
- fft.py: fgrad.numpy.fft, numpy.fft's transforms on the FFT primitives (ops/fft.py).
- _calculus.py: differences, gradients, integrals, interpolation, convolution, polynomials.
- methods.py: the operators and NumPy-style methods of traced values.
- bridge.py: NumPy's override protocols: np.<name>(traced) runs fgrad.numpy.<name>.
- coverage.py: the NumPy functions fgrad covers, as the page docs/numpy-coverage.md.
- _softmax.py: logsumexp, softmax and log_softmax, for fgrad.scipy.special and the Tensor
  face (not exported here: NumPy has no such names).
"""
import sys as _sys

import numpy as _np

from ..ops.special import i0  # noqa: F401  (np.i0 is the modified Bessel function scipy.special.i0 is)
from . import bridge as _bridge
from . import fft, linalg
from . import methods as _methods  # noqa: F401  (attaches operators to traced values)
from ._calculus import *  # noqa: F403
from ._creation import *  # noqa: F403
from ._elementwise import *  # noqa: F403
from ._indexing import *  # noqa: F403
from ._math import *  # noqa: F403
from ._reductions import *  # noqa: F403
from ._sets import *  # noqa: F403
from ._shaping import *  # noqa: F403
from ._statistics import *  # noqa: F403
from ._types import *  # noqa: F403
from .linalg import dot, einsum, inner, kron, matmul, matvec, outer, tensordot, vdot, vecdot, vecmat  # noqa: F401

pi, e, inf, nan, newaxis, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, None, _np.euler_gamma
# NumPy's floating-point error handling: the kernels are NumPy's, so its settings govern them.
seterr, geterr, errstate, seterrcall, geterrcall = _np.seterr, _np.geterr, _np.errstate, _np.seterrcall, _np.geterrcall

_bridge.cover(_sys.modules[__name__], _np, "numpy.")  # np.<name>(traced) runs fgrad.numpy.<name>
_bridge.cover(linalg, _np.linalg, "numpy.linalg.")
_bridge.cover(fft, _np.fft, "numpy.fft.")
