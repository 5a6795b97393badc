"""fgrad.scipy: differentiable versions of SciPy functions (`fgrad.scipy.special`)."""
from . import special  # noqa: F401
