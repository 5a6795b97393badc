"""fgrad.compile: guards, the cache, the program's passes, long programs, errors, devices."""
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.compile import codegen
from fgrad.errors import RetraceWarning, SideEffectWarning

RNG = np.random.default_rng(0)
X = RNG.standard_normal(6)
A = RNG.standard_normal((4, 6))


def loss(x):
    return fnp.sum(fnp.tanh(A @ x) ** 2)


def test_grad_replays_and_equals_eager():
    g = fgrad.compile(fgrad.grad(loss))
    for k in range(4):
        np.testing.assert_allclose(g(X + k), fgrad.grad(loss)(X + k), rtol=1e-13)
    info = g.cache_info()
    assert (info.hits, info.misses, info.retraces, info.size) == (3, 1, 0, 1)


# ---- guards: every Python decision on a traced value ---------------------------------------
def test_while_on_a_traced_value_retraces_when_the_trip_count_changes():
    def doubling(x):
        while fnp.sum(x) < 10.0:
            x = x * 2.0
        return x
    c = fgrad.compile(doubling)
    for start in (1.0, 1.5, 0.3, 1.1, 0.31):  # trip counts 2, 2, 4, 2, 4
        x = np.full(3, start)
        np.testing.assert_array_equal(c(x), doubling(x))
    info = c.cache_info()
    assert info.hits >= 2 and info.retraces >= 1 and "changed" in info.last_retrace


def test_if_whose_branch_flips_retraces_and_both_programs_are_kept():
    def branch(x):
        return fnp.sin(x) if fnp.sum(x) > 0 else fnp.cos(x) * 3.0
    c = fgrad.compile(fgrad.grad(lambda x: fnp.sum(branch(x))))
    e = fgrad.grad(lambda x: fnp.sum(branch(x)))
    for x in (X, -X - 5, X + 1, -X - 6):
        np.testing.assert_allclose(c(x), e(x), rtol=1e-13)
    info = c.cache_info()
    assert info.retraces == 1 and info.hits == 2 and info.size == 2  # (two programs for one key)


def test_int_and_index_of_a_traced_value_are_guarded():
    def pick(x, i):
        return x[int(i)] * fnp.ones(int(i) + 1)
    c = fgrad.compile(pick)
    for i in (np.array(2), np.array(2), np.array(4)):
        np.testing.assert_array_equal(c(X, i), pick(X, i))
    assert c.cache_info().retraces == 1


def test_a_kernel_that_raises_on_replay_sends_the_call_back_to_tracing():
    # det's derivative uses inv, and the adjugate where inv raises: a decision no guard holds.
    c = fgrad.compile(fgrad.grad(fnp.linalg.det))
    good, singular = np.eye(3) * 2.0, np.ones((3, 3))
    c(good)
    np.testing.assert_allclose(c(singular), fgrad.grad(fnp.linalg.det)(singular), atol=1e-12)
    assert "raised on replay" in c.cache_info().last_retrace


def test_shape_dtype_and_structure_changes_trace_anew():
    c = fgrad.compile(fgrad.grad(lambda x: fnp.sum(x ** 3)))
    c(np.ones(3))
    c(np.ones(4))
    assert "float64[3] -> ndarray float64[4]" in c.cache_info().last_retrace
    out = c(np.ones(4, np.float32))
    assert out.dtype == np.float32
    assert "float32" in c.cache_info().last_retrace
    d = fgrad.compile(lambda t: t["a"] * 2.0)
    d({"a": np.ones(2)})
    d({"a": np.ones(2) + 1})
    d({"b": np.ones(2), "a": np.ones(2)})
    assert "structure changed" in d.cache_info().last_retrace
    assert d.cache_info().misses == 2


def test_static_arguments_are_part_of_the_key():
    def power_sum(x, n, *, mode):
        return fnp.sum(x ** n) if mode == "sum" else fnp.max(x ** n)
    c = fgrad.compile(power_sum, static_argnums=1, static_argnames="mode")
    assert c(X, 2, mode="sum") == pytest.approx(float(np.sum(X ** 2)))
    assert c(X, 3, mode="sum") == pytest.approx(float(np.sum(X ** 3)))
    assert c(X, 3, mode="max") == pytest.approx(float(np.max(X ** 3)))
    assert c(X + 1, 3, mode="max") == pytest.approx(float(np.max((X + 1) ** 3)))
    info = c.cache_info()
    assert (info.misses, info.hits) == (3, 1)
    assert info.reasons == ("static argument args[1] changed: 2 -> 3",
                            "static argument kwargs['mode'] changed: 'sum' -> 'max'")


