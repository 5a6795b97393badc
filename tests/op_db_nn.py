"""Op-database rows for fgrad.nn.functional's layers (see op_db.py): the convolutions, pools and
norms, which reach the windows and unwindows primitives (fgrad/ops/conv.py) and their rules.

The references are written here in NumPy, by other algorithms than fgrad's (a shift-and-add
over kernel offsets for a convolution, a scatter over input positions for a transposed one,
a loop over windows for a pool), and refuse complex arguments: these are torch's layers on
real tensors, so the complex table does not run them.
"""
import numpy as np

import fgrad.nn.functional as F

from .op_db import OpInfo, distinct, uniform


def _real(*arrays):
    for a in arrays:
        if np.iscomplexobj(a):
            raise TypeError("the nn layers' references take real arrays")


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def conv2d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Cross-correlation as a sum over kernel offsets of strided slices of the padded input."""
    _real(x, w, b)
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = x[:, g * cg:(g + 1) * cg, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                          j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    return out if b is None else out + b[:, None, None]


def conv1d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    return conv2d_ref(x[:, :, None], w[:, :, None], b, (1, stride), (0, padding), (1, dilation), groups)[:, :, 0]


def conv_transpose2d_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Each input position scatters its kernel-shaped contribution onto the output."""
    _real(x, w, b)
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = map(_pair, (stride, padding, output_padding, dilation))
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // groups
    full = np.zeros((n, og * groups, (h - 1) * sh + dh * (kh - 1) + 1 + oph, (wd - 1) * sw + dw * (kw - 1) + 1 + opw))
    for g in range(groups):
        for p in range(h):
            for q in range(wd):
                for i in range(kh):
                    for j in range(kw):
                        full[:, g * og:(g + 1) * og, p * sh + i * dh, q * sw + j * dw] += \
                            x[:, g * cg:(g + 1) * cg, p, q] @ w[g * cg:(g + 1) * cg, :, i, j]
    out = full[:, :, ph:full.shape[2] - ph, pw:full.shape[3] - pw]
    return out if b is None else out + b[:, None, None]


def _pool_ref(x, kernel, stride, padding, reduce, fill, ceil_mode=False):
    _real(x)
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel), _pair(stride), _pair(padding)
    h, w = x.shape[-2:]
    sizes = []
    for n, k, s, p in ((h, kh, sh, ph), (w, kw, sw, pw)):
        o = (n + 2 * p - k + (s - 1 if ceil_mode else 0)) // s + 1
        sizes.append(o - 1 if ceil_mode and (o - 1) * s >= n + p else o)
    xp = np.pad(x, [(0, 0)] * (x.ndim - 2) + [(ph, ph + kh), (pw, pw + kw)], constant_values=fill)
    out = np.empty(x.shape[:-2] + tuple(sizes))
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            out[..., i, j] = reduce(xp[..., i * sh:i * sh + kh, j * sw:j * sw + kw], (i * sh - ph, j * sw - pw))
    return out


def max_pool2d_ref(x, kernel_size, stride=None, padding=0, ceil_mode=False):
    return _pool_ref(x, kernel_size, stride or kernel_size, padding, lambda win, _: win.max(axis=(-2, -1)), -np.inf,
                     ceil_mode)


