"""Drop-in NumPy: plain `np.*` calls on traced values are differentiated through
__array_ufunc__ / __array_function__, unsupported ones raise a TypeError naming them, and
`fgrad.numpy` on plain arrays gives exactly what NumPy gives (no tracing types leak)."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import grad, hessian, jacfwd, jacrev, jvp
from fgrad.ir.value import Tracer
from fgrad.testing import numerical_jacobian

X = np.array([[0.5, 1.0, -0.3], [0.2, -0.1, 0.7]])
W = np.arange(12.0).reshape(3, 4) / 10 - 0.4


def check_gradient(f, x, rtol=1e-7, atol=1e-9):
    """fgrad's gradient of a plain-NumPy function against central finite differences."""
    g = grad(f)(x)
    assert type(g) is np.ndarray and g.shape == x.shape and g.dtype == x.dtype
    np.testing.assert_allclose(g, numerical_jacobian(f, (x,)), rtol=rtol, atol=atol)
    return g


# ---- plain np.* on traced values ---------------------------------------------------------------
PLAIN = {
    "np.sin": lambda x: np.sum(np.sin(x)),
    "np.exp_log": lambda x: np.sum(np.log(np.exp(x) + 1.0)),
    "np.sum_axis0": lambda x: np.sum(np.sum(x, axis=0) ** 2),
    "np.sum_keepdims": lambda x: np.sum(x / np.sum(x ** 2, axis=1, keepdims=True)),
    "np.mean": lambda x: np.mean(x) * np.sum(np.mean(x, axis=1) ** 2),
    "np.dot": lambda x: np.sum(np.dot(x, W) ** 2),
    "matmul_operator": lambda x: np.sum(np.tanh(x @ W)),
    "rmatmul_ndarray_left": lambda x: np.sum(np.cos(W.T @ x.T)),
    "np.matmul": lambda x: np.sum(np.matmul(x, W)),
    "np.where": lambda x: np.sum(np.where(x > 0, x ** 2, np.sin(x))),
    "np.concatenate": lambda x: np.sum(np.concatenate([x, x ** 2], axis=1) * np.arange(6.0)),
    "np.stack": lambda x: np.sum(np.stack([x, np.exp(x)]) ** 2),
    "np.maximum": lambda x: np.sum(np.maximum(x, 0.1) * np.minimum(x, 0.4)),
    "np.add.reduce": lambda x: np.sum(np.add.reduce(x, axis=1) ** 2),
    "np.add.reduce_default_axis": lambda x: np.sum(np.add.reduce(x) ** 3),
    "np.multiply.reduce": lambda x: np.sum(np.multiply.reduce(x, axis=0)),
    "np.maximum.reduce": lambda x: np.maximum.reduce(x, axis=None) * 2.0,
    "np.cumsum": lambda x: np.sum(np.cumsum(x, axis=1) ** 2),
    "np.add.accumulate": lambda x: np.sum(np.add.accumulate(x, axis=1) ** 2),
    "np.cumprod": lambda x: np.sum(np.cumprod(x + 2.0, axis=0)),
    "np.transpose_reshape": lambda x: np.sum(np.reshape(np.transpose(x), (3, 2)) * np.arange(6.0).reshape(3, 2)),
    "np.clip": lambda x: np.sum(np.clip(x, -0.2, 0.6) ** 2),
    "np.var_std": lambda x: np.var(x) + np.sum(np.std(x, axis=0)),
    "np.max_min": lambda x: np.max(x) * np.min(x, axis=1).sum(),
    "np.prod": lambda x: np.prod(x + 1.5),
    "np.tensordot": lambda x: np.sum(np.tensordot(x, W, axes=1) ** 2),
    "np.outer_inner": lambda x: np.sum(np.outer(x[0], x[1]) ** 2) + np.inner(x[0], x[1]),
    "np.sort": lambda x: np.sum(np.sort(x, axis=1) * np.arange(3.0)),
    "np.abs_sign": lambda x: np.sum(np.abs(x) * 2.0 + np.sign(x) * x),
    "np.hypot_arctan2": lambda x: np.sum(np.hypot(x, 1.0) + np.arctan2(x, 2.0)),
    "operators": lambda x: np.sum(-x * 2.0 + 1.0 / (2.0 + x) - x ** 3 + abs(x)),
    "reflected_ndarray_ops": lambda x: np.sum(np.ones(3) - x + np.full(3, 2.0) * x + np.ones(3) / (3.0 + x)),
    "methods": lambda x: x.sum(axis=0).dot(np.ones(3)) + x.T.mean() + (x ** 2).max(),
    "np.trace_diag": lambda x: np.trace(x[:, :2] @ x[:, 1:]) + np.sum(np.diag(x[:, :2])),
    "np.linalg.norm": lambda x: np.linalg.norm(x) + np.linalg.norm(x[0]),
}


