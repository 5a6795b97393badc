"""fgrad.compile's fusion (compile/fusion.py, compile/numba_kernels.py): fused and unfused
programs give the same bits, dtypes and warnings; what a region keeps alive stays an output."""
import sys
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.compile import fusion
from fgrad.ops.primitive import REGISTRY, bind

numba = pytest.importorskip("numba")
from fgrad.compile import numba_kernels  # noqa: E402  (after the skip: it imports numba)

RNG = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def fuse_when_traced(monkeypatch):
    """Fuse at trace time (Note [fusing late]: programs are fused on a later replay)."""
    monkeypatch.setattr(fusion, "FUSE_AFTER", 0)


def same_bits(a, b):
    """Equal values, dtypes and classes, bit for bit (NaN payloads and zero signs too)."""
    la, lb = fgrad.tree_util.tree_leaves(a), fgrad.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert type(x) is type(y), (type(x), type(y))
        assert np.asarray(x).dtype == np.asarray(y).dtype and np.shape(x) == np.shape(y)
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), (x, y)


def both(fun, *args, fuse=True, **kw):
    """(fused result of a replay, unfused result of a replay, the fused Lowered)."""
    f, g = fgrad.compile(fun, fuse=fuse, **kw), fgrad.compile(fun, fuse=False, **kw)
    f(*args), g(*args)
    return f(*args), g(*args), f.lower(*args)


def kernels(lowered):
    return [s.prim for s in lowered.program.eqns if isinstance(s.prim, fusion.FusedKernel)]


def kernel_only(lowered):
    """Make `lowered`'s fused steps raise rather than run NumPy's steps: the loop must give the result."""
    def refuse(*args):
        raise AssertionError("the fused kernel fell back to NumPy's steps")
    for k in kernels(lowered):
        k.impl.__globals__["numpy_steps"] = refuse
    return lowered


def _every(kind, x, y):
    """Each primitive declared fuse=`kind`, on x (unary) or x and y (binary); one region."""
    outs = []
    for name, prim in sorted(REGISTRY.items()):
        if prim.fuse == kind:
            args = (x,) if prim.impl.nin == 1 else (x, y)
            outs.append(bind(prim, args if "logical" not in name else tuple(a > 0 for a in args), {}))
    return outs


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_exact_primitive_fused_gives_numpys_bits(dtype):
    x = (RNG.standard_normal(64) * 3).astype(dtype)
    x[:2] = [0.5, -2.5]  # (halves for rint)
    y = (RNG.uniform(0.5, 2.0, 64) * RNG.choice([-1, 1], 64)).astype(dtype)
    fun = fgrad.compile(lambda x, y: _every("exact", fnp.absolute(x) + 0.0 * x, y))
    fun(x, y)
    lowered = kernel_only(fun.lower(x, y))
    same_bits(fun(x, y), fgrad.compile(fun.fun, fuse=False)(x, y))
    assert fun.cache_info().retraces == 0  # (a fused step that raised would have been traced again)
    (k,) = kernels(lowered)  # (one kernel for all: numba compiles once)
    assert {s.prim.fuse for s in k.steps} == {"exact"} and len(k.steps) > 25
    assert "numba kernel" in lowered.as_text()


def test_signed_zeros():
    x = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5])
    y = np.array([-0.0, 0.0, -0.0, 0.0, -1.0, 1.0])

    def f(x, y):
        return (fnp.copysign(x, y), -x, fnp.absolute(y), x * y, x - y, x + y, fnp.floor(-x), fnp.ceil(x * -0.5),
                fnp.trunc(y), fnp.rint(x), fnp.sqrt(y * 0.0), fnp.square(y))

    fun = fgrad.compile(f)
    fun(x, y)
    kernel_only(fun.lower(x, y))
    same_bits(fun(x, y), fgrad.compile(f, fuse=False)(x, y))
    assert fun.cache_info().retraces == 0


def test_no_fused_multiply_add(monkeypatch, tmp_path):
    """a * b + c, rounded twice as NumPy does: LLVM contracts nothing (no vfmadd in the code)."""
    monkeypatch.setattr(numba_kernels, "CACHE_DIR", str(tmp_path))  # (compiled now: numba shows no code it loaded)
    monkeypatch.setattr(numba_kernels, "_COMPILED", {})
    a, b, c = (RNG.standard_normal(4096) for _ in range(3))
    fused, plain, lowered = both(lambda a, b, c: (a * b + c) * 1.5 - a, a, b, c)
    same_bits(fused, plain)
    kernel = kernels(lowered)[0].impl.__globals__["kernel"]
    asm = "".join(kernel.inspect_asm().values())
    assert "fmadd" not in asm and "fmsub" not in asm


def test_a_kept_intermediate_is_an_output_of_the_kernel():
    x = RNG.standard_normal(16)
    fused, plain, lowered = both(lambda x: (x * 2.0 + 1.0, fnp.sum((x * 2.0 + 1.0) * x - 3.0)), x)
    same_bits(fused, plain)
    (eqn,) = [s for s in lowered.program.eqns if isinstance(s.prim, fusion.FusedKernel)]
    assert len(eqn.outs) == 2  # (x * 2 + 1 returned, and the product the sum reads)


def test_gradient_and_scalar_region():
    def chain(x, y):
        for _ in range(12):
            x = x * y + 0.25
            x = x / (y - 3.0) - x
        return x

    x, y = np.float64(0.7), np.float64(1.3)
    fused, plain, lowered = both(fgrad.value_and_grad(chain, argnums=(0, 1)), x, y)
    same_bits(fused, plain)
    assert kernels(lowered) and all(p.avals[s.outs[0]][0] == () for p in [lowered.program]
                                    for s in kernels(lowered)[0].steps)


