"""The op database: one row per NumPy-facing op; generic tests run every row.

A row names the fgrad function, its NumPy reference and a sampler of argument tuples
in the op's valid domain. Float arguments are differentiated; the rest (indices,
axes, masks) are held fixed. Adding an op is adding a row.
"""
from dataclasses import dataclass, field

import numpy as np

import fgrad
import fgrad.numpy as fnp

UNARY_SHAPES = [(), (3,), (2, 3)]
BINARY_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((), (2, 3)), ((2, 1), (1, 3))]


@dataclass
class OpInfo:
    name: str
    fn: object
    ref: object
    samples: object                 # rng -> list of argument tuples
    kwargs: dict = field(default_factory=dict)
    differentiable: bool = True
    second_order: bool = True
    atol: float = 1e-5
    rtol: float = 1e-5
    eps: float = None               # finite-difference step (None: by dtype)
    batchable: bool = True          # False: the output's shape depends on the values, so vmap raises
    one_device: bool = True         # False: it makes NumPy (CPU) constants, or moves values itself: not run
                                    # on another device (test_rows_on_another_device)
    complex: str = None             # why fgrad refuses complex arguments where the reference takes them
                                    # (None: it takes them, and tests/ops/test_op_table_complex.py checks them)

    def __repr__(self):
        return self.name


def uniform(rng, shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape) if shape != () else np.float64(rng.uniform(lo, hi))


def unary(name, lo=-2.0, hi=2.0, fn=None, ref=None, shapes=UNARY_SHAPES, **kw):
    return OpInfo(name, fn or getattr(fnp, name), ref or getattr(np, name),
                  lambda rng: [(uniform(rng, s, lo, hi),) for s in shapes], **kw)


def binary(name, lo=(-2.0, -2.0), hi=(2.0, 2.0), fn=None, ref=None, shapes=BINARY_SHAPES, **kw):
    return OpInfo(name, fn or getattr(fnp, name), ref or getattr(np, name),
                  lambda rng: [(uniform(rng, a, lo[0], hi[0]), uniform(rng, b, lo[1], hi[1])) for a, b in shapes], **kw)


def custom(name, samples, fn=None, ref=None, **kw):
    return OpInfo(name, fn or getattr(fnp, name), ref or getattr(np, name), samples, **kw)


def with_kwargs(name, kwargs_list, shapes=((2, 3, 4),), lo=-2.0, hi=2.0, fn=None, ref=None, **kw):
    """One row per kwargs dict (e.g. axis/keepdims variants), named name[k=v,...]."""
    rows = []
    for kwargs in kwargs_list:
        label = ",".join(f"{k}={v}" for k, v in kwargs.items())
        rows.append(OpInfo(f"{name}[{label}]", fn or getattr(fnp, name), ref or getattr(np, name),
                           lambda rng, shapes=shapes: [(uniform(rng, s, lo, hi),) for s in shapes],
                           kwargs=kwargs, **kw))
    return rows


_CPU1 = fgrad.backend.register_numpy_device(1)  # a second device, for the transfer primitive's row
_BATCHED_INDEX = np.array([[0, 2], [3, 3], [1, 0]])  # per example (row), two picks, one repeated


def complex_uniform(rng, shape, lo=-2.0, hi=2.0):
    """Complex samples, both parts uniform in [lo, hi] (rows of ops on complex values; every row
    of real samples runs complex too: tests/ops/test_op_table_complex.py)."""
    return uniform(rng, shape, lo, hi) + 1j * uniform(rng, shape, lo, hi)


def complex_unary(name, fn, ref, shapes=UNARY_SHAPES, **kw):
    return OpInfo(name, fn, ref, lambda rng: [(complex_uniform(rng, s),) for s in shapes], **kw)


def distinct(rng, shape):
    """Values with no ties (so max/min/sort have one derivative)."""
    n = int(np.prod(shape, dtype=np.int64))
    return (rng.permutation(n).reshape(shape) + rng.uniform(0.1, 0.4, size=shape)) / max(n, 1)


