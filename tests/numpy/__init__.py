"""Tests of fgrad.numpy and the NumPy protocol bridge."""
