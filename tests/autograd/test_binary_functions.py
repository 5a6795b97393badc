"""torch's functions of two or three tensors new to fgrad's Tensor face (issue 31): atan2 (arctan2),
copysign, logaddexp, logaddexp2, hypot, xlogy, heaviside, nextafter, ldexp, float_power, fmax, fmin, gcd,
lcm, clamp_min, clamp_max, addcmul, addcdiv, baddbmm, addbmm, addmv, addr, mv, vdot, inner, sgn, positive,
isclose, isreal, isposinf, isneginf, signbit, dist and renorm, against torch 2.13: values, dtypes and
shapes (broadcasting; bool, int and float tensors; Python numbers where torch takes them), the function,
method and in-place forms, gradients in float64, and torch's errors (types and messages)."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

torch = pytest.importorskip("torch")

ELEMENTWISE = ["atan2", "arctan2", "copysign", "logaddexp", "logaddexp2", "hypot", "xlogy", "heaviside", "nextafter",
               "ldexp", "float_power", "fmax", "fmin", "gcd", "lcm", "clamp_min", "clamp_max"]
IN_PLACE = {"atan2", "arctan2", "copysign", "hypot", "xlogy", "heaviside", "nextafter", "ldexp", "float_power", "gcd",
            "lcm", "clamp_min", "clamp_max"}
DTYPES = ["bool", "int32", "int64", "float32", "float64"]
A = [[-2.0], [0.0], [3.0]]  # (3, 1) and (4,): broadcast to (3, 4); as bool: True, False, True
B = [1.0, -1.0, 2.0, 0.0]


@pytest.fixture(autouse=True)
def torch_default_float64():
    """torch's default dtype fgrad's (float64), for the tests that do not set both (`default`)."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def _pair(values, dtype):
    """The same values as a torch tensor and an fgrad tensor of `dtype`."""
    return (torch.tensor(values, dtype=torch.float64).to(getattr(torch, dtype)),
            fgrad.tensor(values, dtype=fgrad.float64).to(getattr(fgrad, dtype)))


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # (the error's type is what is compared)
        return type(e)


def _call(module, name, kind, a, b, **keywords):
    if kind == "function":
        return getattr(module, name)(a, b, **keywords)
    if kind == "method":
        return getattr(a, name)(b, **keywords)
    return getattr(a.clone(), f"{name}_")(b, **keywords)


def _dtype(t):
    return str(t.dtype).replace("torch.", "").replace("fgrad.", "")


def assert_same(got, want, where, rtol=1e-6):
    """got (fgrad's) as want (torch's): the same error type, or the same dtype, shape and values."""
    if isinstance(want, type):
        assert got is want, f"{where}: torch raises {want.__name__}, fgrad gave {got}"
        return
    assert not isinstance(got, type), f"{where}: fgrad raised {got.__name__}, torch gave {want}"
    assert _dtype(got) == _dtype(want), where
    assert tuple(got.shape) == tuple(want.shape), where
    want = want.detach().resolve_conj().numpy()
    got = got.detach().numpy()
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12, equal_nan=True, err_msg=where)


# ---- the elementwise functions of two tensors ------------------------------------------------------
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_values_dtypes_and_errors_as_torch(name, default):
    for da in DTYPES:
        for db in DTYPES:
            (ta, fa), (tb, fb) = _pair(A, da), _pair(B, db)
            for kind in ("function", "method") + (("in place",) if name in IN_PLACE else ()):
                where = f"{name}({da}, {db}), {kind}, default {default}"
                if kind != "in place":  # (in place into self (3, 1): both raise, torch for the shape first)
                    want = _outcome(lambda: _call(torch, name, kind, ta, tb))
                    assert_same(_outcome(lambda: _call(fgrad, name, kind, fa, fb)), want, where)
                # self of the broadcast shape (3, 4)
                ta4, fa4 = ta.expand(3, 4).clone(), fgrad.tensor(fa.numpy()).expand(3, 4).clone()
                want = _outcome(lambda: _call(torch, name, kind, ta4, tb))
                assert_same(_outcome(lambda: _call(fgrad, name, kind, fa4, fb)), want, f"{where}, (3, 4)")


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("number", [2.5, 3, True, -1.5])
def test_elementwise_with_python_numbers_as_torch(name, number, default):
    for dtype in DTYPES:
        t, f = _pair(A, dtype)
        where = f"{name}, {dtype}, {number!r}"
        assert_same(_outcome(lambda: getattr(fgrad, name)(f, number)),
                    _outcome(lambda: getattr(torch, name)(t, number)), f"{where}, tensor first")
        assert_same(_outcome(lambda: getattr(fgrad, name)(number, f)),
                    _outcome(lambda: getattr(torch, name)(number, t)), f"{where}, number first")
        assert_same(_outcome(lambda: getattr(f, name)(number)), _outcome(lambda: getattr(t, name)(number)),
                    f"{where}, method")
    assert_same(_outcome(lambda: getattr(fgrad, name)(2.0, 3.0)), _outcome(lambda: getattr(torch, name)(2.0, 3.0)),
                f"{name} of two numbers")


def test_zero_dim_tensors_promote_as_torch():
    for name in ELEMENTWISE:
        for dt, df in ((torch.float64, fgrad.float64), (torch.int64, fgrad.int64)):
            ta, fa = _pair(A, "float32")
            tb, fb = torch.tensor(2, dtype=dt), fgrad.tensor(2, dtype=df)
            assert_same(_outcome(lambda: getattr(fgrad, name)(fa, fb)), _outcome(lambda: getattr(torch, name)(ta, tb)),
                        f"{name}(float32, 0-D {dt})")


def test_elementwise_special_values_as_torch():
    inf, nan = float("inf"), float("nan")
    x = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 1e308, 5e-324]
    y = [0.0, 1.0, -0.0, nan, inf, 2.0, 1.0, 1e308, -1.0]
    for name in ("atan2", "copysign", "logaddexp", "logaddexp2", "hypot", "xlogy", "heaviside", "nextafter", "fmax",
                 "fmin", "float_power"):
        for dtype in ("float32", "float64"):
            (tx, fx), (ty, fy) = _pair(x, dtype), _pair(y, dtype)
            with np.errstate(all="ignore"):
                got = getattr(fgrad, name)(fx, fy)
            want = getattr(torch, name)(tx, ty)
            assert_same(got, want, f"{name}, {dtype}", rtol=0 if name in ("nextafter", "heaviside") else 1e-6)
            numbers = ~np.isnan(want.numpy())  # (NaN's sign bit is the kernel's)
            np.testing.assert_array_equal(np.signbit(got.numpy())[numbers], np.signbit(want.numpy())[numbers],
                                          err_msg=f"{name}, {dtype}: signs of zeros")


