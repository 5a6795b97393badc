"""The numba backend of fusion: a region's steps as one numba-compiled loop (compile/fusion.py).

Importing this module imports numba (the `[fast]` extra); compile/fusion.py imports it only
when a program has a region worth a kernel, so `import fgrad` does not load numba.

A region's kernel is Python source written here, one line a step, each step its own ufunc
called inside `numba.njit` (numba compiles NumPy's ufuncs on scalars) on operands cast to
the loop dtypes NumPy resolves (Note [fused results are NumPy's] in compile/fusion.py). For
an array region the lines sit in nested loops over the output's shape, a broadcast operand
indexed at 0 along the axes it broadcasts; a scalar region is the lines alone. The kernel
returns the region's outputs and whether any float it made was infinite or NaN (then the
NumPy steps run instead: fusion.py's Note).

Compiling. The source is written once to a file named by its hash under CACHE_DIR and
compiled with `njit(signature, cache=True)`, so a later process loads the machine code
from numba's cache instead of compiling it again; in one process, equal sources share one
compiled kernel (the W5 chain's regions repeat, and are compiled once). Where CACHE_DIR
cannot be written, kernels are compiled without the cache.
"""
import hashlib
import importlib.util
import os
import sys

import numba
import numpy as np

from ..ir.value import WEAK_TYPES
from .codegen import generate
from .fused import FusedKernel, loop_dtypes
from .program import Program

__all__ = ["CACHE_DIR", "fused_kernel"]

CACHE_DIR = os.environ.get("FGRAD_CACHE_DIR") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fgrad", "fused")

_COMPILED = {}  # (source, signature) -> the compiled kernel, for this process
_NAMES = {np.dtype(np.float64): "np.float64", np.dtype(np.float32): "np.float32", np.dtype(bool): "np.bool_"}
_ERRORS = (TypeError, ValueError, OverflowError)  # (an operand the signature does not take: NumPy's steps run)


def fused_kernel(p, steps, outs, name):
    """(the FusedKernel of `steps` of program `p`, the vars it reads, `outs`: those it returns)."""
    shape = p.avals[steps[0].outs[0]][0]
    ins, inline = _operands(p, steps)
    source, signature = _source(p, steps, outs, ins, inline, shape)
    kernel = _compiled(source, signature)
    numpy_steps = _NumpySteps(p, steps, ins, outs, inline)
    impl = _wrapper(kernel, numpy_steps, [p.avals[v] for v in outs], ins, name)
    text = "; ".join(p.step_text(s) for s in steps)
    ops = ", ".join(dict.fromkeys(s.prim.name for s in steps))
    label = f"{name} = numba kernel of {len(steps)} steps ({ops})"
    return FusedKernel(name, label, impl, steps, text, source), tuple(_writable(p, v) for v in ins), tuple(outs)


def _writable(p, v):
    """`v`, or for a constant array (read-only while the program lives) a new constant holding
    a writable copy of it: numba's dispatch types a read-only array slowly (~50 us), then refuses
    it (the kernel never writes its operands, and the copy is the kernel's alone)."""
    c = p.consts.get(v)
    if c is None or c.__class__ is not np.ndarray or c.flags.writeable:
        return v
    new = p.next_var
    p.next_var += 1
    p.consts[new], p.avals[new] = c.copy(), p.avals[v]
    return new


def _operands(p, steps):
    """(the vars the region reads from outside, in order of first use; its 0-d constants,
    written into the source as numbers)."""
    inside = {s.outs[0] for s in steps}
    ins, inline = {}, {}
    for s in steps:
        for a in s.vars_read():
            if a in inside or a in ins or a in inline:
                continue
            c = p.consts.get(a)
            if c is not None and getattr(c, "ndim", None) == 0:
                inline[a] = c[()]
            else:
                ins[a] = None
    return list(ins), inline


