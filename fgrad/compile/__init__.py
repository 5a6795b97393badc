"""fgrad.compile: a composition traced once into a flat program, replayed on later calls.

The pipeline, once through (docs/compile.md is the user's page):

1. Stage (staging.py). The first call for some input avals runs the function under
   `StageTrace`, the bottom of the trace stack: every kernel that any transform above
   computes, forward or backward, runs (Python may look at the values) and is appended as
   an `Eqn`; every value Python reads is appended as a `Guard` (Note [reading values while
   compiling] in ir/value.py).
2. Program (program.py). What staging recorded: numbered vars, the constants the
   function closed over, the Eqns and Guards in execution order, the outputs. It prints
   one line a step and exports to networkx and DOT (`Lowered`).
3. Optimize (optimize.py). A new Program: steps of constants folded, `x * 1` and `x - 0`
   folded, equal steps computed once, dead steps dropped, scalar literals made 0-d
   arrays; the results are the same bit for bit.
3b. Fuse (fusion.py, numba_kernels.py; numba, the `[fast]` extra). On a program's 100th
   replay, runs of elementwise steps of one shape become numba-compiled loops, with NumPy's
   results bit for bit (Note [fusing late], Note [fused results are NumPy's]).
4. Generate (codegen.py). The Program as straight-line Python source, one statement a step
   (`del` after a value's last use, `out=` into a dead buffer no view can see), compiled
   with Python's `compile()`; in chunks when long, a loop over the steps beyond LOOP_LIMIT.
5. Replay (api.py). `Compiled` keys its cache by the inputs' avals (a Python number by its
   type: it is traced weakly, Note [weak values] in ir/value.py), pytree structure and
   static arguments; a later call with the same key runs the generated function. A failed
   guard (`Retrace`) or a kernel that raises abandons the replay, and the call is traced
   again (Note [a kernel that raises on replay]).

- api.py: `compile`, `Compiled` (the cache and the call), `Lowered` (one traced program), `CacheInfo`.
- side_effects.py: `SideEffectWatch`: a print or an np.random draw while traced warns once (SideEffectWarning).
- explain.py: why a call traced again, naming the argument path (`args[1]['lr']`) and what changed; RetraceWarning.
- progress.py: `TraceProgress`: a tqdm bar for a trace past 2 s, on a terminal.
- staging.py: `StageTrace`, the staging trace that records every kernel into a Program.
- program.py: `Program`, `Eqn`, `Guard`, `Literal`: the flat list of kernel calls traced once.
- optimize.py: the passes over a staged Program (folding, common subexpressions, dead code).
- fusion.py: regions of elementwise steps, each replaced by one fused step (`FusedKernel`).
- fused.py: `FusedKernel`, a fused step's primitive, and `loop_dtypes`, NumPy's loop for a step.
- numba_kernels.py: a region's numba loop: its source, compiled with numba's cache; imports numba.
- codegen.py: a Program written as Python source calling the kernels, or run as a loop.

The layer: above transforms (it uses their pytrees and checks), below numpy; nothing below
imports it (tests/test_layers.py). `StageTracer`, the staging trace's value, lives in
ir/value.py with the other traced values, because ops test for it.

`fgrad.compile` is the function: fgrad/__init__.py binds it over this package's name. Reach
the modules with `from fgrad.compile import codegen` or `from fgrad.compile.api import
Compiled`; `fgrad.compile.codegen` and `import fgrad.compile.codegen as m` find the function.
"""
