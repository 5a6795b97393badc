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
import importlib.util
import threading

from ..config import config
from ..engine.gc_pause import paused
from ..errors import EscapedTracerError
from ..ir.pictures import Pictured
from ..ir.value import WEAK_TYPES, StageTracer, Tracer
from ..ops.primitive import EVAL, _state, pop_trace, push_trace
from ..transforms import checks, debug_nans, trees
from ..typing import Any, Callable, Generic, P, R, Sequence
from . import explain, fusion
from .codegen import Retrace, generate
from .optimize import check_order, optimize
from .program import value_key
from .progress import TraceProgress
from .side_effects import SideEffectWatch
from .staging import StageTrace

__all__ = ["CacheInfo", "Compiled", "Lowered", "compile"]

CacheInfo = collections.namedtuple("CacheInfo", "hits misses retraces size maxsize last_retrace traces reasons",
                                   defaults=(0, ()))
CacheInfo.__doc__ = """How a compiled function's cache is doing: hits (replays), misses (a new kind of
input), retraces (a guard failed or a kernel raised), size (the programs held), maxsize (the
kinds of input held), last_retrace (the latest reason), traces (every trace, the first one
included), reasons (the latest REASONS_KEPT reasons, oldest first)."""

REASONS_KEPT = 32
class Lowered(Pictured):
    """One traced program of a compiled function: `print(lowered)` shows its steps,
    `as_text()` the Python source that replays it, `to_networkx()`/`to_dot()` export it,
    `render()` draws it."""

    def __init__(self, program, source, run, out_tree, held):
        self.program = program    # the optimized Program (the traced one is not kept: long ones are large)
        self.source = source
        self.run = run            # inputs -> the output leaves (a tuple); raises Retrace
        self.out_tree = out_tree
        self.held = held          # the constants, read-only while this program may run
        self._mode = None         # the fusion still to do on a later replay (fuse_after), or None
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
        """The generated Python source of the replay (its first lines say what fusion did)."""
        return self.source

    def fuse_after(self, mode: str, replays: int) -> None:
        """Replay unfused, and fuse on the `replays`-th replay (Note [fusing late] in compile/fusion.py)."""
        unfused, count = self.run, [0]

        def run(*inputs):
            count[0] += 1
            if count[0] >= replays:
                self.fuse(mode)
            return unfused(*inputs)
        self.run = run
        self._mode = mode

    def fuse(self, mode: str | None = None) -> None:
        """Fuse the program's regions now (compile/fusion.py); later replays run the fused code.

        >>> f = fgrad.compile(lambda x: x * 2.0 + 1.0)
        >>> lowered = f.lower(np.ones(3))
        >>> lowered.fuse()
        >>> f(np.ones(3))
        array([3., 3., 3.])
        """
        with _FUSING:
            mode = mode or self._mode
            if mode is None:  # (fused already, or fuse=False, or nothing to fuse)
                return
            self._mode = None
            head = _fused(self.program, mode)
            run, source = generate(self.program)
            self.source, self.run = head + source, run

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


def _leaf_key(x):
    """How a leaf keys the cache: an array (or NumPy scalar) by its aval; a Python number by
    its type (traced weakly: Note [weak values] in ir/value.py); anything else (a string, an
    object) by its value, told apart as a program must (0.0 from -0.0); None if unhashable."""
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return (x.__class__, x.shape, x.dtype, getattr(getattr(x, "device", None), "id", None))
    if x.__class__ in WEAK_TYPES:
        return x.__class__
    try:
        hash(x)
    except TypeError:
        return None
    return ("static", value_key(x))


def _is_traced_leaf(x):
    """Arrays, NumPy scalars and Python numbers (bool, int, float, complex; not their
    subclasses, an IntEnum say) are traced; other leaves are static."""
    return (hasattr(x, "shape") and hasattr(x, "dtype")) or x.__class__ in WEAK_TYPES


