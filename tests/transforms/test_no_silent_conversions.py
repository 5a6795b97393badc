"""Issue 17: no path returns a wrong number without an error. Conversions that would drop a
derivative raise (Note [no silent conversions] in fgrad/ir/value.py); control flow is free;
custom rules are checked exactly; every message names what was wrong."""
import math

import numpy as np
import pytest
import scipy.special

import fgrad
import fgrad.numpy as fnp


# ---- 1. conversions that drop the derivative --------------------------------------------------
@pytest.mark.parametrize("what,fun", [
    ("float()", lambda x: float(x) ** 2),
    ("float()", lambda x: math.sin(x)),
    ("complex()", lambda x: complex(x).real),
    (".item()", lambda x: x.item() ** 2),
    (".tolist()", lambda x: fnp.sum(np.array(x.tolist()))),
])
@pytest.mark.parametrize("transform", ["grad", "jvp", "hessian"])
def test_conversions_raise_naming_the_conversion_and_the_transform(what, fun, transform):
    run = {"grad": lambda: fgrad.grad(fun)(3.0),
           "jvp": lambda: fgrad.jvp(fun, (3.0,), (1.0,)),
           "hessian": lambda: fgrad.hessian(fun)(3.0)}[transform]
    with pytest.raises(TypeError) as e:
        run()
    msg = str(e.value)
    assert what in msg and "drop the derivative" in msg and "stop_gradient" in msg
    assert ("jacfwd" if transform == "hessian" else transform) in msg or "hessian" in msg


def test_np_float64_of_a_traced_value_raises():
    with pytest.raises(TypeError, match=r"drop the derivative.*grad"):
        fgrad.grad(lambda x: np.float64(x) ** 2)(3.0)


def test_writing_a_traced_scalar_into_a_numpy_array_raises():
    def recurrence(x):
        b = np.zeros(3)
        b[0] = x  # NumPy converts with float(): refused
        for i in range(1, 3):
            b[i] = b[i - 1] * x
        return fnp.sum(b)

    # NumPy reports its own ValueError ("setting an array element with a sequence"), caused
    # by fgrad's TypeError, which the traceback shows and which says what to write instead.
    with pytest.raises((TypeError, ValueError)) as e:
        fgrad.grad(recurrence)(1.5)
    cause = e.value if isinstance(e.value, TypeError) else e.value.__cause__
    assert isinstance(cause, TypeError) and "fnp.at(b)[i].set(x)" in str(cause)
    with pytest.raises(TypeError, match="drop the derivative"):  # a slice takes the __array__ path
        fgrad.grad(lambda x: fnp.sum(np.zeros(3).__setitem__(slice(0, 1), x)))(1.5)


def test_the_functional_update_is_the_way_to_write_the_recurrence():
    def recurrence(x):
        b = fnp.zeros(3)
        b = fnp.at(b)[0].set(x)
        for i in range(1, 3):
            b = fnp.at(b)[i].set(b[i - 1] * x)  # (fnp.at works on plain arrays too; x.at on traced ones)
        return fnp.sum(b)

    x = 1.5
    assert fgrad.grad(recurrence)(x) == pytest.approx(1 + 2 * x + 3 * x * x)
    fgrad.testing.check_grads(recurrence, (x,), order=2)


def test_at_set_add_get_match_numpy_and_differentiate():
    a = np.arange(6.0).reshape(2, 3)
    index = (0, [0, 0, 2])  # a repeated index: set keeps the last value, add adds each
    expected = a.copy()
    expected[index] = [7.0, 8.0, 9.0]
    np.testing.assert_array_equal(fnp.at(a)[index].set(np.array([7.0, 8.0, 9.0])), expected)
    added = a.copy()
    np.add.at(added, index, 1.0)
    np.testing.assert_array_equal(fnp.at(a)[index].add(1.0), added)
    np.testing.assert_array_equal(fnp.at(a)[a > 2].set(0.0), np.where(a > 2, 0.0, a))
    np.testing.assert_array_equal(fnp.at(a)[1].get(), a[1])
    assert a[0, 0] == 0.0  # never changed in place
    v = np.array([7.0, 8.0, 9.0])
    fgrad.testing.check_grads(lambda x, v: fnp.at(x)[index].set(v), (a, v), order=2)
    fgrad.testing.check_grads(lambda x, v: fnp.at(x)[index].add(v), (a, v), order=2)
    g = fgrad.grad(lambda v: fnp.sum(fnp.at(a)[index].set(v) * 2.0))(v)
    np.testing.assert_array_equal(g, [0.0, 2.0, 2.0])  # the overwritten first value has no effect
    with pytest.raises(TypeError, match=r"fnp.at\(x\)\[i\]"):
        fnp.at(a).set(1.0)