@pytest.mark.parametrize("name", list(PLAIN))
def test_plain_numpy_is_differentiated(name):
    check_gradient(PLAIN[name], X.copy())


def test_np_linalg_solve_on_traced_values():
    solve = getattr(fnp.linalg, "solve", None)
    if solve is None:
        pytest.skip("fgrad.numpy.linalg.solve not available yet")
    A = np.array([[3.0, 1.0], [0.5, 2.0]])
    b = np.array([1.0, -1.0])
    f = lambda A: np.sum(np.linalg.solve(A, b) ** 2)  # noqa: E731
    check_gradient(f, A)
    gb = grad(lambda b: np.sum(np.linalg.solve(A, b)))(b)
    np.testing.assert_allclose(gb, np.linalg.solve(A.T, np.ones(2)), rtol=1e-14)


def test_np_einsum_on_traced_values():
    if getattr(fnp, "einsum", None) is None:
        pytest.skip("fgrad.numpy.einsum not available yet")
    check_gradient(lambda x: np.einsum("ij,jk->", x, W) + np.einsum("ij,ij->", x, x), X.copy())


def test_plain_numpy_under_forward_mode_and_second_order():
    f = lambda x: np.sum(np.exp(x) * np.sin(x))  # noqa: E731
    x = np.array([0.3, -0.4])
    _, t = jvp(f, (x,), (np.array([1.0, 0.0]),))
    assert t == pytest.approx(np.exp(0.3) * (np.sin(0.3) + np.cos(0.3)), rel=1e-14)
    H = hessian(f)(x)
    np.testing.assert_allclose(H, np.diag(2 * np.exp(x) * np.cos(x)), rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(jacfwd(lambda x: np.sin(x) * x)(x), jacrev(lambda x: np.sin(x) * x)(x))


def test_plain_numpy_keeps_float32():
    x = X.astype(np.float32)
    for name in ("np.sin", "np.sum_axis0", "np.mean", "np.where", "np.cumsum", "np.add.reduce"):
        g = grad(PLAIN[name])(x)
        assert g.dtype == np.float32, name


def test_np_function_returns_traced_value_inside_transform():
    seen = []

    def f(x):
        y = np.sin(x)
        seen.append(isinstance(y, Tracer) and not isinstance(y, np.ndarray))
        return np.sum(y)

    grad(f)(X)
    assert seen == [True]


def test_non_differentiable_numpy_functions_trace_through():
    def f(x):
        i = np.argmax(x, axis=1)
        mask = np.isfinite(x) & (x > 0)
        return np.sum(np.take_along_axis(x, i[:, None], axis=1)) + np.sum(x * mask) + np.sum(np.floor(x) * x)

    g = grad(f)(X)
    expected = np.zeros_like(X)
    expected[np.arange(2), np.argmax(X, axis=1)] += 1.0
    expected += (X > 0) + np.floor(X)
    np.testing.assert_allclose(g, expected)


# ---- unsupported NumPy functions ---------------------------------------------------------------
UNSUPPORTED = {  # (median, unique, histogram, convolve, interp, ... are covered since issue 22)
    "numpy.polynomial.polynomial.polyval": lambda x: np.polynomial.polynomial.polyval(2.0, x),
    "numpy.array_str": lambda x: len(np.array_str(x)) * x,
    "numpy.lib.stride_tricks.sliding_window_view": lambda x: np.lib.stride_tricks.sliding_window_view(x, 2),
    "numpy.array_repr": lambda x: len(np.array_repr(x)) * x,
    "numpy.add.at": lambda x: np.add.at(x, [0], 1.0),
    "numpy.add.outer": lambda x: np.add.outer(x, x),
}


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_numpy_function_raises_type_error_naming_it(name):
    with pytest.raises(TypeError) as e:
        grad(lambda x: np.sum(UNSUPPORTED[name](x)))(np.array([0.1, 0.5, 0.9]))
    assert name in str(e.value)


def test_unsupported_under_forward_mode_too():
    with pytest.raises(TypeError, match=r"numpy\.lib\.stride_tricks\.sliding_window_view"):
        jvp(lambda x: np.lib.stride_tricks.sliding_window_view(x, 2).sum(1), (np.ones(4),), (np.ones(4),))


@pytest.mark.parametrize("cast", [np.int64, np.int32, np.uint8, np.bool_, lambda v: np.asarray(v, dtype=np.intp)])
def test_integer_casts_are_values_without_a_derivative(cast):
    """np.int64(x) of a traced x is a value, as int(x) is (piecewise constant: no derivative to
    drop), as in JAX; under compile it is a guard, so another value retraces."""
    f = lambda a: a * cast(a)  # noqa: E731
    assert grad(f)(2.5) == cast(2.5) and grad(f)(3.5) == cast(3.5)
    compiled = fgrad.compile(grad(f))
    assert [compiled(v) for v in (2.5, 3.5, 2.7)] == [cast(v) for v in (2.5, 3.5, 2.7)]
    with pytest.raises(fgrad.errors.BatchedValueError, match="same for every example"):
        fgrad.vmap(f)(np.array([1.5, 2.5]))


def test_np_linspace_logspace_geomspace_of_traced_endpoints():
    check_gradient(lambda a: np.sum(np.linspace(a[0], a[1], 5) ** 2), np.array([0.3, 1.2]))
    check_gradient(lambda a: np.sum(np.logspace(a[0], a[1], 4, base=2.0)), np.array([0.3, 1.2]))
    check_gradient(lambda a: np.sum(np.geomspace(a[0], a[1], 4)), np.array([0.3, 1.2]))


def test_float_and_complex_casts_still_refuse():
    for cast in (np.float64, np.complex128, lambda v: np.asarray(v), lambda v: np.asarray(v, dtype=np.float32)):
        with pytest.raises(fgrad.errors.ConversionError):
            grad(lambda a: a * cast(a))(2.5)


def test_out_and_where_arguments_are_refused():
    with pytest.raises(TypeError, match=r"numpy\.sin.*out"):
        grad(lambda x: np.sum(np.sin(x, out=np.empty(3))))(np.ones(3))
    with pytest.raises(TypeError, match=r"numpy\.sin.*where"):
        grad(lambda x: np.sum(np.sin(x, where=np.ones(3, bool))))(np.ones(3))
    with pytest.raises(TypeError, match=r"numpy\.add with casting= is not supported on traced values"):
        grad(lambda x: np.sum(np.add(x, 1.0, casting="same_kind")))(np.ones(3))


def test_scipy_ufunc_on_traced_value_is_named_correctly():
    import scipy.special as sp
    try:
        grad(lambda x: np.sum(sp.erf(x)))(np.ones(2))
    except TypeError as e:
        assert "scipy" in str(e)


# ---- fgrad.numpy on plain arrays is NumPy ------------------------------------------------------
A32 = np.array([[0.5, 1.5, -0.25], [2.0, 0.75, 1.25]], np.float32)
A64 = A32.astype(np.float64)
V = np.array([0.3, 0.6, 0.9])
INTS = np.array([[3, 1, 2], [0, 5, 4]])
SQ = np.array([[2.0, 0.5], [0.25, 3.0]])

PLAIN_CALLS = [
    ("sin", (A32,), {}), ("exp", (A64,), {}), ("log1p", (A32,), {}), ("tanh", (INTS,), {}), ("sqrt", (V,), {}),
    ("abs", (INTS,), {}), ("negative", (A32,), {}), ("square", (INTS,), {}), ("sign", (A64,), {}),
    ("add", (A32, 1.0), {}), ("multiply", (A32, A64), {}), ("divide", (INTS, 2), {}), ("power", (A32, 2), {}),
    ("maximum", (A32, 0.5), {}), ("arctan2", (A32, A32), {}), ("hypot", (V, V), {}),
    ("sum", (A32,), {}), ("sum", (A32,), {"axis": 0}), ("sum", (INTS,), {"axis": 1, "keepdims": True}),
    ("mean", (A32,), {"axis": 1}), ("mean", (INTS,), {}), ("var", (A64,), {"ddof": 1}), ("std", (A32,), {}),
    ("prod", (INTS,), {}), ("max", (A32,), {"axis": 0}), ("min", (A64,), {}), ("cumsum", (A32,), {"axis": 1}),
    ("cumprod", (INTS,), {}), ("argmax", (A32,), {}), ("argsort", (A64,), {"axis": 1}), ("sort", (A32,), {}),
    ("reshape", (A32, (3, 2)), {}), ("transpose", (A64,), {}), ("ravel", (INTS,), {}), ("squeeze", (A32[None],), {}),
    ("expand_dims", (A32, 0), {}), ("concatenate", ([A32, A32],), {"axis": 1}), ("stack", ([V, V],), {}),
    ("where", (A32 > 1, A32, 0.0), {}), ("where", (A64 > 1,), {}), ("clip", (A32, 0.0, 1.0), {}),
    ("tile", (V, 2), {}), ("repeat", (INTS, 2), {"axis": 0}), ("flip", (A32,), {}), ("roll", (V, 1), {}),
    ("pad", (A32, 1), {}), ("diag", (V,), {}), ("trace", (SQ,), {}), ("triu", (SQ,), {}),
    ("dot", (A32, A32.T), {}), ("matmul", (A64, A64.T), {}), ("tensordot", (A32, A32, 2), {}),
    ("outer", (V, V), {}), ("inner", (V, V), {}), ("vdot", (V, V), {}), ("kron", (SQ, SQ), {}),
    ("take", (A32, [0, 2]), {"axis": 1}), ("split", (V, 3), {}), ("floor", (A32,), {}), ("round", (A64,), {}),
    ("isfinite", (A32,), {}), ("logaddexp", (A32, A32), {}), ("zeros_like", (A32,), {}), ("array", (A32,), {}),
    ("asarray", (INTS,), {}), ("swapaxes", (A32, 0, 1), {}), ("broadcast_to", (V, (2, 3)), {}),
]


def _same(a, b, where):
    if isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for x, y in zip(a, b):
            _same(x, y, where)
        return
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs NumPy's {type(b).__name__}"
    assert not isinstance(a, Tracer)
    if hasattr(b, "dtype"):
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} vs NumPy's {b.dtype}"
        assert np.shape(a) == np.shape(b), where
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=1e-6,
                               err_msg=where)




