"""Resampling: F.interpolate and nn.Upsample (with UpsamplingNearest2d and UpsamplingBilinear2d),
torch 2.13's signatures, output sizes, source indices and numbers.

Every mode is separable: along each spatial axis the output gathers (fnp.take) from the input at
torch's source indices, 'nearest' one index (floor(i * scale), in float32 as torch's kernel), the
linear modes two neighbours with torch's weights (area_pixel_compute_source_index, align_corners
or not), 'bicubic' four; 'area' is a product with adaptive pooling's averaging matrix. The
gradient is the gathers' (a scatter-add), so no new primitive is needed, and a float32 input
stays float32.
"""
import math
import numbers
import warnings

import numpy as np

from .. import numpy as fnp
from ..autograd.tensor import Tensor, TensorOrArray
from .distance import dtype_name
from .module import Module
from .parameters import on_device_of, real_only
from .pooling import _averaging

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "interpolate", "upsample", "upsample_bilinear",
           "upsample_nearest"]

_LINEAR = {3: "linear", 4: "bilinear", 5: "trilinear"}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _scale(in_size, out_size, scale, dtype):
    """torch's compute_scales_value: 1 / scale_factor where one is used, else in / out."""
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(in_size) / dtype.type(out_size)


def _source_scale(in_size, out_size, scale, align_corners, dtype):
    """torch's area_pixel_compute_scale: (in - 1) / (out - 1) with align_corners (0 for an output
    of 1), else _scale's."""
    if align_corners:
        return dtype.type(in_size - 1) / dtype.type(out_size - 1) if out_size > 1 else dtype.type(0)
    return _scale(in_size, out_size, scale, dtype)


def _nearest_indices(in_size, out_size, scale, exact, shortcut, dtype):
    """torch's CPU source indices of 'nearest' (floor(i * scale)) and 'nearest-exact' (floor((i +
    0.5) * scale)), clamped to the input. As torch 2.13's kernels: for 4-D input (nearest_idx) an
    output of the input's size or twice it copies or halves the index whatever the scale_factor,
    and the scale is a float32; for 3- and 5-D input the scale is in the input's precision and
    the product is rounded to float32 before the floor."""
    i = np.arange(out_size)
    if shortcut and not exact and out_size == in_size:
        return i
    if shortcut and not exact and out_size == 2 * in_size:
        return i >> 1
    dtype = np.dtype(np.float32) if shortcut else dtype
    s = _scale(in_size, out_size, scale, dtype)
    offset = dtype.type(0.5) if exact else dtype.type(0.0)
    src = np.floor(((i.astype(dtype) + offset) * s).astype(np.float32)).astype(np.int64)
    return np.minimum(src, in_size - 1)


def _linear_indices(in_size, out_size, scale, align_corners, dtype):
    """torch's area_pixel_compute_source_index and guard_index_and_lambda: (i0, i1, w0, w1)."""
    s = _source_scale(in_size, out_size, scale, align_corners, dtype)
    i = np.arange(out_size).astype(dtype)
    src = s * i if align_corners else np.maximum(s * (i + dtype.type(0.5)) - dtype.type(0.5), dtype.type(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    lam = np.clip(src - i0.astype(dtype), 0, 1).astype(dtype)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, (dtype.type(1) - lam).astype(dtype), lam


def _cubic_indices(in_size, out_size, scale, align_corners, dtype):
    """torch's bicubic taps along one axis: 4 source indices (i0 - 1 .. i0 + 2, clamped to the input)
    and the cubic-convolution weights (A = -0.75) of t = src - i0, src not clamped at 0."""
    s = _source_scale(in_size, out_size, scale, align_corners, dtype)
    i = np.arange(out_size).astype(dtype)
    src = s * i if align_corners else s * (i + dtype.type(0.5)) - dtype.type(0.5)
    i0 = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), in_size - 1)
    t = np.clip(src - i0.astype(dtype), 0, 1).astype(dtype)
    a = dtype.type(-0.75)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    taps = [np.clip(i0 - 1 + k, 0, in_size - 1) for k in range(4)]
    return taps, [w.astype(dtype) for w in weights]


