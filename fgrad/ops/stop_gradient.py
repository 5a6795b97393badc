"""stop_gradient: the identity whose derivative is zero, at every level."""
import optree

from .primitive import Primitive

_stop = Primitive("stop_gradient", lambda x: x)  # non-differentiable: no tracer survives it


def stop_gradient(x):
    """`x` with its derivative cut off for every enclosing transform."""
    return optree.tree_map(lambda v: _stop(v), x)
