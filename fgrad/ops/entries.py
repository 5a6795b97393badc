"""Entry functions: what a user calls for an elementwise primitive (fnp.sin, x * y).

Calling a primitive binds it (Primitive.__call__): the innermost trace's `process` gets
the op. Elementwise ops of one or two arguments make most of a traced program, so each
gets a plain function instead, which does what bind would do in fewer steps:

- nothing traced: one check, then the kernel;
- a value of the innermost reverse-mode trace: the node is recorded right here;
- a dual number of the innermost forward-mode trace, whose primals are concrete: the
  primal and the tangent are computed right here (jvp, and hvp's outer jvp);
- anything else (nesting, the imperative face, escaped values, ops with jvp rules in
  place of partials such as divide and log): the current trace's `process`, exactly as
  bind.

Note [the entries' inline steps]: the two steps above are copies, kept on purpose, of
what their traces own: VJPTrace.record (transforms/reverse.py, the one home of
reverse-mode recording) and apply_partial (ops/primitive.py) with the dual number
JVPTrace.process makes. Calling into the trace instead costs one Python call per op
(docs/design.md, "Measured"). tests/ops/test_entries.py compares each entry with its
trace's general path: the same node, the same primal and tangent.
"""
from numpy import ndarray

from ..ir.node import KEEPS_VALUES, Aval, Node
from ..ir.value import JVPTracer, Tracer, VJPTracer
from .broadcasting import fit_tangent
from .primitive import NEG, NO_PARAMS, ONE, OTHER, _state, two_devices_check

__all__ = ["UNREAD", "binary", "entry_doc", "entry_for", "unary"]

_NO_PARAMS = NO_PARAMS
UNREAD = (None,)  # the residuals of a unary elementwise op that reads only its output


def entry_for(prim, arity, aliases=()):
    """The entry function of an elementwise primitive of `arity` (1 or 2) arguments."""
    return unary(prim, aliases) if arity == 1 else binary(prim, aliases)


def unary(prim, aliases=()):
    """The entry function of a primitive of one argument and no parameters; `aliases`: NumPy's
    other names for it (see _named)."""
    impl = prim.impl
    values = KEEPS_VALUES  # (a closure's cell reads faster than a global, once per op)
    if not prim.simple:
        def entry(x):
            try:
                if isinstance(x, Tracer):
                    return _state.trace.process(prim, (x,), _NO_PARAMS)
                return impl(x)
            except (TypeError, ValueError) as e:  # (Note [devices named in errors])
                two_devices_check(prim.name, (x,), e)
                raise
        return _named(entry, prim, aliases)

    def entry(x):
        try:
            if x.__class__ is ndarray:  # nothing traced (rules in the backward pass, mostly)
                return impl(x)
            if x.__class__ is VJPTracer:
                trace = _state.trace
                if x._trace is not trace or not trace.lean:
                    return trace.process(prim, (x,), _NO_PARAMS)
                pa = x.primal
                out = impl(pa) if trace.direct else trace.parent.process(prim, (pa,), _NO_PARAMS)
                node = Node()  # (VJPTrace.record's stores, inline: Note [the entries' inline steps])
                node.prim = prim
                node.params = _NO_PARAMS
                node.inputs = (x.edge,)
                node.primals = (pa,) if prim.keeps is values else UNREAD if pa.dtype is out.dtype else \
                    (Aval(pa),)  # (unread's decision for an op of one argument: Note [what a node keeps of its inputs])
                node.out = out if prim.saves_output else None
                node.meta = None
                trace.tape.append(node)
                t = VJPTracer()
                t._trace = trace
                t.primal = out
                t.edge = node
                return t
            if not isinstance(x, Tracer):  # nothing traced (a Python or NumPy scalar)
                return impl(x)
            trace = _state.trace
            partials = prim.partials
            if x.__class__ is not JVPTracer or x._trace is not trace or not trace.direct or partials is None:
                return trace.process(prim, (x,), _NO_PARAMS)
            pa, ta, d = x.primal, x.tangent, partials[0]  # (tangent_of's sum, for one argument)
            out = impl(pa)
            t_out = ta if d is ONE else -ta if d is NEG else d(out, pa) * ta
            if t_out.dtype is not out.dtype:  # (an op of one argument keeps its shape)
                t_out = fit_tangent(t_out, out)
            t = JVPTracer()
            t._trace = trace
            t.primal = out
            t.tangent = t_out
            return t
        except (TypeError, ValueError) as e:  # (Note [devices named in errors])
            two_devices_check(prim.name, (x,), e)
            raise
    return _named(entry, prim, aliases)