def test_python_numbers_are_traced_by_type_and_numpy_scalars_by_aval():
    c = fgrad.compile(lambda x, lr, n: x * lr + n)
    c(X, 0.1, 1)
    np.testing.assert_allclose(c(X, 0.2, 2), X * 0.2 + 2)
    c(X, -0.0, 1)
    assert c.cache_info().hits == 2 and c.cache_info().misses == 1
    c(X, np.float64(0.1), 1)  # (a NumPy scalar: another kind of input, keyed by its aval)
    np.testing.assert_allclose(c(X, np.float64(0.2), 3), X * 0.2 + 3)
    info = c.cache_info()
    assert (info.hits, info.misses) == (3, 2)
    assert info.last_retrace == "args[1]: kind changed (Python float -> float64 float64[])"


def test_a_python_float_keeps_numpys_weak_promotion():
    x32 = X.astype(np.float32)
    c = fgrad.compile(lambda x, s: x * s)
    assert c(x32, 2.5).dtype == np.float32 == (x32 * 2.5).dtype
    assert c(x32, np.float64(2.5)).dtype == np.float64 == (x32 * np.float64(2.5)).dtype


def test_the_cache_stays_bounded_over_ten_thousand_calls_of_varying_shapes():
    c = fgrad.compile(lambda x: x * 2.0 + 1.0)
    with pytest.warns(RetraceWarning) as record:  # (once, at the ninth shape)
        for k in range(10_000):
            n = 1 + k % 97
            out = c(np.ones(n))
            assert out.shape == (n,)
    assert len(record) == 1
    info = c.cache_info()
    assert info.size <= info.maxsize == 64
    assert info.hits + info.misses == 10_000


# ---- the program: what the passes do, and what they must never do --------------------------
def test_lower_prints_exports_and_shows_the_generated_source():
    lowered = fgrad.compile(fgrad.value_and_grad(loss)).lower(X)
    text = str(lowered)
    assert text.startswith("program(%0:float64[6] (args[0]))") and "tanh" in text and "matmul" in text
    source = lowered.as_text()
    assert "\ndef program(v0):" in source and "return (" in source  # (after the fusion lines: test_fusion.py)
    g = lowered.to_networkx()
    assert any(d["kind"] == "input" for _, d in g.nodes(data=True))
    assert any(d.get("prim") == "matmul" for _, d in g.nodes(data=True))
    assert lowered.to_dot().startswith("digraph fgrad {")


def test_dead_code_is_dropped_and_common_subexpressions_computed_once():
    def f(x):
        unused = fnp.exp(x) * 3.0  # noqa: F841  (its value feeds nothing)
        return fnp.sin(x) + fnp.sin(x)
    lowered = fgrad.compile(f).lower(X)
    assert lowered.program.primitives() == ["sin", "add"]  # (traced: exp, multiply, sin, sin, add)


def test_multiplying_by_one_folds_away_but_adding_zero_does_not():
    lowered = fgrad.compile(lambda x: (x * 1.0) * fnp.ones(6) + 0.0).lower(X)
    assert lowered.program.primitives() == ["add"]  # (-0.0 + 0.0 is +0.0: kept)
    np.testing.assert_array_equal(fgrad.compile(lambda x: x + 0.0)(np.array([-0.0]))[0], 0.0)
    assert not np.signbit(fgrad.compile(lambda x: x + 0.0)(np.array([-0.0]))[0])


def test_policy_products_by_a_constant_the_policy_cannot_touch_are_plain():
    """A safe_multiply or safe_divide whose constant operand leaves the policy nothing to change
    (optimize's _policy_moot) is its plain ufunc, which then folds by the rules above: a sum's
    ones cotangent over sqrt's divisor, W4's two products. A constant with a zero keeps the policy."""
    x = np.array([0.0, 1.0, 4.0])
    plain = fgrad.compile(fgrad.grad(lambda x: fnp.sum(fnp.sqrt(x))))
    assert not any(name.startswith("safe_") for name in plain.lower(x).program.primitives())
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(plain(x), [np.inf, 0.5, 0.25])
    masked = lambda x: fnp.sum(np.array([0.0, 1.0, 2.0]) * fnp.sqrt(x))  # noqa: E731
    kept = fgrad.compile(fgrad.grad(masked))
    assert "safe_divide" in kept.lower(x).program.primitives()  # (sqrt's partial, a Quotient)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(kept(x), fgrad.grad(masked)(x))
        np.testing.assert_array_equal(kept(x), [0.0, 0.5, 0.5])