OPS = [
    # ---- unary elementwise
    unary("negative"), unary("absolute", lo=0.1, hi=2.0), unary("sqrt", lo=0.2, hi=3.0), unary("cbrt", lo=0.2, hi=3.0),
    unary("square"), unary("reciprocal", lo=0.5, hi=2.0), unary("exp"), unary("exp2"), unary("expm1"),
    unary("log", lo=0.2, hi=3.0), unary("log2", lo=0.2, hi=3.0), unary("log10", lo=0.2, hi=3.0),
    unary("log1p", lo=-0.5, hi=2.0), unary("sin"), unary("cos"), unary("tan", lo=-1.2, hi=1.2),
    unary("arcsin", lo=-0.9, hi=0.9), unary("arccos", lo=-0.9, hi=0.9), unary("arctan"),
    unary("sinh"), unary("cosh"), unary("tanh"), unary("arcsinh"), unary("arccosh", lo=1.2, hi=3.0),
    unary("arctanh", lo=-0.9, hi=0.9), unary("sinc"), unary("deg2rad"), unary("rad2deg"),
    unary("abs", lo=0.1, hi=2.0), unary("copy"),
    custom("abs_negative", lambda rng: [(-uniform(rng, (3,), 0.1, 2.0),)], fn=fnp.abs, ref=np.abs),
    # ---- the parts of complex values (Note [complex derivatives] in fgrad/ops/conversion.py)
    complex_unary("real_of_complex", fnp.real, np.real), complex_unary("imag_of_complex", fnp.imag, np.imag),
    complex_unary("conj_of_complex", fnp.conj, np.conj), complex_unary("angle_of_complex", fnp.angle, np.angle),
    complex_unary("abs_of_complex", fnp.abs, np.abs), complex_unary("sign_of_complex", fnp.sign, np.sign),
    complex_unary("real_method", lambda z: z.real, np.real, shapes=[(3,)]),
    complex_unary("astype_float64", lambda z: fnp.astype(z, np.float64), lambda z: np.real(z).astype(np.float64),
                  shapes=[(3,)]),
    custom("real_times_complex", lambda rng: [(uniform(rng, (2, 3)), complex_uniform(rng, (3,)))],
           fn=fnp.multiply, ref=np.multiply),
    # ---- binary elementwise
    binary("add"), binary("subtract"), binary("multiply"), binary("divide", lo=(-2, 0.5), hi=(2, 2)),
    binary("true_divide", lo=(-2, 0.5), hi=(2, 2)), binary("power", lo=(0.5, -1.5), hi=(2, 1.5)),
    binary("float_power", lo=(0.5, -1.5), hi=(2, 1.5)), binary("maximum"), binary("minimum"),
    binary("fmax"), binary("fmin"), binary("arctan2", lo=(0.3, 0.3), hi=(2, 2)), binary("hypot"),
    binary("logaddexp"), binary("logaddexp2"),
    binary("mod", lo=(0.1, 0.7), hi=(2.0, 1.3)), binary("remainder", lo=(0.1, 0.7), hi=(2.0, 1.3)),
    binary("fmod", lo=(0.1, 0.7), hi=(2.0, 1.3)), binary("copysign", lo=(0.2, -2.0), hi=(2.0, 2.0)),
    custom("astype_float32", lambda rng: [(uniform(rng, (3,)),)], fn=lambda x: fnp.astype(x, np.float32) * 1.0,
           ref=lambda x: x.astype(np.float32), atol=1e-4, rtol=1e-4, eps=1e-2),
    custom("power_int_exponent", lambda rng: [(uniform(rng, (3,)), 3)], fn=fnp.power, ref=np.power),
    custom("power_zero_base", lambda rng: [(uniform(rng, (2,), 1.5, 2.5),)],
           fn=lambda y: fnp.power(np.array([0.0, 1.5]), y), ref=lambda y: np.power(np.array([0.0, 1.5]), y),
           one_device=False),
    custom("maximum_ties", lambda rng: [(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0]))],
           fn=fnp.maximum, ref=np.maximum, differentiable=False),
    # ---- reductions
    *with_kwargs("sum", [{}, {"axis": 1}, {"axis": (0, 2), "keepdims": True}, {"axis": -1}]),
    *with_kwargs("mean", [{}, {"axis": 0}, {"axis": (1, 2), "keepdims": True}]),
    *with_kwargs("prod", [{}, {"axis": 1}, {"axis": 2, "keepdims": True}], lo=0.5, hi=1.5),
    custom("prod_with_zero", lambda rng: [(np.array([[0.0, 2.0, 3.0], [1.5, 0.0, 0.0]]),)], fn=fnp.prod, ref=np.prod),
    custom("prod_with_zero_axis", lambda rng: [(np.array([[0.0, 2.0, 3.0], [1.5, 0.0, 2.0]]),)],
           fn=lambda x: fnp.prod(x, axis=1), ref=lambda x: np.prod(x, axis=1)),
    *with_kwargs("var", [{}, {"axis": 1}, {"axis": 0, "ddof": 1}]),
    *with_kwargs("std", [{}, {"axis": (0, 1), "keepdims": True}, {"ddof": 1}]),
    custom("max", lambda rng: [(distinct(rng, (2, 3, 4)),)]),
    custom("max_axis", lambda rng: [(distinct(rng, (2, 3, 4)),)], fn=lambda x: fnp.max(x, axis=1),
           ref=lambda x: np.max(x, axis=1)),
    custom("amax_keepdims", lambda rng: [(distinct(rng, (3, 4)),)], fn=lambda x: fnp.amax(x, axis=0, keepdims=True),
           ref=lambda x: np.amax(x, axis=0, keepdims=True)),
    custom("min", lambda rng: [(distinct(rng, (3, 4)),)]),
    custom("amin", lambda rng: [(distinct(rng, (3, 4)),)], fn=lambda x: fnp.amin(x, axis=-1),
           ref=lambda x: np.amin(x, axis=-1)),
    custom("ptp", lambda rng: [(distinct(rng, (3, 4)),)], fn=lambda x: fnp.ptp(x, axis=1),
           ref=lambda x: np.ptp(x, axis=1)),
    custom("nansum", lambda rng: [(np.array([1.0, np.nan, 2.5]),), (uniform(rng, (2, 3)),)]),
    custom("nanmean", lambda rng: [(np.array([1.0, np.nan, 2.5]),)]),
    *with_kwargs("cumsum", [{}, {"axis": 1}, {"axis": -1}], shapes=((3, 4),)),
    *with_kwargs("cumprod", [{}, {"axis": 0}], shapes=((3, 4),), lo=0.5, hi=1.5),
    custom("cumprod_with_zero", lambda rng: [(np.array([[1.5, 0.0, 2.0, 3.0], [0.0, 2.0, 0.0, 0.5]]),)],
           fn=lambda x: fnp.cumprod(x, axis=1), ref=lambda x: np.cumprod(x, axis=1)),
    custom("sort", lambda rng: [(distinct(rng, (5,)),), (distinct(rng, (3, 4)),)]),
    custom("sort_axis0", lambda rng: [(distinct(rng, (3, 4)),)], fn=lambda x: fnp.sort(x, axis=0),
           ref=lambda x: np.sort(x, axis=0)),
    # ---- shapes
    custom("reshape", lambda rng: [(uniform(rng, (2, 6)),)], fn=lambda x: fnp.reshape(x, (3, -1)),
           ref=lambda x: np.reshape(x, (3, -1))),
    unary("ravel", shapes=[(2, 3)]),
    custom("transpose", lambda rng: [(uniform(rng, (2, 3, 4)),)]),
    custom("transpose_axes", lambda rng: [(uniform(rng, (2, 3, 4)),)], fn=lambda x: fnp.transpose(x, (1, 2, 0)),
           ref=lambda x: np.transpose(x, (1, 2, 0))),
    custom("swapaxes", lambda rng: [(uniform(rng, (2, 3, 4)),)], fn=lambda x: fnp.swapaxes(x, 0, 2),
           ref=lambda x: np.swapaxes(x, 0, 2)),
    custom("moveaxis", lambda rng: [(uniform(rng, (2, 3, 4)),)], fn=lambda x: fnp.moveaxis(x, 0, -1),
           ref=lambda x: np.moveaxis(x, 0, -1)),
    custom("expand_dims", lambda rng: [(uniform(rng, (2, 3)),)], fn=lambda x: fnp.expand_dims(x, 1),
           ref=lambda x: np.expand_dims(x, 1)),
    custom("squeeze", lambda rng: [(uniform(rng, (2, 1, 3, 1)),)]),
    custom("broadcast_to", lambda rng: [(uniform(rng, (3, 1)),)], fn=lambda x: fnp.broadcast_to(x, (2, 3, 4)),
           ref=lambda x: np.broadcast_to(x, (2, 3, 4))),
    custom("concatenate", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (1, 3)))],
           fn=lambda a, b: fnp.concatenate([a, b]), ref=lambda a, b: np.concatenate([a, b])),
    custom("concatenate_axis1", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (2, 2)), uniform(rng, (2, 1)))],
           fn=lambda a, b, c: fnp.concatenate([a, b, c], axis=1),
           ref=lambda a, b, c: np.concatenate([a, b, c], axis=1)),
    custom("stack", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (2, 3)))],
           fn=lambda a, b: fnp.stack([a, b], axis=1), ref=lambda a, b: np.stack([a, b], axis=1)),
    custom("hstack", lambda rng: [(uniform(rng, (2,)), uniform(rng, (3,)))],
           fn=lambda a, b: fnp.hstack([a, b]), ref=lambda a, b: np.hstack([a, b])),
    custom("vstack", lambda rng: [(uniform(rng, (3,)), uniform(rng, (2, 3)))],
           fn=lambda a, b: fnp.vstack([a, b]), ref=lambda a, b: np.vstack([a, b])),
    custom("split", lambda rng: [(uniform(rng, (6, 2)),)], fn=lambda x: fnp.split(x, 3),
           ref=lambda x: np.split(x, 3)),
    custom("array_split", lambda rng: [(uniform(rng, (2, 7)),)], fn=lambda x: fnp.array_split(x, 3, axis=1),
           ref=lambda x: np.array_split(x, 3, axis=1)),
    custom("tile", lambda rng: [(uniform(rng, (2, 3)),)], fn=lambda x: fnp.tile(x, (2, 1, 2)),
           ref=lambda x: np.tile(x, (2, 1, 2))),
    custom("repeat", lambda rng: [(uniform(rng, (2, 3)),)], fn=lambda x: fnp.repeat(x, 2, axis=1),
           ref=lambda x: np.repeat(x, 2, axis=1)),
    custom("repeat_array", lambda rng: [(uniform(rng, (3,)),)], fn=lambda x: fnp.repeat(x, [1, 0, 3]),
           ref=lambda x: np.repeat(x, [1, 0, 3])),
    custom("flip", lambda rng: [(uniform(rng, (2, 3)),)]),
    custom("flip_axis", lambda rng: [(uniform(rng, (2, 3)),)], fn=lambda x: fnp.flip(x, 1),
           ref=lambda x: np.flip(x, 1)),
    custom("roll", lambda rng: [(uniform(rng, (2, 5)),)], fn=lambda x: fnp.roll(x, 2, axis=1),
           ref=lambda x: np.roll(x, 2, axis=1)),
    custom("roll_flat", lambda rng: [(uniform(rng, (2, 3)),)], fn=lambda x: fnp.roll(x, -1),
           ref=lambda x: np.roll(x, -1)),
    custom("pad", lambda rng: [(uniform(rng, (2, 3)),)], fn=lambda x: fnp.pad(x, ((1, 0), (2, 1))),
           ref=lambda x: np.pad(x, ((1, 0), (2, 1)))),
    custom("pad_constant_value", lambda rng: [(uniform(rng, (3,)),)], fn=lambda x: fnp.pad(x, 2, constant_values=1.5),
           ref=lambda x: np.pad(x, 2, constant_values=1.5)),
    custom("pad_reflect", lambda rng: [(uniform(rng, (4, 3)),)],
           fn=lambda x: fnp.pad(x, ((2, 1), (1, 1)), mode="reflect"),
           ref=lambda x: np.pad(x, ((2, 1), (1, 1)), mode="reflect")),
    custom("pad_edge", lambda rng: [(uniform(rng, (3,)),)], fn=lambda x: fnp.pad(x, (2, 3), mode="edge"),
           ref=lambda x: np.pad(x, (2, 3), mode="edge")),
    # ---- indexing
    custom("getitem_basic", lambda rng: [(uniform(rng, (4, 5)),)], fn=lambda x: x[1:3, ::2],
           ref=lambda x: x[1:3, ::2]),
    custom("getitem_int_newaxis_ellipsis", lambda rng: [(uniform(rng, (3, 4, 5)),)], fn=lambda x: x[1, ..., None, -1],
           ref=lambda x: x[1, ..., None, -1]),
    custom("getitem_int_array_repeats", lambda rng: [(uniform(rng, (4, 3)),)], fn=lambda x: x[np.array([0, 2, 0, 3])],
           ref=lambda x: x[np.array([0, 2, 0, 3])]),
    custom("getitem_two_arrays", lambda rng: [(uniform(rng, (4, 3)),)], fn=lambda x: x[[0, 1, 1], [2, 0, 2]],
           ref=lambda x: x[[0, 1, 1], [2, 0, 2]]),
    custom("getitem_mask", lambda rng: [(np.array([[0.5, -1.0, 2.0], [-0.3, 0.7, 1.1]]),)], fn=lambda x: x[x > 0],
           ref=lambda x: x[x > 0], batchable=False),
    # An index that differs between examples (under vmap): the gather primitive and its transpose.
    custom("getitem_batched_index", lambda rng: [(uniform(rng, (3, 4)),), (uniform(rng, (3, 4, 2)),)],
           fn=lambda x: fgrad.vmap(lambda r, i: r[i])(x, _BATCHED_INDEX),
           ref=lambda x: x[np.arange(3)[:, None], _BATCHED_INDEX]),
    custom("getitem_batched_index_after_slice", lambda rng: [(uniform(rng, (3, 2, 4)),)],
           fn=lambda x: fgrad.vmap(lambda r, i: r[:, i], in_axes=(0, 1))(x, _BATCHED_INDEX.T),
           ref=lambda x: np.stack([x[b][:, _BATCHED_INDEX[b]] for b in range(3)])),
    # Through a second (NumPy-backed, test-only) device and back: the transfer primitive.
    custom("device_put", lambda rng: [(uniform(rng, (3, 4)),), (uniform(rng, ()),)],
           fn=lambda x: fgrad.device_put(fnp.sin(fgrad.device_put(x, _CPU1)) * 2.0, "cpu"),
           ref=lambda x: np.sin(x) * 2.0, one_device=False),
    custom("take", lambda rng: [(uniform(rng, (3, 4)),)], fn=lambda x: fnp.take(x, [3, 0, 3], axis=1),
           ref=lambda x: np.take(x, [3, 0, 3], axis=1)),
    custom("take_flat", lambda rng: [(uniform(rng, (3, 4)),)], fn=lambda x: fnp.take(x, np.array([[1, 5], [11, 1]])),
           ref=lambda x: np.take(x, np.array([[1, 5], [11, 1]]))),
    custom("take_along_axis", lambda rng: [(uniform(rng, (3, 4)),)],
           fn=lambda x: fnp.take_along_axis(x, np.array([[0, 3], [1, 1], [2, 0]]), axis=1),
           ref=lambda x: np.take_along_axis(x, np.array([[0, 3], [1, 1], [2, 0]]), axis=1)),
    custom("where", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (3,)))],
           fn=lambda x, y: fnp.where(x > 0, x, y), ref=lambda x, y: np.where(x > 0, x, y)),
    custom("overwrite", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (3,))),
                                     (uniform(rng, (3,)), np.float64(0.5))],
           fn=lambda x, v: fgrad.ops.elementwise.overwrite(x, v),
           ref=lambda x, v: np.broadcast_to(v, np.shape(x)).copy()),
    custom("where_scalar_branch", lambda rng: [(uniform(rng, (4,)),)],
           fn=lambda x: fnp.where(x > 0, x * x, 0.0), ref=lambda x: np.where(x > 0, x * x, 0.0)),
    custom("clip", lambda rng: [(np.array([-1.7, -0.4, 0.3, 0.9, 1.8]),)], fn=lambda x: fnp.clip(x, -1.0, 1.0),
           ref=lambda x: np.clip(x, -1.0, 1.0)),
    custom("diagonal", lambda rng: [(uniform(rng, (3, 4)),)], fn=lambda x: fnp.diagonal(x, 1),
           ref=lambda x: np.diagonal(x, 1)),
    custom("diagonal_batched", lambda rng: [(uniform(rng, (2, 3, 3)),)], fn=lambda x: fnp.diagonal(x, 0, 1, 2),
           ref=lambda x: np.diagonal(x, 0, 1, 2)),
    custom("diag_vector", lambda rng: [(uniform(rng, (3,)),)], fn=lambda x: fnp.diag(x, -1),
           ref=lambda x: np.diag(x, -1)),
    custom("diag_matrix", lambda rng: [(uniform(rng, (3, 3)),)], fn=fnp.diag, ref=np.diag),
    custom("trace", lambda rng: [(uniform(rng, (3, 3)),), (uniform(rng, (3, 4)),)]),
    custom("triu", lambda rng: [(uniform(rng, (3, 4)),)], fn=lambda x: fnp.triu(x, 1), ref=lambda x: np.triu(x, 1)),
    custom("tril", lambda rng: [(uniform(rng, (2, 3, 3)),)]),
    # ---- products
    custom("matmul", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (3, 4))),
                                  (uniform(rng, (3,)), uniform(rng, (3, 2))),
                                  (uniform(rng, (2, 3)), uniform(rng, (3,))), (uniform(rng, (3,)), uniform(rng, (3,))),
                                  (uniform(rng, (2, 2, 3)), uniform(rng, (3, 2))),
                                  (uniform(rng, (3,)), uniform(rng, (2, 3, 2)))]),
    custom("dot", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (3, 4))),
                               (uniform(rng, (2, 3, 2)), uniform(rng, (4, 2, 3))),
                               (np.float64(1.5), uniform(rng, (3,)))]),
    custom("vdot", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (3, 2)))]),
    custom("inner", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (4, 3)))]),
    custom("outer", lambda rng: [(uniform(rng, (3,)), uniform(rng, (2, 2)))]),
    custom("tensordot", lambda rng: [(uniform(rng, (2, 3, 4)), uniform(rng, (4, 3, 2)))],
           fn=lambda a, b: fnp.tensordot(a, b, axes=([1, 2], [1, 0])),
           ref=lambda a, b: np.tensordot(a, b, axes=([1, 2], [1, 0]))),
    custom("kron", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (2, 2))),
                                (uniform(rng, (2,)), uniform(rng, (3,)))]),
    # ---- non-differentiable, traced through: only values are checked
    *[unary(n, differentiable=False)
      for n in ("sign", "floor", "ceil", "trunc", "rint", "round", "isfinite", "signbit")],
    *[binary(n, differentiable=False) for n in ("equal", "not_equal", "less", "less_equal", "greater",
                                                "greater_equal", "floor_divide")],
    *[unary(n, differentiable=False) for n in ("isinf", "isnan", "logical_not")],
    *[binary(n, differentiable=False) for n in ("logical_and", "logical_or", "logical_xor")],
    custom("stop_gradient", lambda rng: [(uniform(rng, (3,)),)], fn=fgrad.stop_gradient, ref=lambda x: x,
           differentiable=False),
    custom("argmax", lambda rng: [(distinct(rng, (3, 4)),)], differentiable=False),
    custom("argmin", lambda rng: [(distinct(rng, (3, 4)),)], fn=lambda x: fnp.argmin(x, axis=1),
           ref=lambda x: np.argmin(x, axis=1), differentiable=False),
    custom("argsort", lambda rng: [(distinct(rng, (3, 4)),)], differentiable=False),
]

