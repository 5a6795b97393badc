"""One workload in one process: every implementation checked, then timed interleaved.

Started by benchmarks/run.py as `python -m benchmarks.worker --workload W1 ...` with the
environment of benchmarks/env.py. It writes JSON lines to --out as it goes (an "env"
record, a "plan", then one "case" record per case), so a crash loses only what was running.

Protocol per case: each implementation is set up, called once and its result compared with
the NumPy reference (a mismatch or an exception is FAILED and never timed); a second call
sizes the inner loop (`number` calls take about --min-time seconds); then --rounds rounds
run every implementation in turn, the order rotated each round, and each round's ratio is
taken to the baseline measured in that same round.
"""
import argparse
import gc
import json
import sys
import time
import traceback

from . import env as benv

# Implementations whose calls take longer than this many seconds get fewer rounds.
SLOW_CALL_S = {"full": 1.0, "quick": 0.3, "test": 0.3}
SLOW_ROUNDS = {"full": 3, "quick": 2, "test": 1}
# A first call shorter than this is followed by a second, which sizes the inner loop.
CALIBRATE_MAX_S = 3.0
# Past this, the single verified call is the only timing (one run, like the 1e6-op chain).
ONE_RUN_S = 20.0

# Not attempted, with the reason printed in the table: measured here, not guessed.
SKIPS = {
    ("W5", "jax.jit"): "not run: XLA compile of the unrolled chain grows superlinearly "
                       "(2.8 s at 1,000 ops, 25 s at 4,000 ops)",
}


def _emit(fh, record):
    fh.write(json.dumps(record) + "\n")
    fh.flush()


def _short(exc):
    msg = str(exc).strip().splitlines()
    msg = msg[0] if msg else ""
    if len(msg) > 160:
        msg = msg[:157] + "..."
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def _time(fn, number):
    """(wall, cpu) seconds per call. CPU time is this process's: on a shared machine it
    leaves out the time other processes took the core; the table reports wall time by default."""
    gc.collect()
    c0 = time.process_time()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    t1 = time.perf_counter()
    c1 = time.process_time()
    return (t1 - t0) / number, (c1 - c0) / number


