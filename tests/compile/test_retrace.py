"""fgrad.compile: Python numbers traced weakly (one trace for a changing learning rate, NumPy's
promotion kept), and retraces explained (cache_info's reasons, the RetraceWarning, the bar)."""
import os
import time
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.compile import progress
from fgrad.errors import RetraceWarning

RNG = np.random.default_rng(0)
W32 = RNG.standard_normal((5, 3)).astype(np.float32)
X32 = RNG.standard_normal((8, 5)).astype(np.float32)
HERE = os.path.basename(__file__)


def _line(fragment):
    """The line number of this file's line holding `fragment` (where a guard reads a value)."""
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if fragment in text and "_line(" not in text)


def _loss(w, x):
    return fnp.mean(fnp.tanh(x @ w) ** 2)


def _sgd(w, x, lr):
    loss, g = fgrad.value_and_grad(_loss)(w, x)
    return w - lr * g, loss


# ---- Python numbers are traced: one program for every value ------------------------------------
def test_a_learning_rate_schedule_over_a_hundred_steps_traces_once():
    step = fgrad.compile(_sgd)
    w, w_eager = W32, W32
    for k in range(100):
        lr = 0.1 * 0.97 ** k
        w, _ = step(w, X32, lr)
        w_eager, _ = _sgd(w_eager, X32, lr)
        assert w.dtype == np.float32 == w_eager.dtype
    np.testing.assert_array_equal(w, w_eager)
    info = step.cache_info()
    assert (info.traces, info.hits, info.reasons) == (1, 99, ())


def test_a_dtype_change_traces_once_more_and_names_the_argument_and_the_dtypes():
    step = fgrad.compile(_sgd)
    for lr in (0.1, 0.05):
        step(W32, X32, lr)
    step(W32.astype(np.float64), X32, 0.1)
    step(W32.astype(np.float64), X32, 0.2)
    info = step.cache_info()
    assert info.traces == 2
    assert info.reasons == ("args[0]: dtype changed (ndarray float32[5, 3] -> ndarray float64[5, 3])",)


def test_the_python_type_of_a_number_keys_the_cache():
    c = fgrad.compile(lambda x, s: x * s)
    assert c(X32, 2).dtype == np.float32 and c(X32, 3).dtype == np.float32
    assert c(X32, 2.5).dtype == np.float32
    assert c.cache_info().reasons == ("args[1]: Python type changed (Python int -> Python float)",)


def test_static_argnums_keeps_a_program_per_value():
    step = fgrad.compile(_sgd, static_argnums=2)
    for lr in (0.1, 0.2, 0.1, 0.3):
        step(W32, X32, lr)
    info = step.cache_info()
    assert (info.traces, info.hits) == (3, 1)
    # (each against the key used last: 0.1 again before 0.3)
    assert info.reasons == ("static argument args[2] changed: 0.1 -> 0.2",
                            "static argument args[2] changed: 0.1 -> 0.3")
    lowered = step.lower(W32, X32, 0.1)
    assert "args[2]" not in str(lowered) and len(lowered.program.invars) == 2  # (a constant of the program)


def test_a_dict_of_hyperparameters_and_keyword_arguments_are_traced():
    def update(w, hp, *, scale):
        return w - hp["lr"] * w * (1 - hp["momentum"]) * scale
    c = fgrad.compile(update)
    for lr, momentum, scale in ((0.1, 0.9, 1), (0.2, 0.8, 2), (0.05, 0.5, 3)):
        got = c(W32, {"lr": lr, "momentum": momentum}, scale=scale)
        want = update(W32, {"lr": lr, "momentum": momentum}, scale=scale)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got, want)
    assert c.cache_info().traces == 1
    text = str(c.lower(W32, {"lr": 0.1, "momentum": 0.9}, scale=1))
    assert "%1:float (args[1]['lr'])" in text and "(kwargs['scale'])" in text


def test_python_numbers_come_back_as_python_numbers():
    c = fgrad.compile(lambda x, lr, n: (x * lr, lr, n * 2, lr / n, n > 2))
    for lr, n in ((0.5, 2), (0.25, 3)):
        got = c(X32, lr, n)
        want = (X32 * lr, lr, n * 2, lr / n, n > 2)
        assert [type(g) for g in got] == [type(w) for w in want] == [np.ndarray, float, int, float, bool]
        assert got[1:] == want[1:]
    assert c.cache_info().traces == 1


