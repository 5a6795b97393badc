"""fgrad's benchmark suite: W1..W6 against hand-written NumPy and the peers (issue 3).

Run `python -m benchmarks --help`. The workload definitions (benchmarks/workloads.py)
import only NumPy and fgrad, so tests/benchmarks reuses them without the peers.
"""
