"""The Lotka-Volterra fit's gradient (issue 32): fgrad eager and compiled against jax.jit, and
against hand-written NumPy (the floor of a solver that steps in Python with NumPy kernels).

    python -m benchmarks.odeint_fit [--rounds 30]
    python -m benchmarks.odeint_fit --instructions   # per gradient, callgrind: fgrad eager, NumPy floor

dx/dt = a x - b x y, dy/dt = -c y + d x y, y0 = (10, 5), t = linspace(0, 10, 50), the
loss the sum of squares of odeint(...) - data (data: the solution at (1, 0.1, 1.5, 0.075)),
its gradient in (a, b, c, d) at 1.05 times those, x64 and rtol = atol = 1.4e-8 (odeint's
defaults) everywhere. Each round calls every implementation once, at parameters that change
every round (so a compiled program that guards on them would retrace: its trace count is
printed), in turn; ratios are to jax.jit's time in the same round. Every gradient is checked
against jax.jit's first (rtol 1e-5: the solvers take the same steps, the sums differ in
rounding).

The NumPy floor is JAX's algorithm (Dormand-Prince 5(4), its step-size control, the adjoint
solved backward interval by interval) written for this field alone: the vector field, its
vector-Jacobian products by hand, one flat state, step-size control in Python floats. It
does no AD, no dispatch, no tracing: what each solver step costs when each stage is a few
NumPy calls. Field evaluations per gradient (forward solve, adjoint, t's cotangents) are
counted for each implementation: equal counts mean the same steps.
"""
import argparse
import time

from .env import pin_threads

__all__ = ["main", "numpy_grad"]

Y0 = (10.0, 5.0)
P_TRUE = (1.0, 0.1, 1.5, 0.075)
N_TIMES, T_END, TOL = 50, 10.0, 1.4e-8


