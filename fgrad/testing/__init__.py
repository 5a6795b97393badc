"""fgrad.testing: checking derivatives: finite differences, check_grads, gradcheck.

- check.py: check_grads, gradcheck and gradgradcheck: analytic derivatives against numerical.
- finite_differences.py: central finite differences, the ground truth of every check.
"""
from .check import GradcheckError, check_grads, gradcheck, gradgradcheck
from .finite_differences import numerical_jacobian, numerical_jvp

__all__ = ["GradcheckError", "check_grads", "gradcheck", "gradgradcheck", "numerical_jacobian", "numerical_jvp"]