def _plain_params():
    out = []
    for i, (name, args, kwargs) in enumerate(PLAIN_CALLS):
        out.append(pytest.param(name, args, kwargs, id=f"{name}-{i}"))
    return out


@pytest.mark.parametrize("name,args,kwargs", _plain_params())
def test_fnp_on_plain_arrays_returns_what_numpy_returns(name, args, kwargs):
    _same(getattr(fnp, name)(*args, **kwargs), getattr(np, name)(*args, **kwargs), name)


@pytest.mark.parametrize("name,args", [("solve", (SQ, V[:2])), ("inv", (SQ,)), ("det", (SQ,)),
                                       ("slogdet", (SQ,)), ("cholesky", (SQ @ SQ.T,)), ("norm", (A32,)),
                                       ("eigh", (SQ + SQ.T,)), ("qr", (A64.T,)), ("svd", (A64,)),
                                       ("pinv", (A64,))])
def test_fnp_linalg_on_plain_arrays_returns_plain_arrays(name, args):
    fn = getattr(fnp.linalg, name, None)
    if fn is None:
        pytest.skip(f"fgrad.numpy.linalg.{name} not available yet")
    got, want = fn(*args), getattr(np.linalg, name)(*args)
    got_leaves = list(got) if isinstance(want, tuple) else [got]
    want_leaves = list(want) if isinstance(want, tuple) else [want]
    for g, w in zip(got_leaves, want_leaves):
        assert not isinstance(g, Tracer)
        assert isinstance(g, (np.ndarray, np.generic)) and np.asarray(g).dtype == np.asarray(w).dtype, name
        assert np.shape(g) == np.shape(w), name


def test_fnp_einsum_on_plain_arrays():
    if getattr(fnp, "einsum", None) is None:
        pytest.skip("fgrad.numpy.einsum not available yet")
    _same(fnp.einsum("ij,kj->ik", A32, A32), np.einsum("ij,kj->ik", A32, A32), "einsum")


def test_fgrad_transforms_accept_functions_mixing_np_and_fnp():
    f = lambda x: fnp.sum(np.sin(x) * fnp.cos(x))  # noqa: E731
    np.testing.assert_allclose(grad(f)(V), np.cos(2 * V), rtol=1e-14)
    assert isinstance(fgrad.make_graph(f)(V), fgrad.Graph)
