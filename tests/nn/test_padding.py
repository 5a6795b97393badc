"""fgrad.nn.functional.pad and the padding Modules against torch 2.13: every mode (constant,
reflect, replicate, circular) on 1, 2 and 3 padded axes, batched and unbatched inputs, negative
widths (crops), outputs and input gradients (float64 to 1e-10, float32 to 1e-5), integer and
boolean inputs, the 1d, 2d and 3d Modules' outputs and reprs, and torch's errors for bad arguments."""
import numpy as np
import pytest

from fgrad import nn
from fgrad.nn import functional as F

from .torch_reference import compare, to_fgrad, to_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]


def _input(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


CONSTANT = [
    ((3,), (1, 2)), ((2, 5), (0, 3)), ((2, 3, 4), (1, 2, 2, 0)), ((2, 3, 4), (1, 1, 1, 1, 1, 1)),
    ((2, 3, 4), (-1, 2)), ((2, 3, 4), (1, -2, -1, 1)), ((2, 3, 4), (-4, 0)), ((2, 3, 4), (0, 0)),
    ((1, 2, 3, 4, 2), (2, 1, 0, 1, 1, 0)), ((2, 3, 4), ()),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("value", [None, 0.0, 2.5, -1.0])
@pytest.mark.parametrize("shape,pad", CONSTANT, ids=[f"{s}-{p}" for s, p in CONSTANT])
def test_constant_matches_torch(shape, pad, value, dtype):
    compare(torch, lambda x: F.pad(x, pad, value=value), lambda x: TF.pad(x, pad, value=value), [_input(shape)],
            dtype, what=f"constant {pad}")


COPIES = [
    ((3, 5), (2, 1)), ((2, 3, 5), (4, 3)), ((2, 3, 5), (0, 2)), ((2, 3, 5), (-1, 2)), ((2, 3, 5), (2, -2)),
    ((3, 4, 5), (1, 2, 3, 0)), ((2, 3, 4, 5), (4, 1, 2, 3)), ((2, 3, 4, 5), (-1, 1, 1, -2)),
    ((2, 3, 4, 5), (1, 2, 3, 1, 2, 1)), ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2)), ((2, 1, 4), (1, 3)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", COPIES, ids=[f"{s}-{p}" for s, p in COPIES])
def test_copying_modes_match_torch(shape, pad, mode, dtype):
    sizes = [shape[-1 - i // 2] for i in range(len(pad))]
    if mode == "reflect" and any(abs(p) >= s for p, s in zip(pad, sizes)):
        pytest.skip("torch's reflect needs widths below the size (tested with the errors)")
    if mode == "circular" and ((any(p < 0 for p in pad) and any(p > 1 for p in pad)) or shape == (2, 1, 4)):
        pytest.skip("torch's circular fails on its own memory where a crop meets a wide pad")
    compare(torch, lambda x: F.pad(x, pad, mode), lambda x: TF.pad(x, pad, mode), [_input(shape)], dtype,
            what=f"{mode} {pad}")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_gradients_add_up_the_copies(mode):
    """A wide pad copies an entry many times: its gradient is the sum (checked against torch's)."""
    compare(torch, lambda x: F.pad(x, (3, 3, 2, 2), mode), lambda x: TF.pad(x, (3, 3, 2, 2), mode),
            [_input((1, 2, 3, 4))], np.float64, what=mode)


def test_integer_and_boolean_inputs_keep_their_dtype():
    ints = np.arange(6).reshape(2, 3)
    got, want = F.pad(to_fgrad(ints), (1, 2), value=2.5), TF.pad(to_torch(torch, ints), (1, 2), value=2.5)
    assert got.dtype == np.int64 and got.numpy().tolist() == want.tolist()
    flags = np.array([[True, False]])
    got, want = F.pad(to_fgrad(flags), (1, 1), value=1), TF.pad(to_torch(torch, flags), (1, 1), value=1)
    assert got.dtype == np.bool_ and got.numpy().tolist() == want.tolist()
    for mode in ["reflect", "replicate", "circular"]:
        got, want = F.pad(to_fgrad(ints), (2, 1), mode), TF.pad(to_torch(torch, ints), (2, 1), mode)
        assert got.dtype == np.int64 and got.numpy().tolist() == want.tolist(), mode


def test_plain_arrays_and_lists_of_widths():
    x = _input((2, 3, 4))
    got = F.pad(x, [1, 2], mode="reflect")
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, TF.pad(to_torch(torch, x), [1, 2], mode="reflect").numpy())
    np.testing.assert_array_equal(F.pad(x, (1, 1, 1, 1)), np.pad(x, ((0, 0), (1, 1), (1, 1))))


MODULES = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad1d", ((1, 3),), (3, 4)), ("ZeroPad2d", (1,), (2, 3, 4)),
    ("ZeroPad2d", ((1, 0, 2, 3),), (1, 2, 3, 4)), ("ConstantPad1d", (2, 3.5), (2, 3, 4)),
    ("ConstantPad1d", ((0, 2), -1.0), (4,)), ("ConstantPad2d", ((1, 2, 0, 1), 0.5), (2, 3, 4)),
    ("ConstantPad2d", (1, 2.0), (3, 4)), ("ReflectionPad1d", (2,), (2, 3, 4)), ("ReflectionPad1d", ((3, 1),), (3, 4)),
    ("ReflectionPad2d", (1,), (2, 3, 4)), ("ReflectionPad2d", ((2, 1, 0, 2),), (1, 2, 3, 4)),
    ("ReplicationPad1d", (3,), (2, 3, 4)), ("ReplicationPad1d", ((0, 2),), (3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 4)), ("ReplicationPad2d", ((1, 3, 2, 0),), (1, 2, 3, 4)),
    ("CircularPad1d", (2,), (2, 3, 4)), ("CircularPad1d", ((1, 3),), (3, 4)), ("CircularPad2d", (1,), (2, 3, 4)),
    ("CircularPad2d", ((1, 2, 3, 0),), (1, 2, 3, 4)),
    ("ZeroPad3d", (1,), (2, 2, 3, 4)), ("ConstantPad3d", ((1, 0, 2, 1, 0, 1), 1.5), (1, 2, 2, 3, 4)),
    ("ReflectionPad3d", ((1, 2, 0, 1, 1, 0),), (2, 2, 3, 4)), ("ReflectionPad3d", (1,), (1, 2, 2, 3, 4)),
    ("ReplicationPad3d", ((2, 0, 1, 3, 0, 2),), (2, 2, 3, 4)), ("ReplicationPad3d", (1,), (1, 2, 2, 3, 4)),
    ("CircularPad3d", ((1, 2, 0, 1, 2, 1),), (2, 2, 3, 4)), ("CircularPad3d", (1,), (1, 2, 2, 3, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name,args,shape", MODULES, ids=[f"{m[0]}{m[1]}{m[2]}" for m in MODULES])
def test_modules_match_torch_and_print_as_torch(name, args, shape, dtype):
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding
    compare(torch, ours, theirs, [_input(shape)], dtype, what=name)


def test_module_attributes_as_torch():
    assert nn.ConstantPad1d(2, 1).value == torch.nn.ConstantPad1d(2, 1).value == 1
    assert nn.ZeroPad1d(1).value == torch.nn.ZeroPad1d(1).value == 0.0
    assert isinstance(nn.ZeroPad2d(1), nn.ConstantPad2d)
    assert nn.ZeroPad1d([1, 2]).padding == (1, 2)


def _raises_as_torch(exc, match, call):
    """Both libraries raise `exc` with a message matching `match`."""
    with pytest.raises(exc, match=match):
        call(F, to_fgrad)
    with pytest.raises(exc, match=match):
        call(TF, lambda a: to_torch(torch, a))


def test_bad_arguments_raise_as_torch():
    x3 = _input((1, 2, 3))
    _raises_as_torch(RuntimeError, "Padding length must be divisible by 2", lambda m, t: m.pad(t(x3), (1,)))
    _raises_as_torch(RuntimeError, "Padding length should be less than or equal to two times the input dimension "
                                   "but got padding length 8 and input of dimension 3",
                     lambda m, t: m.pad(t(x3), (1,) * 8))
    _raises_as_torch(NotImplementedError, "Padding size 2 is not supported for 1D input tensor.\nSupported "
                                          "combinations for non-constant padding",
                     lambda m, t: m.pad(t(_input((3,))), (1, 1), mode="reflect"))
    _raises_as_torch(NotImplementedError, "Padding size 2 is not supported for 4D input tensor",
                     lambda m, t: m.pad(t(_input((1, 2, 3, 4))), (1, 1), mode="circular"))
    _raises_as_torch(NotImplementedError, "Padding size 4 is not supported for 2D input tensor",
                     lambda m, t: m.pad(t(_input((3, 4))), (1, 1, 1, 1), mode="replicate"))
    _raises_as_torch(NotImplementedError, "Unrecognised padding mode bogus",
                     lambda m, t: m.pad(t(x3), (1, 1), mode="bogus"))
    _raises_as_torch(RuntimeError, "Padding mode \"reflect\" doesn't take in value argument",
                     lambda m, t: m.pad(t(x3), (1, 1), mode="reflect", value=1.0))
    _raises_as_torch(RuntimeError, r"Argument #4: Padding size should be less than the corresponding input dimension, "
                                   r"but got: padding \(3, 0\) at dimension 2 of input \[1, 2, 3\]",
                     lambda m, t: m.pad(t(x3), (3, 0), mode="reflect"))
    _raises_as_torch(RuntimeError, r"Argument #6: Padding size should be less than the corresponding input dimension, "
                                   r"but got: padding \(3, 1\) at dimension 2 of input \[1, 2, 3, 4\]",
                     lambda m, t: m.pad(t(_input((1, 2, 3, 4))), (1, 1, 3, 1), mode="reflect"))
    _raises_as_torch(RuntimeError, "Padding value causes wrapping around more than once.",
                     lambda m, t: m.pad(t(x3), (4, 0), mode="circular"))
    _raises_as_torch(RuntimeError, "Negative padding value is resulting in an empty dimension",
                     lambda m, t: m.pad(t(x3), (-3, -1), mode="circular"))
    _raises_as_torch(RuntimeError, r"input \(W: 3\) is too small. Calculated output W: -1",
                     lambda m, t: m.pad(t(x3), (-3, -1), mode="replicate"))
    _raises_as_torch(RuntimeError, r"Expected 2D or 3D \(batch mode\) tensor with possibly 0 batch size and other "
                                   r"non-zero dimensions for input, but got: \[1, 0, 3\]",
                     lambda m, t: m.pad(t(np.zeros((1, 0, 3))), (1, 1), mode="reflect"))
    _raises_as_torch(RuntimeError, "narrow", lambda m, t: m.pad(t(x3), (-2, -2)))
    _raises_as_torch(TypeError, "must be tuple of ints, but found element of type float at pos 0",
                     lambda m, t: m.pad(t(x3), (1.5, 1)))
    for name, shape, want in [("CircularPad1d", (3,), r"expected 2D or 3D input \(got 1D input\)"),
                              ("CircularPad2d", (3, 3), r"expected 3D or 4D input \(got 2D input\)"),
                              ("CircularPad2d", (1, 2, 3, 3, 3), r"expected 3D or 4D input \(got 5D input\)"),
                              ("CircularPad3d", (2, 3, 3), r"expected 4D or 5D input \(got 3D input\)")]:
        with pytest.raises(ValueError, match=want):
            getattr(nn, name)(1)(to_fgrad(_input(shape)))
        with pytest.raises(ValueError, match=want):
            getattr(torch.nn, name)(1)(to_torch(torch, _input(shape)))


def test_empty_batch_and_empty_circular_channels_as_torch():
    for shape, pad, mode in [((0, 2, 3), (1, 1), "reflect"), ((1, 0, 3, 3), (1, 1, 1, 1), "circular"),
                             ((0, 2, 3), (2, 2), "replicate")]:
        got, want = F.pad(to_fgrad(np.zeros(shape)), pad, mode), TF.pad(to_torch(torch, np.zeros(shape)), pad, mode)
        assert tuple(got.shape) == tuple(want.shape)


def test_under_vmap_and_grad():
    """Written in fgrad ops, pad runs under the functional transforms (each example padded alone)."""
    from fgrad.func import grad, vmap
    x = _input((3, 2, 5))
    for mode in ["constant", "reflect", "replicate", "circular"]:
        got = vmap(lambda v, mode=mode: F.pad(v, (2, 1), mode))(x)
        np.testing.assert_allclose(np.asarray(got), TF.pad(to_torch(torch, x), (2, 1), mode).numpy(), rtol=1e-12)
        t = to_torch(torch, x, True)
        (TF.pad(t, (2, 1, 1, 0), mode) ** 2).sum().backward()
        g = grad(lambda v, mode=mode: (F.pad(v, (2, 1, 1, 0), mode) ** 2).sum())(x)
        np.testing.assert_allclose(np.asarray(g), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype,value", [(np.uint8, -1), (np.uint8, 256), (np.uint8, 255.5), (np.uint8, -0.5),
                                         (np.int8, 128), (np.int32, 2 ** 31), (np.int64, float("nan")),
                                         (np.uint8, 255), (np.uint8, 2.7), (np.int8, -128), (np.int32, -7.9)])
def test_a_fill_value_outside_an_integer_dtype_raises_as_torch(dtype, value):
    """The constant was cast with int() and wrapped around (uint8 padded with -1 gave 255) where
    torch raises its overflow error; values in range still truncate as torch's."""
    x = np.array([[0, 5, 100]], dtype=dtype)
    try:
        want = TF.pad(torch.tensor(x), (1, 1), value=value).numpy()
    except RuntimeError as e:
        assert "without overflow" in str(e)
        with pytest.raises(RuntimeError, match="without overflow"):
            F.pad(to_fgrad(x, False), (1, 1), value=value)
        return
    got = F.pad(to_fgrad(x, False), (1, 1), value=value)
    assert got.dtype == dtype and np.array_equal(got.numpy(), want)
