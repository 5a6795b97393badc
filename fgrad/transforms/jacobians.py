"""Jacobians and Hessians on vmap: jacrev, jacfwd, jacobian, hessian, and hvp.

jacrev runs fun forward once and pulls back every basis cotangent in one batched pass
(vmap of the vjp function); jacfwd pushes every basis tangent through one batched jvp, in
which fun's primal computation runs once, unbatched (vmap of jvp). hessian is
jacfwd(jacrev). Shapes follow JAX: out.shape + in.shape. `chunk_size` bounds how many basis
vectors one pass carries (vmap's chunk_size). Complex values as in JAX: jacrev takes real
outputs, jacfwd real inputs, unless `holomorphic=True`, which asks for complex inputs and
outputs and gives f'(z) (Note [complex derivatives] in ops/conversion.py).
"""
import math

import numpy as np

from ..backend import device_of
from ..config import config
from ..ir.value import peek
from ..ops import shape as sh
from ..ops.indexing import getitem
from ..typing import Any, Callable, P, PyTree, Sequence
from . import checks, debug_nans, faces, trees
from .batching import vmap
from .forward import jvp_named
from .reverse import value_and_grad_call, vjp_named

__all__ = ["hessian", "hvp", "jacfwd", "jacobian", "jacrev"]


def _partial(fun, args, nums, kwargs):
    def partial(*diff):
        full = list(args)
        for i, d in zip(nums, diff):
            full[i] = d
        return fun(*full, **kwargs)
    return partial


def _size(x):
    return math.prod(x.shape) if hasattr(x, "shape") else 1


def _dtype(x):
    """The dtype of an array, a traced value or a Python number."""
    return np.result_type(x.dtype if hasattr(x, "dtype") else x)


def _basis_dtype(x):
    dtype = _dtype(x)
    return dtype if np.issubdtype(dtype, np.inexact) else np.dtype(np.float64)


def _basis(leaves):
    """The standard basis of the space of `leaves`, stacked: for each leaf, an array of shape
    (total size,) + its shape, on the leaf's device; together, row r of them is basis vector r."""
    total = sum(_size(x) for x in leaves)
    out, start = [], 0
    for x in leaves:
        n = _size(x)
        eye = np.zeros((total, n), _basis_dtype(x))
        eye[np.arange(start, start + n), np.arange(n)] = 1
        out.append(device_of(peek(x)).send(eye.reshape((total, *np.shape(x)))))
        start += n
    return out


def _rows(stacked, leaves):
    """Split `stacked` (a batched result, one row per basis vector of `leaves`' space) into the
    rows of each leaf, each shaped (leaf shape) + (the row's shape)."""
    out, start = [], 0
    for x in leaves:
        n = _size(x)
        rows = getitem(stacked, index=(slice(start, start + n),)) if n != stacked.shape[0] else stacked
        out.append(sh.reshape(rows, shape=tuple(np.shape(x)) + tuple(stacked.shape[1:])))
        start += n
    return out


def _to_back(x, lead):
    """Move the first `lead` axes of `x` to the end."""
    nd = x.ndim
    if not lead or lead == nd:
        return x
    return sh.transpose(x, axes=tuple(range(lead, nd)) + tuple(range(lead)))


def _assemble(out_tree, in_tree, blocks, argnums, in_leaves):
    """blocks[i][k]: d out_leaf i / d in_leaf k -> out pytree of (argnums-shaped) in pytrees. A
    0-d block for a scalar input (a Python or NumPy float) is a scalar, as its gradient is; the
    blocks of Tensor inputs are Tensors (faces.plain_values)."""
    per_out = []
    for row in blocks:
        row = [b[()] if b.__class__ is np.ndarray and b.ndim == 0 and isinstance(x, (float, np.generic)) else b
               for b, x in zip(row, in_leaves)]
        row = faces.plain_values(row, in_leaves)
        tree = trees.unflatten(in_tree, row)
        per_out.append(tree[0] if isinstance(argnums, int) else tuple(tree))
    return trees.unflatten(out_tree, per_out)


def _check_float_outputs(out_leaves, transform):
    for i, o in enumerate(out_leaves):
        dtype = _dtype(o)
        if not np.issubdtype(dtype, np.inexact):
            raise TypeError(f"{transform} requires floating-point outputs, but output {i} has dtype {dtype} "
                            f"(shape {tuple(np.shape(o)) if not hasattr(o, 'shape') else tuple(o.shape)})")


def _traced(fun, argnums, has_aux, transform, args, kwargs, holomorphic):
    """fun run once under vjp, differentiated in `argnums`: (vjp's result, the inputs)."""
    nums = checks.check_argnums(argnums, len(args), transform)
    diff = tuple(args[i] for i in nums)
    if holomorphic:
        checks.check_complex_inputs(trees.flatten(diff)[0], transform)
    return vjp_named(_partial(fun, args, nums, kwargs), diff, has_aux, transform), diff


