"""Structured control flow: cond, switch, while_loop, fori_loop, scan and map, as jax.lax's.

Note [control flow as Python loops]: each construct runs as a Python loop (or one branch
call) on whatever values it is given, so every transform sees the body's ops one by one
and composes as with any Python code: jvp, grad, vmap, hessian, at any depth, closures
included. Two things Python cannot decide alone are handled here:
  - a predicate (or index) that vmap batches: a loop runs while any example still runs and
    keeps the carry of the finished ones (JAX's batching of while_loop), and a cond or
    switch computes every branch and selects per example (JAX's: select of the branches);
  - under fgrad.compile, a loop or branch whose values the staging trace holds is staged
    as one step holding its body's program (lax/staged.py), so a program does not grow
    with the trip count. Where that cannot be done (another transform between compile and
    the loop, a body that makes Python decisions on its values), the loop is traced
    through, iteration by iteration: correct, larger.
Reverse mode through while_loop works (the loop's ops are on the tape), where JAX refuses.
"""
import numpy as np

from .. import numpy as fnp
from ..ir.value import Tracer
from ..ir.value import is_batched as batched
from ..transforms import trees
from ..transforms.batching import vmap
from ..typing import Any, Callable, PyTree, Sequence
from . import staged, staged_vjp
from .carries import any_true, as_arrays, as_carry, check_same, leaf_type, path

__all__ = ["cond", "fori_loop", "map", "scan", "switch", "while_loop"]