@pytest.mark.parametrize("product", ["safe_multiply", "safe_divide"])
def test_a_moot_policy_is_moot_at_every_special_value(product):
    """Wherever _policy_moot calls the policy moot for a constant c, the policy's kernel and the
    plain ufunc agree bit for bit for every traced value, on either side (zeros of both signs,
    infinities, NaN, complex)."""
    from types import SimpleNamespace

    from fgrad.compile.optimize import _PLAIN_FORM, _policy_moot
    from fgrad.ops import elementwise as ew
    prim = getattr(ew, product).prim
    reals = [0.0, -0.0, 1.0, -2.5, 1e-310, 1e308, np.inf, -np.inf, np.nan]
    specials = reals + [1j, 1e-310j, complex(1e-310, 1e-310), complex(np.inf, 0.0), complex(0.0, np.nan)]
    moot = 0
    for traced in (np.array(reals), np.array(specials)):
        for c in specials:
            constant = np.full(len(traced), c)
            for ins, args in (((0, 1), (constant, traced)), ((1, 0), (traced, constant))):
                p = SimpleNamespace(consts={0: np.asarray(c)})
                if not _policy_moot(p, prim, ins, np.result_type(*args)):
                    continue
                moot += 1
                with np.errstate(all="ignore"):
                    got, plain = prim.impl(*args), _PLAIN_FORM[prim].impl(*args)
                np.testing.assert_array_equal(np.atleast_1d(got).view(np.float64), plain.view(np.float64),
                                              err_msg=f"{product}{args} at c={c}, ins {ins}")
    assert moot >= 10  # (the test has cases to check: 1, -2.5, 1e-310, 1e308, 1j, ... on some side)


def test_float_literals_become_zero_d_arrays_of_the_operand_dtype():
    for dtype in (np.float64, np.float32):
        lowered = fgrad.compile(lambda x: x * 2.5 + 1.0).lower(X.astype(dtype))
        consts = list(lowered.program.consts.values())
        assert len(consts) == 2 and all(c.shape == () and c.dtype == dtype for c in consts)


@pytest.mark.parametrize("limit", [None, "loop"])
def test_policy_products_on_scalars_are_operators_retried_at_a_nan(monkeypatch, limit):
    """On NumPy scalars a step of safe_multiply or safe_divide is written as its operator and
    the kernel runs only where that made a NaN (codegen's _as_operator): the values are the
    kernels', bit for bit, at ordinary points and where the policy turns 0 * inf into 0."""
    if limit == "loop":
        monkeypatch.setattr(codegen, "LOOP_LIMIT", 1)

    def f(x):  # masked x log x (safe_multiply of log's infinite partial) and log (safe_divide) at 0
        return fnp.where(x > 0, x * fnp.log(x), 0.0) + fnp.where(x > 0, fnp.arcsin(x / 4.0), 0.0)
    g = fgrad.grad(f)
    c = fgrad.compile(g)
    if limit is None:
        source = c.lower(np.float64(2.0)).as_text()
        assert "_w if (_w := " in source and "safe_multiply" in source and "safe_divide" in source
    for x in (2.0, 1.5, 0.0, 0.0, 4.0):
        x = np.float64(x)
        got, want = c(x), g(x)
        assert got.__class__ is want.__class__ and got == want, (x, got, want)
    assert c(np.float64(0.0)) == 0.0 and c(np.float64(4.0)) == np.inf  # (at 0 the policy's 0; arcsin at 1 is inf)


