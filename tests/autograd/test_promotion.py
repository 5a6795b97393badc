"""The Tensor face promotes dtypes as torch does (autograd/promotion.py): result dtypes and values
against torch over operand kinds x dtypes x ops, the gradients' dtypes, in-place ops, and torch's
functions of several tensors."""
import contextlib
import operator

import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

DTYPES = ["bool", "int32", "int64", "float32", "float64", "complex64"]
OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
       "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "lt": operator.lt,
       "eq": operator.eq, "ge": operator.ge}


def _operands():
    """(label, fgrad operand, torch operand): tensors of dim > 0 and zero-dim tensors of each dtype,
    Python numbers, NumPy scalars (np.bool_ left out: torch reads it as a float)."""
    out = []
    for name in DTYPES:
        values = [True, True] if name == "bool" else [3, 2]
        out.append((f"tensor[{name}]", fgrad.tensor(values, dtype=getattr(fgrad, name)),
                    torch.tensor(values, dtype=getattr(torch, name))))
        value = True if name == "bool" else 2
        out.append((f"tensor0[{name}]", fgrad.tensor(value, dtype=getattr(fgrad, name)),
                    torch.tensor(value, dtype=getattr(torch, name))))
    for number in (True, 2, 1.5, 1.5 + 0.5j, np.int64(2), np.int32(2), np.float64(1.5), np.float32(1.5),
                   np.complex128(1.5 + 0.5j)):
        out.append((f"{type(number).__name__}", number, number))
    return out


OPERANDS = _operands()


@contextlib.contextmanager
def _default_dtype(name):
    before_f, before_t = fgrad.get_default_dtype(), torch.get_default_dtype()
    fgrad.set_default_dtype(getattr(fgrad, name))
    torch.set_default_dtype(getattr(torch, name))
    try:
        yield
    finally:
        fgrad.set_default_dtype(before_f)
        torch.set_default_dtype(before_t)


def _torch_dtype_name(d):
    return str(d).removeprefix("torch.")


def _check(result, expected, what):
    assert isinstance(result, fgrad.Tensor), what
    assert str(result.dtype) == _torch_dtype_name(expected.dtype), what
    got = result.numpy()
    want = expected.numpy()
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_operators_promote_as_torch(op, default):
    fn = OPS[op]
    checked = 0
    with _default_dtype(default), np.errstate(all="ignore"):
        for la, fa, ta in OPERANDS:
            for lb, fb, tb in OPERANDS:
                if not (isinstance(fa, fgrad.Tensor) or isinstance(fb, fgrad.Tensor)):
                    continue
                try:
                    expected = fn(ta, tb)
                except (RuntimeError, TypeError, ZeroDivisionError):
                    continue  # (what torch refuses, e.g. bool - bool, complex // x, is not compared)
                if not isinstance(expected, torch.Tensor):
                    continue
                if op == "pow" and expected.dtype == torch.bool:
                    continue  # (bool ** bool: NumPy's power has no boolean loop, it gives int8; left as NumPy's)
                _check(fn(fa, fb), expected, f"{la} {op} {lb} (default {default})")
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_result_type_promote_types_can_cast(default):
    with _default_dtype(default):
        for la, fa, ta in OPERANDS:
            for lb, fb, tb in OPERANDS:
                if isinstance(ta, np.generic) or isinstance(tb, np.generic):
                    continue  # (torch.result_type takes Tensors and Python numbers)
                expected = torch.result_type(ta, tb) if isinstance(ta, torch.Tensor) or isinstance(
                    tb, torch.Tensor) else None
                if expected is not None:
                    assert str(fgrad.result_type(fa, fb)) == _torch_dtype_name(expected), (la, lb)
    for a in DTYPES + ["uint8", "int8", "int16", "float16", "complex128"]:
        for b in DTYPES + ["uint8", "int8", "int16", "float16", "complex128"]:
            fa, fb, ta, tb = getattr(fgrad, a), getattr(fgrad, b), getattr(torch, a), getattr(torch, b)
            assert str(fgrad.promote_types(fa, fb)) == _torch_dtype_name(torch.promote_types(ta, tb)), (a, b)
            assert fgrad.can_cast(fa, fb) == torch.can_cast(ta, tb), (a, b)