def _number(value, dtype):
    """Source for the scalar `value` cast to `dtype` (np.float64(0.25), np.float32(np.inf))."""
    v = float(value) if dtype.kind == "f" else bool(value)
    if v != v:
        text = "-np.nan" if np.signbit(value) else "np.nan"
    elif v in (np.inf, -np.inf):
        text = "np.inf" if v > 0 else "-np.inf"
    else:
        text = repr(v)
    return f"{_NAMES[dtype]}({text})"


def _operand_type(aval):
    """numba's type for an operand of aval (shape, dtype, (class, device))."""
    shape, dtype, (cls, _) = aval
    if cls in WEAK_TYPES:
        return numba.typeof(cls(0))
    if cls is np.ndarray:
        return numba.types.Array(numba.from_dtype(dtype), len(shape), "C")
    return numba.from_dtype(dtype)


def _source(p, steps, outs, ins, inline, shape):
    """(the kernel's Python source, its numba signature)."""
    arg = {v: f"a{k}" for k, v in enumerate(ins)}
    # (names by position, not by var: regions of one structure, the W5 chain's, share one kernel)
    tmp = {s.outs[0]: f"t{k}" for k, s in enumerate(steps)}
    nd = len(shape)
    index = ", ".join(f"i{d}" for d in range(nd))

    def load(a, dtype):
        """Operand `a` of a step, cast to its loop dtype."""
        if a.__class__ is not int:
            return _number(a.value, dtype)
        if a in inline:
            return _number(inline[a], dtype)
        if a not in arg:
            return tmp[a]  # (made inside the region: already of its step's output dtype)
        ashape, adtype, (cls, _) = p.avals[a]
        if cls is np.ndarray:
            k = len(ashape)  # (its axes line up with the output's last k)
            at = [f"i{nd - k + j}" if ashape[j] == shape[nd - k + j] else "0" for j in range(k)]
            expr = f"{arg[a]}[{', '.join(at) if k else '()'}]"
        else:
            expr = arg[a]
        same = (cls is float and dtype == np.float64) or (cls is bool and dtype == np.bool_) or \
            (cls not in WEAK_TYPES and adtype == dtype)
        return expr if same else f"{_NAMES[dtype]}({expr})"

    lines = []
    for s in steps:
        loop = loop_dtypes(p, s)
        args = ", ".join(load(a, d) for a, d in zip(s.ins, loop))
        o = s.outs[0]
        lines.append(f"{tmp[o]} = np.{s.prim.impl.__name__}({args})")
        if loop[-1].kind == "f":
            lines.append(f"if not np.isfinite({tmp[o]}): bad = True")
    head = ["bad = False"]
    params = [arg[v] for v in ins]
    if nd:  # (the outputs come in allocated: numba's boxing of returned arrays costs ~2 us each)
        params += [f"o{k}" for k in range(len(outs))]
        head += [f"n{d} = o0.shape[{d}]" for d in range(nd)]
        lines += [f"o{k}[{index}] = {tmp[v]}" for k, v in enumerate(outs)]
        for d in reversed(range(nd)):
            lines = [f"for i{d} in range(n{d}):"] + ["    " + line for line in lines]
        body = head + lines + ["return bad"]
        out_types = [numba.types.Array(numba.from_dtype(p.avals[v][1]), nd, "C") for v in outs]
        signature = numba.types.boolean(*[_operand_type(p.avals[v]) for v in ins], *out_types)
    else:
        body = head + lines + [f"return {', '.join([tmp[v] for v in outs] + ['bad'])}"]
        out_types = [numba.from_dtype(p.avals[v][1]) for v in outs]
        signature = numba.types.Tuple(out_types + [numba.types.boolean])(*[_operand_type(p.avals[v]) for v in ins])
    source = ("import numpy as np\n\n\ndef kernel(" + ", ".join(params) + "):\n"
              + "".join(f"    {line}\n" for line in body))
    return source, signature


def _compiled(source, signature):
    """The njit-compiled `kernel` of `source`, from this process's table, numba's cache, or compiled now."""
    key = (source, str(signature))
    kernel = _COMPILED.get(key)
    if kernel is None:
        kernel = _COMPILED[key] = _njit(source, signature)
    return kernel


