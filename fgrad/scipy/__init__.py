"""fgrad.scipy: differentiable versions of SciPy functions (`fgrad.scipy.special`, `linalg`,
`signal`, `integrate`)."""
from . import integrate, linalg, signal, special, stats  # noqa: F401