def test_control_flow_and_int_conversions_stay_free():
    def f(x):
        n = int(x[0])  # a shape or an index: piecewise constant
        y = x[n] * 2.0 if fnp.sum(x) > 0 else -x[n]
        while y < 10.0:
            y = y * 3.0
        return y
    np.testing.assert_array_equal(fgrad.grad(f)(np.array([1.0, 2.0])), [0.0, 6.0])  # y = 3 * (2 x[1])
    np.testing.assert_array_equal(fgrad.grad(lambda x: fnp.sum(x * len(x)))(np.ones(3)), [3.0, 3.0, 3.0])


def test_stop_gradient_makes_the_conversion_explicit():
    assert fgrad.grad(lambda x: x * float(fgrad.stop_gradient(x)))(3.0) == pytest.approx(3.0)


def test_the_tensor_face_keeps_pytorchs_conversions():
    t = fgrad.tensor(2.5, requires_grad=True)
    assert float(t) == 2.5 and t.item() == 2.5 and math.sin(t) == pytest.approx(math.sin(2.5))
    assert fgrad.tensor([1.0, 2.0]).tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="2 elements"):
        float(fgrad.tensor([1.0, 2.0]))


def test_formatting_a_traced_value_prints_its_value():
    seen = []
    fgrad.grad(lambda x: (seen.append(f"{x:.3f}"), x * x)[1])(1.0)
    assert seen == ["1.000"]
    assert f"{fgrad.tensor(2.0, requires_grad=True):.2f}" == "2.00"


# ---- 2. an int output ------------------------------------------------------------------------------
@pytest.mark.parametrize("out", [3, True])
def test_grad_of_an_int_output_raises(out):
    with pytest.raises(TypeError, match=r"grad requires a floating-point output.*(int|bool)"):
        fgrad.grad(lambda x: out)(1.0)
    with pytest.raises(TypeError, match=r"value_and_grad requires a floating-point output"):
        fgrad.value_and_grad(lambda x: out)(1.0)


def test_grad_of_a_float_constant_is_zero():
    assert fgrad.grad(lambda x: 3.0)(1.0) == 0.0


# ---- 3, 4. custom rules are checked exactly ----------------------------------------------------------
def _custom_vjp_returning(ct):
    @fgrad.custom_vjp
    def f(x):
        return x * 2.0
    f.defvjp(lambda x: (x * 2.0, None), lambda res, g: (ct,))
    return f


@pytest.mark.parametrize("x,ct,shapes", [
    (np.ones(3), np.ones((4, 3)), ("(4, 3)", "(3,)")),
    (1.0, np.ones(3), ("(3,)", "()")),
    (np.ones(3), np.ones(3, np.float32), ("float32", "float64")),
])
def test_custom_vjp_cotangent_of_the_wrong_shape_or_dtype_raises(x, ct, shapes):
    f = _custom_vjp_returning(ct)
    for run in (lambda: fgrad.grad(lambda x: fnp.sum(f(x)))(x), lambda: fgrad.jvp(f, (x,), (x,))):
        with pytest.raises(TypeError) as e:
            run()
        msg = str(e.value)
        assert "custom_vjp f" in msg and "bwd" in msg and all(s in msg for s in shapes)


def test_custom_vjp_python_scalar_cotangent_of_a_scalar_is_fine():
    f = _custom_vjp_returning(2.0)
    assert fgrad.grad(f)(1.0) == 2.0