# ---- branches ----------------------------------------------------------------------------------
def cond(pred: Any, true_fun: Callable[..., PyTree], false_fun: Callable[..., PyTree], *operands: PyTree) -> PyTree:
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, as jax.lax.cond.

    pred: a scalar boolean (or number: nonzero is true). Both branches must return the same
    type (structure, shapes, dtypes): a TypeError names both otherwise, as JAX's. Under vmap
    with a batched pred both branches run and each example takes its own (JAX's select);
    under fgrad.compile the branches are staged, the choice made on replay.

    Examples
    --------
    >>> f = lambda x: fgrad.lax.cond(x > 0, lambda x: x ** 2, lambda x: -x, x)
    >>> float(f(3.0)), float(fgrad.grad(f)(3.0)), float(fgrad.grad(f)(-1.0))  # the branch taken, differentiated
    (9.0, 6.0, -1.0)
    """
    _, dtype = _scalar(pred, "cond", "pred")
    if dtype.kind not in "biufc":
        raise TypeError(f"fgrad.lax.cond: pred must be a boolean or a number, got dtype {dtype}")
    index = pred if dtype.kind == "b" else pred != 0
    return as_arrays(_branch("cond", index, (false_fun, true_fun), operands, ("false_fun", "true_fun")))


def switch(index: Any, branches: Sequence[Callable[..., PyTree]], *operands: PyTree) -> PyTree:
    """`branches[index](*operands)`, as jax.lax.switch: index is an integer scalar, clamped to
    [0, len(branches) - 1] (JAX's clamping: -1 takes the first branch, a large one the last).
    Every branch must return the same type.

    Examples
    --------
    >>> branches = [lambda x: x, lambda x: 2 * x, lambda x: x ** 3]
    >>> float(fgrad.lax.switch(2, branches, 2.0)), float(fgrad.grad(lambda x: fgrad.lax.switch(1, branches, x))(2.0))
    (8.0, 2.0)
    """
    branches = tuple(branches)
    if not branches:
        raise ValueError("fgrad.lax.switch: branches is empty; give at least one function")
    for k, b in enumerate(branches):
        if not callable(b):
            raise TypeError(f"fgrad.lax.switch: branches[{k}] is a {type(b).__name__}, not a function")
    _, dtype = _scalar(index, "switch", "index")
    if dtype.kind not in "iu":
        raise TypeError(f"fgrad.lax.switch: index must be an integer scalar, got dtype {dtype}")
    if len(branches) == 1:
        return branches[0](*operands)  # (as JAX's: not a construct, the call itself)
    index = fnp.clip(index, 0, len(branches) - 1) if isinstance(index, Tracer) else \
        min(max(int(index), 0), len(branches) - 1)
    return as_arrays(_branch("switch", index, branches, operands,
                             tuple(f"branches[{k}]" for k in range(len(branches)))))


def _scalar(x, name, what):
    try:
        shape, dtype = leaf_type(x)
    except TypeError:
        raise TypeError(f"fgrad.lax.{name}: {what} must be a scalar, got a {type(x).__name__}") from None
    if shape != ():
        raise TypeError(f"fgrad.lax.{name}: {what} must be a scalar, got shape {shape} and dtype {dtype}")
    return shape, dtype


def _branch(name, index, branches, operands, names):
    if batched(index):  # every branch runs; each example selects its own
        outs = [trees.flatten(b(*operands)) for b in branches]
        leaves = [check_same(name, o, f"{names[k]} output", outs[0], f"{names[0]} output")
                  for k, o in enumerate(outs)]
        chosen = leaves[0]
        for k in range(1, len(branches)):
            hit = index if len(branches) == 2 and k == 1 else index == k
            chosen = [fnp.where(hit, a, b) for a, b in zip(leaves[k], chosen)]
        return trees.unflatten(outs[0][1], chosen)
    out = staged.branches(name, index, branches, operands, names)
    if out is not staged.NOT_STAGED:
        return out
    k = int(any_true(index)) if len(branches) == 2 else int(index)
    out = branches[k](*operands)
    _check_other_branches(name, k, branches, operands, names, trees.flatten(out))
    return out


_CHECKED = {}  # (branches' code, operands' types) -> True: the untaken branches' types were checked


def _check_other_branches(name, k, branches, operands, names, taken):
    """The branches not taken, run once per kind of call to check that they return the taken
    one's type, as JAX checks every branch (it traces them all)."""
    try:
        key = (tuple(getattr(b, "__code__", b) for b in branches), k,
               tuple(leaf_type(x) for x in trees.flatten(operands)[0]))
        hash(key)
    except TypeError:  # (an operand that is not an array: checked every call)
        key = None
    if key is not None and key in _CHECKED:
        return
    for j, b in enumerate(branches):
        if j != k:
            with np.errstate(all="ignore"):  # (its values are dropped: warnings about them would mislead)
                check_same(name, trees.flatten(b(*operands)), f"{names[j]} output", taken, f"{names[k]} output")
    if key is not None:
        if len(_CHECKED) > 4096:
            _CHECKED.clear()
        _CHECKED[key] = True


# ---- loops -------------------------------------------------------------------------------------
def while_loop(cond_fun: Callable[[PyTree], Any], body_fun: Callable[[PyTree], PyTree], init_val: PyTree) -> PyTree:
    """Repeat `val = body_fun(val)` while `cond_fun(val)`, from `init_val`; return val, as
    jax.lax.while_loop.

    cond_fun returns a boolean scalar; body_fun returns a value of init_val's type (checked:
    a TypeError names both). Under vmap with a batched predicate the loop runs until every
    example is done, each finished example keeping its value. Differentiable in forward and
    (unlike JAX's) reverse mode; see Note [control flow as Python loops].

    Examples
    --------
    >>> i, y = fgrad.lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))
    >>> int(i), float(y)
    (5, 32.0)
    """
    leaves, tree = as_carry(init_val, "init_val", "while_loop")
    out = staged.while_loop(cond_fun, body_fun, leaves, tree)
    if out is staged.NOT_STAGED:
        out = _while(cond_fun, body_fun, leaves, tree)
    return as_arrays(trees.unflatten(tree, out))


def _predicate(p, name):
    shape, dtype = _scalar(p, name, "cond_fun's output")
    if dtype.kind != "b":
        raise TypeError(f"fgrad.lax.{name}: cond_fun must return a boolean scalar, but got shape {shape} and "
                        f"dtype {dtype}")
    return p


def _while(cond_fun, body_fun, leaves, tree):
    expected = (leaves, tree)
    while True:
        val = trees.unflatten(tree, leaves)
        p = _predicate(cond_fun(val), "while_loop")
        if not any_true(p):
            return leaves
        new = check_same("while_loop", trees.flatten(body_fun(val)), "body_fun output", expected, "init_val")
        leaves = [fnp.where(p, n, o) for n, o in zip(new, leaves)] if batched(p) else new


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, PyTree], PyTree], init_val: PyTree, *,
              unroll: int | bool | None = None) -> PyTree:
    """`val = body_fun(i, val)` for i in range(lower, upper), from `init_val`, as
    jax.lax.fori_loop. The bounds are integers; a traced one (a dynamic bound, or one vmap
    batches) makes it a while_loop on (i, val), as JAX does. `unroll` is accepted for JAX's
    signature (eagerly every loop runs iteration by iteration; unroll=True under
    fgrad.compile traces the iterations straight through).

    Examples
    --------
    >>> f = lambda x: fgrad.lax.fori_loop(0, 3, lambda i, y: y * x, 1.0)  # x ** 3
    >>> float(f(2.0)), float(fgrad.grad(f)(2.0))
    (8.0, 12.0)
    """
    for what, b in (("lower", lower), ("upper", upper)):
        _, dtype = _scalar(b, "fori_loop", what)
        if dtype.kind not in "iu":
            raise TypeError(f"fgrad.lax.fori_loop: {what} must be an integer, got dtype {dtype}")
    if isinstance(lower, Tracer) or isinstance(upper, Tracer):
        return _fori_as_while(lower, upper, body_fun, init_val)
    lower, upper = int(lower), int(upper)
    if unroll is not True and upper > lower:
        leaves, tree = as_carry(init_val, "init_val", "fori_loop")
        out = staged.fori_loop(lower, upper, body_fun, leaves, tree)
        if out is not staged.NOT_STAGED:
            return trees.unflatten(tree, out)
        if staged_vjp.applies(leaves) and all(leaf_type(x)[1] == np.float64 for x in leaves):
            # (i an int64 array as scan's x: NumPy would promote a float32 carry times i to float64)
            return as_arrays(staged_vjp.scan_by_transposition(scan, lambda c, i: (body_fun(i, c), None), init_val,
                                                              np.arange(lower, upper, dtype=np.int64), upper - lower,
                                                              False)[0])
    val = init_val
    for i in range(lower, upper):
        val = body_fun(i, val)
        if i == lower:  # (the type is checked once: every iteration runs the same body)
            check_same("fori_loop", trees.flatten(val), "body_fun output", as_carry(init_val, "init_val",
                                                                                     "fori_loop"), "init_val")
    return as_arrays(val)


