"""benchmarks/compile_cost.py runs: one small size, both modes, a row of the table."""
from benchmarks import compile_cost


def test_a_small_chain_is_measured_in_both_modes(capsys):
    compile_cost.main(["200"])
    rows = capsys.readouterr().out.strip().splitlines()
    assert rows[0].startswith("| W5 ops | compile: first call |")
    cells = [c.strip() for c in rows[2].strip("|").split("|")]
    assert cells[0] == "200" and cells[1].endswith(" s") and cells[3].endswith(" MB") and len(cells) == 6
