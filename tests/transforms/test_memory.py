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


def _cyclic_garbage_of(run, calls=5):
    with gc_disabled():
        for _ in range(calls):
            run()
        return gc.collect()


def test_custom_rules_and_checkpoint_leave_no_cycles():
    """A custom function's primitive holds no bound method of it (transforms/custom.py), so
    one made per call, as checkpoint(body) inside a differentiated function, is freed by
    reference counting alone."""
    def checkpointed(x):
        return fnp.sum(fgrad.checkpoint(lambda y: fnp.sin(y) * y)(x))

    def custom_vjp_per_call():
        f = fgrad.custom_vjp(lambda x: x * 2.0)
        f.defvjp(lambda x: (x * 2.0, None), lambda res, g: (g * 2.0,))
        return fgrad.grad(lambda x: fnp.sum(f(x)))(X)

    def custom_jvp_per_call():
        f = fgrad.custom_jvp(lambda x: x * 2.0)
        f.defjvp(lambda p, t: (p[0] * 2.0, t[0] * 2.0))
        return fgrad.jvp(f, (X,), (X,)), fgrad.grad(lambda x: fnp.sum(f(x)))(X)

    for run in (lambda: fgrad.grad(checkpointed)(X), custom_vjp_per_call, custom_jvp_per_call):
        run()  # (first calls fill caches)
        assert _cyclic_garbage_of(run) == 0


def test_backward_of_many_concatenated_pieces_is_linear():
    """100,000 pieces took 147 s when each piece's slice re-summed the lengths before it; in
    one pass it is about a second (the size is the test: a quadratic walk would hang CI)."""
    n = 100_000
    g = fgrad.grad(lambda *xs: fnp.sum(fnp.stack(xs) ** 2), argnums=tuple(range(n)))(*np.ones(n))
    assert len(g) == n and g[0] == 2.0 and g[-1] == 2.0
