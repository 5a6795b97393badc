"""User-defined derivatives: custom_vjp, custom_jvp, and checkpoint.

A custom function is handled by the innermost trace that owns one of its arguments,
exactly like a primitive: that level uses the user's rule, and the rule's own
computations (fwd, bwd, the jvp rule) run under the parent trace, so outer levels
differentiate through them. Under the other mode each rule is transposed or
linearized with fgrad's own transforms:
  - jvp of a custom_vjp function: J t is the vjp of the linear map g -> bwd(res, g);
  - vjp of a custom_jvp function: J^T g is the vjp of the linear map t -> jvp_rule(t).
Under vmap a custom function becomes another, whose function and rules are the vmapped
ones (process_batch), so an outer transform still uses the user's rule, batched.
"""
import functools

import numpy as np

from ..ir.value import BatchTracer, Tracer
from ..ops.axes import moveaxis
from ..ops.batching import first
from ..ops.broadcasting import reduce_sum
from ..ops.primitive import Primitive, current_trace, escaped_tracer_error, run_under
from ..ops.zeros import materialize, zeros_like_value
from ..typing import Callable, Iterable, PyTree
from . import trees
from .batching import keeping, leaf_axes, vmap
from .forward import JVPTracer, dual
from .reverse import VJPTracer, vjp

__all__ = ["checkpoint", "custom_jvp", "custom_vjp"]


def _split_args(args, nondiff_argnums, name):
    for i in nondiff_argnums:
        if i >= len(args):
            raise TypeError(f"{name}: nondiff_argnums={nondiff_argnums} but it was called with {len(args)} arguments")
    static = tuple(args[i] for i in nondiff_argnums)
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return static, diff


def _merge_args(static, diff, nondiff_argnums):
    out, s, d = [], iter(static), iter(diff)
    for i in range(len(static) + len(diff)):
        out.append(next(s) if i in nondiff_argnums else next(d))
    return out


def _own(leaves, trace, cls):
    return [isinstance(a, cls) and a._trace is trace for a in leaves]


def _aval(x):
    """(shape, dtype) of an array, a traced value or a Python number."""
    if hasattr(x, "dtype"):
        return tuple(x.shape), x.dtype
    return (), np.result_type(x)


def check_rule_results(values, primals, describe):
    """A custom rule's results, each checked to have exactly the shape and dtype of its
    primal (nothing is summed or broadcast to fit: a wrong shape is a wrong rule). None (a
    symbolic zero) passes; a Python number stands for a 0-d value of its primal's dtype.
    Only primals of floating dtype are checked: others carry no derivative.
    `describe(i)` says in words which result i is, for the TypeError."""
    out = list(values)
    for i, (v, p) in enumerate(zip(values, primals)):
        if v is None:
            continue
        shape_p, dtype_p = _aval(p)
        if dtype_p.kind not in "fc":
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool) and shape_p == ():
            out[i] = dtype_p.type(v)
            continue
        shape_v, dtype_v = _aval(v) if hasattr(v, "dtype") or isinstance(v, (int, float, complex)) else (None, None)
        if shape_v != shape_p or dtype_v != dtype_p:
            got = (f"a {type(v).__name__}" if shape_v is None else f"shape {shape_v} and dtype {dtype_v}")
            raise TypeError(f"{describe(i)} has {got}, but its primal has shape {shape_p} and dtype {dtype_p}; "
                            f"a custom rule's result must match its primal's shape and dtype exactly (fgrad does "
                            f"not sum or broadcast it to fit)")
    return out


def _vjp_by_custom(g, ans, primals, needs, custom, **params):
    return custom.vjp_rule(g, ans, primals, needs, **params)


def _jvp_by_custom(primals, tangents, ans, custom, **params):
    return custom.jvp_rule(primals, tangents, ans, **params)


