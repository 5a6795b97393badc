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
from ..tree_util import tree_map, tree_structure
from ..typing import Callable, Generic, Iterable, PyTree, R
from . import checks, trees
from .batching import keeping, leaf_axes, vmap
from .forward import JVPTracer, dual
from .reverse import VJPTracer, vjp, vjp_named

__all__ = ["checkpoint", "custom_jvp", "custom_vjp"]


def _split_args(args, nondiff_argnums, name):
    """(the nondiff arguments, in positional order, as JAX passes them to the rules; the others)."""
    if not nondiff_argnums:  # (the common case)
        return (), tuple(args)
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


def _nondiff_argnums(nums, name):
    """nondiff_argnums as sorted positions (the rules get those arguments in positional order)."""
    nums = tuple(nums)
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in nums):
        raise TypeError(f"{name}: nondiff_argnums must be non-negative ints (argument positions), got {nums!r}")
    return tuple(sorted(set(nums)))


def _leaf_type(x):
    """What a rule's output leaf must match of fun's: (shape, dtype) of an array, a traced value
    or a number; the class of anything else."""
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        return tuple(x.shape), np.dtype(x.dtype)
    if isinstance(x, (bool, int, float, complex)):
        return (), np.result_type(x)
    return type(x)


_LEAF_SPECS = {}  # n -> the structure of n leaves (one leaf; a tuple of n), for _type_of's common cases


def _leaves_spec(n, one):
    key = -1 if one else n
    spec = _LEAF_SPECS.get(key)
    if spec is None:
        spec = _LEAF_SPECS[key] = trees.flatten(0 if one else (0,) * n)[1]
    return spec


def _type_of(tree):
    """(structure, each leaf's _leaf_type) of a pytree: what fun's output is told by. (An array
    or a tuple of arrays, the common arguments and outputs, without optree: once per call.)"""
    if trees.is_leaf(tree):
        return _leaves_spec(1, True), (_leaf_type(tree),)
    if tree.__class__ is tuple and all(trees.is_leaf(x) for x in tree):
        return _leaves_spec(len(tree), False), tuple(_leaf_type(x) for x in tree)
    leaves, treedef = trees.flatten(tree)
    return treedef, tuple(_leaf_type(x) for x in leaves)


def _says(leaf_type):
    return f"a {leaf_type.__name__}" if isinstance(leaf_type, type) else \
        f"shape {leaf_type[0]} and dtype {leaf_type[1]}"


def _rule_name(kind, rule):
    name = getattr(rule, "__name__", None)
    return kind if name in (None, "<lambda>", kind) else f"{kind} ({name})"


_TYPES_KEPT = 256  # types of fun's output remembered per custom function (one per type of arguments)

_ARG = object()  # stands for one leaf of an argument while bwd's cotangents are matched to it


def _cotangent_leaves(name, cts, in_tree, positions):
    """bwd's cotangents `cts` as one leaf per leaf of the arguments (of structure `in_tree`;
    `positions` are their places among fun's arguments), None for a zero. As in JAX, bwd
    returns a tuple (or list) with one entry per differentiable argument, each of its
    argument's structure, where None stands for a zero cotangent of the whole argument or of
    any part of it. Matched by structure, not by leaf count: a tuple for a dict argument
    would match its leaves in the dict's sorted key order, silently swapped."""
    if isinstance(cts, list):
        cts = tuple(cts)
    if not isinstance(cts, tuple):
        raise TypeError(f"custom_vjp {name}: bwd must return a tuple with one cotangent per differentiable "
                        f"argument ({len(positions)}), got {type(cts).__name__}")
    args = trees.unflatten(in_tree, [_ARG] * in_tree.num_leaves)
    if len(cts) != len(args):
        raise TypeError(f"custom_vjp {name}: bwd returned {len(cts)} cotangents but the function has {len(args)} "
                        f"differentiable argument(s)")
    leaves = []
    for ct, arg, pos in zip(cts, args, positions):
        leaves.extend(_argument_cotangent(name, ct, arg, pos))
    return leaves