def binary(prim, aliases=()):
    """The entry function of a primitive of two arguments and no parameters (see unary)."""
    impl = prim.impl
    values = KEEPS_VALUES  # (a closure's cell reads faster than a global, once per op)
    if not prim.simple:
        def entry(a, b):
            try:
                if isinstance(a, Tracer) or isinstance(b, Tracer):
                    return _state.trace.process(prim, (a, b), _NO_PARAMS)
                return impl(a, b)
            except (TypeError, ValueError) as e:  # (Note [devices named in errors])
                two_devices_check(prim.name, (a, b), e)
                raise
        return _named(entry, prim, aliases)

    def entry(a, b):
        try:
            mine_a = a.__class__ is VJPTracer
            mine_b = b.__class__ is VJPTracer
            if mine_a or mine_b:
                trace = _state.trace
                # Each argument this trace's value or a constant (not another trace's value).
                if not ((a._trace is trace if mine_a else a.__class__ is float or not isinstance(a, Tracer))
                        and (b._trace is trace if mine_b else b.__class__ is float or not isinstance(b, Tracer))
                        and trace.lean):
                    return trace.process(prim, (a, b), _NO_PARAMS)
                pa = a.primal if mine_a else a
                pb = b.primal if mine_b else b
                out = impl(pa, pb) if trace.direct else trace.parent.process(prim, (pa, pb), _NO_PARAMS)
                node = Node()
                node.prim = prim
                node.params = _NO_PARAMS
                node.inputs = (a.edge if mine_a else None, b.edge if mine_b else None)
                if prim.keeps is values:  # (a constant array is held: Note [what fgrad keeps is read-only])
                    node.primals = (pa if mine_a or pa.__class__ is float else trace.held.keep(pa),
                                    pb if mine_b or pb.__class__ is float else trace.held.keep(pb))
                else:  # (unread's, inline: Note [what a node keeps of its inputs]; a constant as it is)
                    node.primals = (
                        (None if pa.shape == out.shape and pa.dtype is out.dtype else Aval(pa)) if mine_a else pa,
                        (None if pb.shape == out.shape and pb.dtype is out.dtype else Aval(pb)) if mine_b else pb)
                node.out = out if prim.saves_output else None
                node.meta = None
                trace.tape.append(node)
                t = VJPTracer()
                t._trace = trace
                t.primal = out
                t.edge = node
                return t
            if not (isinstance(a, Tracer) or isinstance(b, Tracer)):  # nothing traced
                return impl(a, b)
            dual_a = a.__class__ is JVPTracer
            dual_b = b.__class__ is JVPTracer
            trace = _state.trace
            partials = prim.partials
            if not ((dual_a or dual_b)
                    and (a._trace is trace if dual_a else a.__class__ is float or not isinstance(a, Tracer))
                    and (b._trace is trace if dual_b else b.__class__ is float or not isinstance(b, Tracer))
                    and trace.direct and partials is not None):
                return trace.process(prim, (a, b), _NO_PARAMS)
            pa = a.primal if dual_a else a  # (tangent_of's sum, unrolled for two arguments)
            pb = b.primal if dual_b else b
            # (Concrete values here, so multiply's tangent goes first: a NumPy scalar tangent times a
            # Python complex constant stays a NumPy scalar, where 1j * np.float64(2.0) is a complex.)
            out = impl(pa, pb)
            t_out = None
            if dual_a and (d := partials[0]) is not None:
                ta = a.tangent
                t_out = ta if d is ONE else -ta if d is NEG else ta * pb if d is OTHER else d(out, pa, pb) * ta
            if dual_b and (d := partials[1]) is not None:
                tb = b.tangent
                c = tb if d is ONE else -tb if d is NEG else tb * pa if d is OTHER else d(out, pa, pb) * tb
                t_out = c if t_out is None else t_out + c
            if t_out is None:
                return out
            if t_out.shape != out.shape or t_out.dtype is not out.dtype:
                t_out = fit_tangent(t_out, out)
            t = JVPTracer()
            t._trace = trace
            t.primal = out
            t.tangent = t_out
            return t
        except (TypeError, ValueError) as e:  # (Note [devices named in errors])
            two_devices_check(prim.name, (a, b), e)
            raise
    return _named(entry, prim, aliases)


def _named(entry, prim, aliases):
    """`entry`, named after `prim`; `numpy_names` are the names fgrad.numpy exports it under."""
    entry.__name__ = entry.__qualname__ = prim.name
    entry.__doc__ = entry_doc(prim)
    entry.prim = prim
    entry.numpy_names = (prim.name, *aliases)
    return entry


def entry_doc(prim):
    """An entry's docstring: fgrad's note, which fgrad.numpy and fgrad.scipy.special put above the
    library's docstring of the same name (numpy/bridge.py's cover)."""
    if prim.nondiff:
        return (f"Elementwise `{prim.name}` with no derivative: on traced values its result is a constant (its "
                f"gradient is zero). Returns an array of the broadcast shape of its arguments.")
    return (f"Elementwise `{prim.name}`, differentiable in each floating-point or complex argument (grad, vjp, "
            f"jvp, vmap, compile, Tensor.backward). Returns an array of the broadcast shape of its arguments, "
            f"traced where an argument is.")
