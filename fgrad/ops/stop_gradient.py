"""stop_gradient: the identity whose derivative is zero, at every level."""
from ..tree_util import tree_map
from ..typing import PyTree
from .primitive import Primitive

# Non-differentiable: no derivative's tracer survives it; vmap's does (each example stops its own).
_stop = Primitive("stop_gradient", lambda x: x, batch=lambda args, dims: (_stop(args[0]), dims[0]))


def stop_gradient(x: PyTree) -> PyTree:
    """`x` (an array or a pytree of arrays) unchanged, with its derivative cut off: every enclosing
    transform (grad, vjp, jvp, hessian, a Tensor's backward) treats the result as a constant, so
    its gradient is zero; under vmap each example is stopped separately.

    Examples
    --------
    >>> fgrad.grad(lambda x: x * fgrad.stop_gradient(x))(3.0)
    np.float64(3.0)
    """
    return tree_map(lambda v: _stop(v), x)
