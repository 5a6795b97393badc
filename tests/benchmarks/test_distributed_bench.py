"""benchmarks/distributed.py (issue 30): each step it times computes the whole batch's
gradients (checked here in a world of one, at a small size), and its table reads its results."""
import pytest

from benchmarks import distributed as bench

SMALL = (8, 6, 5, 3)


@pytest.mark.parametrize("kind", ["data_parallel", "DDP, overlapped", "DDP, after backward"])
def test_each_timed_step_computes_the_whole_batchs_gradients(kind):
    bench.check(kind, SMALL)


def test_the_table_reads_both_runs():
    steps = {"data_parallel": 0.010, "DDP, overlapped": 0.011, "DDP, after backward": 0.012, "each rank alone": 0.008}
    two = {"steps": {k: v / 1.6 for k, v in steps.items()}, "sweep": [{"bytes": 8, "raw": 2e-5, "checked": 4e-5}]}
    text = bench.table({"steps": steps, "half batch": 0.004}, two)
    assert "| data_parallel | 10.00 | 6.25 | 1.60x | 80% |" in text
    assert "| 8 B | 20.0 | 40.0 | 0.00 |" in text and "+9.1% for the latter" in text
    assert "what each of 2 ranks computes: 4.00 ms" in text
    assert "| each rank alone (no collective: the control) | 8.00 | 5.00 | | |" in text


def test_the_control_step_runs_without_a_collective():
    step, grads = bench.steps("each rank alone", SMALL)
    assert grads is None
    step()