class Compiled(Generic[P, R]):
    """A function compiled by `fgrad.compile`: call it as the function; `lower(*args)` gives
    the program for those arguments; `cache_info()` shows how the cache is doing."""

    def __init__(self, fun: Callable[P, R], static_argnums: int | Sequence[int] = (),
                 static_argnames: str | Sequence[str] = (), maxsize: int = 64, fuse: bool | str = True) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        if fuse not in (True, False, "libm"):
            raise ValueError(f"fgrad.compile: fuse is True, False or 'libm', not {fuse!r}")
        self.fuse = fuse
        nums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
        self.static_argnums = tuple(sorted(nums))
        self.static_argnames = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        self.maxsize = maxsize
        self._cache = collections.OrderedDict()  # key -> [Lowered, ...] (differing in guard outcomes)
        self._hits = self._misses = self._retraces = self._traces = 0
        self._reasons = collections.deque(maxlen=REASONS_KEPT)
        self._warned = set()
        self._lock = threading.Lock()  # (the cache's bookkeeping; replays and traces run outside it)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """As a method: the instance is the first argument (static: keyed by the object)."""
        return self if obj is None else functools.partial(self, obj)

    # ---- the call ----------------------------------------------------------------------
    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if config.debug_nans and not debug_nans.state.busy:  # (a hit re-runs fun eagerly: Note [NaN provenance])
            return debug_nans.checked_call("compile", lambda t: self(*t[0], **t[1]), [args, kwargs])
        if _state.trace is not EVAL:  # under another transform: run eagerly, in its trace
            return self.fun(*args, **kwargs)
        key, dynamic, leaves, treedef = self._key(args, kwargs)
        if key is None:
            return self.fun(*args, **kwargs)  # (a traced value or a Tensor among the arguments)
        with self._lock:
            programs = self._cache.get(key)
            if programs is not None:
                self._cache.move_to_end(key)
                programs = list(programs)
        if programs is not None:
            failed = None  # (the reason: how the newest program failed)
            for lowered in programs:
                try:
                    outs = lowered.run(*dynamic)
                except Retrace as r:
                    failed = failed or (lowered, r)
                    continue
                except Exception as e:  # (Note [a kernel that raises on replay])
                    failed = failed or f"a kernel raised on replay ({type(e).__name__}: {e})"
                    continue
                self._hits += 1
                return lowered.results(outs)
            self._retraces += 1
            reason = failed if failed.__class__ is str else explain.guard_reason(failed[0].program, failed[1].index,
                                                                                 failed[1].value)
        else:
            self._misses += 1
            reason = self._new_key_reason(key, treedef, len(args)) if self._cache else None
        self._traced(reason)
        lowered, out = self._stage(args, kwargs, leaves, treedef, dynamic)
        self._keep(key, lowered)
        return out

    def _traced(self, reason):
        """Count a trace; past the threshold, warn (once) with its reason."""
        self._traces += 1
        if reason is None:
            return
        self._reasons.append(reason)
        after = config.retrace_warning_after
        if after and self._traces > after:
            explain.warn_retraces(self, self._traces, reason)

    def _keep(self, key, lowered):
        with self._lock:
            programs = self._cache.setdefault(key, [])
            programs.insert(0, lowered)
            del programs[8:]  # (a key whose guards flip among many outcomes keeps the 8 latest)
            while len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)

    def _key(self, args, kwargs):
        """(the cache key, the traced leaves, all leaves, their structure); key None when an
        argument is already a traced value."""
        static = tuple(value_key(_hashable(args[i], f"static argument {i}")) if i < len(args) else None
                       for i in self.static_argnums)
        static_kw = tuple(value_key(_hashable(kwargs[n], f"static argument {n!r}")) if n in kwargs else None
                          for n in self.static_argnames)
        nargs = len(args)
        if self.static_argnums:
            args = tuple(a for i, a in enumerate(args) if i not in self.static_argnums)
        if self.static_argnames:
            kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        leaves, treedef = trees.flatten((args, kwargs))
        keys = []
        for x in leaves:
            if isinstance(x, Tracer):
                return None, None, leaves, treedef
            k = _leaf_key(x)
            if k is None:
                label = self._labels(treedef, nargs)[len(keys)]
                _hashable(x, f"the non-array argument {label} ({type(x).__name__})")
            keys.append(k)
        dynamic = [x for x, k in zip(leaves, keys) if k.__class__ is not tuple or k[0] != "static"]
        # (the policy is traced into the program: safe_multiply steps or plain ones)
        return (treedef, tuple(keys), static, static_kw, config.nan_safe_zeros), dynamic, leaves, treedef

    def _labels(self, treedef, nargs):
        """The leaves' paths as the caller wrote them (explain.arg_labels), for a call of `nargs`
        positional arguments."""
        return explain.arg_labels(treedef, [i for i in range(nargs) if i not in self.static_argnums])

    def _new_key_reason(self, key, treedef, nargs):
        """How `key` differs from the cached key most like it (the latest of its structure)."""
        old = next((k for k in reversed(self._cache) if k[0] == key[0]), None) or next(reversed(self._cache))
        static_labels = [f"args[{i}]" for i in self.static_argnums] + [f"kwargs[{n!r}]" for n in self.static_argnames]
        return explain.new_key_reason(old, key, self._labels(treedef, nargs), static_labels)

    # ---- tracing -----------------------------------------------------------------------
    @paused  # (millions of small objects, none in a cycle: Note [no cycles, so no collector])
    def _stage(self, args, kwargs, leaves, treedef, dynamic):
        """Trace one call into a Lowered program (the leaves `dynamic` traced); returns it and
        the call's result."""
        nargs = len(args) - sum(1 for i in self.static_argnums if i < len(args))
        labels = [lbl for lbl, x in zip(self._labels(treedef, len(args)), leaves) if _is_traced_leaf(x)]
        for name, tree in (("args", args), ("kwargs", kwargs)):  # (Note [masked arrays and matrices are refused])
            given, tree = trees.flatten(tree)
            for lbl, x in zip(trees.leaf_labels(tree, name), given):
                checks.check_plain_array(x, lbl, "fgrad.compile")
        trace = push_trace(StageTrace, "compile")
        with TraceProgress(self.__name__, lambda: len(trace.body)) as progress:
            try:
                with SideEffectWatch(self):
                    traced = [trace.new_value(x) for x in dynamic]
                    it = iter(traced)
                    staged = [next(it) if _is_traced_leaf(x) else x for x in leaves]
                    dyn_args, dyn_kwargs = trees.unflatten(treedef, staged)
                    full_args, it = list(args), iter(dyn_args[:nargs])
                    for i in range(len(args)):
                        if i not in self.static_argnums:
                            full_args[i] = next(it)
                    out = self.fun(*full_args, **{**kwargs, **dyn_kwargs})
                out_leaves, out_tree = trees.flatten(out)
                for j, o in enumerate(out_leaves):
                    _check_output(o, trace, j, out_tree, self.__name__)
                program = trace.program(traced, out_leaves, labels)
            except BaseException:
                trace.held.release()  # (no program: nothing will read the constants)
                raise
            finally:
                pop_trace(trace)
            steps = len(program)
            progress.phase, progress.count = "optimizing", lambda: steps
            optimized = optimize(program)
            del program  # (a long one is large: generate needs only the optimized one)
            head, mode = "# fusion off (fuse=False)\n", "libm" if self.fuse == "libm" else "exact"
            found = fusion.regions(optimized, mode) if self.fuse else ()
            if found and fusion.FUSE_AFTER == 0:
                progress.phase = "fusing"
                head = _fused(optimized, mode)
            elif self.fuse:
                head = (f"# fusion: {len(found)} regions, fused on replay {fusion.FUSE_AFTER} (Note [fusing late])\n"
                        if found else "# fusion: no region worth a kernel\n")
            progress.phase = "generating code"
            run, source = generate(optimized)
            source = head + source
        lowered = Lowered(optimized, source, run, out_tree, trace.held)
        if found and fusion.FUSE_AFTER:
            lowered.fuse_after(mode, fusion.FUSE_AFTER)
        return lowered, lowered.results([o.primal if o.__class__ is StageTracer else o for o in out_leaves])

    # ---- inspection --------------------------------------------------------------------
    def lower(self, *args: P.args, **kwargs: P.kwargs) -> Lowered:
        """The program these arguments replay (traced now if the cache has none that holds)."""
        key, dynamic, leaves, treedef = self._key(args, kwargs)
        if key is None:
            raise TypeError("fgrad.compile(...).lower: the arguments include traced values; lower with arrays")
        for lowered in self._cache.get(key, ()):
            try:
                lowered.run(*dynamic)
            except Retrace:
                continue
            return lowered
        self._traced(None)
        lowered, _ = self._stage(args, kwargs, leaves, treedef, dynamic)
        self._keep(key, lowered)
        return lowered

    def cache_info(self) -> CacheInfo:
        """Hits, misses (a new kind of input or static value), retraces (a guard failed or a
        kernel raised), programs held, the bound, the latest reason; every trace counted, and
        the latest reasons (CacheInfo)."""
        size = sum(len(v) for v in self._cache.values())
        reasons = tuple(self._reasons)
        return CacheInfo(self._hits, self._misses, self._retraces, size, self.maxsize,
                         reasons[-1] if reasons else None, self._traces, reasons)

    def cache_clear(self) -> None:
        """Forget every program (and the constants they hold), the counts and the reasons."""
        self._cache.clear()
        self._hits = self._misses = self._retraces = self._traces = 0
        self._reasons.clear()