def test_integer_functions_as_torch():
    a, b = [[12], [-18], [0], [7]], [8, 12, 0, -5, 7]
    for dtype in ("uint8", "int8", "int16", "int32", "int64"):
        if dtype == "uint8":
            a, b = [[12], [18], [0], [7]], [8, 12, 0, 5, 7]
        for name in ("gcd", "lcm", "fmax", "fmin"):
            (ta, fa), (tb, fb) = _pair(a, dtype), _pair(b, dtype)
            assert_same(getattr(fgrad, name)(fa, fb), getattr(torch, name)(ta, tb), f"{name}, {dtype}")


def test_heaviside_nan_and_integers_as_torch():
    for dtype in ("bool", "uint8", "int64", "float32"):
        (tx, fx), (tv, fv) = _pair([-3, 0, 5], dtype), _pair([1, 0, 1], dtype)
        assert_same(fgrad.heaviside(fx, fv), torch.heaviside(tx, tv), dtype)
    assert fgrad.heaviside(fgrad.tensor([fgrad.nan]), fgrad.tensor([7.0])).tolist() == [0.0]  # (torch's; NumPy's: nan)


ERRORS = [  # (call, error type, message): as torch's
    (lambda m: m.logaddexp(m.tensor([1, 2]), m.tensor([1, 2])), NotImplementedError,
     "\"logaddexp_cpu\" not implemented for 'Long'"),
    (lambda m: m.hypot(m.tensor([1, 2], dtype=m.int32), m.tensor([1, 2])), NotImplementedError,
     "\"hypot_cpu\" not implemented for 'Long'"),
    (lambda m: m.logaddexp2(m.tensor([True]), m.tensor([True])), NotImplementedError, "not implemented for 'Bool'"),
    (lambda m: m.nextafter(m.tensor([1]), m.tensor([2])), NotImplementedError, "not implemented for 'Long'"),
    (lambda m: m.atan2(m.tensor([1j]), m.tensor([1j])), NotImplementedError, "not implemented for 'ComplexDouble'"),
    (lambda m: m.gcd(m.tensor([1.0]), m.tensor([2])), NotImplementedError, "\"gcd_cpu\" not implemented for 'Double'"),
    (lambda m: m.lcm(m.tensor([True]), m.tensor([True])), NotImplementedError, "not implemented for 'Bool'"),
    (lambda m: m.heaviside(m.tensor([1.0]), m.tensor([1.0], dtype=m.float32)), RuntimeError,
     "heaviside is not yet implemented for tensors with different dtypes"),
    (lambda m: m.heaviside(m.tensor([1j]), m.tensor([1j])), RuntimeError,
     "heaviside is not yet implemented for complex tensors"),
    (lambda m: m.fmax(m.tensor([1j]), m.tensor([1.0])), RuntimeError, "fmax not implemented for complex tensors"),
    (lambda m: m.clamp_min(m.tensor([1j]), 0.0), NotImplementedError, "clamp is not supported for complex types"),
    (lambda m: m.clamp_max(m.tensor([True]), True), NotImplementedError,
     "\"clamp_max_scalar_cpu\" not implemented for 'Bool'"),
    (lambda m: m.clamp_min(m.tensor([1], dtype=m.uint8), 300), RuntimeError, "value cannot be converted to type"),
    (lambda m: m.atan2(m.tensor([1.0]), 2.0), TypeError, r"argument 'other' \(position 2\) must be Tensor, not float"),
    (lambda m: m.hypot(2, m.tensor([1.0])), TypeError, r"argument 'input' \(position 1\) must be Tensor, not int"),
    (lambda m: m.heaviside(m.tensor([1.0]), 0.5), TypeError, r"argument 'values' \(position 2\) must be Tensor"),
    (lambda m: m.copysign(2.0, m.tensor([1.0])), TypeError, None),
    (lambda m: m.xlogy(2, 3), TypeError, "invalid combination of arguments"),
    (lambda m: m.float_power(2.0, 3.0), TypeError, "invalid combination of arguments"),
    (lambda m: m.tensor([2.0], dtype=m.float32).float_power_(2), RuntimeError,
     "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"),
    (lambda m: m.tensor([2.0]).float_power_(2j), RuntimeError,
     "the base given to float_power_ has dtype Double but the operation's result requires dtype ComplexDouble"),
    (lambda m: m.tensor([1, 2]).atan2_(m.tensor([1.0, 2.0])), RuntimeError, "can't be cast to the desired output type"),
    (lambda m: m.tensor([1.0]).hypot_(m.tensor([1.0, 2.0])), RuntimeError, None),
    # addcmul, addcdiv
    (lambda m: m.addcdiv(m.tensor([1.0]), m.tensor([1]), m.tensor([2])), RuntimeError,
     "Integer division with addcdiv is no longer supported"),
    (lambda m: m.addcmul(m.tensor([True]), m.tensor([True]), m.tensor([True])), NotImplementedError,
     "\"addcmul_cpu_out\" not implemented for 'Bool'"),
    (lambda m: m.addcmul(m.ones(3), m.ones(3), m.ones(3), value=1j), RuntimeError, "value cannot be converted to type"),
    (lambda m: m.addcmul(m.ones(3, dtype=m.int8), m.ones(3, dtype=m.int8), m.ones(3, dtype=m.int8), value=300),
     RuntimeError, "value cannot be converted to type"),
    (lambda m: m.addcdiv(m.ones(3, dtype=m.float32), m.ones(3, dtype=m.float32), m.ones(3, dtype=m.float32),
                         value=1e300), RuntimeError, "value cannot be converted to type"),
    (lambda m: m.addcmul(m.ones(3), 2, m.ones(3)), TypeError, r"argument 'tensor1' \(position 2\) must be Tensor"),
    (lambda m: m.ones(3).addcmul_(m.ones(2, 3), m.ones(3)), RuntimeError, None),
    (lambda m: m.ones(3, dtype=m.int64).addcmul_(m.ones(3), m.ones(3)), RuntimeError,
     "can't be cast to the desired output type"),
    # the products
    (lambda m: m.baddbmm(m.ones(2, 3, 4), m.ones(2, 3, 5), m.ones(2, 6, 4)), RuntimeError,
     r"Expected size for first two dimensions of batch2 tensor to be: \[2, 5\] but got: \[2, 6\]"),
    (lambda m: m.baddbmm(m.ones(2, 3, 4), m.ones(2, 3, 5), m.ones(3, 5, 4)), RuntimeError,
     r"Expected size for first two dimensions of batch2 tensor to be: \[2, 5\] but got: \[3, 5\]"),
    (lambda m: m.baddbmm(m.ones(2, 3), m.ones(2, 3, 5), m.ones(2, 5, 4)), RuntimeError, "expanded size of the tensor"),
    (lambda m: m.baddbmm(m.ones(2, 3, 4), m.ones(3, 5), m.ones(2, 5, 4)), RuntimeError, None),
    (lambda m: m.baddbmm(m.ones(2, 3, 4), m.ones(2, 3, 5, dtype=m.float32), m.ones(2, 5, 4)), RuntimeError,
     "Input dtypes must be the same"),
    (lambda m: m.baddbmm(m.ones(1, 1, 1, dtype=m.bool), m.ones(1, 1, 1, dtype=m.bool), m.ones(1, 1, 1, dtype=m.bool)),
     NotImplementedError, "\"baddbmm\" not implemented for 'Bool'"),
    (lambda m: m.baddbmm(m.ones(1, 1, 1), m.ones(1, 1, 1), m.ones(1, 1, 1), alpha=1j), RuntimeError,
     "value cannot be converted to type"),
    (lambda m: m.addbmm(m.ones(3, 4), m.ones(2, 3, 5), m.ones(3, 5, 4)), RuntimeError,
     "batch1 and batch2 must have same number of batches, got 2 and 3"),
    (lambda m: m.addbmm(m.ones(3, 4), m.ones(2, 3, 5), m.ones(2, 6, 4)), RuntimeError,
     r"Incompatible matrix sizes for bmm \(3x5 and 6x4\)"),
    (lambda m: m.addbmm(m.ones(2, 4), m.ones(2, 3, 5), m.ones(2, 5, 4)), RuntimeError, "expanded size of the tensor"),
    (lambda m: m.addbmm(m.ones(3, 4), m.ones(2, 3, 5, dtype=m.float32), m.ones(2, 5, 4)), RuntimeError,
     "same dtype"),
    (lambda m: m.addmv(m.ones(2), m.ones(3, 5), m.ones(5)), RuntimeError,
     r"size mismatch, got input \(2\), mat \(3x5\), vec \(5\)"),
    (lambda m: m.addmv(m.ones(3), m.ones(3, 5), m.ones(4)), RuntimeError,
     r"size mismatch, got input \(3\), mat \(3x5\), vec \(4\)"),
    (lambda m: m.addmv(m.ones(3), m.ones(2, 3, 5), m.ones(5)), RuntimeError,
     "vector \\+ matrix @ vector expected, got 1, 3, 1"),
    (lambda m: m.addmv(m.ones(3), m.ones(3, 5), m.ones(5, 1)), RuntimeError,
     "vector \\+ matrix @ vector expected, got 1, 2, 2"),
    (lambda m: m.addmv(m.ones(3), m.ones(3, 5, dtype=m.float32), m.ones(5)), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda m: m.mv(m.ones(3, 5), m.ones(4)), RuntimeError, r"size mismatch, got input \(3\), mat \(3x5\), vec \(4\)"),
    (lambda m: m.mv(m.ones(2, 3, 5), m.ones(5)), RuntimeError, "vector \\+ matrix @ vector expected, got 1, 3, 1"),
    (lambda m: m.mv(m.ones(3, 5, dtype=m.float32), m.ones(5)), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda m: m.addr(m.ones(2, 5), m.ones(3), m.ones(5)), RuntimeError, "expanded size of the tensor"),
    (lambda m: m.addr(m.ones(3, 5), m.ones(3, 1), m.ones(5)), RuntimeError,
     "addr: Expected 1-D argument vec1, but got 2-D"),
    (lambda m: m.addr(m.ones(3, 5), m.ones(3), m.tensor(1.0)), RuntimeError,
     "addr: Expected 1-D argument vec2, but got 0-D"),
    (lambda m: m.addr(m.ones(1, 2, 2), m.ones(2), m.ones(2)), RuntimeError, None),
    (lambda m: m.addr(m.ones(3, 5, dtype=m.int64), m.ones(3, dtype=m.int64), m.ones(5, dtype=m.int64), alpha=2.5),
     RuntimeError, "For integral input tensors, argument alpha must not be a floating point number"),
    (lambda m: m.addr(m.ones(3, 5, dtype=m.bool), m.ones(3, dtype=m.bool), m.ones(5, dtype=m.bool), beta=2.5),
     RuntimeError, "For integral input tensors, argument beta must not be a floating point number"),
    (lambda m: m.vdot(m.ones(3), m.ones(4)), RuntimeError,
     r"inconsistent tensor size, expected tensor \[3\] and src \[4\] to have the same number of elements"),
    (lambda m: m.vdot(m.ones(3, 1), m.ones(3)), RuntimeError, "1D tensors expected, but got 2D and 1D tensors"),
    (lambda m: m.vdot(m.ones(3, dtype=m.float32), m.ones(3)), RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda m: m.inner(m.ones(2, 3), m.ones(4)), RuntimeError,
     r"inner\(\) the last dimension must match on both input tensors but got shapes \[2, 3\] and \[4\]"),
    (lambda m: m.inner(m.ones(3, dtype=m.float32), m.ones(3)), RuntimeError, "both inputs should have same dtype"),
    (lambda m: m.inner(m.ones(3), 2.0), TypeError, r"argument 'other' \(position 2\) must be Tensor, not float"),
    # the others
    (lambda m: m.positive(m.tensor([True])), RuntimeError, "The `\\+` operator, on a bool tensor is not supported"),
    (lambda m: m.isclose(m.tensor([1]), m.tensor([1.0])), RuntimeError, "Long did not match Double"),
    (lambda m: m.isclose(m.ones(3, dtype=m.float32), m.tensor(1.0)), RuntimeError, "Float did not match Double"),
    (lambda m: m.isclose(m.ones(3), m.ones(3), rtol=-1), RuntimeError,
     "rtol must be greater than or equal to zero, but got -1"),
    (lambda m: m.isclose(m.ones(3), m.ones(3), atol=-1), RuntimeError,
     "atol must be greater than or equal to zero, but got -1"),
    (lambda m: m.isclose(m.ones(3), 1.0), TypeError, r"argument 'other' \(position 2\) must be Tensor, not float"),
    (lambda m: m.isposinf(m.tensor([1j])), RuntimeError, "isposinf does not support complex inputs"),
    (lambda m: m.isneginf(m.tensor([1j])), RuntimeError, "isneginf does not support complex inputs"),
    (lambda m: m.signbit(m.tensor([1j])), NotImplementedError, "signbit is not implemented for complex tensors"),
    (lambda m: m.dist(m.tensor([1, 2]), m.tensor([3, 4])), RuntimeError,
     "norm\\(\\): input dtype should be either floating point or complex. Got Long instead"),
    (lambda m: m.dist(m.tensor([True]), m.tensor([False])), RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported"),
    (lambda m: m.dist(m.ones(3), 1.0), TypeError, r"argument 'other' \(position 2\) must be Tensor, not float"),
    (lambda m: m.renorm(m.ones(3, 3), 0, 0, 5), RuntimeError, "renorm: non-positive-norm not supported"),
    (lambda m: m.renorm(m.ones(3, 3), -1, 0, 5), RuntimeError, "renorm: non-positive-norm not supported"),
    (lambda m: m.renorm(m.ones(3, 3), 2, 0, -1), RuntimeError, "renorm: expected maxnorm to be >= 0 but got -1"),
    (lambda m: m.renorm(m.ones(3), 2, 0, 1), RuntimeError,
     "renorm: input needs at least 2 dimensions, got 1 dimensions"),
    (lambda m: m.renorm(m.tensor(3.0), 2, 0, 1), RuntimeError,
     "renorm: input needs at least 2 dimensions, got 0 dimensions"),
    (lambda m: m.renorm(m.ones(3, 3), 2, 2, 1), IndexError, None),
    (lambda m: m.renorm(m.tensor([[1, 2]]), 2, 0, 1), RuntimeError,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_as_torch(case):
    call, error, message = ERRORS[case]
    with pytest.raises(error, match=message):
        call(torch)
    with pytest.raises(error, match=message):
        call(fgrad)


def test_shapes_that_do_not_broadcast():
    """torch raises RuntimeError; fgrad's elementwise ops, `+` among them, raise NumPy's ValueError."""
    with pytest.raises(RuntimeError, match="must match the size of tensor"):
        torch.addcmul(torch.ones(3), torch.ones(2), torch.ones(3))
    with pytest.raises(ValueError, match="could not be broadcast"):
        fgrad.addcmul(fgrad.ones(3), fgrad.ones(2), fgrad.ones(3))
    with pytest.raises(ValueError, match="could not be broadcast"):
        fgrad.atan2(fgrad.ones(3), fgrad.ones(2))


def test_in_place_forms_write_into_self():
    x = fgrad.tensor([1.0, -2.0])
    for name, args in (("atan2_", (fgrad.tensor([1.0, 1.0]),)), ("copysign_", (-1.0,)), ("clamp_min_", (0.0,)),
                       ("addcmul_", (fgrad.ones(2), fgrad.ones(2))), ("sgn_", ()), ("float_power_", (2,)),
                       ("renorm_", (2, 1, 1.0))):
        y = x.clone() if name != "renorm_" else x.reshape(1, 2).clone()
        t = torch.from_numpy(y.numpy().copy())
        assert getattr(y, name)(*args) is y, name
        targs = [torch.from_numpy(a.numpy()) if isinstance(a, fgrad.Tensor) else a for a in args]
        np.testing.assert_allclose(y.numpy(), getattr(t, name)(*targs).numpy(), rtol=1e-12, err_msg=name)


# ---- gradients in float64 ----------------------------------------------------------------------------------
GRADIENT_POINTS = {  # (input (3, 1), other (4,)) away from kinks, ties and the edges of the domains
    "atan2": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "copysign": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "logaddexp": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "logaddexp2": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "hypot": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "xlogy": ([[-2.0], [0.0], [3.0]], [1.0, 1.5, 2.0, 0.25]),
    "ldexp": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "float_power": ([[2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "fmax": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, float("nan")]),
    "fmin": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, float("nan")]),
    "clamp_min": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
    "clamp_max": ([[-2.0], [0.5], [3.0]], [1.0, -1.5, 2.0, -0.25]),
}


def _leaves(values, requires_grad=True):
    return (torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad),
            fgrad.tensor(values, dtype=fgrad.float64, requires_grad=requires_grad))


def assert_gradients(fn, *values, weights_shape=None, complex_=False):
    """fn(module, *leaves) weighted and summed, backward: the gradients of fgrad and torch."""
    leaves = [_leaves(v) for v in values]
    outs = []
    for i, module in enumerate((torch, fgrad)):
        args = [leaf[i] for leaf in leaves]
        y = fn(module, *args)
        w = np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(tuple(y.shape))
        weights = torch.from_numpy(w) if module is torch else fgrad.tensor(w)
        (y * weights).sum().backward()
        outs.append(y)
    for j, (t, f) in enumerate(leaves):  # (no gradient: zeros; torch's may be a ZeroTensor)
        want = (torch.zeros_like(t) + t.grad if t.grad is not None else torch.zeros_like(t)).detach().numpy()
        got = f.grad.numpy() if f.grad is not None else np.zeros(f.shape)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=f"argument {j}")
    np.testing.assert_allclose(outs[1].detach().numpy(), outs[0].detach().numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(GRADIENT_POINTS))
