"""fgrad.scipy.integrate: trapezoid's errors, and odeint (no op-table row: an adaptive solver
agrees with references to its tolerance, not to 1e-12). Its values against SciPy and closed
forms, its adjoint gradients against central differences and closed forms, and the other
transforms through it."""
import numpy as np
import pytest
import scipy.integrate as si
import scipy.linalg as sl

import fgrad
import fgrad.numpy as fnp
from fgrad.scipy.integrate import odeint, trapezoid

Y0 = np.array([1.0, -0.5])
T = np.linspace(0.0, 2.0, 5)
A = np.array(0.7)
M = np.array([[-0.5, 1.0], [-1.0, -0.3]])  # a damped rotation
C = np.array([1.0, 2.0])


def decay(y, t, a):
    return -a * y + fnp.sin(t)


def linear(y, t, m):
    return m @ y


def loss(y0, t, a):
    return fnp.sum(odeint(decay, y0, t, a) ** 2)


def central_differences(f, x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[i] = eps
        out[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return out


# ---- values -----------------------------------------------------------------------------------------
def test_solution_matches_scipy():
    want = si.solve_ivp(lambda t, y: -0.7 * y + np.sin(t), (0.0, 2.0), Y0, t_eval=T, rtol=1e-12, atol=1e-12).y.T
    got = odeint(decay, Y0, T, A)
    assert got.shape == (5, 2)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    tight = odeint(decay, Y0, T, A, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(tight, want, rtol=1e-9, atol=1e-10)


def test_hmax_bounds_the_step():
    want = si.solve_ivp(lambda t, y: -0.7 * y + np.sin(t), (0.0, 2.0), Y0, t_eval=T, rtol=1e-12, atol=1e-12).y.T
    np.testing.assert_allclose(odeint(decay, Y0, T, A, hmax=0.05), want, rtol=1e-6, atol=1e-7)
    with pytest.raises(RuntimeError, match="mxstep=5"):  # (t[1] - t[0] = 0.5 takes 10 steps of 0.05)
        odeint(decay, Y0, T, A, hmax=0.05, mxstep=5)


def test_scipys_signature_args_tfirst_and_default_options():
    """SciPy's odeint(func, y0, t, args=(...), tfirst=...), rtol=None, hmax=0 and mxstep=0 (the
    solver's defaults), as HIPS autograd's ODE-net example calls it: the same values and gradients
    as the JAX-style call."""
    want = si.odeint(lambda t, y, a: -a * y + np.sin(t), Y0, T, args=(0.7,), tfirst=True, rtol=1e-12, atol=1e-12)
    got = odeint(lambda t, y, a: decay(y, t, a), Y0, T, args=(A,), tfirst=True, rtol=None, atol=None, hmax=0.0,
                 mxstep=0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(odeint(decay, Y0, T, args=A), odeint(decay, Y0, T, A))  # (a lone value: one argument)
    by_keyword = fgrad.grad(lambda a: fnp.sum(odeint(decay, Y0, T, args=(a,)) ** 2))(A)
    np.testing.assert_allclose(by_keyword, fgrad.grad(lambda a: loss(Y0, T, a))(A), rtol=1e-12)
    with pytest.raises(TypeError, match="both positionally and as args="):
        odeint(decay, Y0, T, A, args=(A,))
    with pytest.raises(TypeError, match=r"unsupported arguments \['Dfun'\]"):
        odeint(decay, Y0, T, args=(A,), Dfun=None)


def test_linear_system_matches_its_closed_form():
    got = odeint(linear, Y0, T, M, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got, [sl.expm(M * t) @ Y0 for t in T], rtol=1e-8, atol=1e-9)


def test_pytree_state():
    def f(state, t, a):
        return {"x": state["v"], "v": -a * state["x"]}
    ys = odeint(f, {"x": np.array(1.0), "v": np.array(0.0)}, T, A)
    w = np.sqrt(0.7)
    np.testing.assert_allclose(ys["x"], np.cos(w * T), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ys["v"], -w * np.sin(w * T), rtol=1e-6, atol=1e-7)
    g = fgrad.grad(lambda a: odeint(f, {"x": np.array(1.0), "v": np.array(0.0)}, T, a)["x"][-1])(A)
    want = fgrad.grad(lambda a: fnp.cos(fnp.sqrt(a) * 2.0))(A)
    np.testing.assert_allclose(g, want, rtol=1e-6)


# ---- reverse mode: the adjoint method ------------------------------------------------------------
def test_gradient_in_y0_args_and_t_matches_central_differences():
    g_y0, g_t, g_a = fgrad.grad(loss, argnums=(0, 1, 2))(Y0, T, A)
    np.testing.assert_allclose(g_y0, central_differences(lambda y0: loss(y0, T, A), Y0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g_a, central_differences(lambda a: loss(Y0, T, a), A), rtol=1e-5, atol=1e-6)
    # t: moving an output time, and moving t[0] (the start) itself
    np.testing.assert_allclose(g_t, central_differences(lambda t: loss(Y0, t, A), T), rtol=1e-5, atol=1e-6)


def test_gradient_of_a_linear_system_matches_its_closed_form():
    """c . y(t_end) = c^T expm(M t) y0: its gradient in y0 is expm(M t)^T c, and in M the adjoint
    Frechet derivative t L(t M^T, c y0^T)."""
    t_end = T[-1]

    def final(y0, m):
        return fnp.sum(C * odeint(linear, y0, T, m)[-1])
    g_y0, g_m = fgrad.grad(final, argnums=(0, 1))(Y0, M)
    np.testing.assert_allclose(g_y0, sl.expm(M * t_end).T @ C, rtol=1e-6)
    np.testing.assert_allclose(g_m, t_end * sl.expm_frechet(t_end * M.T, np.outer(C, Y0), compute_expm=False),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g_m, central_differences(lambda m: final(Y0, m), M), rtol=1e-5, atol=1e-7)


def test_cotangents_at_every_output_time_count():
    g = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 2.0], [0.5, 0.5]])
    _, pull = fgrad.vjp(lambda y0: odeint(linear, y0, T, M), Y0)
    want = sum(sl.expm(M * t).T @ gi for t, gi in zip(T, g))
    np.testing.assert_allclose(pull(g)[0], want, rtol=1e-6, atol=1e-8)


# ---- the other transforms through the custom rule ------------------------------------------------
def test_jvp_agrees_with_the_gradient():
    u = (np.array([0.3, -1.0]), np.array([0.0, 0.1, -0.2, 0.0, 0.4]), np.array(0.5))
    _, tangent = fgrad.jvp(loss, (Y0, T, A), u)
    grads = fgrad.grad(loss, argnums=(0, 1, 2))(Y0, T, A)
    np.testing.assert_allclose(tangent, sum(np.sum(g * v) for g, v in zip(grads, u)), rtol=1e-6)


def test_second_derivative_matches_differences_of_gradients():
    def grad_a(a):
        return fgrad.grad(loss, argnums=2)(Y0, T, a)
    second = fgrad.grad(grad_a)(A)
    np.testing.assert_allclose(second, central_differences(grad_a, A, eps=1e-4), rtol=1e-5)
    hess = fgrad.hessian(lambda y0: loss(y0, T, A))(Y0)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-6, atol=1e-8)
    for i in range(2):  # row i: the derivative of the gradient's entry i
        row = central_differences(lambda y0: fgrad.grad(loss)(y0, T, A)[i], Y0, eps=1e-4)
        np.testing.assert_allclose(hess[i], row, rtol=1e-5, atol=1e-7)


def test_vmap_gives_each_examples_own_solution():
    """Step sizes are chosen per example, so the batch equals the examples (to rounding: batched
    kernels may sum in another order)."""
    y0s, a_s = np.stack([Y0, 2 * Y0, -Y0]), np.array([0.7, 3.0, 0.1])
    got = fgrad.vmap(lambda y0, a: odeint(decay, y0, T, a))(y0s, a_s)
    want = np.stack([odeint(decay, y, T, a) for y, a in zip(y0s, a_s)])
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    got = fgrad.vmap(fgrad.grad(loss, argnums=(0, 2)), in_axes=(0, None, 0))(y0s, T, a_s)
    for k, (y, a) in enumerate(zip(y0s, a_s)):
        want = fgrad.grad(loss, argnums=(0, 2))(y, T, a)
        np.testing.assert_allclose(got[0][k], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1][k], want[1], rtol=1e-12)