def test_the_cookbooks_compiled_pullback_of_a_python_float():
    # JAX's autodiff cookbook: y, f_vjp = vjp(sin, x); jit(f_vjp)(1.)
    _, f_vjp = fgrad.vjp(fnp.sin, 0.5)
    c = fgrad.compile(f_vjp)
    for ct in (1.0, 2.0, -0.5):
        assert c(ct) == f_vjp(ct)
        assert type(c(ct)[0]) is type(f_vjp(ct)[0])
    assert c.cache_info().traces == 1


def test_differentiating_with_respect_to_a_python_float_promotes_as_eagerly():
    # Eagerly grad makes a Python float a float64 scalar (float32 * it is float64); so does compile.
    f = fgrad.value_and_grad(lambda t, x: fnp.sum(fnp.sin(t * x)))
    c = fgrad.compile(f)
    for t in (0.5, 1.5):
        got, want = c(t, X32), f(t, X32)
        assert [np.result_type(g) for g in got] == [np.result_type(w) for w in want] == [np.float64] * 2
        np.testing.assert_allclose(got, want, rtol=1e-15)
    assert c.cache_info().traces == 1


# ---- NumPy's promotion of weak scalars, against eager NumPy ---------------------------------------
ARRAYS = {name: np.array([1, 2, 3]).astype(name) for name in ("float16", "float32", "float64", "int32", "int64",
                                                               "complex64", "bool")}
