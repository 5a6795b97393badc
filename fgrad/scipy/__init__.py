"""fgrad.scipy: differentiable versions of SciPy functions (`fgrad.scipy.special`, `stats`,
`linalg`, `signal`, `integrate`, `fft`).

`special` loads with fgrad (SciPy's special ufuncs called on traced values dispatch to it);
the others load on first use, as `fgrad.scipy.stats` or `from fgrad.scipy import stats`:
SciPy's signal and stats modules alone take half a second to import.

- special.py: scipy.special's names and signatures (expit, logsumexp, gammaln, ...).
- stats/: scipy.stats's distributions as functions, one module each.
- linalg.py: scipy.linalg's names and signatures (cho_solve, lu_solve, expm, ...).
- signal.py: scipy.signal's convolutions, differentiable in both inputs.
- integrate.py: trapezoid, and odeint differentiated by the adjoint method.
- fft.py: scipy.fft's dct, idct, dctn and idctn (on fgrad.numpy.fft), and numpy.fft's transforms.
- coverage.py: what fgrad.scipy covers, as the page docs/scipy-coverage.md.
"""
import importlib as _importlib

from . import special  # noqa: F401

_ON_FIRST_USE = ("fft", "integrate", "linalg", "signal", "stats")


def __getattr__(name):
    if name in _ON_FIRST_USE:
        module = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