def _fori_as_while(lower, upper, body_fun, init_val):
    dtype = np.result_type(leaf_type(lower)[1], leaf_type(upper)[1])
    start = fnp.asarray(lower, dtype=dtype) if isinstance(lower, Tracer) else np.asarray(lower, dtype=dtype)
    _, val = while_loop(lambda c: c[0] < upper, lambda c: (c[0] + np.asarray(1, dtype), body_fun(*c)),
                        (start, init_val))
    return val


def scan(f: Callable[[PyTree, PyTree], tuple[PyTree, PyTree]], init: PyTree, xs: PyTree = None,
         length: int | None = None, reverse: bool = False, unroll: int | bool = 1) -> tuple[PyTree, PyTree]:
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`, from `init`; return the final
    carry and the stacked ys, as jax.lax.scan.

    xs: a pytree of arrays with one leading length, or None (then `length` says how many
    steps); reverse: go from the last x to the first (ys stay in xs's order); unroll:
    accepted for JAX's signature (True under fgrad.compile traces the steps straight
    through instead of staging one). f's carry output must keep init's type (checked).

    Examples
    --------
    >>> carry, ys = fgrad.lax.scan(lambda c, x: (c + x, c * x), 0.0, np.array([1.0, 2.0, 3.0]))
    >>> float(carry), ys  # the running sum, and each step's output
    (6.0, array([0., 2., 9.]))
    >>> fgrad.grad(lambda xs: fgrad.lax.scan(lambda c, x: (c * x, None), 1.0, xs)[0])(np.array([2.0, 3.0]))
    array([3., 2.])
    """
    if not (isinstance(unroll, (bool, int)) and (unroll is True or unroll is False or unroll >= 1)):
        raise ValueError(f"fgrad.lax.scan: unroll must be a positive int or a bool, got {unroll!r}")
    carry, carry_tree = as_carry(init, "init", "scan")
    x_leaves, x_tree = trees.flatten(xs)
    n = _length(x_leaves, x_tree, length)
    out = staged.scan(f, carry, carry_tree, x_leaves, x_tree, n, reverse) if unroll is not True else \
        staged.NOT_STAGED
    if out is not staged.NOT_STAGED:
        return out
    if unroll is not True and n and staged_vjp.applies(carry):
        return as_arrays(staged_vjp.scan_by_transposition(scan, f, trees.unflatten(carry_tree, carry), xs, n, reverse))
    expected, y_type, ys = (carry, carry_tree), None, [None] * n
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        result = f(trees.unflatten(carry_tree, carry), trees.unflatten(x_tree, [x[i] for x in x_leaves]))
        new, y = _pair(result)
        carry = check_same("scan", trees.flatten(new), "the carry f returned", expected, "init")
        y = trees.flatten(y)
        if y_type is None:
            y_type = y
        ys[i] = check_same("scan", y, f"f's y at step {i}", y_type, "its y at the first step")
    if n == 0:
        return _empty_scan(f, carry, carry_tree, x_leaves, x_tree)
    stacked = [fnp.stack([ys[i][j] for i in range(n)]) for j in range(len(y_type[0]))]
    return as_arrays((trees.unflatten(carry_tree, carry), trees.unflatten(y_type[1], stacked)))


def _pair(result):
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError(f"fgrad.lax.scan: f must return a pair (carry, y), got {type(result).__name__}")
    return result


def _length(x_leaves, x_tree, length):
    """The number of steps: every leaf of xs has it as its leading length, and so does `length`."""
    if length is not None and not (isinstance(length, (int, np.integer)) and length >= 0):
        raise TypeError(f"fgrad.lax.scan: length must be a non-negative int, got {length!r}")
    labels = [f"xs{path(x_tree, i)}" for i in range(len(x_leaves))]
    lengths = []
    for x, label in zip(x_leaves, labels):
        shape = leaf_type(x)[0]
        if shape == ():
            raise ValueError(f"fgrad.lax.scan: {label} is a scalar; each leaf of xs needs a leading axis to scan")
        lengths.append(shape[0])
    if len(set(lengths)) > 1:
        raise ValueError("fgrad.lax.scan: the leaves of xs have different leading lengths: " +
                         ", ".join(f"{label} {n}" for label, n in zip(labels, lengths)))
    if length is None:
        if not lengths:
            raise ValueError("fgrad.lax.scan: xs is None (or empty): give length, the number of steps")
        return int(lengths[0])
    if lengths and lengths[0] != length:
        raise ValueError(f"fgrad.lax.scan: length={length} but the leaves of xs have leading length {lengths[0]}")
    return int(length)


def _empty_scan(f, carry, carry_tree, x_leaves, x_tree):
    """A scan of no steps: init, and ys of length 0 (f runs once, on zeros, for their type)."""
    x = trees.unflatten(x_tree, [np.zeros(leaf_type(x)[0][1:], leaf_type(x)[1]) for x in x_leaves])
    new, y = _pair(f(trees.unflatten(carry_tree, carry), x))
    check_same("scan", trees.flatten(new), "the carry f returned", (carry, carry_tree), "init")
    y_leaves, y_tree = trees.flatten(y)
    return (trees.unflatten(carry_tree, carry),
            trees.unflatten(y_tree, [np.zeros((0, *leaf_type(y)[0]), leaf_type(y)[1]) for y in y_leaves]))


def map(f: Callable[[PyTree], PyTree], xs: PyTree, *, batch_size: int | None = None) -> PyTree:
    """`f` applied to each slice of `xs` along its leading axis, the results stacked, as
    jax.lax.map (a scan with no carry). With batch_size, f is vmapped over batches of that
    many slices (the remainder as one more batch).

    Examples
    --------
    >>> fgrad.lax.map(lambda x: fnp.sum(x ** 2), np.arange(6.0).reshape(3, 2))  # one row at a time
    array([ 1., 13., 41.])
    """
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    if not (isinstance(batch_size, int) and batch_size >= 1):
        raise ValueError(f"fgrad.lax.map: batch_size must be a positive int, got {batch_size!r}")
    x_leaves, x_tree = trees.flatten(xs)
    n = _length(x_leaves, x_tree, None)
    full = n - n % batch_size
    outs = []
    if full:
        batches = trees.unflatten(x_tree, [fnp.reshape(x[:full], (full // batch_size, batch_size, *x.shape[1:]))
                                           for x in x_leaves])
        y_leaves, tree = trees.flatten(scan(lambda _, x: ((), vmap(f)(x)), (), batches)[1])
        outs.append([fnp.reshape(y, (full, *y.shape[2:])) for y in y_leaves])
    if full < n:
        rest = vmap(f)(trees.unflatten(x_tree, [x[full:] for x in x_leaves]))
        outs.append(trees.flatten(rest)[0])
        tree = trees.flatten(rest)[1]
    return trees.unflatten(tree, [fnp.concatenate(parts) for parts in zip(*outs)])
