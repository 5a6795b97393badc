"""An out-of-range or repeated axis raises as NumPy does, in every fgrad.numpy function that
takes one, and under every transform: vmap adds a batch axis, so an axis normalized against
the batched array (rather than the user's) would be accepted and silently name the wrong axis.
Valid axes, negative ones included, still give NumPy's results."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

X = np.arange(24.0).reshape(2, 3, 4) / 24 + 0.5
INDEX = np.zeros((2, 3, 4), dtype=np.intp)
# Functions whose axes name their result's axes (one more per axis given): the same bad axes there.
ON_RESULT = {3: 4, -4: -5, (1, -2): (1, -4)}


def _moved(ax):
    """Destinations (or sources) as many as `ax` names."""
    return 0 if isinstance(ax, int) else tuple(range(len(ax)))


# (name, call(xp, x, axis)); each is called with axes out of range for x (3, -4), and, where
# it takes a tuple, with a repeated axis.
CALLS = {
    **{name: (lambda name: lambda xp, x, ax: getattr(xp, name)(x, axis=ax))(name) for name in [
        "sum", "mean", "prod", "max", "min", "amax", "amin", "var", "std", "nansum", "nanmean", "nanmax",
        "nanmin", "nanprod", "nanvar", "nanstd", "ptp", "any", "all", "count_nonzero", "argmax", "argmin",
        "nanargmax", "nanargmin", "median", "nanmedian", "average", "cumsum", "cumprod", "nancumsum",
        "nancumprod", "sort", "argsort", "flip", "squeeze", "diff", "gradient", "trapezoid",
        "unwrap", "cumulative_sum", "cumulative_prod", "unstack"]},
    "expand_dims": lambda xp, x, ax: xp.expand_dims(x, ON_RESULT.get(ax, ax)),
    "stack": lambda xp, x, ax: xp.stack([x, x], axis=ON_RESULT.get(ax, ax)),
    "repeat": lambda xp, x, ax: xp.repeat(x, 2, axis=ax),
    "roll": lambda xp, x, ax: xp.roll(x, 1, axis=ax),
    "moveaxis_source": lambda xp, x, ax: xp.moveaxis(x, ax, _moved(ax)),
    "moveaxis_destination": lambda xp, x, ax: xp.moveaxis(x, _moved(ax), ax),
    "swapaxes": lambda xp, x, ax: xp.swapaxes(x, ax, 0),
    "rollaxis": lambda xp, x, ax: xp.rollaxis(x, ax),
    "rollaxis_start": lambda xp, x, ax: xp.rollaxis(x, 0, ON_RESULT.get(ax, ax)),  # (start may be ndim: after the last)
    "transpose": lambda xp, x, ax: xp.transpose(x, (0, 1, ax)),
    "rot90": lambda xp, x, ax: xp.rot90(x, 1, axes=(0, ax)),
    "concatenate": lambda xp, x, ax: xp.concatenate([x, x], axis=ax),
    "take": lambda xp, x, ax: xp.take(x, [0], axis=ax),
    "take_along_axis": lambda xp, x, ax: xp.take_along_axis(x, INDEX, axis=ax),
    "split": lambda xp, x, ax: xp.split(x, 1, axis=ax)[0],
    "array_split": lambda xp, x, ax: xp.array_split(x, 1, axis=ax)[0],
    "delete": lambda xp, x, ax: xp.delete(x, 0, axis=ax),
    "insert": lambda xp, x, ax: xp.insert(x, 0, 1.0, axis=ax),
    "append": lambda xp, x, ax: xp.append(x, x, axis=ax),
    "size": lambda xp, x, ax: xp.size(x, ax),
    "quantile": lambda xp, x, ax: xp.quantile(x, 0.5, axis=ax),
    "percentile": lambda xp, x, ax: xp.percentile(x, 50, axis=ax),
    "apply_along_axis": lambda xp, x, ax: xp.apply_along_axis(lambda v: v * 2, ax, x),
    "diagonal": lambda xp, x, ax: xp.diagonal(x, axis1=ax),
    "trace": lambda xp, x, ax: xp.trace(x, axis2=ax),
    "compress": lambda xp, x, ax: xp.compress([True], x, axis=ax),
    "partition": lambda xp, x, ax: xp.partition(x, 0, axis=ax),
    "argpartition": lambda xp, x, ax: xp.argpartition(x, 0, axis=ax),
    "trim_zeros": lambda xp, x, ax: xp.trim_zeros(x, axis=ax),
    "tensordot": lambda xp, x, ax: xp.tensordot(x, x, axes=([0], [ax])),
    "linalg.norm": lambda xp, x, ax: xp.linalg.norm(x, axis=ax),
    "linalg.cross": lambda xp, x, ax: xp.linalg.cross(x[..., :3], x[..., :3], axis=ax),
    "fft.fft": lambda xp, x, ax: xp.fft.fft(x, axis=ax),
    "fft.fftn": lambda xp, x, ax: xp.fft.fftn(x, axes=(0, ax)),
}
TUPLE_AXES = {"sum", "mean", "prod", "max", "min", "amax", "amin", "var", "std", "nansum", "nanmean",
              "nanmax", "nanmin", "any", "all", "count_nonzero", "ptp", "median", "average", "flip", "squeeze",
              "expand_dims", "moveaxis_source", "moveaxis_destination", "quantile", "linalg.norm", "size"}
REPEATED = {  # the same axis twice, where a function takes two single axes
    "diagonal": lambda xp, x: xp.diagonal(x, 0, 1, -2),
    "trace": lambda xp, x: xp.trace(x, 0, 2, -1),
    "transpose": lambda xp, x: xp.transpose(x, (0, 1, -2)),
    "rot90": lambda xp, x: xp.rot90(x, 1, axes=(1, -2)),
    "tensordot": lambda xp, x: xp.tensordot(x, x, axes=([0, 0], [0, 0])),
}
BAD = [(name, ax) for name in CALLS for ax in (3, -4)] + \
      [(name, ax) for name in sorted(TUPLE_AXES) for ax in ((0, 0), (1, -2))] + \
      [(name, "repeated") for name in REPEATED]


def _call(name, ax):
    return (lambda xp, x: REPEATED[name](xp, x)) if ax == "repeated" else lambda xp, x: CALLS[name](xp, x, ax)


def _numpy_error(call, name):
    x = np.ones((2, 1, 4)) if name == "squeeze" else X
    with pytest.raises(Exception) as info:
        call(np, x)
    return info.type


def _loss(call, name):
    def loss(x):
        if name == "squeeze":
            x = fnp.reshape(x[:, :1], (2, 1, 4))
        out = call(fnp, x)
        return fnp.sum(x) + 0.0 * fnp.sum(fnp.asarray(out, dtype=float))
    return loss


@pytest.mark.parametrize("name, ax", BAD)
@pytest.mark.parametrize("transform", ["plain", "grad", "vmap_grad", "jvp", "compile"])
def test_bad_axis_raises_as_numpy(name, ax, transform):
    call = _call(name, ax)
    expected = _numpy_error(call, name)
    loss = _loss(call, name)
    run = {"plain": lambda: call(fnp, np.ones((2, 1, 4)) if name == "squeeze" else X),
           "grad": lambda: fgrad.grad(loss)(X),
           "vmap_grad": lambda: fgrad.vmap(fgrad.grad(loss))(np.stack([X, X])),
           "jvp": lambda: fgrad.jvp(loss, (X,), (X,)),
           "compile": lambda: fgrad.compile(loss)(X)}[transform]
    with pytest.raises(expected, match="fgrad"):
        run()


# Valid negative (and mixed) axes: NumPy's values, plain and per example under vmap (where a
# negative axis counts from the end of the example's axes, not the stacked array's).
GOOD_AXES = {"squeeze": (-2,), "transpose": (-1,), "diagonal": (-1, -3), "tensordot": (-3,),
             "rollaxis_start": (-1, -3)}  # (where -1 and -2 are not both valid)
GOOD = [(name, ax) for name in CALLS for ax in GOOD_AXES.get(name, (-1, -2))] + \
       [("expand_dims", (0, -1)), ("moveaxis_source", (-1, 0)), ("moveaxis_destination", (-1, -3)), ("sum", (0, -1)),
        ("linalg.norm", (-1, 0)), ("roll", (-1, -1))]


# Not mapped by vmap whatever the axis: their values decide the result (partition,
# argpartition, trim_zeros, nanmedian: BatchedValueError), or it is a shape (size).
UNBATCHED = {"partition", "argpartition", "trim_zeros", "nanmedian", "size"}


def _values(out):
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else [np.asarray(out)]


@pytest.mark.parametrize("name, ax", GOOD)
def test_valid_negative_axis_matches_numpy(name, ax):
    x = np.ones((2, 1, 4)) if name == "squeeze" else X
    want = _values(CALLS[name](np, x, ax))
    got = [_values(CALLS[name](fnp, x, ax))]
    if name not in UNBATCHED:
        stacked = _values(fgrad.vmap(lambda v: CALLS[name](fnp, v, ax))(np.stack([x, 2 * x])))
        got.append([v[0] for v in stacked])
    for values in got:
        assert [v.shape for v in values] == [w.shape for w in want]
        for v, w in zip(values, want):
            np.testing.assert_allclose(v, w, rtol=1e-12, atol=1e-12)


# A 0-d array: NumPy's ufunc reductions take an int axis 0 or -1 (a reduction over no axes), the
# arg-reductions and scans read it as of shape (1,), mean/var/std raise; a tuple (0,) and any
# other axis raise. The same answers (values, shapes, dtypes, or error types) plain and under grad,
# vmap (per example) and compile.
ZERO_D = ["sum", "mean", "prod", "max", "min", "amax", "amin", "any", "all", "std", "var", "argmax", "argmin",
          "cumsum", "cumprod", "ptp", "count_nonzero", "nansum", "nanmax", "nanmin", "nanprod",
          # (squeeze and nanvar/nanstd/nanmean as the reductions; take, argsort and repeat as of shape (1,);
          # sort raises where argsort does not: squeeze, take, argsort, nanvar, nanstd had raised)
          "squeeze", "take", "argsort", "repeat", "sort", "nanvar", "nanstd", "nanmean"]


def _numpy_answer(fn):
    try:
        out = np.asarray(fn(np))
    except Exception as e:  # (the type is the answer)
        return type(e)
    return out


def _run(name, ax, transform, x):
    call = CALLS[name]
    if transform == "grad":  # (of the sum of the result: against NumPy's central difference)
        return fgrad.grad(lambda v: fnp.sum(fnp.asarray(call(fnp, v, ax), dtype=float)))(x)
    if transform == "vmap":
        return np.asarray(fgrad.vmap(lambda v: call(fnp, v, ax))(np.stack([x, x])))[0]
    if transform == "compile":
        return fgrad.compile(lambda v: call(fnp, v, ax))(x)
    return call(fnp, x, ax)


@pytest.mark.parametrize("name", ZERO_D)
@pytest.mark.parametrize("ax", [0, -1, (0,), (-1,), 1, -2])
@pytest.mark.parametrize("transform", ["plain", "grad", "vmap", "compile"])
def test_zero_d_reduction_axes_match_numpy(name, ax, transform):
    x, h = np.array(1.5), 1e-6
    want = _numpy_answer(lambda xp: CALLS[name](xp, x, ax))
    if isinstance(want, type):
        with pytest.raises(want, match=None if want is TypeError else "fgrad"):  # (TypeError: operator.index's)
            _run(name, ax, transform, x)
        return
    if transform == "grad":
        want = np.asarray((np.sum(CALLS[name](np, x + h, ax)) - np.sum(CALLS[name](np, x - h, ax))) / (2 * h))
    got = np.asarray(_run(name, ax, transform, x))
    assert got.shape == want.shape
    if transform != "grad":
        assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("axes", [[-4], [-5], [-6], [0, -4], -4, [3], [-7]])
def test_apply_over_axes_counts_a_negative_axis_once_as_numpy(axes):
    """NumPy adds ndim to a negative axis once (-4 of 3 axes is -1), and raises past that."""
    want = _numpy_answer(lambda xp: xp.apply_over_axes(xp.sum, X, axes))
    if isinstance(want, type):
        with pytest.raises(want, match="fgrad"):
            fnp.apply_over_axes(fnp.sum, X, axes)
        return
    got = fnp.apply_over_axes(fnp.sum, X, axes)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    g = fgrad.grad(lambda v: fnp.sum(fnp.apply_over_axes(fnp.sum, v, axes) ** 2))(X)
    np.testing.assert_allclose(g, 2 * np.broadcast_to(want, X.shape), rtol=1e-12)


@pytest.mark.parametrize("name", ["sum", "prod", "nanprod", "max"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32"])
@pytest.mark.parametrize("shape, axis", [((), 0), ((), -1), ((2,), ())])
@pytest.mark.parametrize("transform", ["plain", "vmap", "compile"])
def test_a_reduction_over_no_axes_keeps_numpys_dtype(name, dtype, shape, axis, transform):
    """sum and prod over no axes (axis=(), or 0 or -1 of a 0-d array) widen small integers and bools
    as NumPy's do over any axes (int8 -> int64); returning the operand as it was kept int8."""
    x = np.ones(shape, dtype) * np.array(3, dtype)
    want = getattr(np, name)(x, axis=axis)
    f = lambda v: getattr(fnp, name)(v, axis=axis)  # noqa: E731
    if transform == "vmap":
        got, want = fgrad.vmap(f)(np.stack([x, x])), np.stack([want, want])
    else:
        got = (fgrad.compile(f) if transform == "compile" else f)(x)
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["argpartition", "partition"])
@pytest.mark.parametrize("ax", [0, -1, 1, -2])
def test_zero_d_partition_axes_match_numpy(name, ax):
    """argpartition reads a 0-d array as of shape (1,), partition refuses it, as NumPy's (argpartition raised)."""
    x = np.array(1.5)
    want = _numpy_answer(lambda xp: CALLS[name](xp, x, ax))
    if isinstance(want, type):
        with pytest.raises(want, match="fgrad"):
            CALLS[name](fnp, x, ax)
        return
    got = np.asarray(CALLS[name](fnp, x, ax))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
