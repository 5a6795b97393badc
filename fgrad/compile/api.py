"""fgrad.compile: trace a composition once into a flat program, replay it on later calls.

The first call for some inputs runs `fun` under a staging trace (compile/staging.py):
every kernel that fun and the transforms inside it call, forward and backward, becomes a
step of a Program (compile/program.py), and every value Python read becomes a guard. The
program is optimized (compile/optimize.py) and turned into straight-line Python
(compile/codegen.py).
Later calls with inputs of the same avals (shape, dtype, device), the same pytree
structure and the same static arguments replay it; a replay whose guard fails is abandoned
(a program writes nothing outside itself until it returns) and the call is traced again.
What the function does besides computing (print, np.random) is watched while it is traced
(compile/side_effects.py): replay will not do it again.

Note [a kernel that raises on replay]: Python may also decide by catching an exception
(det's derivative takes the adjugate where inv raises LinAlgError), and no guard records
that. So a replay in which any kernel raises is abandoned like a failed guard: the call is
traced again, eagerly, and either takes the other path or raises the error itself.
"""
import collections
import functools
import threading

from ..engine.gc_pause import paused
from ..errors import EscapedTracerError
from ..ir.value import StageTracer, Tracer
from ..ops.primitive import EVAL, _state, pop_trace, push_trace
from ..transforms import checks, trees
from ..typing import Callable, PyTree, Sequence
from .codegen import Retrace, generate
from .optimize import optimize
from .program import value_key
from .side_effects import SideEffectWatch
from .staging import StageTrace

__all__ = ["CacheInfo", "Compiled", "Lowered", "compile"]

CacheInfo = collections.namedtuple("CacheInfo", "hits misses retraces size maxsize last_retrace")


class Lowered:
    """One traced program of a compiled function: `print(lowered)` shows its steps,
    `as_text()` the Python source that replays it, `to_networkx()`/`to_dot()` export it."""

    def __init__(self, program, source, run, out_tree, held):
        self.program = program    # the optimized Program (the traced one is not kept: long ones are large)
        self.source = source
        self.run = run            # inputs -> the output leaves (a tuple); raises Retrace
        self.out_tree = out_tree
        self.held = held          # the constants, read-only while this program may run
        # Outputs that are constant arrays: each call gets its own copy (a caller may write into it)
        self.const_outs = [i for i, v in enumerate(program.outvars) if v.__class__ is int and v in program.consts
                           and hasattr(program.consts[v], "copy")]

    def results(self, outs):
        """The output leaves of one call, constant arrays copied (`outs`: a list or tuple of them)."""
        if self.const_outs:
            outs = list(outs)
            for i in self.const_outs:
                outs[i] = outs[i].copy()
        return trees.unflatten(self.out_tree, outs)

    def as_text(self) -> str:
        """The generated Python source of the replay."""
        return self.source

    def __str__(self):
        return str(self.program)

    __repr__ = __str__

    def to_networkx(self):
        return self.program.to_networkx()

    def to_dot(self) -> str:
        return self.program.to_dot()


def _hashable(value, what):
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"fgrad.compile: {what} is static, so it must be hashable (it keys the cache of "
                        f"programs), but it is a {type(value).__name__}: {value!r:.80}; pass a tuple instead of "
                        f"a list, or pass arrays as ordinary (traced) arguments") from None
    return value


def _leaf_key(x, treedef, i):
    """How leaf i keys the cache: an array (or NumPy scalar) by its aval; anything else (Python
    numbers, strings, ...) by its value, told apart as a program must (0.0 from -0.0)."""
    if _is_traced_leaf(x):
        return (x.__class__, x.shape, x.dtype, getattr(getattr(x, "device", None), "id", None))
    try:
        hash(x)
    except TypeError:
        label = trees.leaf_labels(treedef, "args")[i]
        _hashable(x, f"the non-array argument {label} ({type(x).__name__})")
    return ("static", value_key(x))


def _is_traced_leaf(x):
    """Arrays and NumPy scalars are traced. A Python number is static: traced, it would have
    to be a NumPy scalar, and NumPy promotes those differently (a Python float times a
    float32 array is float32; a float64 scalar times it, float64)."""
    return hasattr(x, "shape") and hasattr(x, "dtype")