from .op_db_fft import FFT_OPS  # noqa: E402  (fgrad.numpy.fft, fgrad.scipy.fft, fftconvolve)
from .op_db_linalg import LINALG_OPS  # noqa: E402  (decompositions, einsum, special functions)
from .op_db_nn import NN_OPS  # noqa: E402  (fgrad.nn.functional's convolutions, pools and norms)
from .op_db_numpy import NUMPY_OPS  # noqa: E402  (statistics, calculus, polynomials, sets, shaping, ...)
from .op_db_scipy import SCIPY_OPS  # noqa: E402  (fgrad.scipy.linalg, signal, integrate)
from .op_db_special import SPECIAL_OPS  # noqa: E402  (fgrad.scipy.special beyond the first names)
from .op_db_stats import STATS_OPS  # noqa: E402  (fgrad.scipy.stats)

OPS += LINALG_OPS + NUMPY_OPS + SPECIAL_OPS + STATS_OPS + SCIPY_OPS + FFT_OPS + NN_OPS

# The rows whose references take complex arguments and fgrad refuses them (a TypeError naming
# complex values, checked by tests/ops/test_op_table_complex.py), by row-name prefix, with why.
COMPLEX_REFUSED = {
    "stats.": "SciPy's distributions are densities of real values; complex arguments only run their formulas",
    "scipy.signal.": "the convolutions' rules are written for real arrays (SciPy's correlate conjugates)",
    "scipy.integrate.odeint": "odeint integrates real states (SciPy's odeint refuses complex ones too)",
    "special.logsumexp": "fgrad's logsumexp is the real one (its max shift and sign are real)",
    "median": "quantiles order values, and complex values have no order but NumPy's lexicographic one",
    "nanmedian": "quantiles order values, and complex values have no order but NumPy's lexicographic one",
    "histogram": "bins are intervals of real values",
    "special.digamma": "SciPy's polygamma(1, z), digamma's derivative, takes real z only",
    "special.ive": "ive scales by exp(-|Re z|), which is not holomorphic",
}
# Rows of COMPLEX_REFUSED's prefixes that take complex arguments all the same.
COMPLEX_TAKEN = ("stats.sem", "stats.rankdata", "stats.mode", "scipy.signal.fftconvolve")
# Complex rows checked to first order only, or on values only, and why.
COMPLEX_FIRST_ORDER = {
    "special.gamma": "the second derivative goes through digamma's, polygamma(1, z), real in SciPy",
    "special.rgamma": "the second derivative goes through digamma's, polygamma(1, z), real in SciPy",
    "special.loggamma": "the second derivative goes through digamma's, polygamma(1, z), real in SciPy",
}
COMPLEX_VALUES_ONLY = {
    "linalg.eig": "its raw eigenvectors carry LAPACK's phase, which derivatives leave free (Note [phase-invariant "
                  "losses]); linalg.eig_invariants differentiates the phase-invariant parts",
}
for _op in OPS:
    _why = [why for prefix, why in COMPLEX_REFUSED.items() if _op.name.startswith(prefix)]
    if _why and _op.complex is None and not _op.name.startswith(COMPLEX_TAKEN):
        _op.complex = _why[0]
