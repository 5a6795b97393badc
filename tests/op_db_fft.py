"""Op-database rows for fgrad.numpy.fft, fgrad.scipy.fft and the FFT convolutions of
fgrad.scipy.signal (see op_db.py).

Each function with NumPy's `n`/`s` (cropping and zero-padding, odd and even lengths, so the
half spectra have a Nyquist bin or not), `axis`/`axes` (not only the last, repeated in fftn)
and each `norm`. The transforms of complex input get complex samples; the others get real
ones, which tests/ops/test_op_table_complex.py runs complex too where NumPy takes them.
"""
import numpy as np
import scipy.fft as sf
import scipy.signal as ss

import fgrad.numpy as fnp
import fgrad.scipy.fft as fsf
import fgrad.scipy.signal as fss

from .op_db import OpInfo, complex_uniform, uniform


def _rows(name, kwargs_list, shapes, complex_input=False):
    """One row per kwargs dict, fgrad.numpy.fft.<name> against numpy.fft.<name>."""
    sample = complex_uniform if complex_input else uniform
    fn, ref = getattr(fnp.fft, name), getattr(np.fft, name)
    rows = []
    for kwargs in kwargs_list:
        label = ",".join(f"{k}={v}" for k, v in kwargs.items())
        rows.append(OpInfo(f"fft.{name}[{label}]", fn, ref,
                           lambda rng, shapes=shapes: [(sample(rng, s),) for s in shapes], kwargs=kwargs))
    return rows


_NORMS = [{"norm": "ortho"}, {"norm": "forward"}]

FFT_OPS = [
    *_rows("fft", [{}, {"n": 7}, {"n": 3, "axis": 0, "norm": "ortho"}, {"norm": "forward"}], [(4, 5), (6,)]),
    *_rows("ifft", [{}, {"n": 6, "norm": "ortho"}, {"axis": 0, "norm": "forward"}], [(4, 5)]),
    *_rows("rfft", [{}, {"n": 8}, {"n": 3, "axis": 0, "norm": "ortho"}, {"norm": "forward"}], [(4, 5), (6,)]),
    *_rows("irfft", [{}, {"n": 7}, {"n": 4, "axis": 0, "norm": "ortho"}, {"norm": "forward"}, {"n": 12}],
           [(4, 5), (6,)], complex_input=True),
    *_rows("irfft", [{"n": 5}], [(3, 4)]),  # (real input: a spectrum with no imaginary parts)
    *_rows("hfft", [{}, {"n": 7, "norm": "ortho"}, {"norm": "forward"}], [(4, 5)], complex_input=True),
    *_rows("ihfft", [{}, {"n": 5, "norm": "ortho"}, {"norm": "forward"}], [(4, 6)]),
    *_rows("fftn", [{}, {"s": (3, 6), "axes": (1, 0)}, {"axes": (0, 0)}, {"norm": "ortho"}], [(3, 4), (2, 3, 4)]),
    *_rows("ifftn", [{}, {"s": (5,), "axes": (-1,), "norm": "forward"}], [(3, 4)]),
    *_rows("fft2", [{}, *_NORMS, {"s": (3, 5)}], [(3, 4), (2, 3, 4)]),
    *_rows("ifft2", [{}, {"norm": "ortho"}, {"s": (4, 2), "axes": (0, 2)}], [(2, 3, 4)]),
    *_rows("rfftn", [{}, {"s": (4, 6), "axes": (0, 1)}, {"axes": (1, 0), "norm": "ortho"}], [(3, 5), (2, 3, 4)]),
    *_rows("rfft2", [{}, {"s": (3, 7), "norm": "forward"}], [(4, 5)]),
    *_rows("irfftn", [{}, {"s": (3, 7), "axes": (0, 1), "norm": "ortho"}, {"axes": (1, 0)}], [(3, 4), (2, 3, 4)],
           complex_input=True),
    *_rows("irfft2", [{}, {"s": (4, 5), "norm": "forward"}], [(3, 4)], complex_input=True),
    *_rows("fftshift", [{}, {"axes": 1}, {"axes": (0,)}], [(4, 5)]),
    *_rows("ifftshift", [{}, {"axes": (-1, 0)}], [(4, 5)]),
    OpInfo("fft.fftfreq", lambda d: fnp.fft.fftfreq(5, d), lambda d: np.fft.fftfreq(5, d),
           lambda rng: [(np.float64(rng.uniform(0.2, 2.0)),)]),
    OpInfo("fft.rfftfreq", lambda d: fnp.fft.rfftfreq(6, d), lambda d: np.fft.rfftfreq(6, d),
           lambda rng: [(np.float64(rng.uniform(0.2, 2.0)),)]),
]