def test_custom_jvp_tangent_of_the_wrong_shape_raises():
    @fgrad.custom_jvp
    def f(x):
        return x * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        return primals[0] * 2.0, np.ones(2)

    for run in (lambda: fgrad.jvp(f, (np.ones(3),), (np.ones(3),)),
                lambda: fgrad.grad(lambda x: fnp.sum(f(x)))(np.ones(3))):
        with pytest.raises(TypeError) as e:
            run()
        msg = str(e.value)
        assert "custom_jvp f" in msg and "(2,)" in msg and "(3,)" in msg


# ---- 16. messages that name what happened ------------------------------------------------------
@pytest.mark.parametrize("call,named,instead", [
    (lambda x: scipy.special.logsumexp(x), "scipy.special.logsumexp", "fgrad.scipy.special.logsumexp"),
    (lambda x: fnp.sum(np.ones((2, 2)).dot(x)), "NumPy", "A @ x"),
    (lambda x: fnp.sum(np.asarray([x[0], 2 * x[1]])), "NumPy", "fnp.stack"),
    (lambda x: np.random.default_rng(0).normal(loc=x).sum(), "NumPy", "np.random"),
])
def test_conversion_messages_say_who_converted_and_what_to_call(call, named, instead):
    with pytest.raises(TypeError) as e:
        fgrad.grad(call)(np.ones(2))
    msg = str(e.value)
    assert named in msg and instead in msg and "drop the derivative" in msg
    assert "call the NumPy function on it directly" not in msg


def test_conversion_message_quotes_the_users_line():
    def f(x):
        return fnp.sum(np.ones((2, 2)).dot(x))  # the line the message quotes
    with pytest.raises(TypeError, match=r"np\.ones\(\(2, 2\)\)\.dot\(x\)"):
        fgrad.grad(f)(np.ones(2))


def test_argnums_out_of_range_is_not_called_a_repeat():
    with pytest.raises(ValueError, match=r"argnums=\(0, 5\) names argument 5.*1 positional"):
        fgrad.grad(lambda x: x, argnums=(0, 5))(1.0)
    with pytest.raises(ValueError, match="same argument twice"):
        fgrad.grad(lambda x, y: x, argnums=(0, -2))(1.0, 2.0)


# ---- after every one of these errors, the state is clean ------------------------------------------
def _bad_custom_jvp(x):
    @fgrad.custom_jvp
    def f(x):
        return x * 2.0
    f.defjvp(lambda p, t: (p[0] * 2.0, np.ones(5)))
    return fnp.sum(f(x))


@pytest.mark.parametrize("fail", [
    lambda: fgrad.grad(lambda x: float(x))(1.0),
    lambda: fgrad.hessian(lambda x: fnp.sum(x) * x.item())(np.ones(2)),
    lambda: fgrad.grad(lambda x: 3)(1.0),
    lambda: fgrad.grad(lambda x: fnp.sum(_custom_vjp_returning(np.ones((4, 3)))(x)))(np.ones(3)),
    lambda: fgrad.jvp(_bad_custom_jvp, (np.ones(3),), (np.ones(3),)),
    lambda: fgrad.grad(lambda x: x * 1j)(1.0),  # a complex output, without holomorphic=True
    lambda: fgrad.grad(lambda x: scipy.special.logsumexp(x))(np.ones(2)),
    lambda: fgrad.grad(lambda x: fgrad.grad(lambda y: float(y) * x)(x))(1.0),
], ids=["float", "item_in_hessian", "int_output", "custom_vjp_shape", "custom_jvp_shape", "complex",
        "library_conversion", "nested"])
def test_state_is_clean_after_the_error(fail):
    import gc

    from fgrad.ops.primitive import EVAL, current_trace
    was = gc.isenabled()
    with pytest.raises((TypeError, ValueError)):
        fail()
    assert current_trace() is EVAL and gc.isenabled() == was
    assert fgrad.grad(lambda x: fnp.sum(fnp.sin(x)))(np.zeros(2)).tolist() == [1.0, 1.0]
