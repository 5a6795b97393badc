"""Programs written once against a lax and a numpy namespace, run by fgrad (fgrad.lax, fgrad.numpy)
and by JAX (jax.lax, jax.numpy) in tests/lax/test_against_jax.py.

Each program maps one float64 vector x of shape (3,) to a scalar.
"""
import numpy as np

_RNG = np.random.default_rng(0)
W = _RNG.normal(size=(3, 3)) * 0.5
U = _RNG.normal(size=(3, 3)) * 0.5
SEQ = _RNG.normal(size=(5, 3))


def fori_sin_chain(L, np_, x):
    return np_.sum(L.fori_loop(0, 6, lambda i, c: np_.sin(c) * x + 0.1, x))


def fori_uses_index(L, np_, x):
    return np_.sum(L.fori_loop(1, 5, lambda i, c: c * x / i + i, x))


def fori_pytree_carry(L, np_, x):
    a, b = L.fori_loop(0, 4, lambda i, c: (c[0] * 0.9 + c[1], np_.cos(c[0]) * x), (x, x * 2.0))
    return np_.sum(a * b)


def fori_horner(L, np_, x):
    coeffs = np_.asarray([1.0, -2.0, 0.5, 3.0])
    return np_.sum(L.fori_loop(0, 4, lambda i, c: c * x + coeffs[i], np_.zeros_like(x)))


def fori_nested(L, np_, x):
    inner = lambda c: L.fori_loop(0, 3, lambda j, d: np_.tanh(d + c), c)  # noqa: E731
    return np_.sum(L.fori_loop(0, 3, lambda i, c: inner(c) * x, x))


def fori_unrolled(L, np_, x):
    return np_.sum(L.fori_loop(0, 5, lambda i, c: np_.sin(c + x), x, unroll=True))


def while_counter(L, np_, x):
    _, out = L.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, np_.sin(c[1]) + x), (0, x))
    return np_.sum(out)


def while_value_dependent(L, np_, x):
    return L.while_loop(lambda c: c < 10.0, lambda c: c * 1.5 + np_.sum(x ** 2), 1.0)


def while_newton_sqrt(L, np_, x):
    y = np_.sum(x ** 2) + 1.0
    return L.while_loop(lambda g: np_.abs(g * g - y) > 1e-12, lambda g: 0.5 * (g + y / g), y)


def while_pytree(L, np_, x):
    out = L.while_loop(lambda c: c["n"] < 3, lambda c: {"n": c["n"] + 1, "v": c["v"] @ W + x}, {"n": 0, "v": x})
    return np_.sum(np_.sin(out["v"]))


def while_with_cond(L, np_, x):
    def body(c):
        k, v = c
        return k + 1, L.cond(k % 2 == 0, lambda v: v * x, lambda v: np_.sin(v), v)
    return np_.sum(L.while_loop(lambda c: c[0] < 4, body, (0, x))[1])


def while_with_scan(L, np_, x):
    def body(c):
        k, v = c
        v, _ = L.scan(lambda h, s: (np_.tanh(h * s + v), None), v, SEQ[:, 0])
        return k + 1, v + x
    return np_.sum(L.while_loop(lambda c: c[0] < 2, body, (0, x))[1])


def scan_cumulative(L, np_, x):
    c, ys = L.scan(lambda c, s: (c + s * x, c * s), np_.zeros(3), SEQ)
    return np_.sum(c) + np_.sum(ys ** 2)


def scan_reverse(L, np_, x):
    c, ys = L.scan(lambda c, s: (np_.sin(c) + s, c * x), x, SEQ, reverse=True)
    return np_.sum(ys * np_.arange(5.0)[:, None]) + np_.sum(c)


def scan_rnn(L, np_, x):
    h, hs = L.scan(lambda h, s: (np_.tanh(h @ W + s @ U),) * 2, x, SEQ)
    return np_.sum(hs ** 2) + np_.sum(h)


def scan_dict_carry(L, np_, x):
    def step(c, s):
        return {"a": c["a"] * s + c["b"], "b": np_.cos(c["a"])}, c["a"][0]
    c, ys = L.scan(step, {"a": x, "b": x * 0.5}, SEQ)
    return np_.sum(c["a"]) + np_.sum(c["b"]) + np_.sum(ys)


def scan_length_only(L, np_, x):
    c, ys = L.scan(lambda c, _: (c * 0.8 + x, np_.sum(c)), x, None, length=4)
    return np_.sum(c) + np_.sum(ys)


def scan_two_xs(L, np_, x):
    c, ys = L.scan(lambda c, xs: (c + xs[0] * xs[1], c * xs[1]), x, (SEQ, SEQ ** 2))
    return np_.sum(c * ys[-1])


def scan_no_ys(L, np_, x):
    c, ys = L.scan(lambda c, s: (c * np_.tanh(s) + x, None), x, SEQ)
    assert ys is None
    return np_.sum(c)


def scan_nested(L, np_, x):
    def outer(c, s):
        inner, _ = L.scan(lambda d, t: (d * t + c, None), c, SEQ[:2])
        return np_.sin(inner) + s, None
    return np_.sum(L.scan(outer, x, SEQ)[0])


def scan_unroll(L, np_, x):
    c, ys = L.scan(lambda c, s: (np_.sin(c) * s + x, c), x, SEQ, unroll=2)
    return np_.sum(ys) + np_.sum(c)


def scan_with_cond(L, np_, x):
    def step(c, s):
        return L.cond(s[0] > 0, lambda c: c * x, lambda c: c + x, c), None
    return np_.sum(L.scan(step, x, SEQ)[0])


def scan_matrix_carry(L, np_, x):
    m, _ = L.scan(lambda m, s: (m @ (W + np_.diag(x)) * 0.5, None), np_.eye(3), SEQ)
    return np_.sum(m)


