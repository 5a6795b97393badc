"""fgrad against JAX on the corpus of composed functions in tests/jax_corpus.py.

Each (function, transform) pair is its own test. Scalar-output functions are compared on
value, grad, jvp, vjp, jacfwd, jacrev, hessian and grad-of-grad; functions with array or
pytree outputs on value, jvp, vjp, jacfwd, jacrev, hessian (second derivative tensor) and
reverse-over-reverse (the gradient of a weighted sum of a vjp). float64 cases must agree to
1e-10 relative; float32 cases must keep float32 and agree to ~1e-5.

References come from JAX with x64 enabled. To keep the file fast (XLA compiling is the
cost), JAX computes only each function's value, Jacobian (jax.jacrev) and Hessian
(jax.hessian), a dozen functions per jitted program; grad, jacfwd and jacrev are compared
with that Jacobian, jvp, vjp and grad-of-grad with its float64 contractions with the
tangent, cotangent and weights. test_derived_references_equal_direct_jax_transforms checks
the derivation against jax.grad/jvp/vjp/jacfwd/... on a few functions; FGRAD_JAX_DIRECT=1
compares every function with the JAX transforms themselves (slower). Compiled programs are
cached on disk between runs (FGRAD_JAX_CACHE=0 turns that off).

Edge points (ties, kinks, zeros, NaN; jax_corpus.EDGE_CASES) are compared on value and
gradient at the end of the file.
"""
import copy
import importlib
import os
import tempfile
import zlib

import numpy as np
import optree
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
_flags = os.environ.get("XLA_FLAGS")
if "xla_backend_optimization_level" not in (_flags or ""):
    # The reference programs are tiny and run once: compile them fast rather than well. XLA
    # reads the flags when the backend starts (here), so other processes keep theirs.
    os.environ["XLA_FLAGS"] = f"{_flags or ''} --xla_backend_optimization_level=0".strip()
    try:
        jax.devices()
    finally:
        if _flags is None:
            del os.environ["XLA_FLAGS"]
        else:
            os.environ["XLA_FLAGS"] = _flags
