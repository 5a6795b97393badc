"""check_grads, gradcheck and gradgradcheck: analytic derivatives against finite differences.

A failure names the mode, the order, the worst element's index, both values and the
tolerance, so a wrong rule is found from the message alone.

gradcheck and gradgradcheck follow PyTorch: given Tensors, they check the imperative face
(its analytic Jacobian by fgrad.autograd.grad, `func` called with Tensors throughout, so a
PyTorch-style function may use Tensor methods); given arrays, the functional vjp.
"""
import numpy as np

from ..autograd import Tensor
from ..autograd import grad as tensor_grad
from ..ir.value import concrete
from ..transforms import checks, trees
from ..transforms.forward import jvp
from ..transforms.reverse import vjp
from ..typing import Any, ArrayLike, Callable, Iterable, PyTree, Sequence
from .finite_differences import default_eps, numerical_jvp

__all__ = ["GradcheckError", "check_grads", "gradcheck", "gradgradcheck"]

_TOL = {np.dtype(np.float64): 1e-5, np.dtype(np.float32): 2e-2, np.dtype(np.float16): 1e-1}


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when derivatives disagree."""


def _random_like(values, rng):
    out = []
    for v in values:
        c = np.asarray(concrete(v))
        r = np.asarray(rng.standard_normal(c.shape), dtype=c.dtype)
        out.append(r[()] if c.ndim == 0 and not isinstance(concrete(v), np.ndarray) else r)
    return out


def _compare(analytic, numeric, atol, rtol, what, exc=AssertionError):
    a_leaves, _ = trees.flatten(analytic)
    n_leaves, _ = trees.flatten(numeric)
    for k, (a, n) in enumerate(zip(a_leaves, n_leaves)):
        a = np.asarray(concrete(a), dtype=np.float64)
        n = np.asarray(concrete(n), dtype=np.float64)
        if a.shape != n.shape:
            raise exc(f"{what}: leaf {k} has shape {a.shape} analytically but {n.shape} numerically")
        err = np.abs(a - n) - (atol + rtol * np.abs(n))
        bad = ~(err <= 0)  # NaN counts as a failure
        if np.any(bad):
            idx = np.unravel_index(np.argmax(np.where(np.isnan(err), np.inf, err)), a.shape) if a.ndim else ()
            raise exc(f"{what}: output leaf {k}, worst element at index {tuple(int(i) for i in idx)}: "
                      f"analytic {float(a[idx])!r} vs numerical {float(n[idx])!r} (atol={atol}, rtol={rtol}; "
                      f"{int(np.sum(bad))} of {a.size} elements differ)")


def _check_fwd(fun, args, order, eps, atol, rtol, rng):
    tangents = trees.unflatten(trees.flatten(args)[1], _random_like(trees.flatten(args)[0], rng))
    _, t_out = jvp(fun, args, tangents)
    t_num = numerical_jvp(fun, args, tangents, eps)
    _compare(t_out, t_num, atol, rtol, f"check_grads: mode fwd, order {order} (J @ u against finite differences)")


def _check_rev(fun, args, order, eps, atol, rtol, rng, modes):
    out, f_vjp = vjp(fun, *args)
    out_leaves, out_tree = trees.flatten(out)
    ct = trees.unflatten(out_tree, _random_like(out_leaves, rng))
    ct_in = f_vjp(ct)
    leaves, treedef = trees.flatten(args)
    ct_leaves = trees.flatten(ct)[0]
    numeric = []
    for k, x in enumerate(leaves):
        col = np.zeros(np.shape(concrete(x)))
        for idx in np.ndindex(col.shape):
            e = [np.zeros_like(concrete(v)) for v in leaves]
            e[k][idx] = 1.0
            jv = trees.flatten(numerical_jvp(fun, args, trees.unflatten(treedef, e), eps))[0]
            col[idx] = sum(float(np.sum(np.asarray(concrete(c), np.float64) * j)) for c, j in zip(ct_leaves, jv))
        numeric.append(col)
    _compare(trees.flatten(ct_in)[0], numeric, atol, rtol,
             f"check_grads: mode rev, order {order} (v @ J against finite differences)")
    if "fwd" in modes:  # the two modes against each other: v.(J u) == (J^T v).u
        u = trees.unflatten(treedef, _random_like(leaves, rng))
        _, ju = jvp(fun, args, u)
        lhs = sum(float(np.sum(np.asarray(concrete(c), np.float64) * np.asarray(concrete(j), np.float64)))
                  for c, j in zip(ct_leaves, trees.flatten(ju)[0]))
        rhs = sum(float(np.sum(np.asarray(concrete(g), np.float64) * np.asarray(concrete(w), np.float64)))
                  for g, w in zip(trees.flatten(ct_in)[0], trees.flatten(u)[0]))
        _compare(lhs, rhs, atol, rtol, f"check_grads: modes fwd and rev, order {order} (v.(J u) against (J^T v).u)")
    return ct


def check_grads(fun: Callable[..., PyTree], args: Iterable[PyTree], order: int = 2,
                modes: str | Iterable[str] = ("fwd", "rev"), eps: float | None = None, atol: float | None = None,
                rtol: float | None = None, seed: int | None = 0) -> None:
    """Check fun's derivatives up to `order` in the given modes; raise AssertionError on mismatch."""
    args = tuple(args)
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    for m in modes:
        if m not in ("fwd", "rev"):
            raise ValueError(f"check_grads: unknown mode {m!r}; use 'fwd' and/or 'rev'")
    leaves = trees.flatten(args)[0]
    dtype = np.result_type(*[concrete(checks.float_input(x, "args", "check_grads")) for x in leaves])
    eps = default_eps(dtype) if eps is None else eps
    atol = _TOL.get(np.dtype(dtype), 1e-5) if atol is None else atol
    rtol = _TOL.get(np.dtype(dtype), 1e-5) if rtol is None else rtol
    rng = np.random.default_rng(seed)

    def check(f, current):
        if "fwd" in modes:
            _check_fwd(f, args, current, eps, atol, rtol, rng)
            if current < order:
                u = trees.unflatten(trees.flatten(args)[1], _random_like(leaves, rng))
                check(lambda *a: jvp(f, a, u)[1], current + 1)
        if "rev" in modes:
            ct = _check_rev(f, args, current, eps, atol, rtol, rng, modes)
            if current < order:
                check(lambda *a: vjp(f, *a)[1](ct), current + 1)

    check(fun, 1)


