"""Zero cotangents stay zero (issue 33; Note [zero cotangents stay zero] in ops/elementwise.py).

The classic list of finite functions whose derivative AD libraries return as NaN (the
double-where cases, norm at 0, masked x log x, logsumexp of all -inf, a masked softmax, safe
division, arctan2 at the origin, pow at 0, sinc, cdist with equal points, Huber at its kink,
clip, maximum, indexing): each against its closed form, against one-sided finite differences
on the side where it is smooth, under grad, jvp, vmap, compile and the Tensor face; with
fgrad.config.nan_safe_zeros off, JAX's values (NaN and inf included).
"""
import math
from types import SimpleNamespace

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
import fgrad.scipy.special as fsp
from fgrad.config import config

FG = SimpleNamespace(np=fnp, sp=fsp)
NINF = -np.inf
MASK = np.array([True, False, True])
W = np.array([1.0, 2.0, 3.0])


def _huber(r, m):
    return m.np.sum(m.np.where(m.np.abs(r) <= 1.0, 0.5 * r ** 2, m.np.abs(r) - 0.5))


def _pairwise(a, m):  # sum of cdist(a, a): the diagonal pairs are equal points
    return m.np.sum(m.np.sqrt(m.np.sum((a[:, None, :] - a[None, :, :]) ** 2, axis=-1)))


def _softmax_closed(x):
    p = np.exp(x[MASK] - x[MASK].max())
    p /= p.sum()
    out = np.zeros(3)
    out[MASK] = p * (W[MASK] - p @ W[MASK])
    return out


