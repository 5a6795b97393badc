"""fgrad.testing: check_grads, numerical_jacobian, gradcheck and gradgradcheck pass on
correct derivatives and, on deliberately wrong custom rules, fail with a message that
locates the error (mode, order, worst index, both values, tolerance)."""
import re

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.testing import GradcheckError, check_grads, numerical_jacobian

X = np.array([0.1, 0.5, 0.9])


# custom rules that are wrong at first order, and right at first but wrong at second order
@fgrad.custom_vjp
def twice_sin_vjp(x):
    return fnp.sin(x)


twice_sin_vjp.defvjp(lambda x: (fnp.sin(x), x), lambda x, g: (2.0 * g * fnp.cos(x),))


@fgrad.custom_jvp
def twice_sin_jvp(x):
    return fnp.sin(x)


@twice_sin_jvp.defjvp
def _twice_sin_jvp(primals, tangents):
    return fnp.sin(primals[0]), 2.0 * fnp.cos(primals[0]) * tangents[0]


@fgrad.custom_vjp
def frozen_sin_vjp(x):
    """Right first derivative, but the rule is not differentiable again (stop_gradient)."""
    return fnp.sin(x)


frozen_sin_vjp.defvjp(lambda x: (fnp.sin(x), x), lambda x, g: (g * fgrad.stop_gradient(fnp.cos(x)),))


@fgrad.custom_jvp
def frozen_sin_jvp(x):
    return fnp.sin(x)


@frozen_sin_jvp.defjvp
def _frozen_sin_jvp(primals, tangents):
    return fnp.sin(primals[0]), tangents[0] * fgrad.stop_gradient(fnp.cos(primals[0]))


MESSAGE = re.compile(r"mode (?P<mode>fwd|rev)\b.*order (?P<order>\d).*index (?P<index>\([\d, ]*\))"
                     r".*analytic (?P<analytic>\S+) vs numerical (?P<numerical>\S+) \(atol=(?P<atol>\S+), "
                     r"rtol=(?P<rtol>[^;)]+)", re.S)


def parse(message):
    m = MESSAGE.search(message)
    assert m, f"message does not name mode, order, index, both values and the tolerance: {message}"
    return m