SCALARS = [2.5, 3, True, 1.5j, -0.0]
PROGRAMS = {
    "x * s": lambda x, s: x * s,
    "s * x": lambda x, s: s * x,
    "x + s": lambda x, s: x + s,
    "s - x": lambda x, s: s - x,
    "x / s": lambda x, s: x / s,
    "x ** s": lambda x, s: x ** s,
    "x > s": lambda x, s: x > s,
    "maximum": lambda x, s: fnp.maximum(x, s),
    "where": lambda x, s: fnp.where(x > 1, x, s),
    "x * (1 - s)": lambda x, s: x * (1 - s),        # (Python arithmetic between weak values stays weak)
    "x * (s * 2 + 1) / (s + 1)": lambda x, s: x * (s * 2 + 1) / (s + 1),
    "x * -s + abs(s)": lambda x, s: x * -s + abs(s),
    "x * fnp.sin(s)": lambda x, s: x * fnp.sin(s),  # (a NumPy function of a Python float: float64, as NumPy's)
    "x * fnp.multiply(s, 2)": lambda x, s: x * fnp.multiply(s, 2),
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_weak_scalars_promote_as_numpys(program):
    f = PROGRAMS[program]
    for name, x in ARRAYS.items():
        for s in SCALARS:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                try:
                    want = f(x, s)
                except TypeError:  # (NumPy refuses some pairs: a bool array minus a bool; so must compile)
                    with pytest.raises(TypeError):
                        fgrad.compile(f)(x, s)
                    continue
                c = fgrad.compile(f)
                c(x, s)
                got = c(x, s)  # (a replay)
            what = f"{program} with {name} and {s!r}"
            assert got.dtype == want.dtype, what
            np.testing.assert_array_equal(got, want, err_msg=what)
            assert c.cache_info().hits == 1, what


# ---- Python decisions on numbers are guards ------------------------------------------------------
def test_a_guard_failure_names_the_argument_and_the_users_line():
    def clipped(w, lr):
        if lr > 0.1:  # the guard's line
            lr = 0.1
        return w * lr
    c = fgrad.compile(clipped)
    for lr in (0.05, 0.08, 0.2):
        np.testing.assert_array_equal(c(W32, lr), clipped(W32, lr))
    info = c.cache_info()
    assert (info.traces, info.retraces, info.hits) == (2, 1, 1)
    assert info.last_retrace == (f"args[1]: the value Python read at {HERE}:{_line('# the guard')} "
                                 f"(`if lr > 0.1:  # the guard's line`) changed "
                                 f"(guard %2 == False failed: False -> True)")


def test_an_int_used_as_a_range_bound_or_a_shape_is_guarded_on_its_value():
    def f(x, n):
        total = fnp.zeros(n)  # a shape
        for i in range(n):  # a trip count
            total = total + x[i]
        return total
    c = fgrad.compile(f)
    for n in (3, 3, 4, 3):
        np.testing.assert_array_equal(c(X32[0], n), f(X32[0], n))
    info = c.cache_info()
    assert (info.traces, info.hits) == (2, 2)
    assert f"{HERE}:{_line('# a shape')}" in info.last_retrace and "3 -> 4" in info.last_retrace


def test_an_int_an_op_takes_for_a_sequence_says_to_mark_it_static():
    c = fgrad.compile(lambda x, axis: fnp.sum(x, axis=axis))
    with pytest.raises(TypeError, match=r"len\(\) of a traced Python int \(1\).*mark the argument static"):
        c(X32, 1)
    np.testing.assert_array_equal(fgrad.compile(lambda x, axis: fnp.sum(x, axis=axis), static_argnums=1)(X32, 1),
                                  X32.sum(axis=1))


def test_bools_and_signed_zeros_and_nans_are_guarded_exactly():
    c = fgrad.compile(lambda x, flag: x * 2.0 if flag else -x)
    for flag in (True, False, True, False):
        np.testing.assert_array_equal(c(X32, flag), X32 * 2.0 if flag else -X32)
    assert c.cache_info().traces == 2
    d = fgrad.compile(lambda x, s: x * np.copysign(1.0, float(s)) if s == s else x)
    for s in (0.0, -0.0, 0.0, float("nan"), float("nan")):
        np.testing.assert_array_equal(d(X32, s), X32 * np.copysign(1.0, s) if s == s else X32)
    assert d.cache_info().traces == 3  # (0.0, -0.0 and NaN: each read differently; NaN agrees with NaN)


# ---- the warning ----------------------------------------------------------------------------
def test_the_warning_names_the_function_the_argument_path_and_the_line_once():
    def train(w, hp):
        for _ in range(hp["steps"]):  # the loop's bound
            w = w * hp["decay"]
        return w
    c = fgrad.compile(train)
    with pytest.warns(RetraceWarning) as record:
        for steps in range(1, 13):
            c(W32, {"decay": 0.5, "steps": steps})
    assert len(record) == 1 and record[0].filename == __file__
    message = str(record[0].message)
    where = f"{HERE}:{train.__code__.co_firstlineno}"
    assert message.startswith(f"fgrad.compile: {train.__qualname__} ({where}) has been traced 9 times; the latest "
                              f"because args[1]['steps']: the value Python read at {HERE}:{_line('# the loop')}")
    assert "8 -> 9" in message and "static_argnums" in message
    assert c.cache_info().traces == 12 and len(c.cache_info().reasons) == 11


def test_the_warning_for_keyword_arguments_and_the_threshold_from_config():
    c = fgrad.compile(lambda *, x: x * 2.0)
    with fgrad.config.overriding(retrace_warning_after=2):
        with pytest.warns(RetraceWarning, match=r"traced 3 times; the latest because kwargs\['x'\]: shape changed "
                                                r"\(ndarray float32\[3\] -> ndarray float32\[4\]\)"):
            for n in (2, 3, 4, 5):
                c(x=np.ones(n, np.float32))
    d = fgrad.compile(lambda x: x * 2.0)
    with fgrad.config.overriding(retrace_warning_after=0), warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(1, 20):
            d(np.ones(n))
    assert d.cache_info().traces == 19


# ---- the progress bar -------------------------------------------------------------------------
def test_a_long_trace_on_a_terminal_shows_a_bar_and_elsewhere_none(monkeypatch, capsys):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "REFRESH", 0.01)

    def slow(x):
        for _ in range(50):
            x = fnp.sin(x)
            time.sleep(0.004)  # (the trace takes 0.2 s)
        return x
    fgrad.compile(slow)(np.ones(3))
    assert "fgrad.compile" not in capsys.readouterr().err  # (stderr is not a terminal here)
    monkeypatch.setattr(progress, "_terminal", lambda: True)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    fgrad.compile(slow)(np.ones(3))
    assert "fgrad.compile slow" in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["chunks", "loop"])
def test_python_numbers_in_long_programs(monkeypatch, limit):
    from fgrad.compile import codegen
    monkeypatch.setattr(codegen, "CHUNK", 5)
    if limit == "loop":
        monkeypatch.setattr(codegen, "LOOP_LIMIT", 10)

    def f(x, lr, flag):
        for _ in range(6):
            x = fnp.sin(x) * (1 - lr) + lr / 2
        return (x * 2.0 if flag else x), lr * 3
    c = fgrad.compile(f)
    for lr, flag in ((0.5, True), (0.25, True), (-0.0, False), (0.125, False)):
        got, want = c(X32[0], lr, flag), f(X32[0], lr, flag)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[0].dtype == np.float32 and got[1] == want[1] and type(got[1]) is float
    assert c.cache_info().traces == 2
