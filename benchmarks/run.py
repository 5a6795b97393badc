"""Run the benchmark suite: one process per workload, a Markdown table, a JSON record.

    python -m benchmarks                      # everything, full sizes (several minutes)
    python -m benchmarks --quick              # few rounds, small sizes where allowed
    python -m benchmarks --only W1,W3 --impl fgrad,numpy

Each workload runs in its own subprocess (benchmarks/worker.py) with BLAS, OpenMP, torch
and XLA pinned to one thread (benchmarks/env.py); the table is built from what the workers
wrote, and the whole record goes to benchmarks/results/<timestamp>.json (git-ignored).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):  # run as `python benchmarks/run.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "benchmarks"

from benchmarks import env as benv
from benchmarks.workloads import TITLES, WORKLOADS

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "benchmarks", "results")
IMPL_ORDER = ("numpy", "numpy f(x)", "tape floor", "checked tape", "fgrad", "fgrad.compile", "fgrad.compile unfused",
              "fgrad.compile libm", "fgrad.Tensor",
              "autograd", "torch", "torch.func", "jax", "jax.jit", "mygrad")

# The targets, checked against each run: eager fgrad's (issue 3's ruling, in issue 21: they
# guard against regressions) and fgrad.compile's (issue 21), as ratios to the baseline of the
# same run (W5: to hand-written NumPy per op, for the 20,000-op chain).
TARGETS = {"W1_ratio": 2.2, "W2_ratio": 1.12, "W4_ratio": 5.0, "W5_us_per_op": 3.0, "W7_ratio": 1.5}
COMPILED_TARGETS = {"W1": 1.10, "W2": 1.02, "W4": 3.9, "W5": 1.3}
# fgrad against the peers' transforms (W3, W6, W7): at most torch.func's time, below JAX eager's.
PEER_TARGETS = (("torch.func", "<="), ("jax", "<"))


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="few rounds, small sizes where allowed")
    p.add_argument("--only", default="", help="workloads, e.g. W1,W3")
    p.add_argument("--impl", default="", help="implementations, e.g. fgrad,numpy (the baseline is always kept)")
    p.add_argument("--rounds", type=int, default=None, help="rounds per case (default 11; 3 with --quick)")
    p.add_argument("--min-time", type=float, default=None,
                   help="seconds per measurement (default 0.05; 0.02 with --quick)")
    p.add_argument("--big-peers", action="store_true", help="also try the peers on the 1,000,000-op chain (W5)")
    p.add_argument("--big-budget", type=float, default=120.0,
                   help="with --big-peers: skip a peer whose 1,000,000-op run is estimated (from its "
                        "20,000-op rate) to take longer than this many seconds (default 120)")
    p.add_argument("--no-gc-freeze", dest="gc_freeze", action="store_false",
                   help="do not gc.freeze() the loaded libraries before timing (see benchmarks/worker.py)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="what the table reports: wall time (default) or this process's CPU time "
                        "(steadier on a shared machine); the JSON holds both")
    p.add_argument("--render", metavar="JSON", default=None,
                   help="print the report of an earlier run's JSON (with --clock) instead of running")
    p.add_argument("--json", default=None, help="where to write the JSON (default benchmarks/results/<timestamp>.json)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds allowed per workload process")
    args = p.parse_args(argv)
    only = [w.strip().upper() for w in args.only.split(",") if w.strip()]
    bad = [w for w in only if w not in WORKLOADS]
    if bad:
        p.error(f"--only: unknown workload(s) {', '.join(bad)}; choose from {', '.join(WORKLOADS)}")
    args.workloads = only or list(WORKLOADS)
    known = set(IMPL_ORDER)
    impls = [i.strip() for i in args.impl.split(",") if i.strip()]
    bad = [i for i in impls if i not in known]
    if bad:
        p.error(f"--impl: unknown implementation(s) {', '.join(bad)}; choose from {', '.join(IMPL_ORDER)}")
    args.impls = impls
    args.scale = "quick" if args.quick else "full"
    if args.rounds is None:
        args.rounds = 3 if args.quick else 11
    if args.min_time is None:
        args.min_time = 0.02 if args.quick else 0.05
    return args


def run_workload(key, args, out_path):
    cmd = [sys.executable, "-m", "benchmarks.worker", "--workload", key, "--scale", args.scale,
           "--rounds", str(args.rounds), "--min-time", str(args.min_time), "--out", out_path]
    if args.impls:
        cmd += ["--impl", ",".join(args.impls)]
    if args.big_peers:
        cmd += ["--big-peers", "--big-budget", str(args.big_budget)]
    if not args.gc_freeze:
        cmd.append("--no-gc-freeze")
    t0 = time.perf_counter()
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    try:
        proc = subprocess.run(cmd, cwd=REPO, env=benv.subprocess_env(REPO), timeout=args.timeout,
                              stdout=subprocess.PIPE, stderr=None, text=True)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    records = []
    if os.path.exists(out_path):
        with open(out_path) as fh:
            records = [json.loads(line) for line in fh if line.strip()]
    load_after = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return rc, records, time.perf_counter() - t0, (load_before, load_after)


def summarize(rec, clock="wall"):
    """Median, min, max and median ratio of the chosen clock (the JSON keeps every sample)."""
    times = rec.get("times" if clock == "wall" else "cpu_times") or []
    if rec.get("status") != "ok" or not times:
        return rec
    rec["clock"] = clock
    rec["median_s"] = statistics.median(times)
    rec["min_s"], rec["max_s"] = min(times), max(times)
    ratios = rec.get("ratios" if clock == "wall" else "cpu_ratios")
    if ratios:
        rec["ratio_median"] = statistics.median(ratios)
    if rec.get("cpu_times"):
        rec["cpu_median_s"] = statistics.median(rec["cpu_times"])
    return rec


def fmt_time(s):
    if s is None:
        return ""
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def fmt_range(lo, hi):
    if lo is None:
        return ""
    return f"{fmt_time(lo)} – {fmt_time(hi)}"


def table(cases):
    lines = ["| workload / case | impl | median | per op | ratio | min – max | rounds × calls | first call |",
             "|---|---|---:|---:|---:|---|---|---:|"]
    for case in cases:
        first = True
        results = sorted(case["results"], key=lambda r: IMPL_ORDER.index(r["impl"])
                         if r["impl"] in IMPL_ORDER else len(IMPL_ORDER))
        for r in results:
            label = case["case"] if first else ""
            first = False
            impl = r["impl"]
            if r["status"] != "ok":
                lines.append(f"| {label} | {impl} | {r['status']} | | | {r.get('reason', '')} | | |")
                continue
            per_op = f"{_per_op(case, r):.2f} us" if case.get("ops") else ""
            if impl == case["baseline"]:
                ratio = "1.00 (base)"
            elif "ratio_median" in r:
                ratio = f"{r['ratio_median']:.2f}"
            else:
                ratio = ""
            if r.get("single_run"):
                runs = "one run"
            else:
                runs = f"{len(r['times'])} × {r.get('number', 1)}"
            lines.append(f"| {label} | {impl} | {fmt_time(r['median_s'])} | {per_op} | {ratio} | "
                         f"{fmt_range(r['min_s'], r['max_s'])} | {runs} | {fmt_time(r.get('first_call_s'))} |")
    return "\n".join(lines)


def _find(cases, workload, impl, nth=0):
    hits = [c for c in cases if c["workload"] == workload]
    if len(hits) <= nth:
        return None, None
    case = hits[nth]
    for r in case["results"]:
        if r["impl"] == impl:
            return case, r
    return case, None


REFERENCE_ROWS = ("tape floor", "checked tape")  # benchmarks/floor.py and checked.py


def _per_op(case, r):
    """Microseconds per op of result `r` of `case` (None unless it ran)."""
    if r is None or r.get("status") != "ok":
        return None
    return r["median_s"] / case["ops"] * 1e6


def _references(case, unit):
    """The reference rows' values beside a target: what the least tape costs, and what a tape
    that makes fgrad's checks costs (None when neither row ran)."""
    ran = {r["impl"]: r for r in case["results"] if r.get("status") == "ok"}
    parts = []
    for name in REFERENCE_ROWS:
        r = ran.get(name)
        value = None if r is None else _per_op(case, r) if unit == "us/op" else r.get("ratio_median")
        if value is not None:
            parts.append(f"{name} {value:.2f} {unit}")
    return ", ".join(parts) or None


