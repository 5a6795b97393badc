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
from .programs import PROGRAMS, XS, X

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


T = np.array([0.7, -0.1, 0.4])

# JAX's references, each computed once per program, jitted (JAX's eager dispatch of these small
# ops costs ten times its compile); JAX differentiates while_loop in forward mode only, so the
# derivatives are its forward-mode ones (equal to the reverse-mode ones where both exist).
REFERENCES = {
    "value": lambda j: jax.jit(j)(X),
    "jacobian": lambda j: jax.jit(jax.jacfwd(j))(X),
    "jvp": lambda j: jax.jit(lambda x: jax.jvp(j, (x,), (T,))[1])(X),
    "vmap": lambda j: jax.jit(jax.vmap(j))(XS),
    "hessian": lambda j: jax.jit(jax.jacfwd(jax.jacfwd(j)))(X),
    "vmap_jacobian": lambda j: jax.jit(jax.vmap(jax.jacfwd(j)))(XS),
}

# transform -> (fgrad's computation on the program f, the JAX reference it must equal)
TRANSFORMS = {
    "value": (lambda f: f(X), "value"),
    "grad": (lambda f: fgrad.grad(f)(X), "jacobian"),
    "jvp": (lambda f: fgrad.jvp(f, (X,), (T,))[1], "jvp"),
    "vmap": (lambda f: fgrad.vmap(f)(XS), "vmap"),
    "jacfwd": (lambda f: fgrad.jacfwd(f)(X), "jacobian"),
    "jacrev": (lambda f: fgrad.jacrev(f)(X), "jacobian"),
    "hessian": (lambda f: fgrad.hessian(f)(X), "hessian"),
    "vmap_grad": (lambda f: fgrad.vmap(fgrad.grad(f))(XS), "vmap_jacobian"),
    "grad_vmap": (lambda f: fgrad.grad(lambda xs: fnp.sum(fgrad.vmap(f)(xs)))(XS), "vmap_jacobian"),
    "compile": (lambda f: fgrad.compile(f)(X), "value"),
    "compile_grad": (lambda f: fgrad.compile(fgrad.grad(f))(X), "jacobian"),
    "compile_jacrev": (lambda f: fgrad.compile(fgrad.jacrev(f))(X), "jacobian"),
    "compile_vmap": (lambda f: fgrad.compile(fgrad.vmap(f))(XS), "vmap"),
    "compile_jvp": (lambda f: fgrad.compile(lambda x: fgrad.jvp(f, (x,), (T,))[1])(X), "jvp"),
}


@functools.cache
def _reference(prog, kind):
    return np.asarray(REFERENCES[kind](_pair(prog)[1]))


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_against_jax(prog, transform):
    ours, kind = TRANSFORMS[transform]
    got, expected = np.asarray(ours(_pair(prog)[0])), _reference(prog, kind)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-11)


def test_enough_programs():
    assert len(PROGRAMS) >= 40 and all(callable(getattr(programs, p.__name__)) for p in PROGRAMS)