class Compiled:
    """A function compiled by `fgrad.compile`: call it as the function; `lower(*args)` gives
    the program for those arguments; `cache_info()` shows how the cache is doing."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), maxsize=64):
        functools.update_wrapper(self, fun)
        self.fun = fun
        nums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
        self.static_argnums = tuple(sorted(nums))
        self.static_argnames = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        self.maxsize = maxsize
        self._cache = collections.OrderedDict()  # key -> [Lowered, ...] (differing in guard outcomes)
        self._hits = self._misses = self._retraces = 0
        self._last_retrace = None
        self._warned = set()
        self._lock = threading.Lock()  # (the cache's bookkeeping; replays and traces run outside it)

    def __get__(self, obj, objtype=None):
        """As a method: the instance is the first argument (static: keyed by the object)."""
        return self if obj is None else functools.partial(self, obj)

    # ---- the call ----------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _state.trace is not EVAL:  # under another transform: run eagerly, in its trace
            return self.fun(*args, **kwargs)
        key, leaves, treedef = self._key(args, kwargs)
        if key is None:
            return self.fun(*args, **kwargs)  # (a traced value or a Tensor among the arguments)
        dynamic = [x for x in leaves if _is_traced_leaf(x)]
        with self._lock:
            programs = self._cache.get(key)
            if programs is not None:
                self._cache.move_to_end(key)
                programs = list(programs)
        if programs is not None:
            failed = None
            for lowered in programs:
                try:
                    outs = lowered.run(*dynamic)
                except Retrace as r:
                    failed = _guard_reason(lowered, r.index)
                    continue
                except Exception as e:  # (Note [a kernel that raises on replay])
                    failed = f"a kernel raised on replay ({type(e).__name__}: {e})"
                    continue
                self._hits += 1
                return lowered.results(outs)
            self._retraces += 1
            self._last_retrace = failed
        else:
            self._misses += 1
            if self._cache:
                self._last_retrace = self._new_key_reason(key)
        lowered, out = self._stage(args, kwargs, leaves, treedef, dynamic)
        self._keep(key, lowered)
        return out

    def _keep(self, key, lowered):
        with self._lock:
            programs = self._cache.setdefault(key, [])
            programs.insert(0, lowered)
            del programs[8:]  # (a key whose guards flip among many outcomes keeps the 8 latest)
            while len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)

    def _key(self, args, kwargs):
        """(the cache key, the leaves, their structure); key None when an argument is traced."""
        static = tuple(value_key(_hashable(args[i], f"static argument {i}")) if i < len(args) else None
                       for i in self.static_argnums)
        static_kw = tuple(value_key(_hashable(kwargs.get(n), f"static argument {n!r}")) for n in self.static_argnames)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in self.static_argnums)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        leaves, treedef = trees.flatten((dyn_args, dyn_kwargs))
        if any(isinstance(x, Tracer) for x in leaves):
            return None, leaves, treedef
        return (treedef, tuple(_leaf_key(x, treedef, i) for i, x in enumerate(leaves)), static, static_kw), \
            leaves, treedef

    def _new_key_reason(self, key):
        """How `key` differs from the latest key in the cache."""
        old = next(reversed(self._cache))
        if old[0] != key[0]:
            return f"the arguments' structure changed: {old[0]} -> {key[0]}"
        if old[2:] != key[2:]:
            return f"a static argument changed: {old[2:]} -> {key[2:]}"
        for i, (a, b) in enumerate(zip(old[1], key[1])):
            if a != b:
                return f"leaf {i} changed: {_describe(a)} -> {_describe(b)}"
        return "new arguments"

    # ---- tracing -----------------------------------------------------------------------
    @paused  # (millions of small objects, none in a cycle: Note [no cycles, so no collector])
    def _stage(self, args, kwargs, leaves, treedef, dynamic):
        """Trace one call into a Lowered program (the leaves `dynamic` traced); returns it and
        the call's result."""
        labels = [str(lbl) for lbl, x in zip(trees.leaf_labels(treedef, "args"), leaves) if _is_traced_leaf(x)]
        for name, tree in (("args", args), ("kwargs", kwargs)):  # (Note [masked arrays and matrices are refused])
            given, tree = trees.flatten(tree)
            for lbl, x in zip(trees.leaf_labels(tree, name), given):
                checks.check_plain_array(x, lbl, "fgrad.compile")
        trace = push_trace(StageTrace, "compile")
        try:
            with SideEffectWatch(self):
                traced = [trace.new_value(x) for x in dynamic]
                it = iter(traced)
                staged = [next(it) if _is_traced_leaf(x) else x for x in leaves]
                dyn_args, dyn_kwargs = trees.unflatten(treedef, staged)
                full_args, it = list(args), iter(dyn_args)
                for i in range(len(args)):
                    if i not in self.static_argnums:
                        full_args[i] = next(it)
                full_kwargs = {**kwargs, **dyn_kwargs}
                out = self.fun(*full_args, **full_kwargs)
            out_leaves, out_tree = trees.flatten(out)
            for j, o in enumerate(out_leaves):
                _check_output(o, trace, j, out_tree, self.__name__)
            program = trace.program(traced, out_leaves, labels)
        except BaseException:
            trace.held.release()  # (no program: nothing will read the constants)
            raise
        finally:
            pop_trace(trace)
        optimized = optimize(program)
        del program  # (a long one is large: generate needs only the optimized one)
        run, source = generate(optimized)
        lowered = Lowered(optimized, source, run, out_tree, trace.held)
        return lowered, lowered.results([o.primal if o.__class__ is StageTracer else o for o in out_leaves])

    # ---- inspection --------------------------------------------------------------------
    def lower(self, *args, **kwargs) -> Lowered:
        """The program these arguments replay (traced now if the cache has none that holds)."""
        key, leaves, treedef = self._key(args, kwargs)
        if key is None:
            raise TypeError("fgrad.compile(...).lower: the arguments include traced values; lower with arrays")
        dynamic = [x for x in leaves if _is_traced_leaf(x)]
        for lowered in self._cache.get(key, ()):
            try:
                lowered.run(*dynamic)
            except Retrace:
                continue
            return lowered
        lowered, _ = self._stage(args, kwargs, leaves, treedef, dynamic)
        self._keep(key, lowered)
        return lowered

    def cache_info(self) -> CacheInfo:
        """Hits, misses (first traces for new avals or static values), retraces (a guard
        failed), programs held, the bound, and the reason of the last retrace."""
        size = sum(len(v) for v in self._cache.values())
        return CacheInfo(self._hits, self._misses, self._retraces, size, self.maxsize, self._last_retrace)

    def cache_clear(self) -> None:
        self._cache.clear()
        self._hits = self._misses = self._retraces = 0
        self._last_retrace = None