# ---- the hand-written NumPy floor --------------------------------------------------------------------
_BETA = ((1 / 5,), (3 / 40, 9 / 40), (44 / 45, -56 / 15, 32 / 9),
         (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
         (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
         (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
_C_ERROR = (35 / 384 - 1951 / 21600, 0.0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
            -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1 / 60)


def _lv(np, y, p):
    x, z = y[0], y[1]
    return np.array([p[0] * x - p[1] * x * z, -p[2] * z + p[3] * x * z])


def _lv_adjoint(np, s, p):
    """d/ds of (y, y_bar, t0_bar, p_bar) in negated time, as one vector of 9 (fgrad's layout)."""
    x, z, a0, a1 = s[0], s[1], s[2], s[3]
    xz = x * z
    return np.array([-(p[0] * x - p[1] * xz), -(-p[2] * z + p[3] * xz),
                     a0 * (p[0] - p[1] * z) + a1 * p[3] * z, -a0 * p[1] * x + a1 * (p[3] * x - p[2]),
                     0.0, a0 * x, -a0 * xz, -a1 * z, a1 * xz])


def _solve(np, fun, y, ts, counter):
    """y at the times ts (floats), by JAX's dopri5 and step-size control; counter[0] += evaluations."""
    import math

    def f(v):
        counter[0] += 1
        return fun(v)
    f0 = f(y)
    scale = TOL + np.abs(y) * TOL
    d0, d1 = math.sqrt(np.sum((y / scale) ** 2)), math.sqrt(np.sum((f0 / scale) ** 2))
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    d2 = math.sqrt(np.sum(((f(y + h0 * f0) - f0) / scale) ** 2)) / h0
    h1 = max(1e-6, h0 * 1e-3) if d1 <= 1e-15 and d2 <= 1e-15 else (0.01 / max(d1, d2)) ** (1 / 6)
    t, dt, out = ts[0], min(100 * h0, h1), [y]
    for target in ts[1:]:
        while t < target:
            h = min(dt, target - t)
            ks = [f0]
            for beta in _BETA:
                ks.append(f(y + h * sum(b * k for b, k in zip(beta, ks) if b != 0.0)))
            y1 = y + h * sum(b * k for b, k in zip(_BETA[-1], ks) if b != 0.0)
            err = h * sum(c * k for c, k in zip(_C_ERROR, ks) if c != 0.0)
            ratio = math.sqrt(np.mean((err / (TOL + TOL * np.maximum(np.abs(y), np.abs(y1)))) ** 2))
            new = dt * 10.0 if ratio == 0 else h * min(10.0, max(0.9 * ratio ** -0.2, 1.0 if ratio < 1 else 0.2))
            if ratio <= 1.0:
                clipped = h >= target - t
                y, f0, t = y1, ks[-1], target if clipped else t + h
                dt = max(dt, new) if clipped else new
            else:
                dt = new
        out.append(y)
    return np.stack(out)


def numpy_grad(np, p, y0, ts, data, counter):
    """The loss's gradient in p by the adjoint method, as odeint's: fgrad's and JAX's algorithm."""
    ys = _solve(np, lambda v: _lv(np, v, p), y0, ts, counter)
    g = 2.0 * (ys - data)
    y_bar, t0_bar, p_bar = g[-1], 0.0, np.zeros(4)
    for i in range(len(ts) - 1, 0, -1):
        counter[0] += 1
        t0_bar -= float(_lv(np, ys[i], p) @ g[i])
        state = np.concatenate([ys[i], y_bar, [t0_bar], p_bar])
        state = _solve(np, lambda s: _lv_adjoint(np, s, p), state, (-ts[i], -ts[i - 1]), counter)[1]
        y_bar, t0_bar, p_bar = state[2:4] + g[i - 1], state[4], state[5:]
    return p_bar


# ---- fgrad and JAX -------------------------------------------------------------------------------------
def _fgrad_loss(fgrad, y0, ts, data, counter=None):
    fnp = fgrad.numpy
    from fgrad.scipy.integrate import odeint

    def lv(y, t, p):
        if counter is not None:
            counter[0] += 1
        x, z = y[0], y[1]
        return fnp.stack([p[0] * x - p[1] * x * z, -p[2] * z + p[3] * x * z])

    def loss(p):
        return fnp.sum((odeint(lv, y0, ts, p, rtol=TOL, atol=TOL) - data) ** 2)
    return loss


def _jax_loss(jax, y0, ts, data, counter=None):
    jnp = jax.numpy
    from jax.experimental.ode import odeint

    def lv(y, t, p):
        if counter is not None:
            jax.debug.callback(lambda: counter.__setitem__(0, counter[0] + 1))
        x, z = y[0], y[1]
        return jnp.stack([p[0] * x - p[1] * x * z, -p[2] * z + p[3] * x * z])

    def loss(p):
        return jnp.sum((odeint(lv, y0, ts, p, rtol=TOL, atol=TOL) - data) ** 2)
    return loss


def _fgrad_evaluations(fgrad, np, y0, ts, data, p):
    """Field evaluations of one fgrad gradient, run eagerly (a replayed program calls no Python)."""
    from fgrad.scipy import integrate
    counter, kept = [0], (integrate._RETRACES, integrate._staged)
    integrate._RETRACES, integrate._staged = 0, lambda fun: fun  # (every solver and field eager)
    try:
        fgrad.grad(_fgrad_loss(fgrad, y0, ts, data, counter))(p)
    finally:
        integrate._RETRACES, integrate._staged = kept
    return counter[0]


def _timed(calls, rounds, params):
    """{name: [seconds per round]}, the calls interleaved, the order rotated each round."""
    times = {k: [] for k in calls}
    names = list(calls)
    for r in range(rounds):
        p = params(r)
        for k in names[r % len(names):] + names[:r % len(names)]:
            start = time.perf_counter()
            calls[k](p)
            times[k].append(time.perf_counter() - start)
    return times


def _problem(fgrad, np):
    """(y0, ts, data, the parameters the gradient is taken at)."""
    from fgrad.scipy.integrate import odeint
    fnp = fgrad.numpy
    y0, ts = np.array(Y0), np.linspace(0.0, T_END, N_TIMES)
    data = np.asarray(odeint(lambda y, t, p: fnp.stack([p[0] * y[0] - p[1] * y[0] * y[1],
                                                        -p[2] * y[1] + p[3] * y[0] * y[1]]),
                             y0, ts, np.array(P_TRUE), rtol=TOL, atol=TOL))
    return y0, ts, data, 1.05 * np.array(P_TRUE)


def _run_calls(impl, calls):
    """(under callgrind) two warm-up gradients of `impl` (fgrad or numpy), then `calls` more."""
    import numpy as np

    import fgrad
    y0, ts, data, p0 = _problem(fgrad, np)
    if impl == "fgrad":
        eager = fgrad.grad(_fgrad_loss(fgrad, y0, ts, data))
        call = lambda: eager(p0)  # noqa: E731
    else:
        call = lambda: numpy_grad(np, p0, y0, ts, data, [0])  # noqa: E731
    for _ in range(2 + calls):
        call()


def _instructions(impl, calls=2):
    """Instructions of one gradient, by benchmarks.instructions' method (K calls less none, over K)."""
    import os
    import sys

    from .instructions import PINNED, _no_randomisation, collected

    def count(k):
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            command = _no_randomisation() + ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out",
                                             sys.executable, "-m", "benchmarks.odeint_fit", "--run-calls", impl,
                                             str(k)]
            done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **PINNED})
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
            return collected(done.stderr)
    return (count(calls) - count(0)) / calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--instructions", action="store_true",
                        help="instructions per gradient of fgrad eager and the NumPy floor (callgrind), not times")
    parser.add_argument("--run-calls", nargs=2, metavar=("IMPL", "K"), help="(internal) the calls callgrind counts")
    opts = parser.parse_args(argv)
    if opts.run_calls:
        return _run_calls(opts.run_calls[0], int(opts.run_calls[1]))
    if opts.instructions:
        for impl in ("fgrad", "numpy"):
            print(f"{impl}: {_instructions(impl):,.0f} instructions per gradient")
        return None
    pin_threads()
    import jax
    import jax.numpy as jnp
    import numpy as np

    import fgrad

    y0, ts, data, p0 = _problem(fgrad, np)
    eager = fgrad.grad(_fgrad_loss(fgrad, y0, ts, data))
    compiled = fgrad.compile(fgrad.grad(_fgrad_loss(fgrad, y0, ts, data)))
    jitted = jax.jit(jax.grad(_jax_loss(jax, jnp.asarray(y0), jnp.asarray(ts), jnp.asarray(data))))
    floor_count = [0]
    calls = {"jax.jit": lambda p: np.asarray(jitted(p).block_until_ready()),
             "fgrad": lambda p: np.asarray(eager(p)),
             "fgrad.compile": lambda p: np.asarray(compiled(p)),
             "numpy floor": lambda p: numpy_grad(np, p, y0, ts, data, floor_count)}
    first, got = {}, {}
    for k, call in calls.items():  # (the first calls: jit's and fgrad.compile's traces, the solvers' programs)
        start = time.perf_counter()
        got[k] = call(p0)
        first[k] = time.perf_counter() - start
    for k in calls:
        np.testing.assert_allclose(got[k], got["jax.jit"], rtol=1e-5, err_msg=k)

    counts = {"numpy floor": floor_count[0]}
    floor_count[0] = 0
    numpy_grad(np, p0, y0, ts, data, floor_count)
    counts["numpy floor"] = floor_count[0]
    counts["fgrad"] = _fgrad_evaluations(fgrad, np, y0, ts, data, p0)
    jax_count = [0]
    jax.jit(jax.grad(_jax_loss(jax, jnp.asarray(y0), jnp.asarray(ts), jnp.asarray(data), jax_count)))(p0)
    jax.effects_barrier()
    counts["jax.jit"] = jax_count[0]

    times = _timed(calls, opts.rounds, lambda r: p0 * (1.0 + 1e-3 * (r % 7)))
    jit = np.asarray(times["jax.jit"])
    print(f"Lotka-Volterra fit, gradient of the loss in 4 parameters, {N_TIMES} output times, rtol = atol = {TOL}; "
          f"{opts.rounds} rounds")
    print(f"{'impl':<15}{'best ms':>10}{'median ms':>11}{'x jit (median of same-round)':>30}"
          f"{'first call s':>14}{'field evals':>13}")
    for k, v in times.items():
        v = np.asarray(v)
        print(f"{k:<15}{1e3 * v.min():>10.3f}{1e3 * np.median(v):>11.3f}{np.median(v / jit):>30.1f}"
              f"{first[k]:>14.3f}{counts.get(k, '(as fgrad)'):>13}")
    info = compiled.cache_info()
    print(f"fgrad.compile: {info.traces} trace(s) over {opts.rounds + 1} calls at {min(7, opts.rounds)} "
          f"parameter values (retraces {info.retraces})")


if __name__ == "__main__":
    main()
