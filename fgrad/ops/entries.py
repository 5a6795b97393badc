"""Entry functions: what a user calls for an elementwise primitive (fnp.sin, x * y).

Calling a primitive binds it (Primitive.__call__): the innermost trace's `process` gets
the op. Elementwise ops of one or two arguments make most of a traced program, so each
gets a plain function instead: with nothing traced, one check and the kernel; else the
innermost trace's `unary` or `binary` (ops/primitive.py), which a trace may handle in
fewer steps than `process`: the reverse-mode trace records the node there (grad's hot
path), the forward-mode trace computes the dual number (transforms/). The entries know
nothing of any trace's internals. (A plain function is a cheaper call than a Primitive
instance: benchmarks/README.md.)
"""
from numpy import ndarray

from ..ir.value import Tracer
from .primitive import NO_PARAMS, _state

__all__ = ["binary", "entry_for", "unary"]


def entry_for(prim, arity, aliases=()):
    """The entry function of an elementwise primitive of `arity` (1 or 2) arguments."""
    return unary(prim, aliases) if arity == 1 else binary(prim, aliases)


def unary(prim, aliases=()):
    """The entry function of a primitive of one argument and no parameters; `aliases`: NumPy's
    other names for it (see _named)."""
    impl = prim.impl
    if not prim.simple:  # no derivative (or not per-argument partials): bind as any primitive
        def entry(x):
            if isinstance(x, Tracer):
                return _state.trace.process(prim, (x,), NO_PARAMS)
            return impl(x)
        return _named(entry, prim, aliases)

    def entry(x):
        if x.__class__ is ndarray:  # nothing traced (rules in the backward pass, mostly)
            return impl(x)
        if isinstance(x, Tracer):
            return _state.trace.unary(prim, x)
        return impl(x)  # nothing traced (a Python or NumPy scalar)
    return _named(entry, prim, aliases)


def binary(prim, aliases=()):
    """The entry function of a primitive of two arguments and no parameters (see unary)."""
    impl = prim.impl
    if not prim.simple:
        def entry(a, b):
            if isinstance(a, Tracer) or isinstance(b, Tracer):
                return _state.trace.process(prim, (a, b), NO_PARAMS)
            return impl(a, b)
        return _named(entry, prim, aliases)

    def entry(a, b):
        if isinstance(a, Tracer) or isinstance(b, Tracer):
            return _state.trace.binary(prim, a, b)
        return impl(a, b)
    return _named(entry, prim, aliases)


def _named(entry, prim, aliases):
    """`entry`, named after `prim`; `numpy_names` are the names fgrad.numpy exports it under."""
    entry.__name__ = entry.__qualname__ = prim.name
    kind = "no derivative" if prim.nondiff else "differentiable"
    entry.__doc__ = f"{prim.name}, elementwise ({kind}): the entry function of primitive `.prim`."
    entry.prim = prim
    entry.numpy_names = (prim.name, *aliases)
    return entry