# (name, f(x, m) scalar, point, closed-form gradient, side of the one-sided finite difference
# where f is smooth on that side, or None where it has a kink or pole there)
CASES = [
    ("where_sqrt", lambda x, m: m.np.sum(m.np.where(x > 0, m.np.sqrt(x), 0.0)), [0.0, 1.0, 4.0], [0, 0.5, 0.25], -1),
    ("norm_at_0", lambda x, m: m.np.linalg.norm(x), [0.0, 0.0, 0.0], [0, 0, 0], None),
    ("norm_rows_one_zero", lambda x, m: m.np.sum(m.np.linalg.norm(m.np.reshape(x, (2, 2)), axis=1)),
     [0.0, 0.0, 3.0, 4.0], [0, 0, 0.6, 0.8], None),
    ("masked_x_log_x", lambda x, m: m.np.sum(m.np.where(x > 0, x * m.np.log(x), 0.0)), [0.0, 1.0, 2.0],
     [0, 1, 1 + math.log(2)], -1),
    ("masked_xlogy", lambda x, m: m.np.sum(m.np.where(x > 0, m.sp.xlogy(x, x), 0.0)), [0.0, 1.0, 2.0],
     [0, 1, 1 + math.log(2)], -1),
    ("masked_entr", lambda x, m: m.np.sum(m.np.where(x > 0, m.sp.entr(x), 0.0)), [0.0, 1.0], [0, -1], -1),
    ("logsumexp_all_neg_inf", lambda x, m: m.sp.logsumexp(x), [NINF, NINF], [0, 0], None),
    ("logsumexp_masked_all", lambda x, m: m.sp.logsumexp(m.np.where(x > 5.0, x, NINF)), [1.0, 2.0], [0, 0], None),
    ("masked_softmax", lambda x, m: m.np.sum(m.sp.softmax(m.np.where(MASK, x, NINF)) * W), [0.5, 1.0, 2.0],
     _softmax_closed(np.array([0.5, 1.0, 2.0])), 1),
    ("safe_division", lambda v, m: m.np.where(v[1] != 0, v[0] / v[1], 0.0), [0.0, 0.0], [0, 0], 1),
    ("safe_division_x", lambda v, m: m.np.where(v[1] != 0, v[0] / v[1], 0.0), [2.0, 0.0], [0, 0], None),
    ("arctan2_origin", lambda v, m: m.np.where(v[0] ** 2 + v[1] ** 2 > 0, m.np.arctan2(v[1], v[0]), 0.0),
     [0.0, 0.0], [0, 0], None),
    ("pow_half_masked", lambda x, m: m.np.sum(m.np.where(x > 0, x ** 0.5, 0.0)), [0.0, 4.0], [0, 0.25], -1),
    ("pow_1_5_at_0", lambda x, m: m.np.sum(x ** 1.5), [0.0, 4.0], [0, 3.0], None),  # (h^0.5: slow to converge)
    ("pow_zero_base", lambda y, m: m.np.sum(m.np.zeros(2) ** y), [1.0, 2.0], [0, 0], 1),
    ("sinc_at_0", lambda x, m: m.np.sum(m.np.sinc(x)), [0.0], [0], 1),
    ("cdist_equal_points", _pairwise, [[0.0, 1.0], [2.0, 3.0]], [[-math.sqrt(2)] * 2, [math.sqrt(2)] * 2], None),
    ("cdist_all_equal", _pairwise, [[1.0, 1.0], [1.0, 1.0]], [[0, 0], [0, 0]], None),
    ("huber_kink", _huber, [1.0, -1.0, 0.0], [1, -1, 0], 1),
    ("clip_sqrt", lambda x, m: m.np.sum(m.np.sqrt(m.np.clip(x, 0.0, None))), [-1.0, 4.0], [0, 0.25], 1),
    ("maximum_sqrt", lambda x, m: m.np.sum(m.np.sqrt(m.np.maximum(x, 0.0))), [-2.0, 1.0], [0, 0.5], 1),
    ("indexing_sqrt", lambda x, m: m.np.sum(m.np.sqrt(x)[1:]), [0.0, 4.0], [0, 0.25], 1),
    ("masked_arcsin", lambda x, m: m.np.sum(m.np.where(m.np.abs(x) < 1, m.np.arcsin(x), 0.0)), [1.0, 0.0], [0, 1], 1),
    ("masked_arccos", lambda x, m: m.np.sum(m.np.where(m.np.abs(x) < 1, m.np.arccos(x), 0.0)), [-1.0, 0.0], [0, -1],
     -1),
    ("masked_arctanh", lambda x, m: m.np.sum(m.np.where(m.np.abs(x) < 1, m.np.arctanh(x), 0.0)), [1.0, 0.5],
     [0, 4 / 3], 1),
    ("masked_arccosh", lambda x, m: m.np.sum(m.np.where(x > 1, m.np.arccosh(x), 0.0)), [1.0, 2.0],
     [0, 1 / math.sqrt(3)], -1),
    ("masked_log", lambda x, m: m.np.sum(m.np.where(x > 0, m.np.log(x), 0.0)), [0.0, math.e], [0, 1 / math.e], -1),
    ("masked_log2", lambda x, m: m.np.sum(m.np.where(x > 0, m.np.log2(x), 0.0)), [0.0, 2.0],
     [0, 1 / (2 * math.log(2))], -1),
    ("masked_log1p", lambda x, m: m.np.sum(m.np.where(x > -1, m.np.log1p(x), 0.0)), [-1.0, 0.0], [0, 1], -1),
    ("masked_reciprocal", lambda x, m: m.np.sum(m.np.where(x != 0, 1.0 / x, 0.0)), [0.0, 2.0], [0, -0.25], None),
    ("masked_cbrt", lambda x, m: m.np.sum(m.np.where(x > 0, m.np.cbrt(x), 0.0)), [0.0, 8.0], [0, 1 / 12], -1),
    ("std_of_constant", lambda x, m: m.np.std(x), [1.0, 1.0, 1.0], [0, 0, 0], None),
    ("sqrt_of_square", lambda x, m: m.np.sum(m.np.sqrt(x ** 2)), [0.0, -2.0], [0, -1], None),
]
IDS = [c[0] for c in CASES]


