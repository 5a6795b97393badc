"""Fusion: runs of elementwise steps of one shape become one step, a numba-compiled loop.

A replayed elementwise step costs NumPy's ~1 us of dispatch however few values it has; a
loop that does a region's steps per element costs nanoseconds per step. `fuse` finds the
regions and replaces each by one `Eqn` of a `FusedKernel` (compile/numba_kernels.py writes
and compiles its loop). A step may join a region when its primitive declares `fuse`
(Primitive.fuse: "exact", or "libm" when asked), it is a one-result ufunc without
parameters, NumPy's loop for its operands is float32/float64 or bool (so no integer
overflow, whose warnings a loop would lose), and the underflow it may raise is ignored.

Regions. The steps are walked in order, one region open per output shape (a 0-d region is
a straight-line run of scalar steps). A step joins its shape's open region when each var it
reads was written before the region's first step or inside it: the fused step then sits
where the region's first step was, and every step between that reads a region's value finds
it written. Otherwise the region closes and a new one opens at the step. A region closes at
MAX_STEPS steps too (numba's compile time grows with the function). A region is kept from
MIN_STEPS steps (MIN_SCALAR_STEPS for scalars, where numba's ~1 us of dispatch must beat
NumPy scalar operators' ~0.2 us each). A call that had to run NumPy's steps (an operand the
kernel does not take, an inf or NaN) turns the kernel off for the program's later calls. Its
outputs are the values read after it: by other steps, guards or the program's outputs.

Note [fusing late]: numba's compile is slow (W1's first call, fused, 0.72 s against 12 ms
unfused, numba's import included: benchmarks/README.md; a later process loads the kernels
from numba's cache), while
fusion saves microseconds a replay: a program replayed a
few times would lose. So a program is traced, optimized and replayed unfused, and fused on its
FUSE_AFTER-th replay (compile/api.py: Lowered.fuse), once it has shown it runs often; its later
replays run the fused code. `Lowered.fuse()` fuses at once, and FUSE_AFTER = 0 when traced.

Note [fused results are NumPy's]: each step in the loop calls its own ufunc on operands cast
to the loop dtypes NumPy resolves for it (`ufunc.resolve_dtypes`, Python numbers weak), so the
results are NumPy's bit for bit for the "exact" ufuncs (IEEE-rounded arithmetic; numba's
LLVM code neither contracts a * b + c into a fused multiply-add nor uses fast-math:
tests/compile/test_fusion.py checks both). Floating-point errors: the loop tracks whether
any float it made is infinite or NaN; if so, the call runs the region's steps through NumPy
instead, which gives the same values and warns or raises as np.errstate says. Underflow is
not seen that way, so a step traced under np.errstate(under=...) other than "ignore" is not
fused. Arrays come back C-contiguous, as NumPy's loop makes them from C-contiguous operands;
a fused kernel is compiled for C-contiguous arrays only, and any other operand runs the
NumPy steps.
"""
import numpy as np

from ..backend import CPU
from .fused import FusedKernel, loop_dtypes
from .program import Eqn, Guard

__all__ = ["FUSE_AFTER", "MAX_STEPS", "MIN_SCALAR_STEPS", "MIN_STEPS", "FusedKernel", "fuse", "regions"]

FUSE_AFTER = 100       # a program is fused on its 100th replay (0: when traced): Note [fusing late]
MAX_STEPS = 400        # steps per fused kernel at most: a longer region is split
MIN_STEPS = 4          # an array region from four (W1 at 16 values: 2 made 48 kernels, slower than none)
MIN_SCALAR_STEPS = 32  # a scalar region from 32 (W5's 9-step regions ran slower fused: benchmarks/README.md)

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_LOOP_DTYPES = frozenset(_FLOATS + (np.dtype(bool),))


def regions(p, mode="exact"):
    """[(index of its first step, [its Eqns])] of `p`'s regions worth a kernel, in order (no
    numba needed). `mode`: "exact" takes the primitives declared fuse="exact", "libm" those
    declared "libm" too."""
    if np.geterr()["under"] != "ignore":
        return []  # (steps traced without their own errstate run under this one: underflow it cannot see)
    return _regions(p, ("exact", "libm") if mode == "libm" else ("exact",))