def test_issue_cases():
    f32 = fgrad.tensor([1.0, 2.0], dtype=fgrad.float32)
    assert (fgrad.tensor([1, 2]) + 1.5).dtype == fgrad.get_default_dtype()
    assert (fgrad.tensor([1, 2]) / 2).dtype == fgrad.get_default_dtype()
    assert (f32 + fgrad.tensor(2.0, dtype=fgrad.float64)).dtype == fgrad.float32
    assert (fgrad.tensor([1, 2], dtype=fgrad.int32) + fgrad.tensor(5)).dtype == fgrad.int32
    assert (f32 + np.float64(2.0)).dtype == fgrad.float32
    assert (np.float64(2.0) + f32).dtype == fgrad.float32
    with _default_dtype("float32"):
        assert (fgrad.tensor([1, 2]) * fgrad.tensor([1.0, 2.0])).dtype == fgrad.float32


def test_functional_face_keeps_numpy_rules():
    import fgrad.numpy as fnp
    a = np.ones(2, np.float32)
    assert fnp.add(a, np.float64(2.0)).dtype == np.float64  # (NumPy's rule: a NumPy scalar is not weak)
    assert fnp.add(np.array([1, 2]), 1.5).dtype == np.float64


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow"])
def test_gradients_keep_their_inputs_dtypes(op):
    fn = OPS[op]
    cases = [("float32", [2]), ("float64", []), ("float32", []), ("float64", [2]), ("complex64", [])]
    for da, sa in [("float32", [2]), ("float64", [2]), ("float32", [])]:
        for db, sb in cases:
            xa = np.full(sa, 1.5) if sa else 1.5
            xb = np.full(sb, 0.5) if sb else 0.5
            fa = fgrad.tensor(xa, dtype=getattr(fgrad, da), requires_grad=True)
            fb = fgrad.tensor(xb, dtype=getattr(fgrad, db), requires_grad=True)
            ta = torch.tensor(xa, dtype=getattr(torch, da), requires_grad=True)
            tb = torch.tensor(xb, dtype=getattr(torch, db), requires_grad=True)
            ty, fy = fn(ta, tb), fn(fa, fb)
            assert str(fy.dtype) == _torch_dtype_name(ty.dtype)
            ty.abs().sum().backward()
            fy.abs().sum().backward()
            for f, t in ((fa, ta), (fb, tb)):
                assert str(f.grad.dtype) == _torch_dtype_name(t.grad.dtype), (da, sa, op, db, sb)
                np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_inplace_keeps_dtype_and_raises_as_torch():
    for da in DTYPES:
        for lb, fb, tb in OPERANDS:
            for op in ("add_", "mul_", "sub_"):
                values = [True, False] if da == "bool" else [3, 2]
                fa = fgrad.tensor(values, dtype=getattr(fgrad, da))
                ta = torch.tensor(values, dtype=getattr(torch, da))
                try:
                    getattr(ta, op)(tb)
                except (RuntimeError, TypeError) as e:
                    if "can't be cast" in str(e):  # (torch's other refusals, e.g. bool - bool, are not compared)
                        with pytest.raises(RuntimeError, match="can't be cast"):
                            getattr(fa, op)(fb)
                    continue
                getattr(fa, op)(fb)
                _check(fa, ta, f"{da}.{op}({lb})")
    x = fgrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        x += 1.5
    # a recorded in-place op keeps the tensor's dtype, and its gradient the leaves' dtypes
    w = fgrad.tensor([1.0, 2.0], dtype=fgrad.float32, requires_grad=True)
    v = fgrad.tensor([3.0, 4.0], dtype=fgrad.float64, requires_grad=True)
    y = w * 1.0
    y += v
    assert y.dtype == fgrad.float32
    (y * y).sum().backward()
    tw = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    tv = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    ty = tw * 1.0
    ty += tv
    (ty * ty).sum().backward()
    assert w.grad.dtype == fgrad.float32 and v.grad.dtype == fgrad.float64
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy())


