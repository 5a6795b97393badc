"""fgrad.lax beyond the program table: errors as JAX's, compile's one-step loops, batched
predicates, deep nesting, finite differences."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import lax
from fgrad.testing import check_grads

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def _program(compiled, *args):
    return compiled.lower(*args).program


# ---- errors, as JAX's --------------------------------------------------------------------------
def test_cond_branches_of_different_dtypes_raise_naming_both():
    def f(L, x):
        return L.cond(True, lambda x: x, lambda x: x.astype(np.float32), x)
    with pytest.raises(TypeError):
        f(jax.lax, jnp.ones(2))
    with pytest.raises(TypeError, match=r"false_fun output.*float32.*true_fun output.*float64"):
        f(lax, np.ones(2))


def test_cond_branches_of_different_structures_raise():
    with pytest.raises(TypeError, match="structure"):
        lax.cond(False, lambda x: (x, x), lambda x: x, np.ones(2))


def test_cond_branch_mismatch_raises_under_vmap_and_compile():
    f = lambda x: lax.cond(x > 0, lambda x: x, lambda x: fnp.stack([x, x]), x)  # noqa: E731
    with pytest.raises(TypeError, match="shape"):
        fgrad.vmap(f)(np.array([1.0, -1.0]))
    with pytest.raises(TypeError, match="shape"):
        fgrad.compile(f)(np.float64(1.0))


def test_while_loop_carry_mismatch_names_both():
    with pytest.raises(TypeError):
        jax.lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, np.int64(0))
    with pytest.raises(TypeError, match=r"body_fun output.*float64.*init_val.*int64"):
        lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, np.int64(0))


def test_scan_carry_mismatch_names_the_leaf():
    with pytest.raises(TypeError, match=r"\['b'\].*shape \(2,\).*init\['b'\].*shape \(\)"):
        lax.scan(lambda c, x: ({"a": c["a"], "b": fnp.stack([x, x])}, None), {"a": 0.0, "b": 0.0}, np.ones(3))


def test_while_loop_predicate_must_be_a_boolean_scalar():
    with pytest.raises(TypeError, match="boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c - 1, 3)
    with pytest.raises(TypeError, match="scalar"):
        lax.while_loop(lambda c: c > 0, lambda c: c - 1, np.ones(2))


def test_scan_length_errors():
    with pytest.raises(ValueError, match="different leading lengths"):
        lax.scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="give length"):
        lax.scan(lambda c, x: (c, x), 0.0, None)
    with pytest.raises(ValueError, match="length=2"):
        lax.scan(lambda c, x: (c, x), 0.0, np.ones(3), length=2)
    with pytest.raises(TypeError, match="pair"):
        lax.scan(lambda c, x: c, 0.0, np.ones(3))


def test_switch_and_fori_loop_refuse_non_integers():
    with pytest.raises(TypeError, match="integer"):
        lax.switch(1.0, [lambda: 0.0, lambda: 1.0])
    with pytest.raises(TypeError, match="integer"):
        lax.fori_loop(0.0, 3, lambda i, c: c, 0.0)


def test_select_refuses_what_lax_refuses():
    with pytest.raises(TypeError, match="boolean"):
        lax.select(np.ones(2), np.ones(2), np.zeros(2))
    with pytest.raises(TypeError, match="shapes"):
        lax.select(True, np.ones(2), np.zeros(3))
    with pytest.raises(TypeError, match="dtypes"):
        lax.select(True, np.ones(2), np.zeros(2, np.float32))


# ---- switch's clamping, scan's edges -----------------------------------------------------------
@pytest.mark.parametrize("index", [-5, -1, 0, 1, 2, 3, 100])
def test_switch_clamps_as_jax(index):
    branches = lambda m: [lambda x: x + 1.0, lambda x: m.sin(x), lambda x: x * 10.0]  # noqa: E731
    assert lax.switch(index, branches(fnp), 0.5) == jax.lax.switch(index, branches(jnp), 0.5)
    batched = fgrad.vmap(lambda i: lax.switch(i, branches(fnp), 0.5))(np.array([index, 1]))
    np.testing.assert_allclose(batched, jax.vmap(lambda i: jax.lax.switch(i, branches(jnp), 0.5))(np.array([index, 1])))


def test_scan_of_no_steps_gives_empty_ys():
    carry, ys = lax.scan(lambda c, x: (c + x[0], c * x), np.float64(1.0), np.zeros((0, 2)))
    j_carry, j_ys = jax.lax.scan(lambda c, x: (c + x[0], c * x), 1.0, jnp.zeros((0, 2)))
    assert carry == j_carry and ys.shape == j_ys.shape == (0, 2)
    with pytest.raises(TypeError, match="carry"):
        lax.scan(lambda c, x: (c + x, c * x), np.float64(1.0), np.zeros((0, 2)))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
def test_associative_scan_is_cumsum_and_cumprod(n):
    x = np.linspace(0.5, 1.5, n * 2).reshape(n, 2)
    np.testing.assert_allclose(lax.associative_scan(fnp.add, x), np.cumsum(x, axis=0))
    np.testing.assert_allclose(lax.associative_scan(fnp.multiply, x, axis=1), np.cumprod(x, axis=1))
    np.testing.assert_allclose(lax.associative_scan(fnp.multiply, x, reverse=True),
                               jax.lax.associative_scan(jnp.multiply, x, reverse=True))


# ---- vmap: batched predicates, JAX's newton_sqrt -------------------------------------------------
def newton_sqrt(L, np_, y):
    return L.while_loop(lambda x: np_.abs(x * x - y) > 1e-12, lambda x: 0.5 * (x + y / x), y)


def test_jit_vmap_newton_sqrt_as_jax():
    ys = np.array([0.5, 2.0, 9.0, 1e4])
    expected = jax.jit(jax.vmap(lambda y: newton_sqrt(jax.lax, jnp, y)))(ys)
    f = fgrad.compile(fgrad.vmap(lambda y: newton_sqrt(lax, fnp, y)))
    np.testing.assert_allclose(f(ys), expected, rtol=1e-14)
    np.testing.assert_allclose(fgrad.vmap(fgrad.grad(lambda y: newton_sqrt(lax, fnp, y)))(ys),
                               jax.vmap(jax.jacfwd(lambda y: newton_sqrt(jax.lax, jnp, y)))(ys), rtol=1e-10)


def test_batched_while_keeps_finished_examples():
    """Each example stops at its own count (the loop runs for the longest)."""
    out = fgrad.vmap(lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0)))(
        np.array([0, 3, 5]))
    np.testing.assert_array_equal(out[0], [0, 3, 5])
    np.testing.assert_array_equal(out[1], [1.0, 8.0, 32.0])


def test_fori_loop_with_a_batched_bound():
    f = lambda n, x: lax.fori_loop(0, n, lambda i, c: c * x + i, 1.0)  # noqa: E731
    n, x = np.array([1, 4, 2]), np.array([0.5, 1.5, -1.0])
    expected = jax.vmap(lambda n, x: jax.lax.fori_loop(0, n, lambda i, c: c * x + i, 1.0))(n, x)
    np.testing.assert_allclose(fgrad.vmap(f)(n, x), expected)


def test_vmap_of_vmap_of_while():
    ys = np.array([[2.0, 3.0], [5.0, 7.0]])
    np.testing.assert_allclose(fgrad.vmap(fgrad.vmap(lambda y: newton_sqrt(lax, fnp, y)))(ys), np.sqrt(ys))


# ---- compile: one step per loop ----------------------------------------------------------------
def test_a_long_fori_loop_compiles_to_one_step():
    f = fgrad.compile(lambda x: lax.fori_loop(0, 20_000, lambda i, c: fnp.sin(c) * x + 1e-5 * i, x))
    x = np.float64(0.5)
    expected = lax.fori_loop(0, 20_000, lambda i, c: fnp.sin(c) * x + 1e-5 * i, x)
    assert f(x) == expected
    program = _program(f, x)
    assert program.primitives() == ["fori_loop"] and len(program.eqns[0].params["body"].program) <= 4


def test_fori_loop_with_a_dynamic_bound_under_compile():
    f = fgrad.compile(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x + i, x))
    g = jax.jit(lambda x, n: jax.lax.fori_loop(0, n, lambda i, c: c * x + i, x))
    for n in (0, 3, 10):
        np.testing.assert_allclose(f(np.float64(0.9), np.int64(n)), g(0.9, n))
    assert f.cache_info().retraces == 0
    assert _program(f, np.float64(0.9), np.int64(3)).primitives() == ["while_loop"]


def test_cond_under_compile_is_one_step_and_does_not_retrace():
    f = fgrad.compile(lambda x: lax.cond(x > 0, fnp.sin, fnp.cos, x))
    assert f(np.float64(1.0)) == np.sin(1.0) and f(np.float64(-1.0)) == np.cos(-1.0)
    assert f.cache_info().retraces == 0 and _program(f, np.float64(1.0)).primitives()[-1] == "switch"


def test_scan_under_compile_is_one_step():
    rng = np.random.default_rng(1)
    W, xs = rng.normal(size=(8, 8)) * 0.3, rng.normal(size=(200, 8))

    def rnn(W, xs):
        return lax.scan(lambda h, x: (fnp.tanh(h @ W + x),) * 2, fnp.zeros(8), xs)
    f = fgrad.compile(rnn)
    h, hs = f(W, xs)
    h0, hs0 = rnn(W, xs)
    np.testing.assert_allclose(h, h0, rtol=1e-13)
    np.testing.assert_allclose(hs, hs0, rtol=1e-13)
    assert _program(f, W, xs).primitives() == ["scan"]


def test_nested_loops_under_compile_capture_the_outer_values():
    def f(x, w):
        inner = lambda c: lax.fori_loop(0, 3, lambda j, d: fnp.tanh(d * w + c), c)  # noqa: E731
        return lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, inner(c[1]) * x), (0, x))[1]
    args = (np.array([0.2, -0.4]), np.float64(0.7))
    compiled = fgrad.compile(f)
    np.testing.assert_allclose(compiled(*args), f(*args), rtol=1e-14)
    assert _program(compiled, *args).primitives() == ["while_loop"]


def test_a_body_that_reads_its_values_is_traced_through():
    """A Python decision inside the body cannot be one step: the loop is unrolled, and right."""
    def f(x):
        return lax.fori_loop(0, 4, lambda i, c: c * 2.0 if float(fnp.sum(c)) < 5 else c - 1.0, x)
    compiled = fgrad.compile(f)
    np.testing.assert_allclose(compiled(np.ones(2)), f(np.ones(2)))
    assert "fori_loop" not in _program(compiled, np.ones(2)).primitives()


def test_grad_of_a_long_fori_loop_compiles_to_two_loops():
    """compile(grad(...)) of W5's kind of chain: a forward scan and a transposed one, whatever the length."""
    f = lambda x: lax.fori_loop(0, 20_000, lambda i, c: fnp.sin(c) * x + 1e-5 * i, x)  # noqa: E731
    compiled = fgrad.compile(fgrad.grad(f))
    x = np.float64(0.5)
    np.testing.assert_allclose(compiled(x), fgrad.grad(f)(x), rtol=1e-13)
    assert _program(compiled, x).primitives().count("scan") == 2 and len(_program(compiled, x)) <= 4