def test_buffers_are_reused_only_where_no_other_value_can_see_them(monkeypatch):
    def f(x):
        y = fnp.exp(x)
        v = fnp.reshape(y, (2, 3))  # a view of y: y's buffer must not be reused while v lives
        z = fnp.sin(y) * 2.0
        m = A @ x  # (matmul is declared fresh: its buffer is reused by the tanh and the add)
        return fnp.sum(z) + fnp.sum(v * 3.0) + fnp.sum(fnp.tanh(m) + m)
    src = fgrad.compile(fgrad.grad(f)).lower(X).as_text()
    assert "out=" in src
    for poison in (False, True):  # poisoned: every buffer free for reuse is filled with NaN as it dies
        monkeypatch.setattr(codegen, "POISON", poison)
        for fn in (f, fgrad.value_and_grad(f), fgrad.hessian(f)):
            c = fgrad.compile(fn)
            c(X + 1)
            for got, want in zip(fgrad.transforms.trees.flatten(c(X))[0], fgrad.transforms.trees.flatten(fn(X))[0]):
                np.testing.assert_allclose(got, want, rtol=1e-13)


def test_inputs_and_closed_over_constants_are_never_written():
    x, const = X.copy(), A.copy()
    c = fgrad.compile(fgrad.grad(lambda x: fnp.sum(fnp.sin(const @ x) * 2.0)))
    c(x)
    c(x)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(const, A)


@pytest.mark.parametrize("limit", ["chunks", "loop"])
def test_long_programs_compile_in_chunks_or_run_as_a_loop(monkeypatch, limit):
    monkeypatch.setattr(codegen, "CHUNK", 50)
    if limit == "loop":
        monkeypatch.setattr(codegen, "LOOP_LIMIT", 100)

    def chain(x):
        if fnp.sum(x) > 0:  # (a guard, and below a step of several results, in every kind of program)
            x = x * 2.0
        for _ in range(60):
            x = fnp.sin(x) * 1.01 + 0.1
        _, logdet = fnp.linalg.slogdet(fnp.outer(x, x) + fnp.eye(6))
        return fnp.sum(x) + logdet
    c = fgrad.compile(fgrad.value_and_grad(chain))
    c(X + 1)
    for x in (X, -X - 3.0):  # (the second flips the branch: a guard fails in the replay)
        got = c(x)
        want = fgrad.value_and_grad(chain)(x)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    assert c.cache_info().hits >= 1 and c.cache_info().retraces == 1
    source = c.lower(X).as_text()
    assert ("def program_3(V):" in source) if limit == "chunks" else source.startswith("# ")


# ---- errors -------------------------------------------------------------------------------
def test_an_escaped_traced_value_is_an_error_naming_it():
    leaked = []

    def leak(x):
        leaked.append(x * 2.0)
        return fnp.sum(x)
    fgrad.compile(leak)(X)
    with pytest.raises(TypeError, match=r"traced value of compile.*has already returned"):
        fnp.sin(leaked[0])


def test_an_unhashable_static_argument_is_named():
    c = fgrad.compile(lambda x, opts: x * opts[0], static_argnums=1)
    with pytest.raises(TypeError, match=r"static argument 1 is static, so it must be hashable.*list"):
        c(X, [2.0])


def test_a_non_array_output_is_named():
    with pytest.raises(TypeError, match=r"returned a str \('done'\) at output \[1\]"):
        fgrad.compile(lambda x: (x * 2.0, "done"))(X)


def test_a_traced_value_of_an_inner_transform_returned_is_an_error():
    inner = []

    def f(x):
        fgrad.grad(lambda y: inner.append(y) or fnp.sum(y))(x)
        return inner[0]
    with pytest.raises(TypeError, match="traced value of grad"):
        fgrad.compile(f)(X)