def test_elementwise_gradients_as_torch(name):
    a, b = GRADIENT_POINTS[name]
    assert_gradients(lambda m, x, y: getattr(m, name)(x, y), a, b)


def test_xlogy_gradients_at_zero():
    """At input 0 the gradient of input is torch's (log(other) where other != 0, 0 where other is 0 too); of
    other 0 / other, except where both are 0: torch's NaN, here 0."""
    assert_gradients(lambda m, x, y: m.xlogy(x, y), [0.0, 0.0, 2.0], [3.0, 0.5, 4.0])
    x = fgrad.tensor([0.0, 2.0], requires_grad=True)
    y = fgrad.tensor([0.0, 3.0], requires_grad=True)
    fgrad.xlogy(x, y).sum().backward()
    tx, ty = torch.tensor([0.0, 2.0], dtype=torch.float64, requires_grad=True), torch.tensor(
        [0.0, 3.0], dtype=torch.float64, requires_grad=True)
    torch.xlogy(tx, ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert np.isnan(ty.grad[0].item()) and y.grad[0].item() == 0.0
    np.testing.assert_allclose(y.grad.numpy()[1], ty.grad.numpy()[1])
    assert torch.xlogy(torch.tensor([0.0]), torch.tensor([float("nan")])).isnan().all()
    assert fgrad.xlogy(fgrad.tensor([0.0]), fgrad.tensor([fgrad.nan])).isnan().all()


def test_python_number_operands_gradients():
    assert_gradients(lambda m, x: m.xlogy(x, 2.5) + m.xlogy(3.0, x) + m.float_power(x, 2.5) + m.float_power(2, x)
                     + m.copysign(x, -1.0), [0.5, 1.5, 2.0])


def test_float_power_of_float32_and_complex():
    t, f = _pair([2.0, 3.0], "float32")
    assert_same(fgrad.float_power(f, 2), torch.float_power(t, 2), "float32")
    t.requires_grad_(), f.requires_grad_()
    torch.float_power(t, 2).sum().backward()
    fgrad.float_power(f, 2).sum().backward()
    assert_same(f.grad, t.grad, "float32 gradient")
    tz, fz = torch.tensor([1 + 1j, -2j]), fgrad.tensor([1 + 1j, -2j])
    assert_same(fgrad.float_power(fz, 2), torch.float_power(tz, 2), "complex")
    assert_same(fgrad.float_power(fgrad.tensor([-1.0]), 0.5j), torch.float_power(torch.tensor([-1.0]), 0.5j),
                "complex exponent")


def test_logaddexp_of_complex_tensors():
    a, b = [1 + 2j, -3 + 0.5j, 600 + 1j], [0.5 - 1j, -2 + 0j, 599 + 3j]
    assert_same(fgrad.logaddexp(fgrad.tensor(a), fgrad.tensor(b)), torch.logaddexp(torch.tensor(a), torch.tensor(b)),
                "complex128", rtol=1e-12)


# ---- addcmul and addcdiv ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv_as_torch(name):
    shapes = [(3, 1), (4,), (1, 4)]
    values = [np.array([[1.0], [-2.0], [3.0]]), np.array([2.0, -1.0, 4.0, 0.5]), np.array([[1.5, 2.0, -3.0, 4.0]])]
    for dtypes in (("float64",) * 3, ("float32",) * 3, ("int64",) * 3, ("int8", "int8", "int8"), ("float32",
                   "int64", "float64"), ("int64", "float32", "int64"), ("bool", "bool", "float32"),
                   ("complex128", "float64", "float64"), ("bool",) * 3):
        pairs = [_pair(v.tolist(), d) if d != "complex128" else (torch.tensor(v), fgrad.tensor(v)) for v, d in
                 zip(values, dtypes)]
        if dtypes[0] == "complex128":
            pairs[0] = (pairs[0][0].to(torch.complex128), pairs[0][1].to(fgrad.complex128))
        for value in ({}, {"value": 2}, {"value": 2.7}, {"value": -0.5}, {"value": 1j}):
            for kind in ("function", "method", "in place"):
                (ta, fa), (t1, f1), (t2, f2) = pairs
                if kind == "in place":
                    ta, fa = ta.expand(3, 4).clone(), fgrad.tensor(fa.numpy()).expand(3, 4).clone()
                call = {"function": lambda m, a, x, y: getattr(m, name)(a, x, y, **value),
                        "method": lambda m, a, x, y: getattr(a, name)(x, y, **value),
                        "in place": lambda m, a, x, y: getattr(a, f"{name}_")(x, y, **value)}[kind]
                with np.errstate(all="ignore"):
                    got = _outcome(lambda: call(fgrad, fa, f1, f2))
                assert_same(got, _outcome(lambda: call(torch, ta, t1, t2)), f"{name}{dtypes}, {value}, {kind}")
    del shapes


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv_gradients(name):
    assert_gradients(lambda m, a, x, y: getattr(m, name)(a, x, y, value=-1.5), [[1.0], [-2.0], [3.0]],
                     [2.0, -1.0, 4.0, 0.5], [[1.5, 2.0, -3.0, 4.0]])


# ---- the products --------------------------------------------------------------------------------------------
def _randn(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).round(3).tolist()


PRODUCTS = [  # (name, shapes of the operands, keywords)
    ("baddbmm", [(2, 3, 4), (2, 3, 5), (2, 5, 4)], {}),
    ("baddbmm", [(4,), (2, 3, 5), (2, 5, 4)], {"beta": 2.0, "alpha": -0.5}),
    ("baddbmm", [(3, 1), (2, 3, 5), (2, 5, 4)], {"beta": 0.5}),
    ("addbmm", [(3, 4), (2, 3, 5), (2, 5, 4)], {}),
    ("addbmm", [(1,), (2, 3, 5), (2, 5, 4)], {"beta": -1.0, "alpha": 3.0}),
    ("addmv", [(3,), (3, 5), (5,)], {}),
    ("addmv", [(1,), (3, 5), (5,)], {"beta": 2.0, "alpha": 0.5}),
    ("addmv", [(), (3, 5), (5,)], {"alpha": 2.0}),
    ("addr", [(3, 5), (3,), (5,)], {}),
    ("addr", [(5,), (3,), (5,)], {"beta": 0.5, "alpha": 2.0}),
    ("addr", [(), (3,), (5,)], {"alpha": -1.0}),
    ("mv", [(3, 5), (5,)], {}),
    ("vdot", [(4,), (4,)], {}),
    ("inner", [(4,), (4,)], {}),
    ("inner", [(2, 3), (4, 5, 3)], {}),
    ("inner", [(), (4, 3)], {}),
]


@pytest.mark.parametrize("case", range(len(PRODUCTS)))
def test_products_values_and_gradients_as_torch(case):
    name, shapes, keywords = PRODUCTS[case]
    values = [_randn(*s, seed=i) if s else 1.25 for i, s in enumerate(shapes)]
    assert_gradients(lambda m, *args: getattr(m, name)(*args, **keywords), *values)
    for kind in ("method", "in place"):
        if kind == "in place" and name in ("mv", "vdot", "inner"):
            continue
        for dtype in ("float32", "int64"):
            pairs = [_pair((np.array(v) * 4).round().tolist(), dtype) for v in values]
            targs, fargs = [p[0] for p in pairs], [p[1] for p in pairs]
            method = name if kind == "method" else f"{name}_"
            keys = {k: int(v) for k, v in keywords.items()} if dtype == "int64" else keywords
            if kind == "in place":  # (into a tensor of the product's shape)
                shape = tuple(getattr(torch, name)(*targs, **keys).shape)
                targs[0], fargs[0] = targs[0].expand(shape).clone(), fgrad.tensor(fargs[0].numpy()).expand(
                    *shape).clone()
            want = _outcome(lambda: getattr(targs[0], method)(*targs[1:], **keys))
            got = _outcome(lambda: getattr(fargs[0], method)(*fargs[1:], **keys))
            assert_same(got, want, f"{name} {shapes} {kind} {dtype}", rtol=1e-5)


def test_products_of_integers_bools_and_mixed_dtypes_as_torch():
    cases = [
        lambda m, d: m.baddbmm(m.ones(1, 1, 1, dtype=d("int64")), 2 * m.ones(1, 1, 2, dtype=d("int64")),
                               m.ones(1, 2, 1, dtype=d("int64")), alpha=2.5, beta=1.5),
        lambda m, d: m.addbmm(m.ones(1, 1, dtype=d("int64")), m.ones(1, 1, 2, dtype=d("int64")),
                              m.ones(1, 2, 1, dtype=d("int64")), alpha=2.5, beta=-1.5),
        lambda m, d: m.addmv(m.ones(1, dtype=d("int64")), m.ones(1, 2, dtype=d("int64")), m.ones(2, dtype=d("int64")),
                             alpha=2.5, beta=1.5),
        lambda m, d: m.addr(m.tensor([[True]]), m.tensor([False]), m.tensor([True]), beta=0),
        lambda m, d: m.addr(m.tensor([[False]]), m.tensor([True]), m.tensor([True]), alpha=0),
        lambda m, d: m.addr(m.tensor([[True, False]]), m.tensor([True]), m.tensor([False, True]), alpha=2),
        lambda m, d: m.addr(m.tensor(1.0, dtype=d("float32")), m.tensor([True]), m.tensor([True])),
        lambda m, d: m.addr(m.ones(2, 2, dtype=d("int64")), m.tensor([True, False]),
                            m.tensor([1.5, 2.0], dtype=d("float32"))),
        lambda m, d: m.addr(m.ones(2, 2, dtype=d("int8")), m.tensor([100, 1], dtype=d("int8")),
                            m.tensor([2, 3], dtype=d("int8")), alpha=2, beta=3),
        lambda m, d: m.addr(m.ones(2, 2, dtype=d("float32")), m.ones(2), m.ones(2)),
        lambda m, d: m.vdot(m.tensor([1 + 2j, 3j]), m.tensor([3 + 1j, 1 - 1j])),
        lambda m, d: m.inner(m.tensor([1 + 2j, 3j]), m.tensor([3 + 1j, 1 - 1j])),
        lambda m, d: m.vdot(m.tensor([1, 2]), m.tensor([3, 4])),
        lambda m, d: m.inner(m.tensor([[1, 2]]), m.tensor([3, 4])),
        lambda m, d: m.mv(m.tensor([[1, 2], [3, 4]], dtype=d("int32")), m.tensor([5, 6], dtype=d("int32"))),
        lambda m, d: m.addmv(m.tensor([True]), m.tensor([[True, False]]), m.tensor([True, True])),
        lambda m, d: m.addbmm(m.ones(1, 1, dtype=d("bool")), m.ones(1, 1, 1, dtype=d("bool")),
                              m.ones(1, 1, 1, dtype=d("bool"))),
        lambda m, d: m.mv(m.tensor([[True, False]]), m.tensor([True, True])),
    ]
    for i, case in enumerate(cases):
        want = _outcome(lambda: case(torch, lambda n: getattr(torch, n)))
        got = _outcome(lambda: case(fgrad, lambda n: getattr(fgrad, n)))
        assert_same(got, want, f"case {i}")


def test_beta_zero_ignores_input_as_torch():
    nan = float("nan")
    for m in (torch, fgrad):
        assert m.baddbmm(m.full((1, 1, 1), nan), m.ones(1, 1, 2), m.ones(1, 2, 1), beta=0).tolist() == [[[2.0]]]
        assert m.addbmm(m.full((1, 1), nan), m.ones(1, 1, 2), m.ones(1, 2, 1), beta=0).tolist() == [[2.0]]
        assert m.addmv(m.full((1,), nan), m.ones(1, 2), m.ones(2), beta=0).tolist() == [2.0]
        assert m.addr(m.full((1, 1), nan), m.ones(1), m.ones(1), beta=0).tolist() == [[1.0]]


def test_complex_products_gradients():
    z = [1 + 2j, -0.5 + 1j, 3 - 1j]
    w = [0.5 - 1j, 2 + 0.25j, -1 + 1j]
    for name in ("vdot", "inner"):
        tz, tw = (torch.tensor(v, requires_grad=True) for v in (z, w))
        fz, fw = (fgrad.tensor(v, requires_grad=True) for v in (z, w))
        torch.real(getattr(torch, name)(tz, tw) * (1 - 2j)).backward()
        fnp.real(getattr(fgrad, name)(fz, fw) * (1 - 2j)).backward()
        np.testing.assert_allclose(fz.grad.numpy(), tz.grad.numpy(), rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(fw.grad.numpy(), tw.grad.numpy(), rtol=1e-10, err_msg=name)


# ---- sgn, positive, isclose and the predicates ---------------------------------------------------------------
def test_sgn_as_torch():
    for dtype in ("bool", "uint8", "int64", "float32", "float64"):
        t, f = _pair([0, 1, 2] if dtype in ("bool", "uint8") else [-2, 0, 3], dtype)
        for kind in ("function", "method", "in place"):
            call = {"function": lambda m, x: m.sgn(x), "method": lambda m, x: x.sgn(),
                    "in place": lambda m, x: x.clone().sgn_()}[kind]
            assert_same(_outcome(lambda: call(fgrad, f)), _outcome(lambda: call(torch, t)), f"sgn {dtype} {kind}")
    for dtype in ("complex64", "complex128"):
        z = [3 + 4j, 0j, -2j, -1 + 1e-3j]
        tz, fz = torch.tensor(z).to(getattr(torch, dtype)), fgrad.tensor(z).to(getattr(fgrad, dtype))
        assert_same(fgrad.sgn(fz), torch.sgn(tz), dtype)
        assert_same(fz.clone().sgn_(), tz.clone().sgn_(), f"{dtype} in place")


def test_sgn_gradients_as_torch():
    z = [3 + 4j, -2j, -1 + 0.5j, 0j]
    tz, fz = torch.tensor(z, requires_grad=True), fgrad.tensor(z, requires_grad=True)
    weights = [1 - 2j, 0.5 + 1j, -1j, 2 + 0j]
    torch.real(torch.sgn(tz) * torch.tensor(weights)).sum().backward()
    fnp.real(fgrad.sgn(fz) * fgrad.tensor(weights)).sum().backward()
    np.testing.assert_allclose(fz.grad.numpy(), tz.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert_gradients(lambda m, x: m.sgn(x), [-2.0, 0.5, 3.0])  # (0 for real tensors)


def test_positive_is_the_tensor():
    for dtype in ("uint8", "int64", "float32"):
        t, f = _pair([1, 2], dtype)
        assert fgrad.positive(f) is f and f.positive() is f
        assert_same(fgrad.positive(f), torch.positive(t), dtype)
    z = fgrad.tensor([1j])
    assert fgrad.positive(z) is z


def test_isclose_as_torch():
    inf, nan = float("inf"), float("nan")
    a = [1.0, 1.0, 100.0, inf, -inf, inf, nan, nan, 0.0]
    b = [1.0 + 1e-9, 1.1, 100.01, inf, inf, 1e300, nan, 1.0, 1e-9]
    for dtype in ("float32", "float64"):
        (ta, fa), (tb, fb) = _pair(a, dtype), _pair(b, dtype)
        for keywords in ({}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"rtol": 1e-3, "atol": 1e-6}):
            assert_same(fgrad.isclose(fa, fb, **keywords), torch.isclose(ta, tb, **keywords), f"{dtype} {keywords}")
            assert_same(fa.isclose(fb, **keywords), ta.isclose(tb, **keywords), f"{dtype} {keywords} method")
    for dtype in ("bool", "uint8", "int64"):
        (ta, fa), (tb, fb) = _pair([0, 1, 1, 0], dtype), _pair([0, 1, 0, 1], dtype)
        for keywords in ({}, {"atol": 2}, {"rtol": 0.5, "atol": 0}):
            assert_same(fgrad.isclose(fa, fb, **keywords), torch.isclose(ta, tb, **keywords), f"{dtype} {keywords}")
    ta, fa = torch.ones(3), fgrad.ones(3)
    assert_same(fgrad.isclose(fa, fgrad.ones(2, 1)), torch.isclose(ta, torch.ones(2, 1)), "broadcast")
    tz, fz = torch.tensor([1 + 1j, 2j]), fgrad.tensor([1 + 1j, 2j])
    assert_same(fgrad.isclose(fz, fz + 1e-7), torch.isclose(tz, tz + 1e-7), "complex")


@pytest.mark.parametrize("name", ["isreal", "isposinf", "isneginf", "signbit"])
def test_predicates_as_torch(name):
    inf, nan = float("inf"), float("nan")
    for dtype in ("bool", "uint8", "int64", "float32", "float64", "complex128"):
        values = [-1.0, 0.0, inf, -inf, -0.0, nan, 2.5] if dtype[0] in "fc" else [0, 1, 2]
        t, f = _pair(values, dtype) if dtype != "complex128" else (
            torch.tensor(values, dtype=torch.complex128) + torch.tensor([1j, 0, 0, 0, 0, 0, 0]),
            fgrad.tensor(values, dtype=fgrad.complex128) + fgrad.tensor([1j, 0, 0, 0, 0, 0, 0]))
        want = _outcome(lambda: getattr(torch, name)(t))
        assert_same(_outcome(lambda: getattr(fgrad, name)(f)), want, f"{name} {dtype}")
        assert_same(_outcome(lambda: getattr(f, name)()), want, f"{name} {dtype} method")
    nan_signs = np.array([np.nan, -np.nan])
    assert fgrad.signbit(fgrad.tensor(nan_signs)).tolist() == torch.signbit(torch.from_numpy(nan_signs)).tolist()


# ---- dist and renorm ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [2, 1, 0, 3.5, float("inf"), -float("inf"), -1])
def test_dist_as_torch(p):
    a, b = [1.0, 2.0, 3.0], [[0.0, 0.5, 0.0], [1.5, 1.0, -1.0]]
    for dtypes in (("float64", "float64"), ("float32", "float32"), ("int64", "float32"), ("float32", "float64")):
        (ta, fa), (tb, fb) = _pair(a, dtypes[0]), _pair(b, dtypes[1])
        assert_same(fgrad.dist(fa, fb, p), torch.dist(ta, tb, p), f"p={p} {dtypes}")
        assert_same(fa.dist(fb, p), ta.dist(tb, p), f"p={p} {dtypes} method")
    if p not in (0, -1):
        assert_gradients(lambda m, x, y: m.dist(x, y, p), a, b)
    tz, fz = torch.tensor([1 + 1j, 2j]), fgrad.tensor([1 + 1j, 2j])
    assert_same(fgrad.dist(fz, fgrad.tensor([0j, 1 + 0j]), p), torch.dist(tz, torch.tensor([0j, 1 + 0j]), p), "complex")


RENORM = [  # (shape, p, dim, maxnorm)
    ((3, 3), 2, 0, 5.0), ((3, 3), 1, 1, 5.0), ((3, 3), float("inf"), -1, 5.0), ((2, 3, 4), 2, 1, 10.0),
    ((2, 3, 4), 3, -1, 4.0), ((3, 3), 2, 0, 0.0), ((4, 2), 1.5, 0, 2.0),
]


@pytest.mark.parametrize("case", range(len(RENORM)))
def test_renorm_values_and_gradients_as_torch(case):
    shape, p, dim, maxnorm = RENORM[case]
    n = int(np.prod(shape))
    values = (np.arange(n, dtype=np.float64).reshape(shape) * 0.7 - 1.3).tolist()
    for dtype in ("float32", "float64"):
        t, f = _pair(values, dtype)
        assert_same(fgrad.renorm(f, p, dim, maxnorm), torch.renorm(t, p, dim, maxnorm), f"{dtype}", rtol=1e-6)
        assert_same(f.renorm(p, dim, maxnorm), t.renorm(p, dim, maxnorm), f"{dtype} method", rtol=1e-6)
        assert_same(f.clone().renorm_(p, dim, maxnorm), t.clone().renorm_(p, dim, maxnorm), f"{dtype} in place",
                    rtol=1e-6)
    assert_gradients(lambda m, x: m.renorm(x, p, dim, maxnorm), values)


def test_renorm_of_zero_slices_and_complex():
    assert_gradients(lambda m, x: m.renorm(x, 2, 0, 1.0), [[0.0, 0.0], [3.0, 4.0], [0.1, 0.2]])
    z = [[3 + 4j, 1j], [0.1 + 0j, 0.2j]]
    assert_same(fgrad.renorm(fgrad.tensor(z), 2, 0, 1.0), torch.renorm(torch.tensor(z), 2, 0, 1.0), "complex",
                rtol=1e-12)


def test_the_names_are_functions_methods_and_in_place_methods():
    functions = ["atan2", "arctan2", "copysign", "logaddexp", "logaddexp2", "hypot", "xlogy", "heaviside", "nextafter",
                 "ldexp", "float_power", "fmax", "fmin", "gcd", "lcm", "clamp_min", "clamp_max", "addcmul", "addcdiv",
                 "baddbmm", "addbmm", "addmv", "addr", "mv", "vdot", "inner", "sgn", "positive", "isclose", "isreal",
                 "isposinf", "isneginf", "signbit", "dist", "renorm"]
    for name in functions:
        assert callable(getattr(fgrad, name)), name
        assert hasattr(fgrad.Tensor, name) == hasattr(torch.Tensor, name), name
        assert hasattr(fgrad.Tensor, f"{name}_") == hasattr(torch.Tensor, f"{name}_"), f"{name}_"


COMPLEX_GRADIENTS = {  # (of complex tensors a and b; the loss is the real part of the weighted sum, as torch's)
    "logaddexp": lambda m, a, b: m.logaddexp(a, b),
    "ldexp": lambda m, a, b: m.ldexp(a, b),
    "float_power": lambda m, a, b: m.float_power(a, b),
    "addcmul": lambda m, a, b: m.addcmul(a, b, a, value=0.5),
    "addcdiv": lambda m, a, b: m.addcdiv(a, b, a, value=0.5),
    "dist": lambda m, a, b: m.dist(a, b),
    "renorm": lambda m, a, b: m.renorm(m.stack([a, b]), 2, 0, 1.0),
    "sgn": lambda m, a, b: m.sgn(a) * b,
}


@pytest.mark.parametrize("name", sorted(COMPLEX_GRADIENTS))
def test_complex_gradients_as_torch(name):
    fn = COMPLEX_GRADIENTS[name]
    z, w = [1 + 2j, -0.5 + 1j, 3 - 1j], [0.5 - 1j, 2 + 0.25j, -1 + 1j]
    (ta, fa), (tb, fb) = [(torch.tensor(v, requires_grad=True), fgrad.tensor(v, requires_grad=True)) for v in (z, w)]
    ty, fy = fn(torch, ta, tb), fn(fgrad, fa, fb)
    weights = np.linspace(1, 2, ty.numel()).reshape(tuple(ty.shape)) * (1 - 0.5j if ty.is_complex() else 1)
    torch.real(ty * torch.tensor(weights)).sum().backward()
    fnp.real(fy * fgrad.tensor(weights)).sum().backward()
    np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy(), rtol=1e-10)
    for t, f in ((ta, fa), (tb, fb)):
        np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("value", [-1, -255, -7])
def test_negative_scalars_of_unsigned_tensors_wrap_as_torchs(value):
    # torch takes -max..-1 for an unsigned dtype as two's complement (fgrad raised that they overflow)
    u, w = fgrad.ones(2, dtype=fgrad.uint8), torch.ones(2, dtype=torch.uint8)
    np.testing.assert_array_equal(fgrad.addcmul(u, u, u, value=value).numpy(),
                                  torch.addcmul(w, w, w, value=value).numpy())
    m, n = fgrad.ones(1, 2, 2, dtype=fgrad.uint8), torch.ones(1, 2, 2, dtype=torch.uint8)
    np.testing.assert_array_equal(fgrad.baddbmm(m, m, m, alpha=value, beta=value).numpy(),
                                  torch.baddbmm(n, n, n, alpha=value, beta=value).numpy())
    with pytest.raises(RuntimeError, match="cannot be converted"):
        fgrad.addcmul(u, u, u, value=-256)


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_gradient_of_large_integers_exact(dtype):
    # NumPy's gradient casts integers to float64 first: past 2**53 the differences were lost ([0., 0., 0.]);
    # the reference is torch's of the same values less 2**60 (torch's edge_order=2 edges round too)
    values = np.array([2**60, 2**60 + 3, 2**60 + 9, 2**60 + 10], dtype=dtype)
    small = torch.tensor((values - np.array(2**60, dtype)).astype(np.int64))
    for edge_order in (1, 2):
        (got,) = fgrad.gradient(fgrad.tensor(values), edge_order=edge_order)
        (want,) = torch.gradient(small, edge_order=edge_order)
        np.testing.assert_allclose(got.numpy(), want.numpy().astype(np.float64))
    got = fgrad.gradient(fgrad.tensor(values.reshape(2, 2)), spacing=2.0)
    want = torch.gradient(small.reshape(2, 2), spacing=2.0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy().astype(np.float64))