def _jacobians(fun, inputs, eps):
    """Analytic (by vjp, one row per output element) and numerical Jacobians."""
    out, f_vjp = vjp(fun, *inputs)
    out_leaves, out_tree = trees.flatten(out)
    analytic, numeric = [], []
    for i, o in enumerate(out_leaves):
        o = np.asarray(concrete(o))
        rows = []
        for idx in np.ndindex(o.shape):
            cts = [np.zeros_like(np.asarray(concrete(v))) for v in out_leaves]
            cts[i][idx] = 1.0
            rows.append([np.asarray(concrete(g)) for g in trees.flatten(f_vjp(trees.unflatten(out_tree, cts)))[0]])
        analytic.append(rows)
    leaves, treedef = trees.flatten(tuple(inputs))
    for k, x in enumerate(leaves):
        cols = []
        for idx in np.ndindex(np.shape(concrete(x))):
            e = [np.zeros_like(concrete(v)) for v in leaves]
            e[k][idx] = 1.0
            cols.append(trees.flatten(numerical_jvp(fun, inputs, trees.unflatten(treedef, e), eps))[0])
        numeric.append(cols)
    return analytic, numeric, out_leaves, leaves


def _tensor_jacobians(func, inputs, eps):
    """_jacobians on the Tensor face: the inputs that require grad are differentiated, by
    fgrad.autograd.grad (one row per output element), and by central differences of `func`
    at copies of them (fresh leaves that require grad, as `func` may differentiate too)."""
    diff = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    wrt = [inputs[k] for k in diff]

    def outputs(args):
        out = func(*args)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    outs = outputs(inputs)
    analytic = []
    for o in outs:
        rows = []
        for idx in np.ndindex(o.shape):
            if not (isinstance(o, Tensor) and o.requires_grad):
                rows.append([np.zeros(x.shape) for x in wrt])
                continue
            e = np.zeros(o.shape, o.dtype)
            e[idx] = 1.0
            gs = tensor_grad(o, wrt, grad_outputs=Tensor(e), retain_graph=True, allow_unused=True)
            rows.append([np.zeros(x.shape) if g is None else g.detach().numpy() for g, x in zip(gs, wrt)])
        analytic.append(rows)

    def at(k, idx, sign):
        args = [Tensor(x.detach().numpy(), requires_grad=True) if j in diff else x for j, x in enumerate(inputs)]
        args[k].primal[idx] += sign * eps
        return [np.asarray(concrete(o), np.float64) for o in outputs(args)]

    numeric = [[[(p - m) / (2 * eps) for p, m in zip(at(k, idx, +1), at(k, idx, -1))]
                for idx in np.ndindex(inputs[k].shape)] for k in diff]
    return analytic, numeric, outs, wrt