if os.environ.get("FGRAD_JAX_CACHE", "1") != "0":
    # Compiled reference programs persist between runs (keyed by their HLO, the flags and
    # JAX's version), so a rerun skips XLA; FGRAD_JAX_CACHE=0 turns this off.
    _cache = os.path.join(tempfile.gettempdir(), f"fgrad-jax-reference-cache-{getattr(os, 'getuid', lambda: 0)()}")
    jax.config.update("jax_compilation_cache_dir", _cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
import jax.numpy as jnp  # noqa: E402

import fgrad  # noqa: E402
import fgrad.numpy as fnp  # noqa: E402

from .jax_corpus import CASES, EDGE_CASES, Case  # noqa: E402

# FGRAD_JAX_DIRECT=1: every reference straight from the matching JAX transform (slower).
DIRECT = os.environ.get("FGRAD_JAX_DIRECT") == "1"
SCALAR_TRANSFORMS = ("value", "grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "gradgrad")
ARRAY_TRANSFORMS = ("value", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "gradgrad")


def leaves(tree):
    return optree.tree_leaves(tree, none_is_leaf=False)


def structure(tree):
    return optree.tree_structure(tree, none_is_leaf=False)


def missing(case):
    """The first of case.requires that fgrad does not (yet) provide, or None."""
    for req in case.requires:
        if req.startswith("scipy."):
            try:
                obj = importlib.import_module("fgrad.scipy.special")
            except ImportError:
                return req
            parts = req.split(".")[2:]
        else:
            obj, parts = fnp, req.split(".")
        for part in parts:
            obj = getattr(obj, part, None)
            if obj is None:
                return req
    return None


def scalar_output(case):
    """Whether the function returns a single 0-d value (decided by running it on plain NumPy)."""
    out = case.fn(np, *case.args)
    return not isinstance(out, (tuple, list, dict)) and np.ndim(out) == 0


def positions(case):
    return (case.argnums,) if isinstance(case.argnums, int) else case.argnums


def diff_args(case):
    return [case.args[i] for i in positions(case)]


def local_argnums(case):
    """argnums of the partial function of the differentiated arguments (int stays int)."""
    return 0 if isinstance(case.argnums, int) else tuple(range(len(case.argnums)))


def partial(case, np_):
    def f(*diff):
        full = list(case.args)
        for i, d in zip(positions(case), diff):
            full[i] = d
        return case.fn(np_, *full)
    f.__name__ = case.name
    return f


def random_like(tree, rng):
    """Random values with the structure, shapes and dtypes of `tree` (0-d arrays for scalars)."""
    def one(x):
        dtype = np.asarray(x).dtype
        dtype = dtype if np.issubdtype(dtype, np.floating) else np.float64
        return np.asarray(rng.standard_normal(np.shape(x)), dtype=dtype)
    return optree.tree_map(one, tree, none_is_leaf=False)


class Inputs:
    """The arguments, tangents, cotangent and weights used for one case (deterministic)."""

    def __init__(self, case):
        rng = np.random.default_rng(zlib.crc32(case.name.encode()))
        self.diff = diff_args(case)
        self.tangents = random_like(tuple(self.diff), rng)
        out = case.fn(np, *case.args)
        self.cotangent = random_like(out, rng)
        self.weights = leaves(random_like(tuple(self.diff), rng))
        self.scalar = scalar_output(case)


def tree_vdot(np_, tree, weights):
    total = 0.0
    for leaf, w in zip(leaves(tree), weights):
        total = total + np_.sum(leaf * w)
    return total


def compute_all(case, np_, ad, inputs, only=None):
    """Every compared quantity of `case`, with `ad` (fgrad or jax) and its numpy `np_`."""
    f = partial(case, np_)
    an = local_argnums(case)
    diff = inputs.diff
    want = (lambda name: only is None or name == only)  # noqa: E731
    r = {}
    if want("value"):
        r["value"] = f(*diff)
    if want("jvp"):
        r["jvp"] = ad.jvp(f, tuple(diff), tuple(inputs.tangents))
    if want("vjp"):
        out, pull = ad.vjp(f, *diff)
        r["vjp"] = (out, pull(inputs.cotangent))
    if want("jacfwd"):
        r["jacfwd"] = ad.jacfwd(f, an)(*diff)
    if want("jacrev"):
        r["jacrev"] = ad.jacrev(f, an)(*diff)
    if want("hessian"):
        r["hessian"] = ad.hessian(f, an)(*diff)
    if inputs.scalar and want("grad"):
        r["grad"] = ad.grad(f, an)(*diff)
    if want("gradgrad"):
        if inputs.scalar:
            first = ad.grad(f, an)
        else:
            def first(*d):
                return ad.vjp(f, *d)[1](inputs.cotangent)
        r["gradgrad"] = ad.grad(lambda *d: tree_vdot(np_, first(*d), inputs.weights), an)(*diff)
    return r


_REFERENCE = {}
_CHUNK = 12  # cases compiled together in one XLA program


def _jax_program(case):
    f = partial(case, jnp)
    an = local_argnums(case)

    def program(diff):
        return {"value": f(*diff), "jac": jax.jacrev(f, an)(*diff), "hess": jax.hessian(f, an)(*diff)}
    return program


def _blocks(flat, out_sizes, in_sizes, order):
    """Assemble JAX's per-leaf Jacobian (order 1) or Hessian (order 2) blocks into one array."""
    m, n = sum(out_sizes), sum(in_sizes)
    full = np.zeros((m,) + (n,) * order)
    it = iter(flat)
    ro = np.cumsum([0] + out_sizes)
    ri = np.cumsum([0] + in_sizes)
    for i in range(len(out_sizes)):
        for k in range(len(in_sizes)):
            if order == 1:
                full[ro[i]:ro[i + 1], ri[k]:ri[k + 1]] = np.reshape(next(it), (out_sizes[i], in_sizes[k]))
            else:
                for j in range(len(in_sizes)):
                    full[ro[i]:ro[i + 1], ri[k]:ri[k + 1], ri[j]:ri[j + 1]] = np.reshape(
                        next(it), (out_sizes[i], in_sizes[k], in_sizes[j]))
    return full


def _split(flat, like, tree):
    out, start = [], 0
    for x in like:
        size = int(np.size(x))
        out.append(np.asarray(flat[start:start + size].reshape(np.shape(x)), dtype=np.asarray(x).dtype))
        start += size
    return optree.tree_unflatten(tree, out)


def _derive(case, inputs, raw):
    """Every compared quantity from JAX's value, Jacobian and Hessian.

    grad, jacfwd and jacrev are JAX's Jacobian; jvp, vjp and grad-of-grad are its
    contractions with the tangent, cotangent and weights (in float64).
    """
    value, jac, hess = raw["value"], raw["jac"], raw["hess"]
    out_leaves, out_tree = optree.tree_flatten(value, none_is_leaf=False)
    in_leaves, in_tree = optree.tree_flatten(tuple(inputs.diff), none_is_leaf=False)
    arg_tree = structure(inputs.diff[0]) if isinstance(case.argnums, int) else in_tree
    out_sizes = [int(np.size(o)) for o in out_leaves]
    in_sizes = [int(np.size(x)) for x in in_leaves]
    J = _blocks(leaves(jac), out_sizes, in_sizes, 1)
    H = _blocks(leaves(hess), out_sizes, in_sizes, 2)
    t = np.concatenate([np.ravel(x).astype(np.float64) for x in leaves(inputs.tangents)])
    ct = np.concatenate([np.ravel(x).astype(np.float64) for x in leaves(inputs.cotangent)])
    w = np.concatenate([np.ravel(x).astype(np.float64) for x in inputs.weights])
    ref = {"value": value, "jacfwd": jac, "jacrev": jac, "hessian": hess,
           "jvp": (value, _split(J @ t, out_leaves, out_tree)),
           "vjp": (value, _split(ct @ J, in_leaves, in_tree))}
    if inputs.scalar:
        ref["grad"] = jac
        ref["gradgrad"] = _split(np.einsum("ij,j->i", H[0], w), in_leaves, arg_tree)
    else:
        ref["gradgrad"] = _split(np.einsum("o,oij,j->i", ct, H, w), in_leaves, arg_tree)
    return ref


def jax_direct(case, inputs):
    """Every transform of `case` computed by JAX's own transforms (one jitted program)."""
    def program(diff, tangents, cotangent, weights):
        inner = Inputs.__new__(Inputs)
        inner.diff, inner.tangents, inner.cotangent, inner.weights = list(diff), tangents, cotangent, weights
        inner.scalar = inputs.scalar
        return compute_all(case, jnp, jax, inner)
    result = jax.jit(program)(tuple(inputs.diff), inputs.tangents, inputs.cotangent, inputs.weights)
    return jax.tree_util.tree_map(np.asarray, result)


def reference(case, inputs):
    """JAX's results for `case`; compiled together with the next few cases, then cached."""
    if DIRECT:
        if case.name not in _REFERENCE:
            _REFERENCE[case.name] = jax_direct(case, inputs)
        return _REFERENCE[case.name]
    if case.name not in _REFERENCE:
        start = CASES.index(case)
        chunk = [c for c in CASES[start:] if c.name not in _REFERENCE and missing(c) is None][:_CHUNK]
        chunk_inputs = [inputs] + [Inputs(c) for c in chunk[1:]]
        programs = [_jax_program(c) for c in chunk]
        raw = jax.jit(lambda diffs: [p(d) for p, d in zip(programs, diffs)])([tuple(i.diff) for i in chunk_inputs])
        for c, i, r in zip(chunk, chunk_inputs, raw):
            _REFERENCE[c.name] = _derive(c, i, jax.tree_util.tree_map(np.asarray, r))
    return _REFERENCE[case.name]


def assert_tree_close(got, want, case, what):
    float32 = case.float32
    rtol = case.rtol or (2e-5 if float32 else 1e-10)
    assert structure(got) == structure(want), f"{what}: structure {structure(got)} != JAX's {structure(want)}"
    for k, (g, w) in enumerate(zip(leaves(got), leaves(want))):
        g_arr, w_arr = np.asarray(g), np.asarray(w)
        assert g_arr.shape == w_arr.shape, f"{what} leaf {k}: shape {g_arr.shape} != JAX's {w_arr.shape}"
        assert g_arr.dtype == w_arr.dtype, f"{what} leaf {k}: dtype {g_arr.dtype} != JAX's {w_arr.dtype}"
        scale = max(1.0, float(np.max(np.abs(w_arr)))) if w_arr.size else 1.0
        np.testing.assert_allclose(g_arr, w_arr, rtol=rtol, atol=rtol * 1e-2 * scale if not float32 else rtol * scale,
                                   err_msg=f"{case.name}: {what} leaf {k}")


def _params():
    out = []
    for case in CASES:
        transforms = SCALAR_TRANSFORMS if scalar_output(case) else ARRAY_TRANSFORMS
        for t in transforms:
            out.append(pytest.param(case, t, id=f"{case.name}-{t}"))
    return out


@pytest.mark.parametrize("case,transform", _params())
def test_against_jax(case, transform):
    absent = missing(case)
    if absent is not None:
        pytest.skip(f"fgrad does not provide {absent} yet")
    inputs = Inputs(case)
    got = compute_all(case, fnp, fgrad, inputs, only=transform)[transform]
    want = reference(case, inputs)[transform]
    assert_tree_close(got, want, case, transform)


def test_corpus_size_and_coverage():
    """The corpus stays at least 100 functions, with float32, pytree and scalar-input cases."""
    assert len(CASES) >= 100
    assert len({c.name for c in CASES}) == len(CASES)
    assert sum(c.float32 for c in CASES) >= 5
    assert any(isinstance(a, dict) for c in CASES for a in c.args)
    assert any(isinstance(a, float) for c in CASES for a in c.args)
    assert sum(not scalar_output(c) for c in CASES) >= 20


@pytest.mark.parametrize("name", ["mlp_dict_params", "dict_output", "python_float_pair", "argnums_subset",
                                  "f32_softmax_vec"])
def test_derived_references_equal_direct_jax_transforms(name):
    """The harness itself: references derived from JAX's Jacobian and Hessian equal what
    jax.grad / jvp / vjp / jacfwd / grad-of-grad return directly (FGRAD_JAX_DIRECT=1 does this for all)."""
    case = next(c for c in CASES if c.name == name)
    inputs = Inputs(case)
    derived = reference(case, inputs) if not DIRECT else None
    if derived is None:
        pytest.skip("FGRAD_JAX_DIRECT=1 already compares every case directly")

    for transform, value in jax_direct(case, inputs).items():
        assert_tree_close(derived[transform], value, case, transform)


# ---- edge points -----------------------------------------------------------------------------
# Where JAX and PyTorch disagree, fgrad may follow PyTorch (API.md): pinned here, not compared.
EDGE_PYTORCH = {
    "abs_at_zero": (lambda np_, x: np_.sum(np_.abs(x)), np.array([0.0, 1.0, -1.0]), np.array([0.0, 1.0, -1.0])),
}
_EDGE_REFERENCE = {}


def _edge_reference():
    """JAX's value and gradient at every edge point, from one jitted program."""
    if not _EDGE_REFERENCE:
        def program(xs):
            return [jax.value_and_grad(lambda x, f=f: f(jnp, x))(x) for (_, f, _), x in zip(EDGE_CASES, xs)]
        results = jax.jit(program)([x for _, _, x in EDGE_CASES])
        for (name, _, _), r in zip(EDGE_CASES, results):
            _EDGE_REFERENCE[name] = jax.tree_util.tree_map(np.asarray, r)
    return _EDGE_REFERENCE


def _edge_params():
    return [pytest.param(name, f, x, id=name) for name, f, x in EDGE_CASES]


@pytest.mark.parametrize("name,f,x", _edge_params())
def test_edge_points_against_jax(name, f, x):
    """With fgrad.config.nan_safe_zeros off, JAX's values, NaN included; with it on (the
    default), the same wherever JAX's gradient is finite (the policy changes only products with
    a zero factor, which JAX makes NaN: docs/sharp-bits.md)."""
    value, grad = _edge_reference()[name]
    with np.errstate(all="ignore"), fgrad.config.overriding(nan_safe_zeros=False):  # (0 * inf at a kink)
        got_value, got_grad = fgrad.value_and_grad(lambda x: f(fnp, x))(x)
    np.testing.assert_allclose(got_value, value, rtol=1e-12, equal_nan=True)
    assert np.shape(got_grad) == grad.shape
    np.testing.assert_allclose(got_grad, grad, rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=name)
    with np.errstate(all="ignore"):
        on = fgrad.grad(lambda x: f(fnp, x))(x)
    finite = np.isfinite(grad)
    np.testing.assert_allclose(np.asarray(on)[finite], grad[finite], rtol=1e-12, atol=1e-14, err_msg=name)


@pytest.mark.parametrize("name", list(EDGE_PYTORCH))
def test_edge_points_following_pytorch(name):
    f, x, expected = EDGE_PYTORCH[name]
    np.testing.assert_array_equal(fgrad.grad(lambda x: f(fnp, x))(x), expected)


# ---- vmap: per-example derivatives against jax.vmap --------------------------------------
VMAP_CASES = ["tanh_gauss", "softplus", "sinc_degrees", "clip_square", "sum_axis0", "var_std", "max_min_axes",
              "row_col_index", "where_branches", "take_axis1", "sort_weighted", "argmax_as_index", "pad_edge",
              "matrix_cube_trace", "reshape_transpose", "newton_sqrt_loop", "linalg_cholesky", "linalg_eigh_values",
              "special_gammaln"]
_VMAP_REFERENCE = {}


def _vmap_inputs(case):
    """Three examples: the case's argument, scaled (scaling keeps it in its domain)."""
    x = diff_args(case)[0]
    return np.stack([x * (1.0 + 0.03 * b) for b in range(3)])


def _vmap_reference():
    """jax.vmap of grad and of hessian for every VMAP_CASES function, from one jitted program."""
    if not _VMAP_REFERENCE:
        cases = [next(c for c in CASES if c.name == n) for n in VMAP_CASES]

        def program(xs):
            return [(jax.vmap(jax.grad(partial(c, jnp)))(x), jax.vmap(jax.hessian(partial(c, jnp)))(x))
                    for c, x in zip(cases, xs)]
        for n, r in zip(VMAP_CASES, jax.jit(program)([_vmap_inputs(c) for c in cases])):
            _VMAP_REFERENCE[n] = [np.asarray(v) for v in r]
    return _VMAP_REFERENCE


@pytest.mark.parametrize("name", VMAP_CASES)
def test_vmap_of_grad_jacfwd_and_hessian_against_jax(name):
    case = next(c for c in CASES if c.name == name)
    f, xs = partial(case, fnp), _vmap_inputs(case)
    grads, hessians = _vmap_reference()[name]
    for got, want, what in [(fgrad.vmap(fgrad.grad(f))(xs), grads, "vmap(grad)"),
                            (fgrad.vmap(fgrad.jacfwd(fgrad.grad(f)))(xs), hessians, "vmap(jacfwd(grad))"),
                            (fgrad.vmap(fgrad.hessian(f))(xs), hessians, "vmap(hessian)")]:
        assert np.shape(got) == want.shape, what
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=what)


# ---- on another device: the second NumPy device here, CUDA where a GPU is ---------------------
def _moved(tree, device):
    return optree.tree_map(lambda x: device.send(x) if isinstance(x, np.ndarray) else x, tree, none_is_leaf=False)


def _on_device_case(case, device):
    moved = Case.__new__(Case)
    for slot in Case.__slots__:
        setattr(moved, slot, getattr(case, slot))
    moved.args = _moved(case.args, device)
    return moved


def _on_device_inputs(inputs, device):
    moved = Inputs.__new__(Inputs)
    moved.diff = _moved(inputs.diff, device)
    moved.tangents, moved.cotangent = _moved(inputs.tangents, device), _moved(inputs.cotangent, device)
    moved.weights, moved.scalar = _moved(inputs.weights, device), inputs.scalar
    return moved


# Cases that multiply by NumPy constants of their own (np.arange, np.array): on another device
# those are an error by design (the constant lives on the CPU), as they would be with CuPy.
CPU_CONSTANTS = {"broadcast_to_weighted", "integer_array_repeats", "take_along_argsort_vec", "sort_weighted",
                 "reshape_transpose", "flip_roll", "pad_edge", "linalg_cholesky", "linalg_eigh_values", "linalg_qr",
                 "linalg_svd_values",
                 # issue 22's cases with NumPy weights, grids, masks, identity matrices or integer counts
                 "weighted_average_rows", "quantiles_by_row", "nan_reductions", "nan_statistics", "correlation_energy",
                 "gradient_coordinates", "trapezoid_of_function", "interp_values_and_points", "interp_table",
                 "polynomial_value", "polyfit_line", "vandermonde_solve", "block_matrix_solve", "lstsq_solution",
                 "condition_number", "tensor_solve_and_inverse", "unwrap_phase", "stats_dirichlet",
                 "stats_discrete_probabilities", "stats_multivariate_normal", "stats_poisson_rate"}


def _device_cases():
    """float64 cases whose arguments are all arrays (a Python or NumPy scalar lives on the CPU)
    and that make no NumPy constants."""
    return [pytest.param(c, id=c.name) for c in CASES if not c.float32 and c.name not in CPU_CONSTANTS
            and not any(isinstance(x, (float, np.generic)) for x in leaves(c.args))]


@pytest.mark.parametrize("device", [pytest.param(fgrad.backend.register_numpy_device(1), id="cpu:1"),
                                    pytest.param("cuda:0", id="cuda:0", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("case", _device_cases())
def test_against_jax_on_another_device(case, device):
    """Every transform of each float64 case on another device: JAX's numbers, and every
    floating result on that device (the derivatives stay where their inputs live)."""
    if str(device) == "cuda:0" and not fgrad.backend.cupy_available():
        pytest.skip("no CUDA device")
    if missing(case) is not None:
        pytest.skip("fgrad does not provide it yet")
    device, cpu = fgrad.device(device), fgrad.device("cpu")
    inputs = Inputs(case)
    got = compute_all(_on_device_case(case, device), fnp, fgrad, _on_device_inputs(inputs, device))
    want = reference(case, inputs)
    for transform, value in got.items():
        for leaf in leaves(value):
            if isinstance(leaf, np.ndarray) or hasattr(leaf, "device"):
                assert fgrad.backend.device_of(leaf) == device, f"{case.name}: {transform} left {device}"
        assert_tree_close(optree.tree_map(lambda x: cpu.send(x) if hasattr(x, "shape") else x, value,
                                          none_is_leaf=False), want[transform], case, transform)


@pytest.mark.parametrize("name", sorted(CPU_CONSTANTS))
def test_cases_with_cpu_constants_raise_on_another_device(name):
    """The cases left out above fail for their constants alone: the error names both devices."""
    case = next(c for c in CASES if c.name == name)
    device = fgrad.backend.register_numpy_device(1)
    with pytest.raises(fgrad.backend.DeviceMismatchError, match="got arrays on two devices, cp"):
        compute_all(_on_device_case(case, device), fnp, fgrad, _on_device_inputs(Inputs(case), device),
                    only="value")


def _perturbed(tree):
    """Floating leaves moved by 0.1%: other values of the same avals, to trace a program on."""
    def one(x):
        if not np.issubdtype(np.asarray(x).dtype, np.floating):
            return x
        return np.asarray(x * (1 + 1e-3)) if isinstance(x, np.ndarray) else type(x)(x * (1 + 1e-3))
    return optree.tree_map(one, tree, none_is_leaf=False)


_REPLAYED = {}  # case name -> did the second call replay (no guard failed)?


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_compiled_against_jax(case):
    """fgrad.compile of every transform of the case at once: traced at a nearby point, then
    replayed at the corpus point, where it must give JAX's numbers."""
    if missing(case) is not None:
        pytest.skip("fgrad does not provide it yet")
    inputs = Inputs(case)

    def everything(diff):
        at = copy.copy(inputs)
        at.diff = list(diff)
        return compute_all(case, fnp, fgrad, at)
    compiled = fgrad.compile(everything)
    compiled(_perturbed(tuple(inputs.diff)))
    got = compiled(tuple(inputs.diff))
    if all(hasattr(x, "dtype") for x in leaves(tuple(inputs.diff))):  # (Python numbers are static: no replay)
        _REPLAYED[case.name] = compiled.cache_info().hits == 1
    want = reference(case, inputs)
    for transform, value in got.items():
        assert_tree_close(value, want[transform], case, transform)


def test_compiled_corpus_replays():
    """Every corpus function of array inputs replays at the corpus point (no guard fails 0.1%
    away: fgrad's rules guard decisions, not values)."""
    if len(_REPLAYED) < 50:
        pytest.skip("runs after test_compiled_against_jax")
    traced_again = sorted(name for name, replayed in _REPLAYED.items() if not replayed)
    assert not traced_again