def scan_with_stop_gradient(L, np_, x):
    c, _ = L.scan(lambda c, s: (c * L.stop_gradient(c) + x * s, None), x, SEQ * 0.3)
    return np_.sum(c)


def cond_on_value(L, np_, x):
    return L.cond(np_.sum(x) > 0, lambda v: np_.sum(np_.sin(v)), lambda v: np_.sum(v ** 2), x)


def cond_two_operands(L, np_, x):
    return L.cond(x[0] < x[1], lambda a, b: np_.sum(a * b), lambda a, b: np_.sum(a - b), x, x ** 2)


def cond_pytree_out(L, np_, x):
    out = L.cond(x[2] > 0, lambda v: {"p": v * 2.0, "q": np_.sum(v)}, lambda v: {"p": v ** 2, "q": v[0]}, x)
    return np_.sum(out["p"]) * out["q"]


def cond_int_pred(L, np_, x):
    return L.cond(np_.sum(x > 0), lambda v: np_.sum(np_.exp(v)), lambda v: np_.sum(v), x)


def switch_three(L, np_, x):
    branches = [lambda v: np_.sum(v), lambda v: np_.sum(np_.sin(v)), lambda v: np_.sum(v ** 3)]
    return L.switch(np_.sum(x > 0), branches, x)


def switch_clamped_high(L, np_, x):
    branches = [lambda v: np_.sum(v), lambda v: np_.prod(v)]
    return L.switch(np_.sum(x > -10) + 5, branches, x)


def switch_clamped_low(L, np_, x):
    branches = [lambda v: np_.sum(np_.cos(v)), lambda v: np_.prod(v)]
    return L.switch(-np_.sum(x > -10), branches, x)


def map_simple(L, np_, x):
    return np_.sum(L.map(lambda s: np_.sin(s * x), SEQ))


def map_pytree(L, np_, x):
    out = L.map(lambda s: (s @ W, np_.sum(s * x)), SEQ)
    return np_.sum(out[0] * x) + np_.sum(out[1])


def map_batched(L, np_, x):
    return np_.sum(L.map(lambda s: np_.tanh(s + x), SEQ, batch_size=2))


def associative_add(L, np_, x):
    return np_.sum(L.associative_scan(np_.add, SEQ * x) ** 2)


def associative_multiply_reverse(L, np_, x):
    return np_.sum(L.associative_scan(np_.multiply, SEQ * 0.5 + x, reverse=True))


def associative_linear_recurrence(L, np_, x):
    def combine(a, b):  # (a1, b1) then (a2, b2): h -> a2 (a1 h + b1) + b2
        return a[0] * b[0], b[0] * a[1] + b[1]
    a, b = L.associative_scan(combine, (np_.tanh(SEQ) * x, SEQ))
    return np_.sum(b ** 2) + np_.sum(a)


def select_elementwise(L, np_, x):
    return np_.sum(L.select(x > 0.1, np_.sin(x), x ** 2))


def custom_root_sqrt(L, np_, x):
    a = np_.sum(x ** 2) + 1.0

    def newton(f, g):
        return L.while_loop(lambda g: np_.abs(f(g)) > 1e-13, lambda g: g - f(g) / (2.0 * g), g)
    return L.custom_root(lambda g: g ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))


def custom_root_fixed_point(L, np_, x):
    a = np_.tanh(np_.sum(x)) * 0.5 + 0.2

    def iterate(f, g):
        return L.while_loop(lambda g: np_.abs(f(g)) > 1e-14, lambda g: f(g) + g, g)
    return L.custom_root(lambda g: np_.cos(a * g) - g, 0.5, iterate, lambda g, y: y / g(1.0))


def custom_linear_solve_closure(L, np_, x):
    a = np_.eye(3) * 3.0 + W * np_.sum(x)
    b = np_.sin(x)
    sol = L.custom_linear_solve(lambda v: a @ v, b, lambda mv, r: np_.linalg.solve(a, r),
                                lambda vm, r: np_.linalg.solve(a.T, r))
    return np_.sum(sol ** 2)


def custom_linear_solve_symmetric(L, np_, x):
    a = np_.eye(3) * 2.0 + np_.outer(x, x)
    sol = L.custom_linear_solve(lambda v: a @ v, x, lambda mv, r: np_.linalg.solve(a, r), symmetric=True)
    return np_.sum(sol * x)


def fori_with_inner_grad(L, np_, x, grad=None):
    return np_.sum(L.fori_loop(0, 3, lambda i, c: c - 0.1 * grad(lambda v: np_.sum(np_.sin(v) * x))(c), x))


PROGRAMS = [fori_sin_chain, fori_uses_index, fori_pytree_carry, fori_horner, fori_nested, fori_unrolled,
            while_counter, while_value_dependent, while_newton_sqrt, while_pytree, while_with_cond, while_with_scan,
            scan_cumulative, scan_reverse, scan_rnn, scan_dict_carry, scan_length_only, scan_two_xs, scan_no_ys,
            scan_nested, scan_unroll, scan_with_cond, scan_matrix_carry, scan_with_stop_gradient, cond_on_value,
            cond_two_operands, cond_pytree_out, cond_int_pred, switch_three, switch_clamped_high, switch_clamped_low,
            map_simple, map_pytree, map_batched, associative_add, associative_multiply_reverse,
            associative_linear_recurrence, select_elementwise, custom_root_sqrt, custom_root_fixed_point,
            custom_linear_solve_closure, custom_linear_solve_symmetric, fori_with_inner_grad]

# Points where each program is smooth (no tie of a predicate, no kink), three of them for vmap.
X = np.array([0.3, -0.2, 0.5])
XS = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3], [-0.6, 0.2, 0.25]])