def _case(name):
    _, f, x, expected, side = CASES[IDS.index(name)]
    return f, np.array(x, dtype=float), np.array(expected, dtype=float), side


def _fg(f):
    return lambda x: f(x, FG)


@pytest.mark.parametrize("name", IDS)
def test_grad_is_the_closed_form(name):
    f, x, expected, _ = _case(name)
    g = fgrad.grad(_fg(f))(x)
    assert np.all(np.isfinite(g)), g
    np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [c[0] for c in CASES if c[4] is not None])
def test_grad_matches_one_sided_finite_differences(name):
    f, x, _, side = _case(name)
    h = 1e-7 * side
    base = float(f(x, FG))
    fd = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = x.copy()
        step[i] += h
        fd[i] = (float(f(step, FG)) - base) / h
    np.testing.assert_allclose(fgrad.grad(_fg(f))(x), fd, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", IDS)
def test_jvp_along_each_axis_is_the_closed_form(name):
    """Forward mode: a zero tangent stays zero (the other coordinates' entries meet 0 tangents)."""
    f, x, expected, _ = _case(name)
    for i in np.ndindex(x.shape):
        t = np.zeros_like(x)
        t[i] = 1.0
        _, dt = fgrad.jvp(_fg(f), (x,), (t,))
        np.testing.assert_allclose(dt, expected[i], rtol=1e-12, atol=1e-12, err_msg=f"tangent along {i}")


@pytest.mark.parametrize("name", IDS)
def test_vmap_of_grad(name):
    f, x, expected, _ = _case(name)
    g = fgrad.vmap(fgrad.grad(_fg(f)))(np.stack([x, x]))
    np.testing.assert_allclose(g, np.stack([expected, expected]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", IDS)
def test_compiled_grad_keeps_the_policy(name):
    f, x, expected, _ = _case(name)
    compiled = fgrad.compile(fgrad.grad(_fg(f)))
    for _ in range(2):  # the traced call, then the replay of the staged program
        np.testing.assert_allclose(compiled(x), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", IDS)
def test_tensor_face_backward(name):
    f, x, expected, _ = _case(name)
    t = fgrad.tensor(x, requires_grad=True)
    f(t, FG).backward()
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_the_policy_holds_at_second_order():
    """The product rule in the policy's products: d/dx of sqrt's zero-cotangent term keeps its
    share (a where-mask of the product would drop it). f = x^1.5 - x^0.5: f''(1) = 1."""
    def f(x):
        return fnp.sum(fnp.sqrt(x) * (x - 1.0))
    np.testing.assert_allclose(fgrad.hessian(f)(np.array([1.0])), [[1.0]], rtol=1e-12)
    x = np.array([0.0, 1.0])  # and the Hessian of the masked sqrt at 0 is 0, not NaN
    h = fgrad.hessian(lambda v: fnp.sum(fnp.where(v > 0, fnp.sqrt(v), 0.0)))(x)
    np.testing.assert_allclose(h, [[0.0, 0.0], [0.0, -0.25]], rtol=1e-12)


def test_a_zero_tangent_stays_zero_where_the_partial_is_infinite():
    x, y = np.zeros(2), np.ones(2)
    _, t = fgrad.jvp(lambda a, b: fnp.sqrt(a) + b, (x, y), (np.zeros(2), np.ones(2)))
    np.testing.assert_array_equal(t, [1.0, 1.0])
    with config.overriding(nan_safe_zeros=False):
        _, t = fgrad.jvp(lambda a, b: fnp.sqrt(a) + b, (x, y), (np.zeros(2), np.ones(2)))
    assert np.all(np.isnan(t))


def test_a_nonzero_cotangent_still_meets_the_infinite_partial():
    """The policy changes only the products with a zero factor: sqrt's slope at 0 is inf."""
    assert fgrad.grad(lambda x: fnp.sum(fnp.sqrt(x)))(np.zeros(1))[0] == np.inf
    assert np.isnan(fgrad.grad(lambda x: fnp.arctan2(x[1], x[0]))(np.zeros(2))).all()  # (undefined there)


SMOOTH = [  # generic points: the policy changes no bit
    lambda x: fnp.sum(fnp.sqrt(x) + fnp.log(x) * fnp.arcsin(x / 4.0) + x ** 1.5 / (x + 1.0)),
    lambda x: fnp.sum(fnp.arctan2(x, 2.0 - x) * fnp.cbrt(x) + fnp.log1p(x) * fnp.reciprocal(x)),
    lambda x: fnp.sum(fnp.maximum(x, 1.0) * fnp.arctanh(x / 4.0) + fsp.xlogy(x, x + 1.0)),
    lambda x: fnp.linalg.norm(x) * fsp.logsumexp(x),
]


@pytest.mark.parametrize("k", range(len(SMOOTH)))
def test_where_nothing_is_zero_the_values_are_the_plain_products_bit_for_bit(k):
    x = np.array([0.3, 1.1, 2.5, 3.7])
    on = fgrad.grad(SMOOTH[k])(x)
    with config.overriding(nan_safe_zeros=False):
        off = fgrad.grad(SMOOTH[k])(x)
    np.testing.assert_array_equal(on, off)
    hess_on = fgrad.hessian(SMOOTH[k])(x)
    with config.overriding(nan_safe_zeros=False):
        np.testing.assert_array_equal(hess_on, fgrad.hessian(SMOOTH[k])(x))


@pytest.fixture(scope="module")
def jax_ns():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.special as jss
    return jax, SimpleNamespace(np=jnp, sp=jss)


@pytest.mark.parametrize("name", IDS)
def test_switched_off_the_values_are_jaxs(name, jax_ns):
    """fgrad.config.nan_safe_zeros off: JAX's gradients, NaN and inf where it has them."""
    jax, jnp_ns = jax_ns
    f, x, _, _ = _case(name)
    with config.overriding(nan_safe_zeros=False):
        ours = fgrad.grad(_fg(f))(x)
    theirs = np.asarray(jax.grad(lambda v: f(v, jnp_ns))(x))
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_switched_off_most_of_the_list_is_not_finite():
    """The list is the policy's: without it, these gradients are NaN or inf (as JAX's)."""
    with config.overriding(nan_safe_zeros=False):
        broken = [name for name in IDS if not np.all(np.isfinite(fgrad.grad(_fg(_case(name)[0]))(_case(name)[1])))]
    assert len(broken) >= 20, broken


@pytest.mark.parametrize("a, b", [
    (0.0, np.inf), (np.float64(0.0), np.float64(np.nan)), (np.array([0.0, 1.0, 2.0]), np.array([np.inf, 2.0, np.nan])),
    (np.float64(2.0), np.float32(3.0)), (np.float32(0.0), np.array([np.inf], np.float32)), (np.inf, 0.0)])
def test_the_rules_products_of_python_floats_and_numpy_values(a, b):
    from fgrad.ops.elementwise import over, safe_multiply, times
    with np.errstate(all="ignore"):
        product, quotient = np.multiply(a, b), np.true_divide(a, b)
        product = np.where(np.isnan(product) & ((np.asarray(a) == 0) | (np.asarray(b) == 0)), 0.0, product)
        quotient = np.where(np.isnan(quotient) & (np.asarray(a) == 0), 0.0, quotient)
        np.testing.assert_array_equal(times(a, b), product)
        np.testing.assert_array_equal(safe_multiply(a, b), product)
        np.testing.assert_array_equal(over(a, b), quotient)


# The policy's products' jvp on values (their jvp_pair: for a real vector one dot product of the
# output and the tangent tests both for NaN, else one NaN test of each) against their rules (the
# pair off), bit for bit: with zeros, infinities, NaNs in a factor or a tangent (which send the
# pair back to the rules), each factor tangent or constant, as vectors of both float dtypes and as
# a matrix (the test per array).
_FACTORS = [np.array([0.5, -2.0, 3.0, 1e300]), np.array([0.0, 0.0, np.inf, 2.0]), np.array([np.inf, 1.0, 0.0, -0.0]),
            np.array([np.nan, 1.0, 2.0, 0.0])]
_TANGENTS = [(np.array([1.0, 0.0, -3.0, 2.0]), np.array([0.0, 2.0, 0.5, -1e300])),
             (np.array([1.0, np.nan, 0.0, 2.0]), np.array([0.0, 2.0, 0.5, 1.0]))]
_LAYOUTS = {"float64": lambda v: v, "float32": lambda v: v.astype(np.float32), "matrix": lambda v: v.reshape(2, 2)}


@pytest.mark.parametrize("name", ["safe_multiply", "safe_divide"])
@pytest.mark.parametrize("which", ["both", "first", "second"])
@pytest.mark.parametrize("a", range(4))
@pytest.mark.parametrize("b", range(3))
@pytest.mark.parametrize("tangents", range(2))
@pytest.mark.parametrize("layout", _LAYOUTS)
def test_the_policy_products_jvp_pair_is_their_rules(name, which, a, b, tangents, layout, monkeypatch):
    from fgrad.ops import elementwise
    product, form = getattr(elementwise, name), _LAYOUTS[layout]
    x, y = form(_FACTORS[a]), form(_FACTORS[b][::-1].copy())
    tx, ty = (form(t) for t in _TANGENTS[tangents])
    fun, primals, tangents = {"both": (product, (x, y), (tx, ty)),
                              "first": (lambda u: product(u, y), (x,), (tx,)),
                              "second": (lambda v: product(x, v), (y,), (ty,))}[which]
    with np.errstate(all="ignore"):
        paired = fgrad.jvp(fun, primals, tangents)
        monkeypatch.setattr(product.prim, "jvp_pair", None)
        ruled = fgrad.jvp(fun, primals, tangents)
    for got, want in zip(paired, ruled):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("c, has_nan", [
    (np.ones(3), False), (np.array([1.0, np.nan]), True), (np.array([np.inf, -np.inf, 1e300]), False),
    (np.ones((3, 4))[:, ::2], False), (np.where(np.eye(3) > 0, np.nan, 1.0).T, True),
    (np.array([np.nan], np.float16), True), (np.full(5, 3e38, np.float32), False), (np.arange(4), False),
    (np.array([1 + 1j, 2j]), False), (np.array([complex(0.0, np.nan)]), True), (np.float64(np.nan), True),
    (np.float32(np.nan), True), (np.array(np.nan), True), (1.5, False), (np.array([], np.float64), False)])
def test_nan_in_finds_every_nan(c, has_nan):
    """nan_in (the policy products' one test: a sum of squares) is True wherever c holds a NaN;
    a false alarm (only an infinite complex part) would cost time, a miss a wrong value."""
    from fgrad.ops.elementwise import nan_in
    assert bool(nan_in(c)) == has_nan


def test_the_policys_nan_tests_warn_of_nothing_at_huge_values():
    """The NaN tests' dot products overflow to inf at entries near 1e200: no RuntimeWarning may come
    of it (ndarray.dot gave one, which -W error turned into an exception), and the values hold."""
    import warnings

    from fgrad.ops.elementwise import nan_in
    x = np.full(5, 1e200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, t = fgrad.jvp(lambda x: fnp.sqrt(x) * x, (x,), (x,))
        g = fgrad.grad(lambda x: fnp.sum(fnp.sqrt(x) * x))(x)
        assert nan_in(x) is False and nan_in(x[None]) is False  # (a vector and a matrix)
    np.testing.assert_allclose(t, 1.5e300)
    np.testing.assert_allclose(g, 1.5e100)
