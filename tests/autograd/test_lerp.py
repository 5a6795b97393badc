"""fgrad.lerp and Tensor.lerp/lerp_ against torch: torch's dtype rules (input, end and a weight
tensor of dim > 0 of one dtype; a zero-dim weight promotes; a number weight in input's dtype),
its errors, its formula's values (weight 1 gives end exactly) and the gradients."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")


def _t(values, dtype):
    return fgrad.tensor(values, dtype=getattr(fgrad, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


WEIGHTS = {  # label: (fgrad weight, torch weight) builders
    "number": lambda: (0.75, 0.75),
    "small_number": lambda: (0.25, 0.25),
    "int_number": lambda: (1, 1),
    "bool_number": lambda: (True, True),
    "complex_number": lambda: (0.5j, 0.5j),
    "huge_number": lambda: (1e300, 1e300),
    **{f"tensor[{d}]": (lambda d: lambda: _t([0.25, 0.75, 1.0], d))(d) for d in
       ("float32", "float64", "int64", "complex64")},
    **{f"zero_dim[{d}]": (lambda d: lambda: _t(0.75 if d != "int64" else 1, d))(d) for d in
       ("float32", "float64", "int64", "complex64", "bool")},
}


@pytest.mark.parametrize("weight", sorted(WEIGHTS))
@pytest.mark.parametrize("input_dtype, end_dtype", [("float32", "float32"), ("float64", "float64"),
                                                    ("float32", "float64"), ("float64", "float32"),
                                                    ("complex64", "complex64"), ("int64", "int64")])
def test_lerp_dtypes_and_errors_as_torch(input_dtype, end_dtype, weight):
    fi, ti = _t([1.0, -2.0, 3.0] if input_dtype != "int64" else [1, -2, 3], input_dtype)
    fe, te = _t([5.0, 4.0, -1.0] if end_dtype != "int64" else [5, 4, -1], end_dtype)
    if weight.startswith("zero_dim[bool"):
        fw, tw = fgrad.tensor(True), torch.tensor(True)
    else:
        fw, tw = WEIGHTS[weight]()
    try:
        want = torch.lerp(ti, te, tw)
    except Exception as e:  # (torch's error type is the answer)
        with pytest.raises(type(e), match=r"fgrad\.lerp"):
            fgrad.lerp(fi, fe, fw)
        return
    got = fgrad.lerp(fi, fe, fw)
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-7 if "float32" in str(want.dtype) else 1e-15)
    try:
        want_ = ti.clone().lerp_(te, tw)
    except RuntimeError:  # (a result of a higher kind than self, as torch's in-place ops)
        with pytest.raises(RuntimeError, match="lerp_"):
            fi.clone().lerp_(fe, fw)
        return
    got_ = fi.clone().lerp_(fe, fw)
    assert str(got_.dtype) == str(want_.dtype).removeprefix("torch.")
    np.testing.assert_allclose(got_.numpy(), want_.numpy(), rtol=2e-7 if "float32" in str(want.dtype) else 1e-15)


def test_lerp_values_and_gradients_as_torch():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=64), rng.normal(size=64)
    w = np.concatenate([rng.uniform(-1, 2, size=61), [0.5, 1.0, 0.0]])
    fa, fb, fw = (fgrad.tensor(v, requires_grad=True) for v in (a, b, w))
    ta, tb, tw = (torch.tensor(v, requires_grad=True) for v in (a, b, w))
    y, z = fgrad.lerp(fa, fb, fw), torch.lerp(ta, tb, tw)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-15, atol=1e-15)
    assert y.detach().numpy()[-2] == b[-2] and y.detach().numpy()[-1] == a[-1]  # (weight 1: end; 0: input)
    (y * y).sum().backward()
    (z * z).sum().backward()
    for g, h in ((fa, ta), (fb, tb), (fw, tw)):
        np.testing.assert_allclose(g.grad.numpy(), h.grad.numpy(), rtol=1e-13, atol=1e-13)
    assert fgrad.lerp(fgrad.tensor([0.1]), fgrad.tensor([0.7]), 1.0).item() == 0.7


def test_lerp_in_place_shape_must_be_self():
    with pytest.raises(RuntimeError):
        torch.zeros(2).lerp_(torch.ones(2), torch.full((3, 2), 0.25))
    with pytest.raises(RuntimeError, match="lerp_"):
        fgrad.zeros(2).lerp_(fgrad.ones(2), fgrad.full((3, 2), 0.25))