def test_grad_of_a_scan_under_compile_is_two_scans():
    rng = np.random.default_rng(3)
    W, xs = rng.normal(size=(5, 5)) * 0.4, rng.normal(size=(50, 5))

    def loss(W, xs):
        h, hs = lax.scan(lambda h, x: (fnp.tanh(h @ W + x),) * 2, fnp.zeros(5), xs)
        return fnp.sum(hs ** 2) + fnp.sum(h)

    def jloss(W, xs):
        h, hs = jax.lax.scan(lambda h, x: (jnp.tanh(h @ W + x),) * 2, jnp.zeros(5), xs)
        return jnp.sum(hs ** 2) + jnp.sum(h)
    compiled = fgrad.compile(fgrad.grad(loss, argnums=(0, 1)))
    for got, expected in zip(compiled(W, xs), jax.grad(jloss, argnums=(0, 1))(W, xs)):
        np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert _program(compiled, W, xs).primitives().count("scan") == 2


def test_a_transposed_body_reads_its_closure_as_it_was():
    """The body's closure is rebound after the scan (v = scan(... v ...)): the backward pass,
    staged or recomputed under jacrev's vmap, still reads the v of the call."""
    def f(L, np_, x):
        def body(c):
            k, v = c
            v, _ = L.scan(lambda h, s: (np_.tanh(h * s + v), None), v, np.array([0.5, -0.3, 0.8]))
            return k + 1, v + x
        return np_.sum(L.while_loop(lambda c: c[0] < 2, body, (0, x))[1])
    x = np.array([0.3, -0.2, 0.5])
    expected = jax.jacfwd(lambda x: f(jax.lax, jnp, x))(x)
    for transform in (fgrad.grad, fgrad.jacrev):
        np.testing.assert_allclose(fgrad.compile(transform(lambda x: f(lax, fnp, x)))(x), expected, rtol=1e-12)