def run_case(case, impls, args, log, per_op=None):
    """Check, then time, every implementation on `case`; `per_op` (impl -> seconds per op in
    an earlier case of this workload) lets a peer skip a run estimated past --big-budget."""
    from . import peers
    from .workloads import check_close
    scale = args.scale
    res = {}          # impl -> record
    runners = {}      # impl -> callable, for those that passed the check
    for impl in impls:
        name = impl.name
        rec = {"impl": name, "note": impl.note}
        module = peers.PEER_MODULES.get(name)
        if case.only is not None and name not in case.only and not (args.big_peers and module):
            if module is not None:
                res[name] = dict(rec, status="skipped",
                                 reason="this run is for fgrad (python -m benchmarks --big-peers tries the peers)")
            continue
        est = (per_op or {}).get(name, 0.0) * (case.ops or 0)
        if case.single_run and module is not None and est > args.big_budget:
            res[name] = dict(rec, status="skipped",
                             reason=f"not run: about {est:.0f} s at its rate in the smaller case "
                                    f"(over --big-budget {args.big_budget:.0f} s)")
            continue
        if (case.workload, name) in SKIPS:
            res[name] = dict(rec, status="skipped", reason=SKIPS[(case.workload, name)])
            continue
        if module is not None:
            why = peers.import_status(module)
            if why:
                res[name] = dict(rec, status="not installed", reason=why)
                continue
        try:
            fn = impl.setup(case)
        except Exception as e:
            res[name] = dict(rec, status="FAILED", reason="setup: " + _short(e))
            continue
        if fn is None:      # the implementation does not exist for this workload (numpy f(x))
            continue
        if isinstance(fn, str):
            res[name] = dict(rec, status="n/a", reason=fn)
            continue
        log(f"  {case.label}: {name} check")
        try:
            c0 = time.process_time()
            t0 = time.perf_counter()
            out = fn()
            first = time.perf_counter() - t0
            first_cpu = time.process_time() - c0
            err = check_close(peers.to_numpy(out), case.reference_for(name), case.rtol, case.atol)
        except RecursionError as e:
            res[name] = dict(rec, status="cannot", reason=_short(e))
            continue
        except MemoryError as e:
            res[name] = dict(rec, status="cannot", reason=_short(e))
            continue
        except Exception as e:
            res[name] = dict(rec, status="FAILED", reason=_short(e),
                             traceback=traceback.format_exc(limit=-6))
            continue
        finally:
            out = None
        if err:
            res[name] = dict(rec, status="FAILED", reason="wrong result: " + err)
            continue
        rec["first_call_s"] = first
        if case.single_run or first > ONE_RUN_S:
            res[name] = dict(rec, status="ok", times=[first], cpu_times=[first_cpu], number=1, rounds=1,
                             single_run=True)
            continue
        res[name] = dict(rec, status="ok")
        runners[name] = fn

    # size the inner loop of each implementation
    plan = {}
    for name, fn in runners.items():
        t = res[name]["first_call_s"]
        if t < CALIBRATE_MAX_S:     # the first call may include one-off costs (jit, imports)
            try:                    # the fastest of a few calls: one call may be preempted
                spent, best = 0.0, float("inf")
                for _ in range(5):
                    one = _time(fn, 1)[0]
                    best, spent = min(best, one), spent + one
                    if spent > args.min_time:
                        break
                t = best
            except Exception as e:
                res[name].update(status="FAILED", reason="second call: " + _short(e))
                continue
        number = max(1, int(args.min_time / max(t, 1e-9)))
        rounds = args.rounds if t < SLOW_CALL_S[scale] else min(args.rounds, SLOW_ROUNDS[scale])
        plan[name] = (fn, number, rounds)
        res[name].update(number=number, rounds=rounds, times=[None] * args.rounds, cpu_times=[None] * args.rounds)

    if args.gc_freeze:
        # Everything that exists before the rounds (imported libraries, inputs, jit caches)
        # leaves the collector's view: a full collection then costs what the timed call
        # allocates, not what the other peers loaded into this process. GC stays enabled.
        gc.collect()
        gc.freeze()
    names = list(plan)
    for r in range(args.rounds):
        k = r % max(1, len(names))
        order = names[k:] + names[:k]
        if r % 2:
            order.reverse()
        log(f"  {case.label}: round {r + 1}/{args.rounds}")
        for name in order:
            fn, number, rounds = plan[name]
            if r >= rounds or res[name]["status"] != "ok":
                continue
            try:
                res[name]["times"][r], res[name]["cpu_times"][r] = _time(fn, number)
            except Exception as e:
                res[name].update(status="FAILED", reason=f"round {r + 1}: " + _short(e))

    for key, ratio_key in (("times", "ratios"), ("cpu_times", "cpu_ratios")):
        raw = {name: list(rec[key]) for name, rec in res.items() if rec["status"] == "ok" and rec.get(key)}
        base = raw.get(case.baseline)
        for name, rec in res.items():
            if name not in raw:
                rec.pop(key, None)
                continue
            times = raw[name]
            rec[key] = [t for t in times if t is not None]
            rec[ratio_key] = [t / b for t, b in zip(times, base or ()) if t is not None and b is not None]
    runners.clear()
    plan.clear()
    gc.collect()
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--workload", required=True)
    p.add_argument("--scale", default="full", choices=("full", "quick", "test"))
    p.add_argument("--rounds", type=int, default=11)
    p.add_argument("--min-time", type=float, default=0.05)
    p.add_argument("--impl", default="")
    p.add_argument("--big-peers", action="store_true")
    p.add_argument("--no-gc-freeze", dest="gc_freeze", action="store_false")
    p.add_argument("--big-budget", type=float, default=120.0)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)

    notes = benv.pin_threads()      # before JAX is imported anywhere
    from . import checked, floor, peers
    from . import workloads as wl
    for module in sorted(set(peers.PEER_MODULES.values())) + ["fgrad", "fgrad.numpy"]:
        peers.import_status(module)     # every library is loaded before anything is timed
    for module in ("autograd.numpy", "torch.func", "torch.autograd.functional", "jax.numpy"):
        if peers.import_status(module.split(".")[0]) is None:
            peers.import_status(module)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    with open(args.out, "a") as fh:
        blas = benv.blas_info()
        _emit(fh, {"kind": "env", "workload": args.workload, "versions": benv.versions(), "blas": blas,
                   "numpy_blas": benv.numpy_blas(blas), "machine": benv.machine(), "notes": notes,
                   "gc": "enabled; gc.freeze() before each case's rounds" if args.gc_freeze else "enabled, not frozen"})
        cases = wl.make_cases(args.workload, args.scale)
        _emit(fh, {"kind": "plan", "workload": args.workload, "cases": [c.label for c in cases]})
        impls = wl.numpy_impls() + floor.floor_impls() + checked.checked_impls() + wl.fgrad_impls() + peers.peer_impls()
        wanted = {s.strip() for s in args.impl.split(",") if s.strip()}
        per_op = {}
        for case in cases:
            chosen = [i for i in impls if not wanted or i.name in wanted or i.name == case.baseline]
            log(f"{case.label}")
            res = run_case(case, chosen, args, log, per_op)
            if case.ops:
                for name, rec in res.items():
                    if rec.get("status") == "ok" and rec.get("times"):
                        per_op[name] = sorted(rec["times"])[len(rec["times"]) // 2] / case.ops
            _emit(fh, {"kind": "case", "workload": case.workload, "case": case.label, "name": case.name,
                       "baseline": case.baseline, "ops": case.ops, "single_run": case.single_run,
                       "results": [res[i.name] for i in chosen if i.name in res]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