# ---- scipy.fft: the cosine transforms of types 1 to 4, odd and even lengths
def _dct_rows(name, kwargs_list, shapes):
    fn, ref = getattr(fsf, name), getattr(sf, name)
    rows = []
    for kwargs in kwargs_list:
        label = ",".join(f"{k}={v}" for k, v in kwargs.items())
        rows.append(OpInfo(f"scipy.fft.{name}[{label}]", fn, ref,
                           lambda rng, shapes=shapes: [(uniform(rng, s),) for s in shapes], kwargs=kwargs))
    return rows


_TYPES_AND_NORMS = [{}, {"norm": "ortho"}, {"type": 3}, {"type": 3, "norm": "ortho"}, {"norm": "forward"},
                    {"type": 3, "n": 7, "axis": 0}, {"n": 4, "norm": "ortho"}, {"type": 1},
                    {"type": 1, "norm": "ortho"}, {"type": 1, "n": 6, "norm": "forward"}, {"type": 4},
                    {"type": 4, "norm": "ortho", "axis": 0},
                    {"type": 4, "n": 3, "norm": "forward"}]

SCIPY_FFT_OPS = [
    *_dct_rows("dct", _TYPES_AND_NORMS, [(4, 5), (6,)]),
    *_dct_rows("idct", _TYPES_AND_NORMS, [(4, 5), (6,)]),
    *_dct_rows("dctn", [{}, {"norm": "ortho"}, {"type": 3, "s": (3, 6), "axes": (1, 0)}, {"axes": (1,)},
                        {"type": 1, "norm": "ortho"}, {"type": 4, "s": (2, 5)}], [(3, 4)]),
    *_dct_rows("idctn", [{}, {"norm": "ortho", "type": 3}, {"s": (5,), "axes": (0,), "norm": "forward"}], [(3, 4)]),
]


# ---- fftconvolve (complex too: its row names are in op_db.COMPLEX_TAKEN), and method='fft'
_CONV_SHAPES = [((6,), (3,)), ((3,), (5,)), ((4, 5), (2, 3)), ((3, 4), (2, 5)), ((3, 4, 3), (2, 3, 2))]


def _conv_rows(name, fn, ref, extra):
    rows = []
    for mode in ("full", "same", "valid"):
        shapes = [(a, b) for a, b in _CONV_SHAPES
                  if mode != "valid" or all(x >= y for x, y in zip(a, b)) or all(x <= y for x, y in zip(a, b))]
        rows.append(OpInfo(f"scipy.signal.{name}[mode={mode}]", lambda x, y, mode=mode: fn(x, y, mode, **extra),
                           lambda x, y, mode=mode: ref(x, y, mode, **extra),
                           lambda rng, shapes=shapes: [(uniform(rng, a), uniform(rng, b)) for a, b in shapes]))
    return rows


SIGNAL_FFT_OPS = [
    *_conv_rows("fftconvolve", fss.fftconvolve, ss.fftconvolve, {}),
    OpInfo("scipy.signal.fftconvolve[axes=1]", lambda x, y: fss.fftconvolve(x, y, "same", axes=1),
           lambda x, y: ss.fftconvolve(x, y, "same", axes=1),
           lambda rng: [(uniform(rng, (3, 6)), uniform(rng, (1, 4))), (uniform(rng, (2, 5)), uniform(rng, (2, 3)))]),
    *_conv_rows("convolve_fft", fss.convolve, ss.convolve, {"method": "fft"}),
    *_conv_rows("correlate_fft", fss.correlate, ss.correlate, {"method": "fft"}),
]

FFT_OPS += SCIPY_FFT_OPS + SIGNAL_FFT_OPS