# ---- side effects -------------------------------------------------------------------------
def test_print_and_np_random_warn_once_while_traced():
    def noisy(x):
        print("tracing")
        return x + np.random.normal()
    c = fgrad.compile(noisy)
    with pytest.warns(SideEffectWarning) as record:
        first = c(X)
    assert {str(w.message).split(" ", 2)[2][:7] for w in record} == {"printed", "drew fr"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = c(X)  # (replay: neither prints nor draws, and warns nothing)
    np.testing.assert_array_equal(first, second)


# ---- composition --------------------------------------------------------------------------
def test_a_compiled_function_inside_grad_runs_eagerly_under_it():
    c = fgrad.compile(loss)
    np.testing.assert_allclose(fgrad.grad(c)(X), fgrad.grad(loss)(X), rtol=1e-13)
    np.testing.assert_allclose(fgrad.vmap(c)(np.stack([X, X + 1])), [loss(X), loss(X + 1)], rtol=1e-13)
    assert c.cache_info().misses == 0


def test_tensors_run_eagerly():
    c = fgrad.compile(lambda t: (t * 2.0).sum())
    t = fgrad.tensor(X, requires_grad=True)
    c(t).backward()
    np.testing.assert_allclose(t.grad.numpy(), np.full(6, 2.0))


def test_a_program_traced_on_another_device_replays_there():
    dev = fgrad.backend.register_numpy_device(1)
    x = dev.send(X)
    c = fgrad.compile(fgrad.grad(lambda x: fnp.sum(fnp.sin(x) * x * 3.0)))
    c(dev.send(X + 1))
    g = c(x)
    assert fgrad.backend.device_of(g) == dev
    np.testing.assert_allclose(np.asarray(g), fgrad.grad(lambda x: fnp.sum(fnp.sin(x) * x * 3.0))(X), rtol=1e-13)
    assert c.cache_info().hits == 1
    c(X)  # (the CPU: another key)
    assert c.cache_info().misses == 2


@pytest.mark.gpu
def test_a_program_traced_on_cupy_replays_on_cupy():
    if not fgrad.backend.cupy_available():
        pytest.skip("no CUDA device")
    import cupy as cp
    c = fgrad.compile(fgrad.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2 * 3.0)))
    c(cp.asarray(X + 1))
    g = c(cp.asarray(X))
    assert isinstance(g, cp.ndarray) and c.cache_info().hits == 1
    np.testing.assert_allclose(g.get(), fgrad.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2 * 3.0))(X), rtol=1e-12)


def test_conversions_of_a_value_under_compile_alone_are_guarded_reads():
    def f(x, s):
        scale = float(s) + s.item() + np.asarray(s)[()]   # (no derivative to drop: reads, guarded)
        return x * scale
    c = fgrad.compile(f)
    for s in (np.array(1.0), np.array(1.0), np.array(2.0)):
        np.testing.assert_allclose(c(X, s), X * 3 * float(s))
    assert c.cache_info().retraces == 1
    with pytest.raises(TypeError, match="would drop the derivative"):  # (under grad: as eagerly)
        fgrad.compile(fgrad.grad(lambda x: float(fnp.sum(x)) * fnp.sum(x)))(X)


def test_an_unhashable_non_array_leaf_is_named_with_its_path():
    c = fgrad.compile(lambda x, cfg: x * len(cfg["names"]))
    with pytest.raises(TypeError, match=r"the non-array argument args\[1\]\['names'\] \(set\) is static"):
        c(X, {"names": {"a", "b"}})


def test_a_decision_on_fnp_any_is_guarded_on_its_answer_not_on_the_values():
    def relu_if_any_negative(x):
        return fnp.maximum(x, 0.0) if fnp.any(x < 0) else x * 2.0
    c = fgrad.compile(relu_if_any_negative)
    for x in (X, X + 0.5, X * 2, np.abs(X), np.abs(X) + 1):  # (the answer flips once, at the fourth)
        np.testing.assert_array_equal(c(x), relu_if_any_negative(x))
    info = c.cache_info()
    assert (info.hits, info.retraces) == (3, 1)


def test_integer_index_arrays_are_operands_of_the_program_not_guards():
    def pick(x, idx):
        return fgrad.grad(lambda x: fnp.sum(fnp.take(x, idx) * x[idx] ** 2))(x)
    c = fgrad.compile(pick)
    for idx in (np.array([0, 2, 2]), np.array([5, 1, 0]), np.array([3, 3, 3])):
        np.testing.assert_allclose(c(X, idx), pick(X, idx), rtol=1e-13)
    assert c.cache_info().hits == 2 and not c.lower(X, np.array([0, 1, 2])).program.guards
    with pytest.raises(IndexError):  # out of bounds: the replay's kernel raises, and so does the trace
        c(X, np.array([0, 9, 1]))


def test_the_warnings_point_at_the_users_lines():
    def noisy(x):
        print("tracing")  # the line the print warning names
        return x + np.random.normal()
    c = fgrad.compile(noisy)
    with pytest.warns(SideEffectWarning) as record:
        c(X)  # the line the random warning names
    assert {w.filename for w in record} == {__file__}