def test_on_a_second_device():
    device = fgrad.device(fgrad.backend.register_numpy_device(1))
    y0, t, a = device.send(Y0), device.send(T), device.send(A)
    ys = odeint(decay, y0, t, a)
    assert fgrad.backend.device_of(ys) == device
    np.testing.assert_allclose(fgrad.device("cpu").send(ys), odeint(decay, Y0, T, A), rtol=1e-12)
    grads = fgrad.grad(loss, argnums=(0, 2))(y0, t, a)
    assert all(fgrad.backend.device_of(g) == device for g in grads)


def test_compiled_gradient_replays():
    step = fgrad.compile(fgrad.grad(loss, argnums=(0, 2)))
    step(Y0, T, A)
    got = step(Y0 * 1.01, T, A * 1.02)
    want = fgrad.grad(loss, argnums=(0, 2))(Y0 * 1.01, T, A * 1.02)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-11)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-11)


# ---- errors ------------------------------------------------------------------------------------------
def test_a_closed_over_traced_value_raises_with_the_fix():
    with pytest.raises(TypeError, match=r"closes over.*\*args"):
        fgrad.grad(lambda a: fnp.sum(odeint(lambda y, t: -a * y, Y0, T)))(A)


def test_too_few_steps_raise():
    with pytest.raises(RuntimeError, match="mxstep=3"):
        odeint(decay, Y0, T, A, mxstep=3)


