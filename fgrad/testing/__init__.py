"""fgrad.testing: checking derivatives: finite differences, check_grads, gradcheck.

- check.py: check_grads, gradcheck and gradgradcheck: analytic derivatives against numerical.
- finite_differences.py: central finite differences, the ground truth of every check.
"""
from .. import autograd as _autograd
from .check import GradcheckError, check_grads, gradcheck, gradgradcheck
from .finite_differences import numerical_jacobian, numerical_jvp

__all__ = ["GradcheckError", "check_grads", "gradcheck", "gradgradcheck", "numerical_jacobian", "numerical_jvp"]

# torch.autograd.gradcheck and gradgradcheck are these (fgrad.autograd sits below this package,
# so the names are set from here, as fgrad imports both)
_autograd.gradcheck, _autograd.gradgradcheck = gradcheck, gradgradcheck
