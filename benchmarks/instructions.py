"""Instructions per call of a workload's fgrad callable, counted by callgrind.

    python -m benchmarks.instructions W1 [--mode eager|compile|compile-unfused|compile-libm|tensor|numpy]
                                         [--calls 40] [--size full]

Runs the workload's own callable (benchmarks/workloads.py) twice under
`valgrind --tool=callgrind`: after two warm-up calls, 0 more calls and K more; the difference
over K is the cost of one call, start-up and imports excluded. Instruction counts repeat where
wall-clock times do not, so a change to a hot path is measured with this beside the ratio
tables of `python -m benchmarks`. BLAS and fgrad's
engine run one thread (a spinning BLAS thread would be counted too), the hash seed is fixed, and
address-space randomisation is off (`setarch -R`, where util-linux has it): with it on, counts of
the same tree moved by up to 3%; with it off they repeat to about 0.02%.
Interpreter work beside kernels weighs more in time than in count: read both. Needs valgrind
(Debian's package). Run it from the checkout to measure: it counts the fgrad that
`import fgrad` finds there.
"""
import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

__all__ = ["collected", "per_call", "run_calls"]

MODES = {"eager": "fgrad", "compile": "fgrad.compile", "compile-unfused": "fgrad.compile unfused",
         "compile-libm": "fgrad.compile libm", "tensor": "fgrad.Tensor", "numpy": "numpy"}
PINNED = {"PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
          "FGRAD_NUM_THREADS": "1"}


def run_calls(key, mode, size, calls):
    """Make the workload's callable, call it twice, then `calls` times more (what is counted)."""
    from . import workloads
    case = workloads.make_cases(key, size)[0]
    setup = next(i for i in workloads.fgrad_impls() + workloads.numpy_impls() if i.name == MODES[mode]).setup
    fn = setup(case)
    fn()
    fn()
    for _ in range(calls):
        fn()
    return fn


def collected(callgrind_output):
    """The instruction count callgrind reports ("Collected : N") in its output."""
    found = re.findall(r"Collected\s*:\s*(\d+)", callgrind_output)
    if not found:
        raise RuntimeError(f"no instruction count in callgrind's output:\n{callgrind_output[-2000:]}")
    return int(found[-1])


def _no_randomisation():
    """`setarch <arch> -R`: the same addresses every run, so the same hashing and allocation work."""
    return ["setarch", platform.machine(), "-R"] if shutil.which("setarch") else []


def _count(key, mode, size, calls):
    with tempfile.TemporaryDirectory() as tmp:
        command = _no_randomisation() + [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out", sys.executable, "-m",
            "benchmarks.instructions", "--run", key, "--mode", mode, "--size", size, "--calls", str(calls)]
        done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **PINNED})
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
        return collected(done.stderr)


def per_call(key, mode="eager", size="full", calls=40):
    """Instructions of one call: (count with `calls` calls - count with none) / calls."""
    return (_count(key, mode, size, calls) - _count(key, mode, size, 0)) / calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", help="W1 ... W7")
    parser.add_argument("--mode", choices=sorted(MODES), default="eager")
    parser.add_argument("--size", choices=("full", "quick", "test"), default="full")
    parser.add_argument("--calls", type=int, default=40, help="calls counted (fewer for the large workloads)")
    parser.add_argument("--run", action="store_true", help="(internal) make the calls, under valgrind")
    args = parser.parse_args(argv)
    if args.run:
        run_calls(args.workload, args.mode, args.size, args.calls)
        return
    count = per_call(args.workload, args.mode, args.size, args.calls)
    print(f"{args.workload} {args.mode} ({args.size}): {count:,.0f} instructions per call")


if __name__ == "__main__":
    main()