def _argument_cotangent(name, ct, arg, pos):
    """The leaves of `ct`, bwd's cotangent for the argument `arg` (its leaves _ARG), None for zeros."""
    if arg is _ARG and (ct is None or trees.is_leaf(ct) or isinstance(ct, (float, int))):  # (the common case)
        return [ct]
    out = []

    def match(c, a):
        if a is _ARG:
            out.append(c)
        elif c is None:  # a zero for a whole part of the argument
            out.extend([None] * len(trees.flatten(a)[0]))
        else:  # a leaf where the argument has a subtree (or nothing)
            raise ValueError
    try:
        tree_map(match, ct, arg, is_leaf=lambda x: x is None)
    except ValueError:
        raise TypeError(f"custom_vjp {name}: bwd's cotangent for args[{pos}] has structure "
                        f"{tree_structure(ct)}, but args[{pos}] has structure "
                        f"{tree_structure(arg)}; give each cotangent its argument's "
                        f"structure (None stands for a zero, of the whole argument or of any part of it)") from None
    return out


def _own(leaves, trace, cls):
    return [isinstance(a, cls) and a._trace is trace for a in leaves]


def _aval(x):
    """(shape, dtype) of an array, a traced value or a Python number."""
    if hasattr(x, "dtype"):
        return tuple(x.shape), x.dtype
    return (), np.result_type(x)


def _held(held, tree):
    """`tree` with its arrays held by `held`: fwd's residuals are read by bwd, later."""
    leaves, treedef = trees.flatten(tree)
    kept = [held.keep(x) for x in leaves]
    return tree if all(k is x for k, x in zip(kept, leaves)) else trees.unflatten(treedef, kept)


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


