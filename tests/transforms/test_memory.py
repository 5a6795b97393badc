"""Lifetimes: what a transform keeps alive, and for how long (DESIGN.md, principle 5:
"avoid reference cycles between values and nodes, so a finished tape is freed by
reference counting alone")."""
import gc
import weakref

import numpy as np

import fgrad
import fgrad.numpy as fnp
from fgrad.ir.value import concrete

X = np.linspace(0.0, 1.0, 5)


def _traced_body():
    refs = []

    def body(x):
        h = fnp.sin(x) * 2.0
        refs.append(weakref.ref(concrete(h)))
        return fnp.sum(fnp.cos(h))  # (cos reads h: a residual)
    return body, refs


class gc_disabled:
    def __enter__(self):
        gc.collect()
        gc.disable()

    def __exit__(self, *exc):
        gc.enable()


def test_intermediates_are_freed_once_gc_runs():
    body, refs = _traced_body()
    fgrad.grad(body)(X)
    gc.collect()
    assert refs[0]() is None


def test_grad_frees_its_tape_by_reference_counting():
    body, refs = _traced_body()
    with gc_disabled():
        fgrad.grad(body)(X)
        assert refs[0]() is None, "an intermediate outlived grad until the cyclic GC ran"


def test_vjp_frees_its_tape_when_the_pullback_is_dropped():
    body, refs = _traced_body()
    with gc_disabled():
        _, pull = fgrad.vjp(body, X)
        assert refs[0]() is not None          # a residual, needed by pull
        pull(1.0)
        del pull
        assert refs[0]() is None, "an intermediate outlived its vjp function until the cyclic GC ran"


def test_plain_call_keeps_nothing():
    body, refs = _traced_body()
    with gc_disabled():
        body(X)
        assert refs[0]() is None