def _describe(leaf_key):
    if leaf_key[0] == "static":
        return f"the value {leaf_key[1][1]!r}"
    cls, shape, dtype = leaf_key[:3]
    return f"{cls.__name__} {dtype}{list(shape)}"


def _guard_reason(lowered, index):
    return f"a value Python read while tracing changed ({lowered.program.step_text(lowered.program.body[index])})"


def _check_output(o, trace, j, out_tree, name):
    if o.__class__ is StageTracer and o._trace is trace:
        return
    if isinstance(o, Tracer):
        raise EscapedTracerError(f"fgrad.compile: {name} returned a traced value of {o._trace.transform} at output "
                                 f"{list(out_tree.paths()[j])} (shape {o.shape}); a traced value must not "
                                 f"escape the transform that made it")
    if not (hasattr(o, "shape") and hasattr(o, "dtype")) and o.__class__ not in (int, float, complex, bool):
        raise TypeError(f"fgrad.compile: {name} returned a {type(o).__name__} ({o!r:.60}) at output "
                        f"{list(out_tree.paths()[j])}; a compiled function returns arrays, numbers, or pytrees "
                        f"of them (return other things from a function that calls the compiled one)")


def compile(fun: Callable[..., PyTree], static_argnums: int | Sequence[int] = (),
            static_argnames: str | Sequence[str] = ()) -> Compiled:
    """Trace `fun` once per input avals into a flat, optimized program, and replay it.

    `fun` may be any composition (grad, value_and_grad, jvp, vmap, hessian, custom rules,
    checkpoint). Arrays and NumPy scalars are traced; Python numbers and other non-array
    arguments are static, as are the arguments named by static_argnums/static_argnames:
    each value gets its own program (pass np.float64(t) to trace a number that changes
    from call to call). Python decisions on traced values are guarded.
    See docs/compile.md.
    """
    return Compiled(fun, static_argnums, static_argnames)