class _Model:
    def __init__(self, w):
        self.w = w

    @fgrad.compile
    def loss(self, x):
        return fnp.sum(fnp.tanh(self.w * x))


def test_a_compiled_method_gets_its_instance():
    m = _Model(np.array(2.0))
    np.testing.assert_allclose(m.loss(X), np.sum(np.tanh(2.0 * X)))
    np.testing.assert_allclose(m.loss(X + 1), np.sum(np.tanh(2.0 * (X + 1))))
    assert _Model.loss.cache_info().hits == 1


# ---- compositions, each replayed on new values and compared with the eager result -----------
@fgrad.custom_vjp
def _clipped_sin(x):
    return fnp.sin(x)


_clipped_sin.defvjp(lambda x: (fnp.sin(x), fnp.cos(x)), lambda r, g: (fnp.clip(g * r, -0.1, 0.1),))


@fgrad.custom_jvp
def _soft(x):
    return fnp.log1p(fnp.exp(x))


_soft.defjvp(lambda primals, tangents: (_soft(primals[0]), tangents[0] * 0.5))

COMPOSITIONS = {
    "grad": lambda x: fgrad.grad(loss)(x),
    "value_and_grad has_aux": lambda x: fgrad.value_and_grad(lambda x: (loss(x), {"m": fnp.mean(x)}),
                                                             has_aux=True)(x),
    "hessian": lambda x: fgrad.hessian(loss)(x),
    "jacfwd": lambda x: fgrad.jacfwd(lambda x: fnp.tanh(A @ x))(x),
    "jacrev": lambda x: fgrad.jacrev(lambda x: fnp.tanh(A @ x))(x),
    "hvp (jvp of grad)": lambda x: fgrad.jvp(fgrad.grad(loss), (x,), (fnp.ones_like(x),))[1],
    "vmap(grad)": lambda x: fgrad.vmap(fgrad.grad(lambda w, xi: fnp.sum(fnp.tanh(w * xi))),
                                       in_axes=(None, 0))(x, fnp.stack([x, x * 2.0, -x])),
    "grad(vmap)": lambda x: fgrad.grad(lambda x: fnp.sum(fgrad.vmap(fnp.sin)(fnp.reshape(x, (2, 3)))))(x),
    "custom_vjp": lambda x: fgrad.grad(lambda x: fnp.sum(_clipped_sin(x) * x))(x),
    "custom_jvp": lambda x: fgrad.jvp(lambda x: _soft(x) * x, (x,), (fnp.ones_like(x),)),
    "checkpoint": lambda x: fgrad.grad(lambda x: fnp.sum(fgrad.checkpoint(lambda y: fnp.exp(fnp.sin(y)))(x)))(x),
    "linearize": lambda x: fgrad.linearize(lambda x: fnp.sin(x) * x, x)[1](fnp.ones_like(x)),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compositions_replay_to_the_eager_result(name):
    fn = COMPOSITIONS[name]
    c = fgrad.compile(fn)
    c(X + 0.5)
    for x in (X, X * 0.5 - 1):
        got, want = fgrad.transforms.trees.flatten(c(x))[0], fgrad.transforms.trees.flatten(fn(x))[0]
        assert len(got) == len(want)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    assert c.cache_info().hits == 2


def test_a_training_step_with_new_labels_each_call_replays():
    W = RNG.standard_normal((6, 3))

    def step(W, x, labels):
        return fgrad.value_and_grad(lambda W: fgrad.nn.functional.cross_entropy(x @ W, labels))(W)
    c = fgrad.compile(step)
    for _ in range(4):
        x, labels = RNG.standard_normal((5, 6)), RNG.integers(0, 3, size=5)
        got, want = c(W, x, labels), step(W, x, labels)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-13)
    assert c.cache_info().hits == 3


def test_steps_that_differ_only_in_the_sign_of_a_zero_are_not_shared():
    c = fgrad.compile(lambda x: (1.0 / (x * 0.0), 1.0 / (x * -0.0)))
    for x in (np.ones(2), np.float64(1.0)):  # (arrays: 0-d constants; NumPy scalars: literals)
        with np.errstate(divide="ignore"):
            c(x)
            pos, neg = c(x)
        assert np.all(pos == np.inf) and np.all(neg == -np.inf)