def _pull_basis(res, diff, argnums, has_aux, transform, chunk_size, holomorphic):
    """The Jacobian from vjp's result `res`: every basis cotangent pulled back in one batched pass."""
    out_leaves, out_tree = trees.flatten(res[0])
    in_leaves, in_tree = trees.flatten(diff)
    _check_float_outputs(out_leaves, transform)
    if holomorphic:
        checks.check_holomorphic_outputs(out_leaves, transform)
    else:
        checks.check_real_outputs(out_leaves, transform)
    cts = trees.unflatten(out_tree, _basis(out_leaves))
    pulled = trees.flatten(vmap(res[1], chunk_size=chunk_size)(cts))[0]  # per input leaf: (M,) + its shape
    per_in = [_rows(p, out_leaves) for p in pulled]  # [k][i]: out_i.shape + in_k.shape
    blocks = [[per_in[k][i] for k in range(len(in_leaves))] for i in range(len(out_leaves))]
    jac = _assemble(out_tree, in_tree, blocks, argnums, in_leaves)
    return (jac, res[2]) if has_aux else jac


def _checked(jac_fun, argnums, transform, args, kwargs):
    """jac_fun(*args, **kwargs) under debug_nans, the differentiated arguments traced."""
    nums = checks.check_argnums(argnums, len(args), transform)
    return debug_nans.checked_call(transform, lambda t: jac_fun(*debug_nans.replaced(args, nums, t), **kwargs),
                                   [args[i] for i in nums], numbers=True)


def _jacrev(fun, argnums, has_aux, transform, chunk_size=None, holomorphic=False):
    def jacrev_fun(*args, **kwargs):
        if config.debug_nans and not debug_nans.state.busy:  # (Note [NaN provenance])
            return _checked(jacrev_fun, argnums, transform, args, kwargs)
        res, diff = _traced(fun, argnums, has_aux, transform, args, kwargs, holomorphic)
        return _pull_basis(res, diff, argnums, has_aux, transform, chunk_size, holomorphic)
    return trees.wraps(jacrev_fun, fun, transform)


def _jacfwd(fun, argnums, has_aux, transform, chunk_size=None, holomorphic=False):
    def jacfwd_fun(*args, **kwargs):
        if config.debug_nans and not debug_nans.state.busy:  # (Note [NaN provenance])
            return _checked(jacfwd_fun, argnums, transform, args, kwargs)
        nums = checks.check_argnums(argnums, len(args), transform)
        diff = tuple(args[i] for i in nums)
        in_leaves, in_tree = trees.flatten(diff)
        if holomorphic:
            checks.check_complex_inputs(in_leaves, transform)
        else:
            checks.check_real_inputs(in_leaves, transform)
        f = _partial(fun, args, nums, kwargs)

        def pushed(*tangents):  # fun's primal runs once, unbatched: only the tangents are batched
            return jvp_named(f, diff, tangents, has_aux, transform)
        axes = (None, 0, None) if has_aux else (None, 0)
        res = vmap(pushed, out_axes=axes, chunk_size=chunk_size)(*trees.unflatten(in_tree, _basis(in_leaves)))
        out_leaves, out_tree = trees.flatten(res[0])
        _check_float_outputs(out_leaves, transform)
        if holomorphic:
            checks.check_holomorphic_outputs(out_leaves, transform)
        pushed_leaves = trees.flatten(res[1])[0]  # per output leaf: (N,) + its shape
        blocks = []
        for t in pushed_leaves:
            rows = _rows(t, in_leaves)  # [k]: in_k.shape + out.shape
            blocks.append([_to_back(r, len(np.shape(x))) for r, x in zip(rows, in_leaves)])
        jac = _assemble(out_tree, in_tree, blocks, argnums, in_leaves)
        return (jac, res[2]) if has_aux else jac
    return trees.wraps(jacfwd_fun, fun, transform)


