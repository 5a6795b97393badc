"""check_grads, gradcheck and gradgradcheck: analytic derivatives against finite differences.

A failure names the mode, the order, the worst element's index, both values and the
tolerance, so a wrong rule is found from the message alone.

gradcheck and gradgradcheck follow PyTorch: given Tensors, they check the imperative face
(its analytic Jacobian by fgrad.autograd.grad, `func` called with Tensors throughout, so a
PyTorch-style function may use Tensor methods); given arrays, the functional vjp.

Complex inputs and outputs are pairs of reals (Note [complex derivatives] in
ops/conversion.py): check_grads moves inputs along random complex tangents, and checks a
vjp in the real and in the imaginary direction of each input (a cotangent c satisfies
Re(c * t) = Re(ct * J t), so c's real part is the derivative along 1, minus its imaginary part
the one along 1j); gradcheck compares the Jacobian of the real and imaginary parts of every
output with respect to those of every input, reading the Tensor face's gradients by its
convention, the conjugate (as torch's gradcheck checks both directions), or in `fast_mode`
one random projection of it.
"""
import numpy as np

from ..autograd import Tensor, forward_ad
from ..autograd import grad as tensor_grad
from ..ir.value import concrete
from ..transforms import checks, trees
from ..transforms.forward import jvp
from ..transforms.reverse import vjp
from ..typing import Any, ArrayLike, Callable, Iterable, PyTree, Sequence
from .finite_differences import default_eps, numerical_jvp, widened

__all__ = ["GradcheckError", "check_grads", "gradcheck", "gradgradcheck"]

_TOL = {np.dtype(np.float64): 1e-5, np.dtype(np.float32): 2e-2, np.dtype(np.float16): 1e-1,
        np.dtype(np.complex128): 1e-5, np.dtype(np.complex64): 2e-2}


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when derivatives disagree."""


def _random_like(values, rng):
    """Standard normal values of each value's shape and dtype (both parts of a complex one)."""
    out = []
    for v in values:
        c = np.asarray(concrete(v))
        r = rng.standard_normal(c.shape)
        if c.dtype.kind == "c":
            r = r + 1j * rng.standard_normal(c.shape)
        r = np.asarray(r, dtype=c.dtype)
        out.append(r[()] if c.ndim == 0 and not isinstance(concrete(v), np.ndarray) else r)
    return out


def _pairing(cts, values):
    """Re(sum(c * v)) over the leaves: the pairing under which a vjp is the jvp's transpose."""
    return sum(float(np.real(np.sum(widened(c) * widened(v)))) for c, v in zip(cts, values))