def targets(cases):
    """The issue's targets, each with the measured value and met / not met / not measured."""
    out = []
    case, r = _find(cases, "W1", "fgrad")
    if case is not None:
        v = _ratio(r)
        out.append(_target("W1", f"fgrad <= {TARGETS['W1_ratio']} x hand-written NumPy", v, "x",
                           v is not None and v <= TARGETS["W1_ratio"], extra=_references(case, "x")))
        # Compared by the same-round ratios to NumPy: a round slowed by another process slows
        # both, where the medians of raw times can each catch different slow rounds.
        _, rt = _find(cases, "W1", "torch")
        tr = _ratio(rt)
        out.append(_target("W1", "fgrad below torch backward (same run, by same-round ratio to NumPy)", v, "x NumPy",
                           None if v is None or tr is None else v < tr,
                           extra=None if tr is None else f"torch {tr:.2f} x NumPy"))
    case, r = _find(cases, "W2", "fgrad")
    if case is not None:
        v = r.get("ratio_median") if r and r.get("status") == "ok" else None
        out.append(_target("W2", f"fgrad <= {TARGETS['W2_ratio']} x hand-written NumPy", v, "x",
                           v is not None and v <= TARGETS["W2_ratio"]))
    case, r = _find(cases, "W4", "fgrad")
    if case is not None:
        v = r.get("ratio_median") if r and r.get("status") == "ok" else None
        out.append(_target("W4", f"fgrad hvp <= {TARGETS['W4_ratio']} x f(x)", v, "x",
                           v is not None and v <= TARGETS["W4_ratio"], extra=_references(case, "x")))
    case, r = _find(cases, "W5", "fgrad")
    if case is not None:
        v = _per_op(case, r)
        out.append(_target("W5", f"fgrad <= {TARGETS['W5_us_per_op']} us/op ({case['name']})", v, "us/op",
                           v is not None and v <= TARGETS["W5_us_per_op"], extra=_references(case, "us/op")))
    case, r = _find(cases, "W5", "fgrad", nth=1)
    if case is not None:
        ok = r is not None and r.get("status") == "ok"
        out.append(_target("W5", f"{case['name']} complete (fgrad, result verified)",
                           r["median_s"] if ok else None, "s", ok,
                           extra=None if ok or r is None else f"{r['status']}: {r.get('reason', '')}"))
    w3 = [c for c in cases if c["workload"] == "W3"]
    for case in w3[-1:]:        # the largest n (256; 64 with --quick)
        out += _against_peers(case)
    for case in [c for c in cases if c["workload"] == "W6"]:
        out += _against_peers(case)
    case, r = _find(cases, "W7", "fgrad")
    if case is not None:
        v = _ratio(r)
        out.append(_target("W7", f"fgrad <= {TARGETS['W7_ratio']} x hand-written NumPy", v, "x",
                           v is not None and v <= TARGETS["W7_ratio"]))
        out += _against_peers(case)
    return out + compiled_targets(cases)


