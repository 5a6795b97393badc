"""Jacobians and Hessians: jacfwd, jacrev, hessian (forward over reverse) and hvp.

jacrev runs fun forward once and pulls back one basis cotangent per output element;
jacfwd traces fun once (linearize) and pushes one basis tangent per input element
through the recorded tape. Shapes follow JAX: out.shape + in.shape.
"""
import numpy as np

from ..ir.value import concrete
from ..ops import shape as sh
from ..ops.zeros import zeros_like_value
from . import trees
from .forward import jvp_named, linearize_named
from .reverse import value_and_grad_call, vjp_named

__all__ = ["hessian", "hvp", "jacfwd", "jacrev"]


def _partial(fun, args, nums, kwargs):
    def partial(*diff):
        full = list(args)
        for i, d in zip(nums, diff):
            full[i] = d
        return fun(*full, **kwargs)
    return partial


def _basis(value):
    """One-hot arrays shaped like `value`, one per element."""
    c = np.asarray(concrete(value))
    dtype = c.dtype if np.issubdtype(c.dtype, np.inexact) else np.float64
    for idx in np.ndindex(c.shape):
        e = np.zeros(c.shape, dtype=dtype)
        e[idx] = 1
        yield e


def _stack(pieces, shape):
    """The pieces (one per basis element) as one array of `shape`; a scalar stays a scalar."""
    if not pieces:
        return np.zeros(shape)
    if shape == () and len(pieces) == 1:
        return pieces[0]
    stacked = sh.concatenate(*[sh.reshape(p, shape=(1,) + tuple(np.shape(concrete(p)))) for p in pieces], axis=0)
    return sh.reshape(stacked, shape=shape)


def _assemble(out_tree, in_tree, blocks, argnums):
    """blocks[i][k]: d out_leaf i / d in_leaf k -> out pytree of (argnums-shaped) in pytrees."""
    per_out = []
    for row in blocks:
        tree = trees.unflatten(in_tree, row)
        per_out.append(tree[0] if isinstance(argnums, int) else tuple(tree))
    return trees.unflatten(out_tree, per_out)


def _check_float_outputs(out_leaves, transform):
    for i, o in enumerate(out_leaves):
        dtype = np.asarray(concrete(o)).dtype
        if not np.issubdtype(dtype, np.inexact):
            raise TypeError(f"{transform} requires floating-point outputs, but output {i} has dtype {dtype} "
                            f"(shape {np.shape(concrete(o))})")


def _trace_once(core, fun, argnums, has_aux, transform, args, kwargs):
    """Run `core` (vjp_named or linearize_named) on fun's `argnums` arguments once.

    Returns (core's result, output leaves and tree, differentiated input leaves and tree)."""
    nums = trees.check_argnums(argnums, len(args), transform)
    diff = tuple(args[i] for i in nums)
    res = core(_partial(fun, args, nums, kwargs), diff, has_aux, transform)
    out_leaves, out_tree = trees.flatten(res[0])
    in_leaves, in_tree = trees.flatten(diff)
    return res, out_leaves, out_tree, in_leaves, in_tree


def _jacrev(fun, argnums, has_aux, transform):
    def jacrev_fun(*args, **kwargs):
        res, out_leaves, out_tree, in_leaves, in_tree = _trace_once(vjp_named, fun, argnums, has_aux, transform,
                                                                    args, kwargs)
        f_vjp = res[1]
        _check_float_outputs(out_leaves, transform)
        blocks = []
        for i, o in enumerate(out_leaves):
            cols = [[] for _ in in_leaves]
            for e in _basis(o):
                cts = [e if j == i else zeros_like_value(p) for j, p in enumerate(out_leaves)]
                for k, g in enumerate(trees.flatten(f_vjp(trees.unflatten(out_tree, cts)))[0]):
                    cols[k].append(g)
            blocks.append([_stack(cols[k], np.shape(concrete(o)) + np.shape(concrete(x)))
                           for k, x in enumerate(in_leaves)])
        jac = _assemble(out_tree, in_tree, blocks, argnums)
        return (jac, res[2]) if has_aux else jac
    return trees.wraps(jacrev_fun, fun, transform)


def _jacfwd(fun, argnums, has_aux, transform):
    def jacfwd_fun(*args, **kwargs):
        res, out_leaves, out_tree, in_leaves, in_tree = _trace_once(linearize_named, fun, argnums, has_aux,
                                                                    transform, args, kwargs)
        f_jvp = res[1]
        cols = [[[] for _ in in_leaves] for _ in out_leaves]
        for k, x in enumerate(in_leaves):
            for e in _basis(x):
                ts = [e if j == k else zeros_like_value(p) for j, p in enumerate(in_leaves)]
                for i, t in enumerate(trees.flatten(f_jvp(*trees.unflatten(in_tree, ts)))[0]):
                    cols[i][k].append(t)
        blocks = []
        for i, o in enumerate(out_leaves):
            row = []
            for k, x in enumerate(in_leaves):
                so, sx = np.shape(concrete(o)), np.shape(concrete(x))
                stacked = _stack(cols[i][k], sx + so)  # [in..., out...]: move the input axes last
                nin = len(sx)
                row.append(sh.transpose(stacked, axes=tuple(range(nin, nin + len(so))) + tuple(range(nin)))
                           if nin and so else stacked)
            blocks.append(row)
        jac = _assemble(out_tree, in_tree, blocks, argnums)
        return (jac, res[2]) if has_aux else jac
    return trees.wraps(jacfwd_fun, fun, transform)


def jacrev(fun, argnums=0, has_aux=False):
    """The Jacobian by reverse mode: one vjp per output element."""
    return _jacrev(fun, argnums, has_aux, "jacrev")


def jacfwd(fun, argnums=0, has_aux=False):
    """The Jacobian by forward mode: fun is traced once, then one tangent per input element."""
    return _jacfwd(fun, argnums, has_aux, "jacfwd")


def hessian(fun, argnums=0):
    """The Hessian, forward over reverse: jacfwd(jacrev(fun))."""
    return _jacfwd(_jacrev(fun, argnums, False, "hessian"), argnums, False, "hessian")


def hvp(fun, primals, tangents):
    """`(fun(*primals), H @ tangents)` by one jvp of the gradient; no Hessian is formed."""
    primals, tangents = tuple(primals), tuple(tangents)
    nums = tuple(range(len(primals)))
    argnums = 0 if len(primals) == 1 else nums

    def value_and_grad_fun(*args):  # (jvp_named has paused the collector already)
        return value_and_grad_call.__wrapped__(fun, nums, argnums, False, args, {}, "hvp")
    (value, _), (_, hv) = jvp_named(value_and_grad_fun, primals, tangents, False, "hvp")
    return value, hv