# ---- check_grads ---------------------------------------------------------------------------
@pytest.mark.parametrize("fun,args", [
    (lambda x: fnp.sum(fnp.sin(x) * fnp.exp(x)), (X,)),
    (lambda x: fnp.tanh(x) * x[::-1], (X,)),
    (lambda x, w: fnp.tanh(x @ w), (np.ones((2, 3)) * 0.3, np.linspace(-1, 1, 12).reshape(3, 4))),
    (lambda p: {"a": p["w"] * p["b"][0], "s": fnp.sum(p["w"] ** 3)}, ({"w": X, "b": (np.float64(2.0),)},)),
    (lambda x: x ** 3, (np.float64(0.7),)),
    (lambda x: fnp.exp(x) * 2.0, (X.astype(np.float32),)),
])
def test_check_grads_passes_on_correct_functions(fun, args):
    check_grads(fun, args, order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("args", [(0.7,), ({"w": X, "b": (2.0,)},)], ids=["float", "float_leaf"])
def test_check_grads_accepts_python_floats(args):
    check_grads(lambda a: fnp.sum(a["w"]) * a["b"][0] if isinstance(a, dict) else a ** 3, args, order=2)


@pytest.mark.parametrize("modes", [("rev",), ("fwd",), ("fwd", "rev")])
@pytest.mark.parametrize("fun", [twice_sin_vjp, twice_sin_jvp], ids=["custom_vjp", "custom_jvp"])
def test_check_grads_fails_on_wrong_first_order_rule(fun, modes):
    with pytest.raises(AssertionError) as e:
        check_grads(fun, (X,), order=2, modes=modes)
    m = parse(str(e.value))
    assert m["mode"] == modes[0] and m["order"] == "1"
    assert m["index"] in ("(0,)", "(1,)", "(2,)")
    analytic, numerical = float(m["analytic"]), float(m["numerical"])
    assert analytic == pytest.approx(2 * numerical, rel=1e-4)   # the rule is exactly twice the truth
    assert float(m["atol"]) == pytest.approx(1e-5) and float(m["rtol"]) == pytest.approx(1e-5)


@pytest.mark.parametrize("fun", [frozen_sin_vjp, frozen_sin_jvp], ids=["custom_vjp", "custom_jvp"])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_check_grads_fails_at_second_order_only(fun, mode):
    check_grads(fun, (X,), order=1, modes=(mode,))
    with pytest.raises(AssertionError) as e:
        check_grads(fun, (X,), order=2, modes=(mode,))
    m = parse(str(e.value))
    assert m["mode"] == mode and m["order"] == "2"
    assert float(m["analytic"]) == 0.0 and float(m["numerical"]) != 0.0


def test_check_grads_custom_tolerance_is_reported():
    with pytest.raises(AssertionError) as e:
        check_grads(twice_sin_vjp, (X,), order=1, modes=("rev",), atol=0.125, rtol=0.25)
    m = parse(str(e.value))
    assert float(m["atol"]) == 0.125 and float(m["rtol"]) == 0.25


def test_check_grads_rejects_unknown_mode_and_integer_inputs():
    with pytest.raises(ValueError, match="mode"):
        check_grads(lambda x: x, (X,), modes=("sideways",))
    with pytest.raises(TypeError, match="int"):
        check_grads(lambda x: x * 1.0, (np.arange(3),))


# ---- numerical_jacobian --------------------------------------------------------------------
def test_numerical_jacobian_shape_and_values():
    A = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    j = numerical_jacobian(lambda a: fnp.sum(a ** 2, axis=0), (A,))
    assert j.shape == (3, 2, 3)
    np.testing.assert_allclose(j, fgrad.jacrev(lambda a: fnp.sum(a ** 2, axis=0))(A), rtol=1e-7, atol=1e-9)
    assert numerical_jacobian(lambda a: fnp.sum(a, axis=0), A).shape == (3, 2, 3)   # a bare array works too
    assert np.shape(numerical_jacobian(lambda x: x ** 2, (0.5,))) == ()
    assert numerical_jacobian(lambda x: fnp.sum(x), (X,)).shape == (3,)


def test_numerical_jacobian_of_several_inputs_and_outputs():
    j = numerical_jacobian(lambda a, b: (a * b, fnp.sum(a)), (np.ones(2), np.full(2, 3.0)))
    shapes = [[np.shape(block) for block in row] for row in j]
    assert shapes == [[(2, 2), (2, 2)], [(2,), (2,)]]
    np.testing.assert_allclose(j[0][0], 3.0 * np.eye(2), rtol=1e-8)
    np.testing.assert_allclose(j[1][1], np.zeros(2), atol=1e-9)


# ---- gradcheck / gradgradcheck -------------------------------------------------------------
GOOD = [
    (lambda a: fnp.sin(a) * a, (X,)),
    (lambda a, b: fnp.tanh(a[:, None] * b[None, :]), (X, np.array([0.3, -0.7]))),
    (lambda a: fnp.sum(fnp.exp(a) ** 2), (X,)),
]


@pytest.mark.parametrize("fun,inputs", GOOD)
def test_gradcheck_and_gradgradcheck_true_on_good_functions(fun, inputs):
    assert fgrad.gradcheck(fun, inputs) is True
    assert fgrad.gradgradcheck(fun, inputs) is True


def test_gradcheck_single_array_input():
    assert fgrad.gradcheck(lambda a: fnp.cos(a), X) is True


@pytest.mark.parametrize("fun", [twice_sin_vjp, twice_sin_jvp], ids=["custom_vjp", "custom_jvp"])
def test_gradcheck_raises_on_wrong_rule(fun):
    with pytest.raises(GradcheckError) as e:
        fgrad.gradcheck(fun, (X,))
    m = re.search(r"index \((\d+), (\d+)\).*analytic (\S+) vs numerical (\S+) \(atol=\S+, rtol=", str(e.value))
    assert m, str(e.value)
    assert m[1] == m[2]                                   # diagonal Jacobian: the error is on the diagonal
    assert float(m[3]) == pytest.approx(2 * float(m[4]), rel=1e-4)
    assert fgrad.gradcheck(fun, (X,), raise_exception=False) is False


@pytest.mark.parametrize("fun", [frozen_sin_vjp, frozen_sin_jvp], ids=["custom_vjp", "custom_jvp"])
def test_gradgradcheck_raises_on_rule_wrong_at_second_order(fun):
    assert fgrad.gradcheck(fun, (X,)) is True
    with pytest.raises(GradcheckError):
        fgrad.gradgradcheck(fun, (X,))
    assert fgrad.gradgradcheck(fun, (X,), raise_exception=False) is False


def test_gradcheck_is_a_runtime_error_subclass_like_torch():
    assert issubclass(GradcheckError, RuntimeError)


# ---- gradcheck's forward mode (check_forward_ad), as torch's -----------------------------------
class _ExpByJvp(fgrad.autograd.Function):
    """exp with only a jvp rule, its tangent scaled by `scale` (1: right)."""

    scale = 1.0

    @staticmethod
    def forward(ctx, x):
        ctx.result = fgrad.exp(x)
        return ctx.result

    @classmethod
    def jvp(cls, ctx, t):
        return cls.scale * t * ctx.result


class _WrongExpByJvp(_ExpByJvp):
    scale = 1.5


def test_gradcheck_checks_forward_mode_of_a_function_with_only_a_jvp():
    x = fgrad.tensor(np.array([[0.2, -0.4], [1.1, 0.3]]), requires_grad=True)
    assert fgrad.autograd.gradcheck(_ExpByJvp.apply, (x,), check_forward_ad=True, check_backward_ad=False)
    with pytest.raises(GradcheckError, match="forward mode"):
        fgrad.autograd.gradcheck(_WrongExpByJvp.apply, (x,), check_forward_ad=True, check_backward_ad=False)
    assert not fgrad.autograd.gradcheck(_WrongExpByJvp.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                        raise_exception=False)


def test_gradcheck_forward_mode_of_arrays_and_nothing_to_check():
    assert fgrad.gradcheck(fnp.sin, (X,), check_forward_ad=True)
    with pytest.raises(ValueError, match="nothing to check"):
        fgrad.gradcheck(fnp.sin, (X,), check_forward_ad=False, check_backward_ad=False)


def test_torch_autograd_names_the_same_checks():
    assert fgrad.autograd.gradcheck is fgrad.gradcheck and fgrad.autograd.gradgradcheck is fgrad.gradgradcheck
