"""fgrad.lax against jax.lax (x64) on the programs of tests/lax/programs.py: values and every
transform (grad, jvp, vmap, jacfwd, jacrev, hessian, compile, grad under compile, and
nestings), each (program, transform) pair its own test."""
import functools
import inspect

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import lax

from . import programs
from .programs import PROGRAMS, WHILE, XS, X

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def _bind(prog, L, np_, grad):
    """The program as a function of x, under one framework."""
    extra = {"grad": grad} if "grad" in inspect.signature(prog).parameters else {}

    @functools.wraps(prog)
    def bound(x):
        return prog(L, np_, x, **extra)
    return bound


def _pair(prog):
    return _bind(prog, lax, fnp, fgrad.grad), _bind(prog, jax.lax, jnp, jax.grad)


def _reverse(prog, j):
    """JAX's reverse-mode transform of `j`, or its forward-mode equal where JAX refuses (while_loop)."""
    return j if prog.__name__ not in WHILE else None


TRANSFORMS = {
    "value": (lambda f: f(X), lambda p, j: j(X)),
    "grad": (lambda f: fgrad.grad(f)(X), lambda p, j: (jax.grad(j) if p.__name__ not in WHILE else jax.jacfwd(j))(X)),
    "jvp": (lambda f: fgrad.jvp(f, (X,), (np.array([0.7, -0.1, 0.4]),))[1],
            lambda p, j: jax.jvp(j, (X,), (np.array([0.7, -0.1, 0.4]),))[1]),
    "vmap": (lambda f: fgrad.vmap(f)(XS), lambda p, j: jax.vmap(j)(XS)),
    "jacfwd": (lambda f: fgrad.jacfwd(f)(X), lambda p, j: jax.jacfwd(j)(X)),
    "jacrev": (lambda f: fgrad.jacrev(f)(X), lambda p, j: jax.jacfwd(j)(X)),
    "hessian": (lambda f: fgrad.hessian(f)(X), lambda p, j: (jax.hessian(j) if p.__name__ not in WHILE
                                                             else jax.jacfwd(jax.jacfwd(j)))(X)),
    "vmap_grad": (lambda f: fgrad.vmap(fgrad.grad(f))(XS), lambda p, j: jax.vmap(jax.jacfwd(j))(XS)),
    "grad_vmap": (lambda f: fgrad.grad(lambda xs: fnp.sum(fgrad.vmap(f)(xs)))(XS),
                  lambda p, j: jax.jacfwd(lambda xs: jnp.sum(jax.vmap(j)(xs)))(XS)),
    "compile": (lambda f: fgrad.compile(f)(X), lambda p, j: jax.jit(j)(X)),
    "compile_grad": (lambda f: fgrad.compile(fgrad.grad(f))(X), lambda p, j: jax.jit(jax.jacfwd(j))(X)),
    "compile_vmap": (lambda f: fgrad.compile(fgrad.vmap(f))(XS), lambda p, j: jax.jit(jax.vmap(j))(XS)),
    "compile_jvp": (lambda f: fgrad.compile(lambda x: fgrad.jvp(f, (x,), (np.ones(3),))[1])(X),
                    lambda p, j: jax.jit(lambda x: jax.jvp(j, (x,), (np.ones(3),))[1])(X)),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_against_jax(prog, transform):
    f, j = _pair(prog)
    ours, theirs = TRANSFORMS[transform]
    got, expected = np.asarray(ours(f)), np.asarray(theirs(prog, j))
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype or (got.dtype.kind == expected.dtype.kind == "f")
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-11)


def test_enough_programs():
    assert len(PROGRAMS) >= 40 and all(callable(getattr(programs, p.__name__)) for p in PROGRAMS)