def gradcheck(func: Callable[..., Any], inputs: Tensor | ArrayLike | Sequence[Tensor | ArrayLike], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True, **unused: Any) -> bool:
    """As torch.autograd.gradcheck: the full analytic Jacobian against finite differences."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    jacobians = _tensor_jacobians if any(isinstance(x, Tensor) for x in inputs) else _jacobians
    analytic, numeric, outs, leaves = jacobians(func, inputs, eps)
    try:
        for i, o in enumerate(outs):
            for k, _x in enumerate(leaves):
                a = np.array([[np.ravel(r[k])] for r in analytic[i]]).reshape(np.size(concrete(o)), -1)
                n = np.array([np.ravel(c[i]) for c in numeric[k]]).reshape(-1, np.size(concrete(o))).T \
                    if numeric[k] else np.zeros_like(a)
                _compare(a, n, atol, rtol, f"gradcheck: Jacobian of output {i} with respect to input {k} "
                         f"(rows: output elements, columns: input elements)", GradcheckError)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Tensor | ArrayLike | Sequence[Tensor | ArrayLike],
                  grad_outputs: Tensor | ArrayLike | Sequence[Tensor | ArrayLike] | None = None, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True, **unused: Any) -> bool:
    """As torch.autograd.gradgradcheck: gradcheck of the vjp of `func`."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if any(isinstance(x, Tensor) for x in inputs):
        return _tensor_gradgradcheck(func, inputs, grad_outputs, eps, atol, rtol, raise_exception)
    out = func(*inputs)
    out_leaves, out_tree = trees.flatten(out)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = trees.unflatten(out_tree, _random_like(out_leaves, rng))
    grad_outputs = grad_outputs if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    n = len(inputs)

    def first_derivative(*args):
        return vjp(func, *args[:n])[1](trees.unflatten(out_tree, trees.flatten(tuple(args[n:]))[0]))

    return gradcheck(first_derivative, inputs + tuple(grad_outputs), eps, atol, rtol, raise_exception)


def _tensor_gradgradcheck(func, inputs, grad_outputs, eps, atol, rtol, raise_exception):
    """gradgradcheck on the Tensor face: gradcheck of the first derivative, taken by
    fgrad.autograd.grad with create_graph=True (as PyTorch's)."""
    outs = func(*inputs)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [Tensor(r, requires_grad=True) for r in _random_like([concrete(o) for o in outs], rng)]
    grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    n = len(inputs)

    def first_derivative(*args):
        wrt = [x for x in args[:n] if isinstance(x, Tensor) and x.requires_grad]
        out = func(*args[:n])
        out = list(out) if isinstance(out, (tuple, list)) else [out]
        gs = tensor_grad(out, wrt, grad_outputs=list(args[n:]), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps, atol, rtol, raise_exception)