def jacrev(fun: Callable[P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, chunk_size: int | None = None) -> Callable[P, PyTree]:
    """The Jacobian by reverse mode: fun runs once, then every basis cotangent is pulled back
    in one batched pass (at most `chunk_size` at a time). Real outputs, unless `holomorphic`.

    Examples
    --------
    >>> fgrad.jacrev(lambda x: x ** 2)(np.array([1.0, 2.0]))
    array([[2., 0.], [0., 4.]])
    """
    return _jacrev(fun, argnums, has_aux, "jacrev", chunk_size, holomorphic)


def jacfwd(fun: Callable[P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, chunk_size: int | None = None) -> Callable[P, PyTree]:
    """The Jacobian by forward mode: every basis tangent is pushed through one batched jvp, in
    which fun's primal computation runs once (at most `chunk_size` tangents at a time). Real
    inputs, unless `holomorphic`.

    Examples
    --------
    >>> fgrad.jacfwd(lambda x: fnp.array([x[0] * x[1], x[0]]))(np.array([2.0, 3.0]))
    array([[3., 2.], [1., 0.]])
    """
    return _jacfwd(fun, argnums, has_aux, "jacfwd", chunk_size, holomorphic)


def _any_complex(leaves):
    return any(_dtype(x).kind == "c" for x in leaves)


def jacobian(fun: Callable[P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
             mode: str = "auto", chunk_size: int | None = None, holomorphic: bool = False) -> Callable[P, PyTree]:
    """The Jacobian, by forward mode (`mode="forward"`), reverse mode ("reverse"), or the cheaper
    of the two for the sizes at hand ("auto"): reverse when the outputs have fewer elements than
    the differentiated inputs, forward otherwise (as one would choose by hand). "auto" runs fun
    once under vjp to learn the output size; reverse mode goes on from that run, forward mode
    runs fun once more. Without `holomorphic`, "auto" takes the mode that accepts complex
    values where they are: reverse for complex inputs (real outputs), forward for complex
    outputs (real inputs); both complex needs holomorphic=True.

    Examples
    --------
    >>> J = fgrad.jacobian(lambda x: fnp.cumsum(x))(np.ones(3))  # mode="auto" picks the cheaper mode
    >>> J
    array([[1., 0., 0.], [1., 1., 0.], [1., 1., 1.]])
    """
    if mode not in ("auto", "forward", "reverse"):
        raise ValueError(f"jacobian: mode must be 'auto', 'forward' or 'reverse', got {mode!r}")
    if mode == "forward":
        return _jacfwd(fun, argnums, has_aux, "jacobian", chunk_size, holomorphic)
    if mode == "reverse":
        return _jacrev(fun, argnums, has_aux, "jacobian", chunk_size, holomorphic)
    fwd = _jacfwd(fun, argnums, has_aux, "jacobian", chunk_size, holomorphic)

    def jacobian_fun(*args, **kwargs):
        if config.debug_nans and not debug_nans.state.busy:  # (Note [NaN provenance])
            return _checked(jacobian_fun, argnums, "jacobian", args, kwargs)
        res, diff = _traced(fun, argnums, has_aux, "jacobian", args, kwargs, holomorphic)
        out_leaves, in_leaves = trees.flatten(res[0])[0], trees.flatten(diff)[0]
        reverse = sum(_size(o) for o in out_leaves) < sum(_size(x) for x in in_leaves)
        if not holomorphic and _any_complex(in_leaves):
            reverse = True  # (complex outputs too: _pull_basis refuses them with JAX's advice)
        elif not holomorphic and _any_complex(out_leaves):
            reverse = False
        if reverse:
            return _pull_basis(res, diff, argnums, has_aux, "jacobian", chunk_size, holomorphic)
        return fwd(*args, **kwargs)
    return trees.wraps(jacobian_fun, fun, "jacobian")


def hessian(fun: Callable[P, Any], argnums: int | Sequence[int] = 0,
            chunk_size: int | None = None, holomorphic: bool = False) -> Callable[P, PyTree]:
    """The Hessian, forward over reverse: jacfwd(jacrev(fun)), each one batched pass; complex
    inputs need `holomorphic=True` (as JAX's).

    Examples
    --------
    >>> fgrad.hessian(lambda x: x[0] ** 2 * x[1])(np.array([1.0, 3.0]))
    array([[6., 2.], [2., 0.]])
    """
    return _jacfwd(_jacrev(fun, argnums, False, "hessian", chunk_size, holomorphic), argnums, False, "hessian",
                   chunk_size, holomorphic)


def hvp(fun: Callable[..., PyTree], primals: Sequence[PyTree], tangents: Sequence[PyTree]) -> tuple[PyTree, PyTree]:
    """The Hessian-vector product of a scalar-valued `fun`: `(fun(*primals), H @ tangents)`.

    Computed as one jvp (forward mode) of the gradient (reverse mode); no Hessian is formed, so it
    costs a few evaluations of fun whatever the size.

    Parameters
    ----------
    fun : callable
        A function returning a real scalar.
    primals : tuple
        The point: one entry per argument.
    tangents : tuple
        The vector: one entry per primal, of its shape and dtype.

    Returns
    -------
    (value, hv)
        value is fun(*primals); hv is H @ tangents, of the first primal's shape for one argument, a
        tuple of one per argument otherwise.

    Raises
    ------
    TypeError
        As grad (a non-scalar output) and as jvp (tangents that do not match the primals).

    Examples
    --------
    >>> fgrad.hvp(lambda x: fnp.sum(x ** 3), (np.array([1.0, 2.0]),), (np.ones(2),))
    (np.float64(9.0), array([ 6., 12.]))
    """
    primals, tangents = tuple(primals), tuple(tangents)
    nums = tuple(range(len(primals)))
    argnums = 0 if len(primals) == 1 else nums

    def value_and_grad_fun(*args):  # (jvp_named has paused the collector already)
        return value_and_grad_call.__wrapped__(fun, nums, argnums, False, args, {}, "hvp", False)
    (value, _), (_, hv) = jvp_named(value_and_grad_fun, primals, tangents, False, "hvp")
    return value, hv
