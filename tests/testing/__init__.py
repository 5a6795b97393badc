"""Tests of fgrad.testing: check_grads, numerical_jacobian, gradcheck."""