def compiled_targets(cases):
    """fgrad.compile's targets (issue 21), with each one's first call (trace, optimize, codegen)."""
    out = []
    for workload, bound in COMPILED_TARGETS.items():
        case, r = _find(cases, workload, "fgrad.compile")
        if case is None:
            continue
        base = "f(x)" if workload == "W4" else "hand-written NumPy" + (" per op" if workload == "W5" else "")
        out.append(_target(workload, f"fgrad.compile <= {bound} x {base} ({case['name']})", _ratio(r), "x",
                           _ratio(r) is not None and _ratio(r) <= bound, extra=_first_call(r)))
    for case in [c for c in cases if c["workload"] in ("W3", "W6", "W7")]:
        ran = {r["impl"]: r for r in case["results"]}
        mine, peer, jit = (_ratio(ran.get(k)) for k in ("fgrad.compile", "torch.func", "jax.jit"))
        if mine is None:
            continue
        notes = [_first_call(ran["fgrad.compile"])] + (
            [f"torch.func {peer:.2f} x NumPy"] if peer is not None else []) + (
            [f"{mine / jit:.2f} x jax.jit"] if jit is not None else [])
        out.append(_target(case["workload"], f"fgrad.compile <= torch.func ({case['name']})", mine, "x NumPy",
                           None if peer is None else mine <= peer, extra="; ".join(notes)))
    return out