def test_a_guard_on_a_fused_value_retraces():
    def f(x):
        a = x * 3.0 - 1.0
        b = a * a
        return b + 1.0 if fnp.sum(a) > 0 else b - 1.0

    f_fused = fgrad.compile(f)
    for v in (1.0, 1.5, -1.0, -2.0, 1.0):
        x = np.full(8, v)
        same_bits(f_fused(x), fgrad.compile(f, fuse=False)(x))
    assert f_fused.cache_info().retraces >= 1


def test_float_errors_warn_and_raise_as_unfused():
    """An inf or NaN made inside the kernel: NumPy's steps run instead, with NumPy's warnings."""
    def f(x, y):
        return (x * 2.0) / y + 1.0

    x, y = np.ones(8), np.full(8, 2.0)
    f_fused = fgrad.compile(f)
    f_fused(x, y)
    y0 = y.copy()
    y0[3] = 0.0
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        got = f_fused(x, y0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_bits(got, fgrad.compile(f, fuse=False)(x, y0))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f_fused(x, y0)
    with np.errstate(all="ignore"):
        same_bits(f_fused(x, np.zeros(8)), np.full(8, np.inf))


def test_a_step_traced_under_an_underflow_errstate_is_not_fused():
    x = np.ones(8)
    with np.errstate(under="raise"):
        lowered = fgrad.compile(lambda x: x * 2.0 + 1.0).lower(x)
    assert not kernels(lowered)


def test_int_float_promotion_and_weak_python_scalars():
    i = np.arange(16, dtype=np.int32) - 5
    x32 = RNG.standard_normal(16).astype(np.float32)

    def f(i, x, lr, n):
        a = x * lr + n  # float32: lr and n are weak
        b = i * 0.5 + x  # int32 * Python float -> float64, + float32 -> float64
        return a * a - lr, b * (a > 0), (i > 2) & (a < 1)

    fused, plain, lowered = both(f, i, x32, 0.1, 3)
    same_bits(fused, plain)
    assert [r.dtype for r in fused] == [np.float32, np.float64, np.bool_]
    assert kernels(lowered)


def test_fuse_false_and_split_regions(monkeypatch):
    x = RNG.standard_normal(8)

    def f(x):
        for _ in range(5):
            x = x * 1.25 - 0.5
        return x

    assert not kernels(fgrad.compile(f, fuse=False).lower(x))
    assert "fusion off (fuse=False)" in fgrad.compile(f, fuse=False).lower(x).as_text()
    monkeypatch.setattr(fusion, "MAX_STEPS", 4)
    fused, plain, lowered = both(f, x)
    same_bits(fused, plain)
    assert [len(k.steps) for k in kernels(lowered)] == [4, 4]  # (and 2 unfused: fewer than MIN_STEPS)


def test_an_operand_the_kernel_does_not_take_runs_numpys_steps():
    x = RNG.standard_normal((6, 4))
    f = fgrad.compile(lambda x: x * 2.0 + 1.0)
    f(x)
    same_bits(f(x.T.copy().T), x * 2.0 + 1.0)  # (F-ordered: the kernel takes C-contiguous arrays)
    assert f.cache_info().retraces == 0


def test_broadcast_operands():
    a, b, c = RNG.standard_normal((3, 1)), RNG.standard_normal((1, 4)), np.array(0.5)
    fused, plain, _ = both(lambda a, b, c: (a * b - c) * a + 2.0, a, b, c)
    same_bits(fused, plain)


def test_libm_functions_are_fused_only_when_asked():
    x = RNG.standard_normal(16)

    def f(x):
        return fnp.sin(x * 0.5) * fnp.exp(x) + 1.0

    ops = {s.prim.name for k in kernels(fgrad.compile(f).lower(x)) for s in k.steps}
    assert "sin" not in ops and "exp" not in ops
    lowered = fgrad.compile(f, fuse="libm").lower(x)
    assert {"sin", "exp"} <= {s.prim.name for k in kernels(lowered) for s in k.steps}
    np.testing.assert_allclose(fgrad.compile(f, fuse="libm")(x), f(x), rtol=1e-15)
    with pytest.raises(ValueError, match="fuse"):
        fgrad.compile(f, fuse="fast")


def test_a_program_is_fused_on_a_later_replay(monkeypatch):
    monkeypatch.setattr(fusion, "FUSE_AFTER", 3)
    x = RNG.standard_normal(8)
    f = fgrad.compile(lambda x: (x * 2.0 + 1.0) * x - 0.5)
    want = f(x)
    lowered = f.lower(x)  # (lower replays once: it checks the guards)
    assert not kernels(lowered) and "fused on replay 3" in lowered.as_text()
    for _ in range(3):
        same_bits(f(x), want)
    assert kernels(lowered) and "numba kernel" in lowered.as_text()
    assert f.cache_info().traces == 1


def test_without_numba_programs_run_unfused(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # (import numba raises ImportError)
    monkeypatch.delitem(sys.modules, "fgrad.compile.numba_kernels", raising=False)
    monkeypatch.delattr(sys.modules["fgrad.compile"], "numba_kernels", raising=False)
    x = RNG.standard_normal(8)
    lowered = fgrad.compile(lambda x: (x * 2.0 + 1.0) * x - 0.5).lower(x)
    assert not kernels(lowered)
    assert "numba is not installed" in lowered.as_text()
    same_bits(lowered.run(x)[0], (x * 2.0 + 1.0) * x - 0.5)