def test_functions_of_several_tensors_promote_as_torch():
    with _default_dtype("float32"):
        _functions_of_several_tensors()


def _functions_of_several_tensors():
    i = ([3, 1, 2], "int64")
    f32 = ([1.5, -2.0, 0.5], "float32")
    f64 = ([0.5, 1.0, 2.0], "float64")
    z64 = (1.25, "float64")
    cond = [True, False, True]

    def both(spec):
        values, name = spec
        return fgrad.tensor(values, dtype=getattr(fgrad, name)), torch.tensor(values, dtype=getattr(torch, name))

    pairs = [(i, f32), (f32, f64), (f32, z64), (i, z64), (f64, f32)]
    for a, b in pairs:
        (fa, ta), (fb, tb) = both(a), both(b)
        what = f"{a[1]}, {b[1]}"
        for name in ("pow", "maximum", "minimum", "fmod", "remainder"):
            if name == "pow" and a is i and b is z64:
                continue
            if hasattr(fgrad, name):  # (fmod and remainder are methods only)
                _check(getattr(fgrad, name)(fa, fb), getattr(torch, name)(ta, tb), f"{name}({what})")
            _check(getattr(fa, name)(fb), getattr(ta, name)(tb), f"Tensor.{name}({what})")
        for name in ("add", "sub", "mul", "div", "lt", "eq"):
            _check(getattr(fa, name)(fb), getattr(ta, name)(tb), f"Tensor.{name}({what})")
        _check(fgrad.where(fgrad.tensor(cond), fa, fb), torch.where(torch.tensor(cond), ta, tb), f"where({what})")
        _check(fgrad.clamp(fa, min=fb), torch.clamp(ta, min=tb), f"clamp({what})")
        _check(fa.clamp(max=fb), ta.clamp(max=tb), f"Tensor.clamp({what})")
        if fb.ndim:
            _check(fgrad.cat([fa, fb]), torch.cat([ta, tb]), f"cat({what})")
            _check(fgrad.stack([fa, fb]), torch.stack([ta, tb]), f"stack({what})")
    fi, ti = both(i)
    _check(fgrad.clamp(fi, 0.5, 2.5), torch.clamp(ti, 0.5, 2.5), "clamp(int, floats)")
    _check(fgrad.where(fgrad.tensor(cond), fi, 2.5), torch.where(torch.tensor(cond), ti, 2.5), "where(int, float)")
    # the gradient through cat comes back in each input's dtype
    a = fgrad.tensor([1.0], dtype=fgrad.float32, requires_grad=True)
    b = fgrad.tensor([2.0], dtype=fgrad.float64, requires_grad=True)
    fgrad.cat([a, b]).sum().backward()
    assert a.grad.dtype == fgrad.float32 and b.grad.dtype == fgrad.float64


def test_matmul_of_two_dtypes_raises_as_torch():
    a = fgrad.tensor([1.0, 2.0], dtype=fgrad.float32)
    with pytest.raises(RuntimeError, match="same dtype"):
        a @ fgrad.tensor([1.0, 2.0], dtype=fgrad.float64)
    assert (a @ a).dtype == fgrad.float32


def test_casts_of_tensors_stay_tensors():
    x = fgrad.tensor([1.5, -2.0], requires_grad=True)
    for cast in (x.long(), x.int(), x.bool(), x.to(fgrad.int64), x.astype("int32"), x.float()):
        assert isinstance(cast, fgrad.Tensor)
    assert x.long().tolist() == [1, -2] and not x.long().requires_grad