class _CustomBase(Generic[R]):
    """What custom_vjp and custom_jvp share: a primitive for their tape nodes, and dispatch.

    The primitive's rules are module functions that find this object in the node's params
    (`custom`), not bound methods: a bound method held by the primitive, which this object
    holds, would be a reference cycle, and checkpoint(body)(x) inside a differentiated
    function would leave one to the cyclic collector per call."""

    def __init__(self, fun: Callable[..., R], nondiff_argnums: Iterable[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff_argnums(nondiff_argnums, type(self).__name__)
        # Whether what the rules return as fun's output is checked against fun's (False where it
        # is fun's by construction: checkpoint, autograd.Function, a batched rule checked per
        # example); the type of fun's output per type of the arguments (Note [fun's output type]).
        self.checks_output = True
        self._fun_types = {}
        self.prim = Primitive(f"{type(self).__name__}[{getattr(fun, '__name__', 'fun')}]", None,
                              multiple_results=True, register=False)
        self.prim.defvjp_all(_vjp_by_custom)
        self.prim.defjvp_full(_jvp_by_custom)

    def __repr__(self):
        return f"<{type(self).__name__} {getattr(self, '__name__', 'fun')}>"

    def __call__(self, *args: PyTree) -> R:
        return current_trace().process_custom(self, args)

    def process_eval(self, trace, args):
        for a in trees.flatten(args)[0]:
            if isinstance(a, Tracer) and not a._trace.alive:
                raise escaped_tracer_error(self.prim, a)
        out = self.fun(*args)
        if self.checks_output:
            self._note(self._args_type(args), out, replace=False)
        return out

    # ---- Note [fun's output type] ------------------------------------------------------------
    # What fwd (custom_vjp) or the jvp rule (custom_jvp) returns as fun's output is what the
    # transform returns as its value, so it must be fun's output: same structure, shapes and
    # dtypes (a fwd computing in float32, or returning another shape, would be a wrong value).
    # Under differentiation fgrad calls the rule, not fun, so it learns fun's output type where
    # fun runs anyway: each evaluation of fun (process_eval, which also runs when the rule calls
    # the function itself, as JAX's examples do; custom_jvp under reverse mode; a vmapped call)
    # notes it, per type of the differentiable arguments. A rule's output is checked against
    # that note; where there is none (a rule that computes the output itself) or it differs
    # (an output type that depends on values or on a nondiff argument), fun runs once more on
    # these arguments, under the rule's trace, to learn or confirm it: so an error is raised
    # only when fun itself disagrees on these very arguments. (JAX checks only where it traced
    # fun first, as under grad of a jit-compiled function; elsewhere, jit(grad(f)) and eager use
    # among them, it returns fwd's output unchecked.)

    def _args_type(self, args):
        return _type_of(_split_args(args, self.nondiff_argnums, type(self).__name__)[1])

    def _note(self, key, out, replace=True):
        """Remember the type of `out`, fun's output for arguments of type `key`; return it."""
        types = self._fun_types
        if not replace and key in types:
            return types[key]
        if len(types) >= _TYPES_KEPT:
            types.clear()
        found = types[key] = _type_of(out)
        return found

    def _check_output(self, kind, rule, args, out):
        """`out`, what `rule` (of `kind`: fwd, the jvp rule) returned as fun's output for `args`
        (all of fun's arguments), checked to be of the type of fun's output for them."""
        if not self.checks_output:
            return
        key, got = self._args_type(args), _type_of(out)
        if self._fun_types.get(key) == got:
            return
        expected = self._note(key, self.fun(*args))  # (first seen, or to confirm: fun itself, on these arguments)
        if expected != got:
            raise TypeError(self._output_mismatch(_rule_name(kind, rule), got, expected))

    def _output_mismatch(self, rule, got, expected):
        head = f"{type(self).__name__} {self.__name__}: "
        tail = (f"; {rule} must return {self.__name__}'s own output (fgrad checks its structure, shapes and "
                f"dtypes: the transform returns it as the value)")
        if got[0] != expected[0]:
            return (f"{head}the output {rule} returned has structure {got[0]}, but {self.__name__} returns "
                    f"structure {expected[0]} for these arguments{tail}")
        i = next(i for i, (a, b) in enumerate(zip(got[1], expected[1])) if a != b)
        where = "output" if got[0].num_nodes == 1 else str(trees.leaf_labels(got[0], "output")[i])
        return (f"{head}{rule} returned {'an output' if where == 'output' else where} with {_says(got[1][i])}, "
                f"but {self.__name__}'s {where} has {_says(expected[1][i])} for these arguments{tail}")

    def _unpack(self, trace, args, tracer_cls, name):
        """(static args, argument leaves, their tree, which leaves `trace` owns, their primals)."""
        self._check_defined()
        static, diff = _split_args(args, self.nondiff_argnums, name)
        for i, value in zip(self.nondiff_argnums, static):
            self._check_nondiff(trace, i, value, name)
        leaves, in_tree = trees.flatten(diff)
        mine = _own(leaves, trace, tracer_cls)
        return static, leaves, in_tree, mine, [a.primal if m else a for a, m in zip(leaves, mine)]

    def _check_nondiff(self, trace, i, value, name):
        """A nondiff argument must not hold a value `trace` differentiates: the rules give no
        derivative for it, and zero would be returned silently (JAX raises for custom_vjp, and
        returns zero for custom_jvp)."""
        for leaf in trees.flatten(value)[0]:
            if isinstance(leaf, Tracer) and leaf._trace is trace:
                raise TypeError(f"{name} {self.__name__}: args[{i}] is in nondiff_argnums, but it holds a value "
                                f"{trace.transform} differentiates (shape {tuple(leaf.shape)}, dtype {leaf.dtype}); "
                                f"the rules give no derivative for it, so pass it as a differentiable argument "
                                f"(nondiff_argnums is for arguments that are not arrays: functions, strings, shapes)")

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
        out = trees.unflatten(out_tree, [trace.wrap(o, 0) for o in out_leaves])
        if self.checks_output:  # (fun's output, or a rule's checked per example: one example's type)
            self._note(self._args_type(args), out, replace=False)
        return out

    def _call_parent(self, trace, args):
        return run_under(trace.parent, lambda: trace.parent.process_custom(self, args))

    def _record(self, trace, leaves, mine, primals, out, params):
        """Record one tape node for this call on `trace`; its outputs as traced values."""
        out_leaves, out_tree = trees.flatten(out)
        inputs = [a.edge if m else None for a, m in zip(leaves, mine)]
        return trees.unflatten(out_tree, trace.record(self.prim, params, inputs, primals, tuple(out_leaves)))


class custom_vjp(_CustomBase[R]):
    """A function with a user-defined vjp: `f.defvjp(fwd, bwd)` as in JAX.

    fwd(*args) -> (out, residuals), where out must be fun(*args) (its structure, shapes and
    dtypes are checked: Note [fun's output type]); bwd(residuals, cotangent_out) -> a tuple
    with one cotangent per (differentiable) argument, each of its argument's structure, None
    for a zero (of a whole argument or of any part of one). With nondiff_argnums those
    arguments come first in bwd, in positional order; fwd takes every argument, as fun does.

    Examples
    --------
    >>> @fgrad.custom_vjp
    ... def clip_gradient(x):
    ...     return x
    >>> _ = clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (fnp.clip(g, -1.0, 1.0),))
    >>> fgrad.grad(lambda x: 5.0 * clip_gradient(x))(2.0)  # the cotangent 5 clipped to 1
    np.float64(1.0)
    """

    def __init__(self, fun: Callable[..., R], nondiff_argnums: Iterable[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None
        self.jvp_through_fun = False   # checkpoint: forward mode simply traces fun
        self.jvp_from_residuals = None  # optional (res, tangents) -> tangent out (autograd.Function.jvp)

    def defvjp(self, fwd: Callable[..., tuple[PyTree, PyTree]],
               bwd: Callable[..., tuple[PyTree, ...]]) -> "custom_vjp[R]":
        """Define the rule: `fwd(*args) -> (out, residuals)` (out must be fun(*args)) and
        `bwd(*nondiff_args, residuals, cotangent_out)` -> one cotangent per differentiable argument
        (None for a zero). Returns this function, so it can be used as a decorator's result.
        """
        self.fwd, self.bwd = fwd, bwd
        return self

    def _check_defined(self):
        if self.fwd is None:
            raise TypeError(f"custom_vjp function {self.__name__}: no rule defined; call .defvjp(fwd, bwd) first")

    def _call_fwd(self, *args):
        """fwd(*args) as a pair (output, residuals), its output checked to be fun's (Note
        [fun's output type]); run under the trace fwd runs under."""
        result = self.fwd(*args)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(f"custom_vjp {self.__name__}: fwd must return a pair (output, residuals), "
                            f"got {type(result).__name__}")
        self._check_output("fwd", self.fwd, args, result[0])
        return tuple(result)

    def _positions(self, n_args):
        """The places of the differentiable arguments among fun's `n_args` arguments."""
        return tuple(i for i in range(n_args) if i not in self.nondiff_argnums)

    def _forward(self, trace, args, static, leaves, in_tree, primals):
        """fwd under the parent trace: (its output, and what the rules need of this call)."""
        diff = trees.unflatten(in_tree, primals)
        out, res = run_under(trace.parent, self._call_fwd, *_merge_args(static, diff, self.nondiff_argnums))
        return out, {"custom": self, "res": res, "static": static, "out_tree": trees.flatten(out)[1],
                     "in_tree": in_tree, "positions": self._positions(len(args))}

    def _bwd_leaves(self, params, g_leaves, primals):
        """bwd's cotangents as leaves, one per argument leaf (None: zero), checked against `primals`."""
        ct_out = trees.unflatten(params["out_tree"], g_leaves)
        cts = self.bwd(*params["static"], params["res"], ct_out)
        leaves = _cotangent_leaves(self.__name__, cts, params["in_tree"], params["positions"])
        labels = trees.leaf_labels(params["in_tree"], "args", params["positions"])
        return check_rule_results(leaves, primals, lambda i: f"custom_vjp {self.__name__}: the cotangent bwd "
                                                             f"returned for {labels[i]}")

    def _batched(self, dims, static_dims, diff_dims, size):
        """This function with fun, fwd and bwd vmapped over `dims` (each argument's batch axes).
        fwd's residuals keep what vmap left unbatched as it is (any Python object may be a
        residual), and say which are batched for bwd; bwd's cotangent of an argument not
        batched is summed over the examples."""
        fwd, bwd = keeping(self._call_fwd, dims), self.bwd

        def batched_fwd(*a):
            leaves, leaf_dims, tree = fwd(*a)
            out, res = trees.unflatten(tree, leaves)  # (a pair: _call_fwd checked it, and its output)
            out_leaves, out_tree = trees.flatten(out)
            n = len(out_leaves)
            out = trees.unflatten(out_tree, [first(v, d, size) for v, d in zip(out_leaves, leaf_dims)])
            res_dims = trees.unflatten(trees.flatten(res)[1], leaf_dims[n:])
            diff = _split_args(a, self.nondiff_argnums, "custom_vjp")[1]
            in_tree = trees.flatten(diff)[1]  # (and each argument leaf's batch axis, for bwd)
            return out, (res, res_dims, in_tree, leaf_axes(tuple(diff_dims), diff, "in_axes", "arguments"),
                         self._positions(len(a)))

        def batched_bwd(*a):
            *static, (res, res_dims, in_tree, in_dims, positions), g = a
            cts = vmap(bwd, in_axes=(*static_dims, res_dims, 0))(*static, res, g)
            leaves = _cotangent_leaves(self.__name__, cts, in_tree, positions)
            return trees.unflatten(in_tree, [c if c is None else reduce_sum(c, axis=(0,), keepdims=False)
                                             if d is None else moveaxis(c, 0, d) for c, d in zip(leaves, in_dims)])
        batched = custom_vjp(vmap(self.fun, in_axes=dims), self.nondiff_argnums)
        batched.defvjp(batched_fwd, batched_bwd)
        batched.__name__ = self.__name__
        batched.jvp_through_fun = self.jvp_through_fun
        batched.checks_output = False  # (its fwd is _call_fwd vmapped: each example checked against fun)
        return batched

    def vjp_rule(self, g, ans, primals, needs, **params):
        """The engine's reverse-mode rule: bwd's cotangents for the cotangent `g` of the outputs, None
        where an argument's gradient is not needed (`needs`). Raises TypeError when bwd's cotangents do
        not match the arguments' structure, shapes or dtypes.
        """
        leaves = self._bwd_leaves(params, list(materialize(g, ans)), primals)
        return tuple(c if need else None for c, need in zip(leaves, needs))

    def jvp_rule(self, primals, tangents, ans, **params):
        """The engine's forward-mode rule, where forward mode goes through a custom_vjp: the tangent out
        obtained by transposing bwd (bwd is linear in the cotangent), for the given input tangents.
        """
        ts = [zeros_like_value(p) if t is None else t for p, t in zip(primals, tangents)]
        zeros_out = [zeros_like_value(a) for a in ans]

        def cotangents(*g):  # (bwd's None, a zero, as an array: vjp's outputs are arrays)
            return tuple(zeros_like_value(p) if c is None else c
                         for c, p in zip(self._bwd_leaves(params, list(g), primals), primals))
        _, pull = vjp(cotangents, *zeros_out)
        return tuple(pull(tuple(ts)))

    def process_vjp(self, trace, args):
        """How a reverse-mode trace runs this function: fwd under the parent trace, its residuals held,
        and one node recorded whose rule is bwd (fun itself when no argument is traced here).
        """
        static, leaves, in_tree, mine, primals = self._unpack(trace, args, VJPTracer, "custom_vjp")
        if not any(mine):
            return self._call_parent(trace, args)
        out, params = self._forward(trace, args, static, leaves, in_tree, primals)
        params["res"] = _held(trace.held, params["res"])
        return self._record(trace, leaves, mine, primals, out, params)

    def process_jvp(self, trace, args):
        """How a forward-mode trace runs this function: fwd for the output, and the tangent from bwd
        transposed (or from `jvp_from_residuals`, or by tracing fun for checkpoint).
        """
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


class custom_jvp(_CustomBase[R]):
    """A function with a user-defined jvp: `f.defjvp(rule)`, rule(primals, tangents) -> (out,
    tangent_out), where out must be fun(*primals) (checked: Note [fun's output type]); or
    `f.defjvps(*rules)`, one rule per argument. With nondiff_argnums those arguments come
    first in the rule, in positional order: rule(*nondiff, primals, tangents).

    Examples
    --------
    >>> @fgrad.custom_jvp
    ... def log1pexp(x):
    ...     return fnp.log1p(fnp.exp(x))
    >>> @log1pexp.defjvp
    ... def _(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return log1pexp(x), t / (1.0 + fnp.exp(-x))
    >>> round(float(fgrad.grad(log1pexp)(3.0)), 4)  # the rule's derivative, sigmoid(3)
    0.9526
    """

    def __init__(self, fun: Callable[..., R], nondiff_argnums: Iterable[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp: Callable[..., tuple[PyTree, PyTree]]) -> Callable[..., tuple[PyTree, PyTree]]:
        """Define the rule `jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)`, where
        primal_out must be fun(*primals) (checked). Returns `jvp`, so it works as a decorator.
        """
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable[..., PyTree] | None) -> None:
        """One rule per positional argument, as JAX's: `jvps[i](t_i, primal_out, *primals)` is
        the tangent of the output due to the tangent t_i of argument i (None: the output does
        not depend on it); the tangent output is their sum. Not with nondiff_argnums."""
        if self.nondiff_argnums:
            raise TypeError(f"custom_jvp {self.__name__}: defjvps cannot be used with nondiff_argnums (as in "
                            f"JAX); define the rule with defjvp, which receives the nondiff arguments first")

        def jvp(primals, tangents):
            if len(jvps) != len(primals):
                raise TypeError(f"custom_jvp {self.__name__}: defjvps was given {len(jvps)} rule(s), but the "
                                f"function was called with {len(primals)} argument(s); give one per argument "
                                f"(None for an argument the output does not depend on)")
            out = self(*primals)
            out_leaves, out_tree = trees.flatten(out)
            total = None
            for i, (rule, t) in enumerate(zip(jvps, tangents)):
                if rule is not None:
                    part = self._partial_tangent(i, rule(t, out, *primals), out_leaves, out_tree)
                    total = part if total is None else [a + b for a, b in zip(total, part)]
            if total is None:
                total = [zeros_like_value(o) for o in out_leaves]
            return out, trees.unflatten(out_tree, total)
        jvp.__name__ = "defjvps"
        self.defjvp(jvp)

    def _partial_tangent(self, i, t_out, out_leaves, out_tree):
        """The leaves of `t_out`, defjvps' rule i's tangent, checked against the output."""
        leaves, tree = trees.flatten(t_out)
        what = f"custom_jvp {self.__name__}: the tangent defjvps' rule for args[{i}] returned"
        if tree != out_tree:
            raise TypeError(f"{what} has structure {tree}, but the output has structure {out_tree}")
        labels = trees.leaf_labels(out_tree, "output")
        return check_rule_results(leaves, out_leaves, lambda k: f"{what} for {labels[k]}")

    def _checked_rule(self, *args):
        """The jvp rule on (*static, primals, tangents), as a pair (primal_out, tangent_out), its
        primal output checked to be fun's (Note [fun's output type])."""
        *static, primals, _ = args
        result = self.jvp(*args)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(f"custom_jvp {self.__name__}: the jvp rule must return (primal_out, tangent_out), "
                            f"got {type(result).__name__}")
        self._check_output("the jvp rule", self.jvp, _merge_args(static, primals, self.nondiff_argnums), result[0])
        return tuple(result)

    def _rule(self, static, in_tree, primal_leaves, tangent_leaves):
        primals = trees.unflatten(in_tree, primal_leaves)
        tangents = trees.unflatten(in_tree, tangent_leaves)
        out, t_out = self._checked_rule(*static, tuple(primals), tuple(tangents))
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
        batched.defjvp(vmap(self._checked_rule, in_axes=(*static_dims, tuple(diff_dims), tuple(diff_dims))))
        batched.__name__ = self.__name__
        batched.checks_output = False  # (its rule is _checked_rule vmapped: each example checked against fun)
        return batched

    def jvp_rule(self, primals, tangents, ans, static, in_tree, pull):
        """The engine's forward-mode rule: the tangent outputs of the user's rule at `primals` for
        `tangents` (None tangents as zeros), checked against the outputs' structure, shapes and dtypes.
        """
        ts = [zeros_like_value(p) if t is None else t for p, t in zip(primals, tangents)]
        return tuple(trees.flatten(self._rule(static, in_tree, primals, ts)[1])[0])

    def _transposed(self, static, in_tree, primals):
        """The vjp of the jvp rule's linear map t -> tangent_out at `primals` (its pullback)."""
        zeros = [zeros_like_value(p) for p in primals]
        tangent_map = lambda *ts: tuple(trees.flatten(self._rule(static, in_tree, primals, ts)[1])[0])  # noqa: E731
        return vjp(tangent_map, *zeros)[1]

    def vjp_rule(self, g, ans, primals, needs, pull, **params):
        """The engine's reverse-mode rule: the user's jvp rule transposed (its pullback `pull`, traced when
        the call was recorded) applied to the cotangent `g`; None where a gradient is not needed.
        """
        return tuple(c if need else None for c, need in zip(pull(materialize(g, ans)), needs))

    def _check_defined(self):
        if self.jvp is None:
            raise TypeError(f"custom_jvp function {self.__name__}: no rule defined; call .defjvp(rule) first")

    def process_vjp(self, trace, args):
        """How a reverse-mode trace runs this function: fun under the parent trace for the output, and the
        rule's linear map traced and transposed now, recorded as one node.
        """
        static, leaves, in_tree, mine, primals = self._unpack(trace, args, VJPTracer, "custom_jvp")
        if not any(mine):
            return self._call_parent(trace, args)
        diff = trees.unflatten(in_tree, primals)
        out = run_under(trace.parent, self.fun, *_merge_args(static, diff, self.nondiff_argnums))
        if self.checks_output:  # (fun ran: the rule's output, traced next, is checked against it)
            self._note(_type_of(tuple(diff)), out)
        # The rule's linear map is traced now, as JAX linearizes it: what the rule reads (a closed-over
        # array) is read now, and held by the pullback's tape (Note [what fgrad keeps is read-only]).
        pull = run_under(trace.parent, self._transposed, static, in_tree, primals)
        return self._record(trace, leaves, mine, primals, out,
                            {"custom": self, "static": static, "in_tree": in_tree, "pull": pull})

    def process_jvp(self, trace, args):
        """How a forward-mode trace runs this function: the user's rule under the parent trace, giving
        the output and its tangent as dual numbers (fun itself when no argument is traced here).
        """
        static, leaves, in_tree, mine, primals = self._unpack(trace, args, JVPTracer, "custom_jvp")
        if not any(mine):
            return self._call_parent(trace, args)
        tangents = [a.tangent if m and a.tangent is not None else zeros_like_value(p)
                    for a, p, m in zip(leaves, primals, mine)]
        out, t_out = run_under(trace.parent, self._rule, static, in_tree, primals, tangents)
        out_leaves, out_tree = trees.flatten(out)
        t_leaves = trees.flatten(t_out)[0]
        return trees.unflatten(out_tree, [dual(trace, o, t) for o, t in zip(out_leaves, t_leaves)])


def checkpoint(fun: Callable[..., R]) -> custom_vjp[R]:
    """`fun`, but its backward pass recomputes fun's intermediates instead of keeping them.

    Only the inputs are saved; reverse mode re-runs fun under vjp when the cotangent
    arrives. Forward mode traces fun as usual.

    Examples
    --------
    >>> f = fgrad.checkpoint(lambda x: fnp.sin(fnp.sin(x)))
    >>> round(float(fgrad.grad(f)(0.5)), 4)  # cos(sin x) cos x, the intermediates recomputed
    0.7786
    """
    remat = custom_vjp(fun)

    def pullback(args):
        """(fun(*args), its vjp over the floating-point leaves of args; the other leaves' places)."""
        leaves, tree = trees.flatten(args)
        floating = [checks.is_floating(x) for x in leaves]

        def of_floats(*floats):
            it = iter(floats)
            return fun(*trees.unflatten(tree, [next(it) if f else x for x, f in zip(leaves, floating)]))
        out, pull = vjp_named(of_floats, [x for x, f in zip(leaves, floating) if f], False, "checkpoint")
        return out, pull, floating, tree

    def fwd(*args):  # fun traced once, its tape dropped: what the recomputation reads stays held
        out, pull, _, _ = pullback(args)  # (Note [what fgrad keeps is read-only])
        return out, (args, pull.held.take())

    def bwd(res, g):  # (an integer or non-array argument is a constant: its cotangent is None, a zero)
        _, pull, floating, tree = pullback(res[0])
        cts = iter(pull(g))
        return tuple(trees.unflatten(tree, [next(cts) if f else None for f in floating]))

    remat.defvjp(fwd, bwd)
    remat.jvp_through_fun = True
    remat.checks_output = False  # (fwd's output is fun's own)
    return remat