def test_compile_of_a_transformed_loop_is_right():
    f = lambda x: lax.fori_loop(0, 5, lambda i, c: fnp.sin(c) * x, x)  # noqa: E731
    j = lambda x: jax.lax.fori_loop(0, 5, lambda i, c: jnp.sin(c) * x, x)  # noqa: E731
    np.testing.assert_allclose(fgrad.compile(fgrad.grad(f))(np.float64(0.4)), jax.grad(j)(0.4), rtol=1e-12)
    np.testing.assert_allclose(fgrad.compile(fgrad.hessian(f))(np.float64(0.4)), jax.hessian(j)(0.4), rtol=1e-12)


# ---- nesting, finite differences ---------------------------------------------------------------
def _scan_model(L, np_, w):
    def step(c, x):
        c = L.cond(x > 0, lambda c: np_.tanh(c * w + x), lambda c: c * w - x, c)
        return c, L.fori_loop(0, 2, lambda i, d: np_.sin(d) * w, c)
    c, ys = L.scan(step, 0.3, np.array([0.5, -0.2, 0.8, -0.1]))
    return c + np_.sum(ys)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_grad_nested_to_depth(depth):
    f, j = (lambda w: _scan_model(lax, fnp, w)), (lambda w: _scan_model(jax.lax, jnp, w))
    for _ in range(depth):
        f, j = fgrad.grad(f), jax.grad(j)
    np.testing.assert_allclose(f(0.9), j(0.9), rtol=1e-10)


