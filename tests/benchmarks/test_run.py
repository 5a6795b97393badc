"""The target lines under the benchmark table, from a synthetic run record (no timing)."""
from benchmarks import run


def _case(workload, results, ops=None):
    return {"workload": workload, "name": "case", "ops": ops, "results": results}


def _ok(impl, median_s, ratio):
    return {"impl": impl, "status": "ok", "median_s": median_s, "ratio_median": ratio}


def test_targets_show_the_reference_rows_beside_w1_w4_and_w5():
    cases = [
        _case("W1", [_ok("numpy", 100e-6, 1.0), _ok("fgrad", 250e-6, 2.5), _ok("checked tape", 200e-6, 2.0),
                     _ok("tape floor", 160e-6, 1.6)], ops=100),
        _case("W4", [_ok("numpy f(x)", 40e-6, 1.0), _ok("tape floor", 140e-6, 3.5), _ok("fgrad", 170e-6, 4.25),
                     {"impl": "checked tape", "status": "n/a", "reason": "the chains only"}]),
        _case("W5", [_ok("numpy", 5e-3, 1.0), _ok("checked tape", 30e-3, 6.0), _ok("fgrad", 40e-3, 8.0)], ops=20000),
    ]
    rows = {(t["workload"], t["target"].split(":")[0]): t for t in run.targets(cases)}
    w1 = rows[("W1", "fgrad <= 2.2 x hand-written NumPy")]
    assert w1["met"] is False and abs(w1["value"] - 2.5) < 1e-9
    assert w1["extra"] == "tape floor 1.60 x, checked tape 2.00 x"  # in REFERENCE_ROWS order
    w4 = rows[("W4", "fgrad hvp <= 5.0 x f(x)")]
    assert w4["met"] is True and w4["extra"] == "tape floor 3.50 x"
    w5 = rows[("W5", "fgrad <= 3.0 us/op (case)")]
    assert w5["met"] is True and w5["extra"] == "checked tape 1.50 us/op"
    text = run.format_targets(run.targets(cases))
    assert "**NOT MET** — measured 2.50 x (tape floor 1.60 x, checked tape 2.00 x)" in text
    assert "**MET** — measured 4.25 x (tape floor 3.50 x)" in text


def test_targets_without_a_reference_row_say_nothing_of_it():
    failed = {"impl": "tape floor", "status": "FAILED", "reason": "mismatch"}
    cases = [_case("W1", [_ok("numpy", 100e-6, 1.0), failed, _ok("fgrad", 150e-6, 1.5)], ops=100)]
    (w1,) = [t for t in run.targets(cases) if t["target"] == "fgrad <= 2.2 x hand-written NumPy"]
    assert w1["met"] is True and w1["extra"] is None


def test_compiled_targets_with_their_first_call():
    compiled = dict(_ok("fgrad.compile", 90e-6, 0.9), first_call_s=0.25)
    cases = [_case("W1", [_ok("numpy", 100e-6, 1.0), _ok("fgrad", 200e-6, 2.0), compiled], ops=100),
             _case("W7", [_ok("numpy", 1e-3, 1.0), _ok("torch.func", 2e-3, 2.0), _ok("jax.jit", 0.5e-3, 0.5),
                          dict(_ok("fgrad.compile", 1.2e-3, 1.2), first_call_s=0.5)])]
    rows = {(t["workload"], t["target"]): t for t in run.compiled_targets(cases)}
    w1 = rows[("W1", "fgrad.compile <= 1.1 x hand-written NumPy (case)")]
    assert w1["met"] is True and w1["extra"] == "first call 250.00 ms"
    w7 = rows[("W7", "fgrad.compile <= torch.func (case)")]
    assert w7["met"] is True and w7["extra"] == "first call 500.00 ms; torch.func 2.00 x NumPy; 2.40 x jax.jit"


def test_targets_against_the_peers_on_w3_w6_w7():
    # By the same-round ratio to NumPy; W3 by its largest n only; a peer that did not run is not a verdict.
    cases = [
        _case("W3", [_ok("numpy", 1e-4, 1.0), _ok("fgrad", 9e-4, 9.0), _ok("torch.func", 1e-3, 10.0)]),
        _case("W3", [_ok("numpy", 1e-4, 1.0), _ok("fgrad", 9e-4, 9.0), _ok("torch.func", 8e-4, 8.0),
                     _ok("jax", 2e-3, 20.0)]),
        _case("W6", [_ok("numpy", 1e-4, 1.0), _ok("fgrad", 2e-4, 2.0), _ok("torch.func", 2e-4, 2.0),
                     {"impl": "jax", "status": "not installed", "reason": "not installed (jax)"}]),
        _case("W7", [_ok("numpy", 1e-3, 1.0), _ok("fgrad", 1.4e-3, 1.4), _ok("torch.func", 3e-3, 3.0),
                     _ok("jax", 1.4e-3, 1.4)]),
    ]
    rows = [(t["workload"], t["target"], t["met"], t["extra"]) for t in run.targets(cases)]
    assert rows == [
        ("W3", "fgrad <= torch.func (case, by same-round ratio to NumPy)", False, "torch.func 8.00 x NumPy"),
        ("W3", "fgrad < jax (case, by same-round ratio to NumPy)", True, "jax 20.00 x NumPy"),
        ("W6", "fgrad <= torch.func (case, by same-round ratio to NumPy)", True, "torch.func 2.00 x NumPy"),
        ("W6", "fgrad < jax (case, by same-round ratio to NumPy)", None, "jax: not installed"),
        ("W7", "fgrad <= 1.5 x hand-written NumPy", True, None),
        ("W7", "fgrad <= torch.func (case, by same-round ratio to NumPy)", True, "torch.func 3.00 x NumPy"),
        ("W7", "fgrad < jax (case, by same-round ratio to NumPy)", False, "jax 1.40 x NumPy"),
    ]
    assert "**not measured** — measured 2.00 x NumPy (jax: not installed)" in run.format_targets(run.targets(cases))