class _CustomBase:
    """What custom_vjp and custom_jvp share: a primitive for their tape nodes, and dispatch.

    The primitive's rules are module functions that find this object in the node's params
    (`custom`), not bound methods: a bound method held by the primitive, which this object
    holds, would be a reference cycle, and checkpoint(body)(x) inside a differentiated
    function would leave one to the cyclic collector per call."""

    def __init__(self, fun: Callable[..., PyTree], nondiff_argnums: Iterable[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.prim = Primitive(f"{type(self).__name__}[{getattr(fun, '__name__', 'fun')}]", None,
                              multiple_results=True, register=False)
        self.prim.defvjp_all(_vjp_by_custom)
        self.prim.defjvp_full(_jvp_by_custom)

    def __repr__(self):
        return f"<{type(self).__name__} {getattr(self, '__name__', 'fun')}>"

    def __call__(self, *args: PyTree) -> PyTree:
        return current_trace().process_custom(self, args)

    def process_eval(self, trace, args):
        for a in trees.flatten(args)[0]:
            if isinstance(a, Tracer) and not a._trace.alive:
                raise escaped_tracer_error(self.prim, a)
        return self.fun(*args)

    def _unpack(self, trace, args, tracer_cls, name):
        """(static args, argument leaves, their tree, which leaves `trace` owns, their primals)."""
        self._check_defined()
        static, diff = _split_args(args, self.nondiff_argnums, name)
        leaves, in_tree = trees.flatten(diff)
        mine = _own(leaves, trace, tracer_cls)
        return static, leaves, in_tree, mine, [a.primal if m else a for a, m in zip(leaves, mine)]

    def process_batch(self, trace, args):
        """Under vmap: call, under the parent trace, a custom function whose function and
        rules are this one's, vmapped (`_batched`); its outputs are batched along axis 0."""
        leaves, tree = trees.flatten(args)
        mine = _own(leaves, trace, BatchTracer)
        if not any(mine):
            return self._call_parent(trace, args)
        self._check_defined()
        dims = trees.unflatten(tree, [a.bdim if m else None for a, m in zip(leaves, mine)])
        primals = trees.unflatten(tree, [a.primal if m else a for a, m in zip(leaves, mine)])
        static_dims, diff_dims = _split_args(tuple(dims), self.nondiff_argnums, type(self).__name__)
        out = run_under(trace.parent, self._batched(tuple(dims), static_dims, diff_dims, trace.size), *primals)
        out_leaves, out_tree = trees.flatten(out)
        return trees.unflatten(out_tree, [trace.wrap(o, 0) for o in out_leaves])

    def _call_parent(self, trace, args):
        return run_under(trace.parent, lambda: trace.parent.process_custom(self, args))

    def _record(self, trace, leaves, mine, primals, out, params):
        """Record one tape node for this call on `trace`; its outputs as traced values."""
        out_leaves, out_tree = trees.flatten(out)
        inputs = [a.edge if m else None for a, m in zip(leaves, mine)]
        return trees.unflatten(out_tree, trace.record(self.prim, params, inputs, primals, tuple(out_leaves)))


class custom_vjp(_CustomBase):
    """A function with a user-defined vjp: `f.defvjp(fwd, bwd)` as in JAX.

    fwd(*args) -> (out, residuals); bwd(residuals, cotangent_out) -> one cotangent per
    (differentiable) argument. With nondiff_argnums those arguments come first in bwd.
    """

    def __init__(self, fun: Callable[..., PyTree], nondiff_argnums: Iterable[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None
        self.jvp_through_fun = False   # checkpoint: forward mode simply traces fun
        self.jvp_from_residuals = None  # optional (res, tangents) -> tangent out (autograd.Function.jvp)

    def defvjp(self, fwd: Callable[..., tuple[PyTree, PyTree]],
               bwd: Callable[..., tuple[PyTree, ...]]) -> "custom_vjp":
        self.fwd, self.bwd = fwd, bwd
        return self

    def _check_defined(self):
        if self.fwd is None:
            raise TypeError(f"custom_vjp function {self.__name__}: no rule defined; call .defvjp(fwd, bwd) first")

    def _forward(self, trace, args, static, leaves, in_tree, primals):
        """fwd under the parent trace: (its output, and what the rules need of this call)."""
        diff = trees.unflatten(in_tree, primals)
        result = run_under(trace.parent, self.fwd, *_merge_args(static, diff, self.nondiff_argnums))
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TypeError(f"custom_vjp {self.__name__}: fwd must return a pair (output, residuals), "
                            f"got {type(result).__name__}")
        out, res = result
        return out, {"custom": self, "res": res, "static": static, "out_tree": trees.flatten(out)[1],
                     "in_tree": in_tree, "n_args": len(args) - len(static), "n_leaves": len(leaves)}

    def _bwd_leaves(self, params, g_leaves, primals):
        """bwd's cotangents as leaves, one per argument leaf, checked against `primals`."""
        ct_out = trees.unflatten(params["out_tree"], g_leaves)
        cts = self.bwd(*params["static"], params["res"], ct_out)
        if not isinstance(cts, (tuple, list)):
            raise TypeError(f"custom_vjp {self.__name__}: bwd must return a tuple with one cotangent per "
                            f"differentiable argument, got {type(cts).__name__}")
        leaves, tree = trees.flatten(tuple(cts))
        if len(cts) != params["n_args"]:
            raise TypeError(f"custom_vjp {self.__name__}: bwd returned {len(cts)} cotangents but the function "
                            f"has {params['n_args']} differentiable argument(s)")
        if len(leaves) != params["n_leaves"]:
            raise TypeError(f"custom_vjp {self.__name__}: bwd returned cotangents with structure {tree}, "
                            f"which does not match the arguments' structure {params['in_tree']}")
        labels = trees.leaf_labels(params["in_tree"], "args")
        return check_rule_results(leaves, primals, lambda i: f"custom_vjp {self.__name__}: the cotangent bwd "
                                                             f"returned for {labels[i]}")

    def _batched(self, dims, static_dims, diff_dims, size):
        """This function with fun, fwd and bwd vmapped over `dims` (each argument's batch axes).
        fwd's residuals keep what vmap left unbatched as it is (any Python object may be a
        residual), and say which are batched for bwd; bwd's cotangent of an argument not
        batched is summed over the examples."""
        fwd, bwd = keeping(self.fwd, dims), self.bwd

        def batched_fwd(*a):
            leaves, leaf_dims, tree = fwd(*a)
            result = trees.unflatten(tree, leaves)
            if not (isinstance(result, tuple) and len(result) == 2):
                return result  # (not a pair: _forward says so, naming the function)
            out_leaves, out_tree = trees.flatten(result[0])
            n = len(out_leaves)
            out = trees.unflatten(out_tree, [first(v, d, size) for v, d in zip(out_leaves, leaf_dims)])
            res_tree = trees.flatten(result[1])[1]
            return out, (result[1], trees.unflatten(res_tree, leaf_dims[n:]))

        def batched_bwd(*a):
            *static, (res, res_dims), g = a
            cts = vmap(bwd, in_axes=(*static_dims, res_dims, 0))(*static, res, g)
            if not isinstance(cts, (tuple, list)):  # (bwd's own error, with its name, comes from _bwd_leaves)
                return cts
            leaves, tree = trees.flatten(tuple(cts))
            axes = leaf_axes(tuple(diff_dims), tuple(cts), "in_axes", "cotangents")
            return trees.unflatten(tree, [reduce_sum(c, axis=(0,), keepdims=False) if d is None else
                                          moveaxis(c, 0, d) for c, d in zip(leaves, axes)])
        batched = custom_vjp(vmap(self.fun, in_axes=dims), self.nondiff_argnums)
        batched.defvjp(batched_fwd, batched_bwd)
        batched.__name__ = self.__name__
        batched.jvp_through_fun = self.jvp_through_fun
        return batched

    def vjp_rule(self, g, ans, primals, needs, **params):
        leaves = self._bwd_leaves(params, list(materialize(g, ans)), primals)
        return tuple(c if need else None for c, need in zip(leaves, needs))

    def jvp_rule(self, primals, tangents, ans, **params):
        ts = [zeros_like_value(p) if t is None else t for p, t in zip(primals, tangents)]
        zeros_out = [zeros_like_value(a) for a in ans]
        _, pull = vjp(lambda *g: tuple(self._bwd_leaves(params, list(g), primals)), *zeros_out)
        return tuple(pull(tuple(ts)))

    def process_vjp(self, trace, args):
        static, leaves, in_tree, mine, primals = self._unpack(trace, args, VJPTracer, "custom_vjp")
        if not any(mine):
            return self._call_parent(trace, args)
        out, params = self._forward(trace, args, static, leaves, in_tree, primals)
        return self._record(trace, leaves, mine, primals, out, params)

    def process_jvp(self, trace, args):
        if self.jvp_through_fun:
            return self.fun(*args)
        static, leaves, in_tree, mine, primals = self._unpack(trace, args, JVPTracer, "custom_vjp")
        if not any(mine):
            return self._call_parent(trace, args)
        tangents = [a.tangent if m else None for a, m in zip(leaves, mine)]
        out, params = self._forward(trace, args, static, leaves, in_tree, primals)
        out_leaves, out_tree = trees.flatten(out)
        if self.jvp_from_residuals is not None:
            ts = [zeros_like_value(p) if t is None else t for p, t in zip(primals, tangents)]
            t_tree = run_under(trace.parent, lambda: self.jvp_from_residuals(params["res"],
                                                                           trees.unflatten(in_tree, ts)))
            t_out = trees.flatten(t_tree)[0]
        else:
            t_out = run_under(trace.parent, lambda: _jvp_by_custom(primals, tangents, tuple(out_leaves), **params))
        return trees.unflatten(out_tree, [dual(trace, o, t) for o, t in zip(out_leaves, t_out)])


class custom_jvp(_CustomBase):
    """A function with a user-defined jvp: `f.defjvp(rule)`, rule(primals, tangents) -> (out, tangent_out)."""

    def __init__(self, fun: Callable[..., PyTree], nondiff_argnums: Iterable[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp: Callable[..., tuple[PyTree, PyTree]]) -> Callable[..., tuple[PyTree, PyTree]]:
        self.jvp = jvp
        return jvp

    def _rule(self, static, in_tree, primal_leaves, tangent_leaves):
        primals = trees.unflatten(in_tree, primal_leaves)
        tangents = trees.unflatten(in_tree, tangent_leaves)
        result = self.jvp(*static, tuple(primals), tuple(tangents))
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TypeError(f"custom_jvp {self.__name__}: the jvp rule must return (primal_out, tangent_out), "
                            f"got {type(result).__name__}")
        out, t_out = result
        out_leaves, out_tree = trees.flatten(out)
        t_leaves, t_tree = trees.flatten(t_out)
        if t_tree != out_tree:
            raise TypeError(f"custom_jvp {self.__name__}: the tangent output has structure {t_tree} but the "
                            f"primal output has structure {out_tree}")
        labels = trees.leaf_labels(out_tree, "output")
        t_leaves = check_rule_results(t_leaves, out_leaves, lambda i: f"custom_jvp {self.__name__}: the tangent "
                                                                     f"the jvp rule returned for {labels[i]}")
        return out, trees.unflatten(out_tree, t_leaves)

    def _batched(self, dims, static_dims, diff_dims, size):
        """This function with fun and the jvp rule vmapped over `dims` (a tangent is batched
        where its primal is)."""
        batched = custom_jvp(vmap(self.fun, in_axes=dims), self.nondiff_argnums)
        batched.defjvp(vmap(self.jvp, in_axes=(*static_dims, tuple(diff_dims), tuple(diff_dims))))
        batched.__name__ = self.__name__
        return batched

    def jvp_rule(self, primals, tangents, ans, static, in_tree):
        ts = [zeros_like_value(p) if t is None else t for p, t in zip(primals, tangents)]
        return tuple(trees.flatten(self._rule(static, in_tree, primals, ts)[1])[0])

    def vjp_rule(self, g, ans, primals, needs, **params):
        zeros = [zeros_like_value(p) for p in primals]
        tangent_map = lambda *ts: tuple(  # noqa: E731
            trees.flatten(self._rule(params["static"], params["in_tree"], primals, ts)[1])[0])
        _, pull = vjp(tangent_map, *zeros)
        return tuple(c if need else None for c, need in zip(pull(materialize(g, ans)), needs))

    def _check_defined(self):
        if self.jvp is None:
            raise TypeError(f"custom_jvp function {self.__name__}: no rule defined; call .defjvp(rule) first")

    def process_vjp(self, trace, args):
        static, leaves, in_tree, mine, primals = self._unpack(trace, args, VJPTracer, "custom_jvp")
        if not any(mine):
            return self._call_parent(trace, args)
        out = run_under(trace.parent, lambda: self.fun(*_merge_args(static, trees.unflatten(in_tree, primals),
                                                                      self.nondiff_argnums)))
        return self._record(trace, leaves, mine, primals, out, {"custom": self, "static": static, "in_tree": in_tree})

    def process_jvp(self, trace, args):
        static, leaves, in_tree, mine, primals = self._unpack(trace, args, JVPTracer, "custom_jvp")
        if not any(mine):
            return self._call_parent(trace, args)
        tangents = [a.tangent if m and a.tangent is not None else zeros_like_value(p)
                    for a, p, m in zip(leaves, primals, mine)]
        out, t_out = run_under(trace.parent, self._rule, static, in_tree, primals, tangents)
        out_leaves, out_tree = trees.flatten(out)
        t_leaves = trees.flatten(t_out)[0]
        return trees.unflatten(out_tree, [dual(trace, o, t) for o, t in zip(out_leaves, t_leaves)])


def checkpoint(fun: Callable[..., PyTree]) -> custom_vjp:
    """`fun`, but its backward pass recomputes fun's intermediates instead of keeping them.

    Only the inputs are saved; reverse mode re-runs fun under vjp when the cotangent
    arrives. Forward mode traces fun as usual.
    """
    remat = custom_vjp(fun)
    remat.defvjp(lambda *args: (fun(*args), args), lambda args, g: vjp(fun, *args)[1](g))
    remat.jvp_through_fun = True
    return remat