def _sizes(input, size, scale_factor, recompute_scale_factor, mode):
    """(output sizes, scale factors or Nones) as torch's interpolate settles them."""
    dim = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {spatial} and output size of {size}. Please provide "
                                 f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 f"format.")
            if not all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            out = [int(x) for x in size]
        else:
            out = [int(size)] * dim
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        scales = [None] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 f"scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        out = [math.floor(n * s) for n, s in zip(spatial, scales)]
        if recompute_scale_factor:
            scales = [None] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if min(spatial + ([] if mode == "area" else out)) <= 0:  # (area's adaptive pool gives an empty output)
        names = "DHW"[3 - dim:]
        def sizes(values):
            return ", ".join(f"{a}: {v}" for a, v in zip(names, values))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({sizes(spatial)}) and "
                           f"output ({sizes(out)})")
    return out, scales


def interpolate(input: TensorOrArray, size: int | tuple[int, ...] | None = None,
                scale_factor: float | tuple[float, ...] | None = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> TensorOrArray:
    """Resamples (N, C, d1, ...) input to `size` (an int or one per spatial axis) or to floor(d *
    scale_factor), as torch.nn.functional.interpolate: mode 'nearest', 'nearest-exact' or 'area'
    (torch's adaptive average pool; 3-, 4- or 5-D input), 'linear' (3-D), 'bilinear' or 'bicubic'
    (4-D; bicubic's cubic convolution with A = -0.75, edges clamped) or 'trilinear' (5-D),
    align_corners (the linear and cubic modes; default False) taking the corner pixels' centres
    as the grid's ends. With scale_factor the kernel samples at i / scale_factor, unless
    recompute_scale_factor (then in / out, as a size would). Differentiable in input. 'lanczos'
    and antialias raise NotImplementedError in fgrad; bad arguments raise torch's errors.

    Examples
    --------
    >>> x = fgrad.tensor([[[1.0, 2.0, 4.0]]], requires_grad=True)
    >>> fgrad.nn.functional.interpolate(x, scale_factor=2)  # nearest: each value twice
    tensor([[[1., 1., 2., 2., 4., 4.]]], grad_fn=<...>)
    >>> y = fgrad.nn.functional.interpolate(x, size=5, mode="linear", align_corners=True); y
    tensor([[[1. , 1.5, 2. , 3. , 4. ]]], grad_fn=<...>)
    >>> y.sum().backward(); x.grad  # each input's share of the outputs
    tensor([[[1.5, 2. , 1.5]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    ndim = input.ndim
    if ndim not in (3, 4, 5):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the "
                                  f"modes: {_MODES} (got {mode})")
    out, scales = _sizes(input, size, scale_factor, recompute_scale_factor or (mode == "area" and size is None),
                         mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if antialias or mode == "lanczos":
        raise NotImplementedError(f"fgrad.nn.functional.interpolate: mode={mode!r}"
                                  f"{' with antialias' if antialias else ''} is not supported by fgrad (nearest, "
                                  f"nearest-exact, linear, bilinear, trilinear, bicubic and area are)")
    if mode == "bicubic" and ndim != 4:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the "
                                  f"modes: {_MODES} (got {mode})")
    if mode in ("linear", "bilinear", "trilinear"):
        if _LINEAR[ndim] != mode:
            want = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
            raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs {want}D input")
    elif mode not in ("nearest", "nearest-exact", "area", "bicubic"):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the "
                                  f"modes: {_MODES} (got {mode})")
    real_only("interpolate", input)
    dtype = np.dtype(input.dtype)
    nearest = mode in ("nearest", "nearest-exact")
    if dtype.kind != "f" and not (nearest and dtype == np.uint8):  # (torch's kernels: floats, and uint8 for nearest)
        kernel = {"area": "adaptive_avg_pool", "bicubic": "compute_indices_weights_cubic"}.get(
            mode, f"compute_indices_weights_{'nearest' if nearest else 'linear'}")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype_name(dtype)}'")
    x = input
    for k, (n, o, s) in enumerate(zip(input.shape[2:], out, scales)):
        axis = 2 + k
        if mode in ("nearest", "nearest-exact"):
            idx = _nearest_indices(n, o, s, mode == "nearest-exact", ndim == 4,
                                   dtype if dtype.kind == "f" else np.dtype(np.float32))
            if not np.array_equal(idx, np.arange(n)):
                x = fnp.take(x, idx, axis=axis)
            continue
        shape = (o,) + (1,) * (ndim - 1 - axis)
        if mode == "area":  # torch's adaptive average pool: the mean over each output's window
            x = fnp.moveaxis(fnp.matmul(fnp.moveaxis(x, axis, -1), on_device_of(input, _averaging(n, o, dtype).T)),
                             -1, axis)
            continue
        if mode == "bicubic":
            taps, weights = _cubic_indices(n, o, s, align_corners, dtype)
            terms = [fnp.take(x, i, axis=axis) * on_device_of(input, w.reshape(shape)) for i, w in zip(taps, weights)]
            x = terms[0] + terms[1] + terms[2] + terms[3]
            continue
        i0, i1, w0, w1 = _linear_indices(n, o, s, align_corners, dtype)
        x = fnp.take(x, i0, axis=axis) * on_device_of(input, w0.reshape(shape)) + \
            fnp.take(x, i1, axis=axis) * on_device_of(input, w1.reshape(shape))
    return x


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", UserWarning,
                  stacklevel=3)


def upsample(input: TensorOrArray, size: int | tuple[int, ...] | None = None,
             scale_factor: float | tuple[float, ...] | None = None, mode: str = "nearest",
             align_corners: bool | None = None) -> TensorOrArray:
    """torch's deprecated F.upsample: interpolate(input, size, scale_factor, mode, align_corners),
    with torch's UserWarning.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     y = fgrad.nn.functional.upsample(fgrad.tensor([[[1.0, 2.0]]]), scale_factor=2)
    >>> y, str(caught[0].message)
    (tensor([[[1., 1., 2., 2.]]]), '`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.')
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: TensorOrArray, size: int | tuple[int, ...] | None = None,
                     scale_factor: float | tuple[float, ...] | None = None) -> TensorOrArray:
    """torch's deprecated F.upsample_nearest: interpolate(input, size, scale_factor, mode='nearest'),
    with torch's UserWarning.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fgrad.nn.functional.upsample_nearest(fgrad.tensor([[[1.0, 2.0]]]), size=3)
    tensor([[[1., 1., 2.]]])
    """
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: TensorOrArray, size: int | tuple[int, int] | None = None,
                      scale_factor: float | tuple[float, float] | None = None) -> TensorOrArray:
    """torch's deprecated F.upsample_bilinear: interpolate(input, size, scale_factor,
    mode='bilinear', align_corners=True), with torch's UserWarning.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fgrad.nn.functional.upsample_bilinear(fgrad.tensor([[[[0.0, 4.0]]]]), size=(1, 3))
    tensor([[[[0., 2., 4.]]]])
    """
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class Upsample(Module):
    """torch.nn.Upsample(size, scale_factor, mode, align_corners, recompute_scale_factor): forward
    is interpolate(input, ...) with these settings (scale_factor kept as a float, or a tuple of
    floats, as torch's).

    Examples
    --------
    >>> up = fgrad.nn.Upsample(scale_factor=2, mode="bilinear")
    >>> up
    Upsample(scale_factor=2.0, mode='bilinear')
    >>> up(fgrad.tensor([[[[0.0, 4.0]]]]))  # align_corners False: edges repeat
    tensor([[[[0., 1., 3., 4.],
              [0., 1., 3., 4.]]]])
    """

    def __init__(self, size: int | tuple[int, ...] | None = None,
                 scale_factor: float | tuple[float, ...] | None = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        """interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners, ...)."""
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """torch.nn.UpsamplingNearest2d: Upsample(size, scale_factor, mode='nearest') on 4-D input.

    Examples
    --------
    >>> fgrad.nn.UpsamplingNearest2d(scale_factor=2)(fgrad.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[1., 1., 2., 2.],
              [1., 1., 2., 2.]]]])
    """

    def __init__(self, size: int | tuple[int, int] | None = None,
                 scale_factor: float | tuple[float, float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """torch.nn.UpsamplingBilinear2d: Upsample(size, scale_factor, mode='bilinear',
    align_corners=True) on 4-D input.

    Examples
    --------
    >>> fgrad.nn.UpsamplingBilinear2d(size=(1, 3))(fgrad.tensor([[[[0.0, 4.0]]]]))
    tensor([[[[0., 2., 4.]]]])
    """

    def __init__(self, size: int | tuple[int, int] | None = None,
                 scale_factor: float | tuple[float, float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
