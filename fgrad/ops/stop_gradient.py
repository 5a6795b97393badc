"""stop_gradient: the identity whose derivative is zero, at every level."""
from ..tree_util import tree_map
from ..typing import PyTree
from .primitive import Primitive

# Non-differentiable: no derivative's tracer survives it; vmap's does (each example stops its own).
_stop = Primitive("stop_gradient", lambda x: x, batch=lambda args, dims: (_stop(args[0]), dims[0]))


def stop_gradient(x: PyTree) -> PyTree:
    """`x` with its derivative cut off for every enclosing transform."""
    return tree_map(lambda v: _stop(v), x)