def _njit(source, signature):
    name = "fgrad_fused_" + hashlib.sha1(source.encode()).hexdigest()[:20]
    path = os.path.join(CACHE_DIR, name + ".py")
    options = {"error_model": "numpy", "nogil": True}  # (no fastmath: Note [fused results are NumPy's])
    try:
        if not os.path.exists(path):
            os.makedirs(CACHE_DIR, exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                f.write(source)
            os.replace(tmp, path)  # (atomic: another process may write the same file; its mtime keys numba's cache)
        spec = importlib.util.spec_from_file_location(name, path)
        module = sys.modules.get(name)
        if module is None:  # (in sys.modules: numba's cache finds the kernel's globals by the module's name)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
        return numba.njit(signature, cache=True, **options)(module.kernel)
    except OSError:  # (an unwritable cache directory: compile in memory)
        namespace = {"np": np}
        exec(compile(source, f"<fgrad fused {name}>", "exec"), namespace)
        return numba.njit(signature, **options)(namespace["kernel"])


class _NumpySteps:
    """The region's steps as the unfused program runs them (compile/codegen.py), generated on
    the first call that needs them (most programs never do: a trace stays cheap)."""

    __slots__ = ("program", "run")

    def __init__(self, p, steps, ins, outs, inline):
        used = set(ins) | set(inline) | {v for s in steps for v in s.outs}
        self.program = Program(list(ins), {v: p.consts[v] for v in inline}, list(steps), list(outs),
                               {v: p.avals[v] for v in used}, [f"%{v}" for v in ins])
        self.run = None

    def __call__(self, *args):
        if self.run is None:
            self.run = generate(self.program, "numpy_steps")[0]
        return self.run(*args)


_WRAPPERS = {}  # wrapper source -> its code, compiled once per process


def _wrapper(kernel, numpy_steps, out_avals, ins, name):
    """impl of the fused step: the kernel's results (scalars made the NumPy scalars the steps
    make), or the NumPy steps' where the kernel cannot take an operand or met an inf or NaN (and
    from then on)."""
    params = ", ".join(f"a{k}" for k in range(len(ins)))
    ns = {"kernel": kernel, "numpy_steps": numpy_steps, "_ERRORS": _ERRORS, "empty": np.empty, "off": [False]}
    # (after one call through NumPy's steps, the later ones go there at once: an operand of another
    # layout or a NaN tends to come again, and a refused call costs numba's slow typing each time)
    fallback = f"        off[0] = True\n        return numpy_steps({params})\n"
    first = f"    if off[0]:\n        return numpy_steps({params})\n"
    if out_avals[0][0]:  # (an array region: the outputs allocated here, written by the kernel)
        outs = [f"o{k}" for k in range(len(out_avals))]
        for k, (_, dtype, _) in enumerate(out_avals):
            ns[f"d{k}"] = dtype
        source = (f"def {name}({params}):\n" + first
                  + "".join(f"    o{k} = empty({shape!r}, d{k})\n" for k, (shape, _, _) in enumerate(out_avals))
                  + f"    try:\n        bad = kernel({', '.join([f'a{k}' for k in range(len(ins))] + outs)})\n"
                  f"    except _ERRORS:\n{fallback}    if bad:\n{fallback}"
                  f"    return ({''.join(o + ', ' for o in outs)})\n")
    else:  # (a scalar region: the kernel's numbers made the NumPy scalars the steps make)
        results = [f"r{k}" for k in range(len(out_avals))]
        for k, (_, dtype, _) in enumerate(out_avals):
            ns[f"box{k}"] = dtype.type
        source = (f"def {name}({params}):\n" + first +
                  f"    try:\n        {', '.join(results + ['bad'])} = kernel({params})\n"
                  f"    except _ERRORS:\n{fallback}    if bad:\n{fallback}"
                  f"    return ({''.join(f'box{k}(r{k}), ' for k in range(len(out_avals)))})\n")
    code = _WRAPPERS.get(source)
    if code is None:
        code = _WRAPPERS[source] = compile(source, f"<fgrad.compile {name}>", "exec")
    exec(code, ns)
    return ns[name]