def _first_call(r):
    return None if r is None or "first_call_s" not in r else f"first call {fmt_time(r['first_call_s'])}"


def _ratio(r):
    return r.get("ratio_median") if r and r.get("status") == "ok" else None


def _against_peers(case):
    """fgrad against each of PEER_TARGETS on `case`, by the same-round ratios to NumPy (as W1
    against torch): a slow round slows both, where raw medians can catch different rounds."""
    ran = {r["impl"]: r for r in case["results"]}
    fr = _ratio(ran.get("fgrad"))
    out = []
    for peer, op in PEER_TARGETS:
        pr = _ratio(ran.get(peer))
        met = None if fr is None or pr is None else (fr <= pr if op == "<=" else fr < pr)
        if pr is not None:
            extra = f"{peer} {pr:.2f} x NumPy"
        elif peer in ran:
            extra = f"{peer}: {ran[peer]['status']}"
        else:
            extra = f"{peer} not run"
        out.append(_target(case["workload"], f"fgrad {op} {peer} ({case['name']}, by same-round ratio to NumPy)",
                           fr, "x NumPy", met, extra=extra))
    return out


def _target(workload, what, value, unit, met, extra=None):
    return {"workload": workload, "target": what, "value": value, "unit": unit,
            "met": met if value is not None else None, "extra": extra}


def format_targets(rows):
    lines = []
    for t in rows:
        if t["met"] is None:
            verdict = "not measured"
        else:
            verdict = "MET" if t["met"] else "NOT MET"
        val = "" if t["value"] is None else f" — measured {t['value']:.2f} {t['unit']}"
        extra = f" ({t['extra']})" if t["extra"] else ""
        lines.append(f"- {t['workload']}: {t['target']}: **{verdict}**{val}{extra}")
    return "\n".join(lines)


def git_state():
    """The commit measured and the files that differed from it (others may be editing fgrad/)."""
    def git(*cmd):
        try:
            return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True,
                                  timeout=10).stdout.rstrip("\n")
        except (OSError, subprocess.SubprocessError):
            return ""
    dirty = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()]
    return {"commit": git("rev-parse", "--short", "HEAD").strip() or None, "modified": dirty}