_FUSING = threading.Lock()  # (two threads replaying one program: one fuses it)


def _fused(p, mode):
    """Fuse `p` in place (compile/fusion.py); the head of Lowered.as_text() saying what was fused."""
    fused = fusion.fuse(p, mode)
    check_order(p)
    if fused:
        return "".join(f"# {k.label}: {k.text}\n" for k in fused)
    if importlib.util.find_spec("numba") is None:
        return "# fusion: numba is not installed (pip install fgrad[fast]); no step fused\n"
    return "# fusion: no region worth a kernel\n"


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


def compile(fun: Callable[P, R], static_argnums: int | Sequence[int] = (),
            static_argnames: str | Sequence[str] = (), fuse: bool | str = True) -> Compiled[P, R]:
    """Trace `fun` once per kind of input into a flat, optimized program, and replay it.

    `fun` may be any composition (grad, value_and_grad, jvp, vmap, hessian, custom rules,
    checkpoint). Arrays and NumPy scalars are traced, keyed by shape, dtype and device.
    Python numbers (float, int, bool, complex) are traced too, keyed by their type alone and
    weakly typed as in JAX: each kernel gets the number itself, so NumPy's promotion is kept
    (a float32 array times a Python float is float32), and a learning rate that changes on
    every call replays one program. Every value Python reads while tracing (`if lr > 0.1`,
    `float(lr)`, `range(n)`, `fnp.ones(n)`) becomes a guard: a new value there traces again.
    Other leaves (strings, objects), and the arguments named by static_argnums or
    static_argnames, are static: each value (hashable) gets its own program; mark an int
    static when it sets a shape or a trip count and takes few values.

    After `fgrad.config.retrace_warning_after` traces (8) a RetraceWarning names the
    argument and what changed; `cache_info()` keeps the reasons. See docs/compile.md.

    `fuse`: with numba installed (the `[fast]` extra), runs of elementwise steps of one shape
    become one numba-compiled loop each, with NumPy's results bit for bit (compile/fusion.py);
    "libm" fuses the transcendental functions too (sin, exp, ...: the C library's, which may
    differ from NumPy's own in the last bit); False fuses nothing. `Lowered.as_text()` says
    which steps were fused.

    Examples
    --------
    >>> f = fgrad.compile(lambda x: fnp.sum(x ** 2))
    >>> f(np.array([1.0, 2.0])), fgrad.grad(f)(np.array([1.0, 2.0]))
    (np.float64(5.0), array([2., 4.]))
    >>> fgrad.compile(lambda x: x * 2.0 + 1.0, fuse=False).lower(np.ones(3)).as_text().splitlines()[0]
    '# fusion off (fuse=False)'
    """
    return Compiled(fun, static_argnums, static_argnames, fuse=fuse)
