"""Where fgrad spends its time on a workload: self time per function of fgrad's own code.

    python -m benchmarks.profile W1 W2 W5            # cProfile, self time, top 15 each
    python -m benchmarks.profile W5 --tool pyinstrument

Runs fgrad's implementation of the workload (benchmarks/workloads.py, full size, first
case) in a child process with the benchmark environment (one BLAS thread, OpenBLAS's
core-type overrides removed). cProfile reports self time ("tottime"): time in a function's
own bytecode plus the C calls it makes directly (a NumPy ufunc is not a Python function, so
its time lands in the caller, e.g. the rule that calls it). pyinstrument's sampled tree
shows inclusive time with less overhead per call.
"""
import argparse
import collections
import cProfile
import os
import pstats
import subprocess
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "benchmarks"

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _runner(key, scale, case_index):
    from benchmarks import workloads as wl
    case = wl.make_cases(key, scale)[case_index]
    return case, wl.fgrad_impls()[0].setup(case), wl.numpy_impls()[0].setup(case)


def _calls_for(fn, seconds):
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    return max(1, int(seconds / one)), one


def profile_cprofile(key, args):
    case, fn, ref = _runner(key, args.scale, args.case)
    fn(), ref()
    n, _ = _calls_for(fn, args.seconds)
    t0 = time.perf_counter()
    for _ in range(n):
        ref()
    t_ref = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t_fgrad = (time.perf_counter() - t0) / n
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt
    rows = []
    by_file = collections.Counter()
    for (filename, line, func), (_cc, nc, tt, ct, _) in stats.stats.items():
        rel = os.path.relpath(filename, REPO) if filename.startswith(REPO) else filename
        if rel.startswith("fgrad" + os.sep):
            rows.append((tt, ct, nc, f"{rel}:{line}({func})"))
            by_file[rel] += tt
    rows.sort(reverse=True)
    per = f", {case.ops} ops" if case.ops else ""
    print(f"\n### {case.label}: fgrad {t_fgrad * 1e6:.1f} us/call, hand-written NumPy {t_ref * 1e6:.1f} us/call "
          f"(ratio {t_fgrad / t_ref:.2f}{per}); cProfile over {n} calls, {total:.3f} s profiled\n")
    print("| self % | self s | incl % | calls/call | fgrad function |")
    print("|---:|---:|---:|---:|---|")
    for tt, ct, nc, where in rows[:args.top]:
        print(f"| {100 * tt / total:.1f} | {tt:.3f} | {100 * ct / total:.1f} | {nc / n:.0f} | {where} |")
    own = sum(by_file.values())
    print(f"\nfgrad's own code: {100 * own / total:.0f}% of self time; by file: " +
          ", ".join(f"{f} {100 * t / total:.0f}%" for f, t in by_file.most_common(8)))


def profile_pyinstrument(key, args):
    from pyinstrument import Profiler
    case, fn, _ = _runner(key, args.scale, args.case)
    fn()
    n, _ = _calls_for(fn, args.seconds)
    p = Profiler(interval=0.0002)
    p.start()
    for _ in range(n):
        fn()
    p.stop()
    print(f"\n### {case.label}: pyinstrument over {n} calls\n")
    print(p.output_text(unicode=False, color=False))


def child(args):
    from benchmarks import env as benv
    benv.pin_threads_numpy_only()
    for key in args.workloads:
        (profile_pyinstrument if args.tool == "pyinstrument" else profile_cprofile)(key, args)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workloads", nargs="*", default=["W1", "W2", "W5"])
    p.add_argument("--tool", choices=("cprofile", "pyinstrument"), default="cprofile")
    p.add_argument("--scale", default="full", choices=("full", "quick", "test"))
    p.add_argument("--case", type=int, default=0, help="which case of the workload (0: the first)")
    p.add_argument("--seconds", type=float, default=2.0, help="about how long to profile each workload")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.workloads = [w.upper() for w in args.workloads]
    if args.child:
        return child(args)
    from benchmarks import env as benv
    cmd = [sys.executable, "-m", "benchmarks.profile", "--child"] + (argv if argv is not None else sys.argv[1:])
    return subprocess.run(cmd, cwd=REPO, env=benv.subprocess_env(REPO)).returncode


if __name__ == "__main__":
    sys.exit(main())