def render(record, clock):
    """The Markdown report of a run record, in `clock` (wall or cpu) time; sets record["targets"]."""
    for c in record["cases"]:
        c["results"] = [summarize(r, clock) for r in c["results"]]
    record["targets"] = targets(record["cases"])
    keys = list(record["workloads"])
    out = [f"## fgrad benchmarks ({record['scale']}; `{record['command']}`)", ""]
    for key in keys:
        out.append(f"- **{key}**: {TITLES[key]}")
    out += ["", table(record["cases"]), ""]
    out.append(f"Times are {'wall-clock' if clock == 'wall' else 'process CPU'} seconds per call. "
               "ratio: median over rounds of (time / time of the baseline in the same round); the baseline is "
               "hand-written NumPy forward + backward, and for W4 one evaluation of f(x) in NumPy. "
               "Every row was checked against the NumPy value before it was timed. float64, one thread.")
    out.append("")
    out.append(f"BLAS (threadpoolctl, NumPy's pool): {record.get('numpy_blas')}; OPENBLAS_CORETYPE and "
               f"OPENBLAS_L2_SIZE unset; XLA_FLAGS='{benv.XLA_FLAGS}'; torch threads 1.")
    loads = [x for w in record["workloads"].values() for x in (w.get("loadavg_1min") or ()) if x is not None]
    if loads:
        cores = (record.get("machine") or {}).get("cpu_count") or os.cpu_count()
        out.append(f"Machine: {cores} cores; 1-minute load average around each workload "
                   f"{min(loads):.1f}–{max(loads):.1f} (above 1, other processes competed for the cores; "
                   f"the JSON also holds process CPU times: --render FILE --clock cpu).")
    out.append(f"Garbage collector: {record.get('gc')} (each process holds every peer; frozen, their objects do "
               f"not make full collections of the Python-level libraries dearer; --no-gc-freeze to compare).")
    g = record.get("git") or {}
    if g.get("commit"):
        mods = [m for m in g.get("modified", []) if m.startswith("fgrad")]
        out.append(f"fgrad measured at commit {g['commit']}" +
                   (f", with uncommitted changes to {', '.join(mods)}." if mods else ", clean."))
    if record.get("versions"):
        out.append("Versions: " + ", ".join(f"{k} {v if v else 'not installed'}"
                                            for k, v in record["versions"].items()))
    if record["targets"]:
        out += ["", "Targets (fgrad eager, then fgrad.compile):", format_targets(record["targets"])]
    return "\n".join(out)


def main(argv=None):
    args = parse_args(argv)
    if args.render:
        with open(args.render) as fh:
            print(render(json.load(fh), args.clock))
        return 0
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    command = "python -m benchmarks" + ("" if argv is None and len(sys.argv) <= 1 else
                                        " " + " ".join(argv if argv is not None else sys.argv[1:]))
    record = {"command": command, "timestamp": stamp, "scale": args.scale, "rounds": args.rounds, "clock": args.clock,
              "min_time_s": args.min_time, "workloads": {}, "cases": [], "versions": None, "blas": None,
              "git": git_state()}
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fgrad-bench-") as tmp:
        for key in args.workloads:
            print(f"[benchmarks] {key}: {TITLES[key]}", file=sys.stderr, flush=True)
            rc, records, wall, load = run_workload(key, args, os.path.join(tmp, f"{key}.jsonl"))
            envs = [r for r in records if r["kind"] == "env"]
            plan = next((r["cases"] for r in records if r["kind"] == "plan"), [])
            done = [r for r in records if r["kind"] == "case"]
            if envs and record["versions"] is None:
                record["versions"] = envs[0]["versions"]
                record["blas"] = envs[0]["blas"]
                record["numpy_blas"] = envs[0]["numpy_blas"]
                record["machine"] = envs[0]["machine"]
                record["gc"] = envs[0].get("gc")
            record["workloads"][key] = {"title": TITLES[key], "exit": rc, "wall_s": wall, "loadavg_1min": load,
                                        "numpy_blas": envs[0]["numpy_blas"] if envs else None}
            for c in done:
                record["cases"].append(c)
            finished = {c["case"] for c in done}
            for label in plan or [f"{key} (all cases)"]:
                if label not in finished and rc != 0:
                    record["cases"].append({"workload": key, "case": label, "name": label, "baseline": "numpy",
                                            "ops": None, "results": [{"impl": "(process)", "status": "FAILED",
                                                                      "reason": f"worker exited with {rc}"}]})
    record["wall_s"] = time.perf_counter() - t_start
    text = render(record, args.clock)
    print(text)
    record["markdown"] = text

    path = args.json or os.path.join(RESULTS, f"{stamp}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(record, fh, indent=1)
    print(f"\nJSON: {os.path.relpath(path, os.getcwd())}  (total {record['wall_s']:.0f} s)")
    failed = [r for c in record["cases"] for r in c["results"] if r["status"] == "FAILED"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
