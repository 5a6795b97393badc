"""benchmarks/instructions.py: the calls it counts run the workload's own callable, and the
count is read from callgrind's output (valgrind itself is not run here: it takes minutes)."""
import pytest

from benchmarks import instructions


@pytest.mark.parametrize("mode", sorted(instructions.MODES))
def test_the_counted_calls_run_the_workload(mode):
    fn = instructions.run_calls("W1", mode, "test", 1)
    assert fn() is not None


def test_the_count_is_read_from_callgrinds_output():
    text = "==12== Events    : Ir\n==12== Collected : 2148308\n==12==\n==12== I   refs:      2,148,308\n"
    assert instructions.collected(text) == 2148308
    with pytest.raises(RuntimeError, match="no instruction count"):
        instructions.collected("valgrind: command not found")