def test_mixed_nesting_jvp_vmap_grad():
    f = lambda w: _scan_model(lax, fnp, w)  # noqa: E731
    j = lambda w: _scan_model(jax.lax, jnp, w)  # noqa: E731
    ws = np.array([0.5, 0.9, 1.1])
    ours = fgrad.jvp(fgrad.vmap(fgrad.grad(f)), (ws,), (np.ones(3),))
    theirs = jax.jvp(jax.vmap(jax.grad(j)), (ws,), (np.ones(3),))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)


def test_finite_differences():
    rng = np.random.default_rng(2)
    W = rng.normal(size=(3, 3)) * 0.5

    def rnn(x):
        h, hs = lax.scan(lambda h, s: (fnp.tanh(h @ W + s),) * 2, x[0], x[1:])
        return fnp.sum(hs ** 2) + lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, fnp.sin(c[1])),
                                                  (0, fnp.sum(h)))[1]
    check_grads(rnn, (rng.normal(size=(5, 3)),), order=2)
    check_grads(lambda a: lax.custom_root(lambda x: fnp.cos(a * x) - x, 0.5,
                                          lambda f, x: lax.while_loop(lambda x: fnp.abs(f(x)) > 1e-14,
                                                                      lambda x: f(x) + x, x),
                                          lambda g, y: y / g(1.0)), (0.6,), order=2)


def test_map_with_batch_size_matches_jax():
    xs = np.arange(14.0).reshape(7, 2)
    f = lambda m: (lambda x: m.sin(x) * x[0])  # noqa: E731
    for size in (1, 3, 7, 10):
        np.testing.assert_allclose(lax.map(f(fnp), xs, batch_size=size), jax.lax.map(f(jnp), xs, batch_size=size))


# ---- results are arrays, as JAX's --------------------------------------------------------------
RESULTS = {  # name -> call(L): a construct whose body makes Python or NumPy scalars
    "cond": lambda L: L.cond(True, lambda a: a * 2, lambda a: a * 3, 1.0),
    "cond.tuple": lambda L: L.cond(False, lambda a: (a, 2), lambda a: (a, 3), 1.0),
    "switch": lambda L: L.switch(1, [lambda a: a * 2, lambda a: a * 3], 1.0),
    "fori_loop": lambda L: L.fori_loop(0, 3, lambda i, a: a * 2, 1.0),
    "fori_loop.int": lambda L: L.fori_loop(0, 3, lambda i, a: a + i, 1),
    "fori_loop.empty": lambda L: L.fori_loop(3, 0, lambda i, a: a * 2, 1.0),
    "fori_loop.unroll": lambda L: L.fori_loop(0, 2, lambda i, c: {"b": c["b"] * 2, "a": 1.0}, {"b": 1.0, "a": 1.0},
                                              unroll=True),
    "while_loop": lambda L: L.while_loop(lambda a: a < 10, lambda a: a * 2, 1.0),
    "scan": lambda L: L.scan(lambda c, x: (c * 2, 1.0), 1.0, None, length=2),
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_results_are_arrays_as_jax(name):
    want, got = RESULTS[name](jax.lax), RESULTS[name](lax)
    want_leaves, got_leaves = jax.tree_util.tree_leaves(want), fgrad.tree_util.tree_leaves(got)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(w, jax.Array) and type(g) is np.ndarray, (type(g), type(w))
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w)


def test_results_stay_traced_under_the_transforms():
    f = lambda x: lax.cond(x > 0, lambda a: a * 2.0, lambda a: a * 3.0, x) + lax.fori_loop(  # noqa: E731
        0, 3, lambda i, a: a * x, 1.0)
    g = lambda x: jax.lax.cond(x > 0, lambda a: a * 2.0, lambda a: a * 3.0, x) + jax.lax.fori_loop(  # noqa: E731
        0, 3, lambda i, a: a * x, 1.0)
    xs = np.array([2.0, -1.5])
    np.testing.assert_allclose(fgrad.vmap(fgrad.grad(f))(xs), jax.vmap(jax.grad(g))(xs))
    np.testing.assert_allclose(fgrad.compile(fgrad.grad(f))(2.0), jax.grad(g)(2.0))
    np.testing.assert_allclose(fgrad.compile(f)(-1.5), g(-1.5))