def test_steps_of_constants_alone_are_computed_once_at_compile_time():
    # x static: grad's whole program is constants, folded away.
    c = fgrad.compile(fgrad.grad(lambda x: fnp.sin(x) * fnp.exp(x)), static_argnums=0)
    lowered = c.lower(0.5)
    assert lowered.program.primitives() == [] and lowered.program.consts
    assert c(0.5) == pytest.approx(np.cos(0.5) * np.exp(0.5) + np.sin(0.5) * np.exp(0.5), rel=1e-15)
    assert c(0.5) == fgrad.grad(lambda x: fnp.sin(x) * fnp.exp(x))(0.5)


def test_a_pullback_of_a_python_float_compiles():
    # JAX's autodiff cookbook: jit(f_vjp)(1.), the cotangent a traced Python float
    _, f_vjp = fgrad.vjp(fnp.sin, 0.5)
    c = fgrad.compile(f_vjp)
    assert np.allclose(c(1.0), np.cos(0.5)) and np.allclose(c(2.0), 2.0 * np.cos(0.5))
    assert c.cache_info().traces == 1 and c(3.0) == f_vjp(3.0)


def test_a_sum_of_slices_cotangents_is_one_scatter_sum():
    """The cotangent of x read in n slices was n zeros arrays of x's size and n - 1 adds in a
    compiled program (n^2 work: a 50-step LSTM's training step ran 2.7 times torch's); the
    optimizer sums them into one buffer, bit for bit, where the pieces do not overlap."""
    x = np.random.default_rng(0).standard_normal((40, 3))

    def loss(x):
        h = x[0]
        for t in range(1, 40):  # (a recurrence reading x[t])
            h = np.tanh(h * x[t])
        return h.sum()
    step = fgrad.compile(fgrad.grad(lambda x: loss(x)))
    names = [s.prim.name for s in step.lower(x).program.body if hasattr(s, "prim")]
    assert names.count("scatter_sum") == 1 and names.count("scatter_add") == 0, names
    np.testing.assert_array_equal(step(x), fgrad.grad(loss)(x))

    def overlapping(x):  # (x[:2] and x[1:] overlap: summed in another order they could round apart)
        return (fnp.sin(x[:2]) ** 2).sum() + (fnp.cos(x[1:]) ** 3).sum()
    compiled = fgrad.compile(fgrad.grad(overlapping))
    assert "scatter_sum" not in [s.prim.name for s in compiled.lower(x).program.body if hasattr(s, "prim")]
    np.testing.assert_array_equal(compiled(x), fgrad.grad(overlapping)(x))


def test_a_scatter_of_a_summed_cotangent_comes_after_its_sum():
    """x[0]'s cotangent is a sum of two slices' scatters, itself scattered into x: the summed
    buffer must be written before the outer scatter reads it (it was placed after, and every
    replay raised and traced again)."""
    x = np.random.default_rng(1).standard_normal((3, 5))

    def loss(x):
        return fnp.sum(fnp.ediff1d(x[0]) ** 3) + fnp.sum(x)
    step = fgrad.compile(fgrad.grad(loss))
    step(x * 1.001)
    np.testing.assert_array_equal(step(x), fgrad.grad(loss)(x))
    assert step.cache_info().hits == 1 and step.cache_info().retraces == 0


def test_the_nan_safe_policy_is_part_of_the_cache_key():
    """A program traced under one zero-cotangent policy replayed under the other returned the
    first policy's numbers: the switch is in the key, so the other policy traces anew."""
    def masked_sqrt(x):
        return fnp.sum(fnp.where(x > 0, fnp.sqrt(x), 0.0))
    step = fgrad.compile(fgrad.grad(masked_sqrt))
    x = np.array([0.0, 4.0])
    np.testing.assert_array_equal(step(x), [0.0, 0.25])
    with fgrad.config.overriding(nan_safe_zeros=False), np.errstate(all="ignore"):
        assert np.isnan(step(x)[0])  # (JAX's number, as eagerly)
    np.testing.assert_array_equal(step(x), [0.0, 0.25])
    info = step.cache_info()
    assert info.traces == 2 and info.hits == 1 and "nan_safe_zeros changed: True -> False" in info.reasons[0]
