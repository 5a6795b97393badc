"""The target lines under the benchmark table, from a synthetic run record (no timing)."""
from benchmarks import run


def _case(workload, results, ops=None):
    return {"workload": workload, "name": "case", "ops": ops, "results": results}


def _ok(impl, median_s, ratio):
    return {"impl": impl, "status": "ok", "median_s": median_s, "ratio_median": ratio}


def test_targets_show_the_tape_floor_beside_w1_and_w4():
    cases = [
        _case("W1", [_ok("numpy", 100e-6, 1.0), _ok("tape floor", 160e-6, 1.6), _ok("fgrad", 250e-6, 2.5)], ops=100),
        _case("W4", [_ok("numpy f(x)", 40e-6, 1.0), _ok("tape floor", 140e-6, 3.5), _ok("fgrad", 170e-6, 4.25)]),
    ]
    rows = {(t["workload"], t["target"].split(":")[0]): t for t in run.targets(cases)}
    w1 = rows[("W1", "fgrad <= 2.0 us/op")]
    assert w1["met"] is False and abs(w1["value"] - 2.5) < 1e-9 and w1["extra"] == "tape floor 1.60 us/op"
    w4 = rows[("W4", "fgrad hvp <= 4.5 x f(x)")]
    assert w4["met"] is True and w4["extra"] == "tape floor 3.50 x"
    text = run.format_targets(run.targets(cases))
    assert "**NOT MET** — measured 2.50 us/op (tape floor 1.60 us/op)" in text
    assert "**MET** — measured 4.25 x (tape floor 3.50 x)" in text


def test_targets_without_a_floor_row_say_nothing_of_it():
    failed = {"impl": "tape floor", "status": "FAILED", "reason": "mismatch"}
    cases = [_case("W1", [_ok("numpy", 100e-6, 1.0), failed, _ok("fgrad", 150e-6, 1.5)], ops=100)]
    (w1,) = [t for t in run.targets(cases) if t["target"] == "fgrad <= 2.0 us/op"]
    assert w1["met"] is True and w1["extra"] is None
