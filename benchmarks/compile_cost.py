"""What fgrad.compile's first call costs on long programs: W5's scalar chain, one process per size.

    python -m benchmarks.compile_cost                 # 20,000, 100,000 and 1,000,000 ops
    python -m benchmarks.compile_cost 20000 100000

For each size: the first call (trace, optimize, write and compile the code), a replay, the
eager call, and each process's peak resident memory (ru_maxrss), for compile and eager.
"""
import json
import os
import subprocess
import sys

from benchmarks import env as benv

_CHILD = """
import json, resource, sys, time
import numpy as np
import fgrad, fgrad.numpy as fnp
from benchmarks.workloads import W5_X0, w5_chain
n, mode = int(sys.argv[1]), sys.argv[2]
f = fgrad.grad(lambda x: w5_chain(x, fnp, n))
if mode == "compile":
    f = fgrad.compile(f)
x = np.float64(W5_X0)  # (traced: a Python float would be a constant of the program)
t0 = time.perf_counter(); first = f(x); t1 = time.perf_counter(); again = f(x); t2 = time.perf_counter()
assert abs(first - again) <= 1e-12 * abs(first)
print(json.dumps({"first_s": t1 - t0, "second_s": t2 - t1,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(n, mode):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n), mode], capture_output=True, text=True, check=True,
                         cwd=root, env=benv.subprocess_env(root))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    sizes = [int(a) for a in (argv if argv is not None else sys.argv[1:])] or [20_000, 100_000, 1_000_000]
    print("| W5 ops | compile: first call | replay | peak RSS | eager call | eager peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        c, e = measure(n, "compile"), measure(n, "eager")
        print(f"| {n:,} | {c['first_s']:.2f} s | {c['second_s'] * 1e3:.1f} ms | {c['peak_mb']:.0f} MB | "
              f"{e['second_s'] * 1e3:.1f} ms | {e['peak_mb']:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