@pytest.mark.parametrize("call, error, message", [
    (lambda: odeint(decay, Y0, T[::-1], A), ValueError, "increasing"),
    (lambda: odeint(decay, Y0, T.reshape(5, 1), A), ValueError, "1-D"),
    (lambda: odeint(lambda y, t: y[:1], Y0, T), ValueError, "structure"),
    (lambda: odeint(decay, Y0, T, A, rtol="tight"), TypeError, "rtol"),
])
def test_invalid_arguments_raise(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---- trapezoid ---------------------------------------------------------------------------------------
def test_trapezoid_matches_scipy_and_checks_x():
    y = np.sin(np.linspace(0, 1, 7))
    np.testing.assert_allclose(trapezoid(y, dx=0.5), si.trapezoid(y, dx=0.5), rtol=1e-14)
    with pytest.raises(ValueError, match="x has 3 points but y has 7"):
        trapezoid(y, x=np.arange(3.0))


# ---- the solver's programs (Note [odeint replays one program per solver]) ----------------------------
def test_a_compiled_training_step_traces_once():
    """The solver's loops are lax.while_loops: under compile, parameters that change every call
    (so every step-size decision changes) replay one program."""
    step = fgrad.compile(lambda y0, a: fgrad.grad(loss, argnums=(0, 2))(y0, T, a))
    for k in range(4):
        got = step(Y0 * (1 + 0.1 * k), A * (1 + 0.3 * k))
        want = fgrad.grad(loss, argnums=(0, 2))(Y0 * (1 + 0.1 * k), T, A * (1 + 0.3 * k))
        np.testing.assert_allclose(got[1], want[1], rtol=1e-11)
    assert step.cache_info().traces == 1


RATE = 0.7


def test_a_field_is_replayed_only_while_what_it_reads_is_the_same():
    """A field's solver program is kept across calls, known by what the field reads: a rebound
    global number gets a program of its own, and a field reading an array (which a kept program
    would lock read-only) is staged per solve, so writing the array is seen."""
    global RATE

    def by_global(y, t):
        return -RATE * y
    first = odeint(by_global, Y0, T)
    RATE = 3.0
    try:
        np.testing.assert_allclose(odeint(by_global, Y0, T), np.exp(-3.0 * T)[:, None] * Y0, rtol=1e-5, atol=1e-8)
    finally:
        RATE = 0.7
    np.testing.assert_allclose(odeint(by_global, Y0, T), first, rtol=0, atol=0)
    m = M.copy()
    before = odeint(lambda y, t: m @ y, Y0, T)
    assert m.flags.writeable
    m[:] = -np.eye(2)
    np.testing.assert_allclose(odeint(lambda y, t: m @ y, Y0, T)[-1], np.exp(-T[-1]) * Y0, rtol=1e-6)
    assert not np.allclose(before[-1], np.exp(-T[-1]) * Y0)


class _Rates:
    k = 0.7


def test_a_field_reading_a_class_or_module_attribute_sees_it_change():
    """A user's class or module is not known by its identity alone: an attribute set anew is seen
    (a kept program had replayed k = 0.7 after k = 3.0)."""
    import types
    rates = types.ModuleType("rates")
    rates.k = 0.7

    def by_class(y, t):
        return -_Rates.k * y

    def by_module(y, t):
        return -rates.k * y
    for field, owner in ((by_class, _Rates), (by_module, rates)):
        odeint(field, Y0, T)
        owner.k = 3.0
        try:
            np.testing.assert_allclose(odeint(field, Y0, T), np.exp(-3.0 * T)[:, None] * Y0, rtol=1e-5, atol=1e-8)
        finally:
            owner.k = 0.7
