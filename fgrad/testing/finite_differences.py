"""Central finite differences: the ground truth every derivative is checked against.

A complex input is a pair of reals: a tangent may move it in any complex direction (its
real and imaginary parts at once), and a complex output's difference quotient is complex.
"""
import numpy as np

from ..ir.value import concrete
from ..transforms import checks, trees
from ..typing import Any, Callable, PyTree, Sequence

__all__ = ["default_eps", "numerical_jacobian", "numerical_jvp", "widened"]


def default_eps(dtype):
    """A step balancing truncation and rounding error for central differences (a complex
    dtype's, that of its real parts)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        dtype = np.finfo(dtype).dtype
    return {np.dtype(np.float32): 1e-3, np.dtype(np.float16): 1e-2}.get(dtype, 1e-6)


def widened(value):
    """`value` as a float64 array, or complex128 for a complex one (never dropping a part)."""
    a = np.asarray(concrete(value))
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def _as_float_leaves(args, where):
    leaves, treedef = trees.flatten(tuple(args))
    labels = trees.leaf_labels(treedef, "args")
    return [np.asarray(concrete(checks.float_input(x, lbl, where))) for x, lbl in zip(leaves, labels)], treedef


def numerical_jvp(fun: Callable[..., PyTree], args: Sequence[PyTree], tangents: Sequence[PyTree],
                  eps: float | None = None) -> PyTree:
    """(f(x + eps t) - f(x - eps t)) / (2 eps), leaf by leaf of f's output."""
    leaves, treedef = _as_float_leaves(args, "numerical_jvp")
    t_leaves, _ = trees.flatten(tuple(tangents))
    eps = default_eps(leaves[0].dtype) if eps is None else eps

    def at(sign):
        shifted = [x + sign * eps * np.asarray(t, x.dtype) for x, t in zip(leaves, t_leaves)]
        out_leaves, out_tree = trees.flatten(fun(*trees.unflatten(treedef, shifted)))
        return [widened(o) for o in out_leaves], out_tree

    plus, out_tree = at(+1)
    minus, _ = at(-1)
    return trees.unflatten(out_tree, [(p - m) / (2 * eps) for p, m in zip(plus, minus)])


def numerical_jacobian(fun: Callable[..., PyTree], args: Sequence[PyTree], eps: float | None = None) -> Any:
    """The Jacobian of `fun` at `args` by central differences (for a complex input, along its
    real axis: f'(z) of a holomorphic f).

    For one array argument and one array output the result has shape
    out.shape + in.shape (as jacfwd); in general it is a list over output leaves of
    lists over input leaves.
    """
    if not isinstance(args, (tuple, list)):
        args = (args,)
    leaves, treedef = _as_float_leaves(args, "numerical_jacobian")
    columns = []  # per input leaf: list of per-element output leaf lists
    for k, x in enumerate(leaves):
        cols = []
        for idx in np.ndindex(x.shape):
            tangents = [np.zeros_like(v) for v in leaves]
            tangents[k][idx] = 1.0
            col = numerical_jvp(fun, trees.unflatten(treedef, leaves), trees.unflatten(treedef, tangents), eps)
            cols.append(trees.flatten(col)[0])
        columns.append(cols)
    out_example = columns[0][0] if columns[0] else trees.flatten(fun(*args))[0]
    jac = [[np.stack([c[i] for c in columns[k]], axis=-1).reshape(np.shape(out_example[i]) + leaves[k].shape)
            if columns[k] else np.zeros(np.shape(out_example[i]) + leaves[k].shape)
            for k in range(len(leaves))] for i in range(len(out_example))]
    return jac[0][0] if len(jac) == 1 and len(jac[0]) == 1 else jac