def fuse(p, mode="exact"):
    """Fuse `p`'s regions (in place: p.body); the FusedKernels made, in order. Without numba,
    or with no region worth a kernel, `p` is left as it is (and [] returned)."""
    found = regions(p, mode)
    if not found:
        return []
    try:
        from . import numba_kernels  # (numba is imported here, on the first program with a region)
    except ImportError:
        return []
    kept = _kept_outputs(p, found)
    fused, body, starts = [], [], {r[0]: r for r in found}
    members = {id(s) for r in found for s in r[1]}
    for i, step in enumerate(p.body):
        region = starts.get(i)
        if region is not None and kept[i]:  # (a region nothing reads is dead steps)
            kernel, ins, outs = numba_kernels.fused_kernel(p, region[1], kept[i], f"fused{len(fused)}")
            fused.append(kernel)
            body.append(Eqn(kernel, {}, ins, outs))
        if id(step) not in members:
            body.append(step)
    p.body = body
    return fused


def _fusable(p, step, kinds):
    """The region shape of `step` if it may join one, else None."""
    if step.__class__ is not Eqn:
        return None
    prim = step.prim
    if getattr(prim, "fuse", None) not in kinds or step.params:
        return None
    ufunc = prim.impl
    if not isinstance(ufunc, np.ufunc) or ufunc.nout != 1 or len(step.outs) != 1 or ufunc.nin != len(step.ins):
        return None
    if step.errstate is not None and step.errstate["under"] != "ignore":
        return None
    shape, dtype, where = p.avals[step.outs[0]]
    if where[1] is not CPU and where[1] != CPU:
        return None
    if not (where[0] is np.ndarray if shape else issubclass(where[0], np.generic)):
        return None
    loop = loop_dtypes(p, step)
    if loop is None or loop[-1] != dtype or not _LOOP_DTYPES.issuperset(loop):
        return None
    if prim.fuse == "libm" and any(d != np.float64 for d in loop):  # (float32 libm calls differ more: module doc)
        return None
    return shape


def _regions(p, kinds):
    """[(index of the first step, [its Eqns])] of the regions worth a kernel."""
    written = {}  # var -> index of the step that wrote it
    open_, done = {}, []  # shape -> [start, steps, vars written inside]
    for i, step in enumerate(p.body):
        shape = _fusable(p, step, kinds)
        if shape is None:
            if step.__class__ is Eqn:
                for o in step.outs:
                    written[o] = i
            continue
        region = open_.get(shape)
        if region is not None and len(region[1]) < MAX_STEPS and all(
                v in region[2] or written.get(v, -1) < region[0] for v in step.vars_read()):
            region[1].append(step)
        else:
            if region is not None:
                done.append(region)
            region = open_[shape] = [i, [step], set()]
        region[2].add(step.outs[0])
        written[step.outs[0]] = i
    done.extend(open_.values())
    least = {(): MIN_SCALAR_STEPS}
    kept = [(start, steps) for start, steps, _ in done
            if len(steps) >= least.get(p.avals[steps[0].outs[0]][0], MIN_STEPS)]
    kept.sort(key=lambda r: r[0])
    return kept


def _kept_outputs(p, regions):
    """start -> the vars its region writes that something outside it reads, in order."""
    member_of = {}
    for start, steps in regions:
        for s in steps:
            member_of[id(s)] = start
    outside = {v for v in p.outvars if v.__class__ is int}
    reads = {}
    for step in p.body:
        here = member_of.get(id(step)) if step.__class__ is not Guard else None
        for v in step.vars_read():
            reads.setdefault(v, set()).add(here)
    kept = {}
    for start, steps in regions:
        made = [s.outs[0] for s in steps]
        kept[start] = [v for v in made if v in outside or any(r != start for r in reads.get(v, ()))]
    return kept