def _compare(analytic, numeric, atol, rtol, what, exc=AssertionError):
    a_leaves, _ = trees.flatten(analytic)
    n_leaves, _ = trees.flatten(numeric)
    for k, (a, n) in enumerate(zip(a_leaves, n_leaves)):
        a, n = widened(a), widened(n)
        if a.shape != n.shape:
            raise exc(f"{what}: leaf {k} has shape {a.shape} analytically but {n.shape} numerically")
        err = np.abs(a - n) - (atol + rtol * np.abs(n))
        bad = ~(err <= 0)  # NaN counts as a failure
        if np.any(bad):
            idx = np.unravel_index(np.argmax(np.where(np.isnan(err), np.inf, err)), a.shape) if a.ndim else ()
            raise exc(f"{what}: output leaf {k}, worst element at index {tuple(int(i) for i in idx)}: "
                      f"analytic {a[idx].item()!r} vs numerical {n[idx].item()!r} (atol={atol}, rtol={rtol}; "
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
        complex_input = np.asarray(concrete(x)).dtype.kind == "c"
        col = np.zeros(np.shape(concrete(x)), np.complex128 if complex_input else np.float64)
        for idx in np.ndindex(col.shape):
            def along(unit, k=k, idx=idx):  # Re(ct . J e), e the unit `unit` at (k, idx)
                e = trees.unflatten(treedef, _unit_like(leaves, k, idx, unit))
                return _pairing(ct_leaves, trees.flatten(numerical_jvp(fun, args, e, eps))[0])
            col[idx] = along(1.0) - 1j * along(1j) if complex_input else along(1.0)
        numeric.append(col)
    _compare(trees.flatten(ct_in)[0], numeric, atol, rtol,
             f"check_grads: mode rev, order {order} (v @ J against finite differences)")
    if "fwd" in modes:  # the two modes against each other: Re v.(J u) == Re (J^T v).u
        u = trees.unflatten(treedef, _random_like(leaves, rng))
        _, ju = jvp(fun, args, u)
        lhs = _pairing(ct_leaves, trees.flatten(ju)[0])
        rhs = _pairing(trees.flatten(ct_in)[0], trees.flatten(u)[0])
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


def _parts(value):
    """A value's real coordinates, flat: its elements, then, for a complex one, their
    imaginary parts."""
    a = np.ravel(widened(value))
    return np.concatenate([a.real, a.imag]) if a.dtype.kind == "c" else a


def _units(value):
    """The unit directions of a value's real coordinates, in _parts' order: (index, 1.0) for
    each element, then (index, 1j) for each element of a complex one."""
    shape = np.shape(concrete(value))
    units = [(idx, 1.0) for idx in np.ndindex(shape)]
    if np.asarray(concrete(value)).dtype.kind == "c":
        units += [(idx, 1j) for idx in np.ndindex(shape)]
    return units


def _unit_like(values, k, idx, unit):
    e = [np.zeros_like(np.asarray(concrete(v))) for v in values]
    e[k][idx] = unit
    return e


def _cotangent_row(c, x):
    """The derivatives of Re(ct . out) along x's real coordinates, from the cotangent c the vjp of
    `ct` gave x: Re c along 1, -Im c along 1j (Re(c * t) = Re(ct * J t))."""
    c = np.ravel(widened(c))
    return np.concatenate([c.real, -c.imag]) if np.asarray(concrete(x)).dtype.kind == "c" else c.real


def _real_jacobians(pull, fun, inputs, outs, eps):
    """blocks[i][k]: the Jacobian of output i's real coordinates with respect to input k's.
    Analytic rows from `pull(cts)`, the cotangents of the inputs for output cotangents `cts`
    (JAX's convention): a row of Re out along 1, one of Im out along 1j (a cotangent 1j gives
    minus the row of Im out); numerical columns by central differences along each unit."""
    leaves, treedef = trees.flatten(tuple(inputs))
    analytic = [[[] for _ in leaves] for _ in outs]
    for i, o in enumerate(outs):
        for idx, unit in _units(o):
            row = pull(_unit_like(outs, i, idx, unit))
            sign = 1.0 if unit == 1.0 else -1.0
            for k, (g, x) in enumerate(zip(row, leaves)):
                analytic[i][k].append(sign * (_cotangent_row(g, x) if g is not None else np.zeros(_parts(x).size)))
    numeric = [[[] for _ in leaves] for _ in outs]
    for k, x in enumerate(leaves):
        for idx, unit in _units(x):
            e = trees.unflatten(treedef, _unit_like(leaves, k, idx, unit))
            for i, c in enumerate(trees.flatten(numerical_jvp(fun, inputs, e, eps))[0]):
                numeric[i][k].append(_parts(c))
    return [[(np.array(analytic[i][k]).reshape(_parts(o).size, _parts(x).size),
              np.array(numeric[i][k]).T.reshape(_parts(o).size, _parts(x).size))
             for k, x in enumerate(leaves)] for i, o in enumerate(outs)]


def _functional_pull(fun, inputs):
    """(outputs, pull) of the functional vjp: pull(cts) -> the inputs' cotangents."""
    out, f_vjp = vjp(fun, *inputs)
    out_leaves, out_tree = trees.flatten(out)

    def pull(cts):
        return [None if g is None else np.asarray(concrete(g))
                for g in trees.flatten(f_vjp(trees.unflatten(out_tree, cts)))[0]]
    return out_leaves, pull


def _tensor_pull(func, inputs):
    """(outputs, pull) of the Tensor face, whose gradients follow PyTorch's convention: for
    grad_outputs g, the conjugate of JAX's cotangent of conj(g) (Note [the Tensor face's complex
    gradients] in autograd/functional.py), read back into JAX's here. Only the inputs that
    require grad are differentiated; `func` gets Tensors throughout."""
    wrt = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    out = func(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]

    def pull(cts):
        live = [(o, c) for o, c in zip(outs, cts) if isinstance(o, Tensor) and o.requires_grad and np.any(c != 0)]
        if not live:
            return [None] * len(wrt)
        gs = tensor_grad([o for o, _ in live], wrt, grad_outputs=[Tensor(np.conj(c)) for _, c in live],
                         retain_graph=True, allow_unused=True)
        return [None if g is None else np.conj(g.detach().numpy()) for g in gs]
    return outs, pull, wrt


def _tensor_function(func, inputs):
    """func of the differentiated inputs alone, as arrays: fresh leaves that require grad (func
    may differentiate too), the other inputs as they are."""
    diff = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def f(*arrays):
        args = list(inputs)
        for k, a in zip(diff, arrays):
            args[k] = Tensor(np.array(a), requires_grad=True)
        out = func(*args)
        return [np.asarray(concrete(o)) for o in (out if isinstance(out, (tuple, list)) else [out])]
    return f, [inputs[k].detach().numpy() for k in diff]


def _fast_check(fun, inputs, outs, pull, eps, atol, rtol):
    """torch's fast mode: Re(v . J u) by central differences along one random complex u,
    against Re(vjp(v) . u), for one random v."""
    rng = np.random.default_rng(0)
    u = _random_like(inputs, rng)
    v = _random_like(outs, rng)
    numeric = _pairing(v, trees.flatten(numerical_jvp(fun, inputs, tuple(u), eps))[0])
    analytic = _pairing([g if g is not None else np.zeros_like(x) for g, x in zip(pull(v), u)], u)
    _compare(analytic, numeric, atol, rtol, "gradcheck (fast mode): Re(v . J u) by the vjp against finite "
             "differences, for random u and v", GradcheckError)


def gradcheck(func: Callable[..., Any], inputs: Tensor | ArrayLike | Sequence[Tensor | ArrayLike], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True, fast_mode: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True, **unused: Any) -> bool:
    """As torch.autograd.gradcheck: the full analytic Jacobian against finite differences, of
    the real and imaginary parts of complex values (both directions of each); `fast_mode`
    compares one random projection of it instead. `check_forward_ad` also checks the Jacobian
    forward mode gives (dual Tensors, or fgrad.jvp given arrays) and `check_backward_ad=False`
    skips the reverse-mode check, as torch's (for a Function with only a jvp).

    Examples
    --------
    >>> x = fgrad.tensor([0.5, 1.5], requires_grad=True)
    >>> fgrad.gradcheck(lambda x: (x.sin() * x).sum(), (x,))  # analytic against finite differences
    True
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if not (check_forward_ad or check_backward_ad):
        raise ValueError("gradcheck: check_forward_ad and check_backward_ad are both False: nothing to check")
    if check_forward_ad and not fast_mode:
        try:
            _forward_check(func, inputs, eps, atol, rtol)
        except GradcheckError:
            if raise_exception:
                raise
            return False
    if not check_backward_ad:
        return True
    if any(isinstance(x, Tensor) for x in inputs):
        outs, pull, _ = _tensor_pull(func, inputs)
        fun, inputs = _tensor_function(func, inputs)
    else:
        fun = func
        outs, pull = _functional_pull(func, inputs)
    try:
        if fast_mode:
            _fast_check(fun, inputs, [np.asarray(concrete(o)) for o in outs], pull, eps, atol, rtol)
            return True
        for i, row in enumerate(_real_jacobians(pull, fun, inputs, outs, eps)):
            for k, (a, n) in enumerate(row):
                _compare(a, n, atol, rtol, f"gradcheck: Jacobian of output {i} with respect to input {k} (rows: "
                         f"output elements, columns: input elements; of a complex value its real parts, then its "
                         f"imaginary parts)", GradcheckError)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _forward_check(func, inputs, eps, atol, rtol):
    """The Jacobian columns forward mode gives, along each real unit direction of each
    differentiated input, against central differences."""
    tensors = any(isinstance(x, Tensor) for x in inputs)
    fun, arrays = _tensor_function(func, inputs) if tensors else (func, inputs)
    push = _tensor_push(func, inputs) if tensors else _functional_push(func, inputs)
    for k, x in enumerate(arrays):
        for idx, unit in _units(x):
            e = _unit_like(arrays, k, idx, unit)
            numeric = trees.flatten(numerical_jvp(fun, tuple(arrays), tuple(e), eps))[0]
            for i, (a, n) in enumerate(zip(push(e), numeric)):
                where = f"input {k} element {idx}" + (" (imaginary direction)" if unit == 1j else "")
                _compare(_parts(a), _parts(n), atol, rtol, f"gradcheck (forward mode): column of output {i} "
                         f"along {where}", GradcheckError)


def _functional_push(fun, inputs):
    """push(tangents) -> the outputs' tangents, by fgrad.jvp."""
    def push(tangents):
        return [np.asarray(concrete(t)) for t in trees.flatten(jvp(fun, tuple(inputs), tuple(tangents))[1])[0]]
    return push


def _tensor_push(func, inputs):
    """push(tangents) -> the outputs' tangents, by dual Tensors (torch's check_forward_ad): each
    differentiated input made dual with its tangent; an output without a tangent has zero."""
    diff = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def push(tangents):
        with forward_ad.dual_level():
            args = list(inputs)
            for k, t in zip(diff, tangents):
                args[k] = forward_ad.make_dual(inputs[k].detach(), Tensor(t))
            out = func(*args)
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            parts = [forward_ad.unpack_dual(o) for o in outs]
            return [np.zeros(np.shape(concrete(p.primal))) if p.tangent is None else p.tangent.detach().numpy()
                    for p in parts]
    return push


def gradgradcheck(func: Callable[..., Any], inputs: Tensor | ArrayLike | Sequence[Tensor | ArrayLike],
                  grad_outputs: Tensor | ArrayLike | Sequence[Tensor | ArrayLike] | None = None, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True, **unused: Any) -> bool:
    """As torch.autograd.gradgradcheck: gradcheck of the vjp of `func`.

    Examples
    --------
    >>> x = fgrad.tensor([0.5, 1.5], requires_grad=True)
    >>> fgrad.gradgradcheck(lambda x: (x ** 3).sum(), (x,))  # second derivatives against finite differences
    True
    """
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