def avg_pool2d_ref(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    kh, kw = _pair(kernel_size)
    h, w = x.shape[-2:]
    ph, pw = _pair(padding)

    def mean(win, start):
        (i0, j0) = start
        if count_include_pad:
            count = (min(i0 + kh, h + ph) - i0) * (min(j0 + kw, w + pw) - j0)
        else:
            count = (min(i0 + kh, h) - max(i0, 0)) * (min(j0 + kw, w) - max(j0, 0))
        return win.sum(axis=(-2, -1)) / count
    return _pool_ref(x, kernel_size, stride or kernel_size, padding, mean, 0.0)


def adaptive_avg_pool2d_ref(x, size):
    _real(x)
    h, w = x.shape[-2:]
    oh, ow = _pair(size)
    out = np.empty(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[..., i, j] = x[..., i * h // oh:-(-(i + 1) * h // oh), j * w // ow:-(-(j + 1) * w // ow)].mean(
                axis=(-2, -1))
    return out


def _standardized(x, axes, eps):
    return (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def batch_norm_ref(x, w, b, eps=1e-5):
    _real(x, w, b)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return _standardized(x, (0,) + tuple(range(2, x.ndim)), eps) * w.reshape(shape) + b.reshape(shape)


def layer_norm_ref(x, w, b, eps=1e-5):
    _real(x, w, b)
    return _standardized(x, tuple(range(x.ndim - w.ndim, x.ndim)), eps) * w + b


def group_norm_ref(x, groups, w, b, eps=1e-5):
    _real(x, w, b)
    g = _standardized(x.reshape(x.shape[0], groups, -1), (2,), eps).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return g * w.reshape(shape) + b.reshape(shape)


def rms_norm_ref(x, w, eps=1e-6):
    _real(x, w)
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * w


_INDEX = np.array([[0, 3, 1], [3, 3, 2]])


def _row(name, fn, ref, shapes, **kw):
    return OpInfo(f"nn.{name}", fn, ref, lambda rng: [tuple(uniform(rng, s) for s in shapes)], **kw)


def _distinct_row(name, fn, ref, shape, **kw):
    return OpInfo(f"nn.{name}", fn, ref, lambda rng: [(distinct(rng, shape) * 4.0 - 2.0,)], **kw)


NN_OPS = [
    _row("conv2d", F.conv2d, conv2d_ref, [(2, 2, 5, 4), (3, 2, 3, 2), (3,)]),
    _row("conv2d[stride,padding,dilation,groups]",
         lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
         lambda x, w: conv2d_ref(x, w, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
         [(1, 4, 5, 5), (4, 2, 2, 2)]),
    _row("conv1d[stride,padding]", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
         lambda x, w, b: conv1d_ref(x, w, b, stride=2, padding=1), [(2, 2, 7), (3, 2, 3), (3,)]),
    _row("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
         lambda x, w, b: conv_transpose2d_ref(x, w, b, stride=2, padding=1, output_padding=1),
         [(2, 2, 3, 3), (2, 3, 3, 2), (3,)]),
    _row("conv_transpose2d[groups,dilation]", lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
         lambda x, w: conv_transpose2d_ref(x, w, groups=2, dilation=2), [(1, 4, 3, 2), (4, 1, 2, 2)]),
    _distinct_row("max_pool2d", lambda x: F.max_pool2d(x, 2), lambda x: max_pool2d_ref(x, 2), (2, 2, 4, 5)),
    _distinct_row("max_pool2d[stride,padding,ceil_mode]",
                  lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                  lambda x: max_pool2d_ref(x, 3, 2, 1, ceil_mode=True), (1, 2, 6, 5)),
    _row("avg_pool2d[padding]", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1),
         lambda x: avg_pool2d_ref(x, 3, 2, 1), [(2, 2, 5, 4)]),
    _row("avg_pool2d[count_include_pad=False]", lambda x: F.avg_pool2d(x, 2, stride=1, padding=1,
                                                                       count_include_pad=False),
         lambda x: avg_pool2d_ref(x, 2, 1, 1, count_include_pad=False), [(1, 2, 3, 4)]),
    _row("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
         lambda x: adaptive_avg_pool2d_ref(x, (2, 3)), [(2, 2, 5, 4)]),
    _row("batch_norm[training]", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
         batch_norm_ref, [(3, 2, 2, 2), (2,), (2,)]),
    _row("layer_norm", lambda x, w, b: F.layer_norm(x, (3, 4), w, b), layer_norm_ref, [(2, 3, 4), (3, 4), (3, 4)]),
    _row("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), lambda x, w, b: group_norm_ref(x, 2, w, b),
         [(2, 4, 3), (4,), (4,)]),
    _row("rms_norm", lambda x, w: F.rms_norm(x, (4,), w, eps=1e-6), rms_norm_ref, [(3, 4), (4,)]),
    _row("embedding", lambda w: F.embedding(_INDEX, w), lambda w: (_real(w), w[_INDEX])[1], [(4, 3)]),
]
