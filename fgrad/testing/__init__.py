"""Checking derivatives: finite differences, check_grads, gradcheck."""
from .check import GradcheckError, check_grads, gradcheck, gradgradcheck
from .finite_differences import numerical_jacobian, numerical_jvp

__all__ = ["GradcheckError", "check_grads", "gradcheck", "gradgradcheck", "numerical_jacobian", "numerical_jvp"]
